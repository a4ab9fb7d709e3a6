"""Widgets of the results view: the summary header and two virtual lists that draw only the visible rows.

The lists use Textual's line API (ScrollView.render_line): a 200 000-result file costs one Strip per visible row,
never a widget per row. They read the per-record summaries of a `ResultsFile` index, never whole records.
Every untrusted string goes into `Text` with styles by span (never markup) after `sanitize`.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import SupportsInt, cast

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Static

from turnlens.formatting.results.index import ResultsFile
from turnlens.formatting.results.queries import DEFAULT_THRESHOLD, VERDICT_ERROR, VERDICT_PASS, V4Totals, row_verdict
from turnlens.formatting.results.record import visible_text
from turnlens.formatting.wording import shorten_apart

from ..theme import generation, palette
from ..untrusted import sanitize_label
from ..widgets.search_input import SearchInput
from .model import (
    DRIFT_DRIFTED,
    DRIFT_EQUAL,
    DRIFT_NOT_FOUND,
    DRIFT_OTHER,
    DRIFT_UNKNOWN,
    CompareHeaderState,
    HeaderState,
)

# The meanings of the results view's colours: the Textual theme gives each a colour (tui/theme.py).
PASS, FAIL, WARN = "success", "error", "warning"
DIM = Style(dim=True)
BAR_WIDTH = 10
# The measures AgentV 4 rows record, each a column when some row has it: (field, column label, cells with the gap).
# The duration is labelled so, as the sort menu names it ("time" is when the row was recorded).
MEASURE_COLUMNS = (("duration", "duration", 9), ("tokens", "tokens", 7), ("cost", "cost", 8))
HISTOGRAM_BLOCKS = " ▁▂▃▄▅▆▇█"

DRIFT_MARKS = {
    DRIFT_UNKNOWN: "  ",
    DRIFT_EQUAL: "= ",
    DRIFT_DRIFTED: "≠ ",
    DRIFT_NOT_FOUND: "? ",
    DRIFT_OTHER: "– ",
}


def ink(meaning: str, *, bold: bool = False, italic: bool = False) -> Style:
    """Text in the colour the current theme gives `meaning`."""
    return palette().text(meaning, bold=bold, italic=italic)


def drift_mark(code: int) -> tuple[str, Style | str]:
    """A list row's drift mark and its style."""
    return DRIFT_MARKS[code], (
        "" if code == DRIFT_UNKNOWN else ink(WARN, bold=True) if code == DRIFT_DRIFTED else "dim"
    )


def score_meaning(score: float | None, threshold: float, passed: bool | None = None) -> str:
    """Passed or failed: the verdict when one is given (AgentV's recorded one), else the score at `threshold`."""
    if score is None:
        return "muted"
    if passed is not None:
        return PASS if passed else FAIL
    return PASS if score >= threshold else FAIL


def score_style(score: float | None, threshold: float, *, bold: bool = False, passed: bool | None = None) -> Style:
    """A score's colour: passed, failed at `threshold` (or as `passed` says), or none."""
    return ink(score_meaning(score, threshold, passed), bold=bold)


def score_bar(score: float | None, threshold: float, width: int = BAR_WIDTH, passed: bool | None = None) -> Text:
    """A horizontal bar of `width` cells, eighths precision, coloured pass/fail at `threshold` (or as `passed`
    says)."""
    if score is None:
        return Text("╌" * width, style="dim", end="")
    clamped = min(1.0, max(0.0, score))
    eighths = round(clamped * width * 8)
    full, part = divmod(eighths, 8)
    bar = "█" * full + ("▏▎▍▌▋▊▉"[part - 1] if part else "")
    text = Text(bar, style=score_style(score, threshold, passed=passed), end="")
    text.append("·" * (width - len(bar)), style=ink("track"))
    return text


def histogram_text(histogram: list[int], threshold: float) -> Text:
    """Ten bins over [0, 1], each a block scaled to the fullest bin and its count, red below the threshold, green
    above; each bin is labelled by its lower bound (`.3 ▃5` = 5 scores in [0.3, 0.4))."""
    top = max(histogram) if histogram else 0
    text = Text("scores ", style="dim", end="")
    for bin_index, count in enumerate(histogram):
        level = 0 if top == 0 else math.ceil(count / top * 8)
        colour = ink(PASS if (bin_index + 1) / 10 > threshold else FAIL)
        if bin_index:
            text.append("  ")  # two spaces between bins, one between a bin's label and its bar: read as pairs
        text.append(f".{bin_index} " if bin_index else "0 ", style="dim")
        text.append(HISTOGRAM_BLOCKS[max(level, 1)], style=colour if count else ink("track"))
        text.append(f"{count:,}", style=colour if count else ink("track"))
    text.append(" ≤1", style="dim")
    return text


