"""A titled, focusable, scrollable, maximisable pane showing one piece of a case.

Built on the line API (ScrollView + render_line): only the rows on screen are turned into strips, so a case with
tens of KB of text redraws in milliseconds. Rows are offsets into the text, word-wrapped to the pane width once per
text and width (see textlayout.py).
"""

from __future__ import annotations

from bisect import bisect_right
from functools import partial
from time import monotonic

from rich.segment import Segment
from rich.style import Style
from rich.text import Span as TextSpan
from rich.text import Text
from textual.binding import Binding
from textual.content import Content
from textual.geometry import Region, Size
from textual.scroll_view import ScrollView
from textual.selection import Selection
from textual.strip import Strip

from ..cache import BoundedCache
from ..textual_compat import set_virtual_size_without_layout
from .textlayout import Row, RowLayout, StyledText

# Texts longer than this are wrapped as far as the pane shows first and the rest in steps after that is drawn (shorter
# ones wrap in about a millisecond: all at once, so their scrollbar never shows an estimate).
LAZY_LAYOUT_CHARS = 16_000
# Rows a long text wraps at a time once its screenful is shown (a few milliseconds), in steps of about
# LAYOUT_STEP_SECONDS: the steps are timers, so keys (q above all) and paints come between them, and a 20 MB attachment
# is never one long wrap on the event loop. A step's own cost (its timer, a repaint) is several times 2,000 rows' wrap:
# steps of 2,000 rows left a 20 MB grader prompt's End blank for tens of seconds; its whole wrap takes under a second.
ROWS_PER_LAYOUT_STEP = 2_000
LAYOUT_STEP_SECONDS = 0.02
DRAWN_KEPT = 8  # contents whose drawn rows a pane keeps (the cases just seen, e.g. back and forth with [ and ])


class PaneText:
    """A pane's content prepared for display: the styled text, laid out in rows per width (cached)."""

    __slots__ = ("_text", "copy", "hang", "_styled", "_layouts", "_spans")

    def __init__(self, text: Text, copy: str, *, hang: int = 0) -> None:
        self._text: Text | None = text
        self._spans: list[TextSpan] = []  # (of_plain's, until its Text is made)
        self.copy = copy  # what `c` copies: the raw value (question string, chatPrompt JSON…)
        self.hang = hang  # indentation of wrapped continuation rows (at least the line's own)
        self._styled: StyledText | None = None
        self._layouts: dict[int, RowLayout] = {}

    @classmethod
    def of_plain(cls, plain: str, spans: list[TextSpan], copy: str) -> PaneText:
        """PaneText(Text(plain, spans=spans, end=""), copy) for `plain` that holds no control code (sanitized): the
        Text is made only if asked for (making it copies and scans the string once more, ~50 ms for a 20 MB
        attachment, which a pane draws without)."""
        if "\t" in plain:  # (tabs are expanded through the Text)
            return cls(Text(plain, spans=spans, end=""), copy)
        content = cls.__new__(cls)
        content._text, content.copy, content.hang, content._layouts = None, copy, 0, {}
        content._styled = StyledText.of_plain(plain, spans)
        content._spans = spans
        return content

    @property
    def text(self) -> Text:
        """The styled text shown."""
        if self._text is None:
            self._text = Text(self.styled.plain, spans=self._spans, end="")
        return self._text

    @property
    def chars(self) -> int:
        """The characters shown."""
        return len(self._text) if self._text is not None else len(self.styled.plain)

    @property
    def styled(self) -> StyledText:
        if self._styled is None:
            self._styled = StyledText(self.text)
        return self._styled

    def layout(self, width: int) -> RowLayout:
        """The rows for a pane `width` cells wide, wrapped as far as asked so far (safe from a worker thread)."""
        layout = self._layouts.get(width)
        if layout is None:
            layout = self._layouts.setdefault(width, RowLayout(self.styled, width, self.hang))
        return layout

    def rows(self, width: int) -> list[Row]:
        """Every word-wrapped row for a pane `width` cells wide (safe to call from a worker thread)."""
        return self.layout(width).finish()

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


