"""The results views' state in plain Python: what the screens show and why, with no widget in sight.

`ResultsModel` is the list of one run (or of a folder of runs): which run, the sort, the filter, the two searches,
the pass threshold, and the rows they select. `CompareModel` is two runs compared. The screens (screen.py,
compare.py) drive them from keys and worker messages and hand what they compute down to the widgets; everything
here can be tested without an app.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from turnlens.formatting.records import Diagnostic
from turnlens.formatting.results.benchmark import read_benchmark
from turnlens.formatting.results.discover import RunSource, expand_results_paths, run_order, run_source
from turnlens.formatting.results.index import ResultsFile, ScanProgress
from turnlens.formatting.results.queries import (
    DEFAULT_THRESHOLD,
    FILTERS,
    GRADER_FILTER,
    SORT_KEYS,
    VERDICT_PASS,
    Stats,
    StatsCounter,
    insert_selected,
    row_verdict,
    select,
)
from turnlens.formatting.results.record import visible_text
from turnlens.formatting.results.threshold import RunThreshold, run_threshold

if TYPE_CHECKING:  # (imported when two runs are compared, when drift is checked)
    from turnlens.formatting.results.compare import CompareRow
    from turnlens.formatting.results.drift import DriftChecker

AUTO_DRIFT_LIMIT = 20_000  # bigger runs check drift on demand (d): it parses every record again
PALETTE_RESULTS = 5000  # results listed by id in the palette: enough for any run one reads by eye

# drift status per record, as the lists show it
DRIFT_UNKNOWN, DRIFT_EQUAL, DRIFT_DRIFTED, DRIFT_NOT_FOUND, DRIFT_OTHER = range(5)
DRIFT_CODES = {"equal": DRIFT_EQUAL, "drifted": DRIFT_DRIFTED, "eval not found": DRIFT_NOT_FOUND}


@dataclass
class Run:
    """One results file and what the view learnt about it. Written in the UI thread only: workers report by
    message (screen.py)."""

    path: str
    results: ResultsFile
    source: RunSource | None = None
    progress: ScanProgress | None = None
    started: bool = False
    drift: bytearray | None = None
    drift_counts: dict[str, int] = field(default_factory=dict)
    drift_checker: DriftChecker | None = None
    drift_note: str = ""
    text_mask: bytearray | None = None  # full-text search hits, one byte per record
    stats: StatsCounter = field(default_factory=StatsCounter)
    benchmark_read: bool = False  # benchmark.json looked for (once: AgentV writes it when the run ends)
    benchmark_found: Any = None  # formatting.results.benchmark.Benchmark, or None (no run folder, no file)

    @property
    def benchmark(self) -> Any:
        """The run folder's benchmark.json (read once, a few kB), or None."""
        if not self.benchmark_read:
            self.benchmark_read = True
            folder = self.folder
            if folder is not None:
                self.benchmark_found = read_benchmark(folder)
        return self.benchmark_found

    @property
    def indexed(self) -> bool:
        return self.progress is not None and self.progress.done

    @property
    def title(self) -> str:
        """The header's title: a run folder by its folder, a results file by its path (as given)."""
        source = self.source
        if source is not None and source.folder is not None:
            return source.folder.rstrip("/") + "/"
        return self.path

    @property
    def name(self) -> str:
        """How a compare header names a run: `<experiment>/<timestamp>` for a run folder, else the file name."""
        return self.source.name if self.source is not None else os.path.basename(self.path)

    @property
    def argument(self) -> str:
        """What reopens this run: its folder for an AgentV 4 run, else its file."""
        source = self.source
        return source.folder if source is not None and source.folder is not None else self.path

    @property
    def folder(self) -> str | None:
        """The AgentV 4 run folder holding the per-test artifacts, if any."""
        return self.source.folder if self.source is not None else None

    def reopen(self) -> None:
        """Forget what was learnt: the file was truncated, rewritten or removed and is read again."""
        self.results.close()
        self.results = ResultsFile(self.path)
        self.progress, self.started, self.drift, self.drift_counts, self.text_mask = None, False, None, {}, None
        self.stats = StatsCounter()
        self.benchmark_read, self.benchmark_found = False, None  # a finished run has one now

    def problems(self) -> list[Diagnostic]:
        """What went wrong reading the file: its error first, then the diagnostics of broken lines."""
        found = [self.results.error] if self.results.error is not None else []
        return found + list(self.results.diagnostics)

    @property
    def problem_total(self) -> int:
        return self.results.problem_count + (self.results.error is not None)


