"""What `${{ VAR }}` replaced is said where the variable was used: a test's own replacements in its row's markers,
the suite's (name, description, suite input…) once for the file in the inspector, and never as a warning on
`turnlens export`'s stderr."""

from __future__ import annotations

import os
import subprocess
import sys

import orjson

SUITE = """description: Support for ${{ TL_NOTE_PRODUCT }}
input:
  - role: system
    content: You help ${{ TL_NOTE_PRODUCT }} customers.
tests:
  - id: uses-it
    criteria: c
    input: Is ${{ TL_NOTE_PRODUCT }} open on ${{ TL_NOTE_DAY }}?
  - id: does-not
    criteria: c
    input: Hello.
"""


def test_notes_where_the_variable_was_used(tmp_path):
    from turnlens.formatting.dialects.load import load_eval_file

    (tmp_path / "evals").mkdir()
    (tmp_path / "evals" / "s.eval.yaml").write_text(SUITE)
    env = {"TL_NOTE_PRODUCT": "Acme"}
    ev = load_eval_file("evals/s.eval.yaml", repo_root=str(tmp_path), cwd=str(tmp_path), environ=env)
    uses, does_not = ev.cases
    assert uses.interpolations == [
        "${{ TL_NOTE_PRODUCT }} replaced by 'Acme'",
        "${{ TL_NOTE_DAY }} is not set: replaced by ''",
    ]
    assert does_not.interpolations == []
    file_notes = [(d.line, d.message, d.severity) for d in ev.diagnostics]
    assert file_notes == [
        (1, "${{ TL_NOTE_PRODUCT }} replaced by 'Acme'", "info"),
        (4, "${{ TL_NOTE_PRODUCT }} replaced by 'Acme'", "info"),
    ]


def test_export_prints_no_warning_for_them(tmp_path):
    (tmp_path / "evals").mkdir()
    (tmp_path / "evals" / "s.eval.yaml").write_text(SUITE)
    env = {**os.environ, "TL_NOTE_PRODUCT": "Acme"}
    out = subprocess.run(
        [sys.executable, "-m", "turnlens", "export", "evals/s.eval.yaml", "--repo-root", "."],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        check=True,
    )
    assert b"replaced by" not in out.stderr
    rows = [orjson.loads(line) for line in out.stdout.splitlines()]
    evidence = rows[0]["markers"]["evidence"]
    assert "Interpolation: ${{ TL_NOTE_PRODUCT }} replaced by 'Acme'" in evidence
    assert not any("Interpolation" in e for e in rows[1]["markers"]["evidence"])


def test_a_jsonl_test_is_interpolated_when_its_line_may_hold_the_marker(tmp_path):
    """A JSONL test is looked at for `${{ VAR }}` only when its line may hold it once decoded: as written, or
    behind a \\u escape (\\u0024{{ is `${{`); the other tests have nothing to replace."""
    from turnlens.formatting.dialects.load import load_eval_file

    lines = [
        '{"id": "plain", "criteria": "c", "input": "Is ${{ TL_NOTE_PRODUCT }} open?"}',
        '{"id": "escaped", "criteria": "c", "input": "Is \\u0024{{ TL_NOTE_PRODUCT }} open?"}',
        '{"id": "braces", "criteria": "c", "input": "Is $\\u007b{ TL_NOTE_PRODUCT }} open?"}',
        '{"id": "whole", "criteria": "c", "input": "x", "metadata": {"n": "${{ TL_NOTE_N }}"}}',
        '{"id": "none", "criteria": "c", "input": "Is {{ it }} $ open?"}',
        '{"id": "\\u00e9", "criteria": "c", "input": "caf\\u00e9"}',
    ]
    (tmp_path / "d.jsonl").write_text("\n".join(lines) + "\n")
    env = {"TL_NOTE_PRODUCT": "Acme", "TL_NOTE_N": "3"}
    ev = load_eval_file("d.jsonl", repo_root=str(tmp_path), cwd=str(tmp_path), environ=env)
    texts = {case.id: case.messages[0].segments[0].value for case in ev.cases if case.messages}
    assert texts["plain"] == texts["escaped"] == texts["braces"] == "Is Acme open?"
    assert texts["none"] == "Is {{ it }} $ open?" and texts["é"] == "café"
    assert [case.interpolations for case in ev.cases] == [
        ["${{ TL_NOTE_PRODUCT }} replaced by 'Acme'"],
        ["${{ TL_NOTE_PRODUCT }} replaced by 'Acme'"],
        ["${{ TL_NOTE_PRODUCT }} replaced by 'Acme'"],
        ["${{ TL_NOTE_N }} replaced by '3'"],
        [],
        [],
    ]
