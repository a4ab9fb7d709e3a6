"""The case list: every case of every file in order, with badges, and a filter box above it.

The list is drawn line by line (Textual's line API, as a log viewer draws its lines): it holds one small item per
listed case or file heading, each of a fixed height known without drawing it (a case is two lines), and the first
line of each in an array; a line is drawn only while it is on screen, and the drawn items are kept in a bounded
cache. Appending rows costs what is appended; a million rows cost their items and nothing per row on screen."""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from rich.segment import Segment
from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.containers import Vertical
from textual.content import Content
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.style import Style as VisualStyle
from textual.timer import Timer
from textual.visual import Padding, Visual
from textual.widgets import Input

from ..render import case_row_text, file_header_text
from ..rows import CaseRow, FileEntry
from ..textual_compat import set_virtual_size_without_layout
from ..theme import generation as theme_generation
from .search_input import SearchInput


def row_matches(row: CaseRow, query: str) -> bool:
    """Every word of the query occurs in the row's id, badge, rule, warnings or skip reason."""
    haystack = row.search_text
    return all(word in haystack for word in query.lower().split())


def matching(rows: tuple[CaseRow, ...], query: str) -> list[CaseRow] | tuple[CaseRow, ...]:
    """The rows `row_matches` keeps, looked for in a comprehension (the list is filtered again at every key)."""
    words = query.lower().split()
    if not words:
        return rows
    if len(words) == 1:
        word = words[0]
        return [row for row in rows if word in row.search_text]
    return [row for row in rows if all(word in row.search_text for word in words)]


WIDTH = 38  # cells: the list's width beside the panes, unless long ids widen it


@dataclass(frozen=True)
class Heading:
    """A file's heading in the list: its name, case count (`shown` of them while a filter hides some) and dialect;
    a refused file's error (and whether its last good version is shown). `rule`: a separator line above it."""

    number: int
    rel: str
    error: str | None
    stale: bool
    count: int
    shown: int | None
    dialect: str
    rule: bool

    @property
    def key(self) -> str:
        return f"file:{self.number}"

    @property
    def height(self) -> int:
        return self.rule + 1 + (self.error is not None) + (self.error is not None and self.stale)


@dataclass(frozen=True)
class Note:
    """A line that is not a case (no case matches the filter)."""

    text: str
    key: str = "none"
    height: int = 1


Item = CaseRow | Heading | Note
ROW_HEIGHT = 2  # a case: its id, then its badge, rule and warnings (render.case_row_text)


def item_height(item: Item) -> int:
    return ROW_HEIGHT if isinstance(item, CaseRow) else item.height


def _case_position(key: str) -> tuple[int, int]:
    """Where a key sorts in the list: (file number, case index); a heading before its file's cases."""
    file, _, index = key.partition(":")
    if file == "file":
        return int(index), -1
    try:
        return int(file), int(index)
    except ValueError:
        return 1 << 62, 0


