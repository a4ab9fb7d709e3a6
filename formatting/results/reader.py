"""AgentV results files: a full-record reader and an offset index (which files are results: sniff.py).

A results file holds one EvaluationResult per case, as JSONL or as YAML documents separated by `---`. Files can
be very large (hundreds of MB), so nothing here loads a whole file: `ResultsFile.scan()` reads it once (window by
window) and keeps, per record, only its byte range and a small summary (eval id, score, error flag, target, dataset,
timestamp) in compact arrays. A record is parsed in full only when asked for (`ResultsFile.record(i)`).

Pure Python: never imports textual or rich.
"""

from __future__ import annotations

import math
import os
import re
import threading
import time
from array import array
from bisect import bisect_right
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, BinaryIO

import orjson

from turnlens.formatting.evals.files import FileReadError
from turnlens.formatting.jsjson import js_loads
from turnlens.formatting.records import Diagnostic, JsonObject
from turnlens.formatting.results import agentv4
from turnlens.formatting.results.fields import (
    EvaluatorRequest,
    RecordedRequest,
    as_error_text,
    as_evaluator_request,
    as_number,
    as_request,
    as_text,
    as_text_list,
)
from turnlens.formatting.results.sniff import is_yaml_path
from turnlens.formatting.results.source import FileChanged, Source
from turnlens.formatting.sanitize import sanitize

# The window full-text search reads at a time.
RELEASE_EVERY = 16 * 1024 * 1024
# A summary keeps at most this much of an id/target/dataset string: a hostile 10 MB eval_id must not be copied
# into the index.
SUMMARY_TEXT_LIMIT = 200

MAX_DIAGNOSTICS = 1000
# AgentV 4's DEFAULT_THRESHOLD: a score at or above it passes, unless the suite's `execution.threshold` or the user
# (--threshold, + and -) sets another. A row's recorded `execution_status` is its verdict whatever the threshold.
DEFAULT_THRESHOLD = 0.8

FLAG_ERROR = 1  # the record has a non-empty `error`
FLAG_NO_SCORE = 2  # `score` missing or not a number

_YAML_DOC_SEPARATOR = re.compile(rb"^---[ \t]*(?:#[^\n]*)?\r?$", re.M)


# ---------------------------------------------------------------------------------------------------------------
# Untrusted text


# One neutraliser for the app, the exports and stderr (formatting/sanitize.py); this module's name for it.
visible_text = sanitize


def truncate_text(text: str, limit: int) -> tuple[str, int]:
    """`text` cut to `limit` characters, and how many were cut."""
    if len(text) <= limit:
        return text, 0
    return text[:limit], len(text) - limit


# ---------------------------------------------------------------------------------------------------------------
# Full records


@dataclass
class EvaluatorResult:
    name: str
    type: str
    score: float | None
    hits: list[str]
    misses: list[str]
    reasoning: str
    requests: Any = None  # as recorded (often evaluator_provider_request-shaped)


@dataclass
class ResultRecord:
    """One EvaluationResult, every field optional, wrong types coerced to text and reported."""

    file: str
    line: int
    eval_id: str | None = None
    dataset: str | None = None
    conversation_id: str | None = None
    target: str | None = None
    timestamp: str | None = None
    score: float | None = None
    hits: list[str] = field(default_factory=list)
    misses: list[str] = field(default_factory=list)
    candidate_answer: str = ""
    reasoning: str = ""
    raw_aspects: Any = None
    lm_request: RecordedRequest | None = None
    agent_request: RecordedRequest | None = None
    evaluator_request: EvaluatorRequest | None = None
    evaluator_results: list[EvaluatorResult] = field(default_factory=list)
    error: str | None = None
    raw: JsonObject = field(default_factory=dict)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    v4: Any = None  # agentv4.V4Fields for an AgentV 4 row

    @property
    def label(self) -> str:
        return self.eval_id if self.eval_id is not None else f"(no id, line {self.line})"


