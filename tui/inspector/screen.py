"""The inspector screen: case list on the left, the selected case's panes on the right, live re-render."""

from __future__ import annotations

import os
import time
from collections.abc import Awaitable, Callable
from contextlib import AbstractContextManager, nullcontext
from typing import TYPE_CHECKING, Any

from rich.cells import cell_len
from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.reactive import Reactive
from textual.theme import Theme
from textual.timer import Timer
from textual.widgets import Static

from turnlens.formatting import gcpause
from turnlens.formatting.memlimit import limit_hit
from turnlens.formatting.model import EvalCase, FormattedCase
from turnlens.formatting.prompts import highlight
from turnlens.formatting.sanitize import sanitize

from .. import render
from ..actions import Action, bindings, bound_keys, help_sections, key_of, quit_action, table_commands, text_box_keys
from ..loading import stopped_note
from ..navigation import OpenLatestResult
from ..rows import CaseRow, FileEntry
from ..session import Session, installed_sample
from ..textual_compat import FirstResumeKeepsStyles, TitleRepaintedHeader
from ..theme import generation as theme_generation
from ..theme import use_theme
from ..widgets import case_list
from ..widgets.banner import Banner
from ..widgets.case_list import CaseList, CaseOptions
from ..widgets.case_panes import CasePanes
from ..widgets.chip import Chip
from ..widgets.footer import FittingFooter
from ..widgets.pane import Pane
from ..widgets.toolbar import Toolbar, chip_cells
from .loader import CaseLoader, in_background
from .model import MODES, PROFILES, InspectorModel
from .prerender import PRERENDER_DELAY, Prerenderer
from .views import (
    PANES,
    CaseViews,
    banner_text,
    chip_texts,
    empty_state,
    latest_result_text,
    long_lived_allocations,
)
from .watcher import FileWatcher

if TYPE_CHECKING:
    from textual.command import Provider

    from turnlens.formatting.results.latest import LatestIndex, LatestResult

CASE_LIST_WIDTH = case_list.WIDTH
CASE_LIST_CHROME = 6  # the list's border, scrollbar and option padding
MIN_PANE_TEXT = 30  # side by side, each of the three pane columns keeps at least this many cells of text
PANE_CHROME = 4  # a pane's border, padding and scrollbar
GRID_COLUMNS = 3
SUBTITLE_EVERY = 0.5  # seconds between updates of the subtitle's count while loading


MIN_STACKED_TEXT = 56  # the case list stays beside the stacked panes while they keep this many cells of text


def label_width(label: str) -> int:
    """The cells an id takes in the list: its length when it is printable ASCII (cell_len measured 50,000 ids in
    ~80 ms of the event loop, this in ~10)."""
    return len(label) if label.isascii() and label.isprintable() else cell_len(label)


def is_narrow(width: int, list_width: int = CASE_LIST_WIDTH) -> bool:
    """Stack the panes when three columns beside the list would be too narrow to read: 140 columns or more with
    the standard list are wide."""
    return (width - list_width) // GRID_COLUMNS - PANE_CHROME < MIN_PANE_TEXT


def list_on_top(width: int, list_width: int = CASE_LIST_WIDTH) -> bool:
    """Put the case list above the stacked panes (it keeps its full height beside them from 98 columns on)."""
    return width - list_width - PANE_CHROME < MIN_STACKED_TEXT


# The toolbar's chips and the action each runs when clicked.
def _suite_name(loaded: Any) -> str | None:
    """The `name:` of a loaded eval file's suite (what a run names its tests' suite), when it has one."""
    return getattr(loaded.good, "suite_name", None)


CHIPS = {
    "mode-chip": "toggle_mode",
    "profile-chip": "toggle_profile",
    "evaluator-chip": "evaluator",
    "diff-chip": "profile_diff",
}

# Keys the list and the panes handle themselves (their BINDINGS), as the help names them.
_LIST_UP_DOWN = bound_keys(CaseOptions.BINDINGS, "cursor_up", "cursor_down")
_LIST_ENDS = bound_keys(CaseOptions.BINDINGS, "first", "last")
_PANE_UP_DOWN = bound_keys(Pane.BINDINGS, "scroll_up", "scroll_down")
_PANE_ENDS = bound_keys(Pane.BINDINGS, "scroll_home", "scroll_end")
_PANE_NAMES = ", ".join(title.replace(" as written", "") for _id, title in PANES)

