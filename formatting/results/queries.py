"""Queries over a results file's index: statistics, verdicts, and the rows the list shows (filtered, searched by
id, sorted), kept up to date as rows are appended.

Everything here works on the per-record columns (columns.py) and never reads a record: a run of a million rows is
counted and sorted from its compact arrays. The loops run over column slices, and sorts are keyed by a column's own
`__getitem__`, since the UI thread does this while the index worker goes on. Full-text search reads the file:
`ResultsFile.find_text` (index.py).

Pure Python: never imports textual or rich.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import compress
from typing import Any

from turnlens.formatting.results.agentv4 import STATUS_OK, STATUS_QUALITY_FAILURE, STATUS_UNKNOWN
from turnlens.formatting.results.columns import FLAG_ERROR, FLAG_NO_SCORE, RecordColumns

# AgentV 4's DEFAULT_THRESHOLD: a score at or above it passes, unless the suite's `execution.threshold` or the user
# (--threshold, + and -) sets another. A row's recorded `execution_status` is its verdict whatever the threshold.
DEFAULT_THRESHOLD = 0.8


@dataclass
class V4Totals:
    """Over the AgentV 4 rows of a run: rows per execution status, and the recorded totals."""

    rows: int = 0
    statuses: list[int] = field(default_factory=lambda: [0, 0, 0, 0])  # by agentv4.STATUS_*
    duration_ms: float = 0.0
    cost_usd: float = 0.0
    tokens: float = 0.0


def _count_v4(results: RecordColumns, base: V4Totals | None, start: int, count: int) -> V4Totals | None:
    if not results.v4_count:
        return None
    totals = (
        V4Totals(base.rows, list(base.statuses), base.duration_ms, base.cost_usd, base.tokens) if base else V4Totals()
    )
    # in the UI thread while a run is indexed: counted on slices (the loops run in C), not row by row
    statuses = results.statuses[start:count].tobytes()
    for status in range(4):
        totals.statuses[status] += statuses.count(status)
    totals.rows += len(statuses) - statuses.count(3)  # 3: a 0.15-era row mixed in
    totals.duration_ms += sum(x for x in results.durations[start:count] if x == x)  # NaN: not recorded
    totals.cost_usd += sum(x for x in results.costs[start:count] if x == x)
    totals.tokens += sum(x for x in results.tokens[start:count] if x == x)
    return totals


@dataclass
class Stats:
    count: int
    scored: int
    mean: float | None
    passed: int
    failed: int  # judged and not passed (execution errors are not judged: see `errors`)
    errors: int
    histogram: list[int]  # 10 bins over [0, 1]; scores outside are clamped
    v4: V4Totals | None = None  # AgentV 4 rows: execution statuses and totals
    # rows whose recorded verdict (AgentV's execution_status) is not what their score says at the threshold: they
    # were judged at another one (a test's own execution.threshold, `agentv eval --threshold`)
    other_threshold: int = 0

    @property
    def pass_rate(self) -> float | None:
        judged = self.passed + self.failed
        return None if judged == 0 else self.passed / judged


def passes(score: float | None, error: bool, threshold: float) -> bool:
    return not error and score is not None and score >= threshold


VERDICT_PASS, VERDICT_FAIL, VERDICT_ERROR = 0, 1, 2


def verdict_of(status: int, flag: int, score: float, threshold: float) -> int:
    """A row's verdict as AgentV gives it: the recorded execution_status where there is one (agentv4.STATUS_*),
    else an error, else the score at `threshold` (a row without a score fails)."""
    if status == 0:  # STATUS_OK
        return VERDICT_PASS
    if status == 1:  # STATUS_QUALITY_FAILURE
        return VERDICT_FAIL
    if status == 2 or flag & FLAG_ERROR:
        return VERDICT_ERROR
    if flag & FLAG_NO_SCORE or not score >= threshold:
        return VERDICT_FAIL
    return VERDICT_PASS


def row_verdict(results: RecordColumns, index: int, threshold: float) -> int:
    return verdict_of(results.statuses[index], results.flags[index], results.scores[index], threshold)


class StatsCounter:
    """`compute_stats` that goes on from where it stopped: while a big file is indexed, each update only reads
    the records added since the last one (a new threshold starts it over)."""

    def __init__(self) -> None:
        self.threshold: float | None = None
        self.revision = 0
        self.stats = Stats(0, 0, None, 0, 0, 0, [0] * 10)
        self._total = 0.0

    def update(self, results: RecordColumns, threshold: float) -> Stats:
        if threshold != self.threshold or results.count < self.stats.count or results.revision != self.revision:
            self.threshold = threshold
            self.revision = results.revision
            self.stats = Stats(0, 0, None, 0, 0, 0, [0] * 10)
            self._total = 0.0
        self.stats, self._total = _count_stats(results, threshold, self.stats, self._total)
        return self.stats


def compute_stats(results: RecordColumns, threshold: float, upto: int | None = None) -> Stats:
    start = Stats(0, 0, None, 0, 0, 0, [0] * 10)
    return _count_stats(results, threshold, start, 0.0, upto)[0]


def _count_stats(
    results: RecordColumns, threshold: float, base: Stats, total: float, upto: int | None = None
) -> tuple[Stats, float]:
    count = results.count if upto is None else min(upto, results.count)
    scores = results.scores
    flags = results.flags
    histogram = list(base.histogram)
    scored, passed, failed, errors = base.scored, base.passed, base.failed, base.errors
    other = base.other_threshold
    rows = zip(flags[base.count : count], scores[base.count : count], results.statuses[base.count : count])
    # verdict_of written out (in the UI thread while a run is indexed, once per row: no call per row); a score's bin
    # is clamped before int(), which an infinite score (JSON.parse reads 1e400 as Infinity) would overflow
    for flag, score, status in rows:  # slices: no lookup per row
        if not flag & FLAG_NO_SCORE:
            scored += 1
            total += score
            tenths = score * 10
            histogram[9 if tenths >= 9 else 0 if tenths < 1 else int(tenths)] += 1
        if status == 0:  # STATUS_OK: passed, whatever the score
            passed += 1
            if not score >= threshold:  # NaN compares False: unscored
                other += 1
        elif status == 1:  # STATUS_QUALITY_FAILURE
            failed += 1
            if score >= threshold:
                other += 1
        elif status == 2 or flag & FLAG_ERROR:
            errors += 1
        elif flag & FLAG_NO_SCORE or not score >= threshold:
            failed += 1
        else:
            passed += 1
    v4 = _count_v4(results, base.v4, base.count, count)
    mean = total / scored if scored else None
    return Stats(count, scored, mean, passed, failed, errors, histogram, v4, other), total


SORT_KEYS = ("score", "id", "time", "duration", "cost", "file")
# `errors` are execution errors; `quality failures` are rows AgentV 4 marked so (0.15-era rows: a score under the
# threshold); a failing grader's filter is `grader:NAME` (see RecordColumns.grader_names).
FILTERS = ("all", "failures", "errors", "quality failures", "ok")
GRADER_FILTER = "grader:"


def select(
    results: RecordColumns,
    *,
    sort: str = "file",
    reverse: bool = False,
    filter: str = "all",
    query: str = "",
    threshold: float = DEFAULT_THRESHOLD,
    upto: int | None = None,
    start: int = 0,
) -> array[int]:
    """Record indexes to show, in order. Works on summaries only (never reads a record). `start`: only records from
    there on (the ones appended since an earlier selection: see `insert_selected`)."""
    count = results.count if upto is None else min(upto, results.count)
    scores, flags, eval_ids = results.scores, results.flags, results.eval_ids
    indexes: Any = range(start, count)
    if filter == "errors":
        indexes = [i for i in indexes if flags[i] & FLAG_ERROR]
    elif filter == "failures":
        statuses = results.statuses
        indexes = [i for i in indexes if verdict_of(statuses[i], flags[i], scores[i], threshold) != VERDICT_PASS]
    elif filter in ("quality failures", "ok"):
        indexes = _by_status(results, indexes, filter == "ok", threshold)
    elif filter.startswith(GRADER_FILTER):
        indexes = [i for i in results.failing_rows(filter[len(GRADER_FILTER) :]) if start <= i < count]
    needle = query.strip().lower()
    if needle:
        strings, targets, datasets = results.strings, results.targets, results.datasets
        indexes = [
            i
            for i in indexes
            if needle in eval_ids[i].lower()
            or needle in strings[targets[i]].lower()
            or needle in strings[datasets[i]].lower()
        ]
    # Sorts are stable and keyed by a column's own __getitem__ (no Python function per row): re-sorting 50,000
    # rows while a run is indexed must not starve the index worker. Ties keep file order.
    if sort == "score":
        # errors first, then no score, then ascending score: failures first
        # (the rows parted by their flags in C: a byte table per group over the flags' bytes, then compress)
        marks = _column(flags, indexes).tobytes()
        errors = _picked(indexes, marks, _ERROR_ROWS)
        unscored = _picked(indexes, marks, _UNSCORED_ROWS)
        scored = _picked(indexes, marks, _SCORED_ROWS)
        errors.sort(
            key=lambda i: (0 if flags[i] & FLAG_NO_SCORE else 1, scores[i] if not flags[i] & FLAG_NO_SCORE else 0.0)
        )
        scored.sort(key=scores.__getitem__)
        indexes = errors + unscored + scored
    elif sort == "id":
        indexes = sorted(indexes, key=eval_ids.__getitem__)
    elif sort in ("duration", "cost"):
        column = results.durations if sort == "duration" else results.costs
        # the slowest / dearest first; rows that recorded none last
        known = [i for i in indexes if column[i] == column[i]]
        known.sort(key=column.__getitem__, reverse=True)  # reverse=True keeps ties in file order too
        indexes = known + [i for i in indexes if column[i] != column[i]]
    elif sort == "time":
        stamps = results.timestamps
        known = [i for i in indexes if stamps[i] == stamps[i]]
        known.sort(key=stamps.__getitem__)
        indexes = known + [i for i in indexes if stamps[i] != stamps[i]]
    if reverse:
        indexes = list(indexes)[::-1]
    return array("I", indexes)


# Past this many new records (or a 64th of those listed), the new records are sorted and merged in rather than
# inserted one by one: each insertion moves the rows after it.
MAX_INSERTED = 2048


def insert_selected(
    results: RecordColumns,
    listed: Sequence[int],
    listed_upto: int,
    *,
    sort: str = "file",
    reverse: bool = False,
    filter: str = "all",
    query: str = "",
    threshold: float = DEFAULT_THRESHOLD,
    upto: int | None = None,
) -> array[int]:
    """`select()` for records appended since `listed` was selected with the same choices over the first
    `listed_upto` records: the new records are filtered and put in their place (after the rows they tie with, as
    the stable sort does), each at the cost of a binary search; when many were appended, they are sorted and merged
    in (their own sort and one merge: fewer instructions than sorting every row again)."""
    count = results.count if upto is None else min(upto, results.count)
    many = count - listed_upto > max(MAX_INSERTED, len(listed) // 64)
    new = select(
        results, sort=sort if many else "file", filter=filter, query=query, threshold=threshold, upto=count,
        start=listed_upto,
    )  # fmt: skip
    if many:
        merged = _merged(results, sort, array("I", listed if not reverse else listed[::-1]), new)
        return merged[::-1] if reverse else merged
    rows = array("I", listed)
    key = _sort_key(results, sort)
    for index in new:  # ascending file order: each goes after its ties
        if reverse:  # the listed order is the ascending one backwards: ties in reverse file order
            rows.insert(len(rows) - bisect_right(_Backwards(rows), key(index), key=key), index)
        else:
            rows.insert(bisect_right(rows, key(index), key=key), index)
    return rows


def _merged(results: RecordColumns, sort: str, before: array[int], after: array[int]) -> array[int]:
    """The ascending order (as `select` sorts, not reversed) of the rows of `before` and `after`, each already in that
    order, every row of `after` later in the file than those of `before`. Each of the sort's groups (errors, rows
    without a score, ...) is found by a binary search, and two sorted runs are merged by the same stable sort
    (Timsort finds the runs and merges them), so ties stay in file order."""
    if sort == "score":
        flags, scores = results.flags, results.scores
        # the groups, in order: errors; rows without a score; rows with one (by score)

        def group(i: int) -> int:
            flag = flags[i]
            return 0 if flag & FLAG_ERROR else 1 if flag & FLAG_NO_SCORE else 2

        b1, b2 = bisect_left(before, 1, key=group), bisect_left(before, 2, key=group)
        a1, a2 = bisect_left(after, 1, key=group), bisect_left(after, 2, key=group)
        errors = [*before[:b1], *after[:a1]]
        errors.sort(key=_sort_key(results, "score"))
        scored = [*before[b2:], *after[a2:]]
        scored.sort(key=scores.__getitem__)
        merged = array("I", errors)
        merged += before[b1:b2]
        merged += after[a1:a2]
        merged.extend(scored)
        return merged
    if sort == "id":
        return array("I", sorted([*before, *after], key=results.eval_ids.__getitem__))
    if sort in ("duration", "cost", "time"):
        column = {"duration": results.durations, "cost": results.costs, "time": results.timestamps}[sort]

        def unrecorded(i: int) -> bool:
            return column[i] != column[i]  # NaN: none recorded, listed last in file order

        b, a = bisect_left(before, True, key=unrecorded), bisect_left(after, True, key=unrecorded)
        known = sorted([*before[:b], *after[:a]], key=column.__getitem__, reverse=sort != "time")
        merged = array("I", known)
        merged += before[b:]
        merged += after[a:]
        return merged
    return before + after  # file order


def _column(column: array[Any], indexes: range | list[int]) -> array[Any]:
    """The values of `column` at `indexes` (a slice when they are a range), in their order."""
    if type(indexes) is range:
        return column[indexes.start : indexes.stop]
    return array(column.typecode, map(column.__getitem__, indexes))


def _picked(indexes: range | list[int], marks: bytes, table: bytes) -> list[int]:
    """The indexes whose flags (their byte in `marks`, one per index) `table` maps to 1."""
    picked = marks.translate(table)
    if b"\x01" not in picked:
        return []
    if b"\x00" not in picked:
        return list(indexes)
    return list(compress(indexes, picked))


# For each flags byte, 1 if a row with those flags is in the group (bytes.translate tables): the score sort's errors,
# rows without a score, and scored rows.
_ERROR_ROWS = bytes(1 if flag & FLAG_ERROR else 0 for flag in range(256))
_UNSCORED_ROWS = bytes(1 if not flag & FLAG_ERROR and flag & FLAG_NO_SCORE else 0 for flag in range(256))
_SCORED_ROWS = bytes(0 if flag & (FLAG_ERROR | FLAG_NO_SCORE) else 1 for flag in range(256))


class _Backwards:
    """A sequence read from its end (for bisect, which needs ascending order)."""

    def __init__(self, rows: array[int]) -> None:
        self.rows = rows

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, position: int) -> int:
        return self.rows[len(self.rows) - 1 - position]


def _sort_key(results: RecordColumns, sort: str) -> Callable[[int], Any]:
    """The order `select()` sorts in, as one key per record (its sorts are stable: ties stay in file order)."""
    scores, flags = results.scores, results.flags
    if sort == "score":

        def by_score(i: int) -> tuple[int, int, float]:
            flag = flags[i]
            if flag & FLAG_ERROR:
                return (0, 0, 0.0) if flag & FLAG_NO_SCORE else (0, 1, scores[i])
            return (1, 0, 0.0) if flag & FLAG_NO_SCORE else (2, 0, scores[i])

        return by_score
    if sort == "id":
        return results.eval_ids.__getitem__
    if sort in ("duration", "cost", "time"):
        column = {"duration": results.durations, "cost": results.costs, "time": results.timestamps}[sort]
        sign = 1.0 if sort == "time" else -1.0  # the slowest / dearest first, the oldest first

        def by_column(i: int) -> tuple[int, float]:
            value = column[i]
            return (0, sign * value) if value == value else (1, 0.0)  # none recorded: last

        return by_column
    return lambda i: 0  # file order


def _by_status(results: RecordColumns, indexes: Any, ok: bool, threshold: float) -> list[int]:
    """Rows AgentV 4 recorded as ok / quality failures; rows without a status (0.15-era) are judged by score."""
    statuses, flags, scores = results.statuses, results.flags, results.scores
    wanted = STATUS_OK if ok else STATUS_QUALITY_FAILURE
    out = []
    for i in indexes:
        status = statuses[i]
        if status == STATUS_UNKNOWN:
            flag = flags[i]
            if flag & FLAG_ERROR:
                continue
            passed = not flag & FLAG_NO_SCORE and scores[i] >= threshold
            status = STATUS_OK if passed else STATUS_QUALITY_FAILURE
        if status == wanted:
            out.append(i)
    return out
