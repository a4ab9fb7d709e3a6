"""Compare two runs: pair results by id, score deltas, regressions first, cases only in one run.

0.15-era rows pair by `eval_id` (with the dataset when ids repeat across datasets); AgentV 4 rows by `test_id` and
`target` (with the suite when ids repeat across suites). Two runs of one target each, on different targets, pair by
test id alone: that is a comparison of the two targets.

Works on the summaries of two indexed `ResultsFile`s, so it never reads whole records. Pure Python.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from turnlens.formatting.results.reader import FLAG_ERROR, FLAG_NO_SCORE, ResultsFile

Status = Literal["regressed", "new error", "only in A", "only in B", "improved", "fixed", "unchanged"]
# Worst news first: what an author must look at after a change.
STATUS_ORDER: tuple[Status, ...] = (
    "new error",
    "regressed",
    "only in A",
    "only in B",
    "fixed",
    "improved",
    "unchanged",
)
# Score changes smaller than this count as unchanged (LLM judges jitter).
DEFAULT_TOLERANCE = 1e-9


@dataclass
class CompareRow:
    key: str  # eval id (prefixed with the dataset when both runs name datasets and ids repeat across them)
    eval_id: str
    dataset: str
    a: int | None  # record index in run A
    b: int | None
    score_a: float | None
    score_b: float | None
    error_a: bool
    error_b: bool
    status: Status

    @property
    def delta(self) -> float | None:
        if self.score_a is None or self.score_b is None:
            return None
        return self.score_b - self.score_a


@dataclass
class Comparison:
    rows: list[CompareRow]
    counts: dict[str, int]
    mean_a: float | None
    mean_b: float | None
    duplicates_a: int  # eval ids seen more than once in A (the last one wins)
    duplicates_b: int
    paired: int = 0  # ids found in both runs
    by: str = "eval id"  # what the rows were paired by, said in the header

    @property
    def nothing_pairs(self) -> bool:
        return self.paired == 0 and any(self.counts.get(s) for s in ("only in A", "only in B"))


def _latest_by_key(results: ResultsFile, use_dataset: bool, use_target: bool) -> tuple[dict[str, int], int]:
    latest: dict[str, int] = {}
    duplicates = 0
    for i in range(results.count):
        key = _key(results, i, use_dataset, use_target)
        if key in latest:
            duplicates += 1
        latest[key] = i
    return latest, duplicates


def _key(results: ResultsFile, index: int, use_dataset: bool, use_target: bool = False) -> str:
    eval_id = results.eval_ids[index] or f"(line {results.lines[index]})"
    if use_dataset:
        eval_id = f"{results.dataset_of(index)}/{eval_id}"
    if use_target and results.target_of(index):
        eval_id = f"{eval_id} @ {results.target_of(index)}"
    return eval_id


def _targets(results: ResultsFile) -> set[str]:
    return {results.target_of(i) for i in range(results.count)}


def _pair_by_target(a: ResultsFile, b: ResultsFile) -> bool:
    """AgentV 4 runs pair by test id and target; two single-target runs on different targets compare the targets."""
    if not (a.v4_count or b.v4_count):
        return False
    targets_a, targets_b = _targets(a), _targets(b)
    if len(targets_a) == 1 and len(targets_b) == 1 and targets_a != targets_b:
        return False
    return len(targets_a | targets_b) > 1


def _needs_dataset(results: ResultsFile) -> bool:
    """Ids repeat within the run only under different datasets: then the dataset is part of the key."""
    seen: dict[str, str] = {}
    for i in range(results.count):
        eval_id, dataset = results.eval_ids[i], results.dataset_of(i)
        if eval_id in seen and seen[eval_id] != dataset:
            return True
        seen[eval_id] = dataset
    return False


def _status(score_a, score_b, error_a, error_b, tolerance) -> Status:
    if error_b and not error_a:
        return "new error"
    if error_a and not error_b:
        return "fixed"
    if score_a is None or score_b is None:
        return "unchanged" if score_a == score_b else ("regressed" if score_b is None else "improved")
    if score_b < score_a - tolerance:
        return "regressed"
    if score_b > score_a + tolerance:
        return "improved"
    return "unchanged"


def _mean(results: ResultsFile, indexes) -> float | None:
    scores = [results.scores[i] for i in indexes if not results.flags[i] & FLAG_NO_SCORE]
    return sum(scores) / len(scores) if scores else None


def compare_runs(a: ResultsFile, b: ResultsFile, tolerance: float = DEFAULT_TOLERANCE) -> Comparison:
    use_dataset = _needs_dataset(a) or _needs_dataset(b)
    use_target = _pair_by_target(a, b)
    latest_a, duplicates_a = _latest_by_key(a, use_dataset, use_target)
    latest_b, duplicates_b = _latest_by_key(b, use_dataset, use_target)
    rows: list[CompareRow] = []
    for key, ia in latest_a.items():
        ib = latest_b.get(key)
        score_a, error_a = a.score_of(ia), bool(a.flags[ia] & FLAG_ERROR)
        if ib is None:
            rows.append(
                CompareRow(key, a.eval_ids[ia], a.dataset_of(ia), ia, None, score_a, None, error_a, False, "only in A")
            )
            continue
        score_b, error_b = b.score_of(ib), bool(b.flags[ib] & FLAG_ERROR)
        status = _status(score_a, score_b, error_a, error_b, tolerance)
        rows.append(
            CompareRow(key, a.eval_ids[ia], a.dataset_of(ia), ia, ib, score_a, score_b, error_a, error_b, status)
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
                    b.score_of(ib),
                    False,
                    bool(b.flags[ib] & FLAG_ERROR),
                    "only in B",
                )
            )
    rows.sort(key=_row_order)
    counts: dict[str, int] = {status: 0 for status in STATUS_ORDER}
    for row in rows:
        counts[row.status] += 1
    v4 = bool(a.v4_count or b.v4_count)
    by = ("suite/" if use_dataset and v4 else "dataset/" if use_dataset else "") + ("test id" if v4 else "eval id")
    return Comparison(
        rows=rows,
        counts=counts,
        mean_a=_mean(a, latest_a.values()),
        mean_b=_mean(b, latest_b.values()),
        duplicates_a=duplicates_a,
        duplicates_b=duplicates_b,
        paired=sum(1 for row in rows if row.a is not None and row.b is not None),
        by=by + (" + target" if use_target else ""),
    )


def _row_order(row: CompareRow) -> tuple:
    delta = row.delta
    # within a status: the biggest drop first for regressions, the biggest gain first for improvements
    magnitude = 0.0 if delta is None else (delta if row.status == "regressed" else -abs(delta))
    return (STATUS_ORDER.index(row.status), magnitude, row.key)


def filter_rows(rows: list[CompareRow], query: str = "", changed_only: bool = False) -> list[CompareRow]:
    needle = query.strip().lower()
    return [
        row
        for row in rows
        if (not needle or needle in row.key.lower()) and (not changed_only or row.status != "unchanged")
    ]