def record_from_mapping(data: Any, file: str, line: int) -> ResultRecord:
    """Build a ResultRecord from one parsed document; never raises."""
    if not isinstance(data, dict):
        record = ResultRecord(file=file, line=line, raw={})
        record.diagnostics.append(Diagnostic(file, line, f"not a mapping but {type(data).__name__}", "error"))
        return record
    record = ResultRecord(
        file=file,
        line=line,
        eval_id=as_text(data.get("eval_id")),
        dataset=as_text(data.get("dataset")),
        conversation_id=as_text(data.get("conversation_id")),
        target=as_text(data.get("target")),
        timestamp=as_text(data.get("timestamp")),
        score=as_number(data.get("score")),
        hits=as_text_list(data.get("hits")),
        misses=as_text_list(data.get("misses")),
        candidate_answer=as_text(data.get("candidate_answer")) or "",
        reasoning=as_text(data.get("reasoning")) or "",
        raw_aspects=data.get("raw_aspects"),
        lm_request=as_request(data.get("lm_provider_request")),
        agent_request=as_request(data.get("agent_provider_request")),
        evaluator_request=as_evaluator_request(data.get("evaluator_provider_request")),
        error=as_error_text(data.get("error")),
        raw=data,
    )
    if "score" in data and record.score is None and data.get("score") is not None:
        record.diagnostics.append(
            Diagnostic(file, line, f"score is not a number: {(as_text(data['score']) or '')[:60]}")
        )
    evaluators = data.get("evaluator_results")
    if isinstance(evaluators, list):
        for entry in evaluators:
            if not isinstance(entry, dict):
                continue
            record.evaluator_results.append(
                EvaluatorResult(
                    name=as_text(entry.get("name")) or "",
                    type=as_text(entry.get("type")) or "",
                    score=as_number(entry.get("score")),
                    hits=as_text_list(entry.get("hits")),
                    misses=as_text_list(entry.get("misses")),
                    reasoning=as_text(entry.get("reasoning")) or "",
                    requests=entry.get("evaluator_provider_request", entry.get("requests")),
                )
            )
    _fill_v4_fields(record, data)
    return record


def _fill_v4_fields(record: ResultRecord, data: JsonObject) -> None:
    """AgentV 4 rows (test_id, scores[], output, requests…): see agentv4.fill_v4."""
    from turnlens.formatting.results import agentv4

    if agentv4.is_v4_row(data):
        agentv4.fill_v4(record, data)


# ---------------------------------------------------------------------------------------------------------------
# Index


def _timestamp_seconds(value: Any) -> float:
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
class ScanProgress:
    """Posted while indexing: bytes done of size, records found so far."""

    position: int
    size: int
    count: int
    done: bool = False
    elapsed: float = 0.0

    @property
    def fraction(self) -> float:
        return 1.0 if self.size == 0 else min(1.0, self.position / self.size)


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


