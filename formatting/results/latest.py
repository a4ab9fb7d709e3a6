"""The latest recorded result of each test, found beside the eval files (`.agentv/results` in the eval file's folder
or the nearest folder above it, up to the repository root: where `agentv eval` run from there writes its runs).

For the inspector: the newest runs (at most MAX_RUNS, newest first) are indexed from their summaries, and each
test id takes its result from the newest run that recorded it: score, AgentV's verdict, target, run. LatestIndex
does it once for every eval file of a session, in the inspector's worker. Pure Python.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from turnlens.formatting.results.columns import FLAG_NO_SCORE
from turnlens.formatting.results.index import ResultsFile
from turnlens.formatting.results.queries import DEFAULT_THRESHOLD, VERDICT_ERROR, VERDICT_PASS, row_verdict

MAX_RUNS = 20


@dataclass(frozen=True)
class LatestResult:
    test_id: str
    score: float | None
    verdict: str  # pass, fail, error
    target: str
    run: str  # how the results view names the run
    argument: str  # what opens the run: its folder, or the results file
    index: int  # the record in that run
    suite: str = ""  # the suite (0.15: dataset) the run names, "" when none


def results_folder(repo_root: str) -> str | None:
    folder = os.path.join(repo_root, ".agentv", "results")
    return folder if os.path.isdir(folder) else None


def latest_results(repo_root: str, threshold: float = DEFAULT_THRESHOLD) -> dict[str, LatestResult]:
    """Test id -> its newest recorded result, from the runs under `<repo_root>/.agentv/results` ({} if none)."""
    folder = results_folder(repo_root)
    return {} if folder is None else {test_id: found[0] for test_id, found in latest_in(folder, threshold).items()}


def latest_in(folder: str, threshold: float = DEFAULT_THRESHOLD) -> dict[str, list[LatestResult]]:
    """Test id -> its newest recorded result in each suite (newest first), from the runs under the results folder
    `folder`: two suites may hold a test of the same id."""
    from turnlens.formatting.results.discover import expand_results_paths

    sources, _ = expand_results_paths([folder])
    found: dict[str, list[LatestResult]] = {}
    for source in sources[:MAX_RUNS]:  # newest first
        results = ResultsFile(source.path)
        try:
            for _ in results.scan():
                pass
            for i in range(results.count):
                test_id = results.eval_ids[i]
                suite = results.dataset_of(i) or ""
                if not test_id or any(seen.suite == suite for seen in found.get(test_id, ())):
                    continue
                verdict = row_verdict(results, i, threshold)
                found.setdefault(test_id, []).append(
                    LatestResult(
                        test_id,
                        None if results.flags[i] & FLAG_NO_SCORE else results.scores[i],
                        "error" if verdict == VERDICT_ERROR else "pass" if verdict == VERDICT_PASS else "fail",
                        results.target_of(i),
                        source.name,
                        source.folder or source.path,
                        i,
                        suite,
                    )
                )
        finally:
            results.close()
    return found


def suite_names(eval_path: str, suite_name: str | None) -> set[str]:
    """What a run names the suite of an eval file's tests: its `name:`, else its file name without `.eval.yaml`
    (AgentV 4's suite, or 0.15's dataset)."""
    base = os.path.basename(eval_path)
    stem = base.split(".", 1)[0]
    names = {stem, os.path.splitext(base)[0]}
    if suite_name:
        names.add(suite_name)
    return names


class LatestIndex:
    """The latest results of the tests of many eval files: each file's nearest `.agentv/results` (its own folder,
    then each folder above, up to the repository root) indexed once. Built in a worker; read on the UI loop."""

    def __init__(self, repo_root: str, threshold: float = DEFAULT_THRESHOLD) -> None:
        self.repo_root = os.path.abspath(repo_root)
        self.threshold = threshold
        self._folder_of: dict[str, str | None] = {}  # a folder -> the results folder its eval files use
        # a results folder -> test id -> its latest result in each suite, newest first
        self._results: dict[str, dict[str, list[LatestResult]]] = {}

    def results_folder_of(self, eval_path: str) -> str | None:
        """The `.agentv/results` folder nearest to the eval file, up to the repository root; None when none."""
        from turnlens.formatting.evals.paths import dirs_up

        start = os.path.dirname(os.path.abspath(eval_path))
        if start in self._folder_of:
            return self._folder_of[start]
        inside = start == self.repo_root or start.startswith(self.repo_root.rstrip(os.sep) + os.sep)
        found = None
        for folder in dirs_up(start, self.repo_root) if inside else [start]:
            if folder in self._folder_of:
                found = self._folder_of[folder]
                break
            candidate = results_folder(folder)
            if candidate is not None:
                found = candidate
                break
        self._folder_of[start] = found
        return found

    def index(self, eval_paths: list[str]) -> None:
        """Index the results folders of `eval_paths` (each once)."""
        for path in eval_paths:
            folder = self.results_folder_of(path)
            if folder is not None and folder not in self._results:
                self._results[folder] = latest_in(folder, self.threshold)

    def find(self, eval_path: str, test_id: str | None, suite_name: str | None = None) -> LatestResult | None:
        """The latest result of the test `test_id` of the eval file `eval_path` (whose suite is `suite_name`, when
        it names one), when indexed: a result of another suite's test of the same id is not it."""
        folder = self._folder_of.get(os.path.dirname(os.path.abspath(eval_path)))
        if not test_id or folder is None:
            return None
        found = self._results.get(folder, {}).get(test_id, [])
        names = suite_names(eval_path, suite_name)
        return next((r for r in found if r.suite in names), None) or next((r for r in found if not r.suite), None)

    def project_of(self, eval_path: str) -> str | None:
        """The folder holding the `.agentv/` the eval file's results were found in."""
        folder = self._folder_of.get(os.path.dirname(os.path.abspath(eval_path)))
        return os.path.dirname(os.path.dirname(folder)) if folder is not None else None

    @property
    def empty(self) -> bool:
        return not any(self._results.values())
