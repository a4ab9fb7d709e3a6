"""Building plain data from libyaml's node tree (or from its events, for the texts libyaml's own composer gets
wrong or could crash on), recording line numbers and counting aliases as the reference does; and, for a text that
fails, the refusal the reference meets first in document order."""

from __future__ import annotations

import builtins
import math
from collections.abc import Callable
from typing import Any

from turnlens.formatting.evals.files import MAX_FILE_SIZE_ENV, format_size, max_file_size
from turnlens.formatting.evals.yaml_binding import (
    MAP,
    OMAP,
    PAIRS,
    PLAIN,
    SEQ,
    SET,
    STR,
    ChildLines,
    YamlEvent,
    YamlLoader,
    YamlMark,
    YamlNode,
    lib,
    new_loader,
)
from turnlens.formatting.evals.yaml_errors import (
    MAX_ALIAS_COUNT,
    MAX_DEPTH,
    NestingError,
    Refusal,
    YamlError,
    YamlWarning,
    error_from_yaml,
)
from turnlens.formatting.evals.yaml_schema import (
    SPECIAL_START,
    UNRESOLVED,
    core_plain,
    is_array_index,
    js_string,
    tagged_scalar,
    y11_plain,
)

# --- construction -----------------------------------------------------------------------------------------------


class Builder:
    """Turns the node tree into plain data, recording lines; optionally counts aliases like the reference."""

    def __init__(self, yaml11: bool = False, count_aliases: bool = False, restore: Any = None, merge: bool = False):
        self.merge = merge or yaml11  # `<<` merge keys: YAML 1.1, or asked for (AgentV 4 reads them)
        self.node_lines: dict[int, int] = {}
        self.child_lines: dict[int, ChildLines] = {}
        self.warnings: list[YamlWarning] = []
        self.built: dict[int, Any] = {}  # id(node) -> value, so an alias gives the same object
        self.plain = y11_plain if yaml11 else core_plain
        self.restore = restore  # None, or a function giving back the characters stood in for before parsing
        self.count_aliases = count_aliases
        # Alias accounting, as the reference does it: id(node) -> (count, alias_count); where each node is defined.
        self.anchor_data: dict[int, tuple[int, int]] = {}
        self.defined_at: dict[int, tuple[Any, Any]] = {}  # (parent's id, position in it)
        self.open: builtins.set[int] = (
            set()
        )  # collections being built: an alias to one of them is a recursive structure
        # What the aliases add to the data, in characters: each alias stands for a whole copy of its anchor's text
        # once formatted (10 MB aliased 99 times is 1 GB of prompt), so the total is bounded, not only the count.
        self.expanded = 0
        self.expand_limit = max_file_size()
        self.sizes: dict[int, int] = {}  # id(node) -> characters of text under it, aliases expanded
        # The reference wants the continuation lines of a flow collection or quoted value in block context indented
        # past the enclosing block collection (libyaml does not check): its column, and whether we are in a flow.
        self.indent = -1
        self.in_flow = False
        self.text_lines: list[str] | None = None
        self.text = ""

    def warn(self, node: YamlNode, message: str) -> None:
        self.warnings.append(YamlWarning(node.start_mark.line + 1, node.start_mark.column + 1, message))

    def scalar(self, node: YamlNode) -> Any:
        value = node.value
        if self.restore:
            value = self.restore(value)
        tag = node.tag
        if tag == PLAIN:
            return self.plain(value)
        if node.style and node.style in "\"'" and node.end_mark.line != node.start_mark.line:
            self.check_quoted_lines(node)
        if tag == STR:
            return value
        try:
            result = tagged_scalar(tag, value)
        except ValueError as exc:
            raise YamlError(str(exc), node.start_mark.line + 1, node.start_mark.column + 1) from None
        if result is UNRESOLVED:
            self.warn(node, f"unresolved tag {_short_tag(tag)}: the value stays the text {value!r}")
            return value
        return result

    def build(self, node: YamlNode, depth: int = 0, parent: Any = None, position: Any = None) -> Any:
        cls = node.__class__
        if self.count_aliases:
            key = id(node)
            place = self.defined_at.get(key)
            if place is None:
                self.defined_at[key] = (parent, position)
            elif place != (parent, position):
                return self.alias(node)
        if cls is lib.ScalarNode:
            tag = node.tag
            if tag == PLAIN and not self.restore and self.plain is core_plain:
                return core_plain(node.value)
            return self.scalar(node)
        done = self.built.get(id(node))
        if done is not None:
            return done
        if depth >= MAX_DEPTH:
            raise NestingError(
                f"the data is nested more than {MAX_DEPTH} levels deep",
                node.start_mark.line + 1,
                node.start_mark.column + 1,
            )
        saved = self.indent, self.in_flow
        if node.flow_style:
            self.in_flow = True
        else:
            self.indent = node.start_mark.column
        result = self.collection(node, depth)
        self.indent, self.in_flow = saved  # (an error ends the whole parse: nothing to restore then)
        if node.flow_style and not self.in_flow and node.end_mark.line != node.start_mark.line:
            self.check_flow_lines(node)
        return result

    def collection(self, node: YamlNode, depth: int) -> Any:
        tag = node.tag
        if node.__class__ is lib.SequenceNode:
            if tag == OMAP or tag == PAIRS:
                return self.pairs(node, depth)
            if tag != SEQ:
                self.warn(node, f"the tag {_short_tag(tag)} does not apply to a sequence: it stays a plain sequence")
            return self.sequence(node, depth)
        if tag == SET:
            return self.set(node, depth)
        if tag != MAP:
            self.warn(node, f"the tag {_short_tag(tag)} does not apply to a mapping: it stays a plain mapping")
        return self.mapping(node, depth)

    def lines_of_text(self) -> list[str]:
        if self.text_lines is None:
            self.text_lines = self.text.split("\n")
        return self.text_lines

    def check_flow_lines(self, node: YamlNode) -> None:
        """Each line of a multi-line flow collection must be indented past the enclosing block collection (its
        closing bracket may stand at that column)."""
        error = _flow_indent_error(
            node.__class__ is lib.MappingNode,
            node.start_mark,
            node.start_mark.line + 1,
            node.end_mark.line,
            self.indent,
            self.lines_of_text(),
        )
        if error:
            raise error

    def check_quoted_lines(self, node: YamlNode) -> None:
        """Each continuation line of a multi-line quoted value must be indented past the enclosing block
        collection. The reference then reports the quote unclosed at the end of the line before."""
        error = _quoted_indent_error(node, self.indent, self.lines_of_text())
        if error:
            raise error

    def sequence(self, node: YamlNode, depth: int) -> list[Any]:
        result: list[Any] = []
        me = id(node)
        self.built[me] = result
        self.open.add(me)
        self.node_lines[id(result)] = node.start_mark.line + 1
        lines = []
        build = self.build
        depth += 1
        for index, item in enumerate(node.value):
            result.append(build(item, depth, me, index))
            lines.append(item.start_mark.line + 1)
        self.child_lines[id(result)] = lines
        self.open.discard(me)
        return result

    def pairs(self, node: YamlNode, depth: int) -> Any:
        """!!pairs: a list of one-pair mappings. !!omap: a JavaScript Map, which has no own properties (JSON `{}`)."""
        is_omap = node.tag == OMAP
        me = id(node)
        result: Any = {} if is_omap else []
        self.built[me] = result
        self.open.add(me)
        self.node_lines[id(result)] = node.start_mark.line + 1
        item_lines: list[int] = []  # (of a !!pairs; an omap has none)
        self.child_lines[id(result)] = {} if is_omap else item_lines
        seen: dict[Any, int] = {}  # key identity -> its line
        depth += 1
        for index, item in enumerate(node.value):
            line = item.start_mark.line + 1
            if item.__class__ is lib.MappingNode:
                if len(item.value) != 1:
                    raise YamlError(
                        f"each item of a {_short_tag(node.tag)} sequence must be a single key: value pair",
                        line,
                        item.start_mark.column + 1,
                    )
                self.defined_at.setdefault(id(item), (me, index))
                key_node, value_node = item.value[0]
                raw_key = self.build(key_node, depth + 1, id(item), (0, 0))
                value = self.build(value_node, depth + 1, id(item), (0, 1))
            elif item.__class__ is lib.ScalarNode:
                key_node, raw_key, value = item, self.build(item, depth, me, index), None
            else:
                raise YamlError(
                    f"each item of a {_short_tag(node.tag)} sequence must be a single key: value pair",
                    line,
                    item.start_mark.column + 1,
                )
            key, identity = (raw_key, raw_key) if raw_key.__class__ is str else self.odd_key(raw_key, key_node)
            if is_omap:
                if identity in seen:
                    raise YamlError(
                        f"the ordered map (!!omap) has the key {key!r} twice (first at line {seen[identity]})",
                        key_node.start_mark.line + 1,
                        key_node.start_mark.column + 1,
                    )
                seen[identity] = line
            else:
                pair = {key: value}
                self.node_lines[id(pair)] = line
                self.child_lines[id(pair)] = {key: key_node.start_mark.line + 1}
                result.append(pair)
                item_lines.append(line)
        self.open.discard(me)
        return result

    def set(self, node: YamlNode, depth: int) -> dict[str, Any]:
        """!!set: a JavaScript Set, which has no own properties (JSON `{}`); every key must have a null value."""
        me = id(node)
        result: dict[str, Any] = {}
        self.built[me] = result
        self.open.add(me)
        self.node_lines[id(result)] = node.start_mark.line + 1
        self.child_lines[id(result)] = {}
        depth += 1
        for index, (key_node, value_node) in enumerate(node.value):
            self.build(key_node, depth, me, (index, 0))
            if self.build(value_node, depth, me, (index, 1)) is not None:
                raise YamlError(
                    "every item of a !!set must have no value (or null)",
                    key_node.start_mark.line + 1,
                    key_node.start_mark.column + 1,
                )
        self.open.discard(me)
        return result

    def mapping(
        self, node: YamlNode, depth: int, result: dict[str, Any] | None = None, key_lines: dict[str, int] | None = None
    ) -> dict[str, Any]:
        """Build a mapping; or finish one the fast builder began with plain string keys (`result`, `key_lines`)."""
        start = 0
        if result is None or key_lines is None:
            result, key_lines = {}, {}
        else:
            start = len(result)
        self.built[id(node)] = result
        self.open.add(id(node))
        self.node_lines[id(result)] = node.start_mark.line + 1
        seen: dict[Any, int] = dict(key_lines)
        needs_reorder = any(is_array_index(k) for k in result)
        build = self.build
        me = id(node)
        depth += 1
        merge = self.merge  # YAML 1.1 (a `%YAML 1.1` directive), or AgentV 4: `<<` merges mappings in
        for index in range(start, len(node.value)):
            key_node, value_node = node.value[index]
            if merge and key_node.__class__ is lib.ScalarNode and key_node.tag == PLAIN and key_node.value == "<<":
                self.merge_into(result, key_lines, build(value_node, depth, me, (index, 1)), key_node)
                continue
            if key_node.__class__ is lib.ScalarNode and key_node.tag == STR and not self.count_aliases:
                raw_key = self.restore(key_node.value) if self.restore else key_node.value
            else:
                raw_key = build(key_node, depth, me, (index, 0))
            line = key_node.start_mark.line + 1
            if raw_key.__class__ is str:
                key = identity = raw_key
            else:
                key, identity = self.odd_key(raw_key, key_node)
            first = seen.get(identity)
            if first is not None:
                shown = key_node.value if key_node.__class__ is lib.ScalarNode else key
                raise YamlError.of(Refusal.DUPLICATE_KEY, line, key_node.start_mark.column + 1, key=shown, first=first)
            seen[identity] = line
            if not needs_reorder and key[:1].isdigit():
                needs_reorder = is_array_index(key)
            result[key] = build(value_node, depth, me, (index, 1))
            key_lines[key] = line
        if needs_reorder:
            # A JavaScript object lists integer-like keys first, ascending, then the others in insertion order.
            index_keys = sorted((k for k in result if is_array_index(k)), key=int)
            ordered = {k: result[k] for k in index_keys}
            for k, v in result.items():
                if k not in ordered:
                    ordered[k] = v
            result.clear()
            result.update(ordered)
        self.child_lines[id(result)] = key_lines
        self.open.discard(id(node))
        return result

    def merge_into(self, result: dict[str, Any], key_lines: dict[str, int], sources: Any, key_node: YamlNode) -> None:
        # Keys already present win, then earlier sources over later ones; keys written later still override.
        line = key_node.start_mark.line + 1
        for source in sources if isinstance(sources, list) else [sources]:
            if not isinstance(source, dict):
                raise YamlError(
                    "the value of a merge key '<<' must be a mapping or a list of mappings",
                    line,
                    key_node.start_mark.column + 1,
                )
            for key, value in source.items():
                if key not in result:
                    result[key] = value
                    key_lines[key] = line

    def odd_key(self, raw_key: Any, key_node: YamlNode) -> tuple[str, Any]:
        """The string key and the duplicate-check identity of a non-string key (compared like JavaScript ===)."""
        if raw_key is None:
            return "", ("null",)
        if isinstance(raw_key, bool):
            return js_string(raw_key), ("bool", raw_key)
        if isinstance(raw_key, (int, float)):
            if isinstance(raw_key, float) and math.isnan(raw_key):
                return "NaN", object()  # NaN never equals itself: never a duplicate
            return js_string(raw_key), ("num", float(raw_key))
        if isinstance(raw_key, (dict, list)):
            text = js_string(raw_key)
            self.warn(key_node, f"a collection used as a key becomes the string key {text!r}")
            return text, object()  # collections are only ever equal to themselves, and an alias is another node
        return js_string(raw_key), object()

    def alias(self, node: YamlNode) -> Any:
        """A second (or later) reference to a node: count it as the reference does, refuse past the limit."""
        if id(node) in self.open:
            raise YamlError(
                "an alias refers to the collection that contains it (a recursive structure), which the "
                f"reference cannot read; the anchor is at line {node.start_mark.line + 1}",
                node.start_mark.line + 1,
                node.start_mark.column + 1,
            )
        data = self.anchor_data.get(id(node))
        count, alias_count = data if data else (1, 0)
        count += 1
        if alias_count == 0:
            alias_count = self.alias_weight(node, None, None, set())
        self.anchor_data[id(node)] = (count, alias_count)
        if count * alias_count > MAX_ALIAS_COUNT:
            raise YamlError(
                f"too many alias expansions: the anchor at line {node.start_mark.line + 1} is expanded past the "
                f"reference's limit ({MAX_ALIAS_COUNT}, a guard against alias bombs)",
                node.start_mark.line + 1,
                node.start_mark.column + 1,
            )
        self.expanded += self.node_size(node)
        if self.expanded > self.expand_limit:
            raise YamlError(
                f"aliases expand the data past {format_size(self.expand_limit)} (the anchor at line "
                f"{node.start_mark.line + 1} is repeated {count - 1} times; --max-file-size or {MAX_FILE_SIZE_ENV} "
                "raise the limit)",
                node.start_mark.line + 1,
                node.start_mark.column + 1,
            )
        if node.__class__ is lib.ScalarNode:
            return self.scalar(node)
        return self.built[id(node)]

    def node_size(self, node: YamlNode) -> int:
        """Characters of scalar text in `node`, every alias inside counted as a full copy (memoised)."""
        size = self.sizes.get(id(node))
        if size is not None:
            return size
        if node.__class__ is lib.ScalarNode:
            size = len(node.value)
        elif node.__class__ is lib.SequenceNode:
            size = sum(self.node_size(item) for item in node.value)
        else:
            size = sum(self.node_size(key) + self.node_size(value) for key, value in node.value)
        self.sizes[id(node)] = size
        return size

    def alias_weight(self, node: YamlNode, parent: Any, position: Any, visiting: builtins.set[int]) -> int:
        if parent is not None and self.defined_at.get(id(node)) != (parent, position):
            count, alias_count = self.anchor_data.get(id(node), (1, 0))
            return count * alias_count
        if node.__class__ is lib.ScalarNode:
            return 1
        if id(node) in visiting:
            return 0
        visiting.add(id(node))
        weight = 0
        me = id(node)
        if node.__class__ is lib.SequenceNode:
            for index, item in enumerate(node.value):
                weight = max(weight, self.alias_weight(item, me, index, visiting))
        else:
            for index, (key_node, value_node) in enumerate(node.value):
                weight = max(
                    weight,
                    self.alias_weight(key_node, me, (index, 0), visiting),
                    self.alias_weight(value_node, me, (index, 1), visiting),
                )
        visiting.discard(id(node))
        return weight


