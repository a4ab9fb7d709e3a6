"""The latest recorded result of each test, beside its eval file (formatting/results/latest.py), on run folders
written by the real `agentv eval --dry-run` 4.42.4 (tests/fixtures/make_real_runs.py)."""

from __future__ import annotations

import shutil
from pathlib import Path

from turnlens.formatting.results.latest import LatestIndex

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "results" / "real"
PROJECT = REAL / "project"
SCORING = PROJECT / "evals" / "scoring" / "scoring.eval.yaml"
LENIENT = PROJECT / "evals" / "lenient" / "lenient.eval.yaml"


def indexed(*paths: Path, root: Path = PROJECT) -> LatestIndex:
    index = LatestIndex(str(root))
    index.index([str(p) for p in paths])
    return index


def test_the_newest_run_that_ran_the_test_of_that_suite():
    index = indexed(SCORING, LENIENT)
    # `half` is a test of both suites: each file gets its own suite's latest result
    scoring = index.find(str(SCORING), "half", "scoring")
    lenient = index.find(str(LENIENT), "half", "lenient")
    assert (scoring.run, scoring.suite, scoring.verdict) == ("default/2026-06-23T09-00-00-000Z", "scoring", "pass")
    assert (lenient.run, lenient.suite, lenient.verdict) == ("default/2026-06-24T09-00-00-000Z", "lenient", "fail")
    assert (round(scoring.score, 2), lenient.score) == (0.67, 0.5)  # as recorded (scoring's at --threshold 0.5)
    # the suite is the file's name when the suite names none
    assert index.find(str(SCORING), "half", None).suite == "scoring"
    # a test only the first run ran, gone from the eval file since
    assert index.find(str(SCORING), "none-pass", "scoring").run == "default/2026-06-20T09-00-00-000Z"
    assert index.find(str(SCORING), "no-such-test", "scoring") is None
    assert index.project_of(str(SCORING)) == str(PROJECT)


def test_results_are_looked_for_from_the_eval_files_folder_up_to_the_repository_root(tmp_path):
    project = tmp_path / "repo" / "project"
    shutil.copytree(PROJECT / "evals", project / "evals")
    eval_file = project / "evals" / "scoring" / "scoring.eval.yaml"
    assert indexed(eval_file, root=tmp_path / "repo").empty  # no .agentv/results anywhere
    shutil.copytree(PROJECT / ".agentv", project / ".agentv")
    index = indexed(eval_file, root=tmp_path / "repo")
    assert index.find(str(eval_file), "all-pass", "scoring").verdict == "pass"
    # never above the repository root
    assert indexed(eval_file, root=project / "evals").empty
