"""The latest recorded result of each test, found beside the eval files (`<repo root>/.agentv/results`).

For the inspector: the newest runs (at most MAX_RUNS, newest first) are indexed from their summaries, and each
test id takes its result from the newest run that recorded it: score, AgentV's verdict, target, run. Pure Python.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from turnlens.formatting.results.reader import (
    DEFAULT_THRESHOLD,
    FLAG_NO_SCORE,
    VERDICT_ERROR,
    VERDICT_PASS,
    ResultsFile,
    row_verdict,
)

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


def results_folder(repo_root: str) -> str | None:
    folder = os.path.join(repo_root, ".agentv", "results")
    return folder if os.path.isdir(folder) else None


def latest_results(repo_root: str, threshold: float = DEFAULT_THRESHOLD) -> dict[str, LatestResult]:
    """Test id -> its newest recorded result, from the runs under `<repo_root>/.agentv/results` ({} if none)."""
    from turnlens.formatting.results.discover import expand_results_paths

    folder = results_folder(repo_root)
    if folder is None:
        return {}
    sources, _ = expand_results_paths([folder])
    found: dict[str, LatestResult] = {}
    for source in sources[:MAX_RUNS]:  # newest first
        results = ResultsFile(source.path)
        try:
            for _ in results.scan():
                pass
            for i in range(results.count):
                test_id = results.eval_ids[i]
                if not test_id or test_id in found:
                    continue
                verdict = row_verdict(results, i, threshold)
                found[test_id] = LatestResult(
                    test_id,
                    None if results.flags[i] & FLAG_NO_SCORE else results.scores[i],
                    "error" if verdict == VERDICT_ERROR else "pass" if verdict == VERDICT_PASS else "fail",
                    results.target_of(i),
                    source.name,
                    source.folder or source.path,
                    i,
                )
        finally:
            results.close()
    return found
