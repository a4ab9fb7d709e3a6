"""The runs a path holds. Whether a path opens as results at all is formatting/inputs.py's `classify`: it is
- a results file (sniff.py says which files are);
- an AgentV 4 run folder (`<run>/index.jsonl` is a results file);
- a folder holding results files or run folders, at most a few levels down (`.agentv/results/runs/<exp>/<ts>/`).

Runs are listed newest first, by the time in their name (`<suite>_<ISO time>.jsonl`, `runs/<exp>/<ISO time>/`),
else by the file's modification time. Pure Python.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from datetime import datetime, timezone

from turnlens.formatting.patterns import LazyPattern
from turnlens.formatting.records import Diagnostic
from turnlens.formatting.results.sniff import INDEX_NAME, RESULTS_SUFFIXES, is_results_file, is_run_folder
from turnlens.formatting.walk import TreeWalk, forbidden, inside

MAX_DEPTH = 4  # .agentv/results/runs/<experiment>/<timestamp>
MAX_RUNS = 5000  # runs listed from one folder: the newest (the older ones are counted in a warning)
_SKIP = (".git", "node_modules", "__pycache__")

# 2026-11-23T21-50-12-345Z (AgentV replaces : and . by -), or the ISO form itself
_TIME_IN_NAME = LazyPattern(r"(\d{4}-\d{2}-\d{2})[T_ ](\d{2})[-:](\d{2})[-:](\d{2})(?:[-.](\d{1,6}))?Z?")


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


def find_runs(
    folder: str, depth: int = MAX_DEPTH, limit: int | None = MAX_RUNS, left_out: list[RunSource] | None = None
) -> list[RunSource]:
    """Every run in `folder`: the folder itself if it is a run folder, else its results files and the run folders
    below it (a run folder's per-test artifacts are not searched), newest first. Past `limit` runs, the newest
    are kept and the older ones go to `left_out`."""
    if is_run_folder(folder):
        return [run_source(folder)]
    found: list[RunSource] = []
    _walk(folder, depth, found)
    found.sort(key=run_order)
    if limit is not None and len(found) > limit:
        if left_out is not None:
            left_out.extend(found[limit:])
        del found[limit:]
    return found


def run_order(run: RunSource) -> tuple[bool, bool, float, str]:
    """How runs are listed: runs named by their time first, newest first; then files such as baselines, newest
    first (by modification time)."""
    return (not run.named, math.isnan(run.time), -run.time if not math.isnan(run.time) else 0.0, run.path)


def _walk(folder: str, depth: int, found: list[RunSource], first: bool = False) -> None:
    """The runs under `folder`, `depth` levels down (walk.py: iterative, no link out of `folder`, never /proc or
    /sys); with `first`, stops at the first one found."""
    walk = TreeWalk(folder, skip=_SKIP, max_depth=depth)
    for current, subfolders, files in walk:
        if walk.depth < depth:
            runs = [name for name in subfolders if is_run_folder(os.path.join(current, name))]
            for name in runs:
                found.append(run_source(os.path.join(current, name)))
                subfolders.remove(name)  # its per-test artifacts are never searched
        for name in files:
            path = os.path.join(current, name)
            if name != INDEX_NAME and is_results_file(path):
                found.append(run_source(path))
        if first and found:
            return


def holds_results(folder: str) -> bool:
    """A folder that is a run folder or holds runs (a few levels down)."""
    if is_run_folder(folder):
        return True
    found: list[RunSource] = []
    _walk(folder, MAX_DEPTH, found, first=True)
    return bool(found)


def expand_results_paths(paths: list[str], limit: int | None = MAX_RUNS) -> tuple[list[RunSource], list[Diagnostic]]:
    """Folders become the runs inside them (newest first; past `limit` runs in one folder, the newest, with a
    warning counting the others); files stay as given, in the order given."""
    runs: list[RunSource] = []
    problems: list[Diagnostic] = []
    for path in paths:
        if os.path.isdir(path):
            left_out: list[RunSource] = []
            found = find_runs(path, limit=limit, left_out=left_out)
            if not found:
                problems.append(Diagnostic(path, None, "no results files or run folders in this folder", "error"))
            if left_out:
                problems.append(
                    Diagnostic(
                        path,
                        None,
                        f"{len(found) + len(left_out):,} runs: the newest {len(found):,} are listed, "
                        f"{len(left_out):,} older ones left out",
                        "warning",
                    )
                )
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
        # a full list left older runs out: the first poll takes note of them rather than calling them new
        self._seeding = len(self.known) >= MAX_RUNS
        self._real = os.path.realpath(folder)
        self._listed: dict[str, tuple[int, list[str], list[str]]] = {}  # folder -> (mtime_ns, subfolders, files)
        self._not_results: dict[str, tuple[int, int]] = {}  # file -> (size, mtime_ns) when sniffed as not results

    def poll(self) -> list[RunSource]:
        found: list[RunSource] = []
        if is_run_folder(self.folder):
            self._add(run_source(self.folder), found)
        else:
            self._walk(self.folder, self.depth, found)
        if self._seeding:
            self._seeding = False
            return []
        return sorted(found, key=run_order)

    def _add(self, source: RunSource, found: list[RunSource]) -> None:
        if source.path not in self.known:  # (a new run is always taken: it is the newest)
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
                if entry.name not in _SKIP and (not entry.is_symlink() or self._may_follow(entry.path)):
                    subfolders.append(entry.path)
            elif entry.name != INDEX_NAME and entry.name.lower().endswith(RESULTS_SUFFIXES):
                files.append(entry.path)
        self._listed[folder] = (mtime, subfolders, files)
        return subfolders, files

    def _may_follow(self, link: str) -> bool:
        """A link to a folder is followed only inside the folder watched, never into /proc or /sys (walk.py)."""
        real = os.path.realpath(link)
        return inside(real, self._real) and forbidden(real) is None

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
