"""Cutting a big eval file at case boundaries, for the exporter's workers (export/parallel.py) and the
inspector's first screen (tui/loading.py) alike.

A slice is the original text with the lines of other slices blanked out, so every line keeps its number and every
case its index; the header (everything before `evalcases:`) is kept in every slice, so it is checked as before.
Cutting is only done when it is plainly safe: one `evalcases:` block at the end of the file, a block sequence whose
items start at one indentation, and no tags, directives or document markers anywhere. Otherwise the caller loads
the file whole, exactly as before.

Anchors and aliases: an alias takes the latest anchor of its name before it. When that anchor is in the header or in
the alias's own slice, the slice reads it as the whole file does; when it is in an item of an earlier slice, that
item's lines are kept in the slice too (`Slice.borrowed`: read before the slice's own items, at their own line
numbers) and the cases they make are dropped after loading (`drop_borrowed`). The whole file's alias limits (100
expansions of an anchor, the expanded size: yaml_tree.py) cannot be seen by one slice: a file is only cut when they
plainly cannot be reached (each anchor name aliased at most 99 times, no alias in an item or header that defines an
anchor, the borrowed text times its aliases within the size limit). A refused slice of such a file has the whole
file loaded for the refusal (an undefined alias is reported after any syntax error further on).
"""

from __future__ import annotations

import itertools
import os
import re
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, NamedTuple

from turnlens.formatting.cancel import check, never
from turnlens.formatting.evals.files import max_file_size
from turnlens.formatting.jsstr import JS_WHITESPACE

if TYPE_CHECKING:
    from turnlens.formatting.model import Diagnostic, EvalCase


class Borrowed(NamedTuple):
    """An item of an earlier slice that defines an anchor a slice's alias takes: its first line and offsets."""

    line: int
    start_offset: int
    end_offset: int


class Slice(NamedTuple):
    """One slice of a file cut at case boundaries: its `evalcases` items' lines [start_line, end_line) (0-based),
    the index of its first case, its text's offsets [start_offset, end_offset), and the items of earlier slices
    read with it for the anchors its aliases take (each makes a case, dropped after loading: drop_borrowed)."""

    start_line: int
    end_line: int
    first_case: int
    start_offset: int
    end_offset: int
    borrowed: tuple[Borrowed, ...] = ()

    @property
    def load_first_case(self) -> int:
        """The case index to load the slice's text with: its borrowed items come first."""
        return self.first_case - len(self.borrowed)


MIN_PARALLEL_BYTES = 256 * 1024

_EVALCASES_LINE = re.compile(r"evalcases:[ \t]*(?:#[^\n]*)?\r?(?:\n|\Z)")
_FIRST_ITEM = re.compile(r"\n( *)-(?=[ \t]|\r?\n|\Z)")
_DOCUMENT_MARKER = re.compile(r"\n(?:---|\.\.\.|%)")  # one pass: 4x faster than three `in` tests here
_TOKEN_CONTEXT = frozenset(" \t\r\n[{,")
_NOT_AFTER_TOKEN = frozenset(" \t\r\n[]{},")


def _has_yaml_token(text: str, chars: str = "&*!") -> bool:
    """An anchor (&), alias (*) or tag (!) where YAML would read one; `**bold**` in text counts too (harmless:
    the file is then exported in one process)."""
    for ch in chars:
        pos = text.find(ch)
        while pos != -1:
            before = text[pos - 1] if pos else "\n"
            after = text[pos + 1 : pos + 2]
            if before in _TOKEN_CONTEXT and after and after not in _NOT_AFTER_TOKEN:
                return True
            pos = text.find(ch, pos + 1)
    return False


def may_alias(text: str) -> bool:
    """Whether the text may hold an alias (or an anchor): then a slice's refusal is not always the whole file's (an
    undefined alias is reported after a syntax error further on), and the whole file is loaded for it."""
    return _has_yaml_token(text, "&*")


def split_points(text: str, parts: int) -> list[tuple[int, int, int]] | None:
    """Per slice: the line range [start, end) of its `evalcases` items and the index of its first case; None when
    cutting is not safe. Every scan here is a C-level search: this runs before any parallel work starts."""
    slices = split_slices(text, parts)
    return None if slices is None else [s[:3] for s in slices]


