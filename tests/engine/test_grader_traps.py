"""turnlens's own warnings about AgentV 4 graders, on the case with file:line (row ⚠, `n`, the warn filter, the
export's `warnings`): what AgentV does without a word."""

from __future__ import annotations

import os

from turnlens.formatting.dialects.load import load_eval_file
from turnlens.formatting.export.evals import iter_rows


def _rows(tmp_path, text: str, files: dict[str, str] | None = None) -> dict[str, dict]:
    for rel, body in (files or {}).items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(body, encoding="utf-8")
    (tmp_path / "t.eval.yaml").write_text(text, encoding="utf-8")
    ev = load_eval_file(tmp_path / "t.eval.yaml", repo_root=str(tmp_path), cwd=str(tmp_path), environ={})
    rows = {row["id"]: row for row in iter_rows(ev)}
    for row in rows.values():  # (paths as given: relative to the test's folder here)
        row["warnings"] = [w.replace(f"{tmp_path}/", "") for w in row["warnings"]]
    return rows


def test_a_bare_prompt_naming_an_existing_file_is_sent_as_text(tmp_path):
    rows = _rows(
        tmp_path,
        "tests:\n  - id: bare\n    input: hi\n    assertions:\n      - name: refusal\n        type: llm-grader\n"
        "        prompt: ./graders/refusal.md\n",
        {"graders/refusal.md": "Is it a refusal?\n"},
    )
    warnings = rows["bare"]["warnings"]
    assert any(
        w.startswith("t.eval.yaml:5: grader 'refusal': prompt: ./graders/refusal.md is sent as text")
        and "write prompt: file://./graders/refusal.md" in w
        for w in warnings
    ), warnings
    # and AgentV's grader really grades against the path
    assert "[[ ## criteria ## ]]\n./graders/refusal.md\n" in rows["bare"]["lm"]["graders"][0]["input"]["userPrompt"]


def test_a_bare_prompt_that_names_no_file_is_no_trap(tmp_path):
    rows = _rows(
        tmp_path,
        "tests:\n  - id: plain\n    input: hi\n    assertions:\n      - {type: llm-grader, prompt: Be polite}\n",
    )
    assert rows["plain"]["warnings"] == []


def test_criteria_no_grader_reads(tmp_path):
    rows = _rows(
        tmp_path,
        "tests:\n"
        "  - id: unread\n    input: hi\n    criteria: Says hello\n    assertions:\n"
        "      - {type: contains, value: hello}\n"
        "  - id: read\n    input: hi\n    criteria: Says hello\n    assertions:\n      - {type: llm-grader}\n"
        "  - id: default\n    input: hi\n    criteria: Says hello\n",
    )
    assert rows["unread"]["warnings"] == [
        "t.eval.yaml:4: criteria is read by no grader: the test has assertions, so AgentV runs them instead of the "
        "default grader, and none of them is an llm-grader that reads the criteria"
    ]
    assert rows["read"]["warnings"] == []
    assert rows["default"]["warnings"] == []


def test_an_agent_skills_expected_output_is_no_unread_criteria(tmp_path):
    """An evals.json's expected_output becomes the test's criteria and its reference answer; its string assertions
    become llm-graders with prompts of their own, which read it as the reference answer: no warning."""
    (tmp_path / "evals.json").write_text(
        '{"evals": [{"id": 1, "prompt": "hi", "expected_output": "yo", "assertions": ["says yo"]}]}', encoding="utf-8"
    )
    ev = load_eval_file(tmp_path / "evals.json", repo_root=str(tmp_path), cwd=str(tmp_path), environ={})
    (row,) = iter_rows(ev)
    assert row["warnings"] == []
    assert "[[ ## reference_answer ## ]]\nyo\n" in row["lm"]["graders"][0]["input"]["userPrompt"]


def test_agentv_grader_warnings_are_on_the_case(tmp_path):
    rows = _rows(
        tmp_path,
        "tests:\n  - id: t\n    input: hi\n    criteria: c\n    assertions:\n      - {type: contains}\n",
    )
    assert rows["t"]["warnings"] == ["t.eval.yaml:6: Skipping contains evaluator 'contains' in 't': missing value"]