class ResultsFile:
    """A results file opened for reading (by offset, see source.py): offset index and per-record summaries.

    `scan()` is meant to run in a worker thread. It only ever appends; `count` is published last for each record,
    so another thread may read summaries `0 .. count-1` at any time while the scan goes on.
    """

    def __init__(self, path: str) -> None:
        self.path = path
        self.name = os.path.basename(path)
        self.is_yaml = is_yaml_path(path)
        self.size = 0
        self.diagnostics: list[Diagnostic] = []  # the first MAX_DIAGNOSTICS problems
        self.problem_count = 0  # all of them
        self.error: Diagnostic | None = None  # the file could not be opened at all
        self._error_identity: tuple[int, int, int] | None = None  # the file's when it could not be opened
        self.scanned = False
        self.scan_seconds = 0.0
        self._src: Source | None = None  # open and not empty
        self.changed: str | None = None  # why the file no longer matches the index (it got shorter)
        self._lock = threading.Lock()
        # per-record columns
        self.starts = array("q")
        self.ends = array("q")
        self.lines = array("q")
        self.scores = array("d")
        self.flags = array("B")
        self.timestamps = array("d")
        self.targets = array("I")
        self.datasets = array("I")
        self.eval_ids: list[str] = []
        self.strings: list[str] = [""]  # interned targets and datasets; 0 is "none"
        self._string_ids: dict[str, int] = {"": 0}
        self._init_v4_columns()
        self.count = 0
        self.revision = 0  # bumped when an indexed record is read again in place (a YAML document still growing)
        self._yaml_tail: _YamlTail | None = None  # the last document of a YAML file, as following needs it

    # -- opening ---------------------------------------------------------------------------------------------

    def open(self) -> bool:
        """Open the file (regular files only: a FIFO never blocks us). On failure `error` says why."""
        if self._src is not None or self.size:
            return True
        try:
            source = Source(self.path)
        except FileReadError as error:
            self.error = Diagnostic(self.path, None, f"cannot read: {error.reason}", "error")
            self._error_identity = _stat_identity(self.path)  # (None: it does not exist)
            return False
        self.size = source.size
        if self.size:
            self._src = source
        else:
            source.close()
        return True

    def close(self) -> None:
        with self._lock:
            if self._src is not None:
                self._src.close()
                self._src = None

    def __enter__(self) -> ResultsFile:
        self.open()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- scanning --------------------------------------------------------------------------------------------

    def _intern(self, value: Any) -> int:
        text = _short(value)
        number = self._string_ids.get(text)
        if number is None:
            number = len(self.strings)
            self.strings.append(text)
            self._string_ids[text] = number
        return number

    def _add(self, data: JsonObject, start: int, end: int, line: int) -> None:
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
        self.timestamps.append(_timestamp_seconds(get("timestamp")))
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

    # -- AgentV 4 columns: execution status, duration, cost, tokens, failing graders --------------------------

    def _init_v4_columns(self) -> None:
        self.statuses = array("B")  # agentv4.STATUS_*
        self.durations = array("d")  # ms, NaN when not recorded
        self.costs = array("d")  # USD, NaN when not recorded
        self.tokens = array("d")  # NaN when not recorded
        self.failing: dict[int, array[int]] = {}  # interned grader name -> indexes of the records where it failed
        self.v4_count = 0  # rows read as AgentV 4 rows
        self.recorded: set[str] = set()  # which of "duration", "cost", "tokens" any row recorded

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

    @property
    def grader_names(self) -> list[str]:
        """Graders that failed somewhere in the run, by name."""
        return sorted(self.strings[i] for i in self.failing)

    def status_of(self, index: int) -> int:
        return self.statuses[index]

    # -- following a file that grows (a run in progress) -------------------------------------------------------
    # Kept apart from the scan: new lines are read with plain reads from where the last complete line ended, and
    # the only contact with how records are read back is `_grow_to` (the index must reach the new end).

    FOLLOW_HEAD = 4096  # bytes compared, at the start and before the end of what was indexed, to tell an appended
    # file from a rewritten one

    def _follow_state(self) -> tuple[int, int]:
        """(offset after the last complete line, number of lines before it), computed once after the scan."""
        state: tuple[int, int] | None = getattr(self, "_following", None)
        if state is not None:
            return state
        size = self.size
        end = size
        with open(self.path, "rb") as handle:
            if size:
                # an unterminated last line (being written): it is read again once complete
                handle.seek(max(0, size - 1))
                if handle.read(1) != b"\n":
                    end = self._line_start(handle, size)
            before = self.ends[self.count - 1] if self.count else 0
            if self.count and before <= end:
                handle.seek(before)
                lines = self.lines[self.count - 1] - 1 + handle.read(end - before).count(b"\n")
            else:
                handle.seek(0)
                lines = handle.read(end).count(b"\n")
            handle.seek(0)
            self._head = handle.read(min(size, self.FOLLOW_HEAD))
            handle.seek(max(0, end - self.FOLLOW_HEAD))
            self._tail = handle.read(min(end, self.FOLLOW_HEAD))
            self._identity = _identity(os.fstat(handle.fileno()))
        self._following = (end, lines)
        return self._following

    @staticmethod
    def _line_start(handle: BinaryIO, size: int) -> int:
        position = size
        while position > 0:
            step = min(position, 64 * 1024)
            handle.seek(position - step)
            found = handle.read(step).rfind(b"\n")
            if found != -1:
                return position - step + found + 1
            position -= step
        return 0

    def follow(self, limit: int = 64 * 1024 * 1024) -> str:
        """Look at the file again once it is indexed: "same", "grown" (new records indexed; `count` grew) or
        "replaced" (truncated, rewritten or removed: open it anew). Reads at most `limit` new bytes per call."""
        if self.error is not None:  # could not be opened: a file made (again) since is read anew
            return "same" if _stat_identity(self.path) == self._error_identity else "replaced"
        if not self.scanned:
            return "same"
        try:
            stat = os.stat(self.path)
        except OSError:
            return "replaced"
        if self.is_yaml:
            return self._follow_yaml(stat, limit)
        end, lines = self._follow_state()
        if _identity(stat)[0] != self._identity[0] or stat.st_size < self.size:
            return "replaced"
        if stat.st_size == self.size and _identity(stat) == self._identity:
            return "same"
        with open(self.path, "rb") as handle:
            if handle.read(len(self._head)) != self._head:
                return "replaced"
            # A file rewritten in place, each version longer than the last, is no append: the text up to the end
            # of what was indexed (the last records) must be as it was; when in doubt, the file is read anew.
            handle.seek(end - len(self._tail))
            if handle.read(len(self._tail)) != self._tail:
                return "replaced"
            new = handle.read(min(stat.st_size, end + limit) - end)
            self._identity = _identity(os.fstat(handle.fileno()))
        if not new:
            return "same"
        complete = new.rfind(b"\n") + 1
        if self.count and self.starts[self.count - 1] >= end:
            # the unterminated last line was indexed as a record: it may only have gained its line feed
            tail = new[self.size - end :]
            if not tail.startswith((b"\n", b"\r\n")):
                return "replaced"
            skip = self.size - end + tail.index(b"\n") + 1
            end, new, complete = end + skip, new[skip:], complete - skip
            lines += 1
        elif (
            self.diagnostics and self.diagnostics[-1].line == lines + 1 and "truncated" in self.diagnostics[-1].message
        ):
            self.diagnostics.pop()  # the truncated last record is being read again, whole
            self.problem_count -= 1
        if complete <= 0:
            return "same"
        self._grow_to(end + complete)
        position = end
        for raw_line in new[:complete].split(b"\n")[:-1]:
            lines += 1
            stop = position + len(raw_line)
            if raw_line.strip(b" \t\r"):
                try:
                    data = js_loads(raw_line)
                except MemoryError:
                    self._problem(_too_big(self.path, lines, len(raw_line)))
                except (orjson.JSONDecodeError, UnicodeDecodeError) as error:
                    self._problem(Diagnostic(self.path, lines, f"not valid JSON: {error}", "error"))
                else:
                    if isinstance(data, dict) and data:
                        self._add(data, position, stop, lines)
                    else:
                        self._problem(Diagnostic(self.path, lines, "not a JSON object with fields", "error"))
            position = stop + 1
        self._tail = (self._tail + new[:complete])[-self.FOLLOW_HEAD :]
        self._following = (end + complete, lines)
        return "grown"

    def _follow_yaml(self, stat: os.stat_result, limit: int) -> str:
        """`follow` for YAML documents separated by `---`: read from the start of the last document on. Documents
        ended by a separator are indexed as complete; the last one is indexed as soon as it reads as a mapping and
        read again in place while it grows (`revision`); one that does not parse yet waits for more text."""
        from turnlens.formatting.evals.yaml12 import YamlError

        tail = self._yaml_tail
        if tail is None:  # the scan stopped early, or the file was empty when opened
            return "same" if stat.st_size == self.size else "replaced"
        if getattr(self, "_identity", None) is None:
            with open(self.path, "rb") as handle:
                self._head = handle.read(min(self.size, self.FOLLOW_HEAD))
            self._identity = (stat.st_ino, self.size, -1)
        if stat.st_ino != self._identity[0] or stat.st_size < self.size:
            return "replaced"
        if stat.st_size == self.size and _identity(stat) == self._identity:
            return "same"
        with open(self.path, "rb") as handle:
            if handle.read(len(self._head)) != self._head:
                return "replaced"
            handle.seek(tail.start)
            data = handle.read(max(0, min(stat.st_size, tail.start + limit) - tail.start))
            self._identity = _identity(os.fstat(handle.fileno()))
        if tail.start + len(data) < self.size:
            return "replaced"
        if tail.start + len(data) == self.size:
            return "same"
        # documents in the new text: (start, end, first line, ended by a separator)
        documents: list[tuple[int, int, int, bool]] = []
        start, first, number, offset = 0, tail.line, tail.line, 0
        pieces = data.split(b"\n")
        for n, piece in enumerate(pieces):
            # a separator counts once its line is whole: "--" at the end may become "--- # x" or "----"
            if n < len(pieces) - 1 and piece[:3] == b"---" and _YAML_DOC_SEPARATOR.match(piece):
                documents.append((start, offset, first, True))
                start, first = offset + len(piece) + 1, number + 1
            offset += len(piece) + 1
            number += 1
        documents.append((start, len(data), first, False))
        before = (self.count, self.revision, self.problem_count)
        if tail.problem:  # the last document was cut when read before: it is read again now
            tail.problem = False
            self.problem_count -= 1
            if self.diagnostics and (self.diagnostics[-1].line or 0) >= tail.line:
                self.diagnostics.pop()
        self._grow_to(tail.start + len(data))
        new_tail = tail
        for start, end, first, complete in documents:
            chunk = data[start:end]
            record = tail.record if start == 0 else -1
            counts = (self.count, self.v4_count, self.problem_count)
            stripped = chunk.strip()
            parsed: Any = None
            if stripped and stripped != b"...":
                if record >= 0 and self.ends[record] == tail.start + end:
                    parsed = _UNCHANGED
                else:
                    try:
                        parsed = _load_yaml_document(chunk)
                    except YamlError as error:
                        if not complete:
                            parsed = _PENDING  # being written: read again when it grows
                        elif record >= 0:
                            return "replaced"  # a document shown as read turned out broken: read the file anew
                        else:
                            where = first + error.line - 1 if error.line else first
                            self._problem(Diagnostic(self.path, where, f"not valid YAML: {error.message}", "error"))
            line = first + _leading_blank_lines(chunk)
            absolute = tail.start + start
            if parsed is _UNCHANGED or parsed is _PENDING:
                pass
            elif record >= 0:
                if not (isinstance(parsed, dict) and parsed):
                    if complete:
                        return "replaced"
                else:
                    tail.v4 = self._replace(record, parsed, absolute, tail.start + end, line, tail.v4)
            elif parsed is not None and (complete or isinstance(parsed, dict) and parsed):
                self._add_parsed(parsed, absolute, tail.start + end, line)
            if not complete:
                kept = record if record >= 0 else (counts[0] if self.count > counts[0] else -1)
                v4 = tail.v4 if record >= 0 else self.v4_count > counts[1]
                new_tail = _YamlTail(absolute, first, kept, v4, False)
        self._yaml_tail = new_tail
        return "grown" if (self.count, self.revision, self.problem_count) != before else "same"

    def _replace(self, index: int, data: JsonObject, start: int, end: int, line: int, was_v4: bool) -> bool:
        """Index `data` again as record `index` (its document grew), in place: another thread may be reading the
        columns, so nothing is removed. Returns whether it is an AgentV 4 row."""
        fresh = ResultsFile(self.path)  # not opened: only its columns are used
        fresh._add(data, start, end, line)
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

    def _grow_to(self, size: int) -> None:
        """Make records up to byte `size` readable (`raw`, `find_text`)."""
        with self._lock:
            if self._src is None:  # it was empty when opened
                try:
                    self._src = Source(self.path)
                except FileReadError:
                    return
            self._src.size = size  # read by offset: nothing to map again
            self.size = size

    def _problem(self, diagnostic: Diagnostic) -> None:
        """Keep the first MAX_DIAGNOSTICS problems; count the rest (a binary file must not fill memory)."""
        self.problem_count += 1
        if len(self.diagnostics) < MAX_DIAGNOSTICS:
            self.diagnostics.append(diagnostic)

    def _file_changed(self, error: FileChanged) -> None:
        """The file got shorter while read: keep what was indexed, say so (`changed`), read no further."""
        self.changed = str(error)
        self._problem(
            Diagnostic(
                self.path,
                None,
                f"the file changed while it was read: {error}; the first {self.count:,} records are shown, open "
                "it again to read it anew",
                "warning",
            )
        )

    def scan(self, batch_seconds: float = 0.1, stop: threading.Event | None = None) -> Iterator[ScanProgress]:
        """Index the whole file. Yields progress after the first record and then every `batch_seconds`."""
        started = time.monotonic()
        if not self.open():
            yield ScanProgress(0, 0, 0, done=True)
            return
        if self._src is None:
            self.scanned = True
            if self.is_yaml:
                self._yaml_tail = _YamlTail(0, 1)
            yield ScanProgress(0, 0, 0, done=True)
            return
        steps = self._scan_yaml(stop) if self.is_yaml else self._scan_jsonl(stop)
        last = time.monotonic()
        first = True
        try:
            for position in steps:
                now = time.monotonic()
                if first and self.count or now - last >= batch_seconds:
                    first = first and not self.count
                    last = now
                    yield ScanProgress(position, self.size, self.count, elapsed=now - started)
        except FileChanged as error:
            self._file_changed(error)
        self.scanned = True
        self.scan_seconds = time.monotonic() - started
        yield ScanProgress(self.size, self.size, self.count, done=True, elapsed=self.scan_seconds)

    def _scan_jsonl(self, stop: threading.Event | None) -> Iterator[int]:
        src = self._src
        assert src is not None
        loads = js_loads
        start = 3 if src.read(0, 3) == b"\xef\xbb\xbf" else 0  # a UTF-8 byte order mark is not part of line 1
        line = 0
        size = self.size
        for position, end, chunk in src.lines(start):
            line += 1
            if chunk and (chunk[0] not in b" \t\r" or bytes(chunk).strip(b" \t\r")):
                try:
                    data = loads(chunk)
                except MemoryError:
                    self._problem(_too_big(self.path, line, len(chunk)))
                except (orjson.JSONDecodeError, UnicodeDecodeError) as error:
                    why = "truncated record (no final newline)" if end == size else "not valid JSON"
                    self._problem(Diagnostic(self.path, line, f"{why}: {error}", "error"))
                else:
                    self._add_parsed(data, position, end, line)
            if stop is not None and stop.is_set():
                return
            yield end + 1

    def _add_parsed(self, data: Any, start: int, end: int, line: int) -> None:
        """Index a parsed record, or count why it is not one (an empty `{}` carries nothing to show)."""
        if isinstance(data, dict) and data:
            self._add(data, start, end, line)
            return
        self.problem_count += 1
        if len(self.diagnostics) < MAX_DIAGNOSTICS:  # millions of `{}` lines: no Diagnostic built past the cap
            if isinstance(data, dict):
                what = "an empty mapping, not a result" if self.is_yaml else "an empty object, not a result"
            else:
                what = f"not a {'mapping' if self.is_yaml else 'JSON object'} but {type(data).__name__}"
            self.diagnostics.append(Diagnostic(self.path, line, what, "error"))

    def _scan_yaml(self, stop: threading.Event | None) -> Iterator[int]:
        from turnlens.formatting.evals.yaml12 import YamlError

        src = self._src
        assert src is not None

        def documents() -> Iterator[tuple[int, int, int]]:
            """(start of a document's text, its end (the separator line after it, or EOF), its first line)."""
            start, first_line, number = 0, 1, 0
            for line_start, line_end, text in src.lines(0):
                number += 1
                # (a memoryview equals the bytes it holds; typeshed does not say so)
                if text[:3] == b"---" and _YAML_DOC_SEPARATOR.match(text):  # type: ignore[comparison-overlap]
                    yield start, line_start, first_line
                    start, first_line = line_end + 1, number + 1
            yield start, self.size, first_line

        for doc_start, doc_end, line in documents():
            if doc_start > self.size:
                break
            before = (self.count, self.v4_count, self.problem_count)
            chunk = src.read(doc_start, doc_end)
            if chunk.strip() and chunk.strip() != b"...":
                try:
                    data = _load_yaml_document(chunk)
                except YamlError as error:
                    where = line + error.line - 1 if error.line else line
                    self._problem(Diagnostic(self.path, where, f"not valid YAML: {error.message}", "error"))
                else:
                    if data is not None:
                        self._add_parsed(data, doc_start, doc_end, line + _leading_blank_lines(chunk))
            self._yaml_tail = _YamlTail(
                doc_start,
                line,
                before[0] if self.count > before[0] else -1,
                self.v4_count > before[1],
                self.problem_count > before[2],
            )
            if stop is not None and stop.is_set():
                return
            yield doc_end

    # -- full-text search ------------------------------------------------------------------------------------

    def find_text(
        self, needle: str, stop: threading.Event | None = None, window: int = RELEASE_EVERY
    ) -> bytearray | None:
        """Records whose raw text contains `needle` (case-insensitive), as a 0/1 mask over record indexes.

        Reads the file window by window for the needle as it is written in the file: JSON-escaped for JSONL; ASCII
        letters match either case. Returns None when stopped. Only records indexed so far count; a file that got
        shorter meanwhile gives the records found before the change (and sets `changed`).
        """
        mask = bytearray(self.count)
        if not needle or self._src is None:
            return mask
        try:
            return self._find_text(mask, needle, stop, window)
        except FileChanged as error:
            self._file_changed(error)
            return mask

    def _find_text(self, mask: bytearray, needle: str, stop: threading.Event | None, window: int) -> bytearray | None:
        assert self._src is not None
        import bisect

        raw = orjson.dumps(needle)[1:-1] if not self.is_yaml else needle.encode("utf-8")
        wanted = raw.lower()  # ASCII case folding, done in C on each window: far faster than re.IGNORECASE
        read, starts, ends = self._src.read, self.starts, self.ends
        count = len(mask)
        limit = ends[count - 1] if count else 0
        position = 0
        overlap = max(0, len(wanted) - 1)
        while position < limit:
            if stop is not None and stop.is_set():
                return None
            window_end = min(limit, position + window)
            chunk = read(position, min(limit, window_end + overlap)).lower()
            found = chunk.find(wanted)
            while found != -1 and position + found < window_end:
                absolute = position + found
                record = bisect.bisect_right(starts, absolute, 0, count) - 1
                if record >= 0 and absolute + len(wanted) <= ends[record]:
                    mask[record] = 1
                    found = chunk.find(wanted, max(found + 1, ends[record] - position))  # one hit per record
                else:
                    found = chunk.find(wanted, found + 1)
            del chunk
            position = window_end
        return mask

    # -- reading ---------------------------------------------------------------------------------------------

    def raw(self, index: int) -> bytes:
        """The bytes of record `index` (a copy). Raises FileChanged when the file got shorter since it was indexed."""
        with self._lock:
            if self._src is None and not self.open():
                return b""
            if self._src is None:
                return b""
            return self._src.read(self.starts[index], self.ends[index])

    def record(self, index: int) -> ResultRecord:
        """Parse record `index` in full. May take a while for a 10 MB record: call it from a worker."""
        line = self.lines[index]
        try:
            data = self.raw(index)
        except FileChanged as error:
            record = ResultRecord(file=self.path, line=line)
            message = f"cannot read this record: the file changed since it was indexed ({error}); open it again"
            record.diagnostics.append(Diagnostic(self.path, line, message, "error"))
            return record
        try:
            if self.is_yaml:
                parsed = _load_yaml_document(data)
            else:
                parsed = js_loads(data)
        except MemoryError:
            record = ResultRecord(file=self.path, line=line)
            record.diagnostics.append(_too_big(self.path, line, len(data)))
            return record
        except Exception as error:  # the file changed under us
            record = ResultRecord(file=self.path, line=line)
            record.diagnostics.append(Diagnostic(self.path, line, f"cannot parse record: {error}", "error"))
            return record
        return record_from_mapping(parsed, self.path, line)

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


