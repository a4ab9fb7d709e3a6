"""The exporter cuts a big eval file into slices on every core: the output must not change by one byte."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from turnlens.formatting.evals.slices import MIN_PARALLEL_BYTES, jsonl_slices, slice_text, split_points, split_slices
from turnlens.formatting.jsstr import js_trim

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="slicing needs fork")


def under_slicing_size(lines: list[str]):
    """A check that the lines (as they grow) are still under 1.5 times the slicing threshold. It adds only the lines
    appended since it was last asked: summing every line at each step made building a file quadratic."""
    seen = [0, 0]  # summed length, lines counted

    def under() -> bool:
        seen[0] += sum(len(x) for x in lines[seen[1] :])
        seen[1] = len(lines)
        return seen[0] < MIN_PARALLEL_BYTES * 1.5

    return under


def big_eval(tmp_path: Path, extra: str = "", broken_at: int | None = None) -> Path:
    (tmp_path / ".agentv").mkdir(exist_ok=True)
    (tmp_path / ".agentv" / "config.yaml").write_text(
        "$schema: agentv-config-v2\nguideline_patterns: ['**/*.instructions.md']\n"
    )
    (tmp_path / "g.instructions.md").write_text("Guide.\n")
    (tmp_path / "a.py").write_text("print(1)\n" * 40)
    lines = ["$schema: agentv-eval-v2", "# a comment", "evalcases:"]
    n = 0
    under = under_slicing_size(lines)
    while under():
        kind = n % 5
        lines.append(f"  - id: case-{n}")
        if kind != 3:
            lines.append("    outcome: answered")
        lines.append("    input_messages:")
        if kind == 0:
            lines += [
                "      - role: system",
                "        content:",
                "          - {type: file, value: g.instructions.md}",
                "      - role: user",
                f"        content: 'question {n} " + "x" * 200 + "'",
            ]
        elif kind == 1:
            lines += [
                "      - role: user",
                "        content:",
                "          - {type: file, value: a.py}",
                "          - {type: file, value: missing.py}",
                "          - {type: text, value: look}",
                "      - {role: assistant, content: ok}",
            ]
            if n == 1:  # a warning holding line breaks other than \n: still one line of stderr, as serially
                lines.insert(-2, '          - {type: file, value: "missing\\x1c\\x85note\\u2028x.py"}')
        elif kind == 2:
            lines += ["      - role: user", "        content: |", "          multi", "          line " + "y" * 300]
        elif kind == 3:  # no outcome: skipped
            lines += ["      - {role: user, content: hi}"]
        else:
            lines += ["      - just a string", "      - {role: tool, content: result}"]
        if broken_at is not None and n == broken_at:
            lines.append("    outcome: duplicate")
        n += 1
    p = tmp_path / "big.yaml"
    p.write_text("\n".join(lines) + "\n" + extra)
    return p


def export(path: Path, env_extra: dict | None = None):
    env = {**os.environ, "PYTHONPATH": str(ROOT), **(env_extra or {})}
    return subprocess.run(
        [
            sys.executable,
            "-c",
            "from turnlens.tui.cli import main; main()",
            "export",
            str(path),
            "--repo-root",
            str(path.parent),
        ],
        cwd=path.parent,
        capture_output=True,
        env=env,
    )


def serial(path: Path):
    code = (
        "import sys, turnlens.formatting.export.evals as e; from turnlens.tui.export_cli import main; "
        "e._export_slices = lambda p, a: [e._export_one(p, a)]; sys.exit(main(sys.argv[1:]))"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-c", code, str(path), "--repo-root", str(path.parent)],
        cwd=path.parent,
        capture_output=True,
        env=env,
    )


def test_big_file_is_cut_at_case_boundaries(tmp_path):
    text = big_eval(tmp_path).read_text()
    ranges = split_points(text, 2)
    assert ranges is not None and len(ranges) == 2
    (s0, e0, f0), (s1, e1, f1) = ranges
    assert e0 == s1 and f0 == 0 and f1 > 0
    lines = text.split("\n")
    assert lines[s1].startswith("  - id: case-")
    piece = slice_text(text, s0, s1, e1)
    assert piece.count("\n") == text.count("\n")  # every line keeps its number


class Built:
    """The big files, each built once per module, and each one's serial and sliced exports run once: several tests
    compare against the same file's serial export (a process each, the costliest part of these tests)."""

    def __init__(self, tmp_path_factory):
        self.factory = tmp_path_factory
        self.paths: dict[tuple, Path] = {}
        self.runs: dict[tuple, subprocess.CompletedProcess] = {}

    def file(self, make, **options) -> Path:
        key = (make.__name__, *sorted(options.items()))
        if key not in self.paths:
            self.paths[key] = make(self.factory.mktemp(make.__name__), **options)
        return self.paths[key]

    def run(self, how, path: Path) -> subprocess.CompletedProcess:
        """`how` (export or serial) on `path`, run once; the tests only read the result."""
        if (how.__name__, path) not in self.runs:
            self.runs[how.__name__, path] = how(path)
        return self.runs[how.__name__, path]


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Built:
    return Built(tmp_path_factory)