def test_an_unset_variable_that_decides_the_marker_rule(tmp_path):
    """Recorded with the 4.42.4 reference: unset, the question is the flat `Hello`; with SYSTEM_PROMPT=Be it is
    `@[System]:\\nBe\\n\\n@[User]:\\nHello` (role markers)."""
    rows = _rows(
        tmp_path,
        "tests:\n"
        '  - id: sys\n    input:\n      - role: system\n        content: "${{ SYSTEM_PROMPT }}"\n'
        "      - role: user\n        content: Hello\n    criteria: greets\n"
        '  - id: fine\n    input: "Hi ${{ NAME }}"\n    criteria: greets\n',
    )
    assert rows["sys"]["lm"]["question"] == "Hello"
    assert (
        "t.eval.yaml:4: ${{ SYSTEM_PROMPT }} is not set, so message 1 (system) is empty and the question is flat; "
        "with a value it would be a second visible turn and the question would use role markers"
    ) in rows["sys"]["warnings"]
    assert not any("is not set, so" in w for w in rows["fine"]["warnings"])


def test_a_missing_attachment_is_a_warning_of_the_test(tmp_path):
    rows = _rows(
        tmp_path,
        "tests:\n  - id: t\n    input: Review it\n    input_files: [files/gone.py]\n    criteria: c\n"
        "  - id: other\n    input: hi\n    criteria: c\n",
    )
    assert any(w.startswith("t.eval.yaml:") and "File not found: files/gone.py" in w for w in rows["t"]["warnings"])
    assert rows["other"]["warnings"] == []


def test_unknown_fields_are_worded_as_agentv_validate_words_them():
    """tests/fixtures/validate/: the real CLI's `agentv validate` output beside the eval file."""
    import re
    from pathlib import Path

    from turnlens.formatting.dialects.load import load_eval_file

    folder = Path(__file__).resolve().parents[1] / "fixtures" / "validate"
    recorded = (folder / "misspelt.validate.txt").read_text(encoding="utf-8")
    flagged = re.findall(r"⚠ \[(.+?)\] (Unknown field '[^']+'\. This field will be ignored\.)", recorded)
    assert len(flagged) == 4
    ev = load_eval_file(folder / "misspelt.eval.yaml", repo_root=str(folder), cwd=str(folder), environ={})
    ours = [d for d in [*ev.diagnostics, *(d for c in ev.cases for d in c.diagnostics)] if "Unknown field" in d.message]
    assert [d.message for d in ours] == [f"{message} (agentv validate: {where})" for where, message in flagged]
    assert [d.line for d in ours] == [2, 7, 10, 13]
    # the misspelt test-level ones stand on their test (its row's ⚠)
    assert [len([d for d in c.diagnostics if "Unknown field" in d.message]) for c in ev.cases] == [2, 1, 0]


def test_unknown_fields_are_flagged_for_tests_from_other_files_too():
    """A test from a file:// case list, a JSONL file, `tests: FILE`, a case folder or a standalone dataset: the
    validator does not check it (tests/fixtures/validate/*.validate.txt), AgentV ignores its unknown fields all the
    same; turnlens flags them in the validator's words, with the file and line the field is written at."""
    import re
    from pathlib import Path

    from turnlens.formatting.dialects.load import load_eval_file

    folder = Path(__file__).resolve().parents[1] / "fixtures" / "validate"
    unchecked = "(not flagged by agentv validate, which checks only a suite's own tests)"

    def flagged(name: str) -> list[tuple[str, int | None, str]]:
        ev = load_eval_file(folder / name, repo_root=str(folder), cwd=str(folder), environ={})
        diags = [*ev.diagnostics, *(d for c in ev.cases for d in c.diagnostics)]
        return [
            (Path(d.file).relative_to(folder).as_posix(), d.line, d.message)
            for d in diags
            if "Unknown field" in d.message
        ]

    def validator(name: str) -> list[tuple[str, str]]:
        text = (folder / name).read_text(encoding="utf-8")
        return re.findall(r"⚠ \[(.+?)\] (Unknown field '[^']+'\. This field will be ignored\.)", text)

    message = "Unknown field '{}'. This field will be ignored. "
    # the suite's own tests as the validator names them (file:// entries count one place each), the others unchecked
    assert validator("external.validate.txt") == [
        ("tests[0].expected_outptu", message.format("expected_outptu").strip()),
        ("tests[3].critera", message.format("critera").strip()),
    ]
    assert flagged("external.eval.yaml") == [
        ("external.eval.yaml", 7, message.format("expected_outptu") + "(agentv validate: tests[0].expected_outptu)"),
        ("cases/list.yaml", 4, message.format("assertion") + unchecked),
        ("cases/rows.jsonl", 1, message.format("criterias") + unchecked),
        ("external.eval.yaml", 12, message.format("critera") + "(agentv validate: tests[3].critera)"),
    ]
    assert validator("listed.validate.txt") == []
    assert flagged("listed.eval.yaml") == [("cases/list.yaml", 4, message.format("assertion") + unchecked)]
    assert validator("folder.validate.txt") == []
    assert flagged("folder.eval.yaml") == [("folder/first/case.yaml", 3, message.format("expected_ouput") + unchecked)]
    assert "Total files: 0" in (folder / "dataset.validate.txt").read_text(encoding="utf-8")
    assert flagged("dataset.jsonl") == [("dataset.jsonl", 1, message.format("asserts") + unchecked)]


