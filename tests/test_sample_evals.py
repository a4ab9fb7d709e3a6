"""The sample suites stay what sample_evals/README.md says they are, and their results files stay readable and true.

Needs no Node.js: the results files were made from the oracle's output by tests/fixtures/make_sample_results.py
(run it with --check to verify them against the oracle).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from turnlens.formatting.evals.loader import load_eval_file
from turnlens.formatting.prompts.engine import format_case
from turnlens.formatting.results.reader import read_all

REPO = Path(__file__).resolve().parents[1]
SAMPLES = REPO / "sample_evals"
RESULTS = SAMPLES / ".agentv" / "results"
EVAL_FILES = sorted(p for p in SAMPLES.rglob("*.yaml") if ".agentv" not in p.parts and "broken" not in p.parts)
# The results that were recorded from an older version of their eval file, on purpose.
DRIFTED = {("code-review_2024-06-03T09-15-00-000Z.jsonl", "cr-two-message-markers")}
REMOVED_CASES = {"cr-legacy-style-nits"}


def _rel(path: Path) -> str:
    return path.relative_to(REPO).as_posix()


def _repo_relative(path: str) -> str:
    # AgentV records guideline paths relative to the repo root (as the oracle prints them).
    return Path(path).relative_to(REPO).as_posix() if Path(path).is_absolute() else path


def _load(path: Path):
    return load_eval_file(_rel(path), repo_root=str(REPO), cwd=str(REPO))


def _all_cases() -> dict[str, tuple[Path, object]]:
    cases = {}
    for path in EVAL_FILES:
        for case in _load(path).cases:
            cases[case.id if case.id is not None else str(case.raw.get("id"))] = (path, case)
    return cases


class TestSampleEvalFiles:
    @pytest.mark.parametrize("path", EVAL_FILES, ids=_rel)
    def test_loads_without_error(self, path: Path) -> None:
        eval_file = _load(path)
        assert eval_file.error is None
        assert eval_file.cases

    def test_broken_file_is_refused_with_its_line(self) -> None:
        eval_file = _load(SAMPLES / "broken" / "duplicate-key.yaml")
        assert eval_file.error is not None
        assert eval_file.error.line == 18
        assert "duplicate-key.yaml" in eval_file.error.file

    def test_case_ids_are_unique_across_suites(self) -> None:
        seen: list[str] = []
        for path in EVAL_FILES:
            seen += [str(c.id if c.id is not None else c.raw.get("id")) for c in _load(path).cases]
        assert len(seen) == len(set(seen))

    def test_readme_table_lists_every_case_and_nothing_else(self) -> None:
        readme = (SAMPLES / "README.md").read_text(encoding="utf-8")
        section = readme.split("## Case -> scenario", 1)[1].split("## Results files", 1)[0]
        listed = {m.group(1) for m in re.finditer(r"^\| `([^`]+)`", section, re.M)}
        listed.discard("broken/duplicate-key.yaml")
        assert listed == set(_all_cases())

    def test_crlf_guidelines_keep_their_line_ends(self) -> None:
        assert b"\r\n" in (SAMPLES / "prompts" / "code-review.instructions.md").read_bytes()
        assert b"\r\n" in (SAMPLES / "fixtures" / "code" / "retry.ts").read_bytes()

    def test_nothing_host_or_time_dependent_in_case_text(self) -> None:
        for path in EVAL_FILES:
            text = path.read_text(encoding="utf-8")
            assert "/work/" not in text and "/home/" not in text and "/tmp/" not in text, path


class TestSampleResults:
    @pytest.mark.parametrize("path", sorted(RESULTS.iterdir()), ids=lambda p: p.name)
    def test_reads_without_diagnostics(self, path: Path) -> None:
        results, records = read_all(str(path))
        assert records
        assert not getattr(results, "diagnostics", [])

    def test_broken_results_file_reports_its_bad_lines(self) -> None:
        results, records = read_all(str(SAMPLES / "broken" / "truncated-results.jsonl"))
        assert len(records) == 2
        lines = sorted(d.line for d in results.diagnostics)
        assert lines == [2, 3]

    @pytest.mark.parametrize("path", sorted(RESULTS.glob("*.jsonl")), ids=lambda p: p.name)
    def test_evaluator_prompt_ends_with_the_candidate_answer(self, path: Path) -> None:
        for line in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            if record.get("error"):
                assert "evaluator_provider_request" not in record
                continue
            prompt = record["evaluator_provider_request"]["userPrompt"]
            assert prompt.endswith("[[ ## candidate_answer ## ]]\n" + record["candidate_answer"])

    @pytest.mark.parametrize("path", sorted(RESULTS.glob("*.jsonl")), ids=lambda p: p.name)
    def test_recorded_requests_equal_the_engine_except_the_drift(self, path: Path) -> None:
        cases = _all_cases()
        for line in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            eval_id = record["eval_id"]
            if eval_id in REMOVED_CASES:
                assert eval_id not in cases
                continue
            eval_path, case = cases[eval_id]
            formatted = format_case(case, _load(eval_path), "agentv")
            if "agent_provider_request" in record:
                recorded, rendered = record["agent_provider_request"], formatted.agent
                same = recorded["question"] == rendered.question
            else:
                recorded, rendered = record["lm_provider_request"], formatted.lm
                if "chat_prompt" in recorded:
                    same = recorded["chat_prompt"] == [m.to_json() for m in rendered.chat_prompt or []]
                else:
                    same = (recorded["question"], recorded["guidelines"]) == (rendered.question, rendered.guidelines)
            assert recorded["guideline_paths"] == [_repo_relative(g) for g in case.guideline_paths]
            assert same == ((path.name, eval_id) not in DRIFTED), eval_id
