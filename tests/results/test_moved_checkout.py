"""A run recorded in another checkout (CI against a laptop) is not drift: absolute paths under the other root are
read as under this one, and the drift report says so."""

from __future__ import annotations

import json
from pathlib import Path

from turnlens.formatting.results.drift import DriftChecker, moved_root
from turnlens.formatting.results.index import read_all

SAMPLES = Path(__file__).resolve().parents[2] / "sample_evals"


def test_only_the_root_differs():
    current = 'Read <file: path="/home/me/repo/fixtures/a.md"> and /home/me/repo/fixtures/b.md'
    recorded = current.replace("/home/me/repo", "/ci/build/checkout")
    assert moved_root(recorded, current, "/home/me/repo") == "/ci/build/checkout"
    assert moved_root(recorded.replace("b.md", "c.md"), current, "/home/me/repo") is None  # a real change too
    assert moved_root(current, current, "/home/me/repo") is None
    assert moved_root("no path here", "no path there", "/home/me/repo") is None


def test_an_agent_request_recorded_elsewhere_is_equal_with_a_note(tmp_path):
    checker = DriftChecker(str(SAMPLES / ".agentv" / "results" / "x.jsonl"))
    eval_file, case = checker.find_case("refund-unused-tent", "support-refunds")
    from turnlens.formatting.dialects.format import format_case

    question = format_case(case, eval_file, "agentv").rendered("agent").question
    root = eval_file.repo_root
    moved = question.replace(root, "/ci/runner/work/repo")
    assert moved != question
    row = {
        "eval_id": "refund-unused-tent",
        "dataset": "support-refunds",
        "score": 1.0,
        "agent_provider_request": {"question": moved},
    }
    path = tmp_path / "run.jsonl"
    path.write_text(json.dumps(row) + "\n")
    _, records = read_all(str(path))
    report = checker.check(records[0])
    assert report.status == "equal", report.message
    assert any("another checkout (/ci/runner/work/repo)" in note for note in report.notes)
    changed = dict(row, agent_provider_request={"question": moved.replace("Dana", "Dan")})
    path.write_text(json.dumps(changed) + "\n")
    assert checker.check(read_all(str(path))[1][0]).status == "drifted"