def split_slices(
    text: str, parts: int, key: str = "evalcases", *, min_bytes: int = MIN_PARALLEL_BYTES, last_share: float = 1.0
) -> list[Slice] | None:
    """split_points() with each slice's text offsets added: (start line, end line, first case, start offset, end
    offset); the end offset of the last slice is len(text) + 1, as if the text ended with a line break.
    `key`: the top-level list that is cut (`evalcases`, or `tests` for an AgentV 4 suite); `min_bytes`: a shorter
    text is not cut (the inspector cuts smaller files than the exporter: tui/loading.py); `last_share`: the last
    slice's number of cases, as a multiple of the others'."""
    if parts < 2:
        return None
    items = _items(text, key, min_bytes)
    if items is None:
        return None
    head_end, first_start, item, _indent = items
    start_offsets = [m.start() + 1 for m in item.finditer(text, first_start)]
    if len(start_offsets) < parts * 8:
        return None
    step = len(start_offsets) / (parts - 1 + last_share)
    firsts = [int(k * step) for k in range(parts)]
    total_lines = text.count("\n") + 1
    bounds = _line_numbers(text, [start_offsets[f] for f in firsts]) + [total_lines]
    bounds[0] = text.count("\n", 0, head_end)
    offsets = [start_offsets[f] for f in firsts] + [len(text) + 1]
    offsets[0] = head_end
    borrowed: list[tuple[Borrowed, ...]] = [()] * parts
    if _has_yaml_token(text, "&*"):
        found = _borrowed_items(text, head_end, start_offsets, firsts)
        if found is None:
            return None
        borrowed = found
    return [Slice(bounds[k], bounds[k + 1], firsts[k], offsets[k], offsets[k + 1], borrowed[k]) for k in range(parts)]


def sized_slices(
    text: str,
    key: str,
    first_size: int,
    size: int,
    *,
    min_bytes: int = MIN_PARALLEL_BYTES,
    cancelled: Callable[[], bool] = never,
    first_items: int | None = None,
) -> Iterator[Slice] | None:
    """The text cut as split_slices cuts it, but into slices of about `size` characters (the first one `first_size`,
    and at most `first_items` items when given: what the inspector's first frame lists of a suite of short tests),
    each ended by the first item that starts that far on, made one at a time as they are taken: the inspector's first
    case need not wait for the end of a 50 MB file to be found, and no step holds the GIL long (finding a million
    items at once was one loop of a second, or several on a busy machine). A slice whose aliases take anchors of
    earlier items borrows them as split_slices' do (`borrowing`). None when the text cannot be cut (as
    split_slices); the check that every line of the items is nested in the list (two counts through the whole text,
    ~40 M instructions for 4 MB) is made for the first slice's lines as it is made, and for all the others' as the
    second is, and so is the check of the alias limits: then CutRefused is raised when they are not met (the first
    slice may have been loaded already: the caller loads the file whole instead). The checks raise Cancelled once
    `cancelled()` says so. A slice then takes a search through its own text: the caller looks between them."""
    items = _items(text, key, min_bytes, cancelled, whole=False)
    if items is None:
        return None
    head_end, first_start, item, indent = items
    # The first slice borrows nothing (no item is before it): the anchors and aliases are looked for, through the
    # whole text, as the second is made; past the alias limits, CutRefused then.
    lend: Callable[[int, int], tuple[Borrowed, ...]] | None = None

    def lent(start: int, end: int) -> tuple[Borrowed, ...]:
        nonlocal lend
        if start == head_end:
            return ()
        if lend is None:
            lend = borrowing(text, head_end, first_start) if _has_yaml_token(text, "&*") else lambda start, end: ()
            if lend is None:
                raise CutRefused
        return lend(start, end)

    def slices() -> Iterator[Slice]:
        start, line, case, length = head_end, text.count("\n", 0, head_end), 0, first_size
        found: re.Match[str] | None = None
        if first_items is not None:  # the first slice ends at its (first_items + 1)th item if that comes sooner
            starts = item.finditer(text, first_start, start + length)
            found = next(itertools.islice(starts, first_items, None), None)
        checked = first_start  # the items' lines are known to be nested up to here
        while start <= len(text):
            # The next slice's first item: `length` on and after this slice's first (its match starts with the line
            # break before it, so it is searched from one character earlier).
            if found is None:
                found = item.search(text, max(start + length, first_start + 2) - 1)
            end = len(text) + 1 if found is None else found.start() + 1
            if checked < len(text):  # the first slice's lines, then all the others'
                upto = found.start() if found is not None and checked == first_start else len(text)
                if not _nested(text, checked, upto, indent, cancelled):
                    raise CutRefused
                checked = upto
            cases = len(item.findall(text, max(start - 1, first_start), end - 1))
            lines = text.count("\n", start, end - 1 if found is None else end) + (found is None)
            yield Slice(line, line + lines, case, start, end, lent(start, end))
            start, line, case, length, found = end, line + lines, case + cases, size, None

    return slices()