def v4_text(totals: V4Totals | None, *, with_totals: bool = True) -> Text:
    """AgentV 4 rows: how many ran ok, failed on quality, failed to execute (and the recorded totals)."""
    text = Text(end="")
    if totals is None or not totals.rows:
        return text
    ok, quality, execution = totals.statuses[0], totals.statuses[1], totals.statuses[2]
    text.append(f"ok {ok:,}", style=ink(PASS) if ok else "dim")
    text.append(" · ", style="dim")
    text.append(f"quality failure {quality:,}", style=ink(FAIL, bold=True) if quality else "dim")
    text.append(" · ", style="dim")
    text.append(f"execution error {execution:,}", style=ink(FAIL, bold=True) if execution else "dim")
    if with_totals:
        text.append_text(v4_totals_text(totals))
    return text


def v4_totals_text(totals: V4Totals) -> Text:
    """The recorded duration, tokens and cost of the AgentV 4 rows, in total."""
    text = Text(end="")
    parts = []
    if totals.duration_ms:
        parts.append(format_duration(totals.duration_ms))
    if totals.tokens:
        parts.append(format_tokens(totals.tokens) + " tokens")
    if totals.cost_usd:
        parts.append(format_cost(totals.cost_usd))
    if parts:
        text.append("  total ", style="dim")
        text.append(" ".join(parts), style=ink("measure"))
    return text


def _time_label(seconds: float) -> str:
    """UTC month-day and time of day, as recorded (results come from one machine; the day matters most)."""
    if math.isnan(seconds):
        return "—".ljust(14)
    return time.strftime("%m-%d %H:%M:%S", time.gmtime(seconds))


def _fit(text: str, width: int) -> str:
    """One cell-width-naive column: newlines and tabs flattened, cut with an ellipsis, padded."""
    text = text.replace("\n", " ").replace("\t", " ")
    if width <= 0:
        return ""
    if len(text) > width:
        return text[: max(0, width - 1)] + "…"
    return text.ljust(width)


def _shorten_path(path: str, limit: int = 80) -> str:
    """Long paths lose their beginning (the file name is what matters)."""
    return path if len(path) <= limit else "…" + path[-(limit - 1) :]


def append_fitting(text: Text, parts: list[tuple[int, Text]], width: int) -> None:
    """Append to `text`'s last row the `parts` (priority, part; 0 first) that fit whole in `width` cells (0: all),
    in their order: a part that does not fit is left out, never cut mid-word (`m…`, `(…` at 80 columns)."""
    room = width - cell_len(text.plain.rsplit("\n", 1)[-1]) if width > 0 else None
    kept = set()
    for index, (_priority, part) in sorted(enumerate(parts), key=lambda item: item[1][0]):
        if room is None or part.cell_len <= room:
            kept.add(index)
            room = None if room is None else room - part.cell_len
    for index, (_priority, part) in enumerate(parts):
        if index in kept:
            text.append_text(part)


