"""The case list: every case of every file in order, with badges, and a filter box above it."""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.css.styles import RulesMap
from textual.message import Message
from textual.strip import Strip
from textual.style import Style
from textual.visual import RenderOptions, Visual
from textual.widgets import Input, OptionList
from textual.widgets.option_list import Option

from ..render import case_row_text, file_header_text
from ..rows import CaseRow, FileEntry
from ..textual_compat import HighlightDrawnApart
from ..theme import generation as theme_generation


class RowVisual(Visual):
    """A case's row, made into Content only while it is drawn: the list holds thousands of rows, and a row's Content
    (its spans, each with a Style) kept per option came to ~2 KB each. Its height is worked out once per width."""

    __slots__ = ("row", "width", "selected", "_height")

    def __init__(self, row: CaseRow, width: int, *, selected: bool = False) -> None:
        self.row = row
        self.width = width
        self.selected = selected
        self._height: tuple[object, int] | None = None

    def content(self) -> Content:
        return Content.from_rich_text(case_row_text(self.row, self.width, selected=self.selected))

    def render_strips(self, width: int, height: int | None, style: Style, options: RenderOptions) -> list[Strip]:
        return self.content().render_strips(width, height, style, options)

    def get_optimal_width(self, rules: RulesMap, container_width: int) -> int:
        return self.content().get_optimal_width(rules, container_width)

    def get_height(self, rules: RulesMap, width: int) -> int:
        # The list asks for every row's height whenever its line cache is cleared (a resize, a focus change).
        key = (width, rules.get("line_pad", 0), rules.get("text_overflow", "fold"), rules.get("text_wrap", "wrap"))
        if self._height is None or self._height[0] != key:
            self._height = (key, self.content().get_height(rules, width))
        return self._height[1]


class CaseOption(Option):
    """A case's row in the list, drawn as `case_row_text` draws it, or as it draws a selected row while the row is
    under the highlight."""

    def __init__(self, row: CaseRow, width: int) -> None:
        super().__init__(RowVisual(row, width), id=row.key)
        self.row = row
        self.width = width


def row_matches(row: CaseRow, query: str) -> bool:
    """Every word of the query occurs in the row's id, badge, rule, warnings or skip reason."""
    haystack = row.search_text
    return all(word in haystack for word in query.lower().split())


WIDTH = 38  # cells: the list's width beside the panes, unless long ids widen it