def _items(
    text: str, key: str, min_bytes: int, cancelled: Callable[[], bool] = never, *, whole: bool = True
) -> tuple[int, int, re.Pattern[str], int] | None:
    """Where the header ends, where the items begin (the line break before the first), the pattern of an item's
    start and the items' indentation, when the text can be cut at its `key` list's items (see the module's
    docstring); else None. `whole=False`: the lines from the first item on are not checked (`_nested`: the caller
    checks them a part at a time)."""
    if len(text) < min_bytes:
        return None
    if text.startswith(("---", "...", "%")) or _has_yaml_token(text, "!"):
        return None  # a directive or document marker; a tag
    head_line = _EVALCASES_LINE if key == "evalcases" else re.compile(rf"{key}:[ \t]*(?:#[^\n]*)?\r?(?:\n|\Z)")
    head = head_line.match(text, 0) if text.startswith(f"{key}:") else None
    pos = -1
    while head is None:  # the first line that is the key and nothing else
        pos = text.find(f"\n{key}:", pos + 1)
        if pos == -1:
            return None
        head = head_line.match(text, pos + 1)
    head_end = head.end()
    first = _FIRST_ITEM.search(text, head_end - 1)
    if first is None or _blank_or_comment_lines(text, head_end - 1, first.start()) < 0:
        return None
    indent = len(first.group(1))
    # Before the first item, one search for a document marker or directive; after it, see _nested.
    if _search_by_lines(_DOCUMENT_MARKER, text, 0, first.start(), cancelled):
        return None
    if whole and not _nested(text, first.start(), len(text), indent, cancelled):
        return None
    return head_end, first.start(), re.compile(rf"\n {{{indent}}}-(?=[ \t]|\r?\n|\Z)"), indent


def _nested(text: str, start: int, end: int, indent: int, cancelled: Callable[[], bool] = never) -> bool:
    """Whether every content line of text[start:end] (`start`: a line break) is an item start at `indent`, or
    indented deeper than it: so the key is not written again, and (items indented) no document marker or directive
    is there; with items at column 0 (a marker `---` could pass for one), whether no marker is there either."""
    if indent == 0 and _search_by_lines(_DOCUMENT_MARKER, text, start, end, cancelled):
        return False
    shallower = re.compile(rf"\n {{0,{indent - 1}}}[^ \t\r\n#]") if indent else re.compile(r"\n[^ \t\r\n#-]")
    deep = "\n" + " " * indent if indent else None
    return _search_by_lines(shallower, text, start, end, cancelled, unless_every=deep) is None


class CutRefused(Exception):
    """sized_slices: the text past the slices made so far cannot be cut (see _nested); the caller loads it whole."""


# An anchor (&name) or alias (*name) where YAML could read one: after a space, a line break or a flow indicator (a
# `:` too, for `{"a":*b}`); the name runs to a space or flow indicator. Text that only looks like one (`**bold**`,
# `R &D`) is found too: an "alias" whose name no anchor has is left to the parser (a slice refusing it has the
# whole file loaded); an "anchor" only makes the cut more careful.
_TOKEN_NAME = re.compile(r"[^ \t\r\n\[\]{},]+")
_BEFORE_ANCHOR_OR_ALIAS = frozenset(" \t\r\n[{,:")


def _anchors_and_aliases(text: str) -> list[tuple[int, str, str]]:
    """(offset, "&" or "*", name) of each, in order. (str.find per character: a regex over the whole text is
    several times slower.)"""
    found = []
    for ch in "&*":
        pos = text.find(ch)
        while pos != -1:
            if pos == 0 or text[pos - 1] in _BEFORE_ANCHOR_OR_ALIAS:
                name = _TOKEN_NAME.match(text, pos + 1)
                if name is not None:
                    found.append((pos, ch, name.group()))
            pos = text.find(ch, pos + 1)
    found.sort()
    return found


MAX_ALIASES_PER_ANCHOR = 99  # yaml_tree.MAX_ALIAS_COUNT (100) counts the anchor itself