class FastBuilder(Builder):
    """The common case, specialised for speed: core schema, no aliases to count, no stand-in characters.

    Scalars are typed inline (no call for text that cannot be anything but a string); mappings whose keys are not
    all plain strings, and tagged collections, go through the general Builder methods.
    """

    def build(self, node: YamlNode, depth: int = 0, parent: Any = None, position: Any = None) -> Any:
        cls = node.__class__
        if cls is lib.ScalarNode:
            tag = node.tag
            if tag == PLAIN:
                return core_plain(node.value)
            if tag == STR and node.end_mark.line == node.start_mark.line:
                return node.value
            return self.scalar(node)
        # No alias in the text (else the general builder runs): every node is built once, no memo needed.
        if depth >= MAX_DEPTH or node.tag != (SEQ if cls is lib.SequenceNode else MAP):
            return Builder.build(self, node, depth, parent, position)
        # (No try/finally to restore the context: an error ends the whole parse.)
        if node.flow_style:
            if self.in_flow:
                return self.mapping(node, depth) if cls is lib.MappingNode else self.sequence(node, depth)
            if node.end_mark.line != node.start_mark.line:
                return Builder.build(self, node, depth)  # checks the continuation lines' indentation
            self.in_flow = True
            result = self.mapping(node, depth) if cls is lib.MappingNode else self.sequence(node, depth)
            self.in_flow = False
            return result
        saved = self.indent
        self.indent = node.start_mark.column
        result = self.mapping(node, depth) if cls is lib.MappingNode else self.sequence(node, depth)
        self.indent = saved
        return result

    def sequence(self, node: YamlNode, depth: int) -> list[Any]:
        result: list[Any] = []
        self.node_lines[id(result)] = node.start_mark.line + 1
        lines: list[int] = []
        append = result.append
        add_line = lines.append
        build = self.build
        special = SPECIAL_START
        depth += 1
        for item in node.value:
            if item.__class__ is lib.ScalarNode:
                tag = item.tag
                value = item.value
                if tag == PLAIN and value and value[0] not in special:
                    append(value)
                elif tag == STR and (
                    not item.style or item.style in "|>" or item.end_mark.line == item.start_mark.line
                ):
                    append(value)
                elif tag == PLAIN:
                    append(core_plain(value))
                else:
                    append(self.scalar(item))
            else:
                append(build(item, depth))
            add_line(item.start_mark.line + 1)
        self.child_lines[id(result)] = lines
        return result

    def mapping(
        self, node: YamlNode, depth: int, result: dict[str, Any] | None = None, key_lines: dict[str, int] | None = None
    ) -> dict[str, Any]:
        result = {}
        key_lines = {}
        build = self.build
        special = SPECIAL_START
        plain_keys = _PLAIN_STRING_KEYS
        depth += 1
        for key_node, value_node in node.value:
            if key_node.__class__ is not lib.ScalarNode:
                break
            key = key_node.value
            tag = key_node.tag
            if tag == PLAIN:
                if key in plain_keys:
                    pass
                elif key and key[0] not in special or core_plain(key).__class__ is str:
                    if len(plain_keys) < 10_000:
                        plain_keys.add(key)
                else:
                    break  # null, a number, a bool: a JavaScript key string, and duplicates compared by value
            elif tag != STR or key[:1].isdigit():  # a tag, or a key JavaScript would put first ("1")
                break
            if key in key_lines:
                raise YamlError.of(
                    Refusal.DUPLICATE_KEY,
                    key_node.start_mark.line + 1,
                    key_node.start_mark.column + 1,
                    key=key,
                    first=key_lines[key],
                )
            key_lines[key] = key_node.start_mark.line + 1
            if value_node.__class__ is lib.ScalarNode:
                tag = value_node.tag
                value = value_node.value
                if tag == PLAIN and value and value[0] not in special:
                    result[key] = value
                elif tag == STR and (
                    not value_node.style
                    or value_node.style in "|>"
                    or value_node.end_mark.line == value_node.start_mark.line
                ):
                    result[key] = value
                elif tag == PLAIN:
                    result[key] = core_plain(value)
                else:
                    result[key] = self.scalar(value_node)
            else:
                result[key] = build(value_node, depth)
        else:
            self.node_lines[id(result)] = node.start_mark.line + 1
            self.child_lines[id(result)] = key_lines
            return result
        # A key that is not a plain string: finish the general way, keeping what is built.
        return Builder.mapping(self, node, depth - 1, result, key_lines)


