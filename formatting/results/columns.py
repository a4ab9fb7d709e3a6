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

_V4_KEYS = agentv4.V4_KEYS
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
        # the scan's hot path (a run of 50,000 rows is indexed in the background while the UI draws): the common
        # shapes (a float score, string ids, an ISO timestamp) are read inline; anything else goes to the helpers
        get = data.get
        score = get("score")
        if type(score) is not float or score != score:  # not a plain float, or NaN
            score = as_number(score)
        flags = 0
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
        eval_id = get("eval_id")
        if eval_id is None:
            eval_id = get("test_id")
            if eval_id is None:
                eval_id = get("testId")
        self._add_v4_columns(data)
        self.starts.append(start)
        self.ends.append(end)
        self.lines.append(line)
        self.scores.append(math.nan if score is None else score)
        self.flags.append(flags)
        self.timestamps.append(timestamp_seconds(get("timestamp")))
        ids = self._string_ids
        target = get("target")
        number = ids.get(target) if type(target) is str and len(target) <= SUMMARY_TEXT_LIMIT else None
        self.targets.append(self._intern(target) if number is None else number)
        dataset = data["dataset"] if "dataset" in data else get("suite")
        number = ids.get(dataset) if type(dataset) is str and len(dataset) <= SUMMARY_TEXT_LIMIT else None
        self.datasets.append(self._intern(dataset) if number is None else number)
        if type(eval_id) is str:
            self.eval_ids.append(eval_id if len(eval_id) <= SUMMARY_TEXT_LIMIT else eval_id[:SUMMARY_TEXT_LIMIT])
        else:
            self.eval_ids.append(_short(eval_id) if eval_id is not None else "")
        self.count += 1  # published last: readers see complete rows only

    def _add_v4_columns(self, data: JsonObject) -> None:
        # on the scan's hot path (50 000 rows a few seconds at most): plain lookups, no helper per field
        index = self.count
        if data.keys().isdisjoint(_V4_KEYS):
            self.statuses.append(_STATUS_UNKNOWN)
            self.durations.append(math.nan)
            self.costs.append(math.nan)
            self.tokens.append(math.nan)
            return
        self.v4_count += 1
        status = data.get("execution_status", data.get("executionStatus"))
        self.statuses.append(_STATUS_CODES.get(status, _STATUS_UNKNOWN) if type(status) is str else _STATUS_UNKNOWN)
        recorded = self.recorded
        duration = data.get("duration_ms", data.get("durationMs"))
        if isinstance(duration, (int, float)) and not isinstance(duration, bool):
            self.durations.append(duration)
            recorded.add("duration")
        else:
            self.durations.append(math.nan)
        cost = data.get("cost_usd", data.get("costUsd"))
        if isinstance(cost, (int, float)) and not isinstance(cost, bool):
            self.costs.append(cost)
            recorded.add("cost")
        else:
            self.costs.append(math.nan)
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
            self.tokens.append(tokens)
            recorded.add("tokens")
        else:
            self.tokens.append(math.nan)
        scores = data.get("scores")
        if type(scores) is list and any(
            type(e) is dict and (e.get("verdict") == "fail" or e.get("scores")) for e in scores
        ):
            for name in agentv4.failing_grader_names(data):
                self.failing.setdefault(self._intern(name), array("I")).append(index)

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