def _alias_takes(
    tokens: list[tuple[int, str, str]], anchored: set[str], unit: Callable[[int], int], unit_size: Callable[[int], int]
) -> list[tuple[int, int]] | None:
    """(the unit of an alias, the unit of the anchor it takes) for each alias taking an anchor of another item, in
    the tokens' order; None when the whole file's alias limits could be reached (see the module's docstring).
    `unit(offset)`: the item holding it (-1 for the header), as the caller numbers items; `unit_size(unit)`: its
    length."""
    defining: set[int] = set()
    aliasing: set[int] = set()
    latest: dict[str, int] = {}  # name -> the unit of its latest anchor so far
    counts: dict[str, int] = {}
    expanded = 0
    takes: list[tuple[int, int]] = []
    for pos, kind, name in tokens:
        if name not in anchored:
            continue
        here = unit(pos)
        if kind == "&":
            latest[name] = here
            defining.add(here)
            continue
        aliasing.add(here)
        counts[name] = counts.get(name, 0) + 1
        if counts[name] > MAX_ALIASES_PER_ANCHOR:
            return None
        source = latest.get(name)
        if source is None:
            continue  # refused by the parser, slice or whole
        expanded += unit_size(source)  # (what the anchored node expands to is within the text of its unit)
        if here >= 0 and source >= 0 and source != here:
            takes.append((here, source))
    # An anchored node holding an alias weighs more than one expansion per alias: not counted here.
    if defining & aliasing or expanded > max_file_size():
        return None
    return takes


def _borrowed_items(
    text: str, head_end: int, start_offsets: list[int], firsts: list[int]
) -> list[tuple[Borrowed, ...]] | None:
    """Per slice, the earlier items whose anchors its aliases take; None when the whole file's alias limits could
    be reached (see the module's docstring), so it must be loaded whole."""
    from bisect import bisect_right

    tokens = _anchors_and_aliases(text)
    anchored = {name for _pos, kind, name in tokens if kind == "&"}
    if not anchored:
        return [()] * len(firsts)  # every "alias" is text, or refused by the parser alike

    def unit(pos: int) -> int:  # the item holding `pos`, -1 for the header
        return -1 if pos < head_end else bisect_right(start_offsets, pos) - 1

    def unit_size(u: int) -> int:
        if u < 0:
            return head_end
        return (start_offsets[u + 1] if u + 1 < len(start_offsets) else len(text)) - start_offsets[u]

    takes = _alias_takes(tokens, anchored, unit, unit_size)
    if takes is None:
        return None
    borrowed: list[set[int]] = [set() for _ in firsts]
    for here, source in takes:
        k = bisect_right(firsts, here) - 1
        if source < firsts[k]:
            borrowed[k].add(source)
    every = sorted(set().union(*borrowed))
    line_of = dict(zip(every, _line_numbers(text, [start_offsets[u] for u in every])))
    return [
        tuple(Borrowed(line_of[u], start_offsets[u], start_offsets[u] + unit_size(u)) for u in sorted(borrowed_items))
        for borrowed_items in borrowed
    ]


def borrowing(text: str, head_end: int, first_start: int) -> Callable[[int, int], tuple[Borrowed, ...]] | None:
    """For a text cut a slice at a time (its items found as they are loaded, not all at once): a function giving the
    slice [start, end)'s borrowed items, as split_slices gives them; None when the whole file's alias limits could
    be reached (see the module's docstring), so it must be loaded whole. `head_end`: where the header ends;
    `first_start`: the line break before the first item. Only the items around the anchors and aliases are looked
    for, each by a search back from its token: the first slice need not wait for every item's start to be found (a
    suite of 200,000 lines has 66,000)."""
    from bisect import bisect_left

    tokens = _anchors_and_aliases(text)
    anchored = {name for _pos, kind, name in tokens if kind == "&"}
    if not anchored:
        return lambda start, end: ()  # every "alias" is text, or refused by the parser alike
    indent = 0
    while text.startswith(" ", first_start + 1 + indent):
        indent += 1
    marker = "\n" + " " * indent + "-"  # (an item's start, as _items' pattern finds it, but for what follows)

    def is_item(at: int) -> bool:  # the marker at `at` starts an item: then a blank, a line break or the end
        after = text[at + len(marker) : at + len(marker) + 2]
        return after[:1] in ("", " ", "\t", "\n") or after == "\r\n"

    def unit(pos: int) -> int:  # the start of the item holding `pos`, -1 for the header
        if pos < head_end:
            return -1
        at = pos
        while (at := text.rfind(marker, first_start, at)) >= 0:
            if is_item(at):
                return at + 1
            at += len(marker) - 1
        return -1

    sizes: dict[int, int] = {-1: head_end}

    def unit_size(u: int) -> int:
        if u not in sizes:
            following = text.find(marker, u)
            while following >= 0 and not is_item(following):
                following = text.find(marker, following + 1)
            sizes[u] = (following + 1 if following >= 0 else len(text)) - u
        return sizes[u]

    takes = _alias_takes(tokens, anchored, unit, unit_size)
    if takes is None:
        return None
    takes.sort()
    heres = [here for here, _source in takes]

    def borrowed(start: int, end: int) -> tuple[Borrowed, ...]:
        sources = {source for _here, source in takes[bisect_left(heres, start) : bisect_left(heres, end)]}
        return tuple(
            Borrowed(text.count("\n", 0, u), u, u + unit_size(u)) for u in sorted(s for s in sources if s < start)
        )

    return borrowed