def header_text(state: HeaderState, width: int = 0) -> Text:
    """The four rows of the results header; `width` (0: any) fits them: the path is shortened to keep the run's
    position beside it, and of the figures after AgentV's own counts those that do not fit are left out whole
    (turnlens's totals and mean first), not cut mid-word."""
    text = Text(end="")
    # the indexing state first: on a narrow terminal the path is what gets cut
    progress = state.progress
    if progress is not None and not progress.done:
        filled = int(progress.fraction * 20)
        text.append("indexing ", style=ink(WARN, bold=True))
        text.append("▰" * filled + "▱" * (20 - filled), style=ink(WARN))
        text.append(f" {progress.fraction:4.0%}  ", style=ink(WARN))
    elif progress is not None:
        # the time only when it is worth saying (and so that small files draw the same on every run)
        # (only for big files: a small one indexes in milliseconds, however busy the machine made it look)
        took = f" in {progress.elapsed:.1f}s" if progress.elapsed >= 0.5 and progress.size >= 8 * 1024 * 1024 else ""
        text.append(f"indexed{took}  ", style="dim")
    position = f"  ({state.run_position})" if state.run_position else ""
    limit = 80 if width <= 0 else max(20, min(80, width - text.cell_len - len(position)))
    text.append(_shorten_path(visible_text(state.title), limit), style="bold")
    if position:
        text.append(position, style="dim")
    # (the benchmark only with room to say something of it: b shows it whole)
    if state.benchmark and (width <= 0 or width - text.cell_len >= len("  benchmark ") + 12):
        text.append("  benchmark ", style="dim")
        text.append(visible_text(state.benchmark))
    stats = state.stats
    text.append("\n")
    if stats is None:
        text.append("no results yet", style="dim")
        return text
    # AgentV's own figures first (the pass figure over its verdicts, its status counts), turnlens's after them:
    # on a narrow terminal the line is cut from the end
    text.append(f"{stats.count:,}", style="bold")
    text.append(" results  ")
    text.append("pass ", style="dim")
    rate = stats.pass_rate
    text.append("—" if rate is None else f"{rate:.0%}", style=ink(PASS if rate and rate >= 0.5 else FAIL, bold=True))
    text.append(f" at ≥{state.threshold:.2f}", style="dim")
    if state.threshold_source and state.threshold_source != "AgentV's default":
        text.append(f" ({visible_text(state.threshold_source)})", style="dim")
    # AgentV 4's status words only when every row recorded its status: the counts are the verdicts either way
    # (queries.verdict_of), but rows without one (0.15-era rows mixed in, trimmed baselines) were judged here, at
    # the threshold, and calling them "ok" would say AgentV recorded it
    if stats.v4 is not None and stats.v4.rows == stats.count:
        text.append("  ")
        text.append_text(v4_text(stats.v4, with_totals=False))
    else:
        text.append(f" ({stats.passed:,} pass, {stats.failed:,} fail)", style="dim")
        text.append("  ")
        text.append(
            f"{stats.errors:,} error{'' if stats.errors == 1 else 's'}",
            style=ink(FAIL, bold=True) if stats.errors else "dim",
        )
    # the figures after them, in the order drawn; kept by priority while they fit (the warnings first)
    mean = Text(end="")
    mean.append("  mean ", style="dim")
    mean.append("—" if stats.mean is None else f"{stats.mean:.2f}", style="bold")
    figures: list[tuple[int, Text]] = [(2, mean)]
    if stats.other_threshold:
        other = f"  {stats.other_threshold:,} verdict{'s' if stats.other_threshold != 1 else ''} recorded at another"
        figures.append((1, Text(other + " threshold", style=ink(WARN), end="")))
    if state.problems:
        figures.append((0, Text(f"  {state.problems} broken", style=ink(FAIL, bold=True), end="")))
    if stats.v4 is not None:
        figures.append((3, v4_totals_text(stats.v4)))
    append_fitting(text, figures, width)
    text.append("\n")
    text.append_text(histogram_text(stats.histogram, state.threshold))
    text.append("\n")
    text.append("sort ", style="dim")
    text.append(f"{state.sort} {'↓' if state.reverse else '↑'}", style="bold")
    text.append("  show ", style="dim")
    text.append(state.filter, style="bold")
    if state.query:
        text.append("  search ", style="dim")
        text.append(visible_text(state.query), style="bold")
    if state.text_query:
        text.append("  text ", style="dim")
        text.append(visible_text(state.text_query), style=ink(WARN, bold=True))
    text.append(f"  {state.shown:,} shown", style="dim")
    if state.drift:
        text.append("  drift ", style="dim")
        parts = [(name, count) for name, count in state.drift.items() if count]
        for n, (name, count) in enumerate(parts):
            if n:
                text.append(" · ", style="dim")
            text.append(f"{count:,} {name}", style=ink(WARN, bold=True) if name == "drifted" else "dim")
        if state.drift.get("eval not found") and not state.evals_given:
            text.append("  (--evals PATH names the eval files)", style="dim italic")
    elif state.drift_note:
        text.append("  drift: " + visible_text(state.drift_note), style="dim")
        if state.drift_note.startswith("no eval files") and not state.evals_given:
            text.append(" (--evals PATH names them)", style="dim italic")
    return text


