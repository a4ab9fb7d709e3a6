"""The results view: one run (list + header, detail on enter) or two runs compared.

`ResultsScreen(paths, evals, repo_root)` is what `tui.app.make_app` pushes for results files. Data flow: thread
workers index each file (`ResultsFile.scan`) and post `IndexProgressed`; the screen recomputes the visible row
order from the summaries (another thread worker, newest request wins) and hands rows down to the list.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.message import Message
from textual.screen import ModalScreen, Screen
from textual.timer import Timer
from textual.widgets import Footer, Input, Static

from turnlens.formatting.results.discover import RunSource, expand_results_paths, run_source
from turnlens.formatting.results.reader import (
    FILTERS,
    GRADER_FILTER,
    SORT_KEYS,
    ResultsFile,
    ScanProgress,
    StatsCounter,
    select,
    visible_text,
)
from turnlens.formatting.sanitize import sanitize

from .widgets import (
    DRIFT_DRIFTED,
    DRIFT_EQUAL,
    DRIFT_NOT_FOUND,
    DRIFT_OTHER,
    CompareList,
    HeaderState,
    ResultList,
    ResultsHeader,
    compare_header_text,
)

DEFAULT_THRESHOLD = 0.5


def _narrowing(screen) -> str:
    """What hides results: the filter, the search, the full-text search."""
    parts = []
    if screen.filter != "all":
        parts.append(f"show {screen.filter}")
    if screen.search_text:
        parts.append(f"search {screen.search_text!r}")
    if screen.text_query:
        parts.append(f"text {screen.text_query!r}")
    return ", ".join(parts)


def _megabytes(size: int) -> str:
    return f"{size / (1024 * 1024):.0f} MB"


AUTO_DRIFT_LIMIT = 20_000  # bigger runs check drift on demand (d): it parses every record again
TEXT_AS_YOU_TYPE_BYTES = 20 * 1024 * 1024  # smaller files are searched in full text at every key press
SYNC_SELECT_LIMIT = 5_000  # below this many results sorting in the UI thread is quicker than a thread hop
RESELECT_EVERY = 0.3  # seconds between re-sorts while a big file is still being indexed


class ResultsCommands(Provider):
    """Every action of the results screens in the command palette."""

    def _commands(self) -> list[tuple[str, str, Callable[[], Any]]]:
        screen = self.screen
        getter = getattr(screen, "palette_commands", None)
        return list(getter()) if getter else []

    async def discover(self) -> Hits:
        for title, help_text, callback in self._commands():
            yield DiscoveryHit(title, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, help_text, callback in self._commands():
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), callback, help=help_text)


def _action(screen: Screen, action: str):
    async def run() -> None:
        await screen.run_action(action)

    return run


@dataclass
class Run:
    """One results file and what the screen learnt about it."""

    path: str
    results: ResultsFile
    source: RunSource | None = None
    progress: ScanProgress | None = None
    started: bool = False
    drift: bytearray | None = None
    drift_counts: dict[str, int] = field(default_factory=dict)
    drift_checker: object = None
    drift_note: str = ""
    text_mask: bytearray | None = None  # full-text search hits, one byte per record
    stats: StatsCounter = field(default_factory=StatsCounter)


def _suite_of(source: RunSource) -> str:
    """AgentV 0.15 names runs `<dataset>_<timestamp>.jsonl`: the part before the first `_`; an AgentV 4 run folder
    `runs/<experiment>/<timestamp>/` belongs to its experiment."""
    if source.folder is not None:
        return "runs of " + source.name.rsplit("/", 1)[0] if "/" in source.name else source.name
    return os.path.basename(source.path).split("_", 1)[0]


def _previous_run_of_same_suite(sources: list[RunSource], current: int) -> int | None:
    """The nearest earlier run of the same suite, else the nearest later one, else None (nothing to compare).
    Runs are listed newest first, so an earlier run comes after the current one in the list."""
    suite = _suite_of(sources[current])
    same = [i for i in range(len(sources)) if i != current and _suite_of(sources[i]) == suite]
    earlier = [i for i in same if i > current]
    if earlier:
        return earlier[0]
    return same[-1] if same else None


def _rows_for(run: Run, sort: str, reverse: bool, filter: str, query: str, threshold: float):
    """The record indexes to list, in order; `drifted` keeps the results whose request no longer matches."""
    base_filter = "all" if filter == "drifted" else filter
    rows = select(run.results, sort=sort, reverse=reverse, filter=base_filter, query=query, threshold=threshold)
    if filter == "drifted":
        marks = run.drift or bytearray()
        rows = type(rows)("I", (i for i in rows if i < len(marks) and marks[i] == DRIFT_DRIFTED))
    if run.text_mask is not None:
        mask = run.text_mask
        rows = type(rows)("I", (i for i in rows if i < len(mask) and mask[i]))
    return rows


def _run_title(run: Run) -> str:
    """The header's title: a run folder by its folder, a results file by its path (as given)."""
    source = run.source
    if source is not None and source.folder is not None:
        return source.folder.rstrip("/") + "/"
    return run.path