def test_a_test_from_a_case_file_is_warned_about_in_that_file(tmp_path):
    """Its skip notice and its own graders' warnings name the case file and the line there (they named the suite
    with the case file's line); a warning about the suite's graders still names the suite."""
    from turnlens.formatting.dialects.load import load_eval_file

    (tmp_path / "cases").mkdir()
    (tmp_path / "s.eval.yaml").write_text(
        "name: s\nassertions:\n  - type: contains\n    value: x\n  - '  '\ntests: cases/list.yaml\n", encoding="utf-8"
    )
    (tmp_path / "cases" / "list.yaml").write_text(
        "- id: incomplete\n"
        "  input: hi\n"
        "- id: warned\n"
        "  input: hi\n"
        "  assertions:\n"
        "    - ''\n"
        "    - type: is-json\n"
        "- id: broken\n"
        "  input: hi\n"
        "  assertions:\n"
        "    - type: contains\n"
        "      value: y\n"
        "      weight: heavy\n",
        encoding="utf-8",
    )
    ev = load_eval_file(tmp_path / "s.eval.yaml", repo_root=str(tmp_path), cwd=str(tmp_path), environ={})
    found = {
        c.id: [(os.path.relpath(d.file, tmp_path), d.line, d.message.split(":")[0]) for d in c.diagnostics]
        for c in ev.cases
    }
    assert found["incomplete"] == [("cases/list.yaml", 1, "Skipping incomplete test")]
    assert ("cases/list.yaml", 6, "Skipping empty string criterion in assert array for 'warned'") in found["warned"]
    assert ("s.eval.yaml", 5, "Skipping empty string criterion in assert array for 'warned'") in found["warned"]
    assert found["broken"][-1] == ("cases/list.yaml", 8, "Skipping test 'broken'")


def test_an_aggregators_results_placeholder_is_said_to_be_one(tmp_path):
    """A composite's llm-grader aggregator: its prompt keeps {{EVALUATOR_RESULTS_JSON}} as written (AgentV fills it
    with the members' results only during a run); the export's grader entry says so beside `input`, which stays
    the prompt as written."""
    from turnlens.formatting.graders.prompts import COMPOSITE_AGGREGATOR_PROMPT, RESULTS_PLACEHOLDER

    (tmp_path / "a.eval.yaml").write_text(
        "tests:\n"
        "  - id: agg\n    input: hi\n    criteria: c\n    assertions:\n"
        "      - name: both\n        type: composite\n        assertions:\n"
        "          - {name: has-x, type: contains, value: x}\n          - {name: judge, type: llm-grader}\n"
        "        aggregator: {type: llm-grader}\n"
        "      - name: plain\n        type: composite\n        assertions:\n"
        "          - {name: has-y, type: contains, value: y}\n"
        "        aggregator: {type: llm-grader, prompt: 'Combine them'}\n",
        encoding="utf-8",
    )
    ev = load_eval_file(tmp_path / "a.eval.yaml", repo_root=str(tmp_path), cwd=str(tmp_path), environ={})
    (row,) = list(iter_rows(ev))
    for mode in ("lm", "agent"):
        both, plain = row[mode]["graders"]
        assert both["input"]["userPrompt"] == COMPOSITE_AGGREGATOR_PROMPT
        assert list(both) == ["name", "type", "input", "placeholders", "scores"]
        assert list(both["placeholders"]) == [RESULTS_PLACEHOLDER]
        assert "during a run AgentV replaces it with the members' results" in both["placeholders"][RESULTS_PLACEHOLDER]
        assert "placeholders" not in plain  # a prompt without it
