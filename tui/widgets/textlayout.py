"""Styled text laid out for the line API without building a Text per line.

Rows are (start, end, indent) offsets into the plain string, word-wrapped to a width; styles are looked up only for the
rows being drawn. This keeps a 60 KB case's first display in the low milliseconds where Rich's split/wrap (a Text
object per line and per row) costs hundreds.
"""

from __future__ import annotations

import re
import sys
import threading
from bisect import bisect_left
from collections.abc import Callable
from functools import lru_cache

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from rich.text import Span as TextSpan
from rich.text import Text

TAB_SIZE = 4
LONG_SPAN = 512  # spans longer than this are checked on every row; shorter ones are found by bisection

_WORD = re.compile(r"\s*\S+\s*")

Row = tuple[int, int, int]  # (start, end, indent): continuation rows of a wrapped line are indented
Extent = tuple[int, int]  # (start, end) of a logical line

MAX_HANG = 12  # never indent continuation rows more than this (nor past half the width)


@lru_cache(maxsize=1024)
def _parse_style(style: str) -> Style:
    return Style.parse(style) if style else Style()


def _as_style(style: str | Style) -> Style:
    return _parse_style(style) if isinstance(style, str) else style


def _cells(text: str) -> int:
    return len(text) if text.isascii() else cell_len(text)


def _char_cells(char: str) -> int:
    return 1 if char.isascii() else cell_len(char)


