"""`.env` files read as the `agentv` command reads them (npm dotenv 16): never a `${VAR}` expanded, quotes stripped,
`#` comments, `KEY: value`, the last duplicate of a file, the nearest file, an exported variable first.

Recorded with tests/fixtures/record_dotenv.py (the command is in each fixture): dotenv 16.6.1's own parse() on its
documented examples and 3,000 generated texts, and the real `agentv eval --dry-run` 4.42.4 on a project."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from turnlens.formatting.dialects.load import load_eval_file
from turnlens.formatting.evals.envfile import load_env, parse_env
from turnlens.formatting.evals.files import set_max_file_size
from turnlens.formatting.export.evals import export_rows

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "dotenv"
REPO = Path(__file__).resolve().parents[2]
PARSE = json.loads((FIXTURES / "parse.json").read_text(encoding="utf-8"))


def test_the_recording_is_dotenv_16():
    assert PARSE["dotenv_version"].startswith("16.") and len(PARSE["cases"]) >= 3000


@pytest.mark.parametrize("chunk", range(10))
def test_parse_equals_dotenv_on_documented_and_generated_texts(chunk):
    cases = PARSE["cases"][chunk::10]
    wrong = [(c["text"], dict(c["entries"]), parse_env(c["text"])) for c in cases]
    wrong = [w for w in wrong if w[1] != w[2]]
    assert not wrong, wrong[:3]


def test_documented_rules():
    text = (
        "BASIC=basic\n# COMMENTS=work\nEMPTY=\nLEAK=${MY_SECRET}\nSQ='a \\n b'\nDQ=\"a\\nb\"\nBT=`x 'y' \"z\"`\n"
        "HASH=v # c\nQHASH='v # c'\nSERVER: localhost\nexport EXP=1\n  SPACED = x  \nA=1\nA=2\n"
    )
    assert parse_env(text) == {
        "BASIC": "basic",
        "EMPTY": "",
        "LEAK": "${MY_SECRET}",
        "SQ": "a \\n b",
        "DQ": "a\nb",
        "BT": "x 'y' \"z\"",
        "HASH": "v",
        "QHASH": "v # c",
        "SERVER": "localhost",
        "EXP": "1",
        "SPACED": "x",
        "A": "2",
    }


def test_lines_dotenv_ignores_are_reported_by_number_only():
    problems: list[int] = []
    values = parse_env("A=1\n\n# comment\n   \nnot an assignment\nB='multi\nline # kept'\nKEY:novalue\n", problems)
    assert values == {"A": "1", "B": "multi\nline # kept"}
    assert problems == [5, 8]


def _project(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(text.encode("utf-8"))


def test_what_the_agentv_command_sent():
    """Each test's question equals the input.md `agentv eval --dry-run` wrote for it (a secret in a `${VAR}` stays
    the literal text; nearest .env and exported variables win)."""
    project = json.loads((FIXTURES / "cli_project.json").read_text(encoding="utf-8"))
    answers = json.loads((FIXTURES / "cli_answers.json").read_text(encoding="utf-8"))
    assert answers["agentv_version"] == "4.42.4"
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        _project(root, project["files"])
        rows, error = export_rows("evals/env.eval.yaml", repo_root=tmp, cwd=tmp, environ=project["environ"])
    assert error is None
    got = {row["id"]: "@[user]:\n" + row["lm"]["question"] for row in rows}
    assert got == answers["input_md"]
    assert "hunter2" not in json.dumps([r for r in rows if r["id"] != "secret"])


def _suite(root: Path, env_text: str | None = None) -> None:
    _project(root, {"evals/s.eval.yaml": 'tests:\n  - {id: a, criteria: c, input: "[${{ TL_A }}]"}\n'})
    if env_text is not None:
        _project(root, {".env": env_text})


def test_an_unparseable_line_is_a_warning_with_file_and_line(tmp_path):
    _suite(tmp_path, "TL_A=ok\nthis holds sk-secret-value\n")
    ev = load_eval_file("evals/s.eval.yaml", repo_root=str(tmp_path), cwd=str(tmp_path), environ={})
    warnings = [str(d) for d in ev.diagnostics]
    assert warnings == [".env:2: not a KEY=value line; the agentv command ignores it"]
    assert "sk-secret" not in "".join(warnings)


def _export_cli(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "turnlens", "export", *args, "evals/s.eval.yaml", "--repo-root", "."],
        cwd=root,
        capture_output=True,
        text=True,
        env={"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(REPO.parent)},
        timeout=60,
    )


def test_export_warns_on_stderr_and_q_silences_it(tmp_path):
    _suite(tmp_path, "TL_A=ok\n???\n")
    loud = _export_cli(tmp_path)
    assert loud.returncode == 0 and json.loads(loud.stdout)["lm"]["question"] == "[ok]"
    assert loud.stderr == "turnlens export: warning: .env:2: not a KEY=value line; the agentv command ignores it\n"
    quiet = _export_cli(tmp_path, "-q")
    assert quiet.returncode == 0 and quiet.stderr == "" and quiet.stdout == loud.stdout


def test_a_folder_named_env_is_skipped_with_a_warning(tmp_path):
    _suite(tmp_path)
    (tmp_path / ".env").mkdir()
    _project(tmp_path, {"evals/.env": "TL_A=near\n"})
    env, found, problems = load_env(str(tmp_path / "evals"), str(tmp_path), str(tmp_path), {})
    assert env == {"TL_A": "near"} and len(found) == 2
    assert [(p.path, p.line) for p in problems] == [(str(tmp_path / ".env"), None)]
    assert "the agentv command skips it" in problems[0].message


def test_a_fifo_named_env_is_skipped_without_blocking(tmp_path):
    _suite(tmp_path)
    os.mkfifo(tmp_path / ".env")
    ev = load_eval_file("evals/s.eval.yaml", repo_root=str(tmp_path), cwd=str(tmp_path), environ={"TL_A": "x"})
    assert ev.error is None and ev.cases[0].id == "a"
    assert [d.file for d in ev.diagnostics] == [".env"] and "not read" in ev.diagnostics[0].message


def test_a_env_over_the_size_limit_is_skipped(tmp_path):
    _suite(tmp_path, "TL_A=" + "x" * 5000 + "\n")
    set_max_file_size(1024)
    try:
        env, _, problems = load_env(str(tmp_path / "evals"), str(tmp_path), str(tmp_path), {})
    finally:
        set_max_file_size(None)
    assert "TL_A" not in env and len(problems) == 1 and problems[0].line is None


def test_nearest_file_first_and_exported_first(tmp_path):
    _project(tmp_path, {".env": "A=root\nB=root\nC=root\n", "evals/.env": "A=near\n", "evals/x/.env": "D=deep\n"})
    env, found, problems = load_env(str(tmp_path / "evals"), str(tmp_path), str(tmp_path), {"C": "exported"})
    assert (env["A"], env["B"], env["C"], "D" in env) == ("near", "root", "exported", False)
    assert found == [str(tmp_path / "evals" / ".env"), str(tmp_path / ".env")] and problems == []


def test_a_dangling_link_is_not_a_env(tmp_path):
    os.symlink(tmp_path / "nowhere", tmp_path / ".env")
    env, found, problems = load_env(str(tmp_path), str(tmp_path), str(tmp_path), {})
    assert (env, found, problems) == ({}, [], [])