class ResultsHeader(Widget):
    """Counts, mean score, pass rate at the threshold, errors, score histogram, and the current sort/filter."""

    DEFAULT_CSS = """
    ResultsHeader { height: 4; padding: 0 1; background: $panel; text-wrap: nowrap; text-overflow: ellipsis; }
    """

    state: reactive[HeaderState | None] = reactive(None, layout=False)

    def show(self, state: HeaderState) -> None:
        """Show `state` (drawn again even when equal: the theme may have changed)."""
        self.state = state
        self.refresh()

    def render(self) -> Text:
        if self.state is None:
            return Text("opening…", style="dim")
        text = header_text(self.state, self.content_size.width)
        text.no_wrap = True  # four lines, always: cut a line rather than push the next one out
        text.overflow = "ellipsis"
        return text


# Lines a list keeps as drawn (a few screens' worth), forgotten all at once past that.
DRAWN_LINES = 1024


class VirtualList(ScrollView, can_focus=True):
    """A keyboard/mouse list over `rows` (any sequence) that renders only visible lines. Subclasses draw rows."""

    BINDINGS = [
        Binding("up,k", "cursor(-1)", "Up", show=False),
        Binding("down,j", "cursor(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home,g", "jump(0)", "First", show=False),
        Binding("end,G", "jump(-1)", "Last", show=False),
        Binding("enter", "select", "Open", show=True),
    ]
    COMPONENT_CLASSES = {"virtual-list--cursor"}
    DEFAULT_CSS = """
    VirtualList { height: 1fr; background: $surface; }
    VirtualList > .virtual-list--cursor { background: $accent 30%; }
    VirtualList:focus > .virtual-list--cursor { background: $accent 60%; }
    """

    cursor = reactive(0, always_update=True)

    class Highlighted(Message):
        def __init__(self, list_: VirtualList, row: object) -> None:
            super().__init__()
            self.list = list_
            self.row = row

        @property
        def control(self) -> VirtualList:
            return self.list

    class Selected(Highlighted):
        """Enter or a click on a row: `position` is where it is listed."""

        def __init__(self, list_: VirtualList, row: object, position: int) -> None:
            super().__init__(list_, row)
            self.position = position

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.rows: Sequence[object] = ()  # row values, as the owner keeps them
        self._user_moved = False
        self._empty_note: Text | None = None  # said when there are no rows (e.g. a filter that matches none)
        self._drawn: dict[object, Strip] = {}  # rows' lines as drawn, by row and what else they show (row_key)

    # -- data down -------------------------------------------------------------------------------------------

    def set_rows(self, rows: Sequence[object], keep: object = None) -> None:
        """Show `rows`; keep the cursor on `keep` (a row value) when it is still there, else clamp it."""
        previous = self.current if self._user_moved else None  # untouched lists stay at the top
        self.rows = rows
        self.virtual_size = Size(self.size.width, len(rows))
        target = keep if keep is not None else previous
        cursor = min(self.cursor, max(0, len(rows) - 1))
        if target is not None and (cursor >= len(rows) or rows[cursor] != target):
            found = self._position_of(target)
            cursor = found if found is not None else 0  # the row went away (search, filter): start at the top
        self.cursor = cursor
        self.refresh()

    def set_empty_note(self, note: str) -> None:
        """What an empty list says ('' for nothing)."""
        new = Text(note, style="dim italic") if note else None
        if new != self._empty_note:
            self._empty_note = new
            self.refresh()

    @property
    def empty_note(self) -> Text | None:
        return self._empty_note

    def reset(self) -> None:
        """Empty, cursor at the top, following nothing (another run is about to be shown)."""
        self._user_moved = False
        self._drawn.clear()
        self.set_rows(range(0))
        self.cursor = 0

    def _position_of(self, row: object) -> int | None:
        if isinstance(self.rows, range):
            return row - self.rows.start if isinstance(row, int) and row in self.rows else None
        try:
            return list(self.rows).index(row) if len(self.rows) < 2_000_000 else None
        except ValueError:
            return None

    @property
    def current(self) -> object:
        if 0 <= self.cursor < len(self.rows):
            return self.rows[self.cursor]
        return None

    # -- drawing ---------------------------------------------------------------------------------------------

    def render_row(self, row: object, width: int) -> Text:
        raise NotImplementedError

    def row_key(self, row: object) -> object:
        """Everything but the row itself, the width and the list's style that drawing `row` depends on (hashable),
        to keep its drawn line for the next frames; None: drawn again each time."""
        return None

    def render_line(self, y: int) -> Strip:
        scroll_y = self.scroll_offset.y
        position = scroll_y + y
        width = self.scrollable_content_region.width
        base = self.rich_style
        if position >= len(self.rows):
            if not self.rows and self._empty_note is not None and position == 1:
                note = self._empty_note.copy()
                note.truncate(width, overflow="ellipsis", pad=True)
                return Strip(list(note.render(self.app.console))).adjust_cell_length(width, base).apply_style(base)
            return Strip.blank(width, base)
        row = self.rows[position]
        # a row's line is drawn once for as long as what it shows stays the same: the list is drawn again for each
        # new order while a big run is indexed, mostly with the rows it showed (~0.3 ms a row drawn); the cursor's
        # row (its style follows focus) is drawn each time
        key = None
        if position != self.cursor:
            extra = self.row_key(row)
            if extra is not None:
                key = (row, width, base, extra)
                drawn = self._drawn.get(key)
                if drawn is not None:
                    return drawn
        text = self.render_row(row, width)
        text.no_wrap = True
        text.overflow = "ellipsis"
        text.truncate(width, overflow="ellipsis", pad=True)
        segments = list(text.render(self.app.console))
        if position == self.cursor:
            # the cursor's background over the list's (a plain apply_style would put it under, unseen)
            base = base + self.get_component_rich_style("virtual-list--cursor")
        strip = Strip(segments).adjust_cell_length(width, base).apply_style(base)
        if key is not None:
            if len(self._drawn) >= DRAWN_LINES:
                self._drawn.clear()
            self._drawn[key] = strip
        return strip

    def on_resize(self, event: events.Resize) -> None:
        self.virtual_size = Size(event.size.width, len(self.rows))

    # -- behaviour -------------------------------------------------------------------------------------------

    def watch_cursor(self, old: int, new: int) -> None:
        self._scroll_cursor_into_view()
        self.refresh()
        if self.current is not None:
            self.post_message(self.Highlighted(self, self.current))

    def _scroll_cursor_into_view(self) -> None:
        height = self.scrollable_content_region.height
        top = self.scroll_offset.y
        if height <= 0:
            return
        if self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False, immediate=True)
        elif self.cursor >= top + height:
            self.scroll_to(y=self.cursor - height + 1, animate=False, immediate=True)

    def move_to(self, position: int) -> None:
        """Put the cursor on `position` as the user asked: from now on it follows that row when rows change."""
        if self.rows:
            self._user_moved = True
            self.cursor = max(0, min(len(self.rows) - 1, position))

    def action_cursor(self, delta: int) -> None:
        self.move_to(self.cursor + delta)

    def action_page(self, direction: int) -> None:
        self.action_cursor(direction * max(1, self.scrollable_content_region.height - 1))

    def action_jump(self, where: int) -> None:
        self.move_to(len(self.rows) - 1 if where < 0 else 0)

    def select_at(self, position: int) -> None:
        """Move to `position` and open it, as enter there would."""
        self.move_to(position)
        self.action_select()

    def action_select(self) -> None:
        if self.current is not None:
            self.post_message(self.Selected(self, self.current, self.cursor))

    def on_click(self, event: events.Click) -> None:
        position = self.scroll_offset.y + event.y
        if 0 <= position < len(self.rows):
            already = position == self.cursor
            self.move_to(position)
            if already or event.chain > 1:
                self.action_select()