def _run_name(run: Run) -> str:
    """How a compare header names a run: `<experiment>/<timestamp>` for a run folder, else the file name."""
    return run.source.name if run.source is not None else os.path.basename(run.path)


def _run_argument(run: Run) -> str:
    """What reopens this run: its folder for an AgentV 4 run, else its file."""
    source = run.source
    return source.folder if source is not None and source.folder is not None else run.path


class IndexProgressed(Message):
    def __init__(self, run: Run, progress: ScanProgress) -> None:
        super().__init__()
        self.run = run
        self.progress = progress


class Followed(Message):
    """The current run's file was looked at again: it grew (`added` records) or was truncated / replaced."""

    def __init__(self, run: Run, outcome: str, added: int) -> None:
        super().__init__()
        self.run = run
        self.outcome = outcome
        self.added = added


FOLLOW_EVERY = 0.2  # seconds between looks at the current run's file (one stat when nothing changed)


class DriftProgressed(Message):
    def __init__(self, run: Run, done: bool) -> None:
        super().__init__()
        self.run = run
        self.done = done


class ResultsScreen(Screen):
    """Results of one run (a file, or a folder of runs: [ and ] switch) or, given two files, the two compared."""

    COMMANDS = {ResultsCommands}
    BINDINGS = [
        Binding("s", "cycle_sort", "Sort"),
        Binding("r", "reverse", "Reverse", show=False),
        Binding("f", "cycle_filter", "Filter"),
        Binding("slash", "search", "Search"),
        Binding("F", "search_text", "Full text", show=False),
        Binding("plus,equals_sign", "threshold(0.05)", "Threshold +", key_display="+"),
        Binding("minus", "threshold(-0.05)", "Threshold −", key_display="-"),
        Binding("d", "drift_all", "Drift"),
        Binding("left_curly_bracket", "run(-1)", "Run", key_display="{"),
        Binding("right_curly_bracket", "run(1)", "Run", key_display="}"),
        Binding("v", "compare_previous", "Versus"),
        Binding("c", "copy", "Copy", show=False),
        Binding("colon", "app.command_palette", "Jump", show=False, key_display=":"),
        Binding("escape", "back", "Clear/back", show=False),
        Binding("q", "app.quit", "Quit", show=False),
        Binding("question_mark", "help", "Help"),
    ]

    def __init__(
        self,
        paths: Sequence[str],
        evals: str | None = None,
        repo_root: str | None = None,
        *,
        mode: str | None = None,
        profile: str | None = None,
        threshold: float = DEFAULT_THRESHOLD,
        closable: bool = False,
        name: str | None = None,
        watch: bool = True,
    ) -> None:
        super().__init__(name=name)
        if closable:  # pushed over another view (compare): the footer says how to get back
            self._bindings.key_to_bindings["escape"] = [Binding("escape", "back", "Back")]
            self._bindings.key_to_bindings["q"] = [Binding("q", "back", "Back", show=False)]
        self.paths = [os.fspath(p) for p in paths]
        self.evals = evals
        self.repo_root = repo_root
        self.follow = watch  # follow a growing run (not `watch`: that name is Textual's watch() method)
        self.threshold = threshold
        self.closable = closable
        sources, problems = expand_results_paths(self.paths)
        self.path_problems = problems
        self.runs = [Run(source.path, ResultsFile(source.path), source) for source in sources]
        # two runs named (files or run folders): compared; a folder of runs is browsed with [ ]
        self.compare_mode = (
            len(self.paths) == 2
            and len(self.runs) == 2
            and all(
                not os.path.isdir(p) or r.source is not None and r.source.folder is not None
                for p, r in zip(self.paths, self.runs)
            )
        )
        self.current = 0
        self.sort = "score"
        self.reverse = False
        self.filter = "all"
        self.search_text = ""
        self.text_query = ""  # full-text search: applied on enter (as you type for small files)
        self._selection_generation = 0
        self._last_reselect = 0.0
        self._stop = threading.Event()
        self._text_timer: Timer | None = None  # ticks the elapsed time of a full-text search on a large file
        # compare mode
        self.comparison = None
        self.changed_only = False

    # -- layout ----------------------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        if self.compare_mode:
            yield Static(Text("indexing both runs…", style="dim"), id="compare-header")
            yield Input(placeholder="search eval ids", id="results-search")
            yield Static(id="results-problems", markup=False)
            yield Static(self._compare_columns(), id="results-columns")
            yield CompareList(threshold=self.threshold, id="compare-list")
        else:
            yield ResultsHeader(id="results-header")
            yield Input(placeholder="search eval id, target, dataset", id="results-search")
            yield Input(
                placeholder="search inside every result (question, answer, reasoning…), enter to run",
                id="results-text-search",
            )
            yield Static(id="results-problems", markup=False)
            if self.runs:
                yield ResultList(self.runs[0].results, threshold=self.threshold, id="results-list")
            else:
                yield Static(Text("No results files to show.", style="bold"), id="results-empty")
        yield Footer()

    @staticmethod
    def _compare_columns() -> Text:
        return Text(f"{'status':<11}{'A':<16}{'B':<16}{'Δ':<7}id", end="")  # the Static pads one cell

    def on_mount(self) -> None:
        self._show_problems()
        if self.compare_mode:
            self._index_both(self.runs[0], self.runs[1])
            self.query_one(CompareList).focus()
        elif self.runs:
            self._start_run(self.runs[self.current])
            self.query_one(ResultList).focus()
            if self.follow:
                self._following = False
                self.set_interval(FOLLOW_EVERY, self._look_again)

    # -- following a run in progress ------------------------------------------------------------------------

    def _look_again(self) -> None:
        run = self.run
        if run is None or self._following or run.progress is None or not run.progress.done:
            return
        self._following = True
        self._follow(run)

    @work(thread=True, group="follow")
    def _follow(self, run: Run) -> None:
        before = run.results.count
        try:
            outcome = run.results.follow()
        except (OSError, ValueError):
            outcome = "replaced"
        self.post_message(Followed(run, outcome, run.results.count - before))

    @on(Followed)
    def _followed(self, message: Followed) -> None:
        self._following = False
        run = message.run
        if message.outcome == "same" or self._stop.is_set():
            return
        if message.outcome == "grown":
            if run is self.run and message.added:
                self._reselect()  # the cursor stays on the row the user chose
            return
        # truncated, rewritten (AgentV rewrites index.jsonl with slim rows at the end of a run) or removed
        run.results.close()
        run.results = ResultsFile(run.path)
        run.progress, run.started, run.drift, run.drift_counts, run.text_mask = None, False, None, {}, None
        run.stats = StatsCounter()
        if run is self.run:
            list_ = self.query_one(ResultList)
            list_.results = run.results
            list_.drift_marks = None
            self._start_run(run)
            self._show_problems()
        gone = not os.path.exists(run.path)
        self.notify(
            f"{visible_text(_run_title(run))} was {'removed' if gone else 'truncated or rewritten'}: read again.",
            severity="warning",
            timeout=4,
        )

    def on_unmount(self) -> None:
        self._stop.set()

    @property
    def run(self) -> Run | None:
        return self.runs[self.current] if self.runs else None

    # -- indexing --------------------------------------------------------------------------------------------

    def _start_run(self, run: Run) -> None:
        self._update_header()
        if run.started:
            self._reselect()
            return
        run.started = True
        # The first record is read right here, so it is on the very first frame; the worker thread resumes the
        # same generator for the rest of the file.
        scan = run.results.scan(batch_seconds=0.1, stop=self._stop)
        first = next(scan, None)
        if first is not None:
            self._indexed(IndexProgressed(run, first))
        if first is None or not first.done:
            # after the first frame is on screen: the scan thread competes for the GIL with the painting
            self.call_after_refresh(self._index, run, scan)

    @work(thread=True, group="index")
    def _index(self, run: Run, scan) -> None:
        for progress in scan:
            self.post_message(IndexProgressed(run, progress))

    @on(IndexProgressed)
    def _indexed(self, message: IndexProgressed) -> None:
        run = message.run
        first = run.progress is None
        run.progress = message.progress
        if run is not self.run or self.compare_mode:
            return
        now = time.monotonic()
        # re-sorting 100 000 summaries costs the index worker GIL time: less often as the file grows
        every = RESELECT_EVERY if run.results.count < 20_000 else 3 * RESELECT_EVERY
        if first or message.progress.done or now - self._last_reselect >= every:
            self._last_reselect = now
            self._reselect()
            self._show_problems()
        if message.progress.done:
            self._maybe_check_drift(run, auto=True)

    def _update_header(self, shown: int | None = None) -> None:
        run = self.run
        if run is None or self.compare_mode:
            return
        results = run.results
        stats = run.stats.update(results, self.threshold) if results.count else None
        list_ = self.query_one(ResultList)
        title = _run_title(run)
        if results.error is not None:
            title = f"{title}: {results.error.message}"
        count = len(list_.rows) if shown is None else shown
        narrowed = self.filter != "all" or self.search_text or self.text_query
        list_.empty_note = (
            Text(f"  No result to show ({_narrowing(self)}) — f changes the filter, esc clears it.", style="dim italic")
            if narrowed and not count and results.count
            else None
        )
        list_.refresh()
        self.query_one(ResultsHeader).state = HeaderState(
            title=title,
            stats=stats,
            threshold=self.threshold,
            progress=run.progress,
            sort=self.sort,
            reverse=self.reverse,
            filter=self.filter,
            query=self.search_text,
            text_query=self.text_query,
            shown=len(list_.rows) if shown is None else shown,
            problems=results.problem_count,
            drift=run.drift_counts,
            drift_note=run.drift_note,
            run_position=f"run {self.current + 1} of {len(self.runs)}" if len(self.runs) > 1 else "",
            evals_given=self.evals is not None,
        )

    def _show_problems(self) -> None:
        problems = list(self.path_problems)
        for run in self.runs if self.compare_mode else ([self.run] if self.run else []):
            if run.results.error is not None:
                problems.append(run.results.error)
            problems.extend(run.results.diagnostics)
        widget = self.query_one("#results-problems", Static)
        if not problems:
            widget.set_class(False, "-visible")
            return
        text = Text(end="")
        for n, problem in enumerate(problems[:3]):
            if n:
                text.append("\n")
            text.append("⚠ ", style="bold")
            text.append(visible_text(str(problem))[:300])
        total = len(self.path_problems) + sum(
            (r.results.problem_count + (r.results.error is not None))
            for r in (self.runs if self.compare_mode else ([self.run] if self.run else []))
        )
        if total > 3:
            text.append(f"\n… and {total - 3:,} more problems; the other lines are shown", style="italic")
        widget.update(text)
        widget.set_class(True, "-visible")

    # -- selection (sort / filter / search) -----------------------------------------------------------------

    def _reselect(self) -> None:
        run = self.run
        if run is None:
            return
        list_ = self.query_one(ResultList)
        list_.threshold = self.threshold
        list_.show_time = self.sort == "time"
        if (
            self.sort == "file"
            and not self.reverse
            and self.filter == "all"
            and not self.search_text
            and run.text_mask is None
        ):
            # the identity order needs no work at all: a range over what is indexed so far
            list_.set_rows(range(run.results.count))
            self._update_header()
            return
        self._selection_generation += 1
        arguments: tuple[Any, ...] = (
            run,
            self._selection_generation,
            self.sort,
            self.reverse,
            self.filter,
            self.search_text,
            self.threshold,
        )
        if run.results.count <= SYNC_SELECT_LIMIT:
            self._apply_rows(run, self._selection_generation, _rows_for(*arguments[:1], *arguments[2:]))
        else:
            self._select(*arguments)

    @work(thread=True, exclusive=True, group="select")
    def _select(
        self, run: Run, generation: int, sort: str, reverse: bool, filter: str, query: str, threshold: float
    ) -> None:
        rows = _rows_for(run, sort, reverse, filter, query, threshold)
        self.app.call_from_thread(self._apply_rows, run, generation, rows)

    def _apply_rows(self, run: Run, generation: int, rows) -> None:
        if generation != self._selection_generation or run is not self.run:
            return
        self.query_one(ResultList).set_rows(rows)
        self._update_header()

    # -- actions ---------------------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        single_only = {"cycle_sort", "reverse", "threshold", "drift_all", "run", "compare_previous", "search_text"}
        if self.compare_mode and action in single_only:
            return False
        if action in {"run", "compare_previous"} and len(self.runs) < 2:
            return False
        return True

    def action_cycle_sort(self) -> None:
        self.sort = SORT_KEYS[(SORT_KEYS.index(self.sort) + 1) % len(SORT_KEYS)]
        self._reselect()

    def action_reverse(self) -> None:
        self.reverse = not self.reverse
        self._reselect()

    def action_cycle_filter(self) -> None:
        if self.compare_mode:
            self.changed_only = not self.changed_only
            self._show_comparison()
            return
        graders = tuple(GRADER_FILTER + name for name in self.run.results.grader_names) if self.run else ()
        choices = FILTERS + graders + (("drifted",) if self.run and self.run.drift is not None else ())
        self.filter = choices[(choices.index(self.filter) + 1) % len(choices)] if self.filter in choices else "all"
        self._reselect()

    def action_search(self) -> None:
        search = self.query_one("#results-search", Input)
        search.add_class("-visible")
        search.focus()

    def action_search_text(self) -> None:
        search = self.query_one("#results-text-search", Input)
        search.add_class("-visible")
        run = self.run
        if run is not None and run.results.size > TEXT_AS_YOU_TYPE_BYTES and not self.text_query:
            # Too big to search at every key press: say so, or the box seems to do nothing.
            search.border_subtitle = f"large file ({_megabytes(run.results.size)}): type, then enter to search"
        search.focus()

    @on(Input.Changed, "#results-text-search")
    def _text_changed(self, event: Input.Changed) -> None:
        run = self.run
        if run is not None and run.results.size <= TEXT_AS_YOU_TYPE_BYTES:
            self._run_text_search(event.value)
        elif run is not None and event.value != self.text_query and self._text_timer is None:
            event.input.border_subtitle = f"large file ({_megabytes(run.results.size)}): enter to search"

    @on(Input.Submitted, "#results-text-search")
    def _text_submitted(self, event: Input.Submitted) -> None:
        self._run_text_search(event.value)
        self._focus_list()

    def _run_text_search(self, needle: str) -> None:
        run = self.run
        if run is None:
            return
        self.text_query = needle
        if not needle:
            run.text_mask = None
            self._reselect()
            return
        if run.results.size <= TEXT_AS_YOU_TYPE_BYTES:
            run.text_mask = run.results.find_text(needle)
            self._reselect()
        else:
            search = self.query_one("#results-text-search", Input)
            started = time.monotonic()
            size = _megabytes(run.results.size)

            def tick() -> None:
                search.border_subtitle = f"searching {size} for the text… {time.monotonic() - started:.0f} s"

            tick()
            if self._text_timer is not None:
                self._text_timer.stop()
            self._text_timer = self.set_interval(0.5, tick)
            self._find_text(run, needle)

    @work(thread=True, exclusive=True, group="text-search")
    def _find_text(self, run: Run, needle: str) -> None:
        mask = run.results.find_text(needle, stop=self._stop)
        if mask is not None:
            self.app.call_from_thread(self._text_found, run, needle, mask)

    def _text_found(self, run: Run, needle: str, mask: bytearray) -> None:
        if needle != self.text_query or run is not self.run:
            return
        if self._text_timer is not None:
            self._text_timer.stop()
            self._text_timer = None
        hits = sum(mask)
        self.query_one(
            "#results-text-search", Input
        ).border_subtitle = f"{hits:,} result{' contains' if hits == 1 else 's contain'} the text · esc clears"
        run.text_mask = mask
        self._reselect()

    def action_threshold(self, delta: float) -> None:
        self.threshold = round(min(1.0, max(0.0, self.threshold + delta)), 2)
        self._reselect()
        self._update_header()

    def action_run(self, step: int) -> None:
        if len(self.runs) < 2:
            return
        self.current = (self.current + step) % len(self.runs)
        run = self.run
        if run is None:
            return
        list_ = self.query_one(ResultList)
        list_.results = run.results
        list_.drift_marks = run.drift
        list_.reset()
        self._start_run(run)
        self._show_problems()

    def action_compare_previous(self) -> None:
        """Compare this run with another run of the same suite (same file-name prefix, the nearest earlier one
        first); the earlier of the two is A."""
        if len(self.runs) < 2:
            return
        sources = [run.source or run_source(run.path) for run in self.runs]
        other = _previous_run_of_same_suite(sources, self.current)
        if other is None:
            self.notify(
                f"No other run of {_suite_of(sources[self.current])} here to compare with. To compare any two "
                "files: turnlens A.jsonl B.jsonl",
                severity="warning",
            )
            return
        # A is always the earlier run (runs are listed newest first), so "regressed" means what it says.
        newer, older = sorted((other, self.current))
        self.app.push_screen(
            ResultsScreen(
                [_run_argument(self.runs[older]), _run_argument(self.runs[newer])],
                self.evals,
                self.repo_root,
                threshold=self.threshold,
                closable=True,
            )
        )

    def action_back(self) -> None:
        text_search = self.query_one("#results-text-search", Input) if not self.compare_mode else None
        if text_search is not None and (text_search.has_class("-visible") or self.text_query):
            if self._text_timer is not None:
                self._text_timer.stop()
                self._text_timer = None
            text_search.border_subtitle = ""
            text_search.value = ""
            text_search.remove_class("-visible")
            self._run_text_search("")
            self._focus_list()
            return
        search = self.query_one("#results-search", Input)
        if search.has_class("-visible") or self.search_text:
            search.value = ""
            search.remove_class("-visible")
            self.search_text = ""
            self._refresh_view()
            self._focus_list()
            return
        if not self.compare_mode and self.filter != "all":
            self.filter = "all"
            self._reselect()
            return
        if self.closable:
            self.dismiss()

    def _focus_list(self) -> None:
        for found in self.query(CompareList if self.compare_mode else ResultList):
            found.focus()

    def _refresh_view(self) -> None:
        if self.compare_mode:
            self._show_comparison()
        else:
            self._reselect()

    @on(Input.Changed, "#results-search")
    def _search_changed(self, event: Input.Changed) -> None:
        self.search_text = event.value
        self._refresh_view()

    @on(Input.Submitted, "#results-search")
    def _search_submitted(self, event: Input.Submitted) -> None:
        self._focus_list()

    # -- detail ----------------------------------------------------------------------------------------------

    @on(ResultList.Selected, "#results-list")
    def _open_result(self, event: ResultList.Selected) -> None:
        from .detail import ResultDetailScreen

        run = self.run
        if run is None:
            return
        list_ = self.query_one(ResultList)
        self.app.push_screen(
            ResultDetailScreen(
                run.results,
                list_.rows,
                list_.cursor,
                threshold=self.threshold,
                drift=self._drift_checker(run),
                run_folder=run.source.folder if run.source is not None else None,
                highlight=self.text_query,
            )
        )

    @on(CompareList.Selected, "#compare-list")
    def _open_pair(self, event: CompareList.Selected) -> None:
        from .detail import CompareDetailScreen

        list_ = self.query_one(CompareList)
        a, b = self.runs
        self.app.push_screen(
            CompareDetailScreen(
                a.results,
                b.results,
                list_.rows,
                list_.cursor,
                threshold=self.threshold,
                names=(_run_name(a), _run_name(b)),
                run_folders=tuple(r.source.folder if r.source is not None else None for r in (a, b)),  # type: ignore[arg-type]
            )
        )

    # -- drift -----------------------------------------------------------------------------------------------

    def _drift_checker(self, run: Run):
        if run.drift_checker is None:
            from turnlens.formatting.results.drift import DriftChecker

            run.drift_checker = DriftChecker(run.path, evals=self.evals, repo_root=self.repo_root)
        return run.drift_checker

    def _maybe_check_drift(self, run: Run, auto: bool) -> None:
        if run.drift is not None or not run.results.count:
            return
        if auto and run.results.count > AUTO_DRIFT_LIMIT:
            return
        run.drift = bytearray(run.results.count)
        self._check_drift(run)

    def action_drift_all(self) -> None:
        run = self.run
        if run is None or run.progress is None or not run.progress.done:
            self.notify("Drift can be checked once the file is indexed.", severity="warning")
            return
        if run.drift is not None:
            self.notify("Drift: " + (", ".join(f"{v} {k}" for k, v in run.drift_counts.items() if v) or "checking…"))
            return
        self._maybe_check_drift(run, auto=False)

    @work(thread=True, group="drift")
    def _check_drift(self, run: Run) -> None:
        from turnlens.formatting.results.drift import display_path

        checker = self._drift_checker(run)
        if not checker.eval_paths:
            run.drift_note = f"no eval files found under {display_path(checker.root)}"
            self.post_message(DriftProgressed(run, True))
            return
        codes = {"equal": DRIFT_EQUAL, "drifted": DRIFT_DRIFTED, "eval not found": DRIFT_NOT_FOUND}
        counts = {"drifted": 0, "equal": 0, "eval not found": 0, "other": 0}
        marks = run.drift
        assert marks is not None  # made before this worker starts
        last = time.monotonic()
        for index in range(run.results.count):
            if self._stop.is_set():
                return
            try:
                report = checker.check(run.results.record(index))
                status = report.status
            except Exception:  # an engine failure on one case must not stop the others
                status = "other"
            code = codes.get(status, DRIFT_OTHER)
            marks[index] = code
            counts[status if status in counts else "other"] += 1
            if time.monotonic() - last > 0.25:
                last = time.monotonic()
                run.drift_counts = dict(counts)
                self.post_message(DriftProgressed(run, False))
        run.drift_counts = dict(counts)
        self.post_message(DriftProgressed(run, True))

    @on(DriftProgressed)
    def _drift_progressed(self, message: DriftProgressed) -> None:
        if message.run is not self.run or self.compare_mode:
            return
        list_ = self.query_one(ResultList)
        list_.drift_marks = message.run.drift
        list_.refresh()
        self._update_header()

    # -- compare mode ----------------------------------------------------------------------------------------

    @work(thread=True, group="index")
    def _index_both(self, a: Run, b: Run) -> None:
        from turnlens.formatting.results.compare import compare_runs

        for run in (a, b):
            for progress in run.results.scan(batch_seconds=0.25, stop=self._stop):
                run.progress = progress
                self.app.call_from_thread(self._compare_progress)
            if self._stop.is_set():
                return
        comparison = compare_runs(a.results, b.results)
        self.app.call_from_thread(self._compared, comparison)

    def _compare_progress(self) -> None:
        if self.comparison is not None:
            return
        a, b = self.runs
        done = sum(r.progress.position if r.progress else 0 for r in (a, b))
        total = max(1, a.results.size + b.results.size)
        header = self.query_one("#compare-header", Static)
        header.update(
            compare_header_text(
                _run_name(a),
                _run_name(b),
                {},
                None,
                None,
                0,
                self.search_text,
                self.changed_only,
                progress=f"indexing {done / total:.0%}",
            )
        )

    def _compared(self, comparison) -> None:
        self.comparison = comparison
        self._show_problems()
        self._show_comparison()

    def _show_comparison(self) -> None:
        from turnlens.formatting.results.compare import filter_rows

        if self.comparison is None:
            return
        rows = filter_rows(self.comparison.rows, self.search_text, self.changed_only)
        self.query_one(CompareList).set_rows(rows)
        a, b = self.runs
        self.query_one("#compare-header", Static).update(
            compare_header_text(
                _run_name(a),
                _run_name(b),
                self.comparison.counts,
                self.comparison.mean_a,
                self.comparison.mean_b,
                len(rows),
                self.search_text,
                self.changed_only,
                paired_by=self.comparison.by,
                warning=(
                    "no ids pair: the two runs share no test (different suites?)"
                    if self.comparison.nothing_pairs
                    else ""
                ),
            )
        )

    # -- command palette -------------------------------------------------------------------------------------

    def palette_commands(self):
        commands = [
            ("Results: search", "Filter by eval id, target or dataset as you type (/)", "search"),
        ]
        if self.compare_mode:
            commands.append(("Results: show changed only / all", "Hide unchanged pairs (f)", "cycle_filter"))
        else:
            commands += [
                ("Results: full-text search inside every result", "Question, answer, reasoning… (F)", "search_text"),
                ("Results: cycle sort (score, id, time, file)", "s", "cycle_sort"),
                ("Results: reverse order", "r", "reverse"),
                ("Results: cycle filter (all, failures, errors, drifted)", "f", "cycle_filter"),
                ("Results: raise pass threshold", "+0.05 (+)", "threshold(0.05)"),
                ("Results: lower pass threshold", "-0.05 (-)", "threshold(-0.05)"),
                (
                    "Results: check drift against the eval files",
                    "Recompute every request with the engine (d)",
                    "drift_all",
                ),
            ]
            if len(self.runs) > 1:
                commands += [
                    ("Results: next run", "}", "run(1)"),
                    ("Results: previous run", "{", "run(-1)"),
                    ("Results: compare with the previous run", "v (versus)", "compare_previous"),
                ]
        commands.append(("Results: open the highlighted result", "enter", "open_current"))
        commands.append(("Results: copy the highlighted result's id", "c", "copy"))
        commands.append(("Results: help (keys and marks)", "?", "help"))
        found = [(title, help_text, _action(self, action)) for title, help_text, action in commands]
        return found + self._result_commands()

    PALETTE_RESULTS = 5000  # results listed by id in the palette: enough for any run one reads by eye

    def _result_commands(self):
        """One entry per result of the current run, after the actions: `Result <id>`, opening it."""
        run = self.run
        if run is None or self.compare_mode:
            return []
        results = run.results
        entries = []
        for index in range(min(results.count, self.PALETTE_RESULTS)):
            label = results.eval_ids[index] or f"(no id, line {results.lines[index]})"
            score = results.score_of(index)
            what = "error" if results.is_error(index) else ("no score" if score is None else f"score {score:.2f}")
            where = " · ".join(x for x in (results.target_of(index), results.dataset_of(index), what) if x)

            def open_result(index: int = index) -> None:
                self._open_at(index)

            entries.append((f"Result {visible_text(label)}", visible_text(where), open_result))
        return entries

    def action_help(self) -> None:
        self.app.push_screen(ResultsHelpScreen())

    def action_copy(self) -> None:
        """Copy the highlighted result's id and where it is recorded (file:line)."""
        if self.compare_mode:
            row = self.query_one(CompareList).current
            text = getattr(row, "key", None)
        else:
            run, current = self.run, self.query_one(ResultList).current
            if run is None or current is None:
                return
            index = cast(int, current)
            results = run.results
            text = f"{results.eval_ids[index] or '(no id)'}\t{run.path}:{results.lines[index]}"
        if text:
            text = sanitize(text)  # ids come from the results file: its escapes stay visible when pasted
            self.app.copy_to_clipboard(text)
            self.notify(f"Copied {visible_text(text.split(chr(9))[0])[:80]}", timeout=2)

    def _open_at(self, index: int) -> None:
        """Open result `index` of the current run from the command palette (the filter may hide it: cleared)."""
        run = self.run
        if run is None:
            return
        list_ = self.query_one(ResultList)
        position = list_._position_of(index)
        if position is None:
            self.filter, self.search_text, self.text_query, run.text_mask = "all", "", "", None
            self.sort, self.reverse = "file", False
            self._reselect()
            position = index
        list_.move_to(position)
        list_.action_select()

    def action_open_current(self) -> None:
        self._focus_list()
        (self.query_one(CompareList) if self.compare_mode else self.query_one(ResultList)).action_select()


