"""Drift: recorded requests against what the eval file produces today (recorded from the oracle, see fixtures)."""

from __future__ import annotations

import os
import shutil

from turnlens.formatting.model import ChatMessage
from turnlens.formatting.results.drift import (
    DriftChecker,
    chat_prompt_text,
    find_eval_files,
    project_root_of,
    unified_diff,
)
from turnlens.formatting.results.reader import read_all

PROJECT = os.path.join(os.path.dirname(__file__), "fixtures", "results", "project")
RUN = os.path.join(PROJECT, ".agentv", "results", "mini-run.jsonl")


def reports(checker: DriftChecker, path: str = RUN) -> dict:
    _, records = read_all(path)
    return {record.eval_id: checker.check(record) for record in records}


def test_project_root_from_results_location():
    assert project_root_of(RUN) == os.path.abspath(PROJECT)
    assert project_root_of("/tmp/x/run.jsonl") == "/tmp/x"


def test_finds_eval_files_under_the_root():
    assert [os.path.relpath(p, PROJECT) for p in find_eval_files(PROJECT)] == [os.path.join("evals", "mini.yaml")]


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
    from turnlens.formatting.results.reader import record_from_mapping

    report = DriftChecker(RUN).check(record_from_mapping({"eval_id": "greet-flat", "score": 1}, "f", 1))
    assert report.status == "nothing recorded"


def test_diff_helpers():
    assert chat_prompt_text(None) == "(no chat_prompt)"
    assert chat_prompt_text([ChatMessage("user", "hi")]) == "── user ──\nhi"
    assert unified_diff("a", "b", "q").endswith("+b\n\\ No newline at end of text\n")
