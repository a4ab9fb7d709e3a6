"""YAML 1.2 (core schema) loading on PyYAML, giving the data the reference's JavaScript `yaml` parser gives.

PyYAML types plain scalars by YAML 1.1 (`yes` is a bool, `0755` octal, `2024-01-01` a date); the reference reads
eval files with YAML 1.2 core-schema semantics. So libyaml (the C parser where present) only builds the node tree;
this module types the scalars, records line numbers, and turns every refusal into one `YamlError`: one sentence,
with the line.

    doc = parse_yaml(text)      # -> YamlDoc; raises YamlError for anything the reference refuses
    doc.data                    # plain dict / list / str / int / float / bool / None
    doc.line(obj)               # line (1-based) of a dict or list
    doc.line(obj, key)          # line of key `key` of dict obj, or of item number `key` of list obj
    doc.warnings                # YamlWarning(line, column, message): what the reference only warns about

Behaviour of the reference, observed on the oracle (tests/fixtures/yaml12/ records each probe):
- plain scalars typed by the core schema only: `yes`/`on`/`y`, `1_000`, `0b101`, dates and timestamps are strings;
  `0755` is the decimal 755; `0o17`, `0x1F`, `+12`, `1e3`, `.5`, `1.`, `.inf`, `.nan` are numbers (JavaScript
  doubles: integers past 2**53 lose precision the same way);
- explicit tags: `!!str`, `!!int`, `!!float`, `!!bool`, `!!null` apply only when the text fits (`!!float 1` stays the
  string "1", with a warning); `!!binary` gives bytes, `!!timestamp` a UTC datetime; `!!set`/`!!omap`/`!!pairs`
  give JavaScript Set/Map objects, which behave like an empty mapping (JSON `{}`), so they become `{}`; unknown tags
  leave the string or the plain collection (with a warning); `! x` is a string;
- mapping keys become strings as JavaScript's String() makes them (`1.0` -> "1", `null` -> "", `.inf` ->
  "Infinity", `[1, 2]` -> "[ 1, 2 ]"), and integer-like keys come first in ascending order, as in a JavaScript object;
- duplicate keys refuse the file; keys are compared by value (`null`/`~`, `1`/`1.0`, `a`/`'a'` clash; `'1'`/`1`
  and `.nan`/`.nan` do not: the later value wins);
- no merge keys: `<<` is an ordinary key; anchors may be redefined (an alias takes the latest);
- more than one document (even an empty one after a trailing `---`) refuses the file;
- more than 100 alias expansions (counted as the reference counts them), or an alias inside its own anchor, refuse
  the file;
- control characters, NEL, U+2028/U+2029 are ordinary characters (YAML 1.2), not errors or line breaks; so is a CR
  not followed by LF (a CR-only file is one long line, and refused);
- the continuation lines of a multi-line flow collection or quoted value must be indented past the enclosing block
  collection (a closing bracket may stand at its column), else the file is refused;
- a `%YAML 1.1` directive switches the document to YAML 1.1 typing (`yes` a bool, `0755` octal, dates) and merge
  keys; other unknown directives are ignored with a warning.

When a text is refused, the refusal reported is the one the reference meets first while reading (a duplicate key, a
badly indented line, a syntax error), before what it finds in the data afterwards (an undefined alias, alias counts).

Known difference: a block mapping entry with no key text (`: value`) is refused here (libyaml), read as key "" there.
Line numbers of some malformed-structure refusals differ by a line or two (each side names a nearby line).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Any

from turnlens.formatting import gcpause
from turnlens.formatting.evals.yaml_binding import ChildLines, lib, new_loader
from turnlens.formatting.evals.yaml_block import parse_block
from turnlens.formatting.evals.yaml_errors import (
    MAX_DEPTH,
    NestingError,
    YamlError,
    YamlWarning,
    error_from_yaml,
    nesting_refusal,
    refusal_text,
)
from turnlens.formatting.evals.yaml_schema import SPECIAL_START, core_plain, js_string
from turnlens.formatting.evals.yaml_text import (
    SAFE_FLOW,
    TEMPLATE_REF,
    colon_patch,
    compose_with_big_stack,
    first_invalid_utf8,
    has_alias,
    needs_careful_path,
    prepare,
)
from turnlens.formatting.evals.yaml_tree import Builder, FastBuilder, compose_events, first_refusal

__all__ = [
    "YamlError",
    "YamlWarning",
    "refusal_text",
    "YamlDoc",
    "parse_yaml",
    "parse_yaml_bytes",
    "first_invalid_utf8",
    "has_alias",
    "js_string",
    "MAX_DEPTH",
]


@dataclass
class YamlDoc:
    """A parsed YAML document: its data, the reader's warnings, and where each container and child starts."""

    data: Any
    warnings: list[YamlWarning] = field(default_factory=list)
    # id(container) -> line of the container; id(container) -> {key: line} or [item line, ...], or one line for
    # children all on that line (a one-line flow collection). A container missing from _node_lines is on the line
    # of its first child: the block reader (yaml_block.py) leaves out what it can, as it makes thousands of them.
    # `data` keeps every container alive, so the ids stay valid as long as this object lives.
    _node_lines: dict[int, int] = field(default_factory=dict, repr=False)
    _child_lines: dict[int, ChildLines] = field(default_factory=dict, repr=False)

    def child_lines(self, obj: Any) -> dict[Any, int] | list[int] | None:
        """The lines of all of `obj`'s children at once: {key: line} for a dict, [line, …] for a list, or None."""
        children = self._child_lines.get(id(obj))
        if isinstance(children, int):
            return dict.fromkeys(obj, children) if isinstance(obj, dict) else [children] * len(obj)
        return children

    def line(self, obj: Any, key: Any = None) -> int | None:
        """Line (1-based) of container `obj`, or of key `key` in dict `obj` / item `key` in list `obj`."""
        children = self._child_lines.get(id(obj))
        if key is None:
            line = self._node_lines.get(id(obj))
            if line is not None or not children:
                return line
            if isinstance(children, int):
                return children
            return children[0] if isinstance(children, list) else next(iter(children.values()))
        if children is None:
            return None
        if isinstance(children, int):
            children = self.child_lines(obj)
            assert children is not None  # (made from the int, for this very obj)
        if isinstance(children, dict):
            return children.get(key)
        if isinstance(key, int) and not isinstance(key, bool) and -len(children) <= key < len(children):
            return children[key]
        return None


