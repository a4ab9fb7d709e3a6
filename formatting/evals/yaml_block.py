"""A fast reader for the plain block YAML most eval files are written in, used by yaml12 before libyaml.

PyYAML hands every node to Python as objects (a node, two marks, a resolver call) that yaml12's builder then walks;
most eval files use a small part of YAML, which is read here line by line 40% faster (a third of `turnlens
export`'s time on a 5,000-test suite went to reading YAML), giving the same data and line numbers as libyaml and
yaml12's builder:

- block mappings with plain keys (letters, digits, `_`, `$`, `-`, not starting with a digit) and block sequences,
  compact (`- key: value`) or not, a sequence at its key's indentation;
- single-line values: plain scalars (typed by yaml12's core schema), quoted scalars without escapes, and flow
  mappings or sequences of such scalars (`{role: user, content: Hi}`, `[a.md, "b c"]`);
- literal block scalars `|` and `|-` as mapping values.

Anything else (comments, tabs, CR, anchors, tags, escapes, folded or multi-line scalars, nested flows, duplicate
keys, keys JavaScript orders first, a value it is not sure of...) makes `parse_block` return None, and the caller
reads the text with libyaml as before: this reader never refuses a text, and never reads one differently.
"""

from __future__ import annotations

import re
from typing import Any

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
_FLOW_MAP = re.compile(rf"\{{{_FLOW_PAIR}(?:,{_FLOW_PAIR})*\}}")
_FLOW_PAIRS = re.compile(_FLOW_PAIR)
_FLOW_ITEM = rf" *{_FLOW_SCALAR} *(?=[,\]])"
_FLOW_SEQ = re.compile(rf"\[{_FLOW_ITEM}(?:,{_FLOW_ITEM})*\]")
_FLOW_ITEMS = re.compile(_FLOW_ITEM)
MAX_DEPTH = 64


class _Unsure(Exception):
    """The text uses something this reader does not: libyaml reads it instead."""


def parse_block(text: str, typed, special: frozenset) -> tuple[Any, dict, dict] | None:
    """(data, node lines, child lines) as yaml12's builder makes them, or None when the text is not plain block
    YAML as described above. `typed(value)` types a plain scalar starting with a character in `special` (the
    others are strings)."""
    if "#" in text or "\t" in text or "\r" in text or "\\" in text or " \n" in text or text.endswith(" "):
        return None  # comments, tabs, CR, escapes; trailing spaces (and lines of spaces only)
    if text.startswith(("---", "...")) or "\n---" in text or "\n..." in text:
        return None  # document markers
    reader = _Reader(text.split("\n"), typed, special)
    lines = reader.lines
    pos, n = 0, len(lines)
    while pos < n and not lines[pos]:
        pos += 1
    if pos == n:
        return None
    try:
        data, pos = reader.node(pos, -1, 0)
    except (_Unsure, RecursionError):
        return None
    while pos < n and not lines[pos]:
        pos += 1
    if pos != n:
        return None
    return data, reader.node_lines, reader.child_lines