# Plain scalars seen as keys that the core schema leaves strings ("type", "name"...): saves typing them again.
_PLAIN_STRING_KEYS: set[str] = set()


def _short_tag(tag: str) -> str:
    return "!!" + tag[len("tag:yaml.org,2002:") :] if tag.startswith("tag:yaml.org,2002:") else tag


# --- composing from events, for the texts libyaml's own composer gets wrong or could crash on ------------------


def compose_events(loader: YamlLoader) -> tuple[Any, Any]:
    """Compose the single document from parser events, iteratively. Returns (root node or None, YAML version)."""
    loader.get_event()  # stream start
    if loader.check_event(lib.StreamEndEvent):
        return None, None
    start = loader.get_event()
    version = start.version
    anchors: dict[str, YamlNode] = {}
    stack: list[list[Any]] = []  # [node, pending key node or None]
    root = None
    node: Any
    while root is None:
        event = loader.get_event()
        cls = event.__class__
        if cls is lib.ScalarEvent:
            tag = event.tag
            if tag is None:
                tag = PLAIN if event.implicit[0] else STR
            elif tag == "!":
                tag = STR
            node = lib.ScalarNode(tag, event.value, event.start_mark, event.end_mark, event.style)
            if event.anchor is not None:
                anchors[event.anchor] = node
        elif cls is lib.AliasEvent:
            node = anchors.get(event.anchor)
            if node is None:
                raise YamlError.of(
                    Refusal.UNDEFINED_ALIAS, event.start_mark.line + 1, event.start_mark.column + 1, name=event.anchor
                )
        elif cls is lib.SequenceStartEvent or cls is lib.MappingStartEvent:
            is_seq = cls is lib.SequenceStartEvent
            tag = event.tag
            if tag is None or tag == "!":
                tag = SEQ if is_seq else MAP
            node = (lib.SequenceNode if is_seq else lib.MappingNode)(tag, [], event.start_mark, None, event.flow_style)
            if event.anchor is not None:
                anchors[event.anchor] = node
            if len(stack) >= MAX_DEPTH:
                raise NestingError(
                    f"the data is nested more than {MAX_DEPTH} levels deep",
                    event.start_mark.line + 1,
                    event.start_mark.column + 1,
                )
            _attach(stack, node)
            stack.append([node, None])
            continue
        else:  # a collection ends
            node = stack.pop()[0]
            node.end_mark = event.end_mark
            if not stack:
                root = node
            continue
        if stack:
            _attach(stack, node)
        else:
            root = node
    loader.get_event()  # document end
    if not loader.check_event(lib.StreamEndEvent):
        extra = loader.peek_event()
        raise _multiple_documents(extra.start_mark)
    return root, version