# A JSONL dataset's lines, read as bytes: a line is blank when JavaScript's trim() leaves nothing of it (what the
# JSONL reader skips). `\n` before each line (the block is given one more in front): a line of ASCII blanks only, and
# a line whose first byte that is not an ASCII blank is not ASCII (a BOM, NBSP, U+3000 or U+2028 may be all it holds:
# decoded to tell, rare).
_ASCII_BLANK_LINE = re.compile(rb"\n(?=[ \t\r\x0b\x0c]*\n)")
_NON_ASCII_FIRST = re.compile(rb"\n[ \t\r\x0b\x0c]*([\x80-\xff][^\n]*)")
SCAN_BLOCK = 1 << 20


def _content_lines(lines: bytes) -> int:
    """The lines of `lines` (whole lines, each ending with a line break) that hold a test."""
    marked = b"\n" + lines
    blank = len(_ASCII_BLANK_LINE.findall(marked))
    for found in _NON_ASCII_FIRST.finditer(marked):
        if not found.group(1).decode("utf-8", "replace").strip(JS_WHITESPACE):
            blank += 1
    return lines.count(b"\n") - blank


def jsonl_slices(fd: int, slice_bytes: int, *, min_bytes: int = MIN_PARALLEL_BYTES) -> list[Slice] | None:
    """A JSONL dataset (a test a line) open at `fd`, cut after a line into slices of about `slice_bytes` bytes: a
    slice's offsets are byte offsets in the file, [start, end), its line breaks included; there is no header, a
    slice's first case is the number of lines with content before it. The file is read a block at a time and never
    decoded whole (a line longer than a block is held whole). None when it is shorter than `min_bytes` or makes one
    slice."""
    slices: list[Slice] = []
    start = start_line = first_case = 0  # the slice being measured
    lines = cases = 0  # before `pos`
    pos = 0  # the file offset of `carry`: the start of a line not read to its end yet
    carry: list[bytes] = []
    carried = 0
    while True:
        data = os.pread(fd, SCAN_BLOCK, pos + carried)
        if not data:
            break
        if b"\n" not in data:  # (a long line: joined once its end is read)
            carry.append(data)
            carried += len(data)
            continue
        block = b"".join([*carry, data])
        whole = block.rfind(b"\n") + 1
        carry, carried = [block[whole:]], len(block) - whole
        done = 0
        while True:  # the slice ends after the line that reaches slice_bytes
            reach = start + slice_bytes - 1 - pos
            end = block.find(b"\n", max(reach, done), whole) + 1 if reach < whole else 0
            if not end:
                break
            lines += block.count(b"\n", done, end)
            cases += _content_lines(block[done:end])
            slices.append(Slice(start_line, lines, first_case, start, pos + end))
            start, start_line, first_case, done = pos + end, lines, cases, end
        lines += block.count(b"\n", done, whole)
        cases += _content_lines(block[done:whole])
        pos += whole
    size = pos + carried
    if start < size:
        slices.append(Slice(start_line, lines + 1, first_case, start, size))
    if size < min_bytes or len(slices) < 2:
        return None
    return slices


def joined(slices: list[Slice], first: int, last: int) -> Slice:
    """Slices first..last (consecutive) as one."""
    a, b = slices[first], slices[last]
    borrowed = sorted(
        {item for s in slices[first : last + 1] for item in s.borrowed if item.start_offset < a.start_offset}
    )
    return Slice(a.start_line, b.end_line, a.first_case, a.start_offset, b.end_offset, tuple(borrowed))