class _Reader:
    def __init__(self, lines: list[str], typed, special: frozenset):
        self.lines = lines
        self.indents = [len(line) - len(line.lstrip(" ")) for line in lines]
        self.typed = typed
        self.special = special
        self.node_lines: dict = {}
        self.child_lines: dict = {}
        self.flows: dict = {}  # flow collection text -> its items: suites repeat the same few on many lines

    # The loops below run once per line of a big suite: names are bound locally, and a mapping entry's match is
    # handed on rather than made again.

    def node(self, pos: int, parent_indent: int, depth: int) -> tuple[Any, int]:
        """The block collection starting at line `pos` (its first content line), indented past `parent_indent`."""
        indent = self.indents[pos]
        if indent <= parent_indent or depth > MAX_DEPTH:
            raise _Unsure
        line = self.lines[pos]
        if line[indent] == "-" and (len(line) == indent + 1 or line[indent + 1] == " "):
            return self.sequence(pos, indent, depth)
        return self.mapping(pos, indent, _ENTRY.match(line, indent), depth)

    def mapping(self, pos: int, indent: int, match: re.Match | None, depth: int) -> tuple[dict, int]:
        """A block mapping whose first entry is `match` (of _ENTRY on line `pos`), its keys at column `indent`."""
        result: dict = {}
        key_lines: dict = {}
        self.node_lines[id(result)] = pos + 1
        lines, indents, special, typed = self.lines, self.indents, self.special, self.typed
        entry = _ENTRY.match
        n = len(lines)
        while True:
            if match is None:
                raise _Unsure
            key, plain, other = match.groups()
            if key in key_lines or (key[0] in special and typed(key).__class__ is not str):
                raise _Unsure  # a duplicate (the reference words the error), or a key that is not a plain string
            key_lines[key] = pos + 1
            if plain is not None:
                result[key] = typed(plain) if plain[0] in special else plain
                pos += 1
            elif other is not None:
                result[key], pos = self.inline(other, pos, indent)
            else:
                pos += 1
                while pos < n and not lines[pos]:
                    pos += 1
                if pos == n:
                    result[key] = None
                else:
                    at = indents[pos]
                    if at > indent:
                        result[key], pos = self.node(pos, indent, depth + 1)
                    elif at == indent and lines[pos][at] == "-" and lines[pos][at : at + 2] in ("-", "- "):
                        result[key], pos = self.sequence(pos, indent, depth + 1)
                    else:
                        result[key] = None
            while pos < n and not lines[pos]:
                pos += 1
            if pos == n:
                break
            at = indents[pos]
            if at != indent:
                if at < indent:
                    break
                raise _Unsure  # a continuation line, or a value the reference refuses
            match = entry(lines[pos], indent)
        self.child_lines[id(result)] = key_lines
        return result, pos

    def sequence(self, pos: int, indent: int, depth: int) -> tuple[list, int]:
        result: list = []
        item_lines: list[int] = []
        self.node_lines[id(result)] = pos + 1
        lines, indents = self.lines, self.indents
        entry = _ENTRY.match
        n = len(lines)
        after = indent + 1
        while True:
            line = lines[pos]
            if line[indent] != "-" or (len(line) > after and line[after] != " "):
                break  # a key of the mapping this sequence is the value of (`-x` is a key, not an item)
            body = line[after:].lstrip(" ")
            if not body:
                if len(line) != after:
                    raise _Unsure  # trailing spaces
                pos += 1
                while pos < n and not lines[pos]:
                    pos += 1
                if pos == n or indents[pos] <= indent:
                    raise _Unsure  # an empty item
                item_lines.append(pos + 1)
                item, pos = self.node(pos, indent, depth + 1)
            else:
                item_lines.append(pos + 1)
                first = body[0]
                if first == "{" or first == "[" or first == '"' or first == "'":
                    item, pos = self.inline(body, pos, indent)
                elif first in "-?|>":
                    raise _Unsure  # a nested compact sequence, a complex key, a block scalar
                else:
                    column = len(line) - len(body)
                    match = entry(line, column)
                    if match is not None:
                        item, pos = self.mapping(pos, column, match, depth + 1)
                    else:
                        item, pos = self.inline(body, pos, indent)
            result.append(item)
            while pos < n and not lines[pos]:
                pos += 1
            if pos == n:
                break
            at = indents[pos]
            if at != indent:
                if at < indent:
                    break
                raise _Unsure
        self.child_lines[id(result)] = item_lines
        return result, pos

    def inline(self, text: str, pos: int, indent: int) -> tuple[Any, int]:
        """A value written on line `pos` after its key or dash (`indent`: the column of its mapping or sequence);
        the next line to read."""
        first = text[0]
        if first == "{":  # a flow mapping of plain or simply quoted scalars, all on this line
            pairs = self.flows.get(text)
            if pairs is None:
                pairs = self.flows[text] = self._flow_pairs(text)
            result = dict(pairs)
            pos += 1
            self.node_lines[id(result)] = pos
            self.child_lines[id(result)] = dict.fromkeys(result, pos)
            return result, pos
        if first == "[":
            return self.flow_sequence(text, pos), pos + 1
        if first == '"' or first == "'":
            if len(text) < 2 or text[-1] != first or first in text[1:-1]:
                raise _Unsure
            return text[1:-1], pos + 1
        if first == "|":
            return self.literal(text, pos, indent)
        if _PLAIN_VALUE.fullmatch(text) is None:
            raise _Unsure
        return (self.typed(text) if first in self.special else text), pos + 1

    def _scalar(self, double, single, plain):
        if plain is not None:
            return self.typed(plain) if plain[0] in self.special else plain
        return double if double is not None else single

    def _flow_pairs(self, text: str) -> list:
        if text == "{}":
            return []
        if not _FLOW_MAP.fullmatch(text):
            raise _Unsure
        special, typed = self.special, self.typed
        pairs = []
        for key, double, single, plain in _FLOW_PAIRS.findall(text, 1):
            plain = plain.rstrip(" ")
            if key[0] in special and typed(key).__class__ is not str:
                raise _Unsure
            # (findall gives "" for a group that did not take part: an empty quoted scalar is "" either way)
            pairs.append((key, (typed(plain) if plain[0] in special else plain) if plain else (double or single)))
        if len({key for key, _value in pairs}) != len(pairs):
            raise _Unsure  # a duplicate key: the reference words the error
        return pairs

    def flow_sequence(self, text: str, pos: int) -> list:
        """A flow sequence of plain or simply quoted scalars, all on this line."""
        line = pos + 1
        items: list = []
        if text == "[]":
            pass
        elif _FLOW_SEQ.fullmatch(text):
            special, typed = self.special, self.typed
            for double, single, plain in _FLOW_ITEMS.findall(text, 1):
                plain = plain.rstrip(" ")
                items.append((typed(plain) if plain[0] in special else plain) if plain else (double or single))
        else:
            raise _Unsure
        self.node_lines[id(items)] = line
        self.child_lines[id(items)] = [line] * len(items)
        return items

    def literal(self, header: str, pos: int, indent: int) -> tuple[str, int]:
        """A literal block scalar (`|` keeps one final line break, `|-` none) under a mapping key."""
        if header not in ("|", "|-"):
            raise _Unsure
        lines, indents = self.lines, self.indents
        nxt = pos + 1
        if nxt == len(lines) or not lines[nxt] or indents[nxt] <= indent:
            raise _Unsure  # leading blank lines, or an empty block scalar
        block = indents[nxt]
        body: list[str] = []
        while nxt < len(lines):
            line = lines[nxt]
            if not line:
                body.append("")
            elif indents[nxt] >= block:
                body.append(line[block:])
            elif indents[nxt] > indent:
                raise _Unsure  # under-indented content
            else:
                break
            nxt += 1
        while body and not body[-1]:
            body.pop()
        if nxt == len(lines) and header == "|":
            raise _Unsure  # at the end of the text the final line break depends on how the text ends
        text = "\n".join(body)
        return (text + "\n" if header == "|" else text), nxt