def _attach(stack: list[list[Any]], node: YamlNode) -> None:
    if not stack:
        return
    top = stack[-1]
    parent = top[0]
    if parent.__class__ is lib.SequenceNode:
        parent.value.append(node)
    elif top[1] is None:
        top[1] = node
    else:
        parent.value.append((top[1], node))
        top[1] = None


def _multiple_documents(mark: YamlMark | None) -> YamlError:
    return YamlError.of(Refusal.MULTIPLE_DOCUMENTS, mark.line + 1 if mark else None, mark.column + 1 if mark else None)


# --- the first refusal in document order, for texts that fail ----------------------------------------------------


def first_refusal(text: str, lines: list[str]) -> YamlError | None:
    """Re-read a failing text event by event and return the refusal the reference reports: the first by position
    among syntax errors, duplicate keys and badly indented continuation lines; failing those, an undefined alias
    (the reference resolves aliases only after reading the whole document). None if none is found here."""
    loader = new_loader(text)
    undefined_alias: YamlError | None = None
    anchors: dict[str, Any] = {}  # anchor -> key identity of the anchored node (a scalar's value), or a unique object
    try:
        loader.get_event()  # stream start
        if loader.check_event(lib.StreamEndEvent):
            return None
        typing = y11_plain if loader.get_event().version == (1, 1) else core_plain
        # frames: [is_mapping, is_flow, column, start_mark, {key identity: line}, line of the key awaiting its value]
        stack: list[list[Any]] = []
        empty_before = None
        flow = None  # the outermost flow collection inside block context: [frame, lines checked up to]
        while True:
            try:
                event = loader.get_event()
            except lib.yaml.YAMLError as exc:
                mark = getattr(exc, "problem_mark", None)
                if flow is not None and mark is not None:  # its lines up to the failure come first
                    error = _flow_indent_error(
                        flow[0][0],
                        flow[0][3],
                        flow[1] + 1,
                        mark.line,
                        _block_indent(stack[: stack.index(flow[0])]),
                        lines,
                    )
                    if error:
                        return error
                raise
            cls = event.__class__
            if flow is not None and event.start_mark.line > flow[1]:
                error = _flow_indent_error(
                    flow[0][0],
                    flow[0][3],
                    flow[1] + 1,
                    event.start_mark.line,
                    _block_indent(stack[: stack.index(flow[0])]),
                    lines,
                )
                if error:
                    return error
                flow[1] = event.start_mark.line
            if cls is lib.ScalarEvent or cls is lib.AliasEvent:
                if cls is lib.AliasEvent:
                    identity = anchors.get(event.anchor)
                    if identity is None:
                        identity = object()
                        if undefined_alias is None:
                            undefined_alias = YamlError.of(
                                Refusal.UNDEFINED_ALIAS,
                                event.start_mark.line + 1,
                                event.start_mark.column + 1,
                                name=event.anchor,
                            )
                    empty = False
                else:
                    identity = _scalar_identity(event, typing)
                    if event.anchor is not None:
                        anchors[event.anchor] = identity
                    empty = event.value == "" and event.implicit[0] and event.tag is None
                    if event.style in ("'", '"') and event.end_mark.line != event.start_mark.line:
                        error = _quoted_indent_error(event, _block_indent(stack), lines)
                        if error:
                            return error
                empty_before = _take_node(stack, event, identity, empty, empty_before)
            elif cls is lib.SequenceStartEvent or cls is lib.MappingStartEvent:
                if event.anchor is not None:
                    anchors[event.anchor] = object()
                empty_before = _take_node(stack, event, object(), False, empty_before)
                stack.append(
                    [
                        cls is lib.MappingStartEvent,
                        bool(event.flow_style),
                        event.start_mark.column,
                        event.start_mark,
                        {},
                        None,
                    ]
                )
                if flow is None and event.flow_style and len(stack) > 1:
                    flow = [stack[-1], event.start_mark.line]
            elif cls is lib.SequenceEndEvent or cls is lib.MappingEndEvent:
                frame = stack.pop()
                if flow is not None and flow[0] is frame:
                    flow = None
                if not stack:
                    loader.get_event()  # document end
                    if not loader.check_event(lib.StreamEndEvent):
                        return _multiple_documents(loader.peek_event().start_mark)
                    return undefined_alias
            elif not stack:  # the document end, after a root scalar or alias
                if not loader.check_event(lib.StreamEndEvent):
                    return _multiple_documents(loader.peek_event().start_mark)
                return undefined_alias
    except _Duplicate as duplicate:
        return duplicate.error
    except lib.yaml.YAMLError as exc:
        return error_from_yaml(exc, text)
    finally:
        loader.dispose()


