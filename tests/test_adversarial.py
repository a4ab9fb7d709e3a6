"""The adversarial catalogue: a hostile file author and faults (a full disk, a closed pipe, Ctrl-C, a file cut
while mapped) must give a message naming the file, never a traceback, a hang, a crash, a leak or a lost row.

Every test here is bounded: small files, low limits set through the options and environment variables a user has,
and a timeout on every process started.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from turnlens.formatting.evals import files
from turnlens.formatting.evals.files import FileReadError, FileTooLarge, NotRegularFile, read_bytes, read_text_file
from turnlens.formatting.evals.loader import load_eval_file

TIMEOUT = 20  # seconds: any process here that takes longer hangs


def run_cli(
    *args: str, cwd: Path, env: dict | None = None, stdin=subprocess.DEVNULL, **kw
) -> subprocess.CompletedProcess:
    full_env = {k: v for k, v in os.environ.items() if k != "TURNLENS_MAX_FILE_SIZE"} | (env or {})
    return subprocess.run(
        [sys.executable, "-m", "turnlens", *args],
        cwd=cwd,
        env=full_env,
        stdin=stdin,
        capture_output=True,
        timeout=TIMEOUT,
        **kw,
    )


def eval_file(tmp_path: Path, *cases: tuple[str, list[str]], name: str = "e.yaml") -> Path:
    """An eval file whose cases each reference the files given (case id, [file values])."""
    lines = ["$schema: agentv-eval-v2", "evalcases:"]
    for case_id, refs in cases:
        lines += [
            f"  - id: {case_id}",
            "    outcome: ok",
            "    input_messages:",
            "      - role: user",
            "        content:",
        ]
        lines += ["          - type: text", "            value: look"]
        for ref in refs:
            lines += ["          - type: file", f"            value: {ref}"]
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n")
    (tmp_path / ".git").mkdir(exist_ok=True)
    return path


def no_traceback(proc: subprocess.CompletedProcess) -> None:
    assert b"Traceback" not in proc.stderr, proc.stderr.decode(errors="replace")


# --- only regular files are read, never past a limit the user can raise ---------------------------------------


def test_reader_refuses_fifo_device_and_folder(tmp_path):
    fifo = tmp_path / "pipe.txt"
    os.mkfifo(fifo)
    for path, kind in ((fifo, "FIFO"), ("/dev/zero", "character device"), (tmp_path, "folder")):
        with pytest.raises(NotRegularFile) as caught:
            read_bytes(str(path))
        assert kind in caught.value.reason and str(path) in str(caught.value)


def test_reader_limit_names_file_and_size(tmp_path):
    big = tmp_path / "big.txt"
    big.write_bytes(b"x" * 3000)
    with pytest.raises(FileTooLarge) as caught:
        read_bytes(str(big), limit=2048)
    assert "2.9 KiB" in caught.value.reason and "--max-file-size" in caught.value.reason
    assert read_bytes(str(big), limit=3000) == b"x" * 3000


def test_reader_bounds_files_whose_size_lies(tmp_path):
    """/proc files say 0 bytes: they are read to the end, but never past the limit."""
    assert b"PATH=" in read_bytes("/proc/self/environ") or os.environ.get("PATH") is None
    with pytest.raises(FileTooLarge):
        read_bytes("/proc/self/maps", limit=16)


def test_reader_limit_from_environment(monkeypatch, tmp_path):
    big = tmp_path / "big.txt"
    big.write_bytes(b"x" * 3000)
    monkeypatch.setenv("TURNLENS_MAX_FILE_SIZE", "2K")
    assert files.max_file_size() == 2048
    with pytest.raises(FileTooLarge):
        read_text_file(str(big))
    monkeypatch.setenv("TURNLENS_MAX_FILE_SIZE", "1x")
    assert files.env_size_problem() is not None and files.max_file_size() == files.DEFAULT_MAX_FILE_SIZE


def test_reader_names_wide_encodings(tmp_path):
    for encoding, name in (("utf-16", "UTF-16"), ("utf-16-be", "UTF-16 (big-endian)"), ("utf-32", "UTF-32")):
        path = tmp_path / f"{encoding}.yaml"
        path.write_bytes("$schema: agentv-eval-v2\nevalcases: []\n".encode(encoding))
        with pytest.raises(FileReadError) as caught:
            read_text_file(str(path))
        assert name in caught.value.reason
        assert load_eval_file(str(path), repo_root=str(tmp_path)).error.message.count(name[:6]) == 1


def test_export_keeps_good_cases_past_fifo_device_and_big_file(tmp_path):
    os.mkfifo(tmp_path / "fifo.txt")
    (tmp_path / "big.txt").write_bytes(b"y" * 5000)
    (tmp_path / "ok.txt").write_text("fine")
    eval_file(tmp_path, ("a", ["fifo.txt"]), ("b", ["/dev/zero"]), ("c", ["big.txt"]), ("d", ["ok.txt"]))
    proc = run_cli("export", "e.yaml", "--max-file-size", "4K", cwd=tmp_path)
    no_traceback(proc)
    assert proc.returncode == 0
    rows = proc.stdout.decode().splitlines()
    assert len(rows) == 4 and "fine" in rows[3]
    err = proc.stderr.decode()
    assert "fifo.txt: " not in err or "FIFO" in err
    assert "FIFO" in err and "/dev/zero" in err and "character device" in err
    assert "big.txt" in err and "4.9 KiB" in err and "4.0 KiB limit" in err
    # the same limit through the environment; a bad value is a usage error
    proc = run_cli("export", "e.yaml", cwd=tmp_path, env={"TURNLENS_MAX_FILE_SIZE": "4096"})
    assert "4.0 KiB limit" in proc.stderr.decode()
    proc = run_cli("export", "e.yaml", "--max-file-size", "lots", cwd=tmp_path)
    assert proc.returncode == 2 and b"--max-file-size" in proc.stderr
    no_traceback(proc)


@pytest.mark.parametrize("target", ["fifo", "/dev/zero", "folder", "big"])
def test_export_refuses_non_regular_or_big_eval_file(tmp_path, target):
    if target == "fifo":
        os.mkfifo(tmp_path / "e.yaml")
        path = "e.yaml"
    elif target == "folder":
        (tmp_path / "e.yaml").mkdir()
        path = "e.yaml"
    elif target == "big":
        eval_file(tmp_path, ("a", []))
        path = "e.yaml"
    else:
        path = target
    proc = run_cli("export", path, "--max-file-size", "64", cwd=tmp_path)
    no_traceback(proc)
    assert proc.returncode == 1 and proc.stdout == b""
    assert path.encode() in proc.stderr and len(proc.stderr.splitlines()) == 1


def test_config_fifo_is_a_diagnostic(tmp_path):
    (tmp_path / ".agentv").mkdir()
    os.mkfifo(tmp_path / ".agentv" / "config.yaml")
    path = eval_file(tmp_path, ("a", []))
    ev = load_eval_file(str(path), repo_root=str(tmp_path))
    assert ev.error is None and any("FIFO" in d.message for d in ev.diagnostics)


def test_loader_with_custom_text_unchanged(tmp_path):
    """A slice handed in as text is not read again (the parallel export's path)."""
    path = eval_file(tmp_path, ("a", []))
    ev = load_eval_file(str(path), repo_root=str(tmp_path), text=textwrap.dedent(path.read_text()))
    assert ev.error is None and len(ev.cases) == 1
