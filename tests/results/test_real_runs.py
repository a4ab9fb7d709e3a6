"""Run folders written by the real `agentv eval --dry-run` 4.42.4 (tests/fixtures/make_real_runs.py): pass and fail
as AgentV judged them, at the threshold that explains them."""

from __future__ import annotations

from pathlib import Path

from turnlens.formatting.results.index import ResultsFile
from turnlens.formatting.results.queries import (
    VERDICT_ERROR,
    VERDICT_FAIL,
    VERDICT_PASS,
    compute_stats,
    row_verdict,
    select,
)
from turnlens.formatting.results.threshold import RunThreshold, explain, own_threshold, run_threshold

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "results" / "real"
RUNS = REAL / "project" / ".agentv" / "results" / "runs" / "default"
FIRST, SECOND, MATRIX, FLAGGED, LENIENT = (str(RUNS / f"2026-06-2{n}T09-00-00-000Z") for n in range(5))


def scanned(folder: str) -> ResultsFile:
    results = ResultsFile(str(Path(folder) / "index.jsonl"))
    for _ in results.scan():
        pass
    return results


def verdicts(folder: str, threshold: float) -> dict[str, int]:
    results = scanned(folder)
    return {
        f"{results.dataset_of(i)}/{results.eval_ids[i]}": row_verdict(results, i, threshold)
        for i in range(results.count)
    }


def test_the_recorded_status_is_the_verdict_at_any_threshold():
    # AgentV judged at 0.8, but `own-threshold` at its own 0.2: 0.25 passed
    for threshold in (0.8, 0.1, 1.0):
        found = verdicts(FIRST, threshold)
        assert found["lenient/own-threshold"] == VERDICT_PASS and found["scoring/half"] == VERDICT_FAIL
        assert found["scoring/all-pass"] == VERDICT_PASS and VERDICT_ERROR not in found.values()


def test_header_counts_agree_with_agentv():
    stats = compute_stats(scanned(FIRST), 0.8)
    # AgentV's summary: 2 of 8 ok; one verdict (own-threshold) was made at another threshold than 0.8
    assert (stats.passed, stats.failed, stats.errors, stats.other_threshold) == (2, 6, 0, 1)
    assert stats.v4 is not None and stats.v4.statuses[:3] == [2, 6, 0]
    # `agentv eval --threshold 0.5`: the statuses say so, and at 0.8 four verdicts disagree with their scores
    flagged = compute_stats(scanned(FLAGGED), 0.8)
    assert (flagged.passed, flagged.failed, flagged.other_threshold) == (4, 1, 3)
    assert compute_stats(scanned(FLAGGED), 0.5).other_threshold == 0


def test_filters_follow_the_verdicts():
    results = scanned(FIRST)
    failures = {results.eval_ids[i] for i in select(results, filter="failures", threshold=0.1)}
    assert "half" in failures and "own-threshold" not in failures


def test_the_threshold_comes_from_the_flag_the_suite_or_agentvs_default():
    assert run_threshold(FIRST) == RunThreshold(0.8, "AgentV's default")
    assert run_threshold(LENIENT) == RunThreshold(0.5, "suite lenient")
    assert run_threshold(LENIENT, 0.7) == RunThreshold(0.7, "--threshold")
    assert run_threshold(str(REAL / "no-such-run")) == RunThreshold(0.8, "AgentV's default")


def test_a_test_keeps_its_own_threshold_in_its_task_bundle():
    assert own_threshold(str(Path(FIRST) / "lenient" / "own-threshold" / "task" / "EVAL.yaml")) == 0.2
    # the suite's execution.threshold is not in a task bundle
    assert own_threshold(str(Path(LENIENT) / "lenient" / "half" / "task" / "EVAL.yaml")) is None


def test_the_verdict_is_explained():
    suite = RunThreshold(0.5, "suite lenient")
    half = explain("quality_failure", 0.5, False, suite)
    assert half.verdict == "fail" and "AgentV's default" in half.reason and "summary line" in half.reason
    own = explain("ok", 0.25, False, suite, own=0.2)
    assert own.verdict == "pass" and "0.25 ≥ 0.20, the test's own execution.threshold" in own.reason
    assert explain("ok", 0.67, False, RunThreshold(0.8)).reason.endswith("(`agentv eval --threshold`?)")
    assert explain(None, 0.9, False, RunThreshold(0.8)).verdict == "pass"
    assert explain("execution_error", 0.0, True, RunThreshold(0.8)).verdict == "error"


def test_the_suite_threshold_is_found_from_a_first_row_nested_past_orjsons_depth(tmp_path):
    """The first row names the suite whose execution.threshold explains the verdicts; one with an output nested
    5,000 levels deep (JSON.parse reads it) still names it."""
    import shutil

    project = tmp_path / "project"
    shutil.copytree(REAL / "project", project)
    index = project / Path(LENIENT).relative_to(REAL / "project") / "index.jsonl"
    first, rest = index.read_bytes().split(b"\n", 1)
    first = first.rstrip()[:-1] + b',"output":' + b"[" * 5000 + b"]" * 5000 + b"}"
    index.write_bytes(first + b"\n" + rest)
    assert run_threshold(str(index.parent)) == RunThreshold(0.5, "suite lenient")