def test_sliced_export_equals_serial_export_byte_for_byte(built):
    path = built.file(big_eval)
    fast, slow = built.run(export, path), built.run(serial, path)
    assert fast.returncode == slow.returncode == 0
    assert fast.stdout == slow.stdout and fast.stdout.count(b"\n") > 100
    assert fast.stderr == slow.stderr  # same warnings, same order


@pytest.mark.parametrize("broken_at", [5, 400])  # in the first slice (a worker's), in the last (this process's)
def test_an_error_in_any_slice_refuses_the_whole_file(built, broken_at):
    path = built.file(big_eval, broken_at=broken_at)
    assert split_points(path.read_text(), 2) is not None
    fast, slow = built.run(export, path), built.run(serial, path)
    assert fast.returncode == slow.returncode == 1
    assert fast.stdout == slow.stdout == b""
    assert fast.stderr == slow.stderr and b"duplicate key 'outcome'" in fast.stderr


@pytest.mark.parametrize(
    "extra", ["other_key: 1\n", "x: &anchor 1\n", "---\nx: 1\n", "...\n", "evalcases:\n  - id: again\n"]
)
def test_unusual_files_are_not_cut(tmp_path, extra):
    path = big_eval(tmp_path, extra=extra)
    assert split_points(path.read_text(), 2) is None


@pytest.mark.parametrize("indent", ["", "  "])
def test_a_document_marker_anywhere_stops_the_cut(tmp_path, indent):
    text = big_eval(tmp_path).read_text()
    if not indent:  # items at column 0, where a `---` line could pass for one
        text = text.replace("\n  ", "\n")
    assert split_points(text, 2) is not None
    middle = text.index(f"\n{indent}- id: case-40\n")
    assert split_points(text[:middle] + "\n---" + text[middle:], 2) is None
    head = text.index("\nevalcases:")
    assert split_points(text[:head] + "\n---\nname: x" + text[head:], 2) is None


def rounds(path: Path, slice_bytes: int):
    """The export with slices of at most `slice_bytes`: more slices than workers, worked in rounds."""
    code = (
        f"import sys, turnlens.formatting.export.evals as e; from turnlens.tui.export_cli import main; "
        f"e.MAX_SLICE_BYTES = e.JSONL_SLICE_BYTES = {slice_bytes}; sys.exit(main(sys.argv[1:]))"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-c", code, str(path), "--repo-root", str(path.parent)],
        cwd=path.parent,
        capture_output=True,
        env=env,
    )


def big_jsonl(tmp_path: Path, broken_at: int | None = None) -> Path:
    """A JSONL dataset over the slicing threshold: blank lines, warnings (a missing file), conversations."""
    (tmp_path / ".git").mkdir(exist_ok=True)
    (tmp_path / "a.py").write_text("print(1)\n")
    lines = []
    n = 0
    under = under_slicing_size(lines)
    while under():
        kind = n % 4
        if kind == 0:
            value: object = f"What is {n}? " + "x" * 100
        elif kind == 1:
            value = [{"role": "system", "content": "Be exact."}, {"role": "user", "content": f"Question {n}?"}]
        elif kind == 2:
            value = [
                {
                    "role": "user",
                    "content": [{"type": "file", "value": "missing.py"}, {"type": "text", "value": "look"}],
                }
            ]
        else:
            value = [{"role": "user", "content": [{"type": "file", "value": "a.py"}]}]
        lines.append(json.dumps({"id": f"t-{n}", "criteria": f"Answers {n}.", "input": value}))
        if n % 37 == 0:
            lines.append("   ")
        if broken_at is not None and n == broken_at:
            lines.append("{not json")
        n += 1
    path = tmp_path / "dataset.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("make", [big_eval, big_jsonl])