def open_runs(paths: Sequence[str]) -> tuple[list[Run], list[Diagnostic]]:
    """The runs named by `paths` (files, run folders, folders of runs), and the problems naming them."""
    sources, problems = expand_results_paths(list(paths))
    return [Run(source.path, ResultsFile(source.path), source) for source in sources], problems


def is_comparison(paths: Sequence[str], runs: Sequence[Run]) -> bool:
    """Two runs named (files or run folders) are compared; a folder of runs is browsed instead."""
    return (
        len(paths) == 2
        and len(runs) == 2
        and all(
            not os.path.isdir(p) or r.source is not None and r.source.folder is not None for p, r in zip(paths, runs)
        )
    )


def suite_of(source: RunSource) -> str:
    """AgentV 0.15 names runs `<dataset>_<timestamp>.jsonl`: the part before the first `_`; an AgentV 4 run folder
    `runs/<experiment>/<timestamp>/` belongs to its experiment."""
    if source.folder is not None:
        return "runs of " + source.name.rsplit("/", 1)[0] if "/" in source.name else source.name
    return os.path.basename(source.path).split("_", 1)[0]


def previous_run_of_same_suite(sources: list[RunSource], current: int) -> int | None:
    """The nearest earlier run of the same suite, else the nearest later one, else None (nothing to compare).
    Runs are listed newest first, so an earlier run comes after the current one in the list."""
    suite = suite_of(sources[current])
    same = [i for i in range(len(sources)) if i != current and suite_of(sources[i]) == suite]
    earlier = [i for i in same if i > current]
    if earlier:
        return earlier[0]
    return same[-1] if same else None


@dataclass(frozen=True)
class Selection:
    """One request for the rows to list: everything the choice depends on, so a worker can compute it."""

    run: Run
    generation: int
    sort: str
    reverse: bool
    filter: str
    query: str
    threshold: float
    upto: int | None = None  # the records indexed when it was asked for (None: all there are then)
    # The rows listed for the same choices over the first `previous_upto` records: the records appended since are
    # put in their place (an appended row costs its own insertion, many appended rows their sort and a merge, not a
    # sort of every row).
    previous: Sequence[int] | None = None
    previous_upto: int = 0


def select_rows(selection: Selection) -> Sequence[int]:
    """The record indexes to list, in order; `drifted` keeps the results whose request no longer matches."""
    run, filter = selection.run, selection.filter
    if selection.previous is not None:
        return insert_selected(
            run.results,
            selection.previous,
            selection.previous_upto,
            sort=selection.sort,
            reverse=selection.reverse,
            filter=filter,
            query=selection.query,
            threshold=selection.threshold,
            upto=selection.upto,
        )
    base_filter = "all" if filter == "drifted" else filter
    rows = select(
        run.results,
        sort=selection.sort,
        reverse=selection.reverse,
        filter=base_filter,
        query=selection.query,
        threshold=selection.threshold,
        upto=selection.upto,
    )
    if filter == "drifted":
        marks = run.drift or bytearray()
        rows = type(rows)("I", (i for i in rows if i < len(marks) and marks[i] == DRIFT_DRIFTED))
    if run.text_mask is not None:
        mask = run.text_mask
        rows = type(rows)("I", (i for i in rows if i < len(mask) and mask[i]))
    return rows


@dataclass
class HeaderState:
    """Everything the results header shows; the model builds a new one whenever something changes."""

    title: str
    stats: Stats | None
    threshold: float
    progress: ScanProgress | None
    threshold_source: str = ""  # where the threshold comes from (AgentV's default, the suite, --threshold, + -)
    sort: str = "score"
    reverse: bool = False
    filter: str = "all"
    query: str = ""
    text_query: str = ""
    shown: int = 0
    problems: int = 0
    drift: dict[str, int] = field(default_factory=dict)
    drift_note: str = ""
    run_position: str = ""  # "run 2 of 5" when a folder holds several runs
    evals_given: bool = False  # --evals named the eval files: no hint to name them
    benchmark: str = ""  # the run folder's benchmark.json in one line (pass rate, time, tokens per target)


