"""The offset index of an AgentV results file: scanned once, followed while it grows, read back record by record.

A results file holds one EvaluationResult per case, as JSONL or as YAML documents separated by `---` (which files
are results: sniff.py). Files can be very large (a GB), so nothing here loads a whole file: `ResultsFile.scan()`
reads it once, window by window (by offset, see source.py), and keeps per record only its byte range and a small
summary in compact arrays (columns.py). A record is parsed in full only when asked for (`ResultsFile.record(i)`,
record.py); `find_text` searches the records' bytes; `follow` indexes what a run appends (follow.py). What the list
shows of the index — statistics, filters, sorts — is queries.py.

Pure Python: never imports textual or rich.
"""

from __future__ import annotations

import bisect
import mmap
import os
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import orjson

from turnlens.formatting.evals.files import FileReadError
from turnlens.formatting.jsjson import js_loads, js_loads_bounded
from turnlens.formatting.records import Diagnostic
from turnlens.formatting.results.columns import RecordColumns, Row
from turnlens.formatting.results.follow import (
    YAML_DOC_SEPARATOR,
    Follower,
    YamlTail,
    leading_blank_lines,
    stat_identity,
)
from turnlens.formatting.results.record import ResultRecord, load_yaml_document, record_from_mapping, too_big
from turnlens.formatting.results.scan_parallel import ParallelScan, Part, WorkerFailed, workers_wanted
from turnlens.formatting.results.sniff import is_yaml_path
from turnlens.formatting.results.source import FileChanged, Source

# The window full-text search reads at a time.
RELEASE_EVERY = 16 * 1024 * 1024

MAX_DIAGNOSTICS = 1000

# The JSONL scan reports progress (and looks at its stop event) at least every this many lines.
ROWS_PER_STEP = 1024

# What JSONL lines are read out of: a window of the file (the scan) or the file mapped (a worker process).
Buffer = bytearray | mmap.mmap

# A JSONL file with at least this much after its first window is indexed by worker processes (scan_parallel.py).
PARALLEL_FROM = 64 * 1024 * 1024


def index_lines(
    index: IndexedLines, buffer: Buffer, base: int, at: int, stop_at: int, length: int, line: int, size: int
) -> Iterator[tuple[int, int]]:
    """Index the JSONL lines that start in buffer[at:stop_at] (`buffer` holds the file from offset `base`; a line runs
    to the next line feed before `length`, else to `length`; `line` lines come before the first), every ROWS_PER_STEP
    lines and at the end yielding (the offset after the last line read, lines so far) in the buffer. The scan's hot
    path, shared by the scan (a window of the file) and its worker processes (a chunk of the mapped file).

    A hand-written loop (a GB is 135,000 rows of 8 KB, or millions of small ones): lines are found with find
    (memchr) and parsed straight out of the buffer (a memoryview, no copy), with no generator or object per line
    between the file and the parse."""
    loads, summarize, path = js_loads, index.summarize, index.path
    view = memoryview(buffer)
    find = buffer.find
    rows: list[Row] = []  # summarized, added to the columns at each step
    while at < stop_at:
        end = find(b"\n", at, length)
        if end == -1:  # the last line, without a line feed
            end = length
        line += 1
        if end > at and (buffer[at] not in b" \t\r" or bytes(view[at:end]).strip(b" \t\r")):
            try:
                data = loads(view[at:end])
            except MemoryError:
                index.add_problem(too_big(path, line, end - at))
            except (orjson.JSONDecodeError, UnicodeDecodeError) as error:
                why = "truncated record (no final newline)" if base + end == size else "not valid JSON"
                index.add_problem(Diagnostic(path, line, f"{why}: {error}", "error"))
            else:
                if type(data) is dict and data:
                    rows.append(summarize(data, base + at, base + end, line, index.count + len(rows)))
                else:
                    index.add_parsed(data, base + at, base + end, line)
        at = end + 1
        if not line % ROWS_PER_STEP:
            index.add_rows(rows)
            rows = []
            yield at, line
    index.add_rows(rows)
    view.release()
    yield at, line


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


