"""The adversarial catalogue: a hostile file author and faults (a full disk, a closed pipe, Ctrl-C, a file cut
while mapped) must give a message naming the file, never a traceback, a hang, a crash, a leak or a lost row.

Every test here is bounded: small files, low limits set through the options and environment variables a user has,
and a timeout on every process started.

The second adversarial pass (issue 22), item by item, and the tests that hold each (here unless a file is named):
1. a run folder's row naming files outside it (absolute, `../`, `.env` from the working folder, /proc, a link out,
   `artifact_dir` outside): test_run_folder_artifacts_never_read_outside_it, ..._in_the_results_view
2. `o` with $EDITOR a missing program, a folder, a bad path or an unbalanced quote, in a real terminal:
   test_missing_editor_resumes_the_app_and_says_so
3. `q` while a 1,000,000-test JSONL or YAML suite loads: loading in slices with a cancellation check
   (tests/inspector/test_loading.py: test_a_big_file_loaded_in_slices_is_its_whole_load,
   test_a_big_file_shows_its_first_case_while_loading_then_everything, test_memory_stays_bounded_walking_every_case);
   timed in benchmarks/bench_quit.py (the worst `q` over several moments) and benchmarks/bench_scale.py
4. discovery through `evals/a/root -> /`, a link into /proc, `turnlens /proc/self`, `--evals /proc`, a link loop:
   test_tree_walk_follows_links_only_inside_and_never_recurses, test_a_link_to_root_is_not_followed_by_export,
   test_the_app_on_proc_and_on_a_link_to_root_quits_on_q
5. braces past the expansion limit (`file://cases/case-{1..1001}.yaml`, eleven `{a,b}` in eval_patterns), also saved
   while the inspector is open: test_brace_expansion_past_the_limit_in_export,
   test_saving_a_brace_bomb_while_the_inspector_is_open
6. SIGTERM, SIGHUP, SIGQUIT to the app, also while it is busy: test_signals_end_the_app_as_q_does,
   test_a_signal_while_the_app_is_busy_still_restores_the_terminal
7. a watch that fails (watchfiles' PermissionError): test_a_watch_that_fails_is_said_and_tried_again
8. a tree 1,100 levels deep: test_deep_tree_export_is_cut_with_a_warning, test_deep_tree_in_the_app
9. a file rewritten in place, each version longer: test_a_file_rewritten_in_place_longer_is_read_anew_not_appended
   (and benchmarks/stress_follow.py: the race itself)
10. export memory and the limit named: tests/engine/test_memory_limit.py (test_a_process_limit_is_named,
    test_a_load_out_of_memory_names_the_limit_not_the_size_option); export in rounds, memory flat
    (tests/export/test_parallel_export.py: test_an_export_in_rounds_equals_the_serial_export_byte_for_byte)
11. MemoryError while loading or in the case list: tests/inspector/test_loading.py
    (test_running_out_of_memory_while_loading_stops_with_a_note,
    test_out_of_memory_in_the_case_list_stops_loading_with_a_banner, test_loading_stops_at_the_memory_limit_and_says_so)
12. more than MAX_RUNS runs in a folder, more runs than file descriptors: test_more_runs_than_listed_keeps_the_newest,
    test_export_of_more_runs_than_file_descriptors_drops_no_row
13. a terminal narrowed to 3, 2, 1 columns: test_narrowing_the_terminal_to_a_few_columns
14. an eval folder or results file deleted and made again: test_an_eval_folder_deleted_and_made_again_is_followed,
    test_a_results_file_deleted_and_made_again_in_the_view, test_a_results_file_removed_then_made_again_is_followed
15. Ctrl-C while the command imports its modules: test_ctrl_c_while_the_command_imports_its_modules_is_exit_130
16. an eval file replaced by a link while watched (twice), a refusal naming the link's target:
    test_an_eval_file_replaced_by_a_link_is_followed
17. numbers JSON cannot hold: results rows with 1e400 or a lone surrogate escape
    (test_results_rows_javascript_reads_are_kept); `id: 1e400` in the four eval formats, against both oracles
    (test_ids_json_cannot_hold_export_as_agentv_reads_them)
18. ids with line feeds (imitating other rows) and 10,000 combining marks: test_labels_are_one_bounded_line,
    test_ids_draw_on_one_line_in_both_lists
19. typed input: test_the_filter_box_takes_a_bounded_input, test_a_long_list_is_refiltered_once_the_keys_pause,
    test_the_palette_is_bounded_debounced_and_never_tries_every_placement (the backlog: benchmarks/bench_typing.py)
20. the commands' own errors with ESC/BEL in a path or an option, a FIFO suggested as --evals, a row too big for
    memory: test_the_commands_own_errors_neutralise_escapes,
    test_unknown_options_with_escapes_are_neutralised_in_every_command,
    test_a_fifo_named_with_a_results_file_is_not_suggested_as_evals,
    test_a_results_row_too_big_for_memory_names_the_limit
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import pytest_asyncio

from turnlens.formatting.dialects.load import load_eval_file
from turnlens.formatting.evals import files
from turnlens.formatting.evals.files import FileReadError, FileTooLarge, NotRegularFile, read_bytes, read_text_file

TIMEOUT = 20  # seconds: any process here that takes longer hangs


def run_cli(*args: str, cwd: Path, env: dict | None = None, **kw) -> subprocess.CompletedProcess:
    full_env = {k: v for k, v in os.environ.items() if k != "TURNLENS_MAX_FILE_SIZE"} | (env or {})
    kw.setdefault("stdin", subprocess.DEVNULL)
    kw.setdefault("stdout", subprocess.PIPE)
    kw.setdefault("stderr", subprocess.PIPE)
    return subprocess.run([sys.executable, "-m", "turnlens", *args], cwd=cwd, env=full_env, timeout=TIMEOUT, **kw)


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


# --- the export writes every byte, whole rows only, or fails loudly ----------------------------------------------


def many_cases(tmp_path: Path, count: int, name: str = "e.yaml") -> Path:
    """An eval file of `count` cases whose ids and questions hold escape sequences (about 1.3 KB of output each)."""
    lines = ["$schema: agentv-eval-v2", "evalcases:"]
    for i in range(count):
        lines += [f'  - id: "case-{i}\\e]0;pwned\\a"', "    outcome: ok", "    input_messages:", "      - role: user"]
        lines += [f'        content: "{"hello world " * 30}\\e[2J {i}"']
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n")
    (tmp_path / ".git").mkdir(exist_ok=True)
    return path


class ShortWriter:
    """A stream that takes at most 1000 bytes per write, as write() may for a chunk past 2 GiB."""

    def __init__(self):
        self.data = bytearray()

    def write(self, data) -> int:
        taken = bytes(data[:1000])
        self.data += taken
        return len(taken)

    def flush(self) -> None:
        pass


def test_short_writes_are_continued():
    from turnlens.formatting.export.evals import _write_rows

    rows = [(b'{"row":%d,"pad":"%s"}' % (i, b"x" * 700), []) for i in range(600)]
    out = ShortWriter()
    _write_rows(out, rows, quiet=True)
    assert out.data == b"".join(row + b"\n" for row, _ in rows)


def test_results_export_continues_short_writes(tmp_path):
    from turnlens.formatting.export.results import stream_results

    run = tmp_path / "run.jsonl"
    run.write_text("".join(f'{{"eval_id":"c{i}","score":1,"candidate_answer":"{"a" * 500}"}}\n' for i in range(50)))
    for fmt in ("jsonl", "toon", "markdown"):
        out = ShortWriter()
        stream_results([str(run)], fmt, out, 0.5)
        assert out.data.count(b"c49") == 1 and out.data.endswith(b"\n"), fmt


@pytest.mark.parametrize("fmt", [None, "jsonl", "toon", "markdown"])
def test_full_disk_and_closed_stdout_are_one_line(tmp_path, fmt):
    if fmt is None:
        many_cases(tmp_path, 300)  # past the parallel export's threshold on 2 cores
        args = ["export", "e.yaml"]
    else:
        (tmp_path / "run.jsonl").write_text("".join(f'{{"eval_id":"c{i}","score":1}}\n' for i in range(3000)))
        args = ["export", "run.jsonl", "--format", fmt]
    with open("/dev/full", "wb") as full:
        proc = run_cli(*args, cwd=tmp_path, stdout=full)
    assert proc.returncode == 1 and proc.stderr.decode().splitlines() == [
        "turnlens export: cannot write the output: No space left on device"
    ]
    closed = subprocess.run(
        ["sh", "-c", f'exec "{sys.executable}" -m turnlens {" ".join(args)} >&-'],
        cwd=tmp_path,
        capture_output=True,
        timeout=TIMEOUT,
        stdin=subprocess.DEVNULL,
    )
    assert closed.returncode == 1 and closed.stderr.decode().splitlines() == [
        "turnlens export: cannot write the output: standard output is closed"
    ]


def test_closed_stderr_still_exports(tmp_path):
    many_cases(tmp_path, 300)
    (tmp_path / "bad.yaml").write_text("$schema: agentv-eval-v2\nevalcases: 3\n")
    for name, status, rows in (("e.yaml", 0, 300), ("bad.yaml", 1, 0)):
        proc = subprocess.run(
            ["sh", "-c", f'exec "{sys.executable}" -m turnlens export {name} 2>&-'],
            cwd=tmp_path,
            capture_output=True,
            timeout=TIMEOUT,
            stdin=subprocess.DEVNULL,
        )
        assert proc.returncode == status and len(proc.stdout.splitlines()) == rows


@pytest.mark.parametrize("cases", [120, 600])  # one process; several workers (a file past 256 KB)
def test_ctrl_c_mid_export_leaves_whole_rows(tmp_path, cases):
    import signal

    import orjson

    many_cases(tmp_path, cases)
    proc = subprocess.Popen(
        [sys.executable, "-m", "turnlens", "export", "e.yaml"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # its own process group, as a terminal's Ctrl-C reaches every process of the job
    )
    try:
        first = b""
        while len(first) < 100_000:  # then the pipe is full: the export is blocked in the middle of a write
            first += os.read(proc.stdout.fileno(), 100_000 - len(first))  # (unbuffered: communicate reads on)
        os.killpg(proc.pid, signal.SIGINT)
        rest, err = proc.communicate(timeout=TIMEOUT)
    finally:
        proc.kill()
    lines = (first + rest).split(b"\n")
    assert lines[-1] == b"" and all(orjson.loads(line) for line in lines[:-1])
    assert proc.returncode == 130
    assert err.decode().splitlines() == [
        "turnlens export: interrupted; the output ends with the last whole row written"
    ]


def test_ctrl_c_toon_header_counts_rows_written(tmp_path):
    import signal
    import time

    import toon_format

    (tmp_path / "run.jsonl").write_text(
        "".join(f'{{"eval_id":"c{i}","score":1,"candidate_answer":"{"a " * 50}"}}\n' for i in range(4000))
    )
    for delay in (0.6, 1.2):
        proc = subprocess.Popen(
            [sys.executable, "-m", "turnlens", "export", "run.jsonl", "--format", "toon"],
            cwd=tmp_path,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        time.sleep(delay)
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=TIMEOUT)
        if proc.returncode == -signal.SIGINT and not out and not err:
            continue  # (a loaded machine: the key came while the interpreter was starting, before any handler)
        assert proc.returncode in (0, 130) and b"Traceback" not in err
        if out:
            text = out.decode()
            count = int(text[text.index("[") + 1 : text.index("]")])
            assert len(toon_format.decode(text)["results"]) == count


def test_ctrl_c_while_modules_load_is_held_until_they_have():
    """A KeyboardInterrupt raised inside a native module's initialisation can crash the interpreter (seen as
    SIGSEGV with orjson under load): the command holds Ctrl-C while it imports and raises it after."""
    import signal

    from turnlens.tui.cli import ctrl_c_held

    before = signal.getsignal(signal.SIGINT)
    reached_the_end_of_the_block = False
    with pytest.raises(KeyboardInterrupt):
        with ctrl_c_held():
            os.kill(os.getpid(), signal.SIGINT)
            for _ in range(1000):  # the handler runs between bytecodes: give it many chances
                pass
            reached_the_end_of_the_block = True
    assert reached_the_end_of_the_block
    assert signal.getsignal(signal.SIGINT) is before


# --- results files: lone surrogates, no usable record, kind by content -----------------------------------------


def test_lone_surrogate_in_yaml_results_every_format(tmp_path):
    run = tmp_path / "run.yaml"
    run.write_text('eval_id: a\nscore: 1\ncandidate_answer: "x\\ud83d y"\n---\neval_id: b\nscore: 0\n')
    for fmt in ("jsonl", "toon", "markdown"):
        proc = run_cli("export", "run.yaml", "--format", fmt, cwd=tmp_path)
        no_traceback(proc)
        text = proc.stdout.decode("utf-8")  # valid UTF-8
        assert proc.returncode == 0 and ("\\ud83d" in text or "x\ufffd y" in text), fmt
        assert ('"b"' if fmt == "jsonl" else "eval_id: b" if fmt == "toon" else "## b") in text, fmt


def test_results_without_usable_record_exit_1(tmp_path):
    (tmp_path / "empty.jsonl").write_text("{}\n" * 5000)
    (tmp_path / "blank.jsonl").write_text("")
    (tmp_path / "u16.jsonl").write_bytes('{"eval_id": "a", "score": 1}\n'.encode("utf-16"))
    for name, words in (("empty.jsonl", "no usable record"), ("blank.jsonl", "empty"), ("u16.jsonl", "UTF-16")):
        proc = run_cli("export", name, cwd=tmp_path)  # a `{}`-only file is results, as the app reads it
        no_traceback(proc)
        err = proc.stderr.decode()
        assert proc.returncode == 1 and words in err and len(err.splitlines()) <= 22, err


def test_kind_by_content_matches_the_app(tmp_path):
    from turnlens.formatting.inputs import path_kind

    (tmp_path / "empty.jsonl").write_text("{}\n{}\n")
    (tmp_path / "weird.yaml").write_text("a: 1\n")
    eval_file(tmp_path, ("a", []))
    for name, results in (("empty.jsonl", True), ("weird.yaml", False), ("e.yaml", False)):
        assert path_kind(str(tmp_path / name)).is_results == results


def test_millions_of_empty_records_index_nothing(tmp_path):
    from turnlens.formatting.results.index import ResultsFile

    (tmp_path / "empty.jsonl").write_bytes(b"{}\n" * 300_000)
    results = ResultsFile(str(tmp_path / "empty.jsonl"))
    for _ in results.scan():
        pass
    assert results.count == 0 and results.problem_count == 300_000 and len(results.diagnostics) <= 1000
    assert len(results.starts) == 0


# --- a results file that gets shorter while it is read: no SIGBUS ------------------------------------------------

_SHRINK = """
import os, sys
from turnlens.formatting.results.index import ResultsFile
path = sys.argv[1]
results = ResultsFile(path)
steps = results.scan(batch_seconds=0)
next(steps)
os.truncate(path, 100)  # cut while indexing
for _ in steps:
    pass
