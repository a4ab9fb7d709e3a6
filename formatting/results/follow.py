"""Following a results file that grows (a run in progress), once the offset index (index.py) has read it.

Kept apart from the scan: new JSONL lines are read with plain reads from where the last complete line ended; a YAML
file is read again from the start of its last document (`YamlTail`, which the scan leaves behind), since that
document may still be growing. The file's head and the text before the end of what was indexed are compared first:
a file truncated, rewritten or replaced is "replaced", and the view opens it anew. The only contact with how
records are read back is `grow_to` (the index must reach the new end).

Pure Python: never imports textual or rich.
"""

from __future__ import annotations

import os
import re
from array import array
from dataclasses import dataclass
from typing import Any, BinaryIO, Protocol

import orjson

from turnlens.formatting.jsjson import js_loads
from turnlens.formatting.records import Diagnostic, JsonObject
from turnlens.formatting.results.record import load_yaml_document, too_big

# bytes compared, at the start and before the end of what was indexed, to tell an appended file from a rewritten one
FOLLOW_HEAD = 4096

YAML_DOC_SEPARATOR = re.compile(rb"^---[ \t]*(?:#[^\n]*)?\r?$", re.M)


@dataclass
class YamlTail:
    """The last document of a YAML results file: where it starts, its first line, the record it was indexed as
    (-1: none yet), whether that record is an AgentV 4 row, and whether reading it gave a problem."""

    start: int
    line: int
    record: int = -1
    v4: bool = False
    problem: bool = False


class GrowingIndex(Protocol):
    """What following needs of the index it adds to (a `ResultsFile`)."""

    path: str
    size: int
    count: int
    v4_count: int
    revision: int
    problem_count: int
    diagnostics: list[Diagnostic]
    starts: array[int]
    ends: array[int]
    lines: array[int]

    def add_parsed(self, data: Any, start: int, end: int, line: int) -> None: ...
    def add_problem(self, diagnostic: Diagnostic) -> None: ...
    def replace(self, index: int, data: JsonObject, start: int, end: int, line: int, was_v4: bool) -> bool: ...
    def grow_to(self, size: int) -> None: ...


_UNCHANGED = object()  # the document is as it was indexed
_PENDING = object()  # the last document does not parse yet: it is being written


def identity(stat: os.stat_result) -> tuple[int, int, int]:
    return (stat.st_ino, stat.st_size, stat.st_mtime_ns)


def stat_identity(path: str) -> tuple[int, int, int] | None:
    try:
        return identity(os.stat(path))
    except OSError:
        return None


def leading_blank_lines(chunk: bytes) -> int:
    """Blank and comment lines before a YAML document's first content line (its record's line is that one)."""
    count = 0
    for raw_line in chunk.split(b"\n", 50)[:50]:
        stripped = raw_line.strip()
        if stripped and not stripped.startswith(b"#"):
            break
        count += 1
    return count


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