# The inspector's keys, footer, command palette and help, in one table (tui/actions.py). The footer shows the rows
# with a `footer` label in table order: the ones that must survive 80 columns come first.
INSPECTOR_ACTIONS: tuple[Action, ...] = (
    Action("", "", "Choose a case in the list (or click it).", display=f"↑ ↓  {_LIST_UP_DOWN}", section="Cases"),
    Action(
        "", "", "First / last case in the list; pgup pgdn a page.", display=f"home end  {_LIST_ENDS}", section="Cases"
    ),
    Action("right_square_bracket", "step(1)", "Show the next case in the list.", title="Next case", section="Cases"),
    Action(
        "left_square_bracket",
        "step(-1)",
        "Show the previous case in the list.",
        title="Previous case",
        section="Cases",
    ),
    Action("colon", "jump", "Jump to a case by id.", footer="Jump", rank=2, title="Jump to case…", section="Cases"),
    Action(
        "slash",
        "focus_filter",
        "Search as you type: the list keeps the cases whose id, rule or marks match (flat, markers, warn, "
        "skipped), as / does in the results view; esc in the list clears it.",
        footer="Search",
        rank=1,
        title="Search cases",
        section="Cases",
        opens_text_box=True,
    ),
    Action(
        "n",
        "warning(1)",
        "Show the next case with ⚠ warnings.",
        footer="⚠",
        rank=3,
        title="Next case with warnings",
        section="Cases",
    ),
    Action(
        "N",
        "warning(-1)",
        "Show the previous case with ⚠ warnings.",
        title="Previous case with warnings",
        section="Cases",
    ),
    Action(
        "m",
        "toggle_mode",
        "Switch the mode: lm (referenced files embedded) or agent (files as references).",
        title="Toggle mode (lm / agent)",
        section="What the case becomes",
    ),
    Action(
        "p",
        "toggle_profile",
        "Switch the profile: agentv (what AgentV sends) or design.",
        title="Toggle profile (agentv / design)",
        section="What the case becomes",
    ),
    Action(
        "d",
        "profile_diff",
        "Show both profiles' chatPrompts side by side, differences marked.",
        footer="Diff",
        rank=9,
        title="Profile diff",
        section="What the case becomes",
    ),
    Action(
        "e",
        "evaluator",
        "The grading screen: criteria (0.15: outcome), expected output, graders with type and weight, and the grader "
        "prompts.",
        footer="Grading",
        rank=7,
        title="Grading (criteria, graders, grader prompt)",
        section="What the case becomes",
    ),
    Action("", "", f"Focus a pane: {_PANE_NAMES}.", display="1 … 5", section="Panes"),
    *(
        Action(
            str(n),
            f"focus_pane('{pane_id}')",
            f"Focus the {title} pane.",
            help=False,
            title=f"Focus the {title} pane",
            section="Panes",
        )
        for n, (pane_id, title) in enumerate(PANES, 1)
    ),
    Action("0", "focus_cases", "Focus the case list.", title="Focus the case list", section="Panes"),
    Action("", "", "Next / previous pane.", display="tab  shift+tab", section="Panes"),
    Action(
        "",
        "",
        f"Scroll the focused pane; {_PANE_ENDS} top / bottom.",
        display=f"↑ ↓  {_PANE_UP_DOWN}  {_PANE_ENDS}",
        section="Panes",
    ),
    Action(
        "c",
        "copy",
        "Copy the text selected with the mouse, else the focused pane (the chatPrompt as JSON), or in the list the "
        "case's id and file:line; control characters and bidi overrides as the visible escapes shown on screen.",
        footer="Copy",
        rank=4,
        title="Copy",
        section="Panes",
    ),
    Action(
        "C",
        "copy(True)",
        "Copy the focused pane's text exactly as the eval file gives it: control characters, escape sequences and "
        "bidi overrides included.",
        title="Copy raw text",
        section="Panes",
    ),
    Action(
        "z",
        "maximize_pane",
        "Maximise the focused pane, or the case list when it has the focus; z or esc restores it.",
        footer="Max",
        rank=5,
        title="Maximise pane",
        section="Panes",
    ),
    Action(
        "z", "restore_pane", "Restore the maximised pane.", footer="Restore", rank=5, title="Restore pane", help=False
    ),
    Action(
        "o",
        "open_editor",
        "Open the eval file in $EDITOR at the case's line; the view follows your edits.",
        footer="Edit",
        rank=8,  # before Diff: the editor is the authoring loop; at 80 columns the footer has room for one of them
        title="Open in editor",
        section="Panes",
    ),
    Action(
        "R",
        "latest_result",
        "Results: open this case's latest recorded result (the newest run under .agentv/results that ran it).",
        title="Open the case's latest recorded result",
        section="App",
    ),
    Action(
        "D",
        "compare_head",
        "Compare with git HEAD (turnlens diff): every test whose prompts your uncommitted edits change, and why.",
        title="Compare with HEAD (turnlens diff)",
        section="App",
    ),
    Action(
        "b",
        "toggle_banner",
        "Show every line of the banner (refused files, warnings, notes), or one line again.",
        title="Banner: show all / one line",
        section="App",
    ),
    Action(
        "x",
        "dismiss_banner",
        "Dismiss the banner (it comes back when what it says changes).",
        title="Dismiss the banner",
        section="App",
    ),
    Action("", "", "Command palette: every action, then every case by id.", display="ctrl+p", section="App"),
    Action(
        "question_mark,f1",
        "help",
        "Show this help: the keys and what the badges mean.",
        footer="Help",
        rank=0,
        title="Help",
        section="App",
    ),
    quit_action("App", rank=6),
)


