"""The results list: one run, or a folder of runs browsed with { }. Two runs compared are compare.py's screen.

`ResultsScreen(paths, evals, repo_root)` drives a `ResultsModel` (model.py): keys change the model, the screen asks
it for the rows and hands them down to the list. Thread workers index the file, follow it as it grows, sort big
runs, search their full text and check drift; each reports by message (messages.py), never by writing the model.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, cast

from rich.cells import cell_len
from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import ScrollableContainer
from textual.screen import ModalScreen
from textual.timer import Timer
from textual.widgets import OptionList, Static

from turnlens.formatting.records import Diagnostic
from turnlens.formatting.results.index import ResultsFile
from turnlens.formatting.results.record import visible_text
from turnlens.formatting.results.sniff import is_run_folder
from turnlens.formatting.sanitize import sanitize

from ..actions import bindings, table_commands, text_box_keys
from ..commands import TableCommands
from ..navigation import OpenTestOfResult, SelectsCase
from ..widgets.footer import FittingFooter
from .commands import show_help
from .keys import ALL_TABLES, RESULTS_ACTIONS, marks_legend
from .loading import RunLoader
from .messages import DriftChecked, Followed, IndexProgressed, RowsSelected, RunsAppeared, TextFound
from .model import DRIFT_CODES, ResultsModel, Run, open_runs, select_rows, suite_of
from .theming import ThemedScreen
from .widgets import ListLook, ProblemsBar, ResultList, ResultsHeader, SearchBox, VirtualList

if TYPE_CHECKING:  # (imported where used)
    from turnlens.formatting.model import EvalCase, EvalFile
    from turnlens.formatting.results.drift import DriftChecker

    from ..session import Session

TEXT_AS_YOU_TYPE_BYTES = 20 * 1024 * 1024  # smaller files are searched in full text at every key press
SYNC_SELECT_LIMIT = 5_000  # below this many results sorting in the UI thread is quicker than a thread hop
# ... and rows appended to a listed run (followed) are put in their place there too, up to this many: each costs a
# binary search, and the row is on screen without waiting for a thread
SYNC_INSERT_LIMIT = 1_000
RESELECT_EVERY = 0.3  # seconds between re-sorts while a big file is still being indexed
# ... and once it holds 20,000 rows, a re-sort waits for the run to grow by half since the last one: each re-sort
# reads every row, and the index worker waits for the GIL meanwhile; so all of them together cost about 3 of the
# last one, however long the index takes (time-based re-sorts slowed a big file's index down under load)
RESELECT_GROWTH = 1.5
# seconds between looks at the current run's file while it cannot be watched (loading.py: a watch wakes the look
# as the file is written; toolong looks every 0.05 s) or while a change waits to be looked at
FOLLOW_EVERY = 0.05
TITLE_CHROME = 6  # a box's corners and the rule and spaces around its title
RUNS_EVERY = 1.0  # seconds between looks for new runs in a folder of runs (a stat per folder when nothing changed)


def _megabytes(size: int) -> str:
    return f"{size / (1024 * 1024):.0f} MB"


def _text_as_you_type(run: Run) -> bool:
    return run.results.size <= TEXT_AS_YOU_TYPE_BYTES


class ResultsScreen(ThemedScreen):
    """Results of one run (a file, or a folder of runs: { and } switch)."""

    COMMANDS = {TableCommands}
    BINDINGS = bindings(RESULTS_ACTIONS)
    TEXT_BOX_KEYS = text_box_keys(RESULTS_ACTIONS)
    over_inspector = False  # opened from a case in the inspector (its latest result): esc goes back to it

    def __init__(
        self,
        paths: Sequence[str],
        evals: str | None = None,
        repo_root: str | None = None,
        *,
        threshold: float | None = None,
        delta: float | None = None,
        name: str | None = None,
        watch: bool = True,
        opened: tuple[list[Run], list[Diagnostic]] | None = None,
    ) -> None:
        super().__init__(name=name)
        self.paths = [os.fspath(p) for p in paths]
        self.evals = evals
        self.repo_root = repo_root
        self.follow = watch  # follow a growing run (not `watch`: that name is Textual's watch() method)
        runs, self.path_problems = opened or open_runs(self.paths)
        self.model = ResultsModel(runs, threshold=threshold, evals_given=evals is not None)
        self.delta = delta  # the win/loss step of the comparisons opened from here (None: AgentV's 0.1)
        self._last_reselect = 0.0
        self._reselected: tuple[Run | None, int] = (None, 0)  # the run the last re-sort read, and its rows then
        self.loader = RunLoader(self)
        self._text_timer: Timer | None = None  # ticks the elapsed time of a full-text search on a large file
        self._highlighted: int | None = None  # the record under the list's cursor
        self._open_pending: int | None = None  # a record to open once the run is indexed
        self._columns_shown: Text | None = None  # the column names above the list, as last drawn

    @property
    def run(self) -> Run | None:
        return self.model.run

    @property
    def filter(self) -> str:
        return self.model.filter

    # -- layout ----------------------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield ResultsHeader(id="results-header")
        yield SearchBox("search id, target, suite", focus_list=self._focus_list, id="results-search")
        yield SearchBox(
            "search inside every result (question, answer, reasoning…), enter to run",
            focus_list=self._focus_list,
            id="results-text-search",
        )
        yield ProblemsBar(id="results-problems")
        run = self.run
        if run is not None:
            yield Static(id="results-columns", markup=False)
            yield ResultList(run.results, threshold=self.model.threshold, id="results-list")
        else:
            yield Static(Text("No results files to show.", style="bold"), id="results-empty")
        yield FittingFooter()

    def _focus_list(self) -> None:
        self.set_focus(self._list)

    def on_mount(self) -> None:
        self.follow_theme()
        self._show_problems()
        run = self.run
        if run is None:
            return
        self._start_run(run)
        self._list.focus()
        if self.follow:
            self.loader.follow_every(FOLLOW_EVERY, lambda: self.run)
            if len(self.paths) == 1 and os.path.isdir(self.paths[0]):
                if not is_run_folder(self.paths[0]):
                    self.loader.watch_runs(self.paths[0], [run.path for run in self.model.runs])
                    self.set_interval(RUNS_EVERY, self.loader.look_for_runs)

    def on_unmount(self) -> None:
        self.loader.close()

    @property
    def _list(self) -> ResultList:
        return self.query_one(ResultList)

    # -- indexing --------------------------------------------------------------------------------------------

    def _start_run(self, run: Run) -> None:
        self._update_header()
        if run.started:
            self._reselect()
            return
        run.started = True
        first, scan = self.loader.first_batch(run)
        if first is not None:
            self._indexed(IndexProgressed(run, first))
        if first is None or not first.done:
            # after the first frame is on screen: the scan thread competes for the GIL with the painting
            self.call_after_refresh(self.loader.index_rest, run, scan)

    @on(IndexProgressed)
    def _indexed(self, message: IndexProgressed) -> None:
        run = message.run
        first = run.progress is None
        run.progress = message.progress
        if run is not self.run:
            return
        now = time.monotonic()
        count = run.results.count
        if first or message.progress.done or now - self._last_reselect >= RESELECT_EVERY:
            self._last_reselect = now
            last_run, last_count = self._reselected
            if (
                first
                or message.progress.done
                or count < 20_000
                or last_run is not run
                or count >= RESELECT_GROWTH * last_count
                or self.model.identity_rows() is not None  # (file order: nothing to sort)
            ):
                self._reselected = (run, count)
                self._reselect()
            else:
                self._update_progress()
            self._show_problems()
        if message.progress.done and self.model.wants_drift(run, auto=True):
            self._start_drift(run)

    # -- following a run in progress ------------------------------------------------------------------------

    @on(Followed)
    def _followed(self, message: Followed) -> None:
        self.loader.followed()
        run = message.run
        if message.outcome == "same" or self.loader.stop.is_set():
            return
        if message.outcome == "grown":
            # new records, or the last YAML document read again as it was written (no new record)
            if run is self.run:
                self._reselect()  # the cursor stays on the row the user chose
                self._show_problems()
            return
        # truncated, rewritten (AgentV rewrites index.jsonl with slim rows at the end of a run) or removed
        run.reopen()
        if run is self.run:
            self._highlighted = None
            self._list.show_results(run.results)
            self._start_run(run)
            self._show_problems()
        gone = not os.path.exists(run.path)
        self.notify(
            f"{visible_text(run.title)} was {'removed' if gone else 'truncated or rewritten'}: read again.",
            severity="warning",
            timeout=4,
        )

    @on(RunsAppeared)
    def _runs_appeared(self, message: RunsAppeared) -> None:
        self.loader.runs_looked()
        if not message.sources or self.loader.stop.is_set():
            return
        added = self.model.add_runs(message.sources)
        if not added:
            return
        self._update_header()  # "run 2 of 3"
        self.refresh_bindings()  # { } and v now apply
        names = ", ".join(visible_text(run.name) for run in added[:3]) + (" …" if len(added) > 3 else "")
        self.notify(f"New run{'s' if len(added) > 1 else ''}: {names} ({{ }} switch runs)", timeout=4, markup=False)

    # -- drawing ---------------------------------------------------------------------------------------------

    def _look(self) -> ListLook:
        run = self.run
        return ListLook(
            self.model.threshold, run.drift if run is not None else None, show_time=self.model.sort == "time"
        )

    def _update_header(self) -> None:
        state = self.model.header_state()
        if state is None:
            return
        list_ = self._list
        list_.set_empty_note(self.model.empty_note())
        list_.set_look(self._look())
        self._update_columns()
        self.query_one(ResultsHeader).show(state)

    def _update_progress(self) -> None:
        """The header alone (progress, counts) while a big run is indexed: the list keeps the rows as sorted last
        and is not drawn again (a redraw of the list costs the index worker more GIL time than the header)."""
        state = self.model.header_state()
        if state is not None:
            self.query_one(ResultsHeader).show(state)

    def _update_columns(self) -> None:
        list_ = self._list
        width = list_.scrollable_content_region.width or self.size.width
        header = list_.column_header(width)
        if header != self._columns_shown:  # (an update lays the screen out: ~10-30 ms each while a run is indexed)
            self._columns_shown = header
            # one line high whatever its text (app.tcss): no layout needed
            self.query_one("#results-columns", Static).update(header, layout=False)

    def on_resize(self, event: events.Resize) -> None:
        if self.run is not None:
            self.call_after_refresh(self._update_columns)

    def redraw(self) -> None:
        if self.run is not None:
            self._update_header()

    def _show_problems(self) -> None:
        run = self.run
        problems = list(self.path_problems) + (run.problems() if run is not None else [])
        total = len(self.path_problems) + (run.problem_total if run is not None else 0)
        self.query_one(ProblemsBar).show_problems(problems, total)

    # -- selection (sort / filter / search) -----------------------------------------------------------------

    def _reselect(self) -> None:
        model = self.model
        run = model.run
        if run is None:
            return
        rows = model.identity_rows()
        if rows is not None:
            model.rows = rows
            self._show_rows()
            return
        selection = model.request()
        assert selection is not None
        appended = run.results.count - selection.previous_upto if selection.previous is not None else None
        if run.results.count <= SYNC_SELECT_LIMIT or appended is not None and appended <= SYNC_INSERT_LIMIT:
            self._rows_selected(RowsSelected(selection, select_rows(selection)))
        else:
            self.loader.select(selection)

    @on(RowsSelected)
    def _rows_selected(self, message: RowsSelected) -> None:
        if self.model.accept(message.selection, message.rows):
            self._show_rows()

    def _show_rows(self) -> None:
        list_ = self._list
        list_.set_look(self._look())
        list_.set_rows(self.model.rows)
        self._update_header()
        run = self.run
        if self._open_pending is not None and run is not None and run.indexed:
            index, self._open_pending = self._open_pending, None
            if index < run.results.count:
                self._open_at(index)

    def open_when_indexed(self, index: int) -> None:
        """Open result `index` of the run once it is read (the inspector's R: a case's latest result)."""
        self._open_pending = index

    @on(VirtualList.Highlighted, "#results-list")
    def _highlighted_row(self, event: VirtualList.Highlighted) -> None:
        self._highlighted = cast(int, event.row)

    # -- actions ---------------------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in {"run", "compare_previous"} and len(self.model.runs) < 2:
            return False
        return True

    def action_cycle_sort(self) -> None:
        self.model.cycle_sort()
        self._reselect()

    def action_reverse(self) -> None:
        self.model.toggle_reverse()
        self._reselect()

    def action_cycle_filter(self) -> None:
        self.model.cycle_filter()
        self._reselect()

    def action_threshold(self, delta: float) -> None:
        self.model.change_threshold(delta)
        self._reselect()
        self._update_header()
        run = self.run
        recorded = run.results.count - run.results.statuses.count(3) if run is not None else 0  # 3: no status
        kept = f"; the {recorded:,} rows with AgentV's recorded verdict keep it" if recorded else ""
        self.notify(f"Pass threshold {self.model.threshold:.2f}{kept}", timeout=3)
        settings = getattr(self.app, "settings", None)
        if settings is not None:
            problem = settings.remember(threshold=self.model.threshold)
            if problem is not None:
                self.notify(f"The threshold is not remembered: {problem}", severity="warning", markup=False)

    def action_search(self) -> None:
        self.query_one("#results-search", SearchBox).open()

    @on(SearchBox.Changed, "#results-search")
    def _search_changed(self, event: SearchBox.Changed) -> None:
        self.model.search_text = event.value
        self._reselect()

    @on(SearchBox.Submitted, "#results-search")
    def _search_submitted(self, event: SearchBox.Submitted) -> None:
        self._list.focus()

    def action_search_text(self) -> None:
        run = self.run
        note = ""
        if run is not None and not _text_as_you_type(run) and not self.model.text_query:
            # Too big to search at every key press: say so, or the box seems to do nothing.
            note = f"large file ({_megabytes(run.results.size)}): type, then enter to search"
        self.query_one("#results-text-search", SearchBox).open(note)

    @on(SearchBox.Changed, "#results-text-search")
    def _text_changed(self, event: SearchBox.Changed) -> None:
        run = self.run
        if run is not None and _text_as_you_type(run):
            self._run_text_search(event.value)
        elif run is not None and event.value != self.model.text_query and self._text_timer is None:
            self.query_one("#results-text-search", SearchBox).note(
                f"large file ({_megabytes(run.results.size)}): enter to search"
            )

    @on(SearchBox.Submitted, "#results-text-search")
    def _text_submitted(self, event: SearchBox.Submitted) -> None:
        self._run_text_search(event.value)
        self._list.focus()

    def _stop_text_timer(self) -> None:
        if self._text_timer is not None:
            self._text_timer.stop()
            self._text_timer = None

    def _run_text_search(self, needle: str) -> None:
        run = self.run
        if run is None:
            return
        self.model.set_text_query(needle)
        if not needle:
            self._reselect()
            return
        if _text_as_you_type(run):
            run.text_mask = run.results.find_text(needle)
            self._reselect()
            return
        box = self.query_one("#results-text-search", SearchBox)
        started = time.monotonic()
        size = _megabytes(run.results.size)

        def tick() -> None:
            box.note(f"searching {size} for the text… {time.monotonic() - started:.0f} s")

        tick()
        self._stop_text_timer()
        self._text_timer = self.set_interval(0.5, tick)
        self.loader.find_text(run, needle)

    @on(TextFound)
    def _text_found(self, message: TextFound) -> None:
        run = message.run
        if message.needle != self.model.text_query or run is not self.run:
            return
        self._stop_text_timer()
        hits = sum(message.mask)
        self.query_one("#results-text-search", SearchBox).note(
            f"{hits:,} result{' contains' if hits == 1 else 's contain'} the text · esc clears"
        )
        run.text_mask = message.mask
        self._reselect()

    def action_clear(self) -> None:
        """esc: close the full-text search, else the search, else show all again."""
        model = self.model
        text_box = self.query_one("#results-text-search", SearchBox)
        if text_box.is_open or model.text_query:
            self._stop_text_timer()
            text_box.close()
            self._run_text_search("")
            self._list.focus()
            return
        search = self.query_one("#results-search", SearchBox)
        if search.is_open or model.search_text:
            search.close()
            model.search_text = ""
            self._reselect()
            self._list.focus()
            return
        if model.filter != "all":
            model.filter = "all"
            self._reselect()
        elif self.over_inspector:
            self.dismiss()

    def action_run(self, step: int) -> None:
        self._show_run(self.model.step_run(step))

    def action_pick_run(self) -> None:
        """Choose a run from the list of the folder's runs (newest first)."""
        runs = self.model.runs
        if len(runs) < 2:
            self.notify("Only one run here.", timeout=2)
            return
        labels = [
            f"{visible_text(run.name)}{'  (shown)' if n == self.model.current else ''}" for n, run in enumerate(runs)
        ]
        self.app.push_screen(ChoiceScreen("runs, newest first", labels, self.model.current), self._go_to_run)

    def _go_to_run(self, position: int | None) -> None:
        if position is not None and position != self.model.current:
            self._show_run(self.model.go_to_run(position))

    def action_pick_filter(self) -> None:
        """Choose what the list shows from every filter at once (f goes through them one by one)."""
        choices = list(self.model.filter_choices())
        current = choices.index(self.model.filter) if self.model.filter in choices else 0
        self.app.push_screen(ChoiceScreen("show", choices, current), partial(self._set_filter, choices))

    def _set_filter(self, choices: list[str], position: int | None) -> None:
        if position is not None:
            self.model.filter = choices[position]
            self._reselect()

    def _show_run(self, run: Run | None) -> None:
        if run is None:
            return
        self._highlighted = None
        self._list.show_results(run.results)
        self._start_run(run)
        self._show_problems()

    def action_compare_previous(self) -> None:
        """Compare this run with another run of the same suite (same file-name prefix, the nearest earlier one
        first); the earlier of the two is A."""
        if len(self.model.runs) < 2:
            return
        pair = self.model.comparison_with_previous()
        if isinstance(pair, str):
            self.notify(pair, severity="warning")
            return
        from .compare import CompareScreen

        self.app.push_screen(
            CompareScreen(
                list(pair),
                self.evals,
                self.repo_root,
                threshold=self.model.threshold,
                delta=self.delta,
                closable=True,
            )
        )

    def action_copy(self) -> None:
        """Copy the highlighted result's id and where it is recorded (file:line)."""
        if self._highlighted is None:
            return
        text = self.model.copy_text(self._highlighted)
        if text:
            text = sanitize(text)  # ids come from the results file: its escapes stay visible when pasted
            self.app.copy_to_clipboard(text)
            self.notify(f"Copied {visible_text(text.split(chr(9))[0])[:80]}", timeout=2)

    def action_help(self) -> None:
        show_help(self, ALL_TABLES, marks_legend())

    def action_run_summary(self) -> None:
        """The run folder's benchmark.json in full (per target, per grader, notes)."""
        run = self.run
        if run is None:
            return
        benchmark = run.benchmark
        if benchmark is None:
            what = "a run still being written" if run.folder is not None else "a results file, not a run folder"
            self.notify(f"No benchmark.json for this run ({what}).", timeout=3)
            return
        self.app.push_screen(RunSummaryScreen(visible_text(run.name), benchmark.lines()))

    # -- from a result to its test ----------------------------------------------------------------------------

    def action_inspect_test(self) -> None:
        self._find_test("inspect")

    def action_edit_test(self) -> None:
        self._find_test("edit")

    def _find_test(self, then: str) -> None:
        run, index = self.run, self._highlighted
        if run is None or index is None:
            self.notify("No result highlighted.", severity="warning")
            return
        checker = self._drift_checker(run)
        eval_id, dataset = run.results.eval_ids[index], run.results.dataset_of(index)
        drift = run.drift[index] if run.drift is not None and index < len(run.drift) else None
        self._locate_test(checker, eval_id, dataset, index, drift, then)

    @work(thread=True, exclusive=True, group="locate")
    def _locate_test(
        self, checker: DriftChecker, eval_id: str, dataset: str, index: int, drift: int | None, then: str
    ) -> None:
        # the eval files under the project are loaded (once, cached by the checker): not on the event loop
        try:
            found = checker.find_case(eval_id, dataset)
        except Exception as error:  # the engine failing on one file is said, not raised
            self.app.call_from_thread(self.notify, f"Could not look for the test: {error}", severity="error")
            return
        self.app.call_from_thread(self._test_found, found, eval_id, index, drift, then)

    def _test_found(
        self, found: tuple[EvalFile, EvalCase] | None, eval_id: str, index: int, drift: int | None, then: str
    ) -> None:
        if found is None:
            root = self.run.drift_checker.root if self.run is not None and self.run.drift_checker else "the project"
            self.notify(
                f"No eval file under {visible_text(str(root))} has the test {visible_text(eval_id)!r} "
                "(--evals PATH names the eval files).",
                severity="warning",
                markup=False,
            )
            return
        eval_file, case = found
        if then == "edit":
            self._edit(eval_file.path, case.line)
            return
        self._inspect(eval_file.path, case, index, drift)

    def _edit(self, path: str, line: int | None) -> None:
        from ..editor import open_in_editor

        open_in_editor(path, line, suspend=self.app.suspend, notify=self.notify)

    def _inspect(self, path: str, case: EvalCase, index: int, drift: int | None) -> None:
        from ..session import Session

        run = self.run
        if run is None:
            return
        results = run.results
        record = results.record(index)
        mode = "agent" if record.agent_request is not None and record.lm_request is None else "lm"
        session = Session([path], repo_root=self.repo_root)
        names = {code: name for name, code in DRIFT_CODES.items()}
        drift_said = f"; drift: {names[drift]}" if drift in names else ""
        score = results.score_of(index)
        session.notes = [
            f"Opened from the run {run.name}: score {'—' if score is None else f'{score:.2f}'}"
            f" ({results.target_of(index) or 'no target'}){drift_said}. esc goes back to the results."
        ]
        self.post_message(
            OpenTestOfResult(
                session,
                mode,
                inspector_over_results,
                lambda screen: self._select_when_loaded(screen, session, path, case, 0),
            )
        )

    def _select_when_loaded(self, screen: SelectsCase, session: Session, path: str, case: EvalCase, tries: int) -> None:
        key = session.find_key(path, case.id, case.index)
        if key is not None:
            screen.select_case(key)
        elif tries < 40:  # a big file loads in the background: look again for up to two seconds
            self.set_timer(0.05, lambda: self._select_when_loaded(screen, session, path, case, tries + 1))

    def action_statistics(self) -> None:
        run = self.run
        if run is None or not run.indexed:
            self.notify("Statistics are computed once the run is read.", timeout=3)
            return
        self.notify("Computing statistics…", timeout=1)
        self._compute_statistics(run)

    @work(thread=True, exclusive=True, group="statistics")
    def _compute_statistics(self, run: Run) -> None:
        from turnlens.formatting.results.stats import run_stats_lines

        lines = run_stats_lines(run.results, run.folder)  # reads each test's timing and transcript: not on the loop
        title = f"{visible_text(run.name)} — statistics, as agentv inspect stats"
        self.app.call_from_thread(self.app.push_screen, StatisticsScreen(title, lines))

    def action_history(self) -> None:
        """Each test's score across the runs of this run's experiment, and their trend (agentv trend)."""
        run = self.run
        if run is None:
            return
        source = run.source
        same = [
            r
            for r in self.model.runs
            if r.source is not None and source is not None and suite_of(r.source) == suite_of(source)
        ]
        if len(same) < 2:
            self.notify("A history needs two runs or more of this experiment (open the folder of runs).", timeout=3)
            return
        self._compute_history([r.path for r in same], visible_text(suite_of(source)) if source else "")

    @work(thread=True, exclusive=True, group="history")
    def _compute_history(self, paths: list[str], experiment: str) -> None:
        from turnlens.formatting.results.trend import trend, trend_lines

        runs = []
        for path in paths:  # read apart from the runs on screen: their indexing is the loader's
            results = ResultsFile(path)
            for _ in results.scan():
                pass
            runs.append(results)
        lines = trend_lines(trend(runs))
        for results in runs:
            results.close()
        title = f"{experiment} — score history and trend, as agentv trend"
        self.app.call_from_thread(self.app.push_screen, StatisticsScreen(title, lines))

    def action_targets(self) -> None:
        from turnlens.formatting.results.compare import matrix_lines

        run = self.run
        if run is None:
            return
        if not run.indexed:
            self.notify("The run is still being read: the targets are compared once it is.", timeout=3)
            return
        lines = matrix_lines(run.results, self.delta)
        self.app.push_screen(TargetsScreen(f"{visible_text(run.name)} — targets compared", lines))

    def action_open_current(self) -> None:
        list_ = self._list
        list_.focus()
        list_.action_select()

    # -- detail ----------------------------------------------------------------------------------------------

    @on(ResultList.Selected, "#results-list")
    def _open_result(self, event: ResultList.Selected) -> None:
        from .detail import ResultDetailScreen

        run = self.run
        if run is None:
            return
        self.app.push_screen(
            ResultDetailScreen(
                run.results,
                self.model.rows,
                event.position,
                threshold=self.model.threshold,
                threshold_source=self.model.threshold_setting.source,
                drift=self._drift_checker(run),
                run_folder=run.folder,
                highlight=self.model.text_query,
            )
        )

    def _open_at(self, index: int) -> None:
        """Open result `index` of the current run from the command palette (the filter may hide it: cleared)."""
        position = self.model.position_of(index)
        if position is None:
            self.model.show_everything()
            self._reselect()
            position = index
        self._list.select_at(position)

    # -- drift -----------------------------------------------------------------------------------------------

    def _drift_checker(self, run: Run) -> DriftChecker:
        if run.drift_checker is None:
            from turnlens.formatting.results.drift import DriftChecker

            run.drift_checker = DriftChecker(run.path, evals=self.evals, repo_root=self.repo_root)
        return run.drift_checker

    def _start_drift(self, run: Run) -> None:
        run.drift = bytearray(run.results.count)
        self.loader.check_drift(run, run.drift, self._drift_checker(run))

    def action_drift_all(self) -> None:
        run = self.run
        if run is None or not run.indexed:
            self.notify("Drift can be checked once the file is indexed.", severity="warning")
            return
        if run.drift is not None:
            self.notify("Drift: " + (", ".join(f"{v} {k}" for k, v in run.drift_counts.items() if v) or "checking…"))
            return
        if self.model.wants_drift(run, auto=False):
            self._start_drift(run)

    @on(DriftChecked)
    def _drift_checked(self, message: DriftChecked) -> None:
        run = message.run
        if run.drift is not message.marks:  # read again meanwhile: this check was for the old file
            return
        if message.note:
            run.drift_note = message.note
        run.drift[message.start : message.start + len(message.codes)] = message.codes
        if message.counts:
            run.drift_counts = message.counts
        if run is self.run:
            self._update_header()

    # -- command palette -------------------------------------------------------------------------------------

    def palette_commands(self) -> list[tuple[str, str, str]]:
        return table_commands(self, RESULTS_ACTIONS)

    def palette_extras(self) -> list[tuple[str, str, Callable[[], Any]]]:
        """After the actions: one entry per filter (`Show failures`), per run of the folder (`Run <name>`), and per
        result of the current run (`Result <id>`, opening it)."""
        choices = list(self.model.filter_choices())
        entries: list[tuple[str, str, Callable[[], Any]]] = [
            (f"Show {name}", "results list filter", partial(self._set_filter, choices, n))
            for n, name in enumerate(choices)
        ]
        if len(self.model.runs) > 1:
            entries.extend(
                (f"Run {visible_text(run.name)}", "switch to this run", partial(self._go_to_run, n))
                for n, run in enumerate(self.model.runs)
            )
        entries.extend(
            (label, where, partial(self._open_at, index)) for label, where, index in self.model.result_entries()
        )
        return entries


