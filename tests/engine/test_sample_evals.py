"""The sample suites stay what sample_evals/README.md says they are, and their results files stay readable and true.

Needs no Node.js: the results files were made from the oracle's output by tests/fixtures/make_sample_results.py
(run it with --check to verify them against the oracle).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from turnlens.formatting.dialects.format import format_case
from turnlens.formatting.dialects.load import load_eval_file
from turnlens.formatting.results.index import read_all

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO / "sample_evals"
RESULTS = SAMPLES / ".agentv" / "results"
# The AgentV 0.15 samples. evals/ is the AgentV 4 tree (checked against the 4.42.4 recordings in
# tests/fixtures/oracle4/, see test_agentv4_samples below); zz-broken/ is refused on purpose.
EVAL_FILES = sorted(
    p
    for p in SAMPLES.rglob("*.yaml")
    if not {".agentv", "zz-broken", "evals"} & set(p.relative_to(SAMPLES).parts[:1] + p.relative_to(SAMPLES).parts)
)
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
            cases[case.id if case.id is not None else str(case.raw_id)] = (path, case)
    return cases


class TestSampleEvalFiles:
    @pytest.mark.parametrize("path", EVAL_FILES, ids=_rel)
    def test_loads_without_error(self, path: Path) -> None:
        eval_file = _load(path)
        assert eval_file.error is None
        assert eval_file.cases

    def test_broken_file_is_refused_with_its_line(self) -> None:
        eval_file = _load(SAMPLES / "zz-broken" / "duplicate-key.yaml")
        assert eval_file.error is not None
        assert eval_file.error.line == 18
        assert "duplicate-key.yaml" in eval_file.error.file

    def test_case_ids_are_unique_across_suites(self) -> None:
        seen: list[str] = []
        for path in EVAL_FILES:
            seen += [str(c.id if c.id is not None else c.raw_id) for c in _load(path).cases]
        assert len(seen) == len(set(seen))

    def test_readme_table_lists_every_case_and_nothing_else(self) -> None:
        readme = (SAMPLES / "README.md").read_text(encoding="utf-8")
        section = readme.split("## Case -> scenario", 1)[1].split("## Results files", 1)[0]
        listed = {m.group(1) for m in re.finditer(r"^\| `([^`]+)`", section, re.M)}
        listed.discard("zz-broken/duplicate-key.yaml")
        assert listed == set(_all_cases())

    def test_crlf_guidelines_keep_their_line_ends(self) -> None:
        assert b"\r\n" in (SAMPLES / "prompts" / "code-review.instructions.md").read_bytes()
        assert b"\r\n" in (SAMPLES / "fixtures" / "code" / "retry.ts").read_bytes()

    def test_nothing_host_or_time_dependent_in_case_text(self) -> None:
        for path in EVAL_FILES:
            text = path.read_text(encoding="utf-8")
            assert "/work/" not in text and "/home/" not in text and "/tmp/" not in text, path


# 0.15-era results files (AgentV 4 baselines and runs/ are made by tests/fixtures/make_sample_runs.py)
OLD_RESULTS = sorted(p for p in RESULTS.glob("*.jsonl") if not p.name.endswith(".baseline.jsonl"))


class TestSampleResults:
    @pytest.mark.parametrize(
        "path",
        sorted(p for p in RESULTS.iterdir() if p.is_file()) + sorted(RESULTS.glob("runs/*/*/index.jsonl")),
        ids=lambda p: str(p.relative_to(RESULTS)),
    )
    def test_reads_without_diagnostics(self, path: Path) -> None:
        results, records = read_all(str(path))
        assert records
        assert not getattr(results, "diagnostics", [])

    def test_broken_results_file_reports_its_bad_lines(self) -> None:
        results, records = read_all(str(SAMPLES / "zz-broken" / "truncated-results.jsonl"))
        assert len(records) == 2
        lines = sorted(d.line for d in results.diagnostics)
        assert lines == [2, 3]

    @pytest.mark.parametrize("path", OLD_RESULTS, ids=lambda p: p.name)
    def test_evaluator_prompt_ends_with_the_candidate_answer(self, path: Path) -> None:
        for line in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            if record.get("error"):
                assert "evaluator_provider_request" not in record
                continue
            prompt = record["evaluator_provider_request"]["userPrompt"]
            assert prompt.endswith("[[ ## candidate_answer ## ]]\n" + record["candidate_answer"])

    @pytest.mark.parametrize("path", OLD_RESULTS, ids=lambda p: p.name)
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


class TestAgentV4Samples:
    """sample_evals/evals/ (AgentV 4): every suite, dataset and skills file is recorded with the 4.42.4 oracle
    (tests/fixtures/oracle4/) from its current bytes, and the README lists every test and nothing else."""

    V4 = SAMPLES / "evals"

    def _manifest(self) -> dict:
        return json.loads((REPO / "tests" / "fixtures" / "oracle4" / "manifest.json").read_text(encoding="utf-8"))

    def _v4_files(self) -> list[Path]:
        names = (".eval.yaml", ".eval.yml", ".jsonl", "evals.json")
        return sorted(p for p in self.V4.rglob("*") if p.is_file() and p.name.endswith(names))

    def test_every_file_is_recorded_from_its_current_bytes(self) -> None:
        import hashlib

        fixtures = self._manifest()["fixtures"]
        for path in self._v4_files():
            entry = fixtures.get(_rel(path))
            assert entry is not None, f"{_rel(path)} not recorded: run tests/fixtures/record_oracle4.py --only samples"
            assert entry["eval_sha256"] == hashlib.sha256(path.read_bytes()).hexdigest(), f"{_rel(path)} is stale"
            assert entry["root"] == "sample_evals" and entry.get("dotenv") == [".env"]

    def test_readme_lists_every_test(self) -> None:
        readme = (SAMPLES / "README.md").read_text(encoding="utf-8")
        section = readme.split("## AgentV 4 tree", 1)[1].split("## AgentV 0.15 samples", 1)[0]
        listed = {m for row in re.findall(r"^\| (`[^|]+)\|", section, re.M) for m in re.findall(r"`([^`]+)`", row)}
        ids: set[str] = set()
        fixtures = self._manifest()["fixtures"]
        for key, entry in fixtures.items():
            if not key.startswith("sample_evals/"):
                continue
            text = (REPO / "tests" / "fixtures" / "oracle4" / entry["output"]).read_text(encoding="utf-8")
            for line in text.split("\n"):
                if line.strip():
                    row = json.loads(line)
                    if "lm" in row:
                        ids.add(row["id"])
                    for warning in row.get("warnings", []):
                        skipped = re.match(
                            r"Error: Skipping incomplete test(?: at line \d+)?: (.*?)\. Missing", warning
                        )
                        if skipped:
                            ids.add(skipped.group(1))
        assert ids - listed == set(), "tests missing from the README"
        files = {p for p in listed if p.endswith((".yaml", ".jsonl", ".json", ".env"))}
        assert listed - ids - files == set(), "the README names tests that do not exist"

    def test_env_file_is_not_ignored_and_ships(self) -> None:
        assert (SAMPLES / ".env").is_file()
        patterns = _pyproject_package_data()
        assert "sample_evals/**/.*" in patterns


def _pyproject_package_data() -> list[str]:
    import sys

    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    data = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    return data["tool"]["setuptools"]["package-data"]["turnlens"]
