"""Results view at scale: time to first result vs toolong, peak memory, full index time. Prints figures.

    .venv/bin/python benchmarks/bench_results.py                # 400 MB file
    .venv/bin/python benchmarks/bench_results.py --size-mb 800  # the 800 MB case
    .venv/bin/python benchmarks/bench_results.py --no-toolong   # skip the comparison
    .venv/bin/python benchmarks/bench_results.py --install-toolong  # first make toolong's own venv

Both apps run for real in a headless tmux pane (same size); the clock starts when tmux launches the command and
stops when `tmux capture-pane` first shows a record of the file (turnlens: a result row; toolong: a JSON line).
Peak memory is the turnlens process's VmHWM once its header says the file is indexed, plus its index worker
processes' (TreePeak). The file is read from the page cache (warm), like a file an author just wrote; the generator
writes it once into benchmarks/out/.

toolong pins an old Textual (0.58), so it is installed into its own venv, benchmarks/out/toolong-venv
(--install-toolong does `python3 -m venv benchmarks/out/toolong-venv && …/bin/pip install toolong`), never
into the project's venv, whose Textual it would downgrade. Targets (issue 4): first result in at most half
toolong's time, peak RSS < 150 MiB, full index < 5 s.
"""

from __future__ import annotations

import argparse
import atexit
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
OUT = os.path.join(HERE, "out")
TURNLENS = os.path.join(ROOT, ".venv", "bin", "turnlens")
TOOLONG = os.path.join(OUT, "toolong-venv", "bin", "tl")
# Settings the user chose in the app (a theme, a remembered threshold) are not the benchmark's: every run starts from
# none.
SETTINGS_HOME = tempfile.mkdtemp(prefix="turnlens-bench-settings-")
atexit.register(shutil.rmtree, SETTINGS_HOME, ignore_errors=True)
SESSION = "turnlens-bench"
# A tmux server of our own: another one on the machine may carry other environment variables, and its sessions are
# not ours to replace.
SOCKET = f"turnlens-bench-{os.getpid()}"
WIDTH, HEIGHT = 160, 48

sys.path.insert(0, HERE)
from results_data import write_results  # noqa: E402


def install_toolong() -> None:
    venv = os.path.dirname(os.path.dirname(TOOLONG))
    if not os.path.exists(os.path.join(venv, "bin", "python")):
        subprocess.run(["python3", "-m", "venv", venv], check=True)
    subprocess.run([os.path.join(venv, "bin", "pip"), "install", "-q", "toolong"], check=True)


def ensure_file(size_mb: int) -> str:
    path = os.path.join(OUT, f"results-{size_mb}mb.jsonl")
    want = size_mb * 1024 * 1024
    if not os.path.exists(path) or os.path.getsize(path) < want:
        os.makedirs(OUT, exist_ok=True)
        started = time.perf_counter()
        count = write_results(path, want)
        print(f"generated {path}: {count:,} results in {time.perf_counter() - started:.1f}s")
    with open(path, "rb") as handle:  # warm the page cache, as for a file just written
        while handle.read(16 * 1024 * 1024):
            pass
    return path


def tmux(*args: str) -> str:
    return subprocess.run(["tmux", "-L", SOCKET, *args], capture_output=True, text=True).stdout


def kill_session() -> None:
    subprocess.run(["tmux", "-L", SOCKET, "kill-session", "-t", SESSION], capture_output=True)


def kill_server() -> None:
    subprocess.run(["tmux", "-L", SOCKET, "kill-server"], capture_output=True)


_server: list[bool] = []


def _keep_server() -> None:
    """An idle session keeps our server up between runs: killing the last session stops the server, and the next
    run's new-session could reach it while it was stopping ("server exited unexpectedly")."""
    if not _server:
        subprocess.run(["tmux", "-L", SOCKET, "new-session", "-d", "-s", "keeper", "sleep 86400"], check=True)
        atexit.register(kill_server)
        _server.append(True)


def launch(command: str) -> tuple[float, int]:
    _keep_server()
    kill_session()
    started = time.perf_counter()
    # Both apps run from their bytecode caches, as installed (pip compiles them at install): with
    # PYTHONDONTWRITEBYTECODE set, turnlens (an editable install, never compiled by pip) compiled its sources first on
    # every timed run (~0.1 s) while toolong's were compiled.
    subprocess.run(
        ["tmux", "-L", SOCKET, "new-session", "-d", "-s", SESSION, "-x", str(WIDTH), "-y", str(HEIGHT),
         f"exec env -u PYTHONDONTWRITEBYTECODE XDG_CONFIG_HOME={SETTINGS_HOME} {command}"],
        check=True,
        env={**os.environ, "TERM": "xterm-256color"},
    )  # fmt: skip
    pid = int(tmux("display-message", "-p", "-t", SESSION, "#{pane_pid}").strip())
    return started, pid


