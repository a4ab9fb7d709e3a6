"""Which paths are AgentV results, decided by content, and the runs a path holds.

One function decides whether a path opens as results (`is_results_input`), for the app and for `turnlens export`
alike. A path is results when it is:
- a results file: JSONL whose first record is an object with a numeric `score` (AgentV 4 reads any such row), or
  that names an `eval_id` / `test_id` (0.15-era and 4.x rows, even without a score); YAML documents with a
  top-level `eval_id:` or `test_id:` + `score:` and no `$schema: agentv-eval…` (that is an eval file);
- an AgentV 4 run folder (`<run>/index.jsonl` is a results file);
- a folder holding results files or run folders, at most a few levels down (`.agentv/results/runs/<exp>/<ts>/`).

Runs are listed newest first, by the time in their name (`<suite>_<ISO time>.jsonl`, `runs/<exp>/<ISO time>/`),
else by the file's modification time. Pure Python.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass
from datetime import datetime, timezone

import orjson

from turnlens.formatting.evals.files import FileReadError, read_head
from turnlens.formatting.patterns import LazyPattern
from turnlens.formatting.records import Diagnostic

RESULTS_SUFFIXES = (".jsonl", ".ndjson", ".json", ".yaml", ".yml")
YAML_SUFFIXES = (".yaml", ".yml")
SNIFF_BYTES = 64 * 1024
INDEX_NAME = "index.jsonl"
# AgentV 4's run folder sidecars: JSON but never results rows.
RUN_SIDECARS = frozenset({"benchmark.json", "timing.json", "grading.json", "trace.json"})
MAX_DEPTH = 4  # .agentv/results/runs/<experiment>/<timestamp>
MAX_RUNS = 5000

_ID_KEY = LazyPattern(rb'"(?:eval_id|test_id|testId)"\s*:')
_SCORE_KEY = LazyPattern(rb'"score"\s*:\s*-?[0-9]')
# In one pass over the head (it runs before `turnlens export` starts): an eval file's schema, or a results key.
_YAML_KEYS = re.compile(rb"^(?:(\$schema\s*:\s*['\"]?agentv-eval)|(?:-\s+)?(eval_id|test_id|score)\s*:)", re.M)
# 2026-11-23T21-50-12-345Z (AgentV replaces : and . by -), or the ISO form itself
_TIME_IN_NAME = LazyPattern(r"(\d{4}-\d{2}-\d{2})[T_ ](\d{2})[-:](\d{2})[-:](\d{2})(?:[-.](\d{1,6}))?Z?")


def is_yaml_path(path: str) -> bool:
    return path.lower().endswith(YAML_SUFFIXES)


def _json_row_is_result(head: bytes) -> bool:
    stripped = head.removeprefix(b"\xef\xbb\xbf").lstrip()
    if not stripped.startswith(b"{"):
        return False
    first, newline, _ = stripped.partition(b"\n")
    if newline or len(head) < SNIFF_BYTES:
        try:
            data = orjson.loads(first)
        except orjson.JSONDecodeError:
            data = None
        if isinstance(data, dict):
            score = data.get("score")
            has_score = isinstance(score, (int, float)) and not isinstance(score, bool) and math.isfinite(score)
            return has_score or "eval_id" in data or "test_id" in data or "testId" in data
    # a first row longer than the sniff (a 10 MB answer), or broken: look for the keys in what was read
    return bool(_ID_KEY.search(stripped) or _SCORE_KEY.search(first))


def is_results_file(path: str) -> bool:
    """Cheap check, reading at most 64 KiB: does the file hold AgentV results rows (any era)?"""
    name = os.path.basename(path).lower()
    if not name.endswith(RESULTS_SUFFIXES) or name in RUN_SIDECARS:
        return False
    try:
        head = read_head(path, SNIFF_BYTES)  # a FIFO or a device is never opened for reading
    except (OSError, FileReadError):
        return False
    if is_yaml_path(path):
        keys = set()
        for match in _YAML_KEYS.finditer(head):
            if match.group(1):
                return False  # an eval file
            keys.add(match.group(2))
        return b"eval_id" in keys or (b"test_id" in keys and b"score" in keys)
    return _json_row_is_result(head)


def is_run_folder(path: str) -> bool:
    """An AgentV 4 run folder: its `index.jsonl` holds results rows."""
    index = os.path.join(path, INDEX_NAME)
    return os.path.isfile(index) and is_results_file(index)


@dataclass(frozen=True)
class RunSource:
    """One run: a results file, or a run folder's `index.jsonl` (then `folder` is the run folder)."""

    path: str  # the file that holds the rows
    folder: str | None  # the run folder, for AgentV 4 runs
    name: str  # how the UI names the run: `<experiment>/<timestamp>` or the file name
    time: float  # seconds since the epoch, NaN when unknown
    named: bool = True  # the time is written in the name (else it is the file's modification time)


