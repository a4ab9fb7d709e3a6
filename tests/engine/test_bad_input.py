"""Bad input never gives a traceback: a clear message naming file and line, and the other cases still come out."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from turnlens.formatting.dialects.format import format_case
from turnlens.formatting.dialects.load import load_eval_file
from turnlens.formatting.evals import agentv015, references
from turnlens.formatting.evals.files import FileReadError

ROOT = Path(__file__).resolve().parents[2]

GOOD_CASE = """\
  - id: good
    outcome: answers
    input_messages:
      - role: user
        content: hello
"""


def write(tmp_path: Path, text: str, name: str = "e.yaml") -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def load(tmp_path: Path, text: str):
    p = write(tmp_path, text)
    return load_eval_file(p, repo_root=tmp_path, cwd=tmp_path)


def run_export(tmp_path: Path, path: Path):
    return subprocess.run(
        [
            sys.executable,
            "-c",
            "from turnlens.tui.cli import main; main()",
            "export",
            str(path),
            "--repo-root",
            str(tmp_path),
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


@pytest.mark.parametrize(
    "text, line, words",
    [
        ("$schema: agentv-eval-v2\nevalcases:\n  - id: [unclosed\n", 4, ""),
        # (cases with input_messages: read as AgentV 0.15, which wants the $schema; without any, AgentV 4 ignores it)
        ("evalcases:\n  - input_messages: []\n", 1, "Missing required field '$schema'"),
        (
            "$schema: agentv-eval-v1\nevalcases:\n  - input_messages: []\n",
            1,
            "Invalid $schema value 'agentv-eval-v1'",
        ),
        ("- just\n- a list\n", 1, "Invalid test file format"),
        ("$schema: agentv-eval-v2\nevalcases: {}\n", 2, "missing 'evalcases' field"),
        ("$schema: agentv-eval-v2\nevalcases:\n  - id: a\n    id: b\n", 4, "duplicate key 'id'"),
        ("", 1, ""),
    ],
    ids=[
        "malformed-yaml",
        "missing-schema",
        "wrong-schema",
        "not-a-mapping",
        "evalcases-not-a-list",
        "duplicate-key",
        "empty-file",
    ],
)
def test_refused_file_names_file_and_line(tmp_path, text, line, words):
    ev = load(tmp_path, text)
    assert ev.error is not None and ev.cases == []
    assert ev.error.line == line
    assert words in ev.error.message
    out = run_export(tmp_path, tmp_path / "e.yaml")
    assert out.returncode == 1
    assert out.stdout == ""
    assert "Traceback" not in out.stderr
    err_lines = out.stderr.strip().splitlines()
    assert len(err_lines) == 1 and "e.yaml" in err_lines[0] and f":{line}:" in err_lines[0]


def test_missing_eval_file_is_refused_cleanly(tmp_path):
    out = run_export(tmp_path, tmp_path / "nope.yaml")
    assert out.returncode == 1 and out.stdout == "" and "Traceback" not in out.stderr
    assert "nope.yaml" in out.stderr and "not found" in out.stderr


def test_wrong_types_everywhere_skip_or_drop_but_the_rest_comes_out(tmp_path):
    ev = load(
        tmp_path,
        textwrap.dedent("""\
        $schema: agentv-eval-v2
        evalcases:
          - 5
          - id: 7
            outcome: o
            input_messages: []
          - id: no-outcome
            input_messages: []
          - id: outcome-list
            outcome: [a]
            input_messages: []
          - id: messages-map
            outcome: o
            input_messages: {role: user}
          - id: odd-messages
            outcome: o
            input_messages:
              - just a string
              - role: developer
                content: x
              - role: user
                content: 42
              - role: user
                content: [plain, {type: text, value: y}]
              - role: user
                content:
                  - {type: text, value: 5}
                  - {type: file, value: 7}
                  - {type: image, value: a.png}
                  - {value: no type}
                  - {type: text, value: kept}
        """)
        + GOOD_CASE,
    )
    assert ev.error is None
    skipped = {c.index: c.skipped for c in ev.cases if c.skipped}
    assert set(skipped) == {0, 1, 2, 3, 4}
    assert "`id` is not a string" in skipped[1]
    assert "no `outcome`" in skipped[2]
    odd = next(c for c in ev.cases if c.id == "odd-messages")
    dropped = [m.dropped for m in odd.messages if m.dropped]
    assert dropped == [
        "not a mapping",
        "role 'developer' is not one of system, user, assistant, tool",
        "content is a number, not text or a list",
        "content entry 1 is not a mapping",
    ]
    assert all(d.line for d in odd.diagnostics)
    fc = format_case(odd, ev)
    assert fc.lm.question == "kept"
    fates = [s.fate for s in fc.explanation.segments if s.message_index == 4]
    assert fates == [
        "unknown type dropped",
        "unknown type dropped",
        "unknown type dropped",
        "unknown type dropped",
        "text kept",
    ]
    good = next(c for c in ev.cases if c.id == "good")
    assert format_case(good, ev).lm.question == "hello"


def _file_case(ref: str) -> str:
    return (
        textwrap.dedent(f"""\
        $schema: agentv-eval-v2
        evalcases:
          - id: f
            outcome: o
            input_messages:
              - role: user
                content:
                  - {{type: file, value: {ref}}}
                  - {{type: text, value: look}}
        """)
        + GOOD_CASE
    )


def test_binary_file_is_embedded_with_a_note(tmp_path):
    (tmp_path / "blob.bin").write_bytes(b"ab\x00cd")
    ev = load(tmp_path, _file_case("blob.bin"))
    case = ev.cases[0]
    assert any("binary" in d.message and d.line for d in case.diagnostics)
    assert "ab\x00cd" in format_case(case, ev).lm.question


def test_non_utf8_file_reads_as_replacement_characters(tmp_path):
    (tmp_path / "latin1.txt").write_bytes("café\r\n".encode("latin-1"))
    ev = load(tmp_path, _file_case("latin1.txt"))
    case = ev.cases[0]
    assert any("not valid UTF-8" in d.message for d in case.diagnostics)
    assert "caf\ufffd" in format_case(case, ev).lm.question


def test_directory_reference_is_a_warning(tmp_path):
    (tmp_path / "folder").mkdir()
    ev = load(tmp_path, _file_case("folder"))
    case = ev.cases[0]
    assert any("EISDIR" in d.message and d.line == 8 for d in case.diagnostics)
    fc = format_case(case, ev)
    assert fc.lm.question == "look"
    assert fc.explanation.segments[0].fate == "file unreadable"


def test_unreadable_file_is_a_warning(tmp_path, monkeypatch):
    secret = tmp_path / "secret.txt"
    secret.write_text("s")
    real = references.read_bytes

    def deny(path, limit=None):
        if path == str(secret):
            error = PermissionError(13, "Permission denied", path)
            raise FileReadError(path, "Permission denied", error)
        return real(path, limit)

    monkeypatch.setattr(references, "read_bytes", deny)  # tests run as root: chmod would not deny
    ev = load(tmp_path, _file_case("secret.txt"))
    assert any("EACCES" in d.message for d in ev.cases[0].diagnostics)
    assert format_case(ev.cases[0], ev).lm.question == "look"


def test_missing_file_lists_where_it_looked(tmp_path):
    ev = load(tmp_path, _file_case("../nowhere.txt"))
    case = ev.cases[0]
    (diag,) = [d for d in case.diagnostics if "File not found" in d.message]
    assert diag.line == 8 and "Tried:" in diag.message
    assert format_case(case, ev).explanation.segments[0].fate == "file missing"


def test_huge_file_is_embedded_with_a_note(tmp_path):
    (tmp_path / "huge.txt").write_text("x" * (agentv015.LARGE_FILE_BYTES + 10))
    ev = load(tmp_path, _file_case("huge.txt"))
    assert any("Large file" in d.message for d in ev.cases[0].diagnostics)


def test_invalid_config_is_a_warning_and_the_next_config_up_is_used(tmp_path):
    (tmp_path / ".agentv").mkdir()
    (tmp_path / ".agentv" / "config.yaml").write_text("$schema: agentv-config-v2\nguideline_patterns: ['**/*.md']\n")
    sub = tmp_path / "sub"
    (sub / ".agentv").mkdir(parents=True)
    (sub / ".agentv" / "config.yaml").write_text("$schema: agentv-config-v2\nguideline_patterns: [1]\n")
    (sub / "g.md").write_text("guide")
    p = write(sub, _file_case("g.md"))
    ev = load_eval_file(p, repo_root=tmp_path, cwd=tmp_path)
    assert any("all entries must be strings" in d.message and d.line == 2 for d in ev.diagnostics)
    assert ev.config.path == str(tmp_path / ".agentv" / "config.yaml")
    assert format_case(ev.cases[0], ev).lm.guidelines == '<file path="g.md">\nguide\n</file>'


def test_inspected_files_are_never_written(tmp_path):
    p = write(tmp_path, _file_case("../nowhere.txt"))
    before = {f: f.stat().st_mtime_ns for f in tmp_path.rglob("*")}
    run_export(tmp_path, p)
    ev = load_eval_file(p, repo_root=tmp_path, cwd=tmp_path)
    [format_case(c, ev, profile) for c in ev.cases if not c.skipped for profile in ("agentv", "design")]
    assert {f: f.stat().st_mtime_ns for f in tmp_path.rglob("*")} == before


def _turnlens(tmp_path: Path, *args: str):
    return subprocess.run(
        [sys.executable, "-c", "from turnlens.tui.cli import main; main()", *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


def test_results_formats_refuse_an_eval_file(tmp_path):
    p = write(tmp_path, "$schema: agentv-eval-v2\nevalcases:\n" + GOOD_CASE)
    out = _turnlens(tmp_path, "export", str(p), "--format", "toon")
    assert out.returncode == 1 and out.stdout == "" and "not an AgentV results file" in out.stderr


def test_a_repo_root_that_is_not_a_folder_is_refused(tmp_path):
    p = write(tmp_path, "$schema: agentv-eval-v2\nevalcases:\n" + GOOD_CASE)
    for args in (("export", str(p)), (str(p),)):
        out = _turnlens(tmp_path, *args, "--repo-root", str(tmp_path / "nope"))
        assert out.returncode == 2 and "--repo-root" in out.stderr and "Traceback" not in out.stderr


def test_lone_surrogates_and_yaml_warnings_never_break_export(tmp_path):
    p = write(
        tmp_path,
        "%FOO bar\n---\n$schema: agentv-eval-v2\nevalcases:\n  - id: a\n    outcome: !!float 1\n"
        '    input_messages:\n      - {role: user, content: "\\ud83d hi"}\n',
    )
    out = _turnlens(tmp_path, "export", str(p))
    assert out.returncode == 0 and "Traceback" not in out.stderr
    assert '"question":"\\ud83d hi"' in out.stdout  # escaped the way JSON.stringify writes it
    assert "unknown directive %FOO" in out.stderr and ":6: unresolved tag !!float" in out.stderr
    from turnlens.tui.render import sanitize

    assert sanitize("x\ud83d") == "x\\ud83d"


def test_a_skipped_case_is_one_warning_naming_its_id_as_written(tmp_path):
    p = write(
        tmp_path,
        "$schema: agentv-eval-v2\nevalcases:\n"
        "  - id: 1042\n    outcome: o\n    input_messages: []\n"
        '  - id: ""\n    outcome: o\n    input_messages: []\n'
        "  - outcome: o\n    input_messages: []\n"
        "  - just a string\n",
    )
    out = run_export(tmp_path, p)
    assert out.returncode == 0
    warnings = [line.split(": warning: ", 1)[1] for line in out.stderr.splitlines()]
    assert sorted(warnings) == [  # file-level warnings come first on stderr; one line per skipped case either way
        f"{p}:11: Skipping invalid eval case entry (expected object)",
        f"{p}:3: Skipping incomplete eval case 1042: `id` is not a string",
        f'{p}:6: Skipping incomplete eval case "": `id` is empty',
        f"{p}:9: Skipping incomplete eval case #3 (no id): no `id`",
    ]