class ResultsModel:
    """The list of one run at a time: its sort, filter, searches, threshold, and the rows they select."""

    def __init__(self, runs: list[Run], *, threshold: float | None = None, evals_given: bool = False) -> None:
        self.runs = runs
        self.current = 0
        self.sort = "score"
        self.reverse = False
        self.filter = "all"
        self.search_text = ""
        self.text_query = ""  # full-text search: applied on enter (as you type for small files)
        self.threshold_flag = threshold  # --threshold: every run is judged at it
        self.chosen: RunThreshold | None = None  # set with + and -: kept from run to run
        self._run_thresholds: dict[str, RunThreshold] = {}
        self.evals_given = evals_given
        self.rows: Sequence[int] = range(0)  # what the list shows now
        self._generation = 0
        # The choices of the rows accepted last, the rows and the records they were selected from (request()).
        self._selected: tuple[tuple[object, ...], Sequence[int], int] | None = None

    @property
    def run(self) -> Run | None:
        return self.runs[self.current] if self.runs else None

    # -- what the keys change -------------------------------------------------------------------------------

    def cycle_sort(self) -> None:
        self.sort = SORT_KEYS[(SORT_KEYS.index(self.sort) + 1) % len(SORT_KEYS)]

    def toggle_reverse(self) -> None:
        self.reverse = not self.reverse

    def filter_choices(self) -> tuple[str, ...]:
        """all, failures, errors, …, one per failing grader of the run, and drifted once drift is checked."""
        run = self.run
        graders = tuple(GRADER_FILTER + name for name in run.results.grader_names) if run else ()
        return FILTERS + graders + (("drifted",) if run and run.drift is not None else ())

    def cycle_filter(self) -> None:
        choices = self.filter_choices()
        self.filter = choices[(choices.index(self.filter) + 1) % len(choices)] if self.filter in choices else "all"

    @property
    def threshold_setting(self) -> RunThreshold:
        """The threshold the run is shown at: + and -'s, else --threshold, else the suite's, else AgentV's 0.8."""
        if self.chosen is not None:
            return self.chosen
        run = self.run
        if run is None:
            return RunThreshold(DEFAULT_THRESHOLD if self.threshold_flag is None else self.threshold_flag)
        found = self._run_thresholds.get(run.path)
        if found is None:
            found = self._run_thresholds[run.path] = run_threshold(run.argument, self.threshold_flag)
        return found

    @property
    def threshold(self) -> float:
        return self.threshold_setting.value

    def change_threshold(self, delta: float) -> None:
        self.chosen = self.threshold_setting.changed(delta)

    def remember(self, threshold: float) -> None:
        """The threshold chosen in an earlier session (tui/settings.py)."""
        self.chosen = RunThreshold(threshold, "remembered")

    def step_run(self, step: int) -> Run | None:
        """The next (or previous) run of the folder, wrapping; None when there is only one."""
        if len(self.runs) < 2:
            return None
        self.current = (self.current + step) % len(self.runs)
        self.rows = range(0)
        return self.run

    def go_to_run(self, position: int) -> Run | None:
        if not 0 <= position < len(self.runs):
            return None
        self.current = position
        self.rows = range(0)
        return self.run

    def add_runs(self, sources: Sequence[RunSource]) -> list[Run]:
        """Runs that appeared in the folder while it is open: listed where they belong (newest first), the run on
        screen staying the current one."""
        known = {run.path for run in self.runs}
        added = [Run(source.path, ResultsFile(source.path), source) for source in sources if source.path not in known]
        if added:
            current = self.run
            self.runs = sorted(self.runs + added, key=lambda run: run_order(run.source or run_source(run.path)))
            self.current = self.runs.index(current) if current is not None else 0
        return added

    def set_text_query(self, needle: str) -> None:
        self.text_query = needle
        run = self.run
        if run is not None and not needle:
            run.text_mask = None

    def show_everything(self) -> None:
        """No narrowing, in file order: every result at the position of its record."""
        self.filter, self.search_text, self.text_query = "all", "", ""
        if self.run is not None:
            self.run.text_mask = None
        self.sort, self.reverse = "file", False

    # -- the rows -------------------------------------------------------------------------------------------

    @property
    def narrowed(self) -> bool:
        return bool(self.filter != "all" or self.search_text or self.text_query)

    def narrowing(self) -> str:
        """What hides results: the filter, the search, the full-text search."""
        parts = []
        if self.filter != "all":
            parts.append(f"show {self.filter}")
        if self.search_text:
            parts.append(f"search {self.search_text!r}")
        if self.text_query:
            parts.append(f"text {self.text_query!r}")
        return ", ".join(parts)

    def identity_rows(self) -> Sequence[int] | None:
        """The rows when no work is needed (file order, nothing hidden): a range over what is indexed so far."""
        run = self.run
        if run is None:
            return None
        if self.sort == "file" and not self.reverse and not self.narrowed and run.text_mask is None:
            return range(run.results.count)
        return None

    def request(self) -> Selection | None:
        """A new selection to compute; an older one still being computed is then stale (`accept` drops it)."""
        run = self.run
        if run is None:
            return None
        self._generation += 1
        choices: tuple[object, ...] = (run, run.results, run.results.revision, self.sort, self.reverse, self.filter)
        choices += (self.search_text, self.threshold, run.text_mask is None)
        previous, previous_upto = None, 0
        last = self._selected
        if (
            last is not None
            and last[0] == choices
            and self.filter != "drifted"  # (drift marks and full-text matches change under earlier rows)
            and run.text_mask is None
            and last[2] <= run.results.count
        ):
            previous, previous_upto = last[1], last[2]
        return Selection(
            run,
            self._generation,
            self.sort,
            self.reverse,
            self.filter,
            self.search_text,
            self.threshold,
            upto=run.results.count,
            previous=previous,
            previous_upto=previous_upto,
        )

    def accept(self, selection: Selection, rows: Sequence[int]) -> bool:
        """Take the rows computed for `selection` unless something newer was asked for or the run changed."""
        if selection.generation != self._generation or selection.run is not self.run:
            return False
        self.rows = rows
        run = selection.run
        choices: tuple[object, ...] = (run, run.results, run.results.revision, selection.sort, selection.reverse)
        choices += (selection.filter, selection.query, selection.threshold, run.text_mask is None)
        self._selected = (choices, rows, selection.upto if selection.upto is not None else run.results.count)
        return True

    def position_of(self, index: int) -> int | None:
        """Where record `index` is listed, or None when hidden."""
        rows = self.rows
        if isinstance(rows, range):
            return index - rows.start if index in rows else None
        try:
            return list(rows).index(index) if len(rows) < 2_000_000 else None
        except ValueError:
            return None

    def empty_note(self) -> str:
        """Said in an empty list that only the narrowing made empty."""
        run = self.run
        if run is not None and self.narrowed and not self.rows and run.results.count:
            return f"  No result to show ({self.narrowing()}) — f changes the filter, esc clears it."
        return ""

    def header_state(self) -> HeaderState | None:
        run = self.run
        if run is None:
            return None
        results = run.results
        title = run.title
        if results.error is not None:
            title = f"{title}: {results.error.message}"
        return HeaderState(
            title=title,
            stats=run.stats.update(results, self.threshold) if results.count else None,
            threshold=self.threshold,
            progress=run.progress,
            threshold_source=self.threshold_setting.source,
            sort=self.sort,
            reverse=self.reverse,
            filter=self.filter,
            query=self.search_text,
            text_query=self.text_query,
            shown=len(self.rows),
            problems=results.problem_count,
            drift=run.drift_counts,
            drift_note=run.drift_note,
            run_position=f"run {self.current + 1} of {len(self.runs)}" if len(self.runs) > 1 else "",
            evals_given=self.evals_given,
            benchmark=run.benchmark.headline() if run.benchmark is not None else "",
        )

    # -- drift ----------------------------------------------------------------------------------------------

    def wants_drift(self, run: Run, auto: bool) -> bool:
        """Start checking drift? Once per run, and automatically only for runs small enough."""
        if run.drift is not None or not run.results.count:
            return False
        return not (auto and run.results.count > AUTO_DRIFT_LIMIT)

    # -- other runs and the palette -------------------------------------------------------------------------

    def comparison_with_previous(self) -> tuple[str, str] | str:
        """(A, B) to compare this run with: another run of the same suite, the earlier one A. Else why not."""
        sources = [run.source or run_source(run.path) for run in self.runs]
        other = previous_run_of_same_suite(sources, self.current)
        if other is None:
            return (
                f"No other run of {suite_of(sources[self.current])} here to compare with. To compare any two "
                "files: turnlens A.jsonl B.jsonl"
            )
        # A is always the earlier run (runs are listed newest first), so "regressed" means what it says.
        newer, older = sorted((other, self.current))
        return self.runs[older].argument, self.runs[newer].argument

    def result_entries(self) -> list[tuple[str, str, int]]:
        """(label, where, record index) for each result of the current run, for the palette."""
        run = self.run
        if run is None:
            return []
        results = run.results
        entries = []
        for index in range(min(results.count, PALETTE_RESULTS)):
            label = results.eval_ids[index] or f"(no id, line {results.lines[index]})"
            score = results.score_of(index)
            what = "error" if results.is_error(index) else ("no score" if score is None else f"score {score:.2f}")
            where = " · ".join(x for x in (results.target_of(index), results.dataset_of(index), what) if x)
            entries.append((f"Result {visible_text(label)}", visible_text(where), index))
        return entries

    def copy_text(self, index: int) -> str:
        """What `c` copies for record `index`: its id and where it is recorded (file:line)."""
        run = self.run
        if run is None:
            return ""
        results = run.results
        return f"{results.eval_ids[index] or '(no id)'}\t{run.path}:{results.lines[index]}"