# --- entry points -----------------------------------------------------------------------------------------------


def parse_yaml(text: str, merge: bool = False) -> YamlDoc:
    """Parse one YAML document with YAML 1.2 core-schema typing. Raises YamlError for anything refused.

    `merge`: `<<` merge keys merge mappings in (AgentV 4's parser does so; 0.15.1's did not)."""
    # The node tree is hundreds of thousands of acyclic objects: cyclic GC passes over it would cost 4x the parse.
    with gcpause.paused():
        # Building recurses in Python, up to two frames per level: make room for MAX_DEPTH levels above the caller.
        recursion_limit = sys.getrecursionlimit()
        if recursion_limit < _RECURSION_ROOM:
            sys.setrecursionlimit(_RECURSION_ROOM)
        try:
            doc = _parse(text, merge)
            # (freeing it, a dict of lines per mapping, took ~4% of loading a big suite: an export keeps it to its exit)
            gcpause.keep_to_exit(doc)
            return doc
        except RecursionError:
            raise YamlError(f"the data is nested too deeply (the limit is {MAX_DEPTH} levels)") from None
        finally:
            if sys.getrecursionlimit() == _RECURSION_ROOM and recursion_limit < _RECURSION_ROOM:
                sys.setrecursionlimit(recursion_limit)


_RECURSION_ROOM = 3 * MAX_DEPTH + 1000