def test_an_export_in_rounds_equals_the_serial_export_byte_for_byte(built, make):
    """A big file is cut in slices of bounded size, worked a round at a time (memory flat in the file's size), its
    rows kept in a temporary file until every slice was read: the same bytes, the same warnings in the same order.
    A JSONL dataset is cut too."""
    path = built.file(make)
    if make is big_jsonl:
        assert len(file_slices(path, 40 * 1024) or []) > 2
    fast, slow, sliced = rounds(path, 40 * 1024), built.run(serial, path), built.run(export, path)
    assert fast.returncode == slow.returncode == sliced.returncode == 0, fast.stderr
    assert fast.stdout == slow.stdout == sliced.stdout and fast.stdout.count(b"\n") > 1000
    assert fast.stderr == slow.stderr == sliced.stderr and b"warning" in fast.stderr
    if make is big_eval:
        assert "File not found: missing\u241c\\x85note\u2028x.py\n".encode() in fast.stderr


@pytest.mark.parametrize("broken_at", [5, 1500])
@pytest.mark.parametrize("make", [big_eval, big_jsonl])
def test_a_refused_slice_in_any_round_refuses_the_whole_file(built, make, broken_at):
    if make is big_eval:
        broken_at = min(broken_at, 400)
    path = built.file(make, broken_at=broken_at)
    fast, slow = rounds(path, 40 * 1024), built.run(serial, path)
    assert fast.returncode == slow.returncode == 1
    assert fast.stdout == slow.stdout == b""
    assert fast.stderr == slow.stderr and fast.stderr.count(b"\n") == 1


def file_slices(path: Path, slice_bytes: int, min_bytes: int = MIN_PARALLEL_BYTES):
    fd = os.open(path, os.O_RDONLY)
    try:
        return jsonl_slices(fd, slice_bytes, min_bytes=min_bytes)
    finally:
        os.close(fd)


@pytest.mark.parametrize("ending", ["", "\n", "\r\n", "\n\n  \n"])
def test_jsonl_slices_keep_line_numbers_and_case_indexes(tmp_path, ending):
    # Blank as JavaScript's trim() has it: a BOM or U+3000 is, \x1c and \x85 are not (a test, refused); a byte that
    # is not UTF-8 is a test too. Read in blocks of the file's bytes, never decoded whole: a long line spans blocks.
    text = '{"id": "a"}\n\n  \n{"id": "b"}\n\ufeff\u3000\n{"id": "c"}\n\x1c\n\x85 \n{"id": "d"}\n\u00a0\udcff\n' * 5000
    text = (
        "\ufeff" + text + '{"id": "long", "input": "' + "x" * (3 << 20) + '"}\n\t\n' + text + '{"id": "end"}' + ending
    )
    raw = text.encode("utf-8", "surrogateescape")
    path = tmp_path / "dataset.jsonl"
    path.write_bytes(raw)
    slices = file_slices(path, 64 * 1024)
    assert slices is not None and len(slices) > 10
    lines = raw.split(b"\n")

    def tests_before(offset: int) -> int:
        before = raw[:offset].split(b"\n")[:-1]
        return sum(1 for line in before if js_trim(line.decode("utf-8", "surrogateescape")))

    assert [s.first_case for s in slices] == [tests_before(s.start_offset) for s in slices]
    assert all(raw.count(b"\n", 0, s.start_offset) == s.start_line for s in slices)
    assert all(a.end_offset == b.start_offset for a, b in zip(slices, slices[1:]))
    assert all(raw[s.start_offset - 1 : s.start_offset] == b"\n" for s in slices[1:])
    assert slices[0].start_offset == 0 and slices[-1].end_offset == len(raw) and len(lines) > 60000
    assert file_slices(path, 64 * 1024, min_bytes=len(raw) + 1) is None