@dataclass(frozen=True)
class ListLook:
    """How the result list draws its rows, besides the rows themselves."""

    threshold: float = DEFAULT_THRESHOLD
    drift_marks: bytearray | None = None  # one drift code per record, once drift is being checked
    show_time: bool = False  # a time column, when the list is sorted by time


class ResultList(VirtualList):
    """Results of one run: error mark, score bar, score, eval id, target, dataset, drift mark."""

    def __init__(self, results: ResultsFile, *, threshold: float = DEFAULT_THRESHOLD, id: str | None = None) -> None:
        super().__init__(id=id)
        self.results = results
        self.look = ListLook(threshold)

    def set_look(self, look: ListLook) -> None:
        if look != self.look:
            self.look = look
        self.refresh()  # drift marks are filled in place: drawn again even when the look is the same

    def show_results(self, results: ResultsFile) -> None:
        """Another run (or the same file read again): empty, at the top, until its rows are set."""
        self.results = results
        self.reset()

    def row_key(self, row: object) -> object:
        index = int(cast(SupportsInt, row))
        results, look = self.results, self.look
        marks = look.drift_marks
        mark = -1 if marks is None else marks[index] if index < len(marks) else DRIFT_UNKNOWN
        recorded = frozenset(results.recorded)
        return (results.revision, generation(), look.threshold, look.show_time, mark, recorded)

    def _widths(self, width: int) -> tuple[int, int]:
        """The id column's width and the target's and suite's, for a line of `width` cells: what the fixed
        columns (mark, bar, score, drift, time, measures) leave."""
        fixed = 3 + BAR_WIDTH + 1 + 4 + 1
        if self.look.drift_marks is not None:
            fixed += 2
        if self.look.show_time:
            fixed += 15
        recorded = self.results.recorded
        fixed += sum(cells for name, _, cells in MEASURE_COLUMNS if name in recorded)
        rest = max(0, width - fixed - 1)
        side = min(22, max(8, rest // 5))
        return max(8, rest - 2 * side - 2), side

    def column_header(self, width: int) -> Text:
        """The column names above the rows, aligned with them."""
        text = Text(end="")
        text.append("   " + "score".ljust(BAR_WIDTH + 1 + 4) + " ")
        if self.look.drift_marks is not None:
            text.append("≠ ")
        if self.look.show_time:
            text.append("time (UTC)".ljust(15))  # when the row was recorded, as _time_label draws it
        recorded = self.results.recorded
        for name, label, cells in MEASURE_COLUMNS:
            if name in recorded:
                text.append(label.rjust(cells - 1) + " ")
        id_width, side = self._widths(width)
        v4_rows, rows = self.results.v4_count, self.results.count
        # a file mixing 0.15-era rows (eval_id) with AgentV 4 rows (test_id) lists both kinds of id
        text.append(_fit("eval id" if not v4_rows else "test id" if v4_rows >= rows else "id", id_width) + " ")
        text.append(_fit("target", side) + " ")
        text.append(_fit("suite" if self.results.v4_count else "dataset", side))
        return text

    def render_row(self, row: object, width: int) -> Text:
        index = int(cast(SupportsInt, row))
        results = self.results
        look = self.look
        threshold = look.threshold
        score = results.score_of(index)
        verdict = row_verdict(results, index, threshold)  # AgentV's recorded verdict where the row has one
        error, passed = verdict == VERDICT_ERROR, verdict == VERDICT_PASS
        text = Text(end="")
        # one mark per verdict, none shared: ✓ passed, ✗ failed, ! the run failed (not judged)
        if error:
            text.append(" ! ", style=ink(FAIL, bold=True))
        elif passed:
            text.append(" ✓ ", style=ink(PASS))
        else:
            text.append(" ✗ ", style=ink(FAIL))
        text.append_text(score_bar(score, threshold, passed=passed))
        text.append(" ")
        if error:
            text.append(" err", style=ink(FAIL, bold=True))
        else:
            shown = "   —" if score is None else f"{score:4.2f}"
            text.append(shown, style=score_style(score, threshold, passed=passed))
        text.append(" ")
        marks = look.drift_marks
        if marks is not None:  # rows that arrived after the check get the blank mark: columns stay put
            mark, style = drift_mark(marks[index] if index < len(marks) else DRIFT_UNKNOWN)
            text.append(mark, style=style)
        if look.show_time:
            text.append(_time_label(results.timestamps[index]) + " ", style=ink("measure"))
        _measures_into(text, results, index)
        id_width, side = self._widths(width)
        eval_id = results.eval_ids[index] or f"(no id, line {results.lines[index]})"
        text.append(_fit(sanitize_label(eval_id), id_width), style="bold" if not passed else "")
        text.append(" ")
        text.append(_fit(visible_text(results.target_of(index)), side), style=ink("label"))
        text.append(" ")
        text.append(_fit(visible_text(results.dataset_of(index)), side), style="dim")
        return text


def format_duration(ms: float) -> str:
    if math.isnan(ms):
        return ""
    seconds = ms / 1000
    if seconds < 10:
        return f"{seconds:.1f}s"
    if seconds < 600:
        return f"{seconds:.0f}s"
    return f"{seconds / 60:.0f}m"


def format_tokens(count: float) -> str:
    if math.isnan(count):
        return ""
    if count < 1000:
        return f"{count:.0f}"
    if count < 1_000_000:
        return f"{count / 1000:.1f}k"
    return f"{count / 1_000_000:.1f}M"


def format_cost(usd: float) -> str:
    if math.isnan(usd):
        return ""
    return f"${usd:.4f}" if usd < 1 else f"${usd:.2f}"


def _measures_into(text: Text, results: ResultsFile, index: int) -> None:
    """Duration, tokens and cost columns, each only when some row of the run recorded it."""
    recorded = results.recorded
    if not recorded:
        return
    cells = {name: width - 1 for name, _, width in MEASURE_COLUMNS}
    if "duration" in recorded:
        text.append(format_duration(results.durations[index]).rjust(cells["duration"]) + " ", style=ink("measure"))
    if "tokens" in recorded:
        text.append(format_tokens(results.tokens[index]).rjust(cells["tokens"]) + " ", style="dim")
    if "cost" in recorded:
        text.append(format_cost(results.costs[index]).rjust(cells["cost"]) + " ", style="dim")


# A compared pair's outcome: (meaning, bold); ties are dim.
STATUS_MEANINGS = {
    "loss": (FAIL, True),
    "only in A": (WARN, False),
    "only in B": (WARN, False),
    "win": (PASS, True),
}


def status_style(status: str) -> Style | str:
    if status == "tie":
        return "dim"
    meaning = STATUS_MEANINGS.get(status)
    return ink(meaning[0], bold=meaning[1]) if meaning else ""


class CompareList(VirtualList):
    """Paired results of two runs: outcome, score A, score B, delta, test id."""

    def __init__(self, *, threshold: float = DEFAULT_THRESHOLD, id: str | None = None) -> None:
        super().__init__(id=id)
        self.threshold = threshold

    def render_row(self, row: object, width: int) -> Text:
        from turnlens.formatting.results.compare import CompareRow  # here: a run's list, the first frame, needs none

        assert isinstance(row, CompareRow)
        text = Text(end="")
        text.append(f" {row.status:<10} ", style=status_style(row.status))
        for index, score, error in ((row.a, row.score_a, row.error_a), (row.b, row.score_b, row.error_b)):
            if index is None:  # not in this run: said in words, not with a mark that means something else
                text.append("not run".ljust(BAR_WIDTH + 6), style=Style(dim=True, italic=True))
                continue
            text.append_text(score_bar(score, self.threshold, BAR_WIDTH))
            text.append(
                " err " if error else ("  —  " if score is None else f" {score:4.2f}"),
                style=ink(FAIL, bold=True) if error else score_style(score, self.threshold),
            )
            text.append(" ")
        delta = row.delta
        if delta is None:
            text.append("      ")
        else:
            text.append(f"{delta:+5.2f} ", style=ink(PASS if delta > 0 else FAIL) if row.changed else "dim")
        text.append(" ")
        rest = max(8, width - text.cell_len - 1)
        text.append(_fit(visible_text(row.key), rest), style="bold" if row.changed else "")
        return text


def _signed(value: float | None) -> str:
    return "—" if value is None else f"{value:+.3f}"


def compare_header_text(state: CompareHeaderState, width: int = 0) -> Text:
    """The header's three rows; `width` (cells, 0: any) fits the two runs' names on the first row, shortened
    where they are the same so that what tells them apart stays."""
    counts, mean_a, mean_b = state.counts, state.mean_a, state.mean_b
    shown, query, changed_only, progress = state.shown, state.query, state.changed_only, state.progress
    paired_by, warning = state.paired_by, state.warning
    name_a, name_b = visible_text(state.name_a), visible_text(state.name_b)
    arrow, progress_text = "  →  ", f"  {progress}" if progress else ""
    if width > 0:
        room = width - len("A ") - len(arrow) - len("B ") - len(progress_text)
        name_a, name_b = shorten_apart(name_a, name_b, max(2, room))
    text = Text(end="")
    text.append("A ", style="dim")
    text.append(name_a, style="bold")
    text.append(arrow, style="dim")
    text.append("B ", style="dim")
    text.append(name_b, style="bold")
    if progress_text:
        text.append(progress_text, style=ink(WARN, bold=True))
    text.append("\n")
    if counts:
        # as agentv compare says it: W wins · L losses · T ties · mean Δ · g
        wins, losses, ties = counts.get("win", 0), counts.get("loss", 0), counts.get("tie", 0)
        parts = [
            (f"{wins} win{'' if wins == 1 else 's'}", status_style("win") if wins else "dim"),
            (f"{losses} loss{'' if losses == 1 else 'es'}", status_style("loss") if losses else "dim"),
            (f"{ties} tie{'' if ties == 1 else 's'}", "dim"),
            (
                f"mean Δ {_signed(state.mean_delta)}",
                ink(PASS if (state.mean_delta or 0) > 0 else FAIL) if state.mean_delta else "bold",
            ),
            (f"g {_signed(state.mean_gain)}", "bold"),
        ]
        for n, (part, style) in enumerate(parts):
            if n:
                text.append(" · ", style="dim")
            text.append(part, style=style)
        # then, while they fit whole: the warning, the tests of one run only, the means, the legend
        figures = [
            (1, Text(f"  {counts[status]} {status}", style=status_style(status), end=""))
            for status in ("only in A", "only in B")
            if counts.get(status)
        ]
        figures.append((3, Text(f"  (win/loss at |Δ| ≥ {state.delta:g})", style="dim", end="")))
        means = Text(end="")
        means.append("  mean ", style="dim")
        means.append("—" if mean_a is None else f"{mean_a:.2f}", style="bold")
        means.append(" → ", style="dim")
        means.append("—" if mean_b is None else f"{mean_b:.2f}", style="bold")
        figures.append((2, means))
        unscored = sum(state.unscored)
        if unscored:
            figures.append((0, Text(f"  {unscored} without a score, not compared", style=ink(WARN), end="")))
        append_fitting(text, figures, width)
    text.append("\n")
    if warning:  # first: at 80 columns, after the rest of the row, it was cut
        text.append(visible_text(warning) + "  ", style=ink(WARN, bold=True))
    text.append("show ", style="dim")
    text.append("changed" if changed_only else "all", style="bold")
    if query:
        text.append("  search ", style="dim")
        text.append(visible_text(query), style="bold")
    rest = [(0, Text(f"  {shown:,} shown", style="dim", end=""))]
    if paired_by:
        rest.append((1, Text(f"  paired by {paired_by}", style="dim", end="")))
    append_fitting(text, rest, width)
    return text


class CompareHeader(Widget):
    """The two runs' names, mean scores and counts by status, and what is shown."""

    DEFAULT_CSS = """
    CompareHeader { height: 3; padding: 0 1; background: $panel; text-wrap: nowrap; text-overflow: ellipsis; }
    """

    state: reactive[CompareHeaderState | None] = reactive(None, layout=False)

    def show(self, state: CompareHeaderState) -> None:
        """Show `state` (drawn again even when equal: the theme may have changed)."""
        self.state = state
        self.refresh()

    def render(self) -> Text:
        if self.state is None:
            return Text("indexing both runs…", style="dim")
        text = compare_header_text(self.state, self.content_size.width)
        text.no_wrap = True
        text.overflow = "ellipsis"
        return text


class ProblemsBar(Static):
    """The first problems met reading the runs (a missing file, broken lines), hidden when there are none."""

    DEFAULT_CSS = """
    ProblemsBar { display: none; height: auto; max-height: 4; padding: 0 1; background: $error 30%; }
    ProblemsBar.-visible { display: block; }
    """

    SHOWN = 3

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, markup=False)

    def show_problems(self, problems: Sequence[object], total: int) -> None:
        """The first few of `problems` (their text made visible), and how many more of `total` there are."""
        if not problems:
            self.set_class(False, "-visible")
            return
        text = Text(end="")
        for n, problem in enumerate(problems[: self.SHOWN]):
            if n:
                text.append("\n")
            text.append("⚠ ", style="bold")
            text.append(visible_text(str(problem))[:300])
        if total > self.SHOWN:
            text.append(f"\n… and {total - self.SHOWN:,} more problems; the other lines are shown", style="italic")
        self.update(text)
        self.set_class(True, "-visible")


MAX_TYPED = 500  # characters a search box takes


class SearchBox(SearchInput):
    """A search field shown on demand: `open` shows and focuses it, `close` empties and hides it; enter gives the
    focus to the list (`focus_list`). Its border subtitle says what a search of a large file is doing."""

    DEFAULT_CSS = """
    SearchBox { display: none; height: 3; border: tall $accent; }
    SearchBox.-visible { display: block; }
    """

    def __init__(self, placeholder: str, *, focus_list: Callable[[], object], id: str | None = None) -> None:
        # (typed input stays bounded)
        super().__init__(focus_list=focus_list, placeholder=placeholder, id=id, max_length=MAX_TYPED)

    @property
    def is_open(self) -> bool:
        return self.has_class("-visible")

    def open(self, note: str = "") -> None:
        self.add_class("-visible")
        if note:
            self.border_subtitle = note
        self.screen.set_focus(self)  # (at once: actions.text_box_keys)

    def close(self) -> None:
        self.border_subtitle = ""
        self.value = ""
        self.remove_class("-visible")

    def note(self, text: str) -> None:
        self.border_subtitle = text