def inspector_over_results(base: type[Any]) -> type[Any]:
    """The inspector opened from a result: esc goes back to the results once nothing else takes it (a filter to
    clear, the filter box to leave)."""

    # (the inspector's screen class is passed in: the two views do not import each other)
    class InspectorOverResults(base):  # type: ignore[misc]
        BINDINGS = [Binding("escape", "back_to_results", "Results", priority=True)]

        def action_back_to_results(self) -> None:
            from ..widgets.case_list import CaseList

            case_list = self.query_one(CaseList)
            if case_list.filter_input.value or case_list.filter_input.has_focus:
                case_list.action_escape()
                return
            self.dismiss()

    return InspectorOverResults


QUIT_BINDING = Binding("q", "app.quit", "Quit")  # q quits from every screen, a box over one too (esc closes it)


class ChoiceScreen(ModalScreen[int | None]):
    """A short list to choose one line from: enter or a click chooses, esc leaves it as it was."""

    BINDINGS = [Binding("escape", "dismiss(None)", "Close"), QUIT_BINDING]

    def __init__(self, title: str, labels: list[str], current: int = 0) -> None:
        super().__init__()
        self.box_title = title
        self.labels = labels
        self.current = current

    def compose(self) -> ComposeResult:
        options = OptionList(*(Text(label) for label in self.labels), id="choice-list")
        options.border_title = self.box_title
        options.border_subtitle = "enter chooses · esc closes · q quits"
        yield options

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.highlighted = self.current
        options.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option_index)