class Follower:
    """Looks at an indexed file again and indexes what was appended (see the module docstring)."""

    def __init__(self, index: GrowingIndex) -> None:
        self.index = index
        self.yaml_tail: YamlTail | None = None  # set by the scan of a YAML file
        self._state: tuple[int, int] | None = None  # (offset after the last complete line, lines before it)
        self._head = b""
        self._tail = b""
        self._identity: tuple[int, int, int] | None = None

    def follow(self, stat: os.stat_result, is_yaml: bool, limit: int) -> str:
        """ "same", "grown" (new records indexed) or "replaced"; reads at most `limit` new bytes."""
        if is_yaml:
            return self._follow_yaml(stat, limit)
        return self._follow_jsonl(stat, limit)

    def _follow_state(self) -> tuple[int, int]:
        """(offset after the last complete line, number of lines before it), computed once after the scan."""
        if self._state is not None:
            return self._state
        index = self.index
        size = index.size
        end = size
        with open(index.path, "rb") as handle:
            if size:
                # an unterminated last line (being written): it is read again once complete
                handle.seek(max(0, size - 1))
                if handle.read(1) != b"\n":
                    end = _line_start(handle, size)
            before = index.ends[index.count - 1] if index.count else 0
            if index.count and before <= end:
                handle.seek(before)
                lines = index.lines[index.count - 1] - 1 + handle.read(end - before).count(b"\n")
            else:
                handle.seek(0)
                lines = handle.read(end).count(b"\n")
            handle.seek(0)
            self._head = handle.read(min(size, FOLLOW_HEAD))
            handle.seek(max(0, end - FOLLOW_HEAD))
            self._tail = handle.read(min(end, FOLLOW_HEAD))
            self._identity = identity(os.fstat(handle.fileno()))
        self._state = (end, lines)
        return self._state

    def _follow_jsonl(self, stat: os.stat_result, limit: int) -> str:
        index = self.index
        end, lines = self._follow_state()
        assert self._identity is not None
        if identity(stat)[0] != self._identity[0] or stat.st_size < index.size:
            return "replaced"
        if stat.st_size == index.size and identity(stat) == self._identity:
            return "same"
        with open(index.path, "rb") as handle:
            if handle.read(len(self._head)) != self._head:
                return "replaced"
            # A file rewritten in place, each version longer than the last, is no append: the text up to the end
            # of what was indexed (the last records) must be as it was; when in doubt, the file is read anew.
            handle.seek(end - len(self._tail))
            if handle.read(len(self._tail)) != self._tail:
                return "replaced"
            new = handle.read(min(stat.st_size, end + limit) - end)
            self._identity = identity(os.fstat(handle.fileno()))
        if not new:
            return "same"
        complete = new.rfind(b"\n") + 1
        if index.count and index.starts[index.count - 1] >= end:
            # the unterminated last line was indexed as a record: it may only have gained its line feed
            tail = new[index.size - end :]
            if not tail.startswith((b"\n", b"\r\n")):
                return "replaced"
            skip = index.size - end + tail.index(b"\n") + 1
            end, new, complete = end + skip, new[skip:], complete - skip
            lines += 1
        elif (
            index.diagnostics
            and index.diagnostics[-1].line == lines + 1
            and "truncated" in index.diagnostics[-1].message
        ):
            index.diagnostics.pop()  # the truncated last record is being read again, whole
            index.problem_count -= 1
        if complete <= 0:
            return "same"
        index.grow_to(end + complete)
        position = end
        for raw_line in new[:complete].split(b"\n")[:-1]:
            lines += 1
            stop = position + len(raw_line)
            if raw_line.strip(b" \t\r"):
                try:
                    data = js_loads(raw_line)
                except MemoryError:
                    index.add_problem(too_big(index.path, lines, len(raw_line)))
                except (orjson.JSONDecodeError, UnicodeDecodeError) as error:
                    index.add_problem(Diagnostic(index.path, lines, f"not valid JSON: {error}", "error"))
                else:
                    # as the scan words a line that is no result, under the same cap
                    index.add_parsed(data, position, stop, lines)
            position = stop + 1
        self._tail = (self._tail + new[:complete])[-FOLLOW_HEAD:]
        self._state = (end + complete, lines)
        return "grown"

    def _follow_yaml(self, stat: os.stat_result, limit: int) -> str:
        """`follow` for YAML documents separated by `---`: read from the start of the last document on. Documents
        ended by a separator are indexed as complete; the last one is indexed as soon as it reads as a mapping and
        read again in place while it grows (`revision`); one that does not parse yet waits for more text."""
        from turnlens.formatting.evals.yaml12 import YamlError

        index = self.index
        tail = self.yaml_tail
        if tail is None:  # the scan stopped early, or the file was empty when opened
            return "same" if stat.st_size == index.size else "replaced"
        if self._identity is None:
            with open(index.path, "rb") as handle:
                self._head = handle.read(min(index.size, FOLLOW_HEAD))
            self._identity = (stat.st_ino, index.size, -1)
        if stat.st_ino != self._identity[0] or stat.st_size < index.size:
            return "replaced"
        if stat.st_size == index.size and identity(stat) == self._identity:
            return "same"
        with open(index.path, "rb") as handle:
            if handle.read(len(self._head)) != self._head:
                return "replaced"
            handle.seek(tail.start)
            data = handle.read(max(0, min(stat.st_size, tail.start + limit) - tail.start))
            self._identity = identity(os.fstat(handle.fileno()))
        if tail.start + len(data) < index.size:
            return "replaced"
        if tail.start + len(data) == index.size:
            return "same"
        # documents in the new text: (start, end, first line, ended by a separator)
        documents: list[tuple[int, int, int, bool]] = []
        start, first, number, offset = 0, tail.line, tail.line, 0
        pieces = data.split(b"\n")
        for n, piece in enumerate(pieces):
            # a separator counts once its line is whole: "--" at the end may become "--- # x" or "----"
            if n < len(pieces) - 1 and piece[:3] == b"---" and YAML_DOC_SEPARATOR.match(piece):
                documents.append((start, offset, first, True))
                start, first = offset + len(piece) + 1, number + 1
            offset += len(piece) + 1
            number += 1
        documents.append((start, len(data), first, False))
        before = (index.count, index.revision, index.problem_count)
        if tail.problem:  # the last document was cut when read before: it is read again now
            tail.problem = False
            index.problem_count -= 1
            if index.diagnostics and (index.diagnostics[-1].line or 0) >= tail.line:
                index.diagnostics.pop()
        index.grow_to(tail.start + len(data))
        new_tail = tail
        for start, end, first, complete in documents:
            chunk = data[start:end]
            record = tail.record if start == 0 else -1
            counts = (index.count, index.v4_count, index.problem_count)
            stripped = chunk.strip()
            parsed: Any = None
            if stripped and stripped != b"...":
                if record >= 0 and index.ends[record] == tail.start + end:
                    parsed = _UNCHANGED
                else:
                    try:
                        parsed = load_yaml_document(chunk)
                    except YamlError as error:
                        if not complete:
                            parsed = _PENDING  # being written: read again when it grows
                        elif record >= 0:
                            return "replaced"  # a document shown as read turned out broken: read the file anew
                        else:
                            where = first + error.line - 1 if error.line else first
                            index.add_problem(
                                Diagnostic(index.path, where, f"not valid YAML: {error.message}", "error")
                            )
            line = first + leading_blank_lines(chunk)
            absolute = tail.start + start
            if parsed is _UNCHANGED or parsed is _PENDING:
                pass
            elif record >= 0:
                if not (isinstance(parsed, dict) and parsed):
                    if complete:
                        return "replaced"
                else:
                    tail.v4 = index.replace(record, parsed, absolute, tail.start + end, line, tail.v4)
            elif parsed is not None and (complete or isinstance(parsed, dict) and parsed):
                index.add_parsed(parsed, absolute, tail.start + end, line)
            if not complete:
                kept = record if record >= 0 else (counts[0] if index.count > counts[0] else -1)
                v4 = tail.v4 if record >= 0 else index.v4_count > counts[1]
                new_tail = YamlTail(absolute, first, kept, v4, False)
        self.yaml_tail = new_tail
        return "grown" if (index.count, index.revision, index.problem_count) != before else "same"