@dataclass
class _YamlTail:
    """The last document of a YAML results file: where it starts, its first line, the record it was indexed as
    (-1: none yet), whether that record is an AgentV 4 row, and whether reading it gave a problem."""

    start: int
    line: int
    record: int = -1
    v4: bool = False
    problem: bool = False


_UNCHANGED = object()  # the document is as it was indexed
_PENDING = object()  # the last document does not parse yet: it is being written

_V4_KEYS = agentv4.V4_KEYS
_STATUS_UNKNOWN = agentv4.STATUS_UNKNOWN
_STATUS_CODES = {"ok": agentv4.STATUS_OK, "quality_failure": agentv4.STATUS_QUALITY_FAILURE,
                 "execution_error": agentv4.STATUS_EXECUTION_ERROR}  # fmt: skip


def _too_big(path: str, line: int, size: int) -> Diagnostic:
    """A record that could not be read in the memory this process may use: the limit hit named (not "not valid
    JSON", which orjson's allocation failure read as)."""
    from turnlens.formatting.evals.files import format_size
    from turnlens.formatting.memlimit import limit_hit

    return Diagnostic(path, line, f"too big for memory: a record of {format_size(size)}; {limit_hit()}", "error")


def _identity(stat: os.stat_result) -> tuple[int, int, int]:
    return (stat.st_ino, stat.st_size, stat.st_mtime_ns)