HELP = """\
Results list
  ↑ ↓ j k  PgUp PgDn  Home End g G   move             enter / click   open the result
  s  sort: score (failures first), id, time, duration, cost, file order      r  reverse
  f  show: all, failures, errors, quality failures, ok, failing grader …, drifted
  + -  pass threshold ±0.05          /  search id, target, suite as you type     F  full-text search
  d  check drift against the eval files (automatic up to 20 000 results)
  { }  previous / next run (a folder of runs, newest first)    v  versus: compare with an earlier run
  c  copy the highlighted result's id    :  jump to a result by id (palette)    ctrl+p  every action
  esc  clear search / filter, or go back                                       q  quit (or close)

Marks in the list
  ✓ passed (score ≥ threshold)   · failed (or AgentV 4 recorded a quality failure)   ✗ execution error
  drift:  = input unchanged   ≠ the eval file now produces something else   ? eval case not found
          · nothing to compare (no input recorded, or the engine refused the case)
  AgentV 4 runs add duration, tokens and cost columns where the rows recorded them.

Result detail
  1 input  2 answer  3 verdict (graders, assertions)  4 grader prompt (e)  5 drift (d)  6 timing  7 raw
  ] [  next / previous result     n N  next / previous failing result     c  copy the tab     esc q  back
Compare two runs (turnlens A B, or v)
  f  changed only / all     enter  the two answers and verdicts side by side
  ] [  next / previous pair     n N  next / previous changed pair
"""


class ResultsHelpScreen(ModalScreen):
    """Keys and the meaning of the list marks."""

    BINDINGS = [Binding("escape,q,question_mark", "dismiss", "Close")]

    def compose(self) -> ComposeResult:
        help_box = Static(Text(HELP, end=""), markup=False)
        help_box.border_title = "turnlens results — keys"
        help_box.border_subtitle = "esc closes"
        yield help_box
