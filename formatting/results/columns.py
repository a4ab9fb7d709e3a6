"""Per-record summaries of a results file, in compact arrays: what the list shows, sorts, filters and counts.

One row per record: its byte range and first line, score, error and no-score flags, timestamp, interned target
and dataset, eval id, and for AgentV 4 rows the execution status, duration, cost, tokens and failing graders.
Columns only ever grow at the end (a record read again in place is the one exception: `replace`), and `count` is
published last for each row, so another thread may read rows `0 .. count-1` while rows are added. No Python object
per row but its eval id: a run of millions of rows costs tens of bytes each.

Pure Python: never imports textual or rich.
"""

from __future__ import annotations

import math
from array import array
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from turnlens.formatting.records import JsonObject
from turnlens.formatting.results import agentv4
from turnlens.formatting.results.fields import as_error_text, as_number, as_text

# A summary keeps at most this much of an id/target/dataset string: a hostile 10 MB eval_id must not be copied
# into the index.
SUMMARY_TEXT_LIMIT = 200

FLAG_ERROR = 1  # the record has a non-empty `error`
FLAG_NO_SCORE = 2  # `score` missing or not a number
NAN = math.nan

# One record's row, as `RecordColumns.summarize` makes it: start, end, line, score, flags, timestamp, target and
# dataset (interned), eval id, execution status, duration, cost, tokens.
Row = tuple[int, int, int, float, int, float, int, int, str, int, float, float, float]

_V4_KEYS = agentv4.V4_KEYS
_MISSING = object()
_STATUS_UNKNOWN = agentv4.STATUS_UNKNOWN
_STATUS_CODES = {"ok": agentv4.STATUS_OK, "quality_failure": agentv4.STATUS_QUALITY_FAILURE,
                 "execution_error": agentv4.STATUS_EXECUTION_ERROR}  # fmt: skip


def timestamp_seconds(value: Any) -> float:
    """A record's `timestamp` as seconds since the epoch (a naive one is UTC); NaN when it is not one."""
    if isinstance(value, str) and value:
        try:  # the common case, `2026-06-22T09:00:10.000Z`: Python 3.11 reads the Z itself
            moment = _fromisoformat(value)
        except ValueError:
            text = value.strip()
            if text.endswith(("Z", "z")):
                text = text[:-1] + "+00:00"
            try:
                moment = datetime.fromisoformat(text)
            except ValueError:
                return math.nan
    elif isinstance(value, datetime):
        moment = value
    else:
        return math.nan
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.timestamp()


_fromisoformat = datetime.fromisoformat


def _short(value: Any) -> str:
    if value is None:
        return ""
    text = value if isinstance(value, str) else as_text(value) or ""
    return text[:SUMMARY_TEXT_LIMIT]


@dataclass
class Summary:
    """One record's summary, as the list shows it."""

    index: int
    eval_id: str
    score: float | None
    error: bool
    target: str
    dataset: str
    timestamp: float
    line: int


@dataclass
class ColumnsPart:
    """Rows indexed apart (by a worker process, a chunk of the file): the columns as built there, their strings
    numbered there, their lines counted from the chunk's first and their failing graders' rows from its first row."""

    starts: array[int]
    ends: array[int]
    lines: array[int]
    scores: array[float]
    flags: array[int]
    timestamps: array[float]
    targets: array[int]
    datasets: array[int]
    eval_ids: list[str]
    statuses: array[int]
    durations: array[float]
    costs: array[float]
    tokens: array[float]
    strings: list[str]
    failing: dict[int, array[int]]
    v4_count: int
    recorded: set[str]


