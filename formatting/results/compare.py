"""Two indexed runs compared as `agentv compare` compares them, with the record of each side kept for the view.

The pairing, the outcomes (win, loss, tie at |Δ| ≥ delta), the mean Δ and Hake's g are agentv_compare's, on the
test ids and scores of the runs' index: the same numbers `agentv compare A B` prints. A test run several times in a
run counts with its last row. Rows AgentV would refuse are not compared and are counted apart: a row without a
score, and, in a run of 0.15-era rows (no `test_id`), none: those pair by `eval_id`, as AgentV 0.15 named tests,
and the header says so. One run of several targets is compared target against target (`target_a`, `target_b`).

Works on the summaries of two indexed `ResultsFile`s, so it never reads whole records. Pure Python.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from turnlens.formatting.results.agentv_compare import (
    DEFAULT_DELTA,
    Row,
    compare_matrix,
    compare_results,
    group_by_target,
    js_sort_key,
)
from turnlens.formatting.results.columns import FLAG_ERROR, FLAG_NO_SCORE
from turnlens.formatting.results.index import ResultsFile
from turnlens.formatting.sanitize import sanitize

Status = Literal["loss", "only in A", "only in B", "win", "tie"]
# Worst news first: what an author must look at after a change.
STATUS_ORDER: tuple[Status, ...] = ("loss", "only in A", "only in B", "win", "tie")


@dataclass
class CompareRow:
    key: str  # the test id
    eval_id: str
    dataset: str
    a: int | None  # record index in run A (its last row of the test)
    b: int | None
    score_a: float | None
    score_b: float | None
    error_a: bool
    error_b: bool
    status: Status
    gain: float | None = None  # Hake's normalised gain, None when A scored 1 (or one side is missing)

    @property
    def delta(self) -> float | None:
        if self.score_a is None or self.score_b is None:
            return None
        return self.score_b - self.score_a

    @property
    def changed(self) -> bool:
        return self.status != "tie"


@dataclass
class Comparison:
    rows: list[CompareRow]
    counts: dict[str, int]
    mean_a: float | None
    mean_b: float | None
    duplicates_a: int  # rows of a test seen before in A (its last row counts)
    duplicates_b: int
    paired: int = 0  # tests in both runs
    by: str = "test id"  # what the rows were paired by, said in the header
    # The list's id column title: AgentV 4 rows pair by test_id (`agentv compare` titles it "Test ID"), 0.15-era rows
    # by eval_id, and runs mixing the two list both kinds ("id", as the results list titles such a run's column).
    id_title: str = "test id"
    mean_delta: float = 0.0  # rounded to three decimals, as agentv compare prints it
    mean_gain: float | None = None
    delta: float = DEFAULT_DELTA
    unscored_a: int = 0  # rows without a score: agentv compare refuses such a run
    unscored_b: int = 0
    unmatched_a: int = 0  # rows of A whose test B did not run (duplicates counted), as agentv compare counts
    unmatched_b: int = 0

    @property
    def nothing_pairs(self) -> bool:
        return self.paired == 0 and any(self.counts.get(s) for s in ("only in A", "only in B"))


def _rows(results: ResultsFile, target: str | None) -> tuple[list[Row], dict[str, int], int]:
    """The scored rows as agentv compare reads them, the last index of each test id, and the unscored count."""
    rows, latest, unscored = [], {}, 0
    for i in range(results.count):
        if target is not None and results.target_of(i) != target:
            continue
        if results.flags[i] & FLAG_NO_SCORE:
            unscored += 1
            continue
        test_id = results.eval_ids[i] or "unknown"
        rows.append(Row(test_id, results.scores[i], results.target_of(i)))
        latest[test_id] = i
    return rows, latest, unscored


def _mean(results: ResultsFile, indexes: Iterable[int]) -> float | None:
    scores = [results.scores[i] for i in indexes]
    return sum(scores) / len(scores) if scores else None


def compare_runs(
    a: ResultsFile,
    b: ResultsFile,
    delta: float | None = None,
    target_a: str | None = None,
    target_b: str | None = None,
) -> Comparison:
    step = DEFAULT_DELTA if delta is None else delta
    rows_a, latest_a, unscored_a = _rows(a, target_a)
    rows_b, latest_b, unscored_b = _rows(b, target_b)
    compared = compare_results(rows_a, rows_b, step)
    rows: list[CompareRow] = []
    for pair in compared.matched:
        ia, ib = latest_a[pair.test_id], latest_b[pair.test_id]
        rows.append(
            CompareRow(
                pair.test_id,
                a.eval_ids[ia],
                a.dataset_of(ia),
                ia,
                ib,
                pair.score1,
                pair.score2,
                bool(a.flags[ia] & FLAG_ERROR),
                bool(b.flags[ib] & FLAG_ERROR),
                pair.outcome,  # type: ignore[arg-type]
                pair.gain,
            )
        )
    for key, ia in latest_a.items():
        if key not in latest_b:
            rows.append(
                CompareRow(
                    key,
                    a.eval_ids[ia],
                    a.dataset_of(ia),
                    ia,
                    None,
                    a.scores[ia],
                    None,
                    bool(a.flags[ia] & FLAG_ERROR),
                    False,
                    "only in A",
                )
            )
    for key, ib in latest_b.items():
        if key not in latest_a:
            rows.append(
                CompareRow(
                    key,
                    b.eval_ids[ib],
                    b.dataset_of(ib),
                    None,
                    ib,
                    None,
                    b.scores[ib],
                    False,
                    bool(b.flags[ib] & FLAG_ERROR),
                    "only in B",
                )
            )
    rows.sort(key=_row_order)
    counts: dict[str, int] = {status: 0 for status in STATUS_ORDER}
    for row in rows:
        counts[row.status] += 1
    id_title = "test id"
    if not (a.v4_count or b.v4_count):
        by = "eval id (0.15-era rows; agentv compare needs test_id)"
        id_title = "eval id"
    else:
        # a run mixing 0.15-era rows with AgentV 4 rows: agentv compare refuses it (Missing test_id in result source)
        mixed = [f"{name}'s" for name, run in (("A", a), ("B", b)) if run.v4_count < run.count]
        by = "test id" + (f", {' and '.join(mixed)} 0.15-era rows by eval id" if mixed else "")
        id_title = "id" if mixed else id_title
    if target_a is not None or target_b is not None:
        by += f", target {target_a} vs {target_b}"
    return Comparison(
        rows=rows,
        counts=counts,
        mean_a=_mean(a, latest_a.values()),
        mean_b=_mean(b, latest_b.values()),
        duplicates_a=len(rows_a) - len(latest_a),
        duplicates_b=len(rows_b) - len(latest_b),
        paired=len(compared.matched),
        by=by,
        id_title=id_title,
        mean_delta=compared.mean_delta,
        mean_gain=compared.mean_gain,
        delta=step,
        unscored_a=unscored_a,
        unscored_b=unscored_b,
        unmatched_a=compared.unmatched1,
        unmatched_b=compared.unmatched2,
    )


def _row_order(row: CompareRow) -> tuple[int, float, str]:
    delta = row.delta
    # within an outcome: the biggest drop first for losses, the biggest change first otherwise
    magnitude = 0.0 if delta is None else (delta if row.status == "loss" else -abs(delta))
    return (STATUS_ORDER.index(row.status), magnitude, row.key)


def filter_rows(rows: list[CompareRow], query: str = "", changed_only: bool = False) -> list[CompareRow]:
    needle = query.strip().lower()
    return [row for row in rows if (not needle or needle in row.key.lower()) and (not changed_only or row.changed)]


def targets_of(results: ResultsFile) -> list[str]:
    """The targets a run ran, in the order agentv compare lists them."""
    return sorted({results.target_of(i) for i in range(results.count)}, key=js_sort_key)


def _signed(value: float | None) -> str:
    return "—" if value is None else f"{value:+.3f}"


def summary_line(wins: int, losses: int, ties: int, mean_delta: float, mean_gain: float | None) -> str:
    """`W wins · L losses · T ties · mean Δ ±x · g ±y`, as agentv compare sums a comparison up."""
    return (
        f"{wins} win{'' if wins == 1 else 's'} · {losses} loss{'' if losses == 1 else 'es'} · "
        f"{ties} tie{'' if ties == 1 else 's'} · mean Δ {_signed(mean_delta)} · g {_signed(mean_gain)}"
    )


def matrix_lines(results: ResultsFile, delta: float | None = None) -> list[str]:
    """The N-way matrix of a run's targets as `agentv compare RUN` makes it: each test's score per target, then
    every pair of targets compared (the first of the pair the baseline). Plain lines for a text box."""
    rows = [
        Row(results.eval_ids[i] or "unknown", results.scores[i], results.target_of(i))
        for i in range(results.count)
        if not results.flags[i] & FLAG_NO_SCORE
    ]
    matrix = compare_matrix(group_by_target(rows), DEFAULT_DELTA if delta is None else delta)
    if len(matrix.targets) < 2:
        shown = sanitize(matrix.targets[0]) if matrix.targets else "none"
        # (two short lines: the box does not wrap, and one line of 86 characters was cut at 80 columns)
        return [f"This run has one target: {shown}.", "Targets are compared when a run has two or more."]
    names = [sanitize(t) for t in matrix.targets]
    width = max(10, *(len(n) for n in names))
    id_width = min(40, max(7, *(len(sanitize(str(t))) for t, _ in matrix.rows)))
    out = ["test id".ljust(id_width) + "  " + "  ".join(n[:width].rjust(width) for n in names)]
    for test_id, scores in matrix.rows:
        cells = [(f"{scores[t]:.2f}" if t in scores else "not run").rjust(width) for t in matrix.targets]
        out.append(sanitize(str(test_id))[:id_width].ljust(id_width) + "  " + "  ".join(cells))
    out.append("")
    out.append(f"pairs (baseline → candidate; a win or a loss at |Δ| ≥ {DEFAULT_DELTA if delta is None else delta:g})")
    for c in matrix.pairwise:
        line = summary_line(c.wins, c.losses, c.ties, c.mean_delta, c.mean_gain)
        out.append(f"  {sanitize(str(c.baseline))} → {sanitize(str(c.candidate))}: {line}")
        if c.unmatched1 or c.unmatched2:
            out.append(f"      {c.unmatched1} only in the baseline, {c.unmatched2} only in the candidate")
    out.append("")
    out.append("turnlens RUN --baseline A --candidate B lists one pair test by test.")
    return out