def time_in_name(name: str) -> float:
    """The UTC time written in an AgentV run or file name, else NaN."""
    match = _TIME_IN_NAME.search(name)
    if match is None:
        return math.nan
    day, hours, minutes, seconds, fraction = match.groups()
    try:
        moment = datetime.fromisoformat(f"{day}T{hours}:{minutes}:{seconds}").replace(tzinfo=timezone.utc)
    except ValueError:
        return math.nan
    return moment.timestamp() + (float("0." + fraction) if fraction else 0.0)


def run_source(path: str) -> RunSource:
    """The run a results file or run folder is."""
    if os.path.isdir(path) or os.path.basename(path) == INDEX_NAME:
        folder = path if os.path.isdir(path) else os.path.dirname(path) or "."
        index = os.path.join(folder, INDEX_NAME) if os.path.isdir(path) else path
        absolute = os.path.abspath(folder)
        stamp, experiment = os.path.basename(absolute), os.path.basename(os.path.dirname(absolute))
        name = f"{experiment}/{stamp}" if experiment and experiment != "runs" else stamp
        when = time_in_name(stamp)
        named = not math.isnan(when)
        return RunSource(index, folder, name, when if named else _mtime(index), named)
    when = time_in_name(os.path.basename(path))
    named = not math.isnan(when)
    return RunSource(path, None, os.path.basename(path), when if named else _mtime(path), named)


def _mtime(path: str) -> float:
    try:
        return os.stat(path).st_mtime
    except OSError:
        return math.nan


def find_runs(folder: str, depth: int = MAX_DEPTH) -> list[RunSource]:
    """Every run in `folder`: the folder itself if it is a run folder, else its results files and the run folders
    below it (a run folder's per-test artifacts are not searched), newest first."""
    if is_run_folder(folder):
        return [run_source(folder)]
    found: list[RunSource] = []
    _walk(folder, depth, found)
    return sorted(found, key=run_order)


def run_order(run: RunSource) -> tuple:
    """How runs are listed: runs named by their time first, newest first; then files such as baselines, newest
    first (by modification time)."""
    return (not run.named, math.isnan(run.time), -run.time if not math.isnan(run.time) else 0.0, run.path)


def _walk(folder: str, depth: int, found: list[RunSource]) -> None:
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return
    for entry in entries:
        if len(found) >= MAX_RUNS:
            return
        try:
            is_dir = entry.is_dir()
        except OSError:
            continue
        if is_dir:
            if depth > 0 and entry.name not in (".git", "node_modules", "__pycache__"):
                if is_run_folder(entry.path):
                    found.append(run_source(entry.path))
                else:
                    _walk(entry.path, depth - 1, found)
        elif entry.name != INDEX_NAME and is_results_file(entry.path):
            found.append(run_source(entry.path))


def holds_results(folder: str) -> bool:
    """A folder that is a run folder or holds runs (a few levels down)."""
    if is_run_folder(folder):
        return True
    found: list[RunSource] = []
    _walk(folder, MAX_DEPTH, found)
    return bool(found)


def is_results_input(path: str) -> bool:
    """Does `path` open as results? The one decision shared by the app and `turnlens export`."""
    if os.path.isdir(path):
        return holds_results(path)
    return os.path.isfile(path) and (is_results_file(path) or _json_lines_of_no_kind(path))


