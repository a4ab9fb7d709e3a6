"""A fast reader for the plain block YAML most eval files are written in, used by yaml12 before libyaml.

PyYAML hands every node to Python as objects (a node, two marks, a resolver call) that yaml12's builder then walks;
most eval files use a small part of YAML, which is read here line by line in a third of the time (a third of
`turnlens export`'s time on a 5,000-test suite went to reading YAML), giving the same data and line numbers as
libyaml and yaml12's builder:

- block mappings with plain keys (letters, digits, `_`, `$`, `-`, not starting with a digit) and block sequences,
  compact (`- key: value`) or not, a sequence at its key's indentation;
- single-line values: plain scalars (typed by yaml12's core schema), quoted scalars without escapes, and flow
  mappings or sequences of such scalars (`{role: user, content: Hi}`, `[a.md, "b c"]`), nested in one another
  (`{id: t1, arguments: {path: a.ts}}`);
- literal block scalars `|` and `|-` as mapping values.

Lines that are only a comment are read as empty lines (outside block scalars, whose text may start with `#`).
Anything else (other comments, tabs, CR, anchors, tags, escapes, folded or multi-line scalars, flows over lines,
duplicate keys, keys JavaScript orders first, a value it is not sure of...) makes `parse_block` return None, and the
caller reads the text with libyaml as before: this reader never refuses a text, and never reads one differently.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from itertools import compress
from typing import Any

from turnlens.formatting.evals.yaml_binding import ChildLines
from turnlens.formatting.patterns import LazyPattern

_KEY_CHARS = r"[A-Za-z_$][A-Za-z0-9_$-]{0,200}"
# A plain scalar on one line: not starting with an indicator, no ": " inside, not ending with ":" or a space.
_PLAIN = r"""[^\s\-?:,\[\]{}#&*!|>'"%@`][^:]*(?::(?! |$)[^:]*)*(?<![ :])"""
# A mapping entry: the key, then a plain value, another value, or nothing (the value is on the next lines).
_ENTRY = re.compile(rf"({_KEY_CHARS}):(?: +(?:({_PLAIN})|(.+))| *)$")
_PLAIN_VALUE = re.compile(_PLAIN)
# In a flow collection: a plain scalar without flow indicators or ":", or a quoted one without escapes or quotes.
# (The plain one is taken greedily, with the spaces before the next `,`, `}` or `]`: its reader strips them. Taken
# lazily, the engine tried the end of the pair after every character, twice as slow.)
_FLOW_SCALAR = r"""(?:"([^"\\]*)"|'([^']*)'|([^\s\-?:,\[\]{}#&*!|>'"%@`][^,\[\]{}:]*))"""
_FLOW_PAIR = rf" *({_KEY_CHARS}): +{_FLOW_SCALAR} *(?=[,}}])"
# A flow mapping is read a few pairs at a time, each match giving up to four pairs as groups (a repeated group keeps
# only its last match) and the `,` before more pairs or the closing `}`.
_FLOW_PAIRS = re.compile(rf"{_FLOW_PAIR}(?:,{_FLOW_PAIR}(?:,{_FLOW_PAIR}(?:,{_FLOW_PAIR})?)?)?([,}}])")
_FLOW_ITEM = rf" *{_FLOW_SCALAR} *(?=[,\]])"
_FLOW_SEQ = LazyPattern(rf"\[{_FLOW_ITEM}(?:,{_FLOW_ITEM})*\]")
_FLOW_ITEMS = LazyPattern(_FLOW_ITEM)
# A flow collection holding another (`{id: t1, arguments: {path: a.ts}}`) is read a part at a time: a key, and a
# scalar with the spaces after it (a collection is read where it opens).
_FLOW_KEY = LazyPattern(rf" *({_KEY_CHARS}): +")
_FLOW_VALUE = LazyPattern(rf" *{_FLOW_SCALAR} *")
MAX_DEPTH = 64
MAX_FLOW_DEPTH = 8  # flow collections in one another, on one line


def _without_comment_lines(text: str) -> str | None:
    """The text with each line that is only a comment (`#` first after spaces) emptied, every line kept (their numbers
    hold); None when a `#` stands anywhere else, or a comment could be read otherwise. A line indented deeper than
    one holding `|` or `>` (a block scalar's, or taken for one) is kept as it is: a block scalar's text may start
    with `#`; a comment that ends such a block scalar is emptied (an empty line there changes no `|` or `|-`
    scalar) only when no deeper line follows it. (Config and eval files are commented: read here, PyYAML need not
    be imported before the inspector's first frame.)"""
    lines = text.split("\n")
    scalar = -1  # after a line holding `|` or `>`: its indentation, which the lines of its block scalar exceed
    ended = False  # a comment line came at or above that indentation: a deeper line after it is left to libyaml
    for number, line in enumerate(lines):
        stripped = line.lstrip(" ")
        if not stripped:
            continue
        indent = len(line) - len(stripped)
        if scalar >= 0 and indent > scalar:
            if ended:
                return None
            continue  # the block scalar's text, `#` and all
        if stripped[0] == "#":
            ended = scalar >= 0
            lines[number] = ""
            continue
        if "#" in line:
            return None
        scalar, ended = (indent if "|" in line or ">" in line else -1), False
    return "\n".join(lines)


class _Unsure(Exception):
    """The text uses something this reader does not: libyaml reads it instead."""


def parse_block(
    text: str, typed: Callable[[str], Any], special: frozenset[str]
) -> tuple[Any, dict[int, int], dict[int, ChildLines]] | None:
    """(data, node lines, child lines) as yaml12's builder makes them, or None when the text is not plain block
    YAML as described above. `typed(value)` types a plain scalar starting with a character in `special` (the
    others are strings)."""
    if "#" in text:
        uncommented = _without_comment_lines(text)
        if uncommented is None:
            return None
        text = uncommented
    if "\t" in text or "\r" in text or "\\" in text or " \n" in text or text.endswith(" "):
        return None  # tabs, CR, escapes; trailing spaces (and lines of spaces only)
    if text.startswith(("---", "...")) or "\n---" in text or "\n..." in text:
        return None  # document markers
    # Only the lines with text are walked, each with its line number: the empty ones (up to half the lines of a
    # slice of a big file, see evals/slices.py) cost nothing but the split. (No line is only spaces: see above.)
    lines = text.split("\n")
    content = list(filter(None, lines))
    if not content:
        return None
    reader = _Reader(content, list(compress(range(1, len(lines) + 1), lines)), typed, special)
    try:
        data, pos = reader.node(0, -1, 0)
    except (_Unsure, RecursionError):
        return None
    if pos != len(content):
        return None
    return data, reader.node_lines, reader.child_lines


# How a value written on a line is read where it stands (see _Reader._value).
_SCALAR = 0  # the value itself
_FLOW = 1  # a flow collection: each place it stands in gets its own copy
_LITERAL = 2  # a literal block scalar, on the next lines
_BELOW = 3  # nothing on the line: the value is on the next lines
_NESTED = 4  # a flow collection holding another: each place it stands in gets its own copy of each (_placed)


class _Reader:
    """Reads `lines`, the lines with text (`numbers`: their 1-based line numbers); a position is an index in both."""

    def __init__(self, lines: list[str], numbers: list[int], typed: Callable[[str], Any], special: frozenset[str]):
        self.lines = lines
        self.numbers = numbers
        self.indents = [len(line) - len(line.lstrip(" ")) for line in lines]
        self.typed = typed
        self.special = special
        self.node_lines: dict[int, int] = {}
        self.child_lines: dict[int, ChildLines] = {}
        # Suites repeat most of their lines (`- role: user`, `input:`, `execution: {skip_defaults: true}`): what a
        # line holds is worked out once, by its text (its indentation included, so it is always read the same way).
        self.entries: dict[str, tuple[str, Any, int]] = {}  # a mapping entry's line -> (key, value, how), see _entry
        self.items: dict[str, tuple[int, Any, int]] = {}  # a sequence item's line -> (column, value, how), see _item
        self.flows: dict[str, tuple[Any, int]] = {}  # flow collection text -> (its value, _FLOW or _NESTED)
        self.string_keys: set[str] = set()  # keys seen to be plain strings (typed() says so once)

    def _entry(self, line: str, column: int) -> tuple[str, Any, int]:
        """The mapping entry on `line` (not a sequence item) whose key starts at `column`, its indentation."""
        entry = self.entries[line] = self._entry_of(_ENTRY.match(line, column))
        return entry

    def _entry_of(self, match: re.Match[str] | None) -> tuple[str, Any, int]:
        """The mapping entry `match` (of _ENTRY) found: (key, value, how), see _value."""
        if match is None:
            raise _Unsure
        key, plain, other = match.groups()
        if key not in self.string_keys and not self._string_key(key):
            raise _Unsure  # a key that is not a plain string
        if plain is not None:
            return (key, self.typed(plain) if plain[0] in self.special else plain, _SCALAR)
        if other is None:
            return (key, None, _BELOW)
        return (key, *self._value(other))

    def _item(self, line: str, indent: int) -> tuple[int, Any, int]:
        """The sequence item on `line`, its dash at column `indent` and a space or nothing after it: (column,
        entry, 0) for a compact mapping (`- key: value`, its key at `column`, see _entry_of), else (0, value, how)
        (see _value; _BELOW for `-` alone)."""
        body = line[indent + 2 :].lstrip(" ")
        if not body:
            if len(line) != indent + 1:
                raise _Unsure  # trailing spaces
            item: tuple[int, Any, int] = (0, None, _BELOW)
        elif body[0] in "-?|>":
            raise _Unsure  # a nested compact sequence, a complex key, a block scalar
        else:
            column = len(line) - len(body)
            match = _ENTRY.match(line, column) if body[0] not in "{[\"'" else None
            item = (column, self._entry_of(match), 0) if match is not None else (0, *self._value(body))
        self.items[line] = item
        return item

    def _value(self, text: str) -> tuple[Any, int]:
        """A value written on a line after its key or dash: (value, how) (the literal header for _LITERAL)."""
        first = text[0]
        if first == "{" or first == "[":  # a flow collection, all on this line
            flow = self.flows.get(text)
            if flow is None:
                flow = self.flows[text] = self._flow(text)
            return flow
        if first == '"' or first == "'":
            if len(text) < 2 or text[-1] != first or first in text[1:-1]:
                raise _Unsure
            return text[1:-1], _SCALAR
        if first == "|":
            if text not in ("|", "|-"):
                raise _Unsure
            return text, _LITERAL
        if _PLAIN_VALUE.fullmatch(text) is None:
            raise _Unsure
        return (self.typed(text) if first in self.special else text), _SCALAR

    def _string_key(self, key: str) -> bool:
        if key[0] in self.special and self.typed(key).__class__ is not str:
            return False
        self.string_keys.add(key)
        return True

    # The loops below run once per line of a big suite: names are bound locally.

    def node(self, pos: int, parent_indent: int, depth: int) -> tuple[Any, int]:
        """The block collection starting at line `pos`, indented past `parent_indent`."""
        indent = self.indents[pos]
        if indent <= parent_indent:
            raise _Unsure
        line = self.lines[pos]
        if line[indent] == "-" and (len(line) == indent + 1 or line[indent + 1] == " "):
            return self.sequence(pos, indent, depth)
        return self.mapping(pos, indent, self.entries.get(line) or self._entry(line, indent), depth)

    def mapping(self, pos: int, indent: int, entry: tuple[str, Any, int], depth: int) -> tuple[dict[str, Any], int]:
        """A block mapping whose first entry (see _entry) is on line `pos`, its keys at column `indent`."""
        if depth > MAX_DEPTH:
            raise _Unsure  # (yaml12 refuses what is nested too deeply: libyaml tells where)
        result: dict[str, Any] = {}
        key_lines: dict[str, int] = {}
        lines, indents, numbers, entries = self.lines, self.indents, self.numbers, self.entries
        child_lines = self.child_lines
        n = len(lines)
        while True:
            key, value, how = entry
            if key in key_lines:
                raise _Unsure  # a duplicate: the reference words the error
            key_lines[key] = numbers[pos]
            if how == _SCALAR:
                result[key] = value
                pos += 1
            elif how == _FLOW:
                result[key] = value = value.copy()
                child_lines[id(value)] = numbers[pos]
                pos += 1
            elif how == _LITERAL:
                result[key], pos = self.literal(value, pos, indent)
            elif how == _NESTED:
                result[key] = self._placed(value, numbers[pos])
                pos += 1
            else:  # on the next lines: a collection indented past the key, or a sequence at its column, or null
                pos += 1
                at = indents[pos] if pos < n else -1
                if at < indent:
                    result[key] = None
                else:
                    line = lines[pos]
                    if line[at] == "-" and (len(line) == at + 1 or line[at + 1] == " "):
                        result[key], pos = self.sequence(pos, at, depth + 1)
                    elif at > indent:
                        result[key], pos = self.mapping(pos, at, entries.get(line) or self._entry(line, at), depth + 1)
                    else:
                        result[key] = None
            if pos == n:
                break
            at = indents[pos]
            if at != indent:
                if at < indent:
                    break
                raise _Unsure  # a continuation line, or a value the reference refuses
            line = lines[pos]
            entry = entries.get(line) or self._entry(line, indent)
        child_lines[id(result)] = key_lines
        return result, pos

    def sequence(self, pos: int, indent: int, depth: int) -> tuple[list[Any], int]:
        if depth > MAX_DEPTH:
            raise _Unsure
        result: list[Any] = []
        item_lines: list[int] = []
        lines, indents, numbers, items = self.lines, self.indents, self.numbers, self.items
        child_lines = self.child_lines
        first_line = numbers[pos]
        n = len(lines)
        after = indent + 1
        while True:
            line = lines[pos]
            item = items.get(line)
            if item is None:
                if line[indent] != "-" or (len(line) > after and line[after] != " "):
                    break  # a key of the mapping this sequence is the value of (`-x` is a key, not an item)
                item = self._item(line, indent)
            column, value, how = item
            if column:  # a compact mapping
                item_lines.append(numbers[pos])
                value, pos = self.mapping(pos, column, value, depth + 1)
            elif how == _SCALAR:
                item_lines.append(numbers[pos])
                pos += 1
            elif how == _FLOW:
                item_lines.append(numbers[pos])
                value = value.copy()
                child_lines[id(value)] = numbers[pos]
                pos += 1
            elif how == _NESTED:
                item_lines.append(numbers[pos])
                value = self._placed(value, numbers[pos])
                pos += 1
            else:  # `-` alone
                pos += 1
                if pos == n or indents[pos] <= indent:
                    raise _Unsure  # an empty item
                item_lines.append(numbers[pos])
                value, pos = self.node(pos, indent, depth + 1)
            result.append(value)
            if pos == n:
                break
            at = indents[pos]
            if at != indent:
                if at < indent:
                    break
                raise _Unsure
        child_lines[id(result)] = item_lines
        if item_lines[0] != first_line:
            self.node_lines[id(result)] = first_line  # `-` alone, its item on the next lines
        return result, pos

    def _flow(self, text: str) -> tuple[Any, int]:
        """The flow collection `text` (a whole value, from its `{` or `[`): (value, _FLOW), or (value, _NESTED) when it
        holds another."""
        first = text[0]
        if text.find("{", 1) < 0 and text.find("[", 1) < 0:
            return (self._flow_pairs(text) if first == "{" else self._flow_items(text)), _FLOW
        value, end = self._nested_flow(text, 0, 1)
        if end != len(text):
            raise _Unsure
        values = value.values() if first == "{" else value
        return value, (_NESTED if any(isinstance(v, (dict, list)) for v in values) else _FLOW)

    def _nested_flow(self, text: str, pos: int, depth: int) -> tuple[Any, int]:
        """The flow collection opening at `pos` (its items plain or simply quoted scalars, or flow collections, as in
        _flow_pairs and _flow_items): (value, where the spaces after its closer end)."""
        if depth > MAX_FLOW_DEPTH:
            raise _Unsure
        is_mapping = text[pos] == "{"
        closer = "}" if is_mapping else "]"
        pairs: dict[str, Any] = {}
        items: list[Any] = []
        special, typed, string_keys = self.special, self.typed, self.string_keys
        key = ""
        if text.startswith(closer, pos + 1):
            pos += 2  # `{}` or `[]` (with a space inside, they are left to libyaml)
        else:
            pos += 1
            while True:
                if is_mapping:
                    match = _FLOW_KEY.match(text, pos)
                    if match is None:
                        raise _Unsure
                    key = match.group(1)
                    if key in pairs:
                        raise _Unsure  # a duplicate key: the reference words the error
                    if key not in string_keys and not self._string_key(key):
                        raise _Unsure
                    pos = match.end()
                else:
                    while text.startswith(" ", pos):
                        pos += 1
                value: Any
                if text.startswith(("{", "["), pos):
                    value, pos = self._nested_flow(text, pos, depth + 1)
                else:
                    match = _FLOW_VALUE.match(text, pos)
                    if match is None:
                        raise _Unsure
                    double, single, plain = match.groups()
                    if plain:
                        plain = plain.rstrip(" ")
                        value = typed(plain) if plain[0] in special else plain
                    else:
                        value = double or single or ""  # (an empty quoted scalar)
                    pos = match.end()
                if is_mapping:
                    pairs[key] = value
                else:
                    items.append(value)
                if text.startswith(",", pos):
                    pos += 1
                elif text.startswith(closer, pos):
                    pos += 1
                    break
                else:
                    raise _Unsure  # a trailing comma, a key without a value, a pair in a sequence...
        while text.startswith(" ", pos):
            pos += 1
        return (pairs if is_mapping else items), pos

    def _placed(self, value: Any, line: int) -> Any:
        """A copy of the flow collection `value` for one place, on `line`: each collection in it copied too."""
        if isinstance(value, dict):
            copy: Any = {k: self._placed(v, line) if isinstance(v, (dict, list)) else v for k, v in value.items()}
        else:
            copy = [self._placed(v, line) if isinstance(v, (dict, list)) else v for v in value]
        self.child_lines[id(copy)] = line
        return copy

    def _flow_pairs(self, text: str) -> dict[str, Any]:
        if text == "{}":
            return {}
        special, typed, string_keys = self.special, self.typed, self.string_keys
        pairs: dict[str, Any] = {}
        pos = 1
        while True:
            match = _FLOW_PAIRS.match(text, pos)
            if match is None:
                raise _Unsure
            found = match.groups()
            parts = iter(found)  # (key, double, single, plain) four times, then the `,` or `}` zip leaves out
            for key, double, single, plain in zip(parts, parts, parts, parts):
                if key is None:
                    break  # fewer than four pairs
                if key in pairs:
                    raise _Unsure  # a duplicate key: the reference words the error
                if key not in string_keys and not self._string_key(key):
                    raise _Unsure
                if plain:
                    plain = plain.rstrip(" ")
                    pairs[key] = typed(plain) if plain[0] in special else plain
                else:
                    pairs[key] = double or single or ""  # (an empty quoted scalar)
            pos = match.end()
            if found[-1] == "}":
                if pos != len(text):
                    raise _Unsure
                return pairs

    def _flow_items(self, text: str) -> list[Any]:
        if text == "[]":
            return []
        if not _FLOW_SEQ.fullmatch(text):
            raise _Unsure
        special, typed = self.special, self.typed
        items = []
        for double, single, plain in _FLOW_ITEMS.findall(text, 1):
            plain = plain.rstrip(" ")
            items.append((typed(plain) if plain[0] in special else plain) if plain else (double or single))
        return items

    def literal(self, header: str, pos: int, indent: int) -> tuple[str, int]:
        """A literal block scalar (`|` keeps one final line break, `|-` none) under a mapping key; the next line."""
        lines, indents, numbers = self.lines, self.indents, self.numbers
        n = len(lines)
        nxt = pos + 1
        if nxt == n or numbers[nxt] != numbers[pos] + 1 or indents[nxt] <= indent:
            raise _Unsure  # leading blank lines, or an empty block scalar
        block = indents[nxt]
        body: list[str] = []
        last = numbers[pos]
        while nxt < n:
            at = indents[nxt]
            if at >= block:
                number = numbers[nxt]
                body.append("\n" * (number - last - 1) + lines[nxt][block:])  # (and the empty lines before it)
                last = number
            elif at > indent:
                raise _Unsure  # under-indented content
            else:
                break
            nxt += 1
        if nxt == n and header == "|":
            raise _Unsure  # at the end of the text the final line break depends on how the text ends
        text = "\n".join(body)
        return (text + "\n" if header == "|" else text), nxt