class IndexedLines(RecordColumns):
    """The rows of the records of a results file, and its problems: what reading its lines adds (a `ResultsFile`, or
    one chunk of it read apart by a worker process)."""

    def __init__(self, path: str) -> None:
        super().__init__()
        self.path = path
        self.is_yaml = is_yaml_path(path)
        self.diagnostics: list[Diagnostic] = []  # the first MAX_DIAGNOSTICS problems
        self.problem_count = 0  # all of them

    def add_problem(self, diagnostic: Diagnostic) -> None:
        """Keep the first MAX_DIAGNOSTICS problems; count the rest (a binary file must not fill memory)."""
        self.problem_count += 1
        if len(self.diagnostics) < MAX_DIAGNOSTICS:
            self.diagnostics.append(diagnostic)

    def add_parsed(self, data: Any, start: int, end: int, line: int) -> None:
        """Index a parsed record, or count why it is not one (an empty `{}` carries nothing to show)."""
        if isinstance(data, dict) and data:
            self.add(data, start, end, line)
            return
        self.problem_count += 1
        if len(self.diagnostics) < MAX_DIAGNOSTICS:  # millions of `{}` lines: no Diagnostic built past the cap
            if isinstance(data, dict):
                what = "an empty mapping, not a result" if self.is_yaml else "an empty object, not a result"
            else:
                what = f"not a {'mapping' if self.is_yaml else 'JSON object'} but {type(data).__name__}"
            self.diagnostics.append(Diagnostic(self.path, line, what, "error"))