def _parse(text: str, merge: bool = False) -> YamlDoc:
    text, restore_text, lone_cr, directive_warnings = prepare(text)
    if restore_text is None and not directive_warnings:
        # Plain block YAML (most eval files) is read without a libyaml node per value, in a third of the time
        # (yaml_block.py, benchmarks/bench_yaml.py; it declines deep nesting and everything the careful path below
        # is for).
        block = parse_block(text, core_plain, SPECIAL_START)
        if block is not None:
            return YamlDoc(block[0], [], block[1], block[2])
    flow_openers = text.count("[") + text.count("{")
    if "{{" in text:
        flow_openers -= 2 * len(TEMPLATE_REF.findall(text)) - 2
    careful = needs_careful_path(text, flow_openers)
    patches: list[object] = []  # where each was made (only counted)
    # PyYAML is imported on first use: here, not in the except clause below, which would import it a second time
    # (and fail, half-imported) when Ctrl-C lands in the first import, turning the interrupt into a parse error.
    yaml_error = lib.yaml.YAMLError
    while True:
        try:
            root, version = _compose(text, careful, flow_openers)
            break
        except NestingError:
            raise
        except yaml_error as exc:
            # Two things YAML 1.2 (and the reference) allow and libyaml refuses: `: value` with no key text (an empty,
            # null key) and a plain value in a flow that starts with ':'. Written out for libyaml, then read again.
            patched = colon_patch(text, exc) if len(patches) < _MAX_PATCHES else None
            if patched is not None:
                text, where = patched
                patches.append(where)
                continue
            error = first_refusal(text, text.split("\n")) or error_from_yaml(exc, text)
        except YamlError as exc:
            error = first_refusal(text, text.split("\n")) or exc
        if lone_cr:
            error = YamlError(
                error.message + " (the file ends lines with a bare CR, which the reference does not "
                "take as a line break)",
                error.line,
                error.column,
                error.kind,
                error.fields,
            )
        raise error from None
    if root is None:
        return YamlDoc(None)
    count_aliases = has_alias(text)
    builder: Builder
    merge = merge and "<<" in text
    if version is None and not count_aliases and restore_text is None and not merge:
        builder = FastBuilder()
    else:
        builder = Builder(yaml11=version == (1, 1), count_aliases=count_aliases, restore=restore_text, merge=merge)
    builder.text = text
    try:
        data = builder.build(root)
    except NestingError:
        raise
    except YamlError as error:
        # The reference reports what it meets first while reading (a duplicate key, a badly indented line) before
        # what it finds in the data afterwards (alias counts...).
        raise first_refusal(text, builder.lines_of_text()) or error from None
    gcpause.keep_to_exit(root)
    return YamlDoc(data, directive_warnings + builder.warnings, builder.node_lines, builder.child_lines)


_MAX_PATCHES = 100


def _compose(text: str, careful: bool, flow_openers: int) -> tuple[Any, Any]:
    """The node tree (or None for an empty stream) and the %YAML version (None when not known to be given)."""
    loader = new_loader(text)
    try:
        try:
            if careful:
                return compose_events(loader)
            if flow_openers > SAFE_FLOW:
                return compose_with_big_stack(loader, flow_openers), None
            return loader.get_single_node(), None
        except lib.yaml.YAMLError as exc:
            nesting = nesting_refusal(exc)
            if nesting is not None:
                raise nesting from None
            if (
                not isinstance(exc, lib.yaml.composer.ComposerError)
                or "duplicate anchor" not in f"{exc.context} {exc.problem}"
            ):
                raise
        # YAML 1.2 lets an anchor be redefined; libyaml's composer does not: compose it ourselves.
        loader.dispose()
        loader = new_loader(text)
        return compose_events(loader)
    finally:
        loader.dispose()


def parse_yaml_bytes(raw: bytes) -> YamlDoc:
    """Decode UTF-8 as the reference does (undecodable bytes become U+FFFD; a BOM is dropped) and parse."""
    return parse_yaml(raw.decode("utf-8", errors="replace"))