def big_anchored(tmp_path: Path, broken: bool = False) -> Path:
    """An AgentV 4 suite over the slicing threshold whose first tests define anchors that tests in every later
    slice alias (criteria, a conversation, a merge key), one anchor redefined half-way; `broken`: an undefined
    alias early and a duplicate key late (the whole file reports the duplicate key: it is met while reading)."""
    (tmp_path / ".git").mkdir(exist_ok=True)
    lines = [
        "description: anchored",
        "tests:",
        "  - id: t0",
        "    criteria: &crit Shared **criteria**.",
        "    input: &talk",
        "      - role: system",
        "        content: Be terse.",
        "      - role: user",
        "        content: Hi",
        "  - id: t1",
        "    criteria: c",
        "    input: Q",
        "    metadata: &meta {owner: a}",
    ]
    n = 2
    under = under_slicing_size(lines)
    while under():
        if n % 97 == 0:
            lines += [f"  - id: t{n}", "    criteria: *crit", "    input: *talk", "    metadata: {<<: *meta, n: 1}"]
        elif n == 1000:
            lines += [f"  - id: t{n}", "    criteria: &crit Redefined.", f"    input: Q{n} " + "y" * 80]
        else:
            lines += [f"  - id: t{n}", f"    criteria: ok {n}", f"    input: What is {n}? " + "x" * 80]
        if broken and n == 10:
            lines.append("    expected_output: *nowhere")
        if broken and n == 2500:
            lines.append("    criteria: again")
        n += 1
    path = tmp_path / "suite.eval.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_an_anchored_suite_is_cut_and_exported_byte_for_byte(tmp_path):
    path = big_anchored(tmp_path)
    slices = split_slices(path.read_text(), 2, "tests")
    assert slices is not None and slices[1].borrowed
    fast, slow, sliced = rounds(path, 40 * 1024), serial(path), export(path)
    assert fast.returncode == slow.returncode == sliced.returncode == 0, fast.stderr
    assert fast.stdout == slow.stdout == sliced.stdout and fast.stdout.count(b"\n") > 1000
    assert fast.stderr == slow.stderr == sliced.stderr


def test_an_anchored_suite_refused_says_what_the_whole_file_says(tmp_path):
    path = big_anchored(tmp_path, broken=True)
    fast, slow, sliced = rounds(path, 40 * 1024), serial(path), export(path)
    assert fast.returncode == slow.returncode == sliced.returncode == 1
    assert fast.stdout == slow.stdout == sliced.stdout == b""
    assert fast.stderr == slow.stderr == sliced.stderr and b"duplicate key" in fast.stderr


def test_ctrl_c_while_the_workers_read_a_dataset_ends_the_export_and_its_workers(tmp_path):
    """Ctrl-C (to the whole process group, as a terminal sends it) while the slices of a JSONL dataset are worked:
    exit 130 with one line, nothing on stdout (no row was written yet), no traceback, no worker left behind."""
    import signal
    import time

    path = big_jsonl(tmp_path)
    path.write_bytes(path.read_bytes() * 12)  # several seconds of work
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "turnlens", "export", str(path)],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        start_new_session=True,
    )
    time.sleep(1.5)
    os.killpg(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert b"interrupted" in err and b"Traceback" not in err
    assert out == b"" or out.endswith(b"\n")
    time.sleep(0.2)
    with pytest.raises(ProcessLookupError):  # every worker ended with it
        os.killpg(proc.pid, 0)


def test_a_datasets_rows_reach_a_file_a_pipe_and_a_file_opened_to_append_alike(built, tmp_path):
    """The slices' rows are copied out by the kernel (sendfile) where it can, written by the exporter where it cannot
    (a file opened to append): the same bytes everywhere."""
    path = built.file(big_jsonl)
    expected = built.run(serial, path).stdout
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "turnlens", "export", str(path)]
    into_file, appended = tmp_path / "out.jsonl", tmp_path / "appended.jsonl"
    appended.write_bytes(b"before\n")
    with into_file.open("wb") as out:
        subprocess.run(command, cwd=path.parent, stdout=out, env=env, check=True)
    with appended.open("ab") as out:
        subprocess.run(command, cwd=path.parent, stdout=out, env=env, check=True)
    piped = subprocess.run(command, cwd=path.parent, capture_output=True, env=env, check=True).stdout
    assert into_file.read_bytes() == piped == expected and expected.count(b"\n") > 1000
    assert appended.read_bytes() == b"before\n" + expected