def _stat_identity(path: str) -> tuple[int, int, int] | None:
    try:
        return _identity(os.stat(path))
    except OSError:
        return None


def _leading_blank_lines(chunk: bytes) -> int:
    count = 0
    for raw_line in chunk.split(b"\n", 50)[:50]:
        stripped = raw_line.strip()
        if stripped and not stripped.startswith(b"#"):
            break
        count += 1
    return count


def read_all(path: str) -> tuple[ResultsFile, list[ResultRecord]]:
    """Index and parse a whole (small) file: for tests, export and compare of modest runs."""
    results = ResultsFile(path)
    for _ in results.scan():
        pass
    return results, [results.record(i) for i in range(results.count)]


# ---------------------------------------------------------------------------------------------------------------
# Views over the index: statistics, filtering, sorting, searching


@dataclass
class V4Totals:
    """Over the AgentV 4 rows of a run: rows per execution status, and the recorded totals."""

    rows: int = 0
    statuses: list[int] = field(default_factory=lambda: [0, 0, 0, 0])  # by agentv4.STATUS_*
    duration_ms: float = 0.0
    cost_usd: float = 0.0
    tokens: float = 0.0


def _count_v4(results: ResultsFile, base: V4Totals | None, start: int, count: int) -> V4Totals | None:
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