class _Duplicate(Exception):
    def __init__(self, error: YamlError):
        self.error = error


def _scalar_identity(event: YamlEvent, typing: Callable[[str], Any]) -> Any:
    """How the reference compares a scalar key: by its value (null with ~, 1 with 1.0; NaN with nothing)."""
    if event.tag is None and event.implicit[0]:
        value = typing(event.value)
    elif event.tag in (None, "!", STR):
        value = event.value
    else:
        try:
            value = tagged_scalar(event.tag, event.value)
        except ValueError:
            value = event.value
        if value is UNRESOLVED:
            value = event.value
    if value.__class__ is str:
        return value
    if value is None:
        return ("null",)
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, (int, float)):
        return object() if isinstance(value, float) and math.isnan(value) else ("num", float(value))
    return object()


def _take_node(
    stack: list[list[Any]], event: YamlEvent, identity: Any, empty: bool, empty_before: int | None
) -> int | None:
    """Place a node in its parent; a mapping key is checked against the keys before it. `empty_before`: the line
    of the node just before, if it was an empty value (the reference then places a duplicate key at the end of that
    line). Returns the same for this node."""
    if not stack:
        return None
    frame = stack[-1]
    if not frame[0]:  # a sequence item
        return event.start_mark.line + 1 if empty else None
    if frame[5] is None:  # a key
        line = event.start_mark.line + 1
        first = frame[4].get(identity)
        if first is not None:
            where = empty_before if empty_before is not None else line
            shown = event.value if event.__class__ is lib.ScalarEvent else f"*{event.anchor}"
            raise _Duplicate(
                YamlError.of(Refusal.DUPLICATE_KEY, where, event.start_mark.column + 1, key=shown, first=first)
                if where == line
                else YamlError.of(Refusal.DUPLICATE_KEY_AFTER_EMPTY, where, None, key=shown, at_line=line, first=first)
            )
        frame[4][identity] = line
        frame[5] = line
        return None
    key_line, frame[5] = frame[5], None  # its value
    return key_line if empty else None