def wait_for(predicate, started: float, timeout: float, every=None) -> float | None:
    """Seconds from `started` until the pane's text satisfies `predicate`, looked at every 5 ms; or every
    `every(screen)` seconds when given (each look starts a tmux client, ~4 ms of CPU: a long wait looked at every
    5 ms takes a good part of a core from what it times)."""
    while time.perf_counter() - started < timeout:
        screen = tmux("capture-pane", "-p", "-t", SESSION)
        if predicate(screen):
            return time.perf_counter() - started
        time.sleep(0.005 if every is None else every(screen))
    return None


def indexed_at(screen: str) -> bool:
    """The results header says the run is indexed."""
    return any(line.startswith(" indexed") for line in screen.splitlines())


def until_indexed(screen: str) -> float:
    """How long to wait before looking again while a big run is indexed: 50 ms until the header's progress is past
    90%, then 5 ms (the index's end is timed to within 5 ms, and the looks before take little CPU from it)."""
    found = re.search(r"^ indexing .*?(\d+)%", screen, re.MULTILINE)
    return 0.05 if found is not None and int(found.group(1)) < 90 else 0.005


def cpu_seconds(pid: int) -> float | None:
    """CPU time the process has used so far (user + system, all its threads). On a busy machine wall times stretch
    with the load; the CPU time an app needs before its first line is on screen stretches much less."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def tree_cpu_seconds(pid: int) -> tuple[float, float] | None:
    """CPU time of the process, and of its children it has waited for (the index's worker processes, once done)."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    tick = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / tick, (int(fields[13]) + int(fields[14])) / tick


def descendants(pid: int) -> list[int]:
    found, todo = [], [pid]
    while todo:
        parent = todo.pop()
        try:
            tasks = os.listdir(f"/proc/{parent}/task")
        except OSError:
            continue
        for task in tasks:
            try:
                with open(f"/proc/{parent}/task/{task}/children") as handle:
                    children = [int(child) for child in handle.read().split()]
            except OSError:
                continue
            found.extend(children)
            todo.extend(children)
    return found


def _cmdline(pid: int) -> bytes | None:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            return handle.read()
    except OSError:
        return None


class TreePeak:
    """The peak memory of a process and its children (the index's worker processes): each one's VmHWM, sampled every
    few ms while it lives, added up. A sum of peaks, so at least the tree's real peak."""

    def __init__(self, pid: int) -> None:
        import threading

        self.pid = pid
        self.peaks: dict[int, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()

    def _sample(self) -> None:
        own = _cmdline(self.pid)
        while not self._stop.is_set():
            # (a child not yet exec'd shares the app's pages and shows its size: counted once it runs its own program)
            for pid in [self.pid, *(child for child in descendants(self.pid) if _cmdline(child) != own)]:
                peak = vm_hwm_mib(pid)
                if peak is not None:
                    self.peaks[pid] = max(peak, self.peaks.get(pid, 0.0))
            self._stop.wait(0.01)

    def stop(self) -> tuple[float, float, int]:
        """(the process's own peak, the tree's, how many children were seen), in MiB."""
        self._stop.set()
        self._thread.join()
        own = self.peaks.get(self.pid, 0.0)
        return own, sum(self.peaks.values()), len(self.peaks) - 1


def vm_hwm_mib(pid: int) -> float | None:
    try:
        with open(f"/proc/{pid}/status") as handle:
            for line in handle:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def shows_result_row(screen: str) -> bool:
    return any(("case-0" in line and ("✓" in line or "✗" in line or " · " in line)) for line in screen.splitlines())


def shows_json_line(screen: str) -> bool:
    return '"eval_id"' in screen or '{"timestamp"' in screen


def run_turnlens(path: str, timeout: float) -> dict:
    started, pid = launch(f"{TURNLENS} {path}")
    tree = TreePeak(pid)
    first = wait_for(shows_result_row, started, timeout)
    indexed = wait_for(indexed_at, started, timeout, until_indexed)
    screen = tmux("capture-pane", "-p", "-t", SESSION)
    hwm = tree.stop()[1]
    reported = None
    for line in screen.splitlines():
        if "indexed in" in line:
            reported = line.split("indexed in", 1)[1].split("s", 1)[0].strip()
        elif line.startswith(" indexed") and reported is None:
            reported = "<0.5"
    kill_session()
    return {"first": first, "indexed": indexed, "reported_index_s": reported, "peak_rss_mib": hwm}


def run_toolong(path: str, timeout: float) -> dict:
    started, _pid = launch(f"{TOOLONG} {path}")
    first = wait_for(shows_json_line, started, timeout)
    kill_session()
    return {"first": first}


def in_process_index(path: str) -> tuple[float, int]:
    sys.path.insert(0, ROOT)
    from turnlens.formatting.results.index import ResultsFile

    results = ResultsFile(path)
    started = time.perf_counter()
    for _ in results.scan():
        pass
    elapsed = time.perf_counter() - started
    results.close()
    return elapsed, results.count


def export_sizes(folder: str) -> None:
    """Bytes of `turnlens export --format …` for the sample results (the README's TOON figure)."""
    import io

    sys.path.insert(0, ROOT)
    from turnlens.formatting.export.results import export_results
    from turnlens.formatting.results.discover import expand_results_paths

    sources, _ = expand_results_paths([folder])
    files = [source.path for source in sources]
    if not files:
        return
    raw = sum(os.path.getsize(f) for f in files)
    import re

    sizes, tokens = {}, {}
    for fmt_name in ("jsonl", "toon", "markdown"):
        out = io.StringIO()
        export_results(files, fmt_name, out)
        text = out.getvalue()
        sizes[fmt_name] = len(text.encode("utf-8"))
        # a rough token estimate, no real tokenizer: each word and each punctuation mark counts one
        tokens[fmt_name] = len(re.findall(r"\w+|[^\w\s]", text))
    print(f"export of {os.path.relpath(folder, ROOT)} ({len(files)} files, {raw:,} bytes as recorded):")
    for fmt_name in sizes:
        print(f"  {fmt_name:<8} {sizes[fmt_name]:>9,} bytes  ~{tokens[fmt_name]:>7,} tokens (words + punctuation)")
    print(
        f"  TOON vs JSONL: {1 - sizes['toon'] / sizes['jsonl']:.1%} fewer bytes, "
        f"{1 - tokens['toon'] / tokens['jsonl']:.1%} fewer rough tokens"
    )


def median(values: list) -> float | None:
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def fmt(value: float | None, unit: str = "s") -> str:
    return "n/a" if value is None else f"{value:.3f}{unit}" if unit == "s" else f"{value:.1f}{unit}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size-mb", type=int, default=400)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--no-toolong", action="store_true")
    parser.add_argument("--install-toolong", action="store_true", help="create benchmarks/out/toolong-venv first")
    args = parser.parse_args()
    if args.install_toolong:
        install_toolong()
    if not shutil.which("tmux"):
        print("tmux is needed to run both apps headless", file=sys.stderr)
        return 2
    export_sizes(os.path.join(ROOT, "sample_evals", ".agentv", "results"))
    path = ensure_file(args.size_mb)
    size_mib = os.path.getsize(path) / 1024 / 1024
    index_s, count = in_process_index(path)
    print(f"file: {os.path.relpath(path, ROOT)}  {size_mib:,.0f} MiB  {count:,} results")
    print(f"index (in process, no UI): {index_s:.2f}s  ({size_mib / index_s:,.0f} MiB/s)")

    have_toolong = not args.no_toolong and os.path.exists(TOOLONG)
    if not args.no_toolong and not have_toolong:
        print(f"toolong: not installed at {os.path.relpath(TOOLONG, ROOT)} (see this file's docstring)")
    # one untimed run of each first: the bytecode caches are written, the files are in the page cache
    run_turnlens(path, args.timeout)
    if have_toolong:
        run_toolong(path, args.timeout)
    # interleaved, so that a busy moment of the machine hits both apps alike
    ours, theirs = [], []
    for _ in range(args.repeat):
        ours.append(run_turnlens(path, args.timeout))
        if have_toolong:
            theirs.append(run_toolong(path, args.timeout))
    kill_server()
    first = median([r["first"] for r in ours])
    indexed = median([r["indexed"] for r in ours])
    peak = max((r["peak_rss_mib"] or 0) for r in ours)
    print(f"turnlens: first result on screen {fmt(first)} median (runs: {', '.join(fmt(r['first']) for r in ours)})")
    print(
        f"turnlens: whole file indexed, on screen {fmt(indexed)} after launch; "
        f"index worker reported {', '.join(str(r['reported_index_s']) + 's' for r in ours)}"
    )
    print(f"turnlens: peak RSS {peak:.1f} MiB (VmHWM)")
    theirs_first = median([r["first"] for r in theirs]) if theirs else None
    if theirs:
        print(
            f"toolong:  first line on screen {fmt(theirs_first)} median "
            f"(runs: {', '.join(fmt(r['first']) for r in theirs)})"
        )

    print("targets:")
    if theirs_first and first:
        ratio = first / theirs_first
        print(f"  first result <= 0.5 x toolong: {ratio:.2f} x  {'OK' if ratio <= 0.5 else 'MISSED'}")
    print(f"  peak RSS < 150 MiB: {peak:.1f} MiB  {'OK' if peak < 150 else 'MISSED'}")
    print(
        f"  full index < 5 s: {fmt(index_s)} in process, {fmt(indexed)} on screen  "
        f"{'OK' if indexed is not None and indexed < 5 else 'MISSED'}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