def _export_in_own_group(path: Path, stderr: Path, code: str | None = None, bufsize: int = -1) -> subprocess.Popen:
    """The export of `path` in a process group of its own (as a shell starts a pipeline), stdout piped, stderr to a
    file (an export in rounds writes every warning before its first row: a pipe read later would fill up).
    bufsize=0: stdout unbuffered, so that communicate(), which reads the pipe itself, gets what a readline left.
    SIGTERM and SIGHUP are as a shell leaves them, whatever the tests inherited: under `nohup` SIGHUP came ignored,
    and the export rightly kept it so (test_sighup_ignored_when_the_export_started_stays_ignored)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = ["-m", "turnlens", "export"] if code is None else ["-c", code]
    with stderr.open("wb") as err:
        return subprocess.Popen(
            [sys.executable, *command, str(path), "--repo-root", str(path.parent)],
            cwd=path.parent,
            stdout=subprocess.PIPE,
            stderr=err,
            env=env,
            start_new_session=True,
            bufsize=bufsize,
            preexec_fn=_default_stop_signals,
        )


def _default_stop_signals() -> None:
    import signal

    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGHUP, signal.SIG_DFL)


def _assert_no_survivor(proc: subprocess.Popen) -> None:
    """The export has exited (and was reaped here): no process is left in its group, not even an exited worker
    that was never waited for (a zombie still counts for kill). No sleep: the export waits for its workers itself."""
    assert proc.poll() is not None
    with pytest.raises(ProcessLookupError):
        os.killpg(proc.pid, 0)


ROUNDS = (
    "import sys, turnlens.formatting.export.evals as e; from turnlens.tui.export_cli import main; "
    "e.MAX_SLICE_BYTES = e.JSONL_SLICE_BYTES = 40 * 1024; main(sys.argv[1:], exit_process=True)"
)


@pytest.mark.parametrize("how", ["one round", "rounds"])
@pytest.mark.parametrize("ending", ["done", "refused", "stdout closed", "ctrl-c"])
def test_no_worker_outlives_a_sliced_yaml_export(built, tmp_path, how, ending):
    """Whichever way a sliced YAML export ends (written to the end, a refused slice, its reader gone after one row as
    with `| head -1`, Ctrl-C to the whole group while rows are written), it exits with every worker it forked ended
    and reaped."""
    import signal

    path = built.file(big_eval, broken_at=400) if ending == "refused" else built.file(big_eval)
    proc = _export_in_own_group(path, tmp_path / "stderr", ROUNDS if how == "rounds" else None)
    assert proc.stdout is not None
    if ending == "stdout closed":
        first = proc.stdout.readline()
        proc.stdout.close()
        proc.wait(timeout=60)
        assert first.startswith(b"{") and proc.returncode == 0
    elif ending == "ctrl-c":
        first = proc.stdout.readline()  # rows are being written: the workers hold the rest
        os.killpg(proc.pid, signal.SIGINT)
        proc.communicate(timeout=60)
        assert first.startswith(b"{") and proc.returncode == 130
        assert b"interrupted" in (tmp_path / "stderr").read_bytes()
    else:
        proc.communicate(timeout=60)
        assert proc.returncode == (1 if ending == "refused" else 0)
    assert b"Traceback" not in (tmp_path / "stderr").read_bytes()
    _assert_no_survivor(proc)


def test_no_worker_outlives_a_jsonl_dataset_export_whose_reader_left(built, tmp_path):
    path = built.file(big_jsonl)
    proc = _export_in_own_group(path, tmp_path / "stderr", ROUNDS)
    assert proc.stdout is not None
    first = proc.stdout.readline()
    proc.stdout.close()
    proc.wait(timeout=60)
    assert first.startswith(b"{") and proc.returncode == 0
    _assert_no_survivor(proc)


ABANDONED = r"""
import os, sys
from turnlens.formatting.evals.slices import split_slices
from turnlens.formatting.export import parallel
text = open(sys.argv[1]).read()
slices = split_slices(text, 3)
run = parallel.DeferredSlices(text, slices, lambda piece, n: n, lambda r: r, lambda r: None, here=True)
run.emit(0)  # its worker reported and was let go, not waited for
# run is never closed (an error between its start and its end): end_children still ends and reaps every worker
print(parallel.end_children(), sorted(parallel._forked))
try:
    os.waitpid(-1, os.WNOHANG)