class TextBoxScreen(ModalScreen[None]):
    """A box of plain lines over the screen (made by formatting, sanitised), fitted to the terminal and
    scrolled both ways with the keys or the mouse when the lines do not fit."""

    BINDINGS = [Binding("escape", "dismiss", "Close"), QUIT_BINDING]

    def __init__(self, title: str, lines: list[str]) -> None:
        super().__init__()
        self.box_title = title
        self.lines = lines

    def compose(self) -> ComposeResult:
        with ScrollableContainer(id="text-box") as box:
            box.border_title = self.box_title
            box.border_subtitle = "esc closes · arrows scroll · q quits"
            # at least as wide as its title (a box of two short lines cut it), within its max-width (app.tcss: 95%)
            box.styles.min_width = min(cell_len(self.box_title) + TITLE_CHROME, self.app.size.width * 95 // 100)
            yield Static(Text("\n".join(self.lines), end="", no_wrap=True), markup=False)

    def on_mount(self) -> None:
        self.query_one("#text-box").focus()


class RunSummaryScreen(TextBoxScreen):
    """A run folder's benchmark.json, every figure (lines made by formatting/results/benchmark.py, sanitised)."""

    BINDINGS = [Binding("escape,b", "dismiss", "Close"), QUIT_BINDING]

    def __init__(self, name: str, lines: list[str]) -> None:
        super().__init__(f"{name} — run summary", lines)
        self.run_name = name


class StatisticsScreen(TextBoxScreen):
    """Mean and percentiles of a run's figures (formatting/results/stats.py)."""

    BINDINGS = [Binding("escape,percent_sign", "dismiss", "Close"), QUIT_BINDING]


class TargetsScreen(TextBoxScreen):
    """A run's targets compared: the N-way matrix and every pair (formatting/results/compare.py)."""

    BINDINGS = [Binding("escape,t", "dismiss", "Close"), QUIT_BINDING]