def _json_lines_of_no_kind(path: str) -> bool:
    """A file named explicitly, JSON lines by its name, that is blank or starts with an empty object `{}` (no
    result and no eval row): read as results, which then says there is no usable record (as an eval file it would
    only get a YAML error)."""
    if not path.lower().endswith((".jsonl", ".ndjson")):
        return False
    try:
        head = read_head(path, SNIFF_BYTES)
    except (OSError, FileReadError):
        return False
    first = head.removeprefix(b"\xef\xbb\xbf").lstrip().partition(b"\n")[0]
    try:
        return not first.strip() or orjson.loads(first) == {}
    except orjson.JSONDecodeError:
        return False


def expand_results_paths(paths: list[str]) -> tuple[list[RunSource], list[Diagnostic]]:
    """Folders become the runs inside them (newest first); files stay as given, in the order given."""
    runs: list[RunSource] = []
    problems: list[Diagnostic] = []
    for path in paths:
        if os.path.isdir(path):
            found = find_runs(path)
            if not found:
                problems.append(Diagnostic(path, None, "no results files or run folders in this folder", "error"))
            runs.extend(found)
        else:
            runs.append(run_source(path))
    return runs, problems


class RunWatcher:
    """The runs that appear in a folder of runs after it was opened (a new `runs/<experiment>/<time>/` while the
    app is open). `poll()` returns the runs not seen before, newest first.

    Cheap to call often: a folder is listed again only when its modification time changed (creating a run folder,
    or its `index.jsonl`, changes its parent's), and a file already sniffed as not results is sniffed again only
    when its size or modification time changed (an `index.jsonl` created empty, then written).
    """

    def __init__(self, folder: str, known: list[str] | None = None, depth: int = MAX_DEPTH) -> None:
        self.folder = folder
        self.depth = depth
        self.known: set[str] = set(known or ())  # RunSource.path of the runs already listed
        self._listed: dict[str, tuple[int, list[str], list[str]]] = {}  # folder -> (mtime_ns, subfolders, files)
        self._not_results: dict[str, tuple[int, int]] = {}  # file -> (size, mtime_ns) when sniffed as not results

    def poll(self) -> list[RunSource]:
        found: list[RunSource] = []
        if is_run_folder(self.folder):
            self._add(run_source(self.folder), found)
        else:
            self._walk(self.folder, self.depth, found)
        return sorted(found, key=run_order)

    def _add(self, source: RunSource, found: list[RunSource]) -> None:
        if source.path not in self.known and len(self.known) < MAX_RUNS:
            self.known.add(source.path)
            found.append(source)

    def _is_results(self, path: str) -> bool:
        """`is_results_file`, remembering the files that were not (sniffed again once they change)."""
        try:
            stat = os.stat(path)
        except OSError:
            self._not_results.pop(path, None)
            return False
        signature = (stat.st_size, stat.st_mtime_ns)
        if self._not_results.get(path) == signature:
            return False
        if is_results_file(path):
            self._not_results.pop(path, None)
            return True
        self._not_results[path] = signature
        return False

    def _entries(self, folder: str) -> tuple[list[str], list[str]] | None:
        try:
            mtime = os.stat(folder).st_mtime_ns
        except OSError:
            self._listed.pop(folder, None)
            return None
        listed = self._listed.get(folder)
        if listed is not None and listed[0] == mtime:
            return listed[1], listed[2]
        subfolders, files = [], []
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            return None
        for entry in entries:
            try:
                is_dir = entry.is_dir()
            except OSError:
                continue
            if is_dir:
                if entry.name not in (".git", "node_modules", "__pycache__"):
                    subfolders.append(entry.path)
            elif entry.name != INDEX_NAME and entry.name.lower().endswith(RESULTS_SUFFIXES):
                files.append(entry.path)
        self._listed[folder] = (mtime, subfolders, files)
        return subfolders, files

    def _walk(self, folder: str, depth: int, found: list[RunSource]) -> None:
        listed = self._entries(folder)
        if listed is None:
            return
        subfolders, files = listed
        for path in subfolders:
            if depth <= 0:
                break
            index = os.path.join(path, INDEX_NAME)
            if index in self.known:
                continue  # a run folder already listed: its per-test artifacts are never searched
            if os.path.isfile(index) and self._is_results(index):
                self._add(run_source(path), found)
            else:
                self._walk(path, depth - 1, found)
        for path in files:
            if path not in self.known and self._is_results(path):
                self._add(run_source(path), found)
