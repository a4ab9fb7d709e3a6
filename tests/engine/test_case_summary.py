"""A case list's row asks formatting only for the case's rule and whether it uses role markers (case_summary): the
analysis it makes leaves out the texts the prompts are rendered from. Its answer must be format_case's, in both
profiles, for every case of the bundled samples and the corpora."""

from __future__ import annotations

from pathlib import Path

import pytest

from turnlens.formatting.dialects.format import case_summary, format_case
from turnlens.formatting.dialects.load import load_eval_file

REPO = Path(__file__).resolve().parents[2]
# (the corpora's shapes: 0.15 files with evaluators and guideline files, 4.x edges, probes and suites)
FOLDERS = [
    "sample_evals",
    "tests/corpus/basic",
    "tests/corpus/evaluators",
    "tests/corpus4/edges",
    "tests/corpus4/probes",
    "tests/corpus4/suites",
]


def eval_files() -> list[Path]:
    return sorted(
        path for folder in FOLDERS for path in (REPO / folder).rglob("*") if path.suffix in (".yaml", ".jsonl")
    )


@pytest.mark.parametrize("folder", FOLDERS)
def test_case_summary_is_format_cases_rule_and_markers(folder: str) -> None:
    compared = 0
    for path in eval_files():
        if not path.is_relative_to(REPO / folder):
            continue
        try:
            eval_file = load_eval_file(path, repo_root=str(REPO / folder), cwd=str(path.parent))
        except Exception:  # not an eval file the engine loads (configs, results): nothing to compare
            continue
        for case in eval_file.cases:
            if case.skipped is not None:
                continue
            for profile in ("agentv", "design"):
                try:
                    formatted = format_case(case, eval_file, profile)
                except ValueError:
                    continue
                explanation = formatted.explanation
                assert case_summary(case, eval_file, profile) == (explanation.rule, explanation.uses_markers), (
                    f"{path}: case {case.index} ({profile})"
                )
                compared += 1
    assert compared


def test_case_summary_of_a_case_with_an_attached_file(tmp_path: Path) -> None:
    (tmp_path / "evals").mkdir()
    (tmp_path / "evals" / "log.txt").write_text("a line\n" * 1000)
    (tmp_path / "evals" / "blank.txt").write_text("  \n")
    suite = tmp_path / "evals" / "s.eval.yaml"
    suite.write_text(
        "tests:\n"
        "  - id: one\n    criteria: c\n    input:\n      - role: user\n        content:\n"
        "          - {type: file, value: log.txt}\n          - {type: text, value: Summarise it.}\n"
        "  - id: blank\n    criteria: c\n    input:\n      - role: user\n        content:\n"
        "          - {type: file, value: blank.txt}\n"
        "  - id: two\n    criteria: c\n    input:\n      - role: system\n        content:\n"
        "          - {type: file, value: log.txt}\n      - role: user\n        content: hi\n"
        "      - role: assistant\n        content:\n          - {type: file, value: blank.txt}\n",
    )
    eval_file = load_eval_file(suite, repo_root=str(tmp_path), cwd=str(tmp_path))
    assert len(eval_file.cases) == 3
    for case in eval_file.cases:
        for profile in ("agentv", "design"):
            explanation = format_case(case, eval_file, profile).explanation
            assert case_summary(case, eval_file, profile) == (explanation.rule, explanation.uses_markers)