def row_strip(segments: list[Segment], row: int, width: int, style: Style) -> Strip:
    """One row as a Strip `width` cells wide on the pane's `style`, in one pass (what Strip.apply_offsets,
    crop_extend and apply_style do in turn, with a Strip each). Offsets let the mouse select text: x is the
    character in the row, y the row."""
    out = []
    x = 0
    for text, segment_style, _control in segments:
        base = style + segment_style if segment_style else style
        out.append(Segment(text, base + Style.from_meta({"offset": (x, row)})))
        x += len(text)
    return Strip(Segment.adjust_line_length(out, width, style=style), width)


class Pane(ScrollView, can_focus=True):
    """Holds one rich Text; knows the exact string to copy (the raw value, not the decorated view)."""

    ALLOW_MAXIMIZE = True

    # As in a pager, beside the arrows, home and end of a scrollable container.
    BINDINGS = [
        Binding("j", "scroll_down", "Down", show=False),
        Binding("k", "scroll_up", "Up", show=False),
        Binding("g", "scroll_home", "Top", show=False),
        Binding("G", "scroll_end", "Bottom", show=False),
    ]

    DEFAULT_CSS = """
    Pane {
        border: round $panel-lighten-2;
        padding: 0 0 0 1;
        scrollbar-gutter: stable;
        scrollbar-size-vertical: 1;
        overflow-x: hidden;
    }
    /* unfocused, the title (with the pane's key) and the footer in a colour that reads (tui/theme.py) */
    Pane { border-title-color: $tl-pane-title; border-subtitle-color: $tl-pane-title; }
    Pane:focus { border: round $accent; border-title-color: $accent; border-subtitle-color: $accent; }
    /* On a light theme the panel's lighter shade is near white: the border (and its title) would vanish. */
    Pane:light { border: round $panel-darken-2; }
    Pane:light:focus { border: round $accent; border-title-color: $accent; border-subtitle-color: $accent; }
    """

    def __init__(self, title: str, *, key: str = "", id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.pane_key = key
        self.set_title(title)
        self._content = EMPTY
        self._layout: RowLayout | None = None
        self._rows: list[Row] = []  # the layout's rows: the first screenful at least, all once finished
        self._rows_width = -1
        # The rows drawn, per content, width and style, for the last DRAWN_KEPT contents this pane showed: going
        # back to a case just seen redraws from here. Kept by the pane, not with the content: a strip weighs ~1 KB,
        # and kept with the cached views the strips of the last 32 cases looked at were ~10 MB.
        self._drawn: BoundedCache[tuple[PaneText, int, Style], dict[int, Strip]] = BoundedCache(DRAWN_KEPT)
        self._strips: dict[int, Strip] = {}
        self._pending_line: int | None = None
        # Looked up once per paint rather than once per row (rich_style walks every ancestor's styles).
        self._paint_style: Style | None = None
        self._paint_width = -1

    # -- content

    def show(self, content: PaneText, *, subtitle: str = "", keep_scroll: bool = True) -> None:
        """Replace the contents; `keep_scroll=False` goes back to the top (a different case)."""
        self.border_subtitle = Content(subtitle)
        if content is not self._content:
            self._content = content
            self._rows_width = -1
        if not keep_scroll:
            self.scroll_to(0, 0, animate=False, immediate=True)
        self._layout_rows()
        self.refresh()

    def set_title(self, title: str) -> None:
        self.title_name = title  # the title without its key (for messages such as "Copied question")
        # The key that focuses the pane, set apart from the title so "[1] messages" does not read as a count.
        self.border_title = (
            Content.assemble((f"[{self.pane_key}]", "bold"), " ", title) if self.pane_key else Content(title)
        )

    @property
    def content(self) -> PaneText:
        """What the pane shows, as given to `show`."""
        return self._content

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
        if self._layout is not None:
            self._layout.ensure(int(self.scroll_y) + 1)
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
        self._layout = self._content.layout(width)
        self._rows = self._layout.rows
        self._rows_width = width
        self._strips = {}  # chosen per paint (the pane's style is known there)

    def _layout_rows(self) -> None:
        width = self.content_width
        if width <= 0:
            return  # not laid out yet: on_resize will do it
        if width != self._rows_width:
            self._wrap(width)
        layout = self._layout
        if layout is None:
            return
        if not layout.done and len(layout.styled.plain) > LAZY_LAYOUT_CHARS:
            # The rows on screen now (kept scroll: up to where the pane is scrolled); the scrollbar shows an estimate
            # until the rest is wrapped, a step at a time after this paint.
            layout.ensure(int(self.scroll_y) + self.scrollable_content_region.height + 1)
            self._set_virtual_size(Size(width, max(layout.estimated_total(), len(layout.rows))))
            self.call_after_refresh(self._finish_layout, layout)
        else:
            self._set_virtual_size(Size(width, len(layout.finish())))
        if self._pending_line is not None:
            self.call_after_refresh(self._apply_pending_line)

    def _set_virtual_size(self, size: Size) -> None:
        """The scrollable size. Setting `virtual_size` asks for a screen-wide layout pass (and so a redraw of
        every widget); a pane whose height does not follow its content (the wide grid) skips it: only its
        scrollbar follows."""
        if size == self.virtual_size:
            return
        height = self.styles.height
        if height is None or height.is_auto:
            self.virtual_size = size  # stacked panes are as tall as their text (up to a maximum)
            return
        set_virtual_size_without_layout(self, size)

    def _finish_layout(self, layout: RowLayout) -> None:
        """Wrap the next rows of a long text; when done, the scrollbar gets the true height, else the next step is a
        timer (so that what is queued runs first)."""
        if layout is not self._layout or layout.done:
            return
        before = len(layout.rows)
        step_ends = monotonic() + LAYOUT_STEP_SECONDS
        while not layout.done and monotonic() < step_ends:
            layout.ensure(len(layout.rows) + ROWS_PER_LAYOUT_STEP)
        top = self.scroll_offset.y
        if before < top + self.scrollable_content_region.height and len(layout.rows) > top:
            self.refresh()  # rows on screen were waiting for this step (not before: a repaint costs more than a step)
        if layout.done:
            # Scrolled to the end of the estimate (End while wrapping): the end of the text, once its height is known.
            at_end = 0 < self.max_scroll_y <= self.scroll_offset.y
            self._set_virtual_size(Size(self._rows_width, len(layout.rows)))
            if at_end:
                self.call_after_refresh(self.scroll_end, animate=False, immediate=True)
        else:
            self.set_timer(0.001, partial(self._finish_layout, layout))

    def on_resize(self) -> None:
        self._layout_rows()

    def render_lines(self, crop: Region) -> list[Strip]:
        self._paint_style = style = self.rich_style
        self._paint_width = width = self.content_width
        if width != self._rows_width:
            # Laid out at a new width since the last resize event: wrap now (no virtual size change here).
            self._wrap(width)
            self.call_later(self._layout_rows)
        self._strips = self._drawn_strips(width, style)
        try:
            return super().render_lines(crop)
        finally:
            self._paint_style = None

    def _drawn_strips(self, width: int, style: Style) -> dict[int, Strip]:
        key = (self._content, width, style)
        strips = self._drawn.get(key)
        if strips is None:
            strips = {}
            self._drawn.set(key, strips)
        return strips

    def render_line(self, y: int) -> Strip:
        style = self._paint_style
        if style is None:  # called outside a paint
            style = self.rich_style
            width = self.content_width
            if width != self._rows_width:
                self._wrap(width)
                self.call_later(self._layout_rows)
        else:
            width = self._paint_width
        index = self.scroll_offset.y + y
        layout = self._layout
        if index >= len(self._rows) and layout is not None and index < len(self._rows) + ROWS_PER_LAYOUT_STEP:
            layout.ensure(index + 1)  # scrolled just past the rows wrapped so far
        if index >= len(self._rows):
            # (farther, as End takes it on a 20 MB text, the rows come with the wrapping's steps: wrapped here at once,
            # they held the event loop, and q, for seconds)
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
            strip = row_strip(segments, index, width, style)
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
        if self._layout is not None:
            self._layout.finish()
        plain = self._content.styled.plain
        return "\n".join(" " * indent + plain[start:end] for start, end, indent in self._rows)

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        return selection.extract(self._row_texts()), "\n"

    def selection_updated(self, selection: Selection | None) -> None:
        self._strips = {}
        self.refresh()
