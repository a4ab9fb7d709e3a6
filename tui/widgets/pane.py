"""A titled, focusable, scrollable, maximisable pane showing one piece of a case.

Built on the line API (ScrollView + render_line): only the rows on screen are turned into strips, so a case with
tens of KB of text redraws in milliseconds. Rows are offsets into the text, word-wrapped to the pane width once per
text and width (see textlayout.py).
"""

from __future__ import annotations

from bisect import bisect_right
from typing import Optional

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.content import Content
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.selection import Selection
from textual.strip import Strip

from .textlayout import Row, StyledText

class PaneText:
    """A pane's content prepared for display: the styled text, laid out in rows per width (cached)."""

    __slots__ = ("text", "copy", "hang", "_styled", "_rows")

    def __init__(self, text: Text, copy: str, *, hang: int = 0) -> None:
        self.text = text
        self.copy = copy  # what `c` copies: the raw value (question string, chatPrompt JSON…)
        self.hang = hang  # indentation of wrapped continuation rows (at least the line's own)
        self._styled: Optional[StyledText] = None
        self._rows: dict[int, list[Row]] = {}

    @property
    def styled(self) -> StyledText:
        if self._styled is None:
            self._styled = StyledText(self.text)
        return self._styled

    def rows(self, width: int) -> list[Row]:
        """Word-wrapped rows for a pane `width` cells wide (safe to call from a worker thread)."""
        rows = self._rows.get(width)
        if rows is None:
            rows = self._rows[width] = self.styled.rows(width, self.hang)
        return rows

    def rows_before_line(self, line: int, width: int) -> int:
        """How many rows the first `line` logical lines take at `width`."""
        if line <= 0:
            return 0
        lines = self.styled.lines()
        if line >= len(lines):
            return len(self.rows(width))
        boundary = lines[line][0]
        return sum(1 for row in self.rows(width) if row[0] < boundary)


EMPTY = PaneText(Text(""), "")


class Pane(ScrollView, can_focus=True):
    """Holds one rich Text; knows the exact string to copy (the raw value, not the decorated view)."""

    ALLOW_MAXIMIZE = True

    DEFAULT_CSS = """
    Pane {
        border: round $panel-lighten-2;
        padding: 0 0 0 1;
        scrollbar-gutter: stable;
        scrollbar-size-vertical: 1;
        overflow-x: hidden;
    }
    Pane:focus { border: round $accent; }
    """

    def __init__(
        self, title: str, *, key: str = "", id: Optional[str] = None, classes: Optional[str] = None
    ) -> None:
        super().__init__(id=id, classes=classes)
        self.title_name = title  # the title without its key (for messages such as "Copied question")
        # The key that focuses the pane, set apart from the title so "[1] messages" does not read as a count.
        self.border_title = Content.assemble((f"[{key}]", "bold"), " ", title) if key else Content(title)
        self._content = EMPTY
        self._rows: list[Row] = []
        self._rows_width = -1
        self._strips: dict[int, Strip] = {}
        self._pending_line: Optional[int] = None

    # -- content

    def show(self, content: PaneText, *, subtitle: str = "", keep_scroll: bool = True) -> None:
        """Replace the contents; `keep_scroll=False` goes back to the top (a different case)."""
        self.border_subtitle = Content(subtitle)
        if content is not self._content:
            self._content = content
            self._rows_width = -1
        self._layout_rows()
        if not keep_scroll:
            self.scroll_to(0, 0, animate=False, immediate=True)
        self.refresh()

    def set_title(self, title: str) -> None:
        self.border_title = Content(title)

    @property
    def copy_text(self) -> str:
        return self._content.copy

    @property
    def body_text(self) -> str:
        """What the pane shows, as plain text (for tests)."""
        return self._content.text.plain

    @property
    def content_width(self) -> int:
        """Width available to the text (borders, padding and the scrollbar gutter excluded)."""
        return self.scrollable_content_region.width

    def scroll_to_line(self, line: int) -> None:
        """Scroll so that logical line `line` (0-based, before wrapping) is at the top (once laid out)."""
        self._pending_line = line
        self._layout_rows()

    def top_line(self) -> int:
        """The logical line (0-based) of the row at the top of the pane."""
        if not self._rows:
            return 0
        row = min(int(self.scroll_y), len(self._rows) - 1)
        starts = [start for start, _ in self._content.styled.lines()]
        return max(0, bisect_right(starts, self._rows[row][0]) - 1)

    def _apply_pending_line(self) -> None:
        line, self._pending_line = self._pending_line, None
        if line is None:
            return
        row = self._content.rows_before_line(line, self._rows_width)
        self.scroll_to(y=row, animate=False, immediate=True)

    # -- line API

    def _wrap(self, width: int) -> None:
        self._rows = self._content.rows(width)
        self._rows_width = width
        self._strips = {}

    def _layout_rows(self) -> None:
        width = self.content_width
        if width <= 0:
            return  # not laid out yet: on_resize will do it
        if width != self._rows_width:
            self._wrap(width)
        self.virtual_size = Size(width, len(self._rows))
        if self._pending_line is not None:
            self.call_after_refresh(self._apply_pending_line)

    def on_resize(self) -> None:
        self._layout_rows()

    def render_line(self, y: int) -> Strip:
        width = self.content_width
        if width != self._rows_width:
            # Laid out at a new width since the last resize event: wrap now (no virtual size change here).
            self._wrap(width)
            self.call_later(self._layout_rows)
        index = self.scroll_offset.y + y
        style = self.rich_style
        if index >= len(self._rows):
            return Strip.blank(width, style)
        selection = self.text_selection
        strip = self._strips.get(index) if selection is None else None
        if strip is None:
            start, end, indent = self._rows[index]
            segments = self._content.styled.segments(start, end)
            if indent:
                segments.insert(0, Segment(" " * indent))
            if selection is not None and (span := selection.get_span(index)) is not None:
                segments = self._select(segments, span)
            # Offsets let the mouse select text: x is the cell in the row, y the row.
            strip = Strip(segments).apply_offsets(0, index)
            strip = strip.crop_extend(0, width, style).apply_style(style)
            if selection is None:
                self._strips[index] = strip
        return strip

    def _select(self, segments: list[Segment], span: tuple[int, int]) -> list[Segment]:
        length = sum(segment.cell_length for segment in segments)
        start, end = span
        end = length if end == -1 else min(end, length)
        if start >= end:
            return segments
        before, chosen, after = Segment.divide(segments, [start, end, length])
        highlight = self.screen.get_component_rich_style("screen--selection")
        return before + [Segment(text, (seg_style or Style()) + highlight) for text, seg_style, _ in chosen] + after

    # -- text selection (mouse)

    def _row_texts(self) -> str:
        plain = self._content.styled.plain
        return "\n".join(" " * indent + plain[start:end] for start, end, indent in self._rows)

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        return selection.extract(self._row_texts()), "\n"

    def selection_updated(self, selection: Selection | None) -> None:
        self._strips = {}
        self.refresh()