def row_verdict(results: ResultsFile, index: int, threshold: float) -> int:
    return verdict_of(results.statuses[index], results.flags[index], results.scores[index], threshold)


class StatsCounter:
    """`compute_stats` that goes on from where it stopped: while a big file is indexed, each update only reads
    the records added since the last one (a new threshold starts it over)."""

    def __init__(self) -> None:
        self.threshold: float | None = None
        self.revision = 0
        self.stats = Stats(0, 0, None, 0, 0, 0, [0] * 10)
        self._total = 0.0

    def update(self, results: ResultsFile, threshold: float) -> Stats:
        if threshold != self.threshold or results.count < self.stats.count or results.revision != self.revision:
            self.threshold = threshold
            self.revision = results.revision
            self.stats = Stats(0, 0, None, 0, 0, 0, [0] * 10)
            self._total = 0.0
        self.stats, self._total = _count_stats(results, threshold, self.stats, self._total)
        return self.stats


def compute_stats(results: ResultsFile, threshold: float, upto: int | None = None) -> Stats:
    start = Stats(0, 0, None, 0, 0, 0, [0] * 10)
    return _count_stats(results, threshold, start, 0.0, upto)[0]


def _count_stats(
    results: ResultsFile, threshold: float, base: Stats, total: float, upto: int | None = None
) -> tuple[Stats, float]:
    count = results.count if upto is None else min(upto, results.count)
    scores = results.scores
    flags = results.flags
    histogram = list(base.histogram)
    scored, passed, failed, errors = base.scored, base.passed, base.failed, base.errors
    other = base.other_threshold
    rows = zip(flags[base.count : count], scores[base.count : count], results.statuses[base.count : count])
    for flag, score, status in rows:  # slices: no lookup per row
        if not flag & FLAG_NO_SCORE:
            scored += 1
            total += score
            histogram[min(9, max(0, int(score * 10)))] += 1
        verdict = verdict_of(status, flag, score, threshold)
        if verdict == VERDICT_ERROR:
            errors += 1
            continue
        if verdict == VERDICT_PASS:
            passed += 1
        else:
            failed += 1
        if status < 2 and (verdict == VERDICT_PASS) != (score >= threshold):  # NaN compares False: unscored
            other += 1
    v4 = _count_v4(results, base.v4, base.count, count)
    mean = total / scored if scored else None
    return Stats(count, scored, mean, passed, failed, errors, histogram, v4, other), total


