"""Every grader of the grader corpus (tests/corpus_graders/) against the AgentV 4.42.4 reference's recorded answers
(tests/fixtures/graders/, made by tests/fixtures/record_graders.py): names, types and order, each LLM grader's
user and system prompt byte for byte in lm and agent mode, composites with their members, the tests AgentV skips
for a grader it cannot parse (with its message), and its warnings. No Node.js needed."""

from __future__ import annotations

import hashlib
import importlib.util
import json
from pathlib import Path

import pytest

from turnlens.formatting.dialects.load import load_eval_file
from turnlens.formatting.export.evals import iter_rows

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "corpus_graders"
FIXTURES = ROOT / "tests" / "fixtures" / "graders"
MANIFEST = json.loads((FIXTURES / "manifest.json").read_text(encoding="utf-8"))
NAMES = sorted(MANIFEST["fixtures"])
# graders whose input the reference stubs (it runs no script): turnlens gives null
STUBBED = ("code-grader",)


def _oracle(name: str, mode: str) -> tuple[dict[str, dict], list[str]]:
    text = (FIXTURES / MANIFEST["fixtures"][name][mode]["output"]).read_text(encoding="utf-8")
    text = text.replace("<REPO>", str(ROOT))
    tests: dict[str, dict] = {}
    warnings: list[str] = []
    for line in text.split("\n"):  # (never splitlines: U+2028 stands raw inside JSON strings)
        if not line.strip():
            continue
        obj = json.loads(line)
        if "id" in obj:
            tests[obj["id"]] = obj
        warnings.extend(obj.get("warnings", []))
    return tests, warnings


def _ours(name: str) -> tuple[dict[str, dict], list[str]]:
    ev = load_eval_file(CORPUS / name, repo_root=str(CORPUS), cwd=str(CORPUS), environ={})
    rows = {row["id"]: row for row in iter_rows(ev) if "skipped" not in row}
    skipped = {row["id"]: row for row in iter_rows(ev) if "skipped" in row}
    messages = [d.message for d in ev.diagnostics] + [d.message for c in ev.cases for d in c.diagnostics]
    return {**rows, **skipped}, messages


def _comparable(graders: list[dict]) -> list[dict]:
    out = []
    for g in graders:
        row = {"name": g["name"], "type": g["type"]}
        stubbed = g["type"] in STUBBED or (g["input"] is not None and "oracle" in g["input"])
        if not stubbed:
            inp = g["input"]
            if isinstance(inp, dict) and "aggregator" in inp:
                inp = {k: v for k, v in inp.items() if k != "target"}  # (the reference's mock grader's name)
            row["input"] = inp
        if "scores" in g:
            row["scores"] = _comparable(g["scores"])
        out.append(row)
    return out


def test_the_recordings_are_of_the_corpus_as_it_is():
    for name, entry in MANIFEST["fixtures"].items():
        digest = hashlib.sha256((CORPUS / name).read_bytes()).hexdigest()
        assert digest == entry["eval_sha256"], f"{name} changed since it was recorded"
    assert sorted(p.name for p in CORPUS.glob("*.eval.yaml")) == NAMES


def test_the_corpus_is_what_the_generator_writes(tmp_path):
    spec = importlib.util.spec_from_file_location("record_graders", ROOT / "tests" / "fixtures" / "record_graders.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.generate(tmp_path)
    for path in sorted(tmp_path.rglob("*")):
        if path.is_file():
            assert path.read_bytes() == (CORPUS / path.relative_to(tmp_path)).read_bytes(), path


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("mode", ["lm", "agent"])
def test_graders_match_the_reference(name, mode):
    expected, _warnings = _oracle(name, mode)
    ours, _ = _ours(name)
    for test_id, obj in expected.items():
        assert test_id in ours, f"{name}: {test_id} skipped by turnlens: {ours}"
        row = ours[test_id]
        assert "skipped" not in row, f"{name}: {test_id}: {row['skipped']}"
        assert _comparable(row[mode]["graders"]) == _comparable(obj["graders"]), f"{name}: {test_id}"


@pytest.mark.parametrize("name", NAMES)
def test_skips_and_warnings_match_the_reference(name):
    expected, warnings = _oracle(name, "lm")
    ours, messages = _ours(name)
    skipped_by_agentv = [w for w in warnings if w.startswith("Error: Skipping test ")]
    for w in skipped_by_agentv:
        assert w[len("Error: ") :] in messages, w
    ours_skipped = {k for k, row in ours.items() if "skipped" in row}
    assert ours_skipped == {k for k in ours if k not in expected}, name
    grader_warnings = [w[len("Warning: ") :] for w in warnings if w.startswith("Warning: ")]
    for w in grader_warnings:
        assert w in messages, w


@pytest.mark.parametrize("name", NAMES)
def test_refusals_match_the_reference(name):
    """A file AgentV refuses (a test's own `rubrics` with a score-range shorthand that does not start at 0) is
    refused with its message; every other file loads."""
    text = (FIXTURES / MANIFEST["fixtures"][name]["lm"]["output"]).read_text(encoding="utf-8")
    refusal = next((json.loads(line)["load_error"] for line in text.split("\n") if '"load_error"' in line), None)
    ev = load_eval_file(CORPUS / name, repo_root=str(CORPUS), cwd=str(CORPUS), environ={})
    assert (ev.error.message if ev.error else None) == refusal


def test_a_bad_shorthand_in_a_tests_own_rubrics_refuses_the_file_where_assertions_skip_the_test():
    ev = load_eval_file(CORPUS / "hand-rubric-refusal.eval.yaml", repo_root=str(CORPUS), cwd=str(CORPUS), environ={})
    assert ev.error is not None and ev.error.line == 4 and ev.cases == []
    assert ev.error.message == "score_ranges shorthand map must start at 0 (got 1)"
    ignored = load_eval_file(
        CORPUS / "hand-rubric-ranges.eval.yaml", repo_root=str(CORPUS), cwd=str(CORPUS), environ={}
    )
    assert ignored.error is None and all(c.skipped is None for c in ignored.cases)