class ResultsFile(IndexedLines):
    """A results file opened for reading (by offset, see source.py): offset index and per-record summaries.

    `scan()` is meant to run in a worker thread. It only ever appends; `count` is published last for each record,
    so another thread may read summaries `0 .. count-1` at any time while the scan goes on.
    """

    def __init__(self, path: str) -> None:
        super().__init__(path)
        self.name = os.path.basename(path)
        self.size = 0
        self.error: Diagnostic | None = None  # the file could not be opened at all
        self._error_identity: tuple[int, int, int] | None = None  # the file's when it could not be opened
        self.scanned = False
        self.scan_seconds = 0.0
        self._src: Source | None = None  # open and not empty
        self.changed: str | None = None  # why the file no longer matches the index (it got shorter)
        self._lock = threading.Lock()
        self._follower = Follower(self)

    # -- opening ---------------------------------------------------------------------------------------------

    def open(self) -> bool:
        """Open the file (regular files only: a FIFO never blocks us). On failure `error` says why."""
        if self._src is not None or self.size:
            return True
        try:
            source = Source(self.path)
        except FileReadError as error:
            self.error = Diagnostic(self.path, None, f"cannot read: {error.reason}", "error")
            self._error_identity = stat_identity(self.path)  # (None: it does not exist)
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

    # -- problems --------------------------------------------------------------------------------------------

    def _file_changed(self, error: FileChanged) -> None:
        """The file got shorter while read: keep what was indexed, say so (`changed`), read no further."""
        self.changed = str(error)
        self.add_problem(
            Diagnostic(
                self.path,
                None,
                f"the file changed while it was read: {error}; the first {self.count:,} records are shown, open "
                "it again to read it anew",
                "warning",
            )
        )

    # -- scanning --------------------------------------------------------------------------------------------

    def scan(self, batch_seconds: float = 0.1, stop: threading.Event | None = None) -> Iterator[ScanProgress]:
        """Index the whole file. Yields progress after the first record and then every `batch_seconds`."""
        started = time.monotonic()
        if not self.open():
            yield ScanProgress(0, 0, 0, done=True)
            return
        if self._src is None:
            self.scanned = True
            if self.is_yaml:
                self._follower.yaml_tail = YamlTail(0, 1)
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
        # The first window is read here (the first record is on screen before 16 MB are read); a big file's rest is
        # indexed by worker processes, chunk by chunk (scan_parallel.py), when they can be started, else here.
        src = self._src
        assert src is not None
        start = 3 if src.read(0, 3) == b"\xef\xbb\xbf" else 0  # a UTF-8 byte order mark is not part of line 1
        line = 0
        size = self.size
        for base, buffer, length in src.windows(start):
            for at, lines_read in index_lines(self, buffer, base, 0, length, length, line, size):
                line = lines_read
                if stop is not None and stop.is_set():
                    return
                yield base + at
            if base + length < size and size - base - length >= PARALLEL_FROM and workers_wanted():
                yield from self._scan_jsonl_in_workers(base + length, line, stop)
                return

    def _scan_jsonl_in_workers(self, position: int, line: int, stop: threading.Event | None) -> Iterator[int]:
        """Index the lines from `position` (a line's start; `line` lines before it) on in worker processes, their
        parts merged in file order. Whatever the workers could not do (they could not start, or one died) is read
        here."""
        src = self._src
        assert src is not None
        try:
            scan = ParallelScan(src.fd, self.size, position, workers_wanted())
        except (OSError, ValueError):  # no process can be started here (ValueError: no descriptor passing)
            scan = None
        if scan is not None:
            try:
                for part in scan.parts(stop):
                    if part is not None:
                        self.add_part(part, line)
                        position, line = part.end, line + part.lines
                    if stop is not None and stop.is_set():
                        return
                    yield position
            except WorkerFailed:
                if src.size_now() < self.size:  # a worker reading a file cut short is killed: say why
                    now = src.size_now()
                    raise FileChanged(f"got shorter while it was read ({self.size:,} bytes, now {now:,})") from None
            finally:
                scan.close()
            if position >= self.size or stop is not None and stop.is_set():
                return
        for base, buffer, length in src.windows(position):
            for at, lines_read in index_lines(self, buffer, base, 0, length, length, line, self.size):
                line = lines_read
                if stop is not None and stop.is_set():
                    return
                yield base + at

    def add_part(self, part: Part, lines_before: int) -> None:
        """Add a part indexed by a worker process: its rows, and its problems (their lines counted from the part's
        first line, `lines_before` lines into the file) under the cap."""
        self.add_columns(part.columns, lines_before)
        self.problem_count += part.problem_count
        room = MAX_DIAGNOSTICS - len(self.diagnostics)
        for line, message, severity in part.problems[: max(0, room)]:
            self.diagnostics.append(Diagnostic(self.path, lines_before + line, message, severity))

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
                if text[:3] == b"---" and YAML_DOC_SEPARATOR.match(text):  # type: ignore[comparison-overlap]
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
                    data = load_yaml_document(chunk)
                except YamlError as error:
                    where = line + error.line - 1 if error.line else line
                    self.add_problem(Diagnostic(self.path, where, f"not valid YAML: {error.message}", "error"))
                else:
                    if data is not None:
                        self.add_parsed(data, doc_start, doc_end, line + leading_blank_lines(chunk))
            self._follower.yaml_tail = YamlTail(
                doc_start,
                line,
                before[0] if self.count > before[0] else -1,
                self.v4_count > before[1],
                self.problem_count > before[2],
            )
            if stop is not None and stop.is_set():
                return
            yield doc_end

    # -- following a file that grows (a run in progress): follow.py -------------------------------------------

    def follow(self, limit: int = 64 * 1024 * 1024) -> str:
        """Look at the file again once it is indexed: "same", "grown" (new records indexed; `count` grew) or
        "replaced" (truncated, rewritten or removed: open it anew). Reads at most `limit` new bytes per call."""
        if self.error is not None:  # could not be opened: a file made (again) since is read anew
            return "same" if stat_identity(self.path) == self._error_identity else "replaced"
        if not self.scanned:
            return "same"
        try:
            stat = os.stat(self.path)
        except OSError:
            return "replaced"
        return self._follower.follow(stat, self.is_yaml, limit)

    def grow_to(self, size: int) -> None:
        """Make records up to byte `size` readable (`raw`, `find_text`)."""
        with self._lock:
            if self._src is None:  # it was empty when opened
                try:
                    self._src = Source(self.path)
                except FileReadError:
                    return
            self._src.size = size  # read by offset: nothing to map again
            self.size = size

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
                parsed = load_yaml_document(data)
            else:
                parsed = js_loads_bounded(data)  # (walked in full: what lies past DEEP_CUT levels is cut)
        except MemoryError:
            record = ResultRecord(file=self.path, line=line)
            record.diagnostics.append(too_big(self.path, line, len(data)))
            return record
        except Exception as error:  # the file changed under us
            record = ResultRecord(file=self.path, line=line)
            record.diagnostics.append(Diagnostic(self.path, line, f"cannot parse record: {error}", "error"))
            return record
        return record_from_mapping(parsed, self.path, line)


def read_all(path: str) -> tuple[ResultsFile, list[ResultRecord]]:
    """Index and parse a whole (small) file: for tests, export and compare of modest runs."""
    results = ResultsFile(path)
    for _ in results.scan():
        pass
    return results, [results.record(i) for i in range(results.count)]