class CaseOptions(ScrollView, can_focus=True):
    """The list of cases, drawn a line at a time. `highlighted` is the index of the highlighted item; headings and
    notes are never highlighted. A new highlight is announced from its watcher, before this list's own repaint is
    asked for: the screen then draws the case in the same frame as the highlight (Textual paints at most once per
    frame; a separate highlight frame put the case one or two frames later, 17-33 ms).

    It is styled as Textual's option list is (the same component classes), so the app's stylesheet and themes
    apply unchanged."""

    DEFAULT_CSS = """
    CaseOptions {
        height: 1fr;
        color: $foreground;
        overflow-x: hidden;
        border: tall $border-blurred;
        background: $surface;
        & > .option-list--option-highlighted {
            color: $foreground;
            background: $block-cursor-blurred-background;
            text-style: $block-cursor-blurred-text-style;
        }
        &:focus {
            border: tall $border;
            background-tint: $foreground 5%;
            & > .option-list--option-highlighted {
                color: $block-cursor-foreground;
                background: $block-cursor-background;
                text-style: $block-cursor-text-style;
            }
        }
        & > .option-list--separator { color: $foreground 15%; }
        & > .option-list--option-disabled { color: $text-disabled; }
        & > .option-list--option-hover { background: $block-hover-background; }
    }
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "option-list--option",
        "option-list--option-disabled",
        "option-list--option-highlighted",
        "option-list--option-hover",
        "option-list--separator",
    }

    # The option list's keys, and those of terminal pagers and viewers.
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("down", "cursor_down", "Down", show=False),
        Binding("end", "last", "Last", show=False),
        Binding("enter", "select", "Select", show=False),
        Binding("home", "first", "First", show=False),
        Binding("pagedown", "page_down", "Page Down", show=False),
        Binding("pageup", "page_up", "Page Up", show=False),
        Binding("up", "cursor_up", "Up", show=False),
        Binding("j", "cursor_down", "Down", show=False),
        Binding("k", "cursor_up", "Up", show=False),
        Binding("g", "first", "First", show=False),
        Binding("G", "last", "Last", show=False),
    ]

    RENDER_CACHE_ITEMS = 256  # items' strips kept: a few screenfuls, in the plain and highlighted styles

    highlighted: reactive[int | None] = reactive(None)
    hovered: reactive[int | None] = reactive(None)

    def __init__(self, on_highlight: Callable[[int | None], None], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._on_highlight = on_highlight
        self._items: list[Item] = []
        self._starts = array("q")  # the first line of each item
        self._lines = 0
        self._drawn: LRUCache[tuple[object, ...], list[Strip]] = LRUCache(self.RENDER_CACHE_ITEMS)
        self._drawn_generation = -1

    # -- the items

    @property
    def option_count(self) -> int:
        return len(self._items)

    @property
    def items(self) -> list[Item]:
        return self._items

    def item_at(self, index: int) -> Item:
        return self._items[index]

    def selectable(self, index: int) -> bool:
        return 0 <= index < len(self._items) and isinstance(self._items[index], CaseRow)

    def index_of(self, key: str) -> int | None:
        """The index of the item with `key`, or None: by bisection over the list's order (files in order, cases
        in order within a file), checked, else by a scan."""
        items = self._items
        position = _case_position(key)
        at = bisect_right(items, position, key=lambda item: _case_position(item.key)) - 1
        if 0 <= at < len(items) and items[at].key == key:
            return at
        return next((n for n, item in enumerate(items) if item.key == key), None)

    def set_items(self, items: list[Item]) -> None:
        """Replace every item (the highlight is left to the caller)."""
        self._items = []
        self._starts = array("q")
        self._lines = 0
        self._drawn.clear()
        self.set_reactive(CaseOptions.highlighted, None)
        self.append_items(items)
        self.refresh()

    def append_items(self, items: list[Item]) -> None:
        """Add items at the end: the cost of what is added (and nothing drawn again but the scrollbar when they are
        below the lines shown)."""
        starts, line = self._starts, self._lines
        shown = self._shows_line(line)
        for item in items:
            starts.append(line)
            line += ROW_HEIGHT if isinstance(item, CaseRow) else item.height
        self._items.extend(items)
        self._lines = line
        self._update_size(repaint=shown)

    def replace_item(self, index: int, item: Item) -> None:
        """Put `item` in place of one of the same height (a heading whose count changed)."""
        self._items[index] = item
        if self._shows_line(self._starts[index], item_height(item)):
            self.refresh()

    def _shows_line(self, line: int, lines: int = 1) -> bool:
        """Whether any of `lines` lines from `line` on is within the lines shown."""
        top = self.scroll_offset.y
        return line < top + self.scrollable_content_region.height and line + lines > top

    def _update_size(self, *, repaint: bool = True) -> None:
        size = Size(self.scrollable_content_region.width, self._lines)
        if size != self.virtual_size:
            set_virtual_size_without_layout(self, size, repaint=repaint)  # only the scrollbar follows
        elif repaint:
            self.refresh()

    def on_resize(self) -> None:
        self._update_size()
        self._drawn.clear()

    # -- drawing

    def _item_at_line(self, line: int) -> tuple[int, int] | None:
        if not 0 <= line < self._lines:
            return None
        index = bisect_right(self._starts, line) - 1
        return index, line - self._starts[index]

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        found = self._item_at_line(self.scroll_offset.y + y)
        if found is None:
            return Strip.blank(width, self.get_visual_style("option-list--option").rich_style)
        index, offset = found
        strips = self._strips(index, width)
        if offset < len(strips):
            return strips[offset]
        return Strip.blank(width, self.get_visual_style("option-list--option").rich_style)

    def _strips(self, index: int, width: int) -> list[Strip]:
        item = self._items[index]
        if isinstance(item, CaseRow):
            if index == self.highlighted:
                kind = "option-list--option-highlighted"
            elif index == self.hovered:
                kind = "option-list--option-hover"
            else:
                kind = ""
        else:
            kind = "option-list--option-disabled"
        style = (
            self.get_visual_style("option-list--option", kind) if kind else self.get_visual_style("option-list--option")
        )
        if self._drawn_generation != theme_generation():  # the rows' colours are the theme's
            self._drawn.clear()
            self._drawn_generation = theme_generation()
        cache_key = (index, item, kind, style, width)
        strips = self._drawn.get(cache_key)
        if strips is None:
            strips = self._draw(index, item, kind, style, width)
            self._drawn[cache_key] = strips
        return strips

    def _draw(self, index: int, item: Item, kind: str, style: VisualStyle, width: int) -> list[Strip]:
        padding = self.get_component_styles("option-list--option").padding
        inner = max(1, width - padding.width)
        if isinstance(item, CaseRow):
            text = case_row_text(item, inner, selected=kind == "option-list--option-highlighted")
        elif isinstance(item, Heading):
            text = file_header_text(
                item.rel, item.error, item.stale, inner, item.count, item.shown, dialect=item.dialect
            )
        else:
            text = Text(item.text, style="dim italic")
        visual: Visual = Content.from_rich_text(text)
        if padding:
            visual = Padding(visual, padding)
        strips = Visual.to_strips(self, visual, width, None, style)
        meta = {"option": index}
        strips = [strip.extend_cell_length(width, style.rich_style).apply_meta(meta) for strip in strips]
        if isinstance(item, Heading) and item.rule:
            rule = self.get_visual_style("option-list--separator")
            strips.insert(0, Strip([Segment("─" * width, rule.rich_style)], width))
        return strips

    def watch_hovered(self) -> None:
        self.refresh()

    # -- the highlight

    def validate_highlighted(self, highlighted: int | None) -> int | None:
        if highlighted is None or not self._items:
            return None
        return max(0, min(highlighted, len(self._items) - 1))

    def watch_highlighted(self, highlighted: int | None) -> None:
        self._on_highlight(highlighted)
        self.scroll_to_highlight()
        self.refresh()

    def scroll_to_highlight(self, top: bool = False) -> None:
        highlighted = self.highlighted
        if highlighted is None or not self.is_mounted or highlighted >= len(self._items):
            return
        # The rows right above a case that are not cases (its file's heading) come into view with it: Home, or
        # moving up to a file's first case, shows which file it is in.
        first = highlighted
        while first > 0 and not isinstance(self._items[first - 1], CaseRow):
            first -= 1
        start = self._starts[first]
        self.scroll_to_region(
            Region(
                0,
                start,
                self.scrollable_content_region.width,
                self._starts[highlighted] + item_height(self._items[highlighted]) - start,
            ),
            force=True,
            animate=False,
            top=top,
            immediate=True,
        )

    def _next_selectable(self, start: int, direction: int) -> int | None:
        index = start
        while 0 <= index < len(self._items):
            if isinstance(self._items[index], CaseRow):
                return index
            index += direction
        return None

    def action_cursor_down(self) -> None:
        if self.highlighted is None:
            self.action_first()
            return
        found = self._next_selectable(self.highlighted + 1, 1)
        self.highlighted = found if found is not None else self._next_selectable(0, 1)

    def action_cursor_up(self) -> None:
        if self.highlighted is None:
            self.action_last()
            return
        found = self._next_selectable(self.highlighted - 1, -1)
        self.highlighted = found if found is not None else self._next_selectable(len(self._items) - 1, -1)

    def action_first(self) -> None:
        self.highlighted = self._next_selectable(0, 1)

    def action_last(self) -> None:
        self.highlighted = self._next_selectable(len(self._items) - 1, -1)

    def _move_page(self, direction: int) -> None:
        if not self._items:
            return
        if self.highlighted is None:
            self.action_first() if direction < 0 else self.action_last()
            return
        height = self.scrollable_content_region.height
        line = max(0, min(self._starts[self.highlighted] + direction * height, self._lines - 1))
        found = self._item_at_line(line)
        if found is None:
            return
        target = self._next_selectable(found[0], direction)
        if target is None:
            target = self._next_selectable(found[0], -direction)
        self.highlighted = target

    def action_page_down(self) -> None:
        self._move_page(1)

    def action_page_up(self) -> None:
        self._move_page(-1)

    def action_select(self) -> None:
        pass  # the highlighted case is shown already

    # -- the mouse

    async def on_click(self, event: events.Click) -> None:
        clicked = event.style.meta.get("option")
        if clicked is not None and self.selectable(clicked):
            self.highlighted = clicked

    def on_mouse_move(self, event: events.MouseMove) -> None:
        self.hovered = event.style.meta.get("option")

    def on_leave(self, _: events.Leave) -> None:
        self.hovered = None


MAX_TYPED = 500  # characters a filter box takes (each key refilters the list: typed input stays bounded)
# A list this long is refiltered once the keys pause, not at each key: keys typed or pasted one by one faster than a
# long list is filtered would queue up behind it (issue 22.19). Shorter lists (a few ms) follow each key.
DEBOUNCE_ROWS = 5_000
FILTER_DEBOUNCE = 0.12  # seconds without a key before a long list is refiltered


class CaseList(Vertical):
    """Filter box + case list. Posts CaseSelected when the highlighted case changes: to `announce` when given
    (the screen's queue, so that the case is drawn in the same frame as the highlight), else as any message."""

    ALLOW_MAXIMIZE = True  # z in the list maximises the list (the screen's action)

    DEFAULT_CSS = (
        f"CaseList {{ width: {WIDTH}; }}"
        + """
    CaseList > Input, CaseList > Input:focus { border: none; height: 1; padding: 0 1; }
    CaseList > Input:focus { background: $boost; }
    CaseList > CaseOptions { height: 1fr; padding: 0; scrollbar-gutter: stable; scrollbar-size-vertical: 1; }
    CaseList > CaseOptions > .option-list--option { padding: 0 1; }
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
        self._counts = (-1, -1)
        self._total = 0
        self._pending_filter: Timer | None = None  # a long list's refilter, waiting for the keys to pause
        self._headings: dict[int, int] = {}  # file number -> index of its heading in the list

    def compose(self) -> ComposeResult:
        yield SearchInput(
            focus_list=self.action_focus_list,
            placeholder=f"{self._filter_key} search: id, rule, flat, warn…",
            id="case-filter",
            max_length=MAX_TYPED,
        )
        yield CaseOptions(self._highlight_changed, id="case-options")

    @property
    def options(self) -> CaseOptions:
        return self.query_one("#case-options", CaseOptions)

    @property
    def filter_input(self) -> Input:
        return self.query_one("#case-filter", Input)

    @property
    def current(self) -> str | None:
        return self._current

    def visible_keys(self) -> list[str]:
        return [item.key for item in self.options.items if isinstance(item, CaseRow)]

    def headings(self) -> list[str]:
        """The file headings listed, as plain text (their first line)."""
        return [
            file_header_text(
                item.rel, item.error, item.stale, 200, item.count, item.shown, dialect=item.dialect
            ).plain.split("\n")[0]
            for item in self.options.items
            if isinstance(item, Heading)
        ]

    def neighbour(self, key: str | None, direction: int) -> str | None:
        """The case listed after `key` (`direction` -1: before it), wrapping round; the first (last) when `key` is
        not listed."""
        options = self.options
        items = options.items
        at = options.index_of(key) if key is not None else None
        if at is None:
            at = -1 if direction > 0 else len(items)
        for step in range(1, len(items) + 1):
            item = items[(at + direction * step) % len(items)]
            if isinstance(item, CaseRow):
                return item.key
        return None

    def set_entries(self, entries: list[FileEntry], *, current: str | None = None) -> None:
        """Replace the rows (after a load or reload), keeping the filter and the highlighted case. Rows only added
        at the end (a load in progress) are appended, not rebuilt: the list fills in at the cost of what is new."""
        old, new = self._entries, tuple(entries)
        show_headers = len(entries) > 1 or any(e.error for e in entries)
        if current is not None:
            self._current = current
        added = self._added_rows(old, new) if show_headers == self._show_headers else None
        self._entries = new
        self._show_headers = show_headers
        if added is None or self.filter_input.value.strip():
            self._rebuild()
        elif added:
            self._append(added)

    @staticmethod
    def _added_rows(old: tuple[FileEntry, ...], new: tuple[FileEntry, ...]) -> list[tuple[int, FileEntry, int]] | None:
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
        if len(same.rows) > len(last.rows) or same.dialect != last.dialect:
            added.append((len(old) - 1, same, len(last.rows)))
        return added + [(len(old) + k, entry, -1) for k, entry in enumerate(new[len(old) :])]

    def _append(self, added: list[tuple[int, FileEntry, int]]) -> None:
        options = self.options
        items: list[Item] = []
        for position, entry, listed in added:
            if self._show_headers:
                number = entry.number if entry.number >= 0 else position
                if listed < 0:
                    self._headings[number] = len(options.items) + len(items)
                    items.append(self._heading(position, entry, rule=bool(options.items) or bool(items)))
                elif number in self._headings:  # its count changed: same height
                    at = self._headings[number]
                    old = options.items[at]
                    if isinstance(old, Heading):
                        options.replace_item(at, self._heading(position, entry, rule=old.rule))
            items.extend(entry.rows[max(0, listed) :])
            self._total += len(entry.rows) - max(0, listed)
        options.append_items(items)
        self._count(self._total, self._total)
        if options.highlighted is None:
            self._rebuild()  # nothing was highlighted (an empty list): highlight the first case

    def _rebuild(self) -> None:
        if self._pending_filter is not None:  # (this rebuild reads the box as it is now)
            self._pending_filter.stop()
            self._pending_filter = None
        query = self.filter_input.value.strip()
        items: list[Item] = []
        self._headings = {}
        shown = 0
        for number, entry in enumerate(self._entries):
            rows = matching(entry.rows, query)
            if self._show_headers:
                if query and not rows:
                    continue
                self._headings[entry.number if entry.number >= 0 else number] = len(items)
                items.append(self._heading(number, entry, len(rows) if query else None, rule=bool(items)))
            items.extend(rows)
            shown += len(rows)
        if query and not shown:
            items.append(Note("no case matches the filter"))
        total = sum(len(entry.rows) for entry in self._entries)
        self._total = total
        self._count(shown if query else total, total)
        options = self.options
        options.border_subtitle = f"{shown} of {total} · esc clears" if query else ""
        self._suppress = True
        try:
            options.set_items(items)
            index = options.index_of(self._current) if self._current is not None else None
            if index is None or not options.selectable(index):
                index = next((n for n, item in enumerate(items) if isinstance(item, CaseRow)), None)
            options.highlighted = index
        finally:
            self._suppress = False
        if index is not None:
            key = items[index].key
            options.scroll_to_highlight()
            if key != self._current:
                self._current = key
                self.post_message(self.CaseSelected(self, key))

    def _count(self, shown: int, total: int) -> None:
        if (shown, total) != self._counts:
            self._counts = (shown, total)
            self.post_message(self.Filtered(shown, total))

    @staticmethod
    def _heading(position: int, entry: FileEntry, shown: int | None = None, *, rule: bool) -> Heading:
        loaded = entry.error is None and bool(entry.dialect)  # read: `tests: []` says (0); refused: no count
        count = len(entry.rows) if entry.rows or loaded else -1
        number = entry.number if entry.number >= 0 else position
        return Heading(number, entry.rel, entry.error, entry.stale, count, shown, entry.dialect, rule)

    def select(self, key: str) -> bool:
        """Highlight the case `key` if it is listed (clearing a filter that hides it). True when CaseSelected
        follows; False when the caller shows the case itself (not listed, or listed again by clearing the filter,
        which rebuilds the list around it silently)."""
        options = self.options
        index = options.index_of(key)
        if index is None:
            if not self.filter_input.value:
                return False
            self.filter_input.value = ""
            self._current = key
            self._rebuild()
            return False
        options.highlighted = index
        options.scroll_to_highlight()
        return True

    def set_width(self, cells: int | None) -> None:
        """Wider than WIDTH to show long ids whole; None: as the stylesheet says (WIDTH, or the whole row when the
        screen is narrow)."""
        self.styles.width = cells

    def action_focus_list(self) -> None:
        self._filter_now()
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
        if self._pending_filter is not None:
            self._pending_filter.stop()
            self._pending_filter = None
        if self._total < DEBOUNCE_ROWS:
            self._rebuild()
        else:
            self._pending_filter = self.set_timer(FILTER_DEBOUNCE, self._filter_now)

    def _filter_now(self) -> None:
        """The refilter a long list was waiting for, at once (the keys paused, or enter or down left the box)."""
        if self._pending_filter is not None:
            self._rebuild()

    @on(Input.Submitted, "#case-filter")
    def _filter_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._filter_now()
        self.options.focus()

    def _highlight_changed(self, index: int | None) -> None:
        if self._suppress or index is None:
            return
        options = self.options
        if not options.selectable(index):
            return
        key = options.item_at(index).key
        if key == self._current:
            return
        self._current = key
        # Straight to whoever was named (nothing between handles it): ahead of the list's repaint request.
        self._announce(self.CaseSelected(self, key))