CHIP_KEYS = {chip_id: key_of(INSPECTOR_ACTIONS, action) for chip_id, action in CHIPS.items()}


def inspector_commands() -> type[Provider]:
    """The palette's provider (tui/commands.py), imported when the palette first opens, not before the first frame."""
    from ..commands import InspectorCommands

    return InspectorCommands


class InspectorScreen(FirstResumeKeepsStyles[None]):
    """Eval cases of one or more files, side by side with what they become."""

    BINDINGS = bindings(INSPECTOR_ACTIONS)
    TEXT_BOX_KEYS = text_box_keys(INSPECTOR_ACTIONS)
    COMMANDS = {inspector_commands}  # (Textual takes a callable that gives the provider: made when first asked)
    # The list has the focus from the first frame: the filter box, first in the focus chain, took it until the first
    # case was shown, and a `q` pressed meanwhile (a big file still loading) was typed into it instead of quitting.
    AUTO_FOCUS = "#case-options"
    # The header shows the subtitle (it watches this by name and repaints itself); the screen's own reactive repainted
    # the whole screen for each new count while loading (every SUBTITLE_EVERY seconds: a full frame each).
    sub_title: Reactive[str | None] = Reactive(None, compute=False, repaint=False)

    def __init__(
        self, session: Session, *, mode: str | None = None, profile: str = "agentv", watch: bool = True
    ) -> None:
        super().__init__()
        self.model = InspectorModel(session, mode=mode, profile=profile)
        self.session = session
        self.watch_enabled = watch
        self.views = CaseViews(session)
        self.prerenderer = Prerenderer(self, self.views, self._prerender_where)
        self.loader = CaseLoader(self, session)
        self.watcher = FileWatcher(self, session)
        self._longest_label = 0  # the longest case id listed, in cells (the list widens for it)
        # file -> (the entry measured, its rows, its last row, the longest id)
        self._label_widths: dict[int, tuple[FileEntry | None, int, CaseRow | None, int]] = {}
        self._drawn_generation = theme_generation()  # the palette the views on screen were built with
        # The first case is drawn before Pygments is loaded (its code plain), then again once its lexers are made:
        # None before it, then whether they are still being made; and whether the load finished meanwhile.
        self._lexers_pending: bool | None = None
        self._chips_drawn: tuple[str, str] | None = None  # the (mode, profile) the toolbar's chips show
        self._load_done_waiting = False
        self._subtitle_at = 0.0  # when the subtitle was last set (time.monotonic)
        self._subtitle_timer: Timer | None = None  # the loading count's next update, when one is waiting
        self.latest: LatestIndex | None = None  # the latest recorded results beside the eval files, once indexed

    # What tests and benchmarks read, from the view model.
    @property
    def current(self) -> str | None:
        return self.model.current

    @property
    def mode(self) -> str:
        return self.model.mode

    @property
    def profile(self) -> str:
        return self.model.profile

    @property
    def loaded(self) -> bool:
        return self.model.loaded

    @property
    def reloads(self) -> int:
        return self.model.reloads

    @property
    def prerendered(self) -> int:
        return self.model.prerendered

    # ------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        yield TitleRepaintedHeader(icon="◈")
        yield Banner(id="banner")
        with Horizontal(id="main"):
            yield CaseList(announce=self.post_message, filter_key=key_of(INSPECTOR_ACTIONS, "focus_filter"), id="cases")
            with Vertical(id="detail"):
                yield Toolbar(CHIPS, id="toolbar")
                yield Static("", id="rule-line", markup=False)
                # Grid order (3 columns): messages, question, chat (two rows) / rule, guidelines. Numbered in
                # reading order, which is also the stacked order.
                yield CasePanes(PANES, id="panes")
        yield FittingFooter(compact=True)

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, self._theme_changed)
        self._apply_width(self.size.width)
        self._update_chips()
        self.query_one(Toolbar).show_title(Text("loading…", style="dim italic"))
        self.query_one(Banner).set_keys(
            key_of(INSPECTOR_ACTIONS, "toggle_banner"), key_of(INSPECTOR_ACTIONS, "dismiss_banner")
        )
        if self.session.files:
            first = self.loader.load_all(self.profile, first_now=True)
            if first:  # the first case is drawn in the screen's first frame
                self._loaded(CaseLoader.Loaded(first, self.loader.generation))
        else:
            self._first_load_done()

    def on_resize(self, event: events.Resize) -> None:
        self._apply_width(event.size.width)
        if self.latest is not None and self.current is not None:
            self.call_after_refresh(self._refit_rule_line)  # the latest result is fitted to the line's width

    def _apply_width(self, width: int) -> None:
        # The list grows (up to a quarter of the screen) to show long ids whole.
        wanted = self._longest_label + CASE_LIST_CHROME if self._longest_label else 0
        list_width = max(CASE_LIST_WIDTH, min(wanted, width // 4))
        narrow = is_narrow(width, list_width)
        on_top = narrow and list_on_top(width, list_width)
        self.set_class(narrow, "-narrow")
        self.set_class(on_top, "-list-top")
        self.query_one(Toolbar).set_width(width if on_top else width - list_width)
        case_list = self.query_one(CaseList)
        maximized = self.maximized is case_list  # it fills the screen (app.tcss)
        case_list.set_width(None if on_top or maximized or not self._longest_label else list_width)

    # ------------------------------------------------------------------ loading

    @on(CaseLoader.Loaded)
    def _loaded(self, message: CaseLoader.Loaded) -> None:
        if not self.loader.is_current(message):
            return
        try:
            self._apply_loaded(message)
        except MemoryError:
            # Out of memory applying what was loaded: stop loading, keep what is listed, say so.
            self.loader.stop()
            why = f"out of memory: {limit_hit()}"
            self.session.notes.append(stopped_note(None, sum(map(len, self.model.rows.values())), why))
            self._update_banner()
            if not self.loaded:
                self._first_load_done()

    def _apply_loaded(self, message: CaseLoader.Loaded) -> None:
        applied = self.model.apply_steps(message.steps)
        for path in applied.replaced:
            self.views.forget_file(path)
        if applied.current_replaced and self.current is not None:
            self.show_case(self.current, keep_scroll=True)
        self._refresh_list()
        if applied.errors or applied.complete:
            self._update_banner()
        self._loading_subtitle()
        if self.current is None:
            first = self.model.first_key()
            if first is not None:
                self.show_case(first)
                self.query_one("#case-options").focus()
        if applied.complete and not self.loaded:
            if self._lexers_pending:
                self._load_done_waiting = True  # done once the first case is drawn with its code colours
            else:
                self._first_load_done()

    def _first_load_done(self) -> None:
        self._load_done_waiting = False
        self.model.load_finished()
        self._update_banner()
        self._update_subtitle()
        if self.current is None:
            self._show_nothing()
        self.query_one("#case-options").focus()
        # What is loaded now lives as long as the session: keep the cyclic GC from re-scanning it (a full collection
        # of this heap, triggered by the allocations of a case switch, took ~60 ms of it).
        self.call_after_refresh(gcpause.keep_long_lived)
        # Prerendering competes for the GIL: start it once the first case is on screen.
        self.prerenderer.soon(PRERENDER_DELAY)
        if self.watch_enabled:
            self.watcher.start()
        if self.latest is None and self.session.files:
            # After the first frame: the worker's imports and scan would compete with its painting for the GIL.
            self.call_after_refresh(self._index_latest, [loaded.path for loaded in self.session.files])

    def _update_subtitle(self) -> None:
        if self._subtitle_timer is not None:
            self._subtitle_timer.stop()
            self._subtitle_timer = None
        self._subtitle_at = time.monotonic()
        self.sub_title = self.model.subtitle()

    def _loading_subtitle(self) -> None:
        """The count while loading, at most every SUBTITLE_EVERY seconds: Textual's header lays the whole screen out
        again for a new subtitle, and ten times a second that was a third of the event loop's time while a 50,000-test
        dataset was listed, taken from the loading worker (the GIL)."""
        if self._subtitle_timer is not None:
            return  # (it sets what is loaded by then)
        wait = self._subtitle_at + SUBTITLE_EVERY - time.monotonic()
        if wait <= 0:
            self._update_subtitle()
        else:
            self._subtitle_timer = self.set_timer(wait, self._update_subtitle)

    @on(CaseList.Filtered)
    def _filtered(self, event: CaseList.Filtered) -> None:
        self.model.set_filtered(event.shown, event.total)
        if self.loaded:
            self._update_subtitle()
        else:
            self._loading_subtitle()  # (the list counts every batch appended)

    def _refresh_list(self) -> None:
        """The list's rows and headings as loaded so far; the list widens (up to a quarter of the screen) for long
        ids."""
        entries = self.model.file_entries()
        # The longest id, measured only for the rows added since the last time (a load appends rows); an entry the
        # model did not make again is unchanged.
        widths: dict[int, tuple[FileEntry | None, int, CaseRow | None, int]] = {}
        for entry in entries:
            known = self._label_widths.get(entry.number, (None, 0, None, 0))
            if known[0] is entry:
                widths[entry.number] = known
                continue
            _, counted, last, longest = known
            if counted > len(entry.rows) or (counted and entry.rows[counted - 1] is not last):
                counted, longest = 0, 0  # remade (a reload, another profile): measured again
            longest = max(longest, max((label_width(row.label) for row in entry.rows[counted:]), default=0))
            widths[entry.number] = (entry, len(entry.rows), entry.rows[-1] if entry.rows else None, longest)
        self._label_widths = widths
        self._longest_label = max((longest for *_, longest in widths.values()), default=0)
        self._apply_width(self.size.width)
        self.query_one(CaseList).set_entries(entries, current=self.current)

    def _update_banner(self) -> None:
        self.query_one(Banner).show(*banner_text(self.session))
        self.refresh_bindings()

    @on(Banner.Toggled)
    def _banner_clicked(self) -> None:
        self.action_toggle_banner()

    def action_toggle_banner(self) -> None:
        self.query_one(Banner).toggle()

    def action_dismiss_banner(self) -> None:
        self.query_one(Banner).dismiss()
        self.refresh_bindings()

    def _show_nothing(self) -> None:
        """No case to show: say why (no eval file found, every file refused, files without cases)."""
        self.model.select(None)
        title, body = empty_state(self.session, key_of(INSPECTOR_ACTIONS, "open_editor"))
        self.query_one(Toolbar).show_title(title)
        self.query_one("#rule-line", Static).update("")
        self.query_one(CasePanes).show_message("messages", body)

    # ------------------------------------------------------------------ showing a case

    def show_case(self, key: str, *, keep_scroll: bool = False) -> None:
        first = self._lexers_pending is None
        skipped: AbstractContextManager[set[tuple[str | None, str | None]]]
        skipped = highlight.cold_lexers_skipped() if first else nullcontext(set())
        with long_lived_allocations(), skipped as cold:
            mode = self.model.mode_for(key)  # (AgentV's for this case, unless the user chose one)
            view = self.views.get(key, mode, self.profile)
        if view is None:
            return
        if first:
            self._lexers_pending = bool(cold)
            if cold:
                self._make_lexers(cold)
        self.model.select(key)
        with self.app.batch_update():
            if self._chips_drawn != (mode, self.profile):  # this case is in another mode (AgentV's for it)
                self._update_chips()
            # Both are one row of fixed size: no layout pass needed (it would redraw the whole screen).
            self.query_one(Toolbar).show_title(view.title, (view.title_label, view.title_where), layout=False)
            self._show_rule_line(view.rule_line, key)
            self.query_one(CasePanes).show(
                view.panes(),
                view.subtitles(mode, self.profile),
                titles={"guidelines": view.fifth_title},  # the fifth slot is named by the case's dialect
                keep_scroll=keep_scroll,
            )
        self._prerender_soon()

    class LexersMade(Message):
        """The lexers the first case on screen was drawn without are made."""

    def _make_lexers(self, wanted: set[tuple[str | None, str | None]]) -> None:
        def make() -> None:
            def made() -> None:
                highlight.make_lexers(wanted)
                self.post_message(self.LexersMade())

            in_background(made)  # (importing Pygments' lexers takes seconds on a busy machine: q does not wait)

        # After the first frame, which the worker would slow down (it competes for the GIL).
        self.call_after_refresh(self.run_worker, make, thread=True, group="lexers")

    @on(LexersMade)
    def _lexers_made(self) -> None:
        self._lexers_pending = False
        if self.current is not None:
            found = self.session.case(self.current)
            if found is not None:
                self.views.forget_file(found[0].path)  # drawn with its code plain
            self.show_case(self.current, keep_scroll=True)
        if self._load_done_waiting:
            self._first_load_done()

    @on(Prerenderer.Finished)
    def _prerendered(self) -> None:
        self.model.prerender_finished()

    def _prerender_where(self) -> tuple[str | None, Callable[[str], str], str, dict[str, int]]:
        return self.current, self.model.mode_for, self.profile, self.query_one(CasePanes).widths()

    def _prerender_soon(self) -> None:
        """Prerender around the case on screen once switching rests a moment (a held key is not slowed)."""
        if self.loaded:
            self.prerenderer.soon()

    @on(CaseList.CaseSelected)
    def _case_selected(self, event: CaseList.CaseSelected) -> None:
        if event.key != self.current:
            self.show_case(event.key)

    def select_case(self, key: str) -> None:
        """Move the list highlight (and so the panes) to `key`."""
        if not self.query_one(CaseList).select(key):
            self.show_case(key)

    def _update_chips(self) -> None:
        self._chips_drawn = (self.mode, self.profile)
        levels = [chip_texts(self.mode, self.profile, level, CHIP_KEYS) for level in range(3)]
        most_cells = [
            max(chip_cells(chip_texts(mode, profile, level, CHIP_KEYS)) for mode in MODES for profile in PROFILES)
            for level in range(3)
        ]
        self.query_one(Toolbar).set_chips(levels, most_cells)

    @on(Chip.Clicked)
    async def _chip_clicked(self, event: Chip.Clicked) -> None:
        await self.run_action(event.chip.action)

    def _theme_changed(self, theme: Theme) -> None:
        """Another theme: everything drawn with the old palette is drawn again (the view cache is keyed by it)."""
        use_theme(theme)
        if theme_generation() != self._drawn_generation:
            self._drawn_generation = theme_generation()
            self.views.clear()
            self._rerender(rows=True)

    def _rerender(self, *, rows: bool = False) -> None:
        """Redraw for another mode or profile; with `rows`, the case list's rows are remade too (in a worker: their
        rule depends on the profile)."""
        self._update_chips()
        if rows:
            self.loader.restart(self.profile, loaded=self.loaded)
        if self.current is not None:
            self.show_case(self.current, keep_scroll=True)

    # ------------------------------------------------------------------ live re-render

    @on(FileWatcher.Changed)
    def _files_changed(self, message: FileWatcher.Changed) -> None:
        self.reload_files(message.numbers, rescan=message.rescan)

    @on(FileWatcher.Failed)
    def _watch_failed(self, message: FileWatcher.Failed) -> None:
        self.notify(sanitize(message.problem), markup=False, severity="warning", timeout=8)

    def reload_files(self, numbers: list[int], *, rescan: bool = False) -> Awaitable[None]:
        """Reload files (in a thread), then redraw keeping the selected case and the scroll positions; awaitable
        until that is done. With `rescan`, first look for eval files added to or removed from the opened folders."""
        return self.loader.reload(numbers, profile=self.profile, rescan=rescan)

    @on(CaseLoader.Reloaded)
    def _reloaded(self, message: CaseLoader.Reloaded) -> None:
        reload = message.reload
        self.model.apply_reload(reload.scan, reload.files, reload.notes)
        self.views.forget_stale(self.model.generations())
        self._refresh_list()
        self._update_banner()
        self._update_subtitle()
        first = self.model.first_key()
        if self.current is not None:
            self.show_case(self.current, keep_scroll=True)
        elif first is not None:
            self.show_case(first)
        else:
            self._show_nothing()
        self._prerender_soon()
        self.loader.reload_applied(reload)
        self.watcher.follow(rescanned=reload.scan is not None)

    # ------------------------------------------------------------------ actions

    def action_focus_filter(self) -> None:
        self.set_focus(self.query_one("#case-filter"))  # (at once: actions.text_box_keys)

    def action_focus_cases(self) -> None:
        self.query_one("#case-options").focus()

    def action_focus_pane(self, pane_id: str) -> None:
        self.query_one(f"#{pane_id}", Pane).focus()

    def action_toggle_mode(self) -> None:
        self.model.toggle_mode()
        self._rerender()

    def action_toggle_profile(self) -> None:
        self.model.toggle_profile()
        self._rerender(rows=True)

    def action_step(self, direction: int) -> None:
        """The next (1) or previous (-1) case listed."""
        key = self.query_one(CaseList).neighbour(self.current, direction)
        if key:
            self.select_case(key)

    def action_warning(self, direction: int) -> None:
        """The next (1) or previous (-1) case with warnings, in file order (a filter hiding it is cleared)."""
        jump = self.model.warning_jump(direction)
        if jump.key is None:
            self.notify(jump.note, markup=False)
            return
        if jump.note:
            self.notify(jump.note, markup=False, timeout=2)
        self.select_case(jump.key)

    def action_jump(self) -> None:
        from ..commands import BoundedPalette, CaseCommands

        self.app.push_screen(BoundedPalette(providers=[CaseCommands], placeholder="Jump to case…"))

    def case_choices(self) -> list[tuple[str, str, str]]:
        """(key, label, summary) for every case listed so far, for the jump palette (sanitised: shown as is)."""
        return [
            (key, render.sanitize(label), render.sanitize(summary)) for key, label, summary in self.model.case_choices()
        ]

    def action_evaluator(self) -> None:
        from .grading import GradingScreen

        shown, note = self.model.grading()
        if note:
            self.notify(note, markup=False, severity="warning")
        if shown is not None:
            self.app.push_screen(
                GradingScreen(
                    *shown,
                    mode=self.model.mode,
                    mode_chosen=self.model.chosen_mode is not None,
                    step=self._grading_step,
                ),
                self._diff_closed,
            )

    def _step_to(self, direction: int, usable: Callable[[str], bool]) -> bool:
        """Move to the next (1) or previous (-1) listed case that `usable` accepts; for the sub-screens' [ and ]."""
        key = self.model.step(self.query_one(CaseList).visible_keys(), direction, usable)
        if not key or key == self.model.current:
            return False
        self.select_case(key)
        self.model.select(key)
        return True

    def _grading_step(self, direction: int) -> tuple[EvalCase, FormattedCase] | None:
        if not self._step_to(direction, lambda k: self.model.session.formatted(k, self.model.profile) is not None):
            return None
        return self.model.grading()[0]

    def _diff_step(self, direction: int) -> tuple[EvalCase, FormattedCase, FormattedCase, str] | None:
        if not self._step_to(direction, lambda k: self.model.session.formatted(k, "agentv") is not None):
            return None
        return self.model.profile_diff()[0]

    def action_profile_diff(self) -> None:
        from ..screens import ProfileDiffScreen

        shown, note = self.model.profile_diff()
        if note:
            self.notify(note, markup=False, severity="warning")
        if shown is not None:
            self.app.push_screen(ProfileDiffScreen(*shown, step=self._diff_step), self._diff_closed)

    def _diff_closed(self, mode: str | None) -> None:
        if self.model.set_mode(mode):
            self._rerender()

    def action_compare_head(self) -> None:
        from .diff import ChangesScreen

        session = self.model.session
        cwd = os.path.abspath(session.cwd or os.getcwd())
        roots = [os.path.abspath(os.path.join(cwd, r)) for r in session.roots]
        self.app.push_screen(ChangesScreen(["HEAD", "--", *roots], cwd, session.dialect))

    # ------------------------------------------------------------------ the latest recorded results

    @work(thread=True, exclusive=True, group="latest-results")
    def _index_latest(self, paths: list[str]) -> None:
        """Index the results beside the eval files (formatting/results/latest.py): after the first load, in a
        worker; the rule line shows each case's latest result once it is done."""
        from turnlens.formatting.results.latest import LatestIndex

        def index_them() -> None:
            index = LatestIndex(self.session.repo_root)
            index.index(paths)
            self.post_message(self.LatestIndexed(index))

        in_background(index_them)  # a big results file takes seconds to scan: q does not wait for it

    class LatestIndexed(Message):
        """The latest results beside the eval files are indexed (a formatting.results.latest.LatestIndex)."""

        def __init__(self, index: Any) -> None:
            super().__init__()
            self.index = index

    @on(LatestIndexed)
    def _latest_indexed(self, message: LatestIndexed) -> None:
        self.latest = message.index
        if not message.index.empty:
            self._refit_rule_line()

    def _refit_rule_line(self) -> None:
        view = self.views.get(self.current, self.mode, self.profile) if self.current is not None else None
        if view is not None and self.current is not None:
            self._show_rule_line(view.rule_line, self.current)

    def _latest_of(self, key: str | None) -> Any:
        """The latest recorded result of the case `key`, when the index has one."""
        found = self.session.case(key) if key else None
        if found is None or self.latest is None:
            return None
        return self.latest.find(found[0].path, found[1].id, _suite_name(found[0]))

    def _show_rule_line(self, rule_line: Text, case_key: str) -> None:
        """The case's rule line, and its latest recorded result at its end when there is one; without the run's
        name if that makes it fit, else on a second row (the rule's summary was cut for it at 80 columns)."""
        widget = self.query_one("#rule-line", Static)
        found = self._latest_of(case_key)
        rows = 1
        line = rule_line
        if found is not None:
            key = key_of(INSPECTOR_ACTIONS, "latest_result")
            room = (widget.size.width or self.size.width) - rule_line.cell_len
            latest = latest_result_text(found, key)
            if latest.cell_len > room:
                latest = latest_result_text(found, key, run=False)
            if latest.cell_len > room:
                latest, rows = latest_result_text(found, key, lead="\n "), 2
            line = rule_line.copy()
            line.append_text(latest)
        two_rows = widget.has_class("-two-rows")
        widget.set_class(rows == 2, "-two-rows")
        widget.update(line, layout=two_rows != (rows == 2))  # (a layout pass only when its height changes)

    def action_latest_result(self) -> None:
        key = self.model.current
        found = self.session.case(key) if key else None
        if found is None:
            self.notify("No case to look up.", severity="warning")
            return
        loaded, case = found
        if not case.id:
            self.notify("This case has no id to find in results.", severity="warning")
            return
        self.notify(f"Looking for {sanitize(case.id)} in .agentv/results…", timeout=2, markup=False)
        self._look_up_latest(loaded.path, case.id, _suite_name(loaded))

    @work(thread=True, exclusive=True, group="latest-result")
    def _look_up_latest(self, eval_path: str, case_id: str, suite: str | None) -> None:
        from turnlens.formatting.results.latest import LatestIndex

        def look() -> None:
            index = LatestIndex(self.session.repo_root)  # afresh: a run recorded since the screen opened counts
            index.index([eval_path])  # indexes the newest runs: not on the loop
            found = index.find(eval_path, case_id, suite)
            self.post_message(self.LatestFound(case_id, found, index.project_of(eval_path)))

        in_background(look)

    class LatestFound(Message):
        """A case's latest recorded result was looked for (formatting/results/latest.py); `found` None: none.
        `project`: the folder holding the `.agentv/` it was found in."""

        def __init__(self, case_id: str, found: LatestResult | None, project: str | None) -> None:
            super().__init__()
            self.case_id, self.found, self.project = case_id, found, project

    @on(LatestFound)
    def _latest_found(self, message: LatestFound) -> None:
        self._open_latest(message.case_id, message.found, message.project)

    def _open_latest(self, case_id: str, found: LatestResult | None, project: str | None) -> None:
        if found is None:
            self.notify(
                f"No run under .agentv/results beside the eval file (up to {sanitize(self.session.repo_root)}) "
                f"recorded {sanitize(case_id)}.",
                severity="warning",
                markup=False,
            )
            return
        score = "—" if found.score is None else f"{found.score:.2f}"
        self.notify(
            f"{sanitize(case_id)}: {score} {found.verdict.upper()} in {sanitize(found.run)} ({sanitize(found.target)})",
            markup=False,
        )
        self.post_message(OpenLatestResult(found.argument, project or self.session.repo_root, found.index))

    def action_open_editor(self) -> None:
        target = self.model.editor_target()
        if target is None:
            self.notify("No eval file to open.", markup=False, severity="warning")
            return
        if installed_sample(target[0]):
            # Editing the installed package's copy would be lost at the next upgrade, or need root.
            self.notify(
                f"This is a bundled sample inside the installed package ({target[0]}). "
                "`turnlens --samples DIR` copies the samples into a folder of yours to edit.",
                markup=False,
                severity="warning",
                timeout=8,
            )
            return
        from ..editor import open_in_editor

        open_in_editor(*target, suspend=self.app.suspend, notify=self.notify)

    def action_copy(self, raw: bool = False) -> None:
        """The selection, else the focused pane's text; sanitised unless `raw` (what lands on the clipboard is
        pasted into terminals too: escapes from the file stay visible unless asked)."""
        selected = self.get_selected_text()
        if selected and not raw:
            self.app.copy_to_clipboard(sanitize(selected))
            self.notify(f"Copied the selection ({len(selected)} characters)", markup=False)
            return
        panes = self.query_one(CasePanes)
        focused = self.focused
        if focused is not None and self.query_one(CaseList) in focused.ancestors and not raw:
            # As in the results list: the highlighted row's id and where it is written (id<TAB>file:line).
            found = self.model.copy_reference()
            if found:
                self.app.copy_to_clipboard(sanitize(found))
                self.notify(f"Copied {sanitize(found.split(chr(9))[0])[:80]} and where it is written", markup=False)
                return
        pane = focused if isinstance(focused, Pane) else panes.pane("question")
        if self.current is None and not pane.copy_text:
            pane = panes.pane("messages")  # the error (or empty state) is shown there
        if not pane.copy_text:
            self.notify("Nothing to copy: no case is shown.", markup=False, severity="warning")
            return
        text = pane.copy_text if raw else sanitize(pane.copy_text)
        self.app.copy_to_clipboard(text)
        what = "the raw text of " if raw else ""
        self.notify(f"Copied {what}{pane.title_name} ({len(text)} characters)", markup=False)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("toggle_banner", "dismiss_banner"):
            banners = self.query(Banner)
            if not banners:
                return False
            return banners.first().showing
        return self.model.allows(action)

    def action_maximize_pane(self) -> None:
        """The focused pane, or the case list when it has the focus (its filter box or its rows); else the
        question pane."""
        focused = self.focused
        case_list = self.query_one(CaseList)
        if focused is not None and case_list in focused.ancestors:
            self.maximize(case_list, container=False)
        else:
            pane = focused if isinstance(focused, Pane) else self.query_one("#question", Pane)
            pane.focus()
            self.maximize(pane)
        self.refresh_bindings()

    def action_restore_pane(self) -> None:
        self.minimize()
        self.refresh_bindings()

    def watch_maximized(self) -> None:
        self.model.maximize(self.maximized.id if self.maximized is not None else None)
        self._apply_width(self.size.width)  # the list's width: the screen's while maximised
        self.refresh_bindings()  # esc restores too (Textual's own binding): the footer follows

    def action_help(self) -> None:
        from ..screens import HelpScreen

        self.app.push_screen(HelpScreen(help_sections(INSPECTOR_ACTIONS)))

    def palette_commands(self) -> list[tuple[str, str, str]]:
        """(title, description, action) of the command palette's actions, in table order."""
        return table_commands(self, INSPECTOR_ACTIONS)