def _block_indent(stack: list[list[Any]]) -> int:
    for frame in reversed(stack):
        if not frame[1]:
            column: int = frame[2]
            return column
    return -1


def _flow_indent_error(
    is_mapping: bool, start: YamlMark, first: int, last: int, indent: int, lines: list[str]
) -> YamlError | None:
    """The first of lines first..last (0-based) of a flow collection that is not indented past its parent."""
    for number in range(max(first, start.line + 1), min(last, len(lines) - 1) + 1):  # a mark may sit past the end
        line = lines[number].rstrip("\r")
        body = line.lstrip(" ")
        if not body.strip() or body[0] == "#":
            continue
        column = len(line) - len(body)
        if column > indent or (column == indent and body[0] in "]}"):
            continue
        if not is_mapping:
            return YamlError.of(Refusal.FLOW_SEQUENCE_NOT_INDENTED, number + 1, column + 1, opened=start.line + 1)
        return YamlError(
            f"the '{{' mapping opened at line {start.line + 1} is not closed with '}}', or this line of it is not "
            "indented past its parent",
            number + 1,
            column + 1,
        )
    return None


def _quoted_indent_error(event: YamlEvent, indent: int, lines: list[str]) -> YamlError | None:
    for number in range(event.start_mark.line + 1, min(event.end_mark.line, len(lines) - 1) + 1):
        line = lines[number].rstrip("\r")
        body = line.lstrip(" ")
        if not body.strip(" \t") or len(line) - len(body) > indent:
            continue
        before = lines[number - 1].rstrip("\r")
        single = event.style == "'"
        return YamlError.of(
            Refusal.SINGLE_QUOTE_NOT_INDENTED if single else Refusal.DOUBLE_QUOTE_NOT_INDENTED,
            number,
            len(before) + 1,
            quote="single" if single else "double",
            opened=event.start_mark.line + 1,
            at_line=number + 1,
        )
    return None
