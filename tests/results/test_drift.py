"""Drift: recorded requests against what the eval file produces today (recorded from the oracle, see fixtures)."""

from __future__ import annotations

import os
import shutil

from turnlens.formatting.dialects.discover import find_eval_files
from turnlens.formatting.model import ChatMessage
from turnlens.formatting.results.drift import (
    DriftChecker,
    chat_prompt_text,
    project_root_of,
    unified_diff,
)
from turnlens.formatting.results.index import read_all

PROJECT = os.path.join(os.path.dirname(os.path.dirname(__file__)), "fixtures", "results", "project")
RUN = os.path.join(PROJECT, ".agentv", "results", "mini-run.jsonl")


def reports(checker: DriftChecker, path: str = RUN) -> dict:
    _, records = read_all(path)
    return {record.eval_id: checker.check(record) for record in records}


def test_project_root_from_results_location():
    assert project_root_of(RUN) == os.path.abspath(PROJECT)
    assert project_root_of("/tmp/x/run.jsonl") == "/tmp/x"


def test_finds_eval_files_under_the_root():
    assert [os.path.relpath(p, PROJECT) for p in find_eval_files([PROJECT], dot_names=False)] == [
        os.path.join("evals", "mini.yaml")
    ]


def test_equal_drifted_and_not_found():
    found = reports(DriftChecker(RUN))
    assert found["greet-flat"].status == "equal"
    assert [f.field for f in found["greet-flat"].fields] == ["lm question", "lm guidelines", "evaluator prompt"]
    assert found["sum-markers"].status == "equal"
    assert found["deleted-case"].status == "eval not found"
    drifted = found["chat-history"]
    assert drifted.status == "drifted" and drifted.eval_file.endswith("mini.yaml") and drifted.case_line
    assert [f.field for f in drifted.drifted_fields] == ["lm chat_prompt", "evaluator prompt"]
    diff = drifted.drifted_fields[0].diff
    assert "-My order is very late.\n" in diff and "+My order is late.\n" in diff
    assert diff.startswith("--- recorded lm chat_prompt\n+++ current lm chat_prompt\n")


def test_explicit_evals_path(tmp_path):
    copy = tmp_path / "elsewhere.jsonl"
    shutil.copy(RUN, copy)
    assert reports(DriftChecker(str(copy)), str(copy))["greet-flat"].status == "eval not found"
    checker = DriftChecker(str(copy), evals=os.path.join(PROJECT, "evals", "mini.yaml"), repo_root=PROJECT)
    assert reports(checker, str(copy))["greet-flat"].status == "equal"


def test_nothing_recorded():
    from turnlens.formatting.results.record import record_from_mapping

    report = DriftChecker(RUN).check(record_from_mapping({"eval_id": "greet-flat", "score": 1}, "f", 1))
    assert report.status == "nothing recorded"


def test_diff_helpers():
    assert chat_prompt_text(None) == "(no chat_prompt)"
    assert chat_prompt_text([ChatMessage("user", "hi")]) == "── user ──\nhi"
    assert unified_diff("a", "b", "q").endswith("+b\n\\ No newline at end of text\n")


V4_RUNS = os.path.join(
    os.path.dirname(os.path.dirname(__file__)), "fixtures", "results", "v4", ".agentv", "results", "runs", "default"
)


def test_agentv4_runs_equal_drifted_and_not_found():
    from turnlens.formatting.results.drift import DriftChecker
    from turnlens.formatting.results.index import read_all

    first, second, streamed = (os.path.join(V4_RUNS, stamp, "index.jsonl") for stamp in sorted(os.listdir(V4_RUNS)))
    checker = DriftChecker(first)
    _, records = read_all(first)
    reports = {r.eval_id: checker.check(r) for r in records}
    assert reports["hello-flat"].status == "drifted"  # recorded from the test's older wording (input.md)
    assert [f.field for f in reports["hello-flat"].drifted_fields] == ["input.md"]
    assert "+My name is Ada" in reports["hello-flat"].drifted_fields[0].diff
    assert {r.status for k, r in reports.items() if k != "hello-flat"} == {"equal"}
    _, records = read_all(streamed)  # full rows: requests.lm and input inline
    checker = DriftChecker(streamed)
    report = checker.check(records[0])
    assert report.status == "equal" and {f.field for f in report.fields} >= {"input", "lm question"}
    record = records[0]
    record.eval_id = "no-such-test"
    assert checker.check(record).status == "eval not found"