def piece(text: str, slices: list[Slice], cut: Slice) -> str:
    """The text of slice `cut` (one of `slices`, or several of them joined) as a loader reads it: the header, a blank
    line per line of the slices before, then its own lines."""
    return slice_piece(text, slices[0], cut)


def slice_piece(text: str, first: Slice, cut: Slice) -> str:
    """The text of slice `cut` of a file whose first slice is `first` (which gives the header): the header, its
    borrowed items and then its own lines, each at its own line number (blank lines between)."""
    header_lines, header_end = first.start_line, first.start_offset
    if not cut.borrowed:
        return slice_by_offsets(text, header_end, cut.start_line - header_lines, cut.start_offset, cut.end_offset)
    parts, line = [text[:header_end]], header_lines
    for item in cut.borrowed:
        parts += ["\n" * (item.line - line), text[item.start_offset : item.end_offset]]
        line = item.line + text.count("\n", item.start_offset, item.end_offset)
    parts += ["\n" * (cut.start_line - line), text[cut.start_offset : cut.end_offset - 1]]
    return "".join(parts)


def drop_borrowed(
    cases: list[EvalCase], diagnostics: list[Diagnostic], cut: Slice
) -> tuple[list[EvalCase], list[Diagnostic]]:
    """A slice's loaded cases and file diagnostics without what its borrowed items made (their cases come first,
    one per item; their diagnostics are on their lines)."""
    if not cut.borrowed:
        return cases, diagnostics
    # Between the header and the slice's own lines, only borrowed items have text (diagnostics' lines are 1-based).
    first, own = cut.borrowed[0].line + 1, cut.start_line + 1
    return cases[len(cut.borrowed) :], [d for d in diagnostics if d.line is None or not first <= d.line < own]


_SEARCH_PIECE = 1 << 20  # characters a search of a big text goes through at a time


def _search_by_lines(
    pattern: re.Pattern[str],
    text: str,
    start: int,
    end: int,
    cancelled: Callable[[], bool] = never,
    *,
    unless_every: str | None = None,
) -> re.Match[str] | None:
    """pattern.search(text, start, end) for a pattern whose match starts with a line break and holds no other: made
    in pieces of about _SEARCH_PIECE characters that end before a line break (so no match spans two), letting go of
    the GIL between them. One search through a 50 MB suite held it for half a second on a busy machine, and with it
    the inspector's event loop, which its loading thread shares. Raises Cancelled between pieces once `cancelled()`
    says so. `unless_every`: a line break and what follows it that the pattern cannot match at: a piece where every
    line break is followed by it is passed without the search (two counts in C, where the search tries a match at
    every line: a third of the CPU before an anchored 200,000-line suite's first case)."""
    while start < end:
        check(cancelled)
        stop = text.find("\n", min(start + _SEARCH_PIECE, end), end)
        stop = end if stop < 0 else stop
        # (the text's last line break, at its end, is followed by nothing: the pattern cannot match there either)
        breaks = text.count("\n", start, stop) - (stop == len(text) and text.endswith("\n"))
        if unless_every is None or breaks != text.count(unless_every, start, stop):
            found = pattern.search(text, start, stop)
            if found is not None:
                return found
        start = stop
    return None


def _blank_or_comment_lines(text: str, start: int, end: int) -> int:
    """Line breaks between `start` and `end` when every line in between is blank or a comment, else -1."""
    between = text[start:end].split("\n")
    if any(line.strip() and not line.strip().startswith("#") for line in between[1:-1]):
        return -1
    return len(between) - 1


def _line_numbers(text: str, offsets: list[int]) -> list[int]:
    """0-based line number of each (ascending) offset."""
    out, line, pos = [], 0, 0
    for off in offsets:
        line += text.count("\n", pos, off)
        pos = off
        out.append(line)
    return out


def slice_text(text: str, header_end: int, start: int, end: int) -> str:
    """The text with only the header and lines [start, end) kept; other lines blank, so line numbers hold."""
    lines = text.split("\n")
    return "\n".join(lines[:header_end] + [""] * (start - header_end) + lines[start:end])


def slice_by_offsets(text: str, header_end: int, blank_lines: int, start: int, end: int) -> str:
    """slice_text() from offsets: the header, a blank line per line of other slices before, then the slice's lines."""
    return text[:header_end] + "\n" * blank_lines + text[start : end - 1]
