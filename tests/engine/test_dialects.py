"""One test per behavioural difference between AgentV 0.15.1 and 4.42.4 (agentv-4.42.4-FORMAT.md §b.10), each
checked on the same messages read in both dialects. The exact 4.42.4 bytes are pinned by the recordings in
tests/fixtures/oracle4/ (tests/engine/test_golden_agentv4.py); these tests name each difference so a regression
says which one broke. Plus: dialect detection and bad input in the new formats."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import yaml

from turnlens.formatting.dialects.load import load_eval_file
from turnlens.formatting.export.evals import export_rows

REPO = Path(__file__).resolve().parents[2]


def _write(root: Path, name: str, text: str) -> Path:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def both(tmp_path: Path, messages: list, files: dict[str, str] | None = None, patterns: list[str] | None = None):
    """The same input messages as a 0.15 case and a 4.x test: (0.15 row, 4.x row)."""
    for name, text in (files or {}).items():
        _write(tmp_path, name, text)
    if patterns is not None:
        _write(
            tmp_path,
            ".agentv/config.yaml",
            yaml.safe_dump({"$schema": "agentv-config-v2", "guideline_patterns": patterns}),
        )
    old = {
        "$schema": "agentv-eval-v2",
        "evalcases": [{"id": "t", "outcome": "Good.", "input_messages": messages}],
    }
    new = {"tests": [{"id": "t", "criteria": "Good.", "input": messages}]}
    _write(tmp_path, "old.yaml", yaml.safe_dump(old, sort_keys=False))
    _write(tmp_path, "new.eval.yaml", yaml.safe_dump(new, sort_keys=False))
    rows_old, err_old = export_rows("old.yaml", repo_root=str(tmp_path), cwd=str(tmp_path), environ={})
    rows_new, err_new = export_rows("new.eval.yaml", repo_root=str(tmp_path), cwd=str(tmp_path), environ={})
    assert err_old is None and err_new is None, (err_old, err_new)
    assert rows_old[0]["dialect"] == "agentv-0.15" and rows_new[0]["dialect"] == "agentv-4"
    return rows_old[0], rows_new[0]


def test_b10_1_file_keys_a_015_file_read_as_agentv4_loads_no_test(tmp_path):
    _write(
        tmp_path,
        "old.yaml",
        "$schema: agentv-eval-v2\nevalcases:\n  - id: a\n    outcome: o\n    input_messages:\n"
        "      - {role: user, content: Q}\n",
    )
    ev = load_eval_file("old.yaml", repo_root=str(tmp_path), cwd=str(tmp_path), dialect="agentv-4", environ={})
    assert ev.dialect == "agentv-4" and ev.error is None
    assert [c.skipped is not None for c in ev.cases] == [True]
    assert any("'evalcases' is deprecated" in d.message for d in ev.diagnostics)


def test_b10_2_flat_question_has_no_code_block_appendix(tmp_path):
    text = "Review:\n```py\nx = 1\n```\nThanks."
    old, new = both(tmp_path, [{"role": "user", "content": text}])
    assert old["lm"]["question"] == text + "\n\n```py\nx = 1\n```"
    assert new["lm"]["question"] == text


def test_b10_3_guideline_file_embedded_inline_and_flips_to_markers(tmp_path):
    messages = [
        {"role": "system", "content": [{"type": "file", "value": "style.instructions.md"}]},
        {"role": "user", "content": "Please help."},
    ]
    old, new = both(tmp_path, messages, {"style.instructions.md": "Be kind.\n"}, ["**/*.instructions.md"])
    assert old["lm"]["guidelines"] and old["lm"]["chatPrompt"] is None  # flat: the guideline is not visible
    assert "guidelines" not in new["lm"]
    assert new["lm"]["question"] == (
        '@[System]:\n<file path="style.instructions.md">\nBe kind.\n</file>\n\n@[User]:\nPlease help.'
    )


def test_b10_4_agent_mode_names_the_absolute_path(tmp_path):
    messages = [{"role": "user", "content": [{"type": "text", "value": "See"}, {"type": "file", "value": "a.py"}]}]
    old, new = both(tmp_path, messages, {"a.py": "x = 1\n"})
    assert old["agent"]["question"] == 'See\n\n<file: path="a.py">'
    assert new["agent"]["question"] == f'See\n\n<file: path="{tmp_path / "a.py"}">'


def test_b10_5_new_system_message(tmp_path):
    old, new = both(tmp_path, [{"role": "system", "content": "Be terse."}, {"role": "user", "content": "Q"}])
    assert "systemMessage" not in old["lm"]
    assert new["lm"]["systemMessage"] == "Be terse." and new["agent"]["systemMessage"] == "Be terse."
    _, flat = both(tmp_path, [{"role": "user", "content": "Q"}])
    assert flat["lm"]["systemMessage"] is None


def test_b10_6_whitespace_only_text_kept_in_a_visible_message(tmp_path):
    messages = [
        {"role": "system", "content": "Sys."},
        {"role": "user", "content": [{"type": "text", "value": "Question?"}, {"type": "text", "value": "   "}]},
    ]
    old, new = both(tmp_path, messages)
    assert old["lm"]["question"].endswith("@[User]:\nQuestion?")
    assert new["lm"]["question"].endswith("@[User]:\nQuestion?\n   ")


def test_b10_7_leading_slash_file_is_embedded_in_marker_mode(tmp_path):
    messages = [
        {"role": "system", "content": "Sys."},
        {"role": "user", "content": [{"type": "text", "value": "See:"}, {"type": "file", "value": "/a.py"}]},
    ]
    old, new = both(tmp_path, messages, {"a.py": "x = 1\n"})
    assert old["lm"]["question"].endswith("@[User]:\nSee:")
    assert new["lm"]["question"].endswith('@[User]:\nSee:\n<file path="a.py">\nx = 1\n</file>')


def test_b10_8_string_items_and_object_content_are_accepted(tmp_path):
    messages = [
        {"role": "system", "content": "Sys."},
        {"role": "user", "content": ["plain item", {"type": "text", "value": "text item"}]},
        {"role": "user", "content": {"ticket": 1}},
    ]
    old, new = both(tmp_path, messages)
    assert "plain item" not in old["lm"]["question"] and "ticket" not in old["lm"]["question"]
    assert "@[User]:\nplain item\ntext item" in new["lm"]["question"]
    assert new["lm"]["question"].endswith('@[User]:\n{\n  "ticket": 1\n}')


def test_b10_9_interpolation_and_merge_keys(tmp_path):
    _write(
        tmp_path,
        "s.eval.yaml",
        "x-base: &base\n  criteria: shared\ntests:\n  - <<: *base\n    id: a\n    vars: {name: Ada}\n"
        '    input: "Hi {{ name }} [${{ TL_SET }}] [${{ TL_UNSET }}]"\n',
    )
    rows, err = export_rows("s.eval.yaml", repo_root=str(tmp_path), cwd=str(tmp_path), environ={"TL_SET": "x"})
    assert err is None
    assert rows[0]["lm"]["question"] == "Hi Ada [x] []"
    assert "[[ ## criteria ## ]]\nshared\n" in rows[0]["evaluator_prompt"]
    # 0.15.1 reads neither: the text stays, and `<<` is an ordinary key
    old, _ = both(tmp_path, [{"role": "user", "content": "[${{ TL_SET }}] {{ name }}"}])
    assert old["lm"]["question"] == "[${{ TL_SET }}] {{ name }}"


def test_b10_10_grader_prompt_template_and_last_expected_message(tmp_path):
    _write(
        tmp_path,
        "s.eval.yaml",
        "tests:\n  - id: a\n    criteria: ' Good. '\n    input: Q\n    expected_output:\n"
        "      - {role: assistant, content: first}\n      - {role: assistant, content: second}\n"
        "  - id: tools\n    criteria: c\n    input: Q\n    expected_output:\n"
        "      - role: assistant\n        tool_calls: [{tool: search}]\n",
    )
    rows, _ = export_rows("s.eval.yaml", repo_root=str(tmp_path), cwd=str(tmp_path), environ={})
    prompt = rows[0]["evaluator_prompt"]
    assert prompt.startswith("You are an expert grader.")
    assert "[[ ## criteria ## ]]\nGood.\n\n[[ ## question ## ]]\nQ\n\n[[ ## reference_answer ## ]]\nsecond\n" in prompt
    assert prompt.endswith("[[ ## answer ## ]]\n")
    assert '[\n  {\n    "tool": "search"\n  }\n]' in rows[1]["evaluator_prompt"]


def test_b10_11_unchanged_marker_rule_markers_and_chat_roles(tmp_path):
    messages = [
        {"role": "user", "content": "Q1"},
        {"role": "assistant", "content": "A1"},
        {"role": "tool", "content": "out"},
        {"role": "system", "content": "late"},
    ]
    old, new = both(tmp_path, messages)
    for mode in ("lm", "agent"):
        assert old[mode]["question"] == new[mode]["question"]
        assert old[mode]["chatPrompt"] == new[mode]["chatPrompt"]


# --- detection ------------------------------------------------------------------------------------------------


def test_dialect_detection_and_reason(tmp_path):
    _write(tmp_path, "a.yaml", "$schema: agentv-eval-v2\nevalcases: []\n")
    _write(
        tmp_path,
        "b.yaml",
        "$schema: agentv-eval-v2\nevalcases:\n  - id: x\n    expected_outcome: o\n    input_messages: []\n",
    )
    _write(tmp_path, "b2.yaml", "evalcases:\n  - id: x\n    outcome: o\n    input_messages: []\n")
    _write(tmp_path, "c.eval.yaml", "tests: []\n")
    _write(tmp_path, "d.jsonl", "")
    got = {
        n: load_eval_file(n, repo_root=str(tmp_path), cwd=str(tmp_path), environ={})
        for n in ("a.yaml", "b.yaml", "b2.yaml", "c.eval.yaml", "d.jsonl")
    }
    assert [got[n].dialect for n in got] == ["agentv-0.15", "agentv-0.15", "agentv-0.15", "agentv-4", "agentv-4"]
    assert "$schema" in got["a.yaml"].dialect_reason
    assert "expected_outcome" in got["b.yaml"].dialect_reason and got["b.yaml"].cases[0].skipped is None
    assert "input_messages" in got["b2.yaml"].dialect_reason
    assert all(ev.dialect_reason for ev in got.values())


def test_typescript_suite_is_named_and_explained(tmp_path):
    _write(tmp_path, "evals/x.eval.ts", "export default {}\n")
    ev = load_eval_file("evals/x.eval.ts", repo_root=str(tmp_path), cwd=str(tmp_path))
    assert ev.error is not None and "TypeScript" in ev.error.message and "x.eval.ts" in ev.error.message


# --- bad input in the new formats: file and line named, other tests shown, no traceback ------------------------


def _export_cli(tmp_path: Path, target: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "turnlens", "export", target, "--repo-root", "."],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO.parent), **(env or {})},
        timeout=60,
    )


def _refused_cli(tmp_path: Path, target: str, names: str, line: int | None) -> None:
    out = _export_cli(tmp_path, target)
    assert out.returncode == 1 and out.stdout == "" and "Traceback" not in out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, out.stderr
    assert names in lines[0]
    if line is not None:
        assert f":{line}:" in lines[0], lines[0]


def test_malformed_jsonl_line_names_file_and_line(tmp_path):
    _write(tmp_path, "d.jsonl", '{"id": "a", "criteria": "c", "input": "Q"}\n{not json\n')
    _refused_cli(tmp_path, "d.jsonl", "d.jsonl", 2)


def test_sidecar_that_is_not_a_mapping_is_a_warning_and_tests_still_load(tmp_path):
    _write(tmp_path, "d.jsonl", '{"id": "a", "criteria": "c", "input": "Q"}\n')
    _write(tmp_path, "d.yaml", "- a\n- b\n")
    ev = load_eval_file("d.jsonl", repo_root=str(tmp_path), cwd=str(tmp_path), environ={})
    assert ev.error is None and [c.id for c in ev.cases] == ["a"]
    assert any("Invalid sidecar metadata format" in d.message and d.file.endswith("d.yaml") for d in ev.diagnostics)


def test_tests_path_that_does_not_exist(tmp_path):
    _write(tmp_path, "s.eval.yaml", "tests: ./nope.yaml\n")
    _refused_cli(tmp_path, "s.eval.yaml", "nope.yaml", None)


def test_external_case_file_that_is_not_a_list(tmp_path):
    _write(tmp_path, "cases.yaml", "id: x\ncriteria: c\n")
    _write(tmp_path, "s.eval.yaml", "tests: ./cases.yaml\n")
    _refused_cli(tmp_path, "s.eval.yaml", "cases.yaml", 1)


def test_removed_grader_name_refuses_the_file_with_its_line(tmp_path):
    _write(tmp_path, "s.eval.yaml", "tests:\n  - id: a\n    criteria: c\n    input: Q\n    evaluator: llm_judge\n")
    _refused_cli(tmp_path, "s.eval.yaml", "Use 'llm-grader' instead", 5)


def test_env_value_that_turns_input_into_a_number_skips_that_test_only(tmp_path):
    _write(
        tmp_path,
        "s.eval.yaml",
        'tests:\n  - id: num\n    criteria: c\n    input: "${{ TL_N }}"\n  - id: ok\n    criteria: c\n    input: Q\n',
    )
    out = _export_cli(tmp_path, "s.eval.yaml", {"TL_N": "42"})
    assert out.returncode == 0 and "Traceback" not in out.stderr
    rows = [json.loads(line) for line in out.stdout.splitlines()]
    assert rows[0]["id"] == "num" and "skipped" in rows[0] and rows[1]["lm"]["question"] == "Q"
    assert "s.eval.yaml:2:" in out.stderr and "Skipping incomplete test: num" in out.stderr


def test_dotenv_files_feed_interpolation_nearest_wins_exported_wins(tmp_path):
    _write(tmp_path, ".env", "TL_A=root\nTL_B=root\nTL_C=root\n")
    _write(tmp_path, "evals/.env", "TL_A=near\n")
    _write(
        tmp_path,
        "evals/s.eval.yaml",
        'tests:\n  - id: a\n    criteria: c\n    input: "${{TL_A}} ${{TL_B}} ${{TL_C}}"\n',
    )
    rows, _ = export_rows("evals/s.eval.yaml", repo_root=str(tmp_path), cwd=str(tmp_path), environ={"TL_C": "env"})
    assert rows[0]["lm"]["question"] == "near root env"


def test_big_agentv4_suite_exported_in_slices_equals_one_process(tmp_path):
    """A big AgentV 4 suite is cut at test boundaries like a 0.15 file; every slice keeps the suite header (its
    input, input_files, assertions), so the output is byte for byte what one process writes."""
    from turnlens.formatting.evals.slices import split_slices

    _write(tmp_path, "files/a.py", "x = 1\r\n")
    lines = ["input: Suite text ${{ TL_TEAM }}.", "input_files: [files/a.py]", "assertions: [Says hello]", "tests:"]
    for n in range(3000):
        lines += [f"  - id: t{n}", f"    criteria: c {n}", f"    input: Question {n} with padding " + "x" * 40]
        if n % 3 == 0:
            lines += ["    execution: {skip_defaults: true}", "    input_files: [files/missing.py]"]
    text = "\n".join(lines) + "\n"
    _write(tmp_path, "big.eval.yaml", text)
    assert split_slices(text, 2, "tests") is not None
    out = _export_cli(tmp_path, "big.eval.yaml", {"TL_TEAM": "core"})
    assert out.returncode == 0, out.stderr[-500:]
    rows, err = export_rows("big.eval.yaml", repo_root=str(tmp_path), cwd=str(tmp_path), environ={"TL_TEAM": "core"})
    assert err is None
    got = [json.loads(line) for line in out.stdout.splitlines()]
    assert got == json.loads(json.dumps(rows))
    assert got[1]["lm"]["question"].startswith('@[User]:\nSuite text core.\n\n@[User]:\n<file path="files/a.py">')
    assert out.stderr.count("File not found") == 1000  # each test's warning once, header said once


def test_folder_discovery_as_agentv4_plus_015_files(tmp_path):
    from turnlens.formatting.dialects.discover import discover_eval_files

    _write(tmp_path, "evals/a/suite.eval.yaml", "tests: []\n")
    _write(tmp_path, "evals/b/EVAL.yaml", "tests: []\n")  # case-insensitive
    _write(tmp_path, "evals/b/notes.yaml", "tests: []\n")  # not a pattern
    _write(tmp_path, "other/x.eval.yaml", "tests: []\n")  # outside evals/: found because a folder above it is named
    _write(tmp_path, "legacy/old.yaml", "$schema: agentv-eval-v2\nevalcases: []\n")
    _write(tmp_path, "node_modules/evals/n.eval.yaml", "tests: []\n")
    root = str(tmp_path)
    found = [os.path.relpath(p, root) for p in discover_eval_files(root, root)]
    # the current format first, then the 0.15 files, each group in folder order
    assert found == ["evals/a/suite.eval.yaml", "evals/b/EVAL.yaml", "other/x.eval.yaml", "legacy/old.yaml"]
    # a folder named explicitly finds *.eval.yaml anywhere in it, as `agentv eval FOLDER` does
    assert [os.path.relpath(p, root) for p in discover_eval_files(str(tmp_path / "evals"), root)] == [
        "evals/a/suite.eval.yaml",
        "evals/b/EVAL.yaml",
    ]


def test_an_agentv5_prerelease_file_is_named_not_misread(tmp_path):
    """AgentV 5 pre-release files (prompts/providers/default_test, vars + assert, {{ env.X }}) are named for what they
    are; before, each of their tests showed as skipped for `input` being undefined."""
    from turnlens.formatting.dialects.load import load_eval_file

    shapes = {
        "top.yaml": "prompts:\n  - '{{ input }}'\ntests:\n  - vars: {input: hi}\n",
        "providers.yaml": "providers: [openai:gpt-4]\ntests:\n  - vars: {input: hi}\n",
        "default.yaml": "default_test:\n  assert: [{type: contains, value: x}]\ntests:\n  - vars: {q: hi}\n",
        "vars.yaml": "tests:\n  - vars: {input: 'Hi {{ env.NAME }}'}\n    assert: [{type: llm-rubric, value: ok}]\n",
    }
    for name, text in shapes.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
        ev = load_eval_file(tmp_path / name, repo_root=str(tmp_path), cwd=str(tmp_path), environ={})
        assert ev.error is not None, name
        assert ev.error.message.startswith("an AgentV 5 pre-release file; turnlens reads AgentV 4.42.4 and 0.15: "), (
            ev.error.message
        )
        assert ev.error.line == 1
    # an AgentV 4 file that uses the deprecated `assert` with vars is still AgentV 4
    (tmp_path / "v4.yaml").write_text(
        "tests:\n  - id: a\n    input: '{{ q }}'\n    vars: {q: hi}\n    assert: [{type: contains, value: x}]\n",
        encoding="utf-8",
    )
    ev = load_eval_file(tmp_path / "v4.yaml", repo_root=str(tmp_path), cwd=str(tmp_path), environ={})
    assert ev.error is None and ev.dialect == "agentv-4" and len(ev.cases) == 1