class Walk:
    """Where a detail screen is in the list it was opened from: ] [ step through the rows, n N go to the next one
    `wanted` accepts (a failing result, a changed pair)."""

    def __init__(self, rows: Sequence[Any], position: int) -> None:
        self.rows = rows
        self.position = position

    @property
    def current(self) -> Any:
        return self.rows[self.position]

    @property
    def label(self) -> str:
        return f"{self.position + 1} of {len(self.rows)}"

    def go(self, position: int) -> bool:
        """Move to `position`; False when it is outside the rows or already there."""
        if 0 <= position < len(self.rows) and position != self.position:
            self.position = position
            return True
        return False

    def step(self, step: int) -> bool:
        return self.go(self.position + step)

    def next_where(self, step: int, wanted: Callable[[Any], bool]) -> bool:
        """Move to the nearest row in direction `step` that `wanted` accepts; False when there is none."""
        position = self.position + step
        while 0 <= position < len(self.rows):
            if wanted(self.rows[position]):
                return self.go(position)
            position += step
        return False


def is_failing(results: ResultsFile, index: int, threshold: float) -> bool:
    """Not passed as AgentV judges it (errored, a recorded quality failure; else unscored or under `threshold`):
    what n / N stop at in a result's detail."""
    return row_verdict(results, index, threshold) != VERDICT_PASS