SORT_KEYS = ("score", "id", "time", "duration", "cost", "file")
# `errors` are execution errors; `quality failures` are rows AgentV 4 marked so (0.15-era rows: a score under the
# threshold); a failing grader's filter is `grader:NAME` (see ResultsFile.grader_names).
FILTERS = ("all", "failures", "errors", "quality failures", "ok")
GRADER_FILTER = "grader:"


def select(
    results: ResultsFile,
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
        indexes = [i for i in _failing_grader(results, filter[len(GRADER_FILTER) :], count) if i >= start]
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
        errors: list[int] = []
        unscored: list[int] = []
        scored: list[int] = []
        for i in indexes:
            flag = flags[i]
            (errors if flag & FLAG_ERROR else unscored if flag & FLAG_NO_SCORE else scored).append(i)
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


# Past this many new records (or a 64th of those listed), a new selection is made whole: each insertion moves the
# rows after it.
MAX_INSERTED = 2048


def insert_selected(
    results: ResultsFile,
    listed: Sequence[int],
    listed_upto: int,
    *,
    sort: str = "file",
    reverse: bool = False,
    filter: str = "all",
    query: str = "",
    threshold: float = DEFAULT_THRESHOLD,
    upto: int | None = None,
) -> array[int] | None:
    """`select()` for records appended since `listed` was selected with the same choices over the first
    `listed_upto` records: the new records are filtered and put in their place (after the rows they tie with, as
    the stable sort does), each at the cost of a binary search. None when too many were appended (select again)."""
    count = results.count if upto is None else min(upto, results.count)
    new = select(results, filter=filter, query=query, threshold=threshold, upto=count, start=listed_upto)
    if len(new) > max(MAX_INSERTED, len(listed) // 64):
        return None
    rows = array("I", listed)
    key = _sort_key(results, sort)
    for index in new:  # ascending file order: each goes after its ties
        if reverse:  # the listed order is the ascending one backwards: ties in reverse file order
            rows.insert(len(rows) - bisect_right(_Backwards(rows), key(index), key=key), index)
        else:
            rows.insert(bisect_right(rows, key(index), key=key), index)
    return rows


class _Backwards:
    """A sequence read from its end (for bisect, which needs ascending order)."""

    def __init__(self, rows: array[int]) -> None:
        self.rows = rows

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, position: int) -> int:
        return self.rows[len(self.rows) - 1 - position]


def _sort_key(results: ResultsFile, sort: str) -> Callable[[int], Any]:
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


def _by_status(results: ResultsFile, indexes: Any, ok: bool, threshold: float) -> list[int]:
    """Rows AgentV 4 recorded as ok / quality failures; rows without a status (0.15-era) are judged by score."""
    from turnlens.formatting.results.agentv4 import STATUS_OK, STATUS_QUALITY_FAILURE, STATUS_UNKNOWN

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


def _failing_grader(results: ResultsFile, name: str, count: int) -> list[int]:
    number = results._string_ids.get(name[:SUMMARY_TEXT_LIMIT])
    found = results.failing.get(number) if number is not None else None
    return [i for i in (found or ()) if i < count]


def _load_yaml_document(chunk: bytes) -> Any:
    """One results document with YAML 1.2 core-schema typing, as AgentV wrote it (`yes` stays text)."""
    from turnlens.formatting.evals.yaml12 import parse_yaml

    return parse_yaml(bytes(chunk).decode("utf-8", errors="replace")).data