except ChildProcessError:
    print("no child")
"""


def test_end_children_ends_and_reaps_the_workers_of_a_run_never_closed(built):
    path = built.file(big_eval)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [sys.executable, "-c", ABANDONED, str(path)], capture_output=True, text=True, env=env, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["[] []", "no child"]


def _children_of(pid: int) -> list[int]:
    """The processes whose parent is `pid` (Linux's /proc)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry))
    return found


def _once_it_has_workers(proc: subprocess.Popen) -> None:
    """Returns once the export has forked a worker (polling: no fixed sleep)."""
    import time

    deadline = time.monotonic() + 60
    while not _children_of(proc.pid):
        assert proc.poll() is None and time.monotonic() < deadline, "the export forked no worker"
        time.sleep(0.005)


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="finds the workers in /proc")
@pytest.mark.parametrize("to", ["the export", "its process group"])
@pytest.mark.parametrize("signame", ["SIGTERM", "SIGHUP"])
@pytest.mark.parametrize("when", ["rows written", "workers working"])
def test_sigterm_or_sighup_ends_the_export_and_every_worker_it_forked(built, tmp_path, signame, to, when):
    """SIGTERM or SIGHUP (`kill PID`, a service stopped, a terminal closed) to a sliced export, while its workers
    write their rows (a YAML file) or while they work (a JSONL dataset cut in rounds): the export ends as after
    Ctrl-C, its workers stopped and reaped, whole rows only, one line saying so, then by the signal itself (a shell
    says 143 or 129). Before, the export died at once and left its workers running."""
    import signal

    signum = getattr(signal, signame)
    if when == "rows written":
        proc = _export_in_own_group(built.file(big_eval), tmp_path / "stderr", bufsize=0)
        assert proc.stdout is not None
        first = proc.stdout.readline()  # rows are being written: the workers hold the rest
        assert first.startswith(b"{")
    else:
        proc = _export_in_own_group(built.file(big_jsonl), tmp_path / "stderr", ROUNDS)
        _once_it_has_workers(proc)
        first = b""
    if to == "the export":
        os.kill(proc.pid, signum)
    else:
        os.killpg(proc.pid, signum)
    out, _ = proc.communicate(timeout=60)
    err = (tmp_path / "stderr").read_bytes()
    assert proc.returncode == -signum, err
    assert f"turnlens export: ended by {signame}".encode() in err and b"Traceback" not in err
    written = first + out
    assert written == b"" or written.endswith(b"\n")
    for row in written.splitlines():
        assert row.startswith(b"{") and row.endswith(b"}"), row[:300]  # whole rows only
    _assert_no_survivor(proc)


def test_sighup_ignored_when_the_export_started_stays_ignored(built, tmp_path):
    """`nohup turnlens export …`: SIGHUP ignored from the start (the terminal closing) changes nothing: the export
    writes every row and exits 0."""
    import signal

    path = built.file(big_eval)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "turnlens", "export", str(path), "--repo-root", str(path.parent)],
        cwd=path.parent,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
        start_new_session=True,
        bufsize=0,
        preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_IGN),
    )
    assert proc.stdout is not None
    first = proc.stdout.readline()
    os.killpg(proc.pid, signal.SIGHUP)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 0
    assert first + out == built.run(export, path).stdout
    _assert_no_survivor(proc)
