"""Dialects behind one seam (issue 19 item 2): the engine asks a file's dialect (formatting/dialects/) instead of
comparing dialect names, so a new dialect is one module and one line in registry.DIALECTS. A toy third dialect,
registered here only, is recognised, loaded, formatted and exported like the real ones."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

import pytest

from turnlens.formatting.dialects import registry
from turnlens.formatting.dialects.dialect import Dialect, FileType
from turnlens.formatting.dialects.format import format_case
from turnlens.formatting.dialects.load import load_eval_file
from turnlens.formatting.evals.files import read_head
from turnlens.formatting.evals.yaml12 import YamlDoc
from turnlens.formatting.export.evals import iter_rows
from turnlens.formatting.model import DialectLabels, EvalCase, EvalFile, Message, Segment
from turnlens.formatting.prompts.agentv4 import Formatting
from turnlens.tui.arguments import DialectChoices

ROOT = Path(__file__).resolve().parents[2]
SEAM = ROOT / "formatting" / "dialects"


def test_nothing_outside_the_dialects_compares_a_dialect_name():
    """`== "agentv-4"`, `!= "agentv-0.15"`, `in ("agentv-4", …)`: outside formatting/dialects/ the engine and the UI
    ask the dialect (its labels, its capabilities) instead."""
    names = "|".join(re.escape(name) for name in registry.names())
    quoted = rf"""["'](?:{names})["']"""
    comparison = re.compile(rf"(?:==|!=|\bin\b|\bis\b)\s*[(\[{{]?\s*{quoted}|{quoted}\s*(?:==|!=|\bin\b|\bis\b)")
    found = []
    for folder in ("formatting", "tui"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            if SEAM in path.parents:
                continue
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if comparison.search(line.split("#", 1)[0]):
                    found.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert found == []


def test_the_check_above_finds_a_comparison():
    names = "|".join(re.escape(name) for name in registry.names())
    quoted = rf"""["'](?:{names})["']"""
    comparison = re.compile(rf"(?:==|!=|\bin\b|\bis\b)\s*[(\[{{]?\s*{quoted}|{quoted}\s*(?:==|!=|\bin\b|\bis\b)")
    for line in ('if ev.dialect == "agentv-4":', "v4 = d != 'agentv-0.15'", 'if x in ("agentv-4", "y"):'):
        assert comparison.search(line), line
    assert not comparison.search('load_eval_file(path, dialect="agentv-4")')


# --- a toy third dialect -------------------------------------------------------------------------------------------

TOY_LABELS = DialectLabels("toy-1", "toy", "Toy format", "systemMessage", False, "default grader", False)


def _toy_case(result: EvalFile, index: int, line: int, question: str) -> EvalCase:
    segment = Segment(0, "text", question, line)
    return EvalCase(index, f"toy-{index + 1}", line, result.path, messages=[Message(0, "user", line, True, [segment])])


def _load_toy_lines(
    result: EvalFile, text: str, cwd: str, environ: Mapping[str, str] | None, first_case_index: int
) -> EvalFile:
    """A `.toy` file: a question a line."""
    lines = [(n, line) for n, line in enumerate(text.splitlines(), 1) if line.strip()]
    result.cases = [_toy_case(result, first_case_index + i, n, line) for i, (n, line) in enumerate(lines)]
    return result


def _load_toy_yaml(
    result: EvalFile, doc: YamlDoc, text: str, cwd: str, environ: Mapping[str, str] | None, first_case_index: int
) -> EvalFile:
    result.cases = [_toy_case(result, i, 1, str(q)) for i, q in enumerate(doc.data["toy_cases"], first_case_index)]
    return result


def _toy_claims(data: object) -> str | None:
    return "it has `toy_cases`" if isinstance(data, dict) and "toy_cases" in data else None


TOY = Dialect(
    labels=TOY_LABELS,
    file_types=(FileType((".toy",), "a `.toy` file (a question a line)", _load_toy_lines, one_test_per_line=True),),
    claims=_toy_claims,
    load_yaml=_load_toy_yaml,
    formatting=Formatting(TOY_LABELS),  # AgentV 4's rules, under the toy's labels
    slice_key=lambda path, text: None,
    header_warnings_in_first_slice=False,
)


@pytest.fixture
def toy_registered(monkeypatch):
    """The toy registered as a new dialect is: one line in registry.DIALECTS (before agentv-4, which reads what no
    other dialect claims)."""
    monkeypatch.setattr(registry, "DIALECTS", (TOY, *registry.DIALECTS))


def test_a_toy_dialect_flows_from_its_extension_through_load_format_and_export(tmp_path, toy_registered):
    (tmp_path / "questions.toy").write_text("What is 2 + 2?\n\nName a prime.\n")
    ev = load_eval_file("questions.toy", repo_root=str(tmp_path), cwd=str(tmp_path))
    assert ev.error is None
    assert (ev.dialect, ev.dialect_reason, ev.labels.title) == (
        "toy-1",
        "a `.toy` file (a question a line)",
        "Toy format",
    )
    assert [(c.id, c.line) for c in ev.cases] == [("toy-1", 1), ("toy-2", 3)]

    fc = format_case(ev.cases[0], ev)
    assert fc.dialect == "toy-1" and fc.labels is TOY_LABELS and fc.lm.labels is TOY_LABELS
    assert fc.lm.to_json() == {"question": "What is 2 + 2?", "chatPrompt": None, "systemMessage": None}
    assert fc.explanation.rule == "single visible turn"

    rows = list(iter_rows(ev))
    assert [row["dialect"] for row in rows] == ["toy-1", "toy-1"]
    assert rows[1]["lm"]["question"] == "Name a prime." and rows[1]["guideline_paths"] == []
    assert registry.one_test_per_line("questions.toy")


def test_a_toy_dialect_claims_yaml_by_its_shape_and_can_be_forced(tmp_path, toy_registered):
    (tmp_path / "suite.yaml").write_text("toy_cases:\n  - Hello there\n")
    ev = load_eval_file("suite.yaml", repo_root=str(tmp_path), cwd=str(tmp_path))
    assert (ev.dialect, ev.dialect_reason) == ("toy-1", "it has `toy_cases`")
    assert format_case(ev.cases[0], ev).lm.question == "Hello there"

    forced = load_eval_file("suite.yaml", repo_root=str(tmp_path), cwd=str(tmp_path), dialect="toy-1")
    assert (forced.dialect, forced.dialect_reason) == ("toy-1", "--dialect toy-1 was given")
    assert "toy-1" in DialectChoices() and list(DialectChoices()) == ["auto", "toy-1", "agentv-0.15", "agentv-4"]

    (tmp_path / "other.yaml").write_text("tests:\n  - id: a\n    input: hi\n    criteria: c\n")
    assert load_eval_file("other.yaml", repo_root=str(tmp_path), cwd=str(tmp_path)).dialect == "agentv-4"


def test_a_toy_dialect_whose_files_the_patterns_miss_is_discovered_by_its_sniff(tmp_path, monkeypatch):
    """Discovery (dialects/discover.py) finds the current AgentV's files by its patterns, then each sniffed group in
    order: a dialect whose files the patterns miss adds one sniff, and nothing outside this folder changes."""
    from turnlens.formatting.dialects import discover

    (tmp_path / "evals").mkdir()
    (tmp_path / "evals" / "a.eval.yaml").write_text("tests: []\n")
    (tmp_path / "legacy.yaml").write_text("$schema: agentv-eval-v2\nevalcases: []\n")
    (tmp_path / "questions.toy").write_text("What is 2 + 2?\n")
    (tmp_path / "notes.txt").write_text("What is 2 + 2?\n")
    root = str(tmp_path)

    def found() -> list[str]:
        return [Path(p).name for p in discover.discover_eval_files(root, root)]

    assert found() == ["a.eval.yaml", "legacy.yaml"]
    heads: list[bytes] = []

    def toy(path: str, listed_regular: bool) -> bool:
        if not path.endswith(".toy"):
            return False
        assert listed_regular  # (a regular file, as its folder's listing says)
        heads.append(read_head(path, 4, listed_regular=listed_regular))
        return True

    monkeypatch.setattr(discover, "SNIFFED_GROUPS", (toy, *discover.SNIFFED_GROUPS))
    assert found() == ["a.eval.yaml", "questions.toy", "legacy.yaml"]
    assert heads == [b"What"]


def test_an_unknown_dialect_name_is_refused_with_the_known_ones():
    with pytest.raises(ValueError, match="no dialect named 'agentv-5'.*agentv-0.15, agentv-4"):
        registry.named("agentv-5")