@dataclass
class CompareHeaderState:
    """Everything the compare header shows."""

    name_a: str
    name_b: str
    counts: dict[str, int]
    mean_a: float | None
    mean_b: float | None
    shown: int
    query: str
    changed_only: bool
    progress: str = ""
    paired_by: str = ""
    warning: str = ""
    mean_delta: float | None = None  # as agentv compare prints them
    mean_gain: float | None = None
    delta: float = 0.1  # the step of a win or a loss
    unscored: tuple[int, int] = (0, 0)  # rows without a score, not compared
    duplicates: tuple[int, int] = (0, 0)


class CompareModel:
    """Two runs compared: the search, changed-only, and the pairs they keep."""

    def __init__(
        self,
        a: Run,
        b: Run,
        *,
        threshold: float = DEFAULT_THRESHOLD,
        delta: float | None = None,
        targets: tuple[str, str] | None = None,
    ) -> None:
        self.a, self.b = a, b
        self.threshold = threshold
        self.delta = delta  # None: AgentV's 0.1
        self.targets = targets  # one run's two targets compared (--baseline/--candidate), else None
        self.search_text = ""
        self.changed_only = False
        self.comparison: Any = None  # formatting.results.compare.Comparison, once both runs are indexed
        self.rows: list[CompareRow] = []

    @property
    def runs(self) -> tuple[Run, Run]:
        return self.a, self.b

    def toggle_changed(self) -> None:
        self.changed_only = not self.changed_only

    def refilter(self) -> list[CompareRow]:
        from turnlens.formatting.results.compare import filter_rows

        self.rows = filter_rows(self.comparison.rows, self.search_text, self.changed_only) if self.comparison else []
        return self.rows

    def names(self) -> tuple[str, str]:
        """How the header names the two sides: the runs, or one run's two targets."""
        if self.targets is not None:
            return f"{self.a.name} @ {self.targets[0]}", f"{self.targets[1]}"
        return self.a.name, self.b.name

    def header_state(self) -> CompareHeaderState:
        comparison = self.comparison
        if comparison is None:
            done = sum(r.progress.position if r.progress else 0 for r in self.runs)
            total = max(1, self.a.results.size + self.b.results.size)
            return CompareHeaderState(
                *self.names(),
                {},
                None,
                None,
                0,
                self.search_text,
                self.changed_only,
                progress=f"indexing {done / total:.0%}",
            )
        return CompareHeaderState(
            *self.names(),
            comparison.counts,
            comparison.mean_a,
            comparison.mean_b,
            len(self.rows),
            self.search_text,
            self.changed_only,
            paired_by=comparison.by,
            warning="no ids pair: the two runs share no test (different suites?)" if comparison.nothing_pairs else "",
            mean_delta=comparison.mean_delta,
            mean_gain=comparison.mean_gain,
            delta=comparison.delta,
            unscored=(comparison.unscored_a, comparison.unscored_b),
            duplicates=(comparison.duplicates_a, comparison.duplicates_b),
        )

    def problems(self) -> list[Diagnostic]:
        return [problem for run in self.runs for problem in run.problems()]

    def problem_total(self) -> int:
        return sum(run.problem_total for run in self.runs)