def wrap_line(
    plain: str,
    start: int,
    end: int,
    width: int,
    rows: list[Row],
    hang: int = 0,
    *,
    limit: int | None = None,
    resume: int | None = None,
) -> int:
    """Greedy word wrap of one logical line; continuation rows are indented by `hang` (the line's own indentation
    at least); words longer than a row are folded.

    With `limit`, stops once `rows` holds that many rows, at a row starting with a word, and returns that row's
    offset: `resume=` it to go on. Returns -1 when the line is done.

    A line of printable ASCII is wrapped a row at a time (_wrap_ascii_rows) for as long as no word needs folding;
    the rest word by word (wrap_line_by_words, the rules' one statement, which gives the same rows)."""
    line = plain[start:end]
    if resume is None and _cells(line) <= width:
        rows.append((start, end, 0))
        return -1
    indent = min(max(hang, len(line) - len(line.lstrip(" "))), MAX_HANG, width // 2)
    if resume is None:
        row_start, row_indent = start, 0
    else:
        row_start, row_indent = resume, indent
    if _NOT_PRINTABLE_ASCII.search(line) is None:
        row_start, row_indent = _wrap_ascii_rows(plain, end, width, indent, rows, row_start, row_indent, limit)
        if row_start < 0 or row_indent < 0:
            return row_start  # done (-1), or stopped at `limit` (the row's offset)
    return _wrap_words(plain, end, width, indent, rows, row_start, row_indent, limit)


def wrap_line_by_words(
    plain: str, start: int, end: int, width: int, rows: list[Row], hang: int = 0, *, limit: int | None = None
) -> int:
    """wrap_line word by word whatever the line: the rules' reference (tests compare wrap_line with it)."""
    line = plain[start:end]
    if _cells(line) <= width:
        rows.append((start, end, 0))
        return -1
    indent = min(max(hang, len(line) - len(line.lstrip(" "))), MAX_HANG, width // 2)
    return _wrap_words(plain, end, width, indent, rows, start, 0, limit)


_NOT_PRINTABLE_ASCII = re.compile(r"[^ -~]")
_NOT_SPACE = re.compile(r"[^ ]")
_ALNUM_ASCII = re.compile(r"[0-9A-Za-z]")


def _wrap_ascii_rows(
    plain: str, end: int, width: int, indent: int, rows: list[Row], row_start: int, row_indent: int, limit: int | None
) -> tuple[int, int]:
    """_wrap_words' rows for a line of printable ASCII (a cell per character, words cut at spaces), found a row at
    a time: a row takes every word whose last character is within its width, and the next row starts at the word
    that crosses it. Stops where _wrap_words would fold a word (the first word of a row longer than it; a word
    after only symbols, or longer than a row, with room left): returns that row's (start, indent) for _wrap_words
    to go on from; (-1, -1) when the line is done, (offset, -1) when stopped at `limit`."""
    while True:
        capacity = width - row_indent
        edge = row_start + capacity  # a word fits when it ends at most here
        if edge >= end:
            rows.append((row_start, end, row_indent))
            return -1, -1
        if plain[edge] == " ":  # every word before edge fits; the next row starts at the next word
            found = _NOT_SPACE.search(plain, edge, end)
            if found is None:  # only spaces are left: they hang past the edge
                rows.append((row_start, end, row_indent))
                return -1, -1
            word_start = found.start()
        else:  # the word around edge crosses it
            word_start = plain.rfind(" ", row_start, edge) + 1  # (0: no space before it on the row)
        first = _NOT_SPACE.search(plain, row_start, end)
        if word_start <= row_start or first is None or word_start <= first.start():
            return row_start, row_indent  # the row's first word crosses it: folded
        used = word_start - row_start
        if capacity - used >= MIN_FOLD_ROOM:
            word_end = plain.find(" ", word_start, end)
            visible = (end if word_end < 0 else word_end) - word_start
            if visible > width - indent or _ALNUM_ASCII.search(plain, row_start, word_start) is None:
                return row_start, row_indent  # folded from here
        rows.append((row_start, word_start, row_indent))
        row_start, row_indent = word_start, indent
        if limit is not None and len(rows) >= limit:
            return word_start, -1


def _wrap_words(
    plain: str, end: int, width: int, indent: int, rows: list[Row], row_start: int, row_indent: int, limit: int | None
) -> int:
    """Greedy word wrap of a line from the row starting at `row_start` (see wrap_line)."""
    used = 0

    def capacity() -> int:
        return width - row_indent

    def new_row(at: int) -> None:
        nonlocal row_start, row_indent, used
        rows.append((row_start, at, row_indent))
        row_start, row_indent, used = at, indent, 0

    for match in _WORD.finditer(plain, row_start, end):
        word_start, word_end = match.start(), match.end()
        word = match.group()
        visible = _cells(word.rstrip())  # trailing spaces may hang past the edge
        if used and used + visible > capacity():
            # A word that fits a row of its own moves to the next row; a longer one is folded from here, unless
            # too little room is left. A lone symbol (`⎘`, `•`) never stays alone above a long path.
            lead_only = not any(c.isalnum() for c in plain[row_start:word_start])
            if capacity() - used < MIN_FOLD_ROOM or (visible <= width - indent and not lead_only):
                new_row(word_start)
                if limit is not None and len(rows) >= limit:
                    return word_start
        if visible > capacity() - used:
            used = _fold(plain, word_start, word_start + len(word.rstrip()), used, capacity, new_row)
            used += word_end - (word_start + len(word.rstrip()))
            continue
        used += _cells(word)
    rows.append((row_start, end, row_indent))
    return -1


MIN_FOLD_ROOM = 8  # cells left on a row below which a long word starts on the next row
_PATH_SEPARATORS = frozenset("/\\")
_BREAK_AFTER = frozenset("/\\._-=,:;?&")  # a folded word (a path, a URL) is cut after one of these if it can


def _fold(
    plain: str, index: int, end: int, used: int, capacity: Callable[[], int], new_row: Callable[[int], None]
) -> int:
    """Fold the word plain[index:end] over rows, cutting after a path separator or punctuation where one is near
    the row's end; returns the cells used on the last row."""
    while index < end:
        room = capacity() - used
        stop, cells = index, 0
        while stop < end and cells + _char_cells(plain[stop]) <= room:
            cells += _char_cells(plain[stop])
            stop += 1
        if stop >= end:
            return used + cells
        cut = stop
        half = index + (stop - index) // 2
        for breaks in _PATH_SEPARATORS, _BREAK_AFTER:  # a path separator first, else other punctuation
            found = next((k + 1 for k in range(stop - 1, half, -1) if plain[k] in breaks), None)
            if found is not None:
                cut = found
                break
        if cut == index:  # nothing fits on this row: go to the next one
            if used == 0:
                cut = index + 1  # a character wider than the row: it goes alone
            else:
                new_row(index)
                used = 0
                continue
        used += _cells(plain[index:cut])
        index = cut
        new_row(index)
        used = 0
    return used


class StyledText:
    """A Text's plain string and spans, ready for fast row layout and per-row rendering."""

    __slots__ = ("plain", "_spans", "_starts", "_max_end", "_long", "_lines", "_line_feeds")

    def __init__(self, text: Text) -> None:
        if "\t" in text.plain:
            text = text.copy()
            text.expand_tabs(TAB_SIZE)  # a raw tab would move the terminal's cursor
        self._set(text.plain, text.spans, text.style)

    @classmethod
    def of_plain(cls, plain: str, spans: list[TextSpan]) -> StyledText:
        """StyledText(Text(plain, spans=spans)) without the Text, for `plain` that holds no control code (sanitized)
        and no tab: making the Text copies the string once more (Rich strips control codes)."""
        styled = cls.__new__(cls)
        styled._set(plain, spans, "")
        return styled

    def _set(self, plain: str, text_spans: list[TextSpan], base: str | Style) -> None:
        self.plain = plain
        spans = [(0, len(self.plain), _as_style(base), -1)] if base else []
        spans.extend(
            (start, end, style if style.__class__ is Style else _as_style(style), n)
            for n, (start, end, style) in enumerate(text_spans)
            if end > start
        )
        short = [s for s in spans if s[1] - s[0] <= LONG_SPAN]
        starts = [s[0] for s in short]
        if starts != sorted(starts):  # usually in order already (texts are built front to back)
            short.sort(key=lambda s: s[0])
            starts = [s[0] for s in short]
        self._long = [s for s in spans if s[1] - s[0] > LONG_SPAN]
        self._spans = short
        self._starts = starts
        self._lines: list[Extent] | None = None
        self._line_feeds = -1

    def line_feeds(self) -> int:
        """How many line feeds the text holds (counted once: a pane asks at each layout of a long text)."""
        if self._line_feeds < 0:
            self._line_feeds = self.plain.count("\n")
        return self._line_feeds

    def lines(self) -> list[Extent]:
        """(start, end) of each logical line."""
        if self._lines is None:
            lines: list[Extent] = []
            plain = self.plain
            start = 0
            while True:
                newline = plain.find("\n", start)
                if newline < 0:
                    lines.append((start, len(plain)))
                    break
                lines.append((start, newline))
                start = newline + 1
            self._lines = lines
        return self._lines

    def rows(self, width: int, hang: int = 0) -> list[Row]:
        return RowLayout(self, width, hang).finish()

    def segments(self, start: int, end: int) -> list[Segment]:
        """The row [start, end) as styled segments."""
        plain = self.plain
        if start >= end:
            return []
        active = [s for s in self._long if s[0] < end and s[1] > start]
        # Short spans overlapping the row start at most LONG_SPAN before it.
        lo = bisect_left(self._starts, start - LONG_SPAN)
        hi = bisect_left(self._starts, end)
        active.extend(s for s in self._spans[lo:hi] if s[1] > start)
        if not active:
            return [Segment(plain[start:end])]
        active.sort(key=lambda s: s[3])  # later spans win, as in Rich
        cuts = {start, end}
        for s in active:
            cuts.add(max(s[0], start))
            cuts.add(min(s[1], end))
        edges = sorted(cuts)
        segments = []
        for a, b in zip(edges, edges[1:]):
            styles = [s[2] for s in active if s[0] <= a and s[1] >= b]
            style = Style.combine(styles) if styles else None
            segments.append(Segment(plain[a:b], style))
        return segments


class RowLayout:
    """The rows of a StyledText at one width, wrapped on demand: a pane asks for its first screenful when a case is
    shown and for the rest once that is on screen (a 60 KB text wraps in several ms; a screenful in well under one).

    Shared between the event loop and the prerender thread: wrapping is serialised; `rows` only grows.
    """

    __slots__ = ("styled", "width", "hang", "rows", "_next", "_resume", "_lock", "_lines_done")

    def __init__(self, styled: StyledText, width: int, hang: int = 0) -> None:
        self.styled = styled
        self.width = max(1, width)
        self.hang = hang
        self.rows: list[Row] = []
        self._next = 0  # offset of the next logical line to wrap; -1 once every line is wrapped
        self._resume: int | None = None  # where that line's wrapping stopped (a long line is wrapped in parts)
        self._lock = threading.Lock()
        self._lines_done = 0  # logical lines wrapped whole: the line feeds before _next

    @property
    def done(self) -> bool:
        return self._next < 0

    def ensure(self, count: int) -> None:
        """Wrap lines until there are at least `count` rows (or no line is left)."""
        if self._next < 0 or len(self.rows) >= count:
            return
        with self._lock:
            plain, width, hang, rows = self.styled.plain, self.width, self.hang, self.rows
            start, resume, done = self._next, self._resume, self._lines_done
            while start >= 0 and len(rows) < count:
                newline = plain.find("\n", start)
                end = len(plain) if newline < 0 else newline
                if resume is None and end - start <= width and (end == start or plain[start:end].isascii()):
                    rows.append((start, end, 0))
                elif (resume := wrap_line(plain, start, end, width, rows, hang, limit=count, resume=resume)) >= 0:
                    break  # enough rows: the rest of this line later
                resume = None
                start = -1 if newline < 0 else newline + 1
                done += 1
            self._next, self._resume, self._lines_done = start, resume, done

    def finish(self) -> list[Row]:
        self.ensure(sys.maxsize)
        return self.rows

    def estimated_total(self) -> int:
        """The number of rows once every line is wrapped: exact when done, else a guess (for the scrollbar)."""
        start = self._next
        if start < 0:
            return len(self.rows)
        plain = self.styled.plain
        lines = self.styled.line_feeds() - self._lines_done + 1  # (plain.count("\n", start) + 1)
        return len(self.rows) + max(lines, (len(plain) - start) // self.width)