class CaseOptions(HighlightDrawnApart):
    """The list of cases. A new highlight is announced from its watcher, before this list's own repaint is asked
    for: the screen then draws the case in the same frame as the highlight (Textual paints at most once per
    frame; a separate highlight frame put the case one or two frames later, 17-33 ms)."""

    # The keys of terminal pagers and viewers, beside the arrows, home and end the option list has.
    BINDINGS = [
        Binding("j", "cursor_down", "Down", show=False),
        Binding("k", "cursor_up", "Up", show=False),
        Binding("g", "first", "First", show=False),
        Binding("G", "last", "Last", show=False),
    ]

    RENDER_CACHE_OPTIONS = 256  # rows' strips kept: a few screenfuls, in the plain and highlighted styles

    def __init__(self, on_highlight: Callable[[int | None], None], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._on_highlight = on_highlight
        self._selected: tuple[CaseOption, RowVisual] | None = None  # the highlighted row's visual, only its

    def highlighted_visual(self, option: Option) -> Visual | None:
        if not isinstance(option, CaseOption):
            return None
        if self._selected is None or self._selected[0] is not option:
            self._selected = (option, RowVisual(option.row, option.width, selected=True))
        return self._selected[1]

    def watch_highlighted(self, highlighted: int | None) -> None:
        self._on_highlight(highlighted)
        super().watch_highlighted(highlighted)


class CaseList(Vertical):
    """Filter box + option list. Posts CaseSelected when the highlighted case changes: to `announce` when given
    (the screen's queue, so that the case is drawn in the same frame as the highlight), else as any message."""

    DEFAULT_CSS = (
        f"CaseList {{ width: {WIDTH}; }}"
        + """
    CaseList > Input, CaseList > Input:focus { border: none; height: 1; padding: 0 1; }
    CaseList > Input:focus { background: $boost; }
    CaseList > OptionList { height: 1fr; padding: 0; scrollbar-gutter: stable; scrollbar-size-vertical: 1; }
    CaseList > OptionList > .option-list--option { padding: 0 1; }
    """
    )

    BINDINGS = [
        Binding("down", "focus_list", "Cases", show=False),
        Binding("escape", "escape", "Clear filter", show=False),
    ]

    class CaseSelected(Message):
        def __init__(self, case_list: CaseList, key: str) -> None:
            super().__init__()
            self.case_list = case_list
            self.key = key

        @property
        def control(self) -> CaseList:
            return self.case_list

    class Filtered(Message):
        """The filter changed what is listed: `shown` of `total` cases (shown == total when not filtering)."""

        def __init__(self, shown: int, total: int) -> None:
            super().__init__()
            self.shown = shown
            self.total = total

    def __init__(
        self,
        *,
        announce: Callable[[Message], object] | None = None,
        filter_key: str = "/",
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(id=id, classes=classes)
        self._announce = announce or self.post_message
        self._filter_key = filter_key  # the key that focuses the filter box, named in it
        self._entries: tuple[FileEntry, ...] = ()
        self._show_headers = False
        self._current: str | None = None
        self._suppress = False
        self._built_width = 0
        self._built_generation = -1
        self._counts = (-1, -1)

    def compose(self) -> ComposeResult:
        yield Input(placeholder=f"{self._filter_key} filter: id, rule, flat, warn…", id="case-filter")
        yield CaseOptions(self._highlight_changed, id="case-options")

    @property
    def options(self) -> OptionList:
        return self.query_one("#case-options", OptionList)

    @property
    def filter_input(self) -> Input:
        return self.query_one("#case-filter", Input)

    @property
    def current(self) -> str | None:
        return self._current

    def visible_keys(self) -> list[str]:
        option_list = self.options
        return [
            option_list.get_option_at_index(i).id or ""
            for i in range(option_list.option_count)
            if not option_list.get_option_at_index(i).disabled
        ]

    def set_entries(self, entries: list[FileEntry], *, current: str | None = None) -> None:
        """Replace the rows (after a load or reload), keeping the filter and the highlighted case. Rows only added
        at the end (a load in progress) are appended, not rebuilt: the list fills in at the cost of what is new."""
        old, new = self._entries, tuple(entries)
        show_headers = len(entries) > 1 or any(e.error for e in entries)
        if current is not None:
            self._current = current
        added = self._added_rows(old, new, show_headers) if show_headers == self._show_headers else None
        self._entries = new
        self._show_headers = show_headers
        if (
            added is None
            or self.filter_input.value.strip()
            or self._built_width != self._row_width()
            or self._built_generation != theme_generation()  # the rows' colours are the theme's
        ):
            self._rebuild()
        elif added:
            self._append(added)

    @staticmethod
    def _added_rows(
        old: tuple[FileEntry, ...], new: tuple[FileEntry, ...], headers: bool
    ) -> list[tuple[int, FileEntry, int]] | None:
        """(position, entry, rows already listed, -1 for a new entry) for what `new` adds at the end of `old`;
        None when anything else changed (the list is then rebuilt)."""
        if not old or len(new) < len(old) or new[: len(old) - 1] != old[:-1]:
            return None
        last, same = old[-1], new[len(old) - 1]
        if (last.rel, last.error, last.stale, last.number) != (same.rel, same.error, same.stale, same.number):
            return None
        if len(same.rows) < len(last.rows) or same.rows[: len(last.rows)] != last.rows:
            return None
        added = []
        if len(same.rows) > len(last.rows):
            if headers:
                return None  # the file's heading says how many cases it has
            added.append((len(old) - 1, same, len(last.rows)))
        return added + [(len(old) + k, entry, -1) for k, entry in enumerate(new[len(old) :])]

    def _append(self, added: list[tuple[int, FileEntry, int]]) -> None:
        width = self._built_width
        options: list[Option | None] = []
        for position, entry, listed in added:
            if listed < 0 and self._show_headers:
                options.append(None)
                options.append(self._header(position, entry, width))
            options.extend(CaseOption(row, width) for row in entry.rows[max(0, listed) :])
        self.options.add_options(options)
        if self.options.highlighted is None:
            self._rebuild()  # nothing was highlighted (an empty list): highlight the first case

    def on_resize(self) -> None:
        width = self._row_width()
        if width != self._built_width and self._entries:
            self._rebuild()

    def _row_width(self) -> int:
        # Inside the list's border and scrollbar, less the option padding (1 each side).
        inner = self.options.scrollable_content_region.width or (self.size.width - 3)
        return max(8, inner - 2)

    def _rebuild(self) -> None:
        self._built_width = width = self._row_width()
        self._built_generation = theme_generation()
        query = self.filter_input.value.strip()
        options: list[Option | None] = []
        for number, entry in enumerate(self._entries):
            rows = [row for row in entry.rows if row_matches(row, query)] if query else list(entry.rows)
            if self._show_headers:
                if query and not rows:
                    continue
                if options:
                    options.append(None)
                options.append(self._header(number, entry, width, len(rows) if query else None))
            options.extend(CaseOption(row, width) for row in rows)
        if query and not any(o is not None and not o.disabled for o in options):
            options.append(Option(Text("no case matches the filter", style="dim italic"), id="none", disabled=True))
        total = sum(len(entry.rows) for entry in self._entries)
        shown = sum(1 for o in options if o is not None and not o.disabled) if query else total
        self.options.border_subtitle = f"{shown} of {total} · esc clears" if query else ""
        if (shown, total) != self._counts:
            self._counts = (shown, total)
            self.post_message(self.Filtered(shown, total))
        option_list = self.options
        self._suppress = True
        try:
            option_list.set_options(options)
            target = self._current
            index = None
            if target is not None:
                try:
                    index = option_list.get_option_index(target)
                except Exception:
                    index = None
            if index is None:
                index = next((i for i, o in enumerate(options_only(option_list)) if not o.disabled), None)
            option_list.highlighted = index
        finally:
            self._suppress = False
        if index is not None:
            key = option_list.get_option_at_index(index).id
            option_list.scroll_to_highlight()
            if key is not None and key != self._current:
                self._current = key
                self.post_message(self.CaseSelected(self, key))

    @staticmethod
    def _header(position: int, entry: FileEntry, width: int, shown: int | None = None) -> Option:
        loaded = entry.error is None and bool(entry.dialect)  # read: `tests: []` says (0); refused: no count
        count = len(entry.rows) if entry.rows or loaded else -1
        number = entry.number if entry.number >= 0 else position
        return Option(
            file_header_text(entry.rel, entry.error, entry.stale, width, count, shown, dialect=entry.dialect),
            id=f"file:{number}",
            disabled=True,
        )

    def select(self, key: str) -> bool:
        """Highlight the case `key` if it is listed (clearing a filter that hides it). True when CaseSelected
        follows; False when the caller shows the case itself (not listed, or listed again by clearing the filter,
        which rebuilds the list around it silently)."""
        option_list = self.options
        try:
            index = option_list.get_option_index(key)
        except Exception:
            if not self.filter_input.value:
                return False
            self.filter_input.value = ""
            self._current = key
            self._rebuild()
            return False
        option_list.highlighted = index
        option_list.scroll_to_highlight()
        return True

    def set_width(self, cells: int | None) -> None:
        """Wider than WIDTH to show long ids whole; None: as the stylesheet says (WIDTH, or the whole row when the
        screen is narrow)."""
        self.styles.width = cells

    def action_focus_list(self) -> None:
        self.options.focus()

    def action_escape(self) -> None:
        """From the filter box: to the list (the filter stays); from the list: clear the filter."""
        if self.filter_input.has_focus or not self.filter_input.value:
            self.options.focus()
            return
        self.filter_input.value = ""  # Input.Changed rebuilds the list, keeping the highlighted case

    @on(Input.Changed, "#case-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        event.stop()
        self._rebuild()

    @on(Input.Submitted, "#case-filter")
    def _filter_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.options.focus()

    def _highlight_changed(self, index: int | None) -> None:
        if self._suppress or index is None:
            return
        option_list = self.options
        if not 0 <= index < option_list.option_count:
            return
        option = option_list.get_option_at_index(index)
        if option.id is None or option.disabled or option.id == self._current:
            return
        self._current = option.id
        # Straight to whoever was named (nothing between handles it): ahead of the list's repaint request.
        self._announce(self.CaseSelected(self, option.id))

    @on(OptionList.OptionHighlighted, "#case-options")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()  # announced as CaseSelected by CaseOptions' watcher

    @on(OptionList.OptionSelected, "#case-options")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()


def options_only(option_list: OptionList) -> list[Option]:
    return [option_list.get_option_at_index(i) for i in range(option_list.option_count)]