class RecordColumns:
    """The per-record columns of an index (see the module docstring); `ResultsFile` fills them from a file."""

    def __init__(self) -> None:
        self.starts = array("q")
        self.ends = array("q")
        self.lines = array("q")
        self.scores = array("d")
        self.flags = array("B")
        self.timestamps = array("d")
        self.targets = array("I")
        self.datasets = array("I")
        self.eval_ids: list[str] = []
        self.strings: list[str] = [""]  # interned targets, datasets and grader names; 0 is "none"
        self._string_ids: dict[str, int] = {"": 0}
        # AgentV 4 columns: execution status, duration, cost, tokens, failing graders
        self.statuses = array("B")  # agentv4.STATUS_*
        self.durations = array("d")  # ms, NaN when not recorded
        self.costs = array("d")  # USD, NaN when not recorded
        self.tokens = array("d")  # NaN when not recorded
        self.failing: dict[int, array[int]] = {}  # interned grader name -> indexes of the records where it failed
        self.v4_count = 0  # rows read as AgentV 4 rows
        self.recorded: set[str] = set()  # which of "duration", "cost", "tokens" any row recorded
        self.count = 0
        self.revision = 0  # bumped when an indexed record is read again in place (a YAML document still growing)

    def _intern(self, value: Any) -> int:
        text = _short(value)
        number = self._string_ids.get(text)
        if number is None:
            number = len(self.strings)
            self.strings.append(text)
            self._string_ids[text] = number
        return number

    def add(self, data: JsonObject, start: int, end: int, line: int) -> None:
        """Add a row for the record `data` (a non-empty mapping) found at bytes [start, end), line `line`."""
        self.add_rows([self.summarize(data, start, end, line, self.count)])

    def add_rows(self, rows: list[Row]) -> None:
        """Add rows made by `summarize` (in file order, the first one numbered `count`): one extend per column,
        in C, rather than a dozen appends per row."""
        if not rows:
            return
        (starts, ends, lines, scores, flags, stamps, targets, datasets, ids, statuses, durations, costs, tokens) = zip(
            *rows
        )
        self.starts.extend(starts)
        self.ends.extend(ends)
        self.lines.extend(lines)
        self.scores.extend(scores)
        self.flags.extend(flags)
        self.timestamps.extend(stamps)
        self.targets.extend(targets)
        self.datasets.extend(datasets)
        self.eval_ids.extend(ids)
        self.statuses.extend(statuses)
        self.durations.extend(durations)
        self.costs.extend(costs)
        self.tokens.extend(tokens)
        self.count += len(rows)  # published last: readers see complete rows only

    def part(self) -> ColumnsPart:
        """These columns, to be added to another index's by `add_columns`."""
        return ColumnsPart(
            self.starts, self.ends, self.lines, self.scores, self.flags, self.timestamps, self.targets, self.datasets,
            self.eval_ids, self.statuses, self.durations, self.costs, self.tokens, self.strings, self.failing,
            self.v4_count, self.recorded,
        )  # fmt: skip

    def add_columns(self, part: ColumnsPart, lines_before: int) -> None:
        """Add the rows of `part` (the next ones in file order; `lines_before` lines come before its first line):
        its strings interned here in the order it met them, as adding its records one by one would have."""
        numbers = [self._intern(text) for text in part.strings]
        first = self.count
        self.starts.extend(part.starts)
        self.ends.extend(part.ends)
        self.lines.extend(map(lines_before.__add__, part.lines))
        self.scores.extend(part.scores)
        self.flags.extend(part.flags)
        self.timestamps.extend(part.timestamps)
        self.targets.extend(map(numbers.__getitem__, part.targets))
        self.datasets.extend(map(numbers.__getitem__, part.datasets))
        self.eval_ids.extend(part.eval_ids)
        self.statuses.extend(part.statuses)
        self.durations.extend(part.durations)
        self.costs.extend(part.costs)
        self.tokens.extend(part.tokens)
        for number, indexes in part.failing.items():
            self.failing.setdefault(numbers[number], array("I")).extend(map(first.__add__, indexes))
        self.v4_count += part.v4_count
        self.recorded |= part.recorded
        self.count += len(part.starts)  # published last: readers see complete rows only

    def summarize(self, data: JsonObject, start: int, end: int, line: int, index: int) -> Row:
        """Record `index`'s row, to be added by `add_rows` (its strings interned, its failing graders noted)."""
        # the scan's hot path (a GB of results is 135,000 rows, or millions of slim ones): the common shapes (a
        # float score, string ids, an ISO timestamp) are read inline; anything else goes to the helpers
        get = data.get
        v4 = not data.keys().isdisjoint(_V4_KEYS)  # (a 0.15-era row has none of the keys looked up for 4.x only)
        score = get("score")
        if type(score) is not float or score != score:  # not a plain float, or NaN
            score = as_number(score)
        flags = 0
        status = None
        if v4:
            status = get("execution_status")
            if status is None:
                status = get("executionStatus")
        if type(status) is str and status:
            if status == "execution_error":
                flags = FLAG_ERROR
        elif "error" in data and as_error_text(data["error"]) is not None:
            flags = FLAG_ERROR
        if score is None:
            flags |= FLAG_NO_SCORE
            score = NAN
        eval_id = get("eval_id")
        if eval_id is None and v4:
            eval_id = get("test_id")
            if eval_id is None:
                eval_id = get("testId")
        if type(eval_id) is not str:
            eval_id = _short(eval_id) if eval_id is not None else ""
        elif len(eval_id) > SUMMARY_TEXT_LIMIT:
            eval_id = eval_id[:SUMMARY_TEXT_LIMIT]
        ids = self._string_ids
        target = get("target")
        number = ids.get(target) if type(target) is str and len(target) <= SUMMARY_TEXT_LIMIT else None
        target = self._intern(target) if number is None else number
        dataset = get("dataset", _MISSING)
        if dataset is _MISSING:
            dataset = get("suite") if v4 else None
        number = ids.get(dataset) if type(dataset) is str and len(dataset) <= SUMMARY_TEXT_LIMIT else None
        dataset = self._intern(dataset) if number is None else number
        stamp = timestamp_seconds(get("timestamp"))
        if not v4:
            return (start, end, line, score, flags, stamp, target, dataset, eval_id, _STATUS_UNKNOWN, NAN, NAN, NAN)
        status_code, duration, cost, tokens = self._v4_summary(data, index)
        return (start, end, line, score, flags, stamp, target, dataset, eval_id, status_code, duration, cost, tokens)

    def _v4_summary(self, data: JsonObject, index: int) -> tuple[int, float, float, float]:
        """An AgentV 4 row's execution status, duration, cost and tokens (NaN: not recorded); notes its failing
        graders under `index`."""
        self.v4_count += 1
        status = data.get("execution_status", data.get("executionStatus"))
        status_code = _STATUS_CODES.get(status, _STATUS_UNKNOWN) if type(status) is str else _STATUS_UNKNOWN
        recorded = self.recorded
        duration = data.get("duration_ms", data.get("durationMs"))
        if isinstance(duration, (int, float)) and not isinstance(duration, bool):
            recorded.add("duration")
        else:
            duration = NAN
        cost = data.get("cost_usd", data.get("costUsd"))
        if isinstance(cost, (int, float)) and not isinstance(cost, bool):
            recorded.add("cost")
        else:
            cost = NAN
        usage = data.get("token_usage", data.get("tokenUsage"))
        tokens = None
        if type(usage) is dict:
            total = usage.get("total")
            if type(total) in (int, float):
                tokens = total
            else:
                parts = (usage.get("input"), usage.get("output"))
                if type(parts[0]) in (int, float) and type(parts[1]) in (int, float):
                    tokens = parts[0] + parts[1]  # type: ignore[operator]
                else:
                    tokens = agentv4.total_tokens(usage)
        elif usage is not None:
            tokens = agentv4.total_tokens(usage)
        if tokens is not None:
            recorded.add("tokens")
        else:
            tokens = NAN
        scores = data.get("scores")
        if type(scores) is list and any(
            type(e) is dict and (e.get("verdict") == "fail" or e.get("scores")) for e in scores
        ):
            for name in agentv4.failing_grader_names(data):
                self.failing.setdefault(self._intern(name), array("I")).append(index)
        return status_code, duration, cost, tokens

    def replace(self, index: int, data: JsonObject, start: int, end: int, line: int, was_v4: bool) -> bool:
        """Index `data` again as record `index` (its document grew), in place: another thread may be reading the
        columns, so nothing is removed. Returns whether it is an AgentV 4 row."""
        fresh = RecordColumns()
        fresh.add(data, start, end, line)
        self.starts[index], self.ends[index], self.lines[index] = start, end, line
        self.scores[index], self.flags[index] = fresh.scores[0], fresh.flags[0]
        self.timestamps[index] = fresh.timestamps[0]
        self.targets[index] = self._intern(fresh.strings[fresh.targets[0]])
        self.datasets[index] = self._intern(fresh.strings[fresh.datasets[0]])
        self.eval_ids[index] = fresh.eval_ids[0]
        self.statuses[index], self.durations[index] = fresh.statuses[0], fresh.durations[0]
        self.costs[index], self.tokens[index] = fresh.costs[0], fresh.tokens[0]
        self.recorded |= fresh.recorded
        for indexes in self.failing.values():
            if index in indexes:
                indexes.remove(index)
        for number in fresh.failing:
            self.failing.setdefault(self._intern(fresh.strings[number]), array("I")).append(index)
        self.v4_count += fresh.v4_count - was_v4
        self.revision += 1
        return bool(fresh.v4_count)

    # -- reading rows ----------------------------------------------------------------------------------------

    @property
    def grader_names(self) -> list[str]:
        """Graders that failed somewhere in the run, by name."""
        return sorted(self.strings[i] for i in self.failing)

    def failing_rows(self, grader: str) -> array[int]:
        """Indexes of the records where the grader named `grader` failed, in file order."""
        number = self._string_ids.get(grader[:SUMMARY_TEXT_LIMIT])
        found = self.failing.get(number) if number is not None else None
        return found if found is not None else array("I")

    def status_of(self, index: int) -> int:
        return self.statuses[index]

    def summary(self, index: int) -> Summary:
        score = self.scores[index]
        flags = self.flags[index]
        return Summary(
            index=index,
            eval_id=self.eval_ids[index],
            score=None if flags & FLAG_NO_SCORE else score,
            error=bool(flags & FLAG_ERROR),
            target=self.strings[self.targets[index]],
            dataset=self.strings[self.datasets[index]],
            timestamp=self.timestamps[index],
            line=self.lines[index],
        )

    def score_of(self, index: int) -> float | None:
        return None if self.flags[index] & FLAG_NO_SCORE else self.scores[index]

    def is_error(self, index: int) -> bool:
        return bool(self.flags[index] & FLAG_ERROR)

    def target_of(self, index: int) -> str:
        return self.strings[self.targets[index]]

    def dataset_of(self, index: int) -> str:
        return self.strings[self.datasets[index]]