print("scan", results.count, bool(results.changed))
with open(path, "wb") as fh:
    fh.write(b"")  # and cut again once indexed
record = results.record(results.count - 1)
print("record", record.diagnostics[0].message)
print("search", sum(results.find_text("case") or []))
"""


def test_file_cut_while_read_is_reported_not_sigbus(tmp_path):
    run = tmp_path / "run.jsonl"
    run.write_text("".join(f'{{"eval_id":"case-{i}","score":1,"pad":"{"x" * 3000}"}}\n' for i in range(20_000)))
    proc = subprocess.run([sys.executable, "-c", _SHRINK, str(run)], capture_output=True, timeout=TIMEOUT)
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]  # SIGBUS: -7
    out = proc.stdout.decode().splitlines()
    assert out[0].startswith("scan ") and out[0].endswith(" True")
    assert out[1].startswith("record cannot read this record: the file cha") and out[2] == "search 0"


# --- the app: a terminal or nothing, FIFOs in folders and live reload, tracebacks without locals ------------------


def test_app_without_a_terminal_says_so(tmp_path):
    eval_file(tmp_path, ("a", []))
    proc = run_cli("e.yaml", cwd=tmp_path)  # stdin /dev/null, stdout a pipe
    assert proc.returncode == 2 and b"needs a terminal" in proc.stderr and proc.stdout == b""


def test_fifo_named_yaml_in_a_folder_and_eval_file_swapped_for_a_fifo(tmp_path):
    from turnlens.tui.session import Session

    path = eval_file(tmp_path, ("a", []))
    os.mkfifo(tmp_path / "trap.yaml")
    session = Session([str(tmp_path)], repo_root=str(tmp_path))  # would block reading the FIFO
    assert [os.path.basename(f.path) for f in session.files] == ["e.yaml"]
    session.load_all() if hasattr(session, "load_all") else session.apply(0, session.load(0))
    path.unlink()
    os.mkfifo(path)  # replaced by a FIFO while watched: the reload is a refusal, the last good load stays
    reloaded = session.load(0)
    assert reloaded.error is not None and "FIFO" in reloaded.error.message
    session.apply(0, reloaded)
    assert session.files[0].good is not None and session.files[0].stale


def test_crash_report_has_no_locals():
    from rich.console import Console

    from turnlens.tui.app import TurnlensApp

    app = TurnlensApp(lambda: None)
    app._close_messages_no_wait = lambda: None  # type: ignore[method-assign]

    def boom():
        secret_local = "-".join(["HIDDEN", "VALUE"])  # noqa: F841 - what a locals display would print
        raise ValueError("x")

    try:
        boom()
    except ValueError:
        app._fatal_error()
    console = Console(record=True, width=120, file=open(os.devnull, "w"))
    for renderable in app._exit_renderables:
        console.print(renderable)
    text = console.export_text()
    assert "ValueError" in text and "HIDDEN-VALUE" not in text


def test_sanitize_ascii_shortcut_and_joined_lines_agree_with_the_full_pass(monkeypatch):
    """sanitize() takes a shortcut for ASCII text, and stderr's messages are sanitised joined: both must give what
    the character-by-character pass gives, on every ASCII character and on lines that end or start with a joiner."""
    from turnlens.formatting import sanitize as sanitize_module
    from turnlens.formatting.sanitize import sanitize

    def full(text: str) -> str:
        return sanitize_module._UNSAFE.sub(lambda m: sanitize_module._picture(m.group()), text)

    every_ascii = "".join(chr(c) for c in range(128))
    assert sanitize(every_ascii) == full(every_ascii)
    assert sanitize("plain\ttext\nwith lines") == "plain\ttext\nwith lines"
    for ch in [*map(chr, range(32)), "\x7f"]:
        assert sanitize(f"a{ch}b") == full(f"a{ch}b")
    lines = ["\u200dstart", "end\u200d", "\U0001f468\u200d\U0001f469", "x\x1b[31m", "\u202eevil", "ok", ""]
    assert sanitize("".join(line + "\n" for line in lines)) == "".join(sanitize(line) + "\n" for line in lines)
    # a long text is searched a piece at a time: an unsafe character anywhere, on either side of a piece's edge
    piece = 4096
    monkeypatch.setattr(sanitize_module, "_ASCII_PIECE", piece)
    long_text = ("A log line\twith a tab.\n" * (2 * piece // 24 + 1))[: 2 * piece + 10]
    assert len(long_text) > sanitize_module._LONG_ASCII and sanitize(long_text) is long_text
    for at in (0, piece - 1, piece, 2 * piece + 9):
        for ch in [*map(chr, range(32)), "\x7f"]:
            text = long_text[:at] + ch + long_text[at + 1 :]
            assert sanitize(text) == full(text) != text or ch in "\t\n"
    # many unsafe characters, in and across pieces: replaced in one join, or past MAX_FOUND by one pass
    spaced = "".join(long_text[at] if at % 7 else chr(at % 32) for at in range(len(long_text)))
    many = spaced.replace("\x1b", "\x7f", 3)
    assert sanitize(many) == full(many)
    monkeypatch.setattr(sanitize_module, "MAX_FOUND", 10)
    assert sanitize(many) == full(many)


# --- one sanitiser: markdown export, stderr, the app ------------------------------------------------------------


def test_one_sanitiser_everywhere(tmp_path):
    from turnlens.formatting.results.record import visible_text
    from turnlens.formatting.sanitize import sanitize, sanitize_line
    from turnlens.tui import render

    hostile = "a\x1b]0;title\x07b\x1b]52;c;eA==\x07 \u202eevil\u202c z\u200bw \U000e0041 \x9b \ud83d"
    clean = sanitize(hostile)
    assert not any(ch in clean for ch in "\x1b\x07\u202e\u202c\u200b\x9b\U000e0041")
    assert visible_text is sanitize and render.sanitize(hostile) == clean
    assert "\n" not in sanitize_line("a\nb")
    run = tmp_path / "run.jsonl"
    run.write_text(
        '{"eval_id":"id\\u001b]0;pwn\\u0007\\nforged","dataset":"d\\u001b[2J","target":"t\\u202e",'
        '"timestamp":"\\u001b]52;c;x\\u0007","score":1,"candidate_answer":"ok\\u001b[31m",'
        '"evaluator_results":[{"name":"n\\u001b]0;x\\u0007","type":"t\\u0007","score":1}]}\n'
    )
    bad_name = tmp_path / "r\x1b[2J.jsonl"
    bad_name.write_bytes(run.read_bytes())
    proc = run_cli("export", run.name, bad_name.name, "--format", "markdown", cwd=tmp_path)
    assert proc.returncode == 0
    for ch in ("\x1b", "\x07", "\u202e"):
        assert ch.encode() not in proc.stdout
    assert b"## id" in proc.stdout and b"\n## forged" not in proc.stdout  # a line break cannot forge a heading


def test_stderr_messages_are_escaped(tmp_path):
    path = eval_file(tmp_path, ("evil\x1b]0;retitled\x07", ["missing\x1b[2J.txt"]))
    text = path.read_text().replace("\x1b", "\\e").replace("\x07", "\\a")
    text = text.replace("id: evil", 'id: "evil').replace("retitled\\a", 'retitled\\a"')
    text = text.replace("value: missing\\e[2J.txt", 'value: "missing\\e[2J.txt"')
    path.write_text(text)
    proc = run_cli("export", "e.yaml", cwd=tmp_path)
    assert b"missing" in proc.stderr and b"\x1b" not in proc.stderr and b"\x07" not in proc.stderr


class TestExtglobBudget:
    """Nested extglob alternatives backtrack exponentially: matching is bounded in time, a good pattern unaffected."""

    def test_backtracking_pattern_is_dropped_within_its_budget(self, monkeypatch):
        import time

        from turnlens.formatting.evals import globs

        monkeypatch.setattr(globs, "EXTGLOB_BUDGET", 0.01)
        monkeypatch.setattr(globs, "EXTGLOB_RETRY_BUDGET", 0.05)
        pattern = "**/+(a|aa)c.md"
        path = "docs/" + "a" * 60 + "b.md"  # 2**60 ways to split the a's, none ending in c
        started = time.monotonic()
        assert globs._compile(pattern).match(path) is False
        assert time.monotonic() - started < 2
        assert pattern in globs.slow_patterns()

    def test_a_good_extglob_still_matches(self):
        from turnlens.formatting.evals import globs

        assert globs._compile("**/+(a|b)c.md").match("docs/ababc.md") is True
        assert globs._compile("**/+(a|b)c.md").match("docs/abxc.md") is False


# --- a file outside the repository root is embedded as AgentV sends it, but marked ------------------------------


def test_file_outside_the_repo_root_is_embedded_and_marked_015(tmp_path):
    from turnlens.formatting.dialects.format import format_case

    repo = tmp_path / "repo"
    repo.mkdir()
    (tmp_path / "secret.txt").write_text("s3cret\n")
    path = eval_file(repo, ("c", ["../secret.txt"]))
    ev = load_eval_file(path, repo_root=str(repo), cwd=str(repo))
    case = ev.cases[0]
    assert any("outside the repository root" in d.message and "../secret.txt" in d.message for d in case.diagnostics)
    formatted = format_case(case, ev, "agentv")
    assert "s3cret" in formatted.lm.question  # still sent exactly as AgentV would
    details = [f.detail for f in formatted.explanation.segments if "outside the repository root" in f.detail]
    assert details and str(tmp_path / "secret.txt") in details[0]
    proc = run_cli("export", str(path), cwd=repo)
    no_traceback(proc)
    assert proc.returncode == 0
    assert b"e.yaml:10: File outside the repository root: ../secret.txt" in proc.stderr


def test_file_outside_the_repo_root_is_marked_agentv4(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / ".git").mkdir()
    (tmp_path / "secret.txt").write_text("s3cret\n")
    path = repo / "x.eval.yaml"
    path.write_text(
        "tests:\n  - id: c\n    criteria: ok\n    input:\n      - role: user\n        content:\n"
        "          - type: text\n            value: look\n          - type: file\n            value: ../secret.txt\n"
    )
    proc = run_cli("export", str(path), cwd=repo)
    no_traceback(proc)
    assert proc.returncode == 0, proc.stderr
    assert b"s3cret" in proc.stdout
    assert re.search(rb"x\.eval\.yaml:\d+: File outside the repository root: \.\./secret\.txt \(reads ", proc.stderr)


# --- folder mode names the candidate files it could not read or sniff ------------------------------------------


def test_folder_export_names_unreadable_and_utf16_candidates(tmp_path):
    from turnlens.formatting.dialects.discover import discover_eval_files

    (tmp_path / ".git").mkdir()
    good = eval_file(tmp_path, ("c", []), name="good.yaml")
    (tmp_path / "wide.yaml").write_bytes("$schema: agentv-eval-v2\nevalcases: []\n".encode("utf-16"))
    (tmp_path / "config.yaml").write_text("just: a config\n")  # not an eval file: stays silently out
    os.mkfifo(tmp_path / "pipe.jsonl")
    unread: list[tuple[str, str]] = []
    assert discover_eval_files(str(tmp_path), str(tmp_path), unread=unread) == [str(good)]
    named = {os.path.basename(p): reason for p, reason in unread}
    assert set(named) == {"wide.yaml", "pipe.jsonl"}
    assert "UTF-16" in named["wide.yaml"]
    proc = run_cli("export", ".", cwd=tmp_path)
    no_traceback(proc)
    err = proc.stderr.decode()
    assert "wide.yaml: not read" in err and "UTF-16" in err and "pipe.jsonl: not read" in err
    assert "config.yaml" not in err


def test_inspector_folder_lists_unreadable_candidates_as_warnings(tmp_path):
    from turnlens.tui.session import Session

    (tmp_path / ".git").mkdir()
    eval_file(tmp_path, ("c", []), name="good.yaml")
    (tmp_path / "wide.yml").write_bytes("$schema: agentv-eval-v2\n".encode("utf-32"))
    (tmp_path / "config.yaml").write_text("just: a config\n")
    session = Session([str(tmp_path)], repo_root=str(tmp_path), cwd=str(tmp_path))
    assert [os.path.basename(f.path) for f in session.files] == ["good.yaml"]
    warnings = [d for d in session.file_warnings() if "not read" in d.message]
    assert [os.path.basename(d.file) for d in warnings] == ["wide.yml"] and "UTF-32" in warnings[0].message
    (tmp_path / "wide.yml").write_text("just: fixed, not an eval file\n")
    session.rescan()
    assert not [d for d in session.file_warnings() if "not read" in d.message]


def test_alias_amplification_is_bounded_by_the_expanded_size(tmp_path):
    """One 1 MB string aliased 60 times: refused by the expanded size under a 4 MiB limit, quickly, named by line."""
    big = "x" * 1_000_000
    aliases = ", ".join(["*big"] * 60)
    (tmp_path / "e.yaml").write_text(
        f'$schema: agentv-eval-v2\nbig: &big "{big}"\nevalcases:\n  - id: a\n    outcome: o\n'
        f"    input_messages:\n      - role: user\n        content: [{aliases}]\n",
        encoding="utf-8",
    )
    done = subprocess.run(
        [sys.executable, "-m", "turnlens", "export", "e.yaml", "--repo-root", ".", "--max-file-size", "4M"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1 and done.stdout == ""
    assert "e.yaml:2: aliases expand the data past 4.0 MiB" in done.stderr
    assert "Traceback" not in done.stderr


def test_many_guideline_patterns_are_bounded():
    """100,000 patterns: literal ones are a set lookup, wildcard ones past the cap are not used (and counted)."""
    import time

    from turnlens.formatting.evals import globs

    patterns = tuple(f"docs/p{n}.md" for n in range(50_000)) + tuple(f"**/q{n}*.md" for n in range(50_000))
    started = time.monotonic()
    assert globs.is_guideline("docs/p49999.md", patterns)
    assert not globs.is_guideline("docs/none.md", patterns)
    assert globs.unused_patterns(patterns) == 50_000 - globs.MAX_MAGIC_PATTERNS
    assert time.monotonic() - started < 30


# --- a run folder is untrusted: its artifacts are read only from inside it (issue 22.1) -----------------------------

_ROW = (
    '{"timestamp":"2026-01-01T00:00:00Z","test_id":"%s","suite":"s","score":1,"target":"t","execution_status":"ok"%s}'
)


def hostile_run(tmp_path: Path) -> Path:
    """A run folder whose rows name files outside it every way there is; each outside file holds `SECRET-n`."""
    (tmp_path / ".env").write_text("TOKEN=SECRET-1\n")  # in the working folder: never a fallback
    (tmp_path / "secret.txt").write_text("SECRET-2\n")
    (tmp_path / "out" / "outputs").mkdir(parents=True)
    (tmp_path / "out" / "outputs" / "answer.md").write_text("SECRET-3\n")
    run = tmp_path / "run"
    (run / "s" / "ok" / "outputs").mkdir(parents=True)
    (run / "s" / "ok" / "outputs" / "answer.md").write_text("the answer inside\n")
    (run / "s" / "link.md").symlink_to(tmp_path / "secret.txt")
    (run / "s" / "linked").mkdir()
    (run / "s" / "linked" / "outputs").symlink_to(tmp_path / "out" / "outputs")  # the conventional place, a link out
    (run / "s" / "away").symlink_to(tmp_path / "out")  # the test's folder itself, a link out
    rows = [
        _ROW % ("abs", f',"answer_path":"{tmp_path / "secret.txt"}","input_path":"/proc/self/environ"'),
        _ROW % ("up", ',"answer_path":"../secret.txt","input_path":".env"'),
        _ROW % ("dir", ',"artifact_dir":"../out","answer_path":"s/link.md"'),
        _ROW % ("linked", ""),
        _ROW % ("away", ""),
        _ROW % ("ok", ',"answer_path":"s/ok/outputs/answer.md"'),
    ]
    (run / "index.jsonl").write_text("\n".join(rows) + "\n")
    return run


@pytest.mark.parametrize("fmt", ["jsonl", "markdown", "toon"])
def test_run_folder_artifacts_never_read_outside_it(tmp_path, fmt):
    hostile_run(tmp_path)
    proc = run_cli("export", "run", "--format", fmt, cwd=tmp_path, env={"SECRET_ENV": "SECRET-4"})
    no_traceback(proc)
    assert proc.returncode == 0 and b"the answer inside" in proc.stdout
    assert b"SECRET-" not in proc.stdout, proc.stdout.decode()
    warnings = proc.stderr.decode().splitlines()
    expected = [
        "run/index.jsonl:1: test 'abs': answer_path",
        "run/index.jsonl:1: test 'abs': input_path '/proc/self/environ' is not a path inside the run folder: not read",
        "run/index.jsonl:2: test 'up': answer_path '../secret.txt' leads outside the run folder: not read",
        "run/index.jsonl:3: test 'dir': artifact_dir '../out' leads outside the run folder: not read",
        "run/index.jsonl:3: test 'dir': answer_path 's/link.md' leads outside the run folder: not read",
        "run/index.jsonl:4: test 'linked': answer 's/linked/outputs/answer.md' leads outside the run folder",
        "run/index.jsonl:5: test 'away': the test's folder 's/away' leads outside the run folder: not read",
    ]
    assert len(warnings) == len(expected), warnings
    for line, start in zip(warnings, expected):
        assert line.startswith("turnlens export: " + start), line


async def test_run_folder_artifacts_in_the_results_view(tmp_path, monkeypatch):
    """The detail of each result shows no outside file, and its artifacts pane says which row named what."""
    from textual.widgets import Static
    from tui_helpers import wait_for_idle

    from turnlens.tui.app import make_app

    run = hostile_run(tmp_path)
    monkeypatch.chdir(tmp_path)
    app = make_app([str(run)], watch=False)
    seen = set()
    async with app.run_test(size=(140, 36)) as pilot:
        await wait_for_idle(pilot)
        await pilot.press("enter")
        for _ in range(6):
            await wait_for_idle(pilot)
            test_id = app.screen.record.eval_id
            seen.add(test_id)
            shown = "\n".join(str(widget.render()) for widget in app.screen.query(Static))
            assert "SECRET-" not in shown, (test_id, shown)
            timing = str(app.screen.query_one("#timing-text", Static).render())
            if test_id == "ok":
                assert "outside" not in timing
            else:
                assert "index.jsonl:" in timing and "the run folder: not read" in timing, timing
            await pilot.press("right_square_bracket")  # the next result
    assert seen == {"abs", "up", "dir", "linked", "away", "ok"}


# --- the app in a real terminal: a missing editor, signals, `q` always quits (issue 22.2, 22.6) ---------------------

FIXTURE_CASES = Path(__file__).parents[1] / "fixtures" / "tui" / "cases.yaml"
ALT_SCREEN_ON, ALT_SCREEN_OFF = b"\x1b[?1049h", b"\x1b[?1049l"


class Terminal:
    """`turnlens ARGS` in a pseudo-terminal (120x40) as a user runs it: keys in, screen bytes out, waits bounded."""

    def __init__(self, *args: str, cwd: Path, env: dict | None = None):
        import fcntl
        import pty
        import struct
        import termios

        full_env = {k: v for k, v in os.environ.items() if k not in ("VISUAL", "TURNLENS_MAX_FILE_SIZE")}
        full_env |= {"TERM": "xterm-256color", "COLUMNS": "120", "LINES": "40"} | (env or {})
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # pragma: no cover - the child
            try:
                os.chdir(cwd)
                os.execve(sys.executable, [sys.executable, "-m", "turnlens", *args], full_env)
            finally:
                os._exit(127)
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
        self.output = b""
        self.status: int | None = None

    def read(self, until: bytes | None = None, timeout: float = TIMEOUT) -> bytes:
        """What the app wrote from now until `until` shows (or the app ends, or the time is up)."""
        import select
        import time

        start, deadline = len(self.output), time.monotonic() + timeout
        while time.monotonic() < deadline:
            ready, _, _ = select.select([self.fd], [], [], 0.05)
            if ready:
                try:
                    chunk = os.read(self.fd, 1 << 16)
                except OSError:
                    chunk = b""
                if not chunk:
                    break
                self.output += chunk
                if until is not None and until in self.output[start:]:
                    break
        return self.output[start:]

    def plain(self, data: bytes) -> str:
        return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", data.decode(errors="replace"))

    def said(self, data: bytes) -> str:
        """The plain text with a notification's border and line breaks read as spaces: a sentence wrapped in a
        toast reads whole."""
        return " ".join(self.plain(data).replace("▌", " ").split())

    def read_said(self, until: str, timeout: float = TIMEOUT) -> bytes:
        """What the app wrote from now until `until` is said (see `said`), or the time is up."""
        import time

        deadline, data = time.monotonic() + timeout, b""
        while until not in self.said(data) and time.monotonic() < deadline:
            data += self.read(timeout=min(0.2, max(0.0, deadline - time.monotonic())))
        return data

    def press(self, keys: bytes) -> None:
        os.write(self.fd, keys)

    def wait(self, timeout: float = 10) -> int | None:
        """The exit status (negative: the signal), or None while it still runs after `timeout` seconds."""
        import time

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.read(timeout=0.1)
            done, status = os.waitpid(self.pid, os.WNOHANG)
            if done:
                self.status = os.waitstatus_to_exitcode(status)
                return self.status
        return None

    def close(self) -> None:
        if self.status is None:
            os.kill(self.pid, 9)
            os.waitpid(self.pid, 0)
        os.close(self.fd)


@pytest.fixture
def terminal():
    opened: list[Terminal] = []

    def start(*args: str, cwd: Path, env: dict | None = None) -> Terminal:
        opened.append(Terminal(*args, cwd=cwd, env=env))
        return opened[-1]

    yield start
    for term in opened:
        term.close()


@pytest.mark.parametrize(
    "editor, reason",
    [
        ("nonexistent-editor-xyz", b"No such file or directory"),  # EDITOR=code over SSH
        ("{tmp}", b"Permission denied"),  # a folder
        ("{tmp}/no/such/editor", b"No such file or directory"),
        ('vim "x', b"not a command line"),  # an unbalanced quote: never suspended at all
    ],
)
def test_missing_editor_resumes_the_app_and_says_so(tmp_path, terminal, editor, reason):
    """`o` with $EDITOR naming a missing program, a folder or a bad path: the real suspend (Textual's), then the app
    is back (alternate screen again), says why, and `q` quits."""
    term = terminal(str(FIXTURE_CASES), cwd=tmp_path, env={"EDITOR": editor.format(tmp=tmp_path)})
    assert b"several-turns" in term.read(until=b"several-turns")
    term.read(timeout=0.5)  # settled
    term.press(b"o")
    # (the toast wraps its sentence: read as said, not as the bytes, which a line break may cut)
    after = term.read_said(reason.decode(), timeout=10)
    assert after.count(ALT_SCREEN_ON) >= (not editor.startswith("vim")), after[-2000:]  # suspended, then resumed
    said = term.said(after)
    assert "Could not start the editor:" in said, said[-2000:]
    assert reason.decode() in said, said[-2000:]
    term.press(b"q")
    assert term.wait() == 0
    assert term.output.rfind(ALT_SCREEN_OFF) > term.output.rfind(ALT_SCREEN_ON)  # the terminal is left restored


# --- discovery stays in the tree it was given: no link out, never /proc or /sys, any depth (issue 22.4, 22.8) -------


def test_tree_walk_follows_links_only_inside_and_never_recurses(tmp_path):
    from turnlens.formatting.walk import TreeWalk

    top = tmp_path / "top"
    (top / "a" / "b").mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    (top / "a" / "inner").symlink_to(top / "a" / "b")  # inside: followed (once: b is the same folder)
    (top / "a" / "loop").symlink_to(top)  # a loop: the top again, not walked twice
    (top / "root").symlink_to("/")
    (top / "out").symlink_to(tmp_path / "outside")
    (top / "procs").symlink_to("/proc/self")
    walk = TreeWalk(str(top))
    walked = [os.path.relpath(folder, top) for folder, _subfolders, _files in walk]
    assert walked == [".", "a", "a/b"]  # a/inner is a/b again
    cuts = dict((os.path.relpath(path, top), why) for path, why in walk.report())
    assert cuts == {
        "out": f"a link to {os.path.realpath(tmp_path / 'outside')}, outside the folder searched: not followed",
        "procs": "a link into /proc: not followed",
        "root": "a link to /, outside the folder searched: not followed",
    }
    proc = TreeWalk("/proc/self")
    assert list(proc) == [] and proc.report() == [("/proc/self", "in /proc: not searched")]
    outside_bound = TreeWalk(str(top), bounds=[str(tmp_path)])  # the repository root: a link into it is followed
    assert "out" in [os.path.relpath(folder, top) for folder, _s, _f in outside_bound]


def test_tree_walk_leaves_out_a_file_link_that_leads_out(tmp_path):
    """A link to a file is read only when it leads inside the folders searched, as a link to a folder is followed:
    `evals/x.eval.yaml -> /proc/self/environ` or a file elsewhere on the machine is named, not read."""
    from turnlens.formatting.walk import TreeWalk

    top = tmp_path / "top"
    (top / "shared").mkdir(parents=True)
    (top / "shared" / "in.yaml").write_text("tests: []\n")
    (tmp_path / "outside.yaml").write_text("tests: []\n")
    (top / "in.eval.yaml").symlink_to(top / "shared" / "in.yaml")
    (top / "out.eval.yaml").symlink_to(tmp_path / "outside.yaml")
    (top / "env.eval.yaml").symlink_to("/proc/self/environ")
    walk = TreeWalk(str(top))
    files = {os.path.relpath(os.path.join(folder, name), top) for folder, _s, names in walk for name in names}
    assert files == {"in.eval.yaml", "shared/in.yaml"}
    cuts = dict((os.path.relpath(path, top), why) for path, why in walk.report())
    outside = os.path.realpath(tmp_path / "outside.yaml")
    assert cuts == {
        "env.eval.yaml": "a link into /proc: not read",
        "out.eval.yaml": f"a link to {outside}, outside the folder searched: not read",
    }
    inside_bound = TreeWalk(str(top), bounds=[str(tmp_path)])  # the repository root: a link into it is read
    assert "out.eval.yaml" in [name for _folder, _s, names in inside_bound for name in names]


def test_a_folder_sniffed_reads_only_its_regular_files(tmp_path):
    """Discovery reads a regular file's head without the stat read_head makes first only for what the folder's
    listing says is a regular file (not a link): a link, a FIFO or a device is sniffed as before (by its path: stat
    first) or refused, never blocking; a file replaced since by a link or a FIFO is refused, never followed or
    read."""
    from turnlens.formatting.dialects.discover import discover_eval_files
    from turnlens.formatting.evals.files import FileReadError, NotRegularFile, read_head
    from turnlens.formatting.walk import TreeWalk

    v2 = "$schema: agentv-eval-v2\nevalcases: []\n"
    evals = tmp_path / "evals"
    evals.mkdir()
    (evals / "a.yaml").write_text(v2)
    (tmp_path / "v2.txt").write_text(v2)
    (evals / "b.yaml").symlink_to(tmp_path / "v2.txt")
    (evals / "c.yaml").symlink_to("/dev/zero")
    os.mkfifo(evals / "d.yaml")
    walk = TreeWalk(str(evals))
    _folder, _subfolders, files = next(iter(walk))
    assert [name for name in files if walk.is_regular_file(name)] == ["a.yaml"]
    found = discover_eval_files(str(evals), str(tmp_path))
    assert [os.path.basename(p) for p in found] == ["a.yaml", "b.yaml"]
    # as if each had been listed as a regular file and replaced since
    with pytest.raises(NotRegularFile):
        read_head(str(evals / "d.yaml"), 8192, listed_regular=True)
    with pytest.raises(FileReadError, match="links"):  # ELOOP: "Too many levels of symbolic links"
        read_head(str(evals / "b.yaml"), 8192, listed_regular=True)
    assert read_head(str(evals / "a.yaml"), 7, listed_regular=True) == b"$schema"


@pytest.fixture
def deep_tree(tmp_path: Path):
    """make(tmp_path, levels): evals/a/a/…/a (`levels` deep, under PATH_MAX) with an eval file at the top and one at
    the bottom; removed at the end level by level (pytest's own clean-up recurses, and overflows on it)."""
    yield _deep_tree
    evals = tmp_path / "evals"
    if not evals.exists():
        return
    back = os.getcwd()
    os.chdir(evals)
    try:
        depth = 0
        while os.path.isdir("a") and not os.path.islink("a"):
            os.chdir("a")
            depth += 1
        for _ in range(depth):
            for name in os.listdir("."):
                os.unlink(name) if not os.path.isdir(name) or os.path.islink(name) else os.rmdir(name)
            os.chdir("..")
        for name in os.listdir("."):
            if os.path.islink(name) or not os.path.isdir(name):
                os.unlink(name)
        os.rmdir("a") if os.path.isdir("a") else None
    finally:
        os.chdir(back)


def _deep_tree(tmp_path: Path, levels: int = 1100) -> Path:
    evals = tmp_path / "evals"
    evals.mkdir()
    (tmp_path / ".git").mkdir()
    (evals / "top.eval.yaml").write_text("tests:\n  - id: top\n    criteria: c\n    input: hi\n")
    fd = os.open(evals, os.O_RDONLY)
    try:
        for _ in range(levels):  # by descriptor: the path itself would pass PATH_MAX for os.mkdir
            os.mkdir("a", dir_fd=fd)
            fd_next = os.open("a", os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = fd_next
        with open(os.open("deep.eval.yaml", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd), "w") as out:
            out.write("tests:\n  - id: deep\n    criteria: c\n    input: hi\n")
    finally:
        os.close(fd)
    return evals


def test_deep_tree_export_is_cut_with_a_warning(tmp_path, deep_tree):
    from turnlens.formatting.walk import MAX_DEPTH

    deep_tree(tmp_path)
    proc = run_cli("export", "evals", cwd=tmp_path)
    no_traceback(proc)
    assert proc.returncode == 0 and b'"id":"top"' in proc.stdout.replace(b" ", b"")
    warning = f": more than {MAX_DEPTH} levels deep: its subfolders are not searched"
    assert "evals/" + "a/" * (MAX_DEPTH - 1) + "a" + warning in proc.stderr.decode()


async def test_deep_tree_in_the_app(tmp_path, monkeypatch, deep_tree):
    from tui_helpers import wait_for_idle

    from turnlens.tui.app import make_app

    evals = deep_tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    app = make_app([str(evals)], repo_root=str(tmp_path), watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_idle(pilot)
        session = app.screen.session
        assert [os.path.basename(f.path) for f in session.files] == ["top.eval.yaml"]
        assert any("levels deep" in d.message for d in session.file_warnings())
        await pilot.press("q")


def test_a_link_to_root_is_not_followed_by_export(tmp_path, deep_tree):
    evals = deep_tree(tmp_path, levels=1)
    (evals / "a" / "root").symlink_to("/")
    (evals / "a" / "procs").symlink_to("/proc")
    proc = run_cli("export", "evals", cwd=tmp_path)
    no_traceback(proc)
    assert proc.returncode == 0 and len(proc.stdout.splitlines()) == 2  # top and deep, nothing under /
    stderr = proc.stderr.decode()
    assert "evals/a/root: a link to /, outside the folder searched: not followed" in stderr
    assert "evals/a/procs: a link into /proc: not followed" in stderr
    proc = run_cli("export", "/proc/self", cwd=tmp_path)
    no_traceback(proc)
    assert proc.returncode == 1 and "/proc/self: in /proc: not searched" in proc.stderr.decode()


@pytest.mark.parametrize("args", [["/proc/self"], ["--evals", "/proc", "{results}"], ["{root_link}"]])
def test_the_app_on_proc_and_on_a_link_to_root_quits_on_q(tmp_path, terminal, deep_tree, args):
    results = Path(__file__).parents[1] / "fixtures" / "results" / "run-a.jsonl"
    evals = deep_tree(tmp_path, levels=1)
    (evals / "a" / "root").symlink_to("/")
    args = [a.format(results=results, root_link=evals) for a in args]
    term = terminal(*args, cwd=tmp_path)
    shown = term.plain(term.read(until=b"Quit", timeout=TIMEOUT))
    assert "Quit" in shown, shown[-2000:]
    term.read(timeout=0.5)
    term.press(b"q")
    assert term.wait() == 0
    assert term.output.rfind(ALT_SCREEN_OFF) > term.output.rfind(ALT_SCREEN_ON)


# --- more runs than are listed: the newest kept, the rest counted; export drops none (issue 22.12) ------------------


def many_runs(folder: Path, count: int) -> None:
    for n in range(count):
        run = folder / "runs" / "default" / f"2026-01-01T00-{n // 60:02d}-{n % 60:02d}-000Z"
        run.mkdir(parents=True)
        (run / "index.jsonl").write_text(_ROW % (f"t{n}", "") + "\n")


def test_more_runs_than_listed_keeps_the_newest(tmp_path, monkeypatch):
    from turnlens.formatting.results import discover

    many_runs(tmp_path, 7)
    monkeypatch.setattr(discover, "MAX_RUNS", 3)
    runs, problems = discover.expand_results_paths([str(tmp_path / "runs")], limit=3)
    assert [r.name for r in runs] == [f"default/2026-01-01T00-00-0{n}-000Z" for n in (6, 5, 4)]
    assert [p.message for p in problems] == ["7 runs: the newest 3 are listed, 4 older ones left out"]
    watcher = discover.RunWatcher(str(tmp_path / "runs"), [r.path for r in runs])
    assert watcher.poll() == []  # the older ones left out are not new runs
    many_runs(tmp_path / "later", 0)
    newest = tmp_path / "runs" / "default" / "2026-01-01T01-00-00-000Z"
    newest.mkdir()
    (newest / "index.jsonl").write_text(_ROW % ("new", "") + "\n")
    assert [r.name for r in watcher.poll()] == ["default/2026-01-01T01-00-00-000Z"]


def test_export_of_more_runs_than_file_descriptors_drops_no_row(tmp_path):
    import resource

    many_runs(tmp_path, 150)

    def few_descriptors():
        resource.setrlimit(resource.RLIMIT_NOFILE, (100, 100))

    proc = run_cli("export", "runs", cwd=tmp_path, preexec_fn=few_descriptors)
    no_traceback(proc)
    assert proc.returncode == 0 and len(proc.stdout.splitlines()) == 150


# --- braces that expand past the limit: named by file and line, the rest kept (issue 22.5) -------------------------

_SUITE = "tests:\n  - id: a\n    criteria: c\n    input: hi\n"
_TOO_FAR = "file://cases/case-{1..1001}.yaml"
_ELEVEN_GROUPS = "**/" + "{a,b}" * 11 + ".eval.yaml"


def brace_project(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    (tmp_path / "evals" / "cases").mkdir(parents=True)
    (tmp_path / "evals" / "cases" / "case-1.yaml").write_text("- id: b\n  criteria: c\n  input: hi\n")
    (tmp_path / "evals" / "s.eval.yaml").write_text(_SUITE + f"  - {_TOO_FAR}\n  - file://cases/case-1.yaml\n")
    (tmp_path / ".agentv").mkdir()
    (tmp_path / ".agentv" / "config.yaml").write_text(f'eval_patterns:\n  - "{_ELEVEN_GROUPS}"\n  - "**/*.eval.yaml"\n')
    return tmp_path / "evals"


def test_brace_expansion_past_the_limit_in_export(tmp_path):
    from turnlens.formatting.evals.globs import BRACE_LIMIT

    brace_project(tmp_path)
    proc = run_cli("export", "evals", cwd=tmp_path)
    no_traceback(proc)
    assert proc.returncode == 0 and [b'"id":"a"' in r or b'"id":"b"' in r for r in proc.stdout.splitlines()] == [
        True,
        True,
    ]
    stderr = proc.stderr.decode()
    too_far = f"pattern expands to more than {BRACE_LIMIT:,} paths"
    assert f".agentv/config.yaml:2: {too_far}: {_ELEVEN_GROUPS} (left out)" in stderr
    assert f"evals/s.eval.yaml:5: {too_far}: {_TOO_FAR} (left out)" in stderr
    proc = run_cli("export", "evals/s.eval.yaml", cwd=tmp_path)  # the file named
    no_traceback(proc)
    assert proc.returncode == 0 and f"evals/s.eval.yaml:5: {too_far}" in proc.stderr.decode()


async def test_saving_a_brace_bomb_while_the_inspector_is_open(tmp_path, monkeypatch):
    """Saved while watched, in the suite and in the config: the session goes on, each line is named."""
    import asyncio

    from tui_helpers import wait_for_idle

    from turnlens.tui.app import make_app

    evals = brace_project(tmp_path)
    suite, config = evals / "s.eval.yaml", tmp_path / ".agentv" / "config.yaml"
    suite.write_text(_SUITE + "  - file://cases/case-1.yaml\n")
    config.write_text('eval_patterns:\n  - "**/*.eval.yaml"\n')
    monkeypatch.chdir(tmp_path)
    app = make_app([str(evals)], repo_root=str(tmp_path), watch=True)

    async def until(predicate, what: str) -> None:
        for _ in range(200):
            if predicate():
                return
            await pilot.pause(0.05)
        raise AssertionError(f"timed out waiting for {what}")

    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_idle(pilot)
        screen = app.screen
        await until(lambda: screen.watcher.running, "the watcher")
        warnings = lambda: " ".join(str(d) for d in screen.session.file_warnings())  # noqa: E731
        suite.write_text(_SUITE + f"  - {_TOO_FAR}\n  - file://cases/case-1.yaml\n")
        await until(lambda: "s.eval.yaml:5: pattern expands" in warnings(), "the suite's warning")
        config.write_text(f'eval_patterns:\n  - "{_ELEVEN_GROUPS}"\n  - "**/*.eval.yaml"\n')
        await asyncio.sleep(0.5)
        screen.session.rescan()  # (what the watcher does for a config change; explicit to be bounded)
        assert "config.yaml:2: pattern expands" in warnings()
        await pilot.press("q")
    assert app.return_code in (0, None)


@pytest.mark.parametrize("signum, status", [(15, 143), (1, 129), (3, 131)])  # SIGTERM, SIGHUP, SIGQUIT
def test_signals_end_the_app_as_q_does(tmp_path, terminal, signum, status):
    """The terminal restored (alternate screen left, mouse tracking off, cursor shown), then 128 + the signal."""
    import signal

    term = terminal(str(FIXTURE_CASES), cwd=tmp_path)
    assert b"Quit" in term.read(until=b"Quit")
    term.read(timeout=0.5)
    os.kill(term.pid, signal.Signals(signum))
    assert term.wait() == status
    tail = term.output[term.output.rfind(ALT_SCREEN_ON) :]
    assert ALT_SCREEN_OFF in tail and b"\x1b[?25h" in tail and b"\x1b[?1000l" in tail and b"\x1b[?1003l" in tail


def test_a_signal_while_the_app_is_busy_still_restores_the_terminal(tmp_path, terminal):
    """SIGTERM while the event loop is held by a long step (discovering eval files from /): the app cannot exit by
    itself, so the terminal is restored and the process ends within GRACE seconds."""
    import signal

    from turnlens.tui.signals import GRACE

    term = terminal("/", cwd=tmp_path)
    term.read(until=ALT_SCREEN_ON, timeout=TIMEOUT)
    os.kill(term.pid, signal.SIGTERM)
    assert term.wait(timeout=GRACE + 8) in (143, -signal.SIGTERM)  # (-15: ended by the signal; a shell shows 143)
    assert term.output.rfind(ALT_SCREEN_OFF) > term.output.rfind(ALT_SCREEN_ON)


# --- following files: a watch that fails, a file rewritten in place, a folder or file deleted and made again --------
# (issue 22.7, 22.9, 22.14)


def test_a_file_rewritten_in_place_longer_is_read_anew_not_appended(tmp_path):
    """Same inode, same first record, each version longer: the indexed records changed, so it is no append."""
    from turnlens.formatting.results.index import ResultsFile

    path = tmp_path / "r.jsonl"
    row = '{"eval_id": "%s", "score": %s}\n'
    path.write_text(row % ("a", 1) + row % ("b", 0.5))
    results = ResultsFile(str(path))
    list(results.scan())
    assert results.follow() == "same"
    with open(path, "r+") as handle:  # rewritten in place (O_TRUNC would be caught by its size)
        handle.write(row % ("a", 1) + row % ("c", 0.25) + row % ("d", 0))
    assert results.follow() == "replaced"
    results = ResultsFile(str(path))
    list(results.scan())
    with open(path, "a") as handle:
        handle.write(row % ("e", 1))
    assert results.follow() == "grown" and results.eval_ids == ["a", "c", "d", "e"]  # a true append still is one
    results.close()


def test_a_results_file_removed_then_made_again_is_followed(tmp_path):
    from turnlens.formatting.results.index import ResultsFile

    path = tmp_path / "r.jsonl"
    path.unlink(missing_ok=True)
    results = ResultsFile(str(path))
    list(results.scan())
    assert results.error is not None and results.follow() == "same"
    path.write_text('{"eval_id": "a", "score": 1}\n')
    assert results.follow() == "replaced"  # (the view opens it anew)


def _recording_notify(app, monkeypatch) -> list[str]:
    said: list[str] = []
    notify = app.notify

    def recording(message, *args, **kwargs):
        said.append(str(message))
        return notify(message, *args, **kwargs)

    monkeypatch.setattr(app, "notify", recording)
    return said


async def _until(pilot, predicate, what: str, timeout: float = 10.0) -> None:
    import time

    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await pilot.pause(0.05)


async def test_a_watch_that_fails_is_said_and_tried_again(tmp_path, monkeypatch):
    """watchfiles raising (a folder made unreadable: PermissionError; as root, chmod cannot make one): 'cannot
    watch …', the view kept, and once the watch works again, edits are followed."""
    import shutil

    import watchfiles
    from tui_helpers import FIXTURE_REPO, wait_for_idle

    from turnlens.tui.app import make_app
    from turnlens.tui.inspector import watcher as file_watcher
    from turnlens.tui.widgets.pane import Pane

    repo = tmp_path / "repo"
    shutil.copytree(FIXTURE_REPO, repo)
    monkeypatch.chdir(repo)
    real_awatch, calls = watchfiles.awatch, []

    def failing_once(*folders, **options):
        calls.append(folders)
        if len(calls) == 1:
            raise PermissionError(f'Permission denied (os error 13) about ["{folders[0]}"]')
        return real_awatch(*folders, **options)

    monkeypatch.setattr(watchfiles, "awatch", failing_once)
    monkeypatch.setattr(file_watcher, "WATCH_RETRY", 0.2)
    cases = repo / "cases.yaml"
    app = make_app([cases], repo_root=str(repo), watch=True)
    said = _recording_notify(app, monkeypatch)
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_for_idle(pilot)
        await _until(pilot, lambda: any("cannot watch" in s for s in said), "the failure said")
        assert "Permission denied" in said[0] and app.screen.session.files  # the view stays
        await _until(pilot, lambda: len(calls) >= 2, "the watch tried again")
        await pilot.pause(0.5)
        app.screen.select_case(next(iter(app.screen.session.case_keys())))
        cases.write_text(cases.read_text().replace("Why does this return the wrong sum?", "Why 3 + 3?"))
        question = lambda: app.screen.query_one("#question", Pane).body_text  # noqa: E731
        await _until(pilot, lambda: "Why 3 + 3?" in question(), "the edit followed after the retry")


async def test_an_eval_folder_deleted_and_made_again_is_followed(tmp_path, monkeypatch):
    import shutil

    from tui_helpers import FIXTURE_REPO, wait_for_idle

    from turnlens.tui.app import make_app
    from turnlens.tui.widgets.pane import Pane

    repo = tmp_path / "repo"
    shutil.copytree(FIXTURE_REPO, repo)
    monkeypatch.chdir(tmp_path)
    app = make_app([str(repo)], repo_root=str(tmp_path), watch=True)
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_for_idle(pilot)
        screen = app.screen
        await _until(pilot, lambda: screen.watcher.running, "the watcher")
        screen.select_case(next(iter(screen.session.case_keys())))
        await wait_for_idle(pilot)
        shutil.rmtree(repo)
        await pilot.pause(1.5)
        shutil.copytree(FIXTURE_REPO, repo)
        cases = repo / "cases.yaml"
        cases.write_text(cases.read_text().replace("Why does this return the wrong sum?", "Why 3 + 3?"))
        question = lambda: screen.query_one("#question", Pane).body_text  # noqa: E731
        await _until(pilot, lambda: "Why 3 + 3?" in question(), "the new folder's file followed")


async def test_a_results_file_deleted_and_made_again_in_the_view(tmp_path, monkeypatch):
    import shutil

    from tui_helpers import wait_for_idle

    from turnlens.tui.app import make_app

    fixture = Path(__file__).parents[1] / "fixtures" / "results" / "run-a.jsonl"
    path = tmp_path / "run-a.jsonl"
    shutil.copy(fixture, path)
    monkeypatch.chdir(tmp_path)
    app = make_app([str(path)], watch=True)
    said = _recording_notify(app, monkeypatch)
    async with app.run_test(size=(140, 36)) as pilot:
        await wait_for_idle(pilot)
        assert app.screen.run.results.count == 6
        path.unlink()
        await _until(pilot, lambda: any("removed" in s for s in said), "the removal said")
        rows = fixture.read_text()
        path.write_text(rows + rows.splitlines(keepends=True)[0].replace("greet-flat", "greet-again"))
        await _until(pilot, lambda: app.screen.run.results.count == 7, "the file made again, read")


# --- a terminal narrowed to a few columns (issue 22.13) --------------------------------------------------------------


@pytest_asyncio.fixture(scope="class", loop_scope="class")
async def inspector_120x30():
    """One inspector on the fixture cases at 120x30 for the tests of a class (the suite's determinism applied here:
    a class fixture starts before the function ones); it must end as `q` ends it."""
    from tui_helpers import CASES, FIXTURE_REPO, deterministic_terminal, wait_for_idle

    from turnlens.tui.app import make_app

    with pytest.MonkeyPatch.context() as monkeypatch:
        deterministic_terminal(monkeypatch)
        app = make_app([CASES], repo_root=str(FIXTURE_REPO), watch=False)
        async with app.run_test(size=(120, 30)) as pilot:
            await wait_for_idle(pilot)
            yield pilot
        assert app.return_code in (0, None)


@pytest.mark.asyncio(loop_scope="class")
class TestNarrowing:
    """Each width from 120 columns and back, in one app: the resizes are what is tested, not the start."""

    @pytest.mark.parametrize("columns", [3, 2, 1])
    async def test_narrowing_the_terminal_to_a_few_columns(self, inspector_120x30, columns):
        from textual._context import active_app, active_message_pump
        from tui_helpers import wait_for_idle

        pilot = inspector_120x30
        app = pilot.app
        # started in the fixture's context: the pilot redraws from this test's, which needs the app as the active one
        active_app.set(app)
        active_message_pump.set(app)
        assert app.size.width == 120
        await pilot.resize_terminal(columns, 30)
        await wait_for_idle(pilot)
        await pilot.press("down", "down")
        await wait_for_idle(pilot)
        await pilot.resize_terminal(120, 30)
        await wait_for_idle(pilot)
        assert app.screen.session.files


# --- Ctrl-C while `turnlens export` is starting (issue 22.15) --------------------------------------------------------


def _ctrl_c_as_a_shell_gives_it() -> None:
    """The child starts with SIGINT at its default and unblocked, as from an interactive shell: a test worker may
    have it ignored or blocked at that moment (the editor ignores it while it runs; a fork blocks it), and both are
    inherited through exec, so the child would never see the Ctrl-C this test sends."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def test_ctrl_c_while_the_command_imports_its_modules_is_exit_130():
    """From the moment the package is imported to run the command, Ctrl-C is one line and 130, not a traceback from
    inside an import (the interpreter's own start, before, is Python's: killed by SIGINT, which shells show as 130)."""
    started = (
        "import sys; sys.argv[0] = 'turnlens'; import turnlens, os, signal, time; "
        "os.kill(os.getpid(), signal.SIGINT); time.sleep(5); print('not interrupted')"
    )
    proc = subprocess.run(
        [sys.executable, "-c", started], capture_output=True, timeout=TIMEOUT, preexec_fn=_ctrl_c_as_a_shell_gives_it
    )
    assert (proc.returncode, proc.stderr, proc.stdout) == (130, b"turnlens: interrupted\n", b"")
    as_library = "import turnlens, signal; print(signal.getsignal(signal.SIGINT) is signal.default_int_handler)"
    proc = subprocess.run(
        [sys.executable, "-c", as_library], capture_output=True, timeout=TIMEOUT, preexec_fn=_ctrl_c_as_a_shell_gives_it
    )
    assert proc.stdout == b"True\n"  # imported by another program: its Ctrl-C is left alone


# --- ids that draw where they should not: line feeds, ten thousand combining marks (issue 22.18) ---------------------

_IMITATION = "real-id\nFLAT single\nanother-case"  # an id that would draw as two more list rows
_MARKS = "a" + "\u0301" * 10_000


def test_labels_are_one_bounded_line():
    from turnlens.formatting.sanitize import LABEL_LIMIT, sanitize_label

    assert sanitize_label(_IMITATION) == "real-id␤FLAT single␤another-case"
    assert sanitize_label(_MARKS) == "a\u0301\u0301"
    assert len(sanitize_label("x" * 100_000)) == LABEL_LIMIT and sanitize_label("x" * 100_000).endswith("…")


async def test_ids_draw_on_one_line_in_both_lists(tmp_path, monkeypatch):
    import json

    from textual.widgets import Static
    from tui_helpers import wait_for_idle

    from turnlens.formatting.sanitize import LABEL_LIMIT
    from turnlens.tui.app import make_app
    from turnlens.tui.render import case_row_text
    from turnlens.tui.results.widgets import ResultList

    (tmp_path / ".git").mkdir()
    cases = "".join(f"  - id: {json.dumps(i)}\n    criteria: c\n    input: hi\n" for i in (_IMITATION, _MARKS))
    (tmp_path / "e.eval.yaml").write_text("tests:\n" + cases)
    monkeypatch.chdir(tmp_path)
    app = make_app(["e.eval.yaml"], repo_root=str(tmp_path), watch=False)
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_for_idle(pilot)
        session = app.screen.session
        rows = [session.row(key) for key in session.case_keys()]
        title = str(app.screen.query_one("#case-title").render())
        assert "\n" not in title and len(title) < LABEL_LIMIT + 100
    assert len(rows) == 2
    for row in rows:
        drawn = case_row_text(row, 40).plain.split("\n")
        assert len(drawn) == 2 and len(drawn[0]) <= 40, drawn  # the id on its own line, then the badge line
    row = '{"eval_id": %s, "score": 1}\n'
    (tmp_path / "r.jsonl").write_text("".join(row % json.dumps(i) for i in (_IMITATION, _MARKS)))
    app = make_app(["r.jsonl"], watch=False)
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_for_idle(pilot)
        assert len(app.screen.query_one(ResultList).rows) == 2
        await pilot.press("enter")
        await wait_for_idle(pilot)
        title = str(app.screen.query_one("#detail-title", Static).render())
        first, *rest = title.split("\n")
        assert first.startswith("real-id␤FLAT single␤another-case") and len(rest) == 1, title[:300]  # id, then where


# --- the command's own messages (issue 22.20) ------------------------------------------------------------------------


def test_the_commands_own_errors_neutralise_escapes(tmp_path):
    hostile = "no\x1b]0;retitled\x07such"
    (tmp_path / "e.yaml").write_text("tests: []\n")
    for args in ([hostile], ["--repo-root", hostile, "e.yaml"], ["serve", hostile]):
        proc = run_cli(*args, cwd=tmp_path)
        no_traceback(proc)
        assert proc.returncode == 2 and b"\x1b" not in proc.stderr and b"\x07" not in proc.stderr, proc.stderr
        assert "␛]0;retitled␇such" in proc.stderr.decode()


def test_unknown_options_with_escapes_are_neutralised_in_every_command(tmp_path):
    """argparse quotes an unknown option as typed: `--x<ESC>]0;…<BEL>` retitled the terminal (issue 22.20)."""
    hostile = "--no\x1b]0;retitled\x07such"
    (tmp_path / "e.yaml").write_text("tests: []\n")
    for args in ([hostile], ["export", hostile, "e.yaml"], ["diff", hostile], ["serve", hostile]):
        proc = run_cli(*args, cwd=tmp_path)
        no_traceback(proc)
        assert proc.returncode == 2 and b"\x1b" not in proc.stderr and b"\x07" not in proc.stderr, proc.stderr
        assert "unrecognized arguments: --no␛]0;retitled␇such" in proc.stderr.decode()


async def test_a_fifo_named_with_a_results_file_is_not_suggested_as_evals(tmp_path, monkeypatch):
    """`turnlens a.jsonl FIFO`: the note on the results file suggests no `--evals FIFO`; with an eval file it does."""
    import shutil

    from tui_helpers import wait_for_idle

    from turnlens.tui.app import make_app

    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "cases.yaml").write_text("tests: []\n")
    shutil.copy(Path(__file__).parents[1] / "fixtures" / "results" / "run-a.jsonl", tmp_path / "a.jsonl")
    monkeypatch.chdir(tmp_path)
    for other, suggested in (("fifo", False), ("cases.yaml", True)):
        app = make_app(["a.jsonl", other], repo_root=str(tmp_path), watch=False)
        async with app.run_test(size=(120, 30)) as pilot:
            await wait_for_idle(pilot)
            notes = " ".join(app.screen.session.notes)
            assert "a.jsonl is an AgentV results file" in notes and ("--evals" in notes) is suggested, notes


def test_a_results_row_too_big_for_memory_names_the_limit(tmp_path):
    """A 100 MiB row under `ulimit -v` (300 MB): orjson's allocation failure was reported as 'not valid JSON'. The
    row is named as too big for memory with the limit hit; the rows around it are exported (issue 22.20)."""
    import resource

    path = tmp_path / "r.jsonl"
    with path.open("w") as out:
        out.write('{"eval_id": "small", "score": 1}\n{"eval_id": "huge", "score": 1, "answer": "')
        out.write("x" * (100 << 20))
        out.write('"}\n{"eval_id": "after", "score": 0.5}\n')

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (300_000 << 10, 300_000 << 10))

    proc = run_cli("export", "r.jsonl", cwd=tmp_path, preexec_fn=limited)
    no_traceback(proc)
    err = proc.stderr.decode()
    assert proc.returncode == 0 and "not valid JSON" not in err, err
    assert "r.jsonl:2: too big for memory: a record of 100.0 MiB; this process may use at most" in err, err
    assert "(ulimit -v)" in err and [line[:20] for line in proc.stdout.decode().splitlines()] == [
        '{"eval_id":"small","',
        '{"eval_id":"after","',
    ]


# --- typed input: bounded, and a long list refiltered once the keys pause (issue 22.19) ---------------------------


async def test_the_filter_box_takes_a_bounded_input(monkeypatch):
    from tui_helpers import CASES, FIXTURE_REPO, wait_for_idle

    from turnlens.tui.app import make_app
    from turnlens.tui.widgets import case_list

    monkeypatch.setattr(case_list, "MAX_TYPED", 12)  # (a few keys: each one refilters the list)
    app = make_app([CASES], repo_root=str(FIXTURE_REPO), watch=False)
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_for_idle(pilot)
        await pilot.press("slash", *("x" * 20))
        await wait_for_idle(pilot)
        assert len(app.screen.query_one("#case-filter").value) == 12
        await pilot.press("escape", "escape")
        await wait_for_idle(pilot)
        assert app.screen.query_one("#case-filter").value == ""


async def _type_at_once(pilot, text: str) -> None:
    """Every key posted before the app handles the first (as keys pasted or typed faster than it keeps up queue)."""
    from textual import events

    for char in text:
        pilot.app.post_message(events.Key(char, char))
    await pilot.pause()


async def test_a_long_list_is_refiltered_once_the_keys_pause(monkeypatch):
    """Keys queued faster than a long list refilters: the list is filtered once for all of them (not per key), with
    what the box holds then; enter refilters at once. (The backlog itself: benchmarks/bench_typing.py.)"""
    from tui_helpers import CASES, FIXTURE_REPO, wait_for_idle

    from turnlens.tui.app import make_app
    from turnlens.tui.widgets import case_list
    from turnlens.tui.widgets.case_list import CaseList

    monkeypatch.setattr(case_list, "DEBOUNCE_ROWS", 2)  # (the fixture's few cases stand for a long list)
    monkeypatch.setattr(case_list, "FILTER_DEBOUNCE", 1.0)
    app = make_app([CASES], repo_root=str(FIXTURE_REPO), watch=False)
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_for_idle(pilot)
        listing = app.screen.query_one(CaseList)
        filtered: list[str] = []
        rebuild = listing._rebuild

        def counted() -> None:
            filtered.append(listing.filter_input.value)
            rebuild()

        monkeypatch.setattr(listing, "_rebuild", counted)
        await pilot.press("slash")
        await _type_at_once(pilot, "several")
        await _until(pilot, lambda: listing.filter_input.value == "several", "the keys typed")
        await _until(pilot, lambda: filtered == ["several"], "one refilter, once the keys paused")
        assert listing.visible_keys() and all("several" in key_id for key_id in _listed_ids(app))
        await _type_at_once(pilot, "xyz")
        await pilot.press("enter")  # at once, without waiting for the pause
        assert filtered == ["several", "severalxyz"] and not _listed_ids(app)


def _listed_ids(app) -> list[str]:
    screen = app.screen
    return [screen.session.case(key)[1].id for key in screen.query_one("CaseList").visible_keys()]


async def test_the_palette_is_bounded_debounced_and_never_tries_every_placement(tmp_path, monkeypatch):
    """`:` and ctrl+p: the box takes at most MAX_TYPED characters; a long palette searches once the keys pause; and
    matching is linear: Textual's fuzzy matcher lists every placement of the letters typed, which an id such as
    `aaaa…acb` against `aaaaaaab` made millions of (the app froze). It is never called."""
    import textual.fuzzy
    from tui_helpers import wait_for_idle

    from turnlens.tui import commands
    from turnlens.tui.app import make_app

    hostile = "a" * 60 + "cb"
    (tmp_path / ".git").mkdir()
    path = tmp_path / "cases.yaml"
    path.write_text(
        f"tests:\n  - id: first\n    input: hi\n    criteria: ok\n  - id: {hostile}\n    input: hi\n    criteria: ok\n"
    )

    def refused(*_args, **_kw):
        raise AssertionError("Textual's fuzzy matcher was called")

    monkeypatch.setattr(textual.fuzzy.FuzzySearch, "match", refused)
    monkeypatch.setattr(commands, "MAX_TYPED", 12)
    monkeypatch.setattr(commands, "DEBOUNCE_ENTRIES", 1)  # (two cases stand for many)
    monkeypatch.setattr(commands, "PALETTE_DEBOUNCE", 1.0)
    app = make_app([path], repo_root=str(tmp_path), watch=False)
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_for_idle(pilot)
        screen = app.screen
        searched: list[int] = []
        choices = screen.case_choices
        monkeypatch.setattr(screen, "case_choices", lambda: searched.append(1) or choices())
        await pilot.press("colon")
        await wait_for_idle(pilot)
        palette = app.screen
        await _type_at_once(pilot, "a" * 20 + "b")
        await wait_for_idle(pilot)  # (the palette's search runs in a worker)
        box = palette.query_one("CommandInput")
        assert box.value == "a" * 12 and len(searched) <= 2, (box.value, len(searched))
        await pilot.press("backspace", "backspace", "c", "b")
        await wait_for_idle(pilot)
        await pilot.press("enter")
        await wait_for_idle(pilot)
        assert screen.session.case(screen.model.current)[1].id == hostile
        await pilot.press("ctrl+p")
        await wait_for_idle(pilot)
        await _type_at_once(pilot, "x" * 20)
        await wait_for_idle(pilot)
        assert app.screen.query_one("CommandInput").value == "x" * 12


async def test_an_eval_file_replaced_by_a_link_is_followed(tmp_path, monkeypatch):
    """`ln -sf elsewhere.yaml cases.yaml` while watched: the link's target is read at once (not at the next save),
    and a refusal names the target (issue 22.16)."""
    import shutil

    from tui_helpers import FIXTURE_REPO, wait_for_idle

    from turnlens.tui.app import make_app
    from turnlens.tui.inspector.views import banner_text
    from turnlens.tui.widgets.pane import Pane

    repo = tmp_path / "repo"
    shutil.copytree(FIXTURE_REPO, repo)
    elsewhere = tmp_path / "elsewhere.yaml"
    cases = repo / "cases.yaml"
    elsewhere.write_text(cases.read_text().replace("Why does this return the wrong sum?", "Why 3 + 3?"))
    monkeypatch.chdir(repo)
    app = make_app([cases], repo_root=str(repo), watch=True)
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_for_idle(pilot)
        screen = app.screen
        await _until(pilot, lambda: screen.watcher.running, "the watcher")
        screen.select_case(next(iter(screen.session.case_keys())))
        await wait_for_idle(pilot)
        link = repo / "cases.yaml.tmp"
        link.symlink_to(elsewhere)
        os.replace(link, cases)  # as `ln -sf` does: a link renamed over the file
        question = lambda: screen.query_one("#question", Pane).body_text  # noqa: E731
        await _until(pilot, lambda: "Why 3 + 3?" in question(), "the link's target read")
        # then a link to a file that does not parse: the refusal names the target (where its line is), not the link
        broken = tmp_path / "broken.yaml"
        broken.write_text("tests: [\n")
        link.symlink_to(broken)
        os.replace(link, cases)
        banner = lambda: " ".join(line.plain for line in banner_text(screen.session)[0])  # noqa: E731
        await _until(pilot, lambda: "broken.yaml:2:" in banner(), "the target named")
        assert "(cases.yaml is a link to it)" in banner(), banner()


def test_results_rows_javascript_reads_are_kept(tmp_path):
    """A number out of double range (1e400: Infinity to JSON.parse) and a lone surrogate escape: orjson refuses
    both, JSON.parse (so AgentV) reads both; NaN it refuses (issue 22.17, its results half)."""
    from turnlens.formatting.results.index import ResultsFile

    path = tmp_path / "r.jsonl"
    path.write_text(
        '{"eval_id": "big", "score": 1, "duration_ms": 1e400}\n'
        '{"eval_id": "lone-\\ud800", "score": 0.5}\n'
        '{"eval_id": "nan", "score": NaN}\n'
    )
    results = ResultsFile(str(path))
    list(results.scan())
    assert results.eval_ids == ["big", "lone-\ud800"] and results.problem_count == 1
    assert results.record(1).eval_id == "lone-\ud800"
    proc = run_cli("export", "r.jsonl", cwd=tmp_path)
    no_traceback(proc)
    assert proc.returncode == 0 and len(proc.stdout.splitlines()) == 2
    results.close()


# --- numbers JSON cannot hold in eval files: as AgentV reads them, never null (issue 22.17) ---------------------------


@pytest.mark.parametrize(
    ("name", "oracle"),
    [
        ("v0.yaml", "v0.oracle015.jsonl"),
        ("v4.yaml", "v4.oracle4.jsonl"),
        ("dataset.jsonl", "dataset.oracle4.jsonl"),
        ("skill/evals.json", "skill/evals.oracle4.jsonl"),
    ],
)
def test_ids_json_cannot_hold_export_as_agentv_reads_them(name, oracle):
    """`id: 1e400`: the tests AgentV loads (an evals.json id 1e400 is "Infinity"; an evals.json with it was refused),
    with its prompts; the ones it skips with its warnings, exported with the id as JavaScript writes the number
    ("Infinity", never null). Recorded: tests/fixtures/numbers/README.md."""
    import json

    folder = Path(__file__).parents[1] / "fixtures" / "numbers"
    expected = [json.loads(line) for line in (folder / oracle).read_text().splitlines()]
    loaded = [e for e in expected if "lm" in e]
    warnings = next((e["warnings"] for e in expected if "warnings" in e), [])
    proc = run_cli("export", "--repo-root", ".", name, cwd=folder)
    no_traceback(proc)
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(line) for line in proc.stdout.splitlines()]
    kept = [r for r in rows if "skipped" not in r]
    assert [r["id"] for r in kept] == [e["id"] for e in loaded]
    for row, want in zip(kept, loaded, strict=True):
        assert {k: v for k, v in row["lm"].items() if k != "graders"} == want["lm"]
        assert row["evaluator_prompt"] == want["evaluator_prompt"]
    skipped = [r for r in rows if "skipped" in r]
    assert len(skipped) == len(warnings) and all(r["id"] is not None for r in skipped), skipped
    assert "null" not in json.dumps([r["id"] for r in skipped]) and '"Infinity"' in proc.stdout.decode()
    if "oracle4" in oracle:  # (0.15's warning names the case as written, where the reference says "unknown")
        for warning in warnings:
            assert warning.removeprefix("Error: ") in proc.stderr.decode()
