"""A suite's `input`: prepended to every test without execution.skip_defaults, interpolated with each test's vars,
and made into messages once for all the tests that get it unchanged (formatting/evals/agentv4.py)."""

from __future__ import annotations

from pathlib import Path

from turnlens.formatting.dialects.load import load_eval_file

SUITE = """\
name: s
input:
  - role: system
    content: You help {{ team }} users.
  - role: user
    content:
      - {type: file, value: files/missing.md}
tests:
  - id: plain
    criteria: c
    input: Hi
  - id: with-vars
    criteria: c
    vars: {team: billing}
    input: Hello
  - id: skips
    criteria: c
    execution: {skip_defaults: true}
    input: Alone
  - file://more.yaml
"""

MORE = """\
- id: external
  criteria: c
  input: From another file
"""


def _load(tmp_path: Path, suite: str = SUITE):
    (tmp_path / "evals").mkdir()
    (tmp_path / "evals" / "s.eval.yaml").write_text(suite)
    (tmp_path / "evals" / "more.yaml").write_text(MORE)
    ev = load_eval_file("evals/s.eval.yaml", repo_root=str(tmp_path), cwd=str(tmp_path))
    assert ev.error is None
    return {case.id: case for case in ev.cases}, ev


def test_suite_messages_keep_their_own_lines_whatever_the_test(tmp_path):
    cases, _ = _load(tmp_path)
    for name in ("plain", "with-vars", "external"):
        messages = cases[name].messages
        assert cases[name].suite_input_count == 2
        assert [(m.role, m.line, m.from_suite) for m in messages[:2]] == [("system", 3, True), ("user", 5, True)]
        assert messages[2].from_suite is False and messages[2].index == 2
    assert cases["skips"].suite_input_count == 0 and len(cases["skips"].messages) == 1


def test_a_tests_vars_reach_the_suite_input_and_no_other_test(tmp_path):
    cases, _ = _load(tmp_path)
    assert cases["with-vars"].messages[0].segments[0].value == "You help billing users."
    assert cases["plain"].messages[0].segments[0].value == "You help {{ team }} users."
    assert any("suite input: {{ team }} replaced from vars" in note for note in cases["with-vars"].interpolations)
    assert not cases["plain"].interpolations


def test_a_missing_file_in_the_suite_input_is_said_for_every_test_that_gets_it(tmp_path):
    _cases, ev = _load(tmp_path)
    every = [*ev.diagnostics, *(d for c in ev.cases for d in c.diagnostics)]
    missing = [d for d in every if "File not found: files/missing.md" in d.message]
    assert len(missing) == 3  # plain, with-vars, external (not the test that skips the defaults)
    # on each test that gets it, so that its row shows ⚠ (not only the file's banner)
    assert {c.id for c in ev.cases if any("File not found" in d.message for d in c.diagnostics)} == {
        "plain",
        "with-vars",
        "external",
    }
    assert {d.line for d in missing} == {7}  # the file entry's line, for the test with vars too


def test_tests_that_get_the_suite_input_unchanged_share_its_messages(tmp_path):
    suite = SUITE.replace("      - {type: file, value: files/missing.md}\n", "      - {type: text, value: Hello}\n")
    cases, _ = _load(tmp_path, suite)
    assert cases["plain"].messages[0] is cases["external"].messages[0]  # made once
    assert cases["with-vars"].messages[0] is not cases["plain"].messages[0]  # its own text
    assert cases["plain"].messages is not cases["external"].messages  # each test has its own list
