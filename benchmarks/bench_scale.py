"""Scale without cliffs (issue 23): the inspector and export on big inputs, each figure against a reference measured
in the same run.

    .venv/bin/python benchmarks/bench_scale.py [--runs 3] [--only listing,million,export] [--quit-after 2,6,12]

- listing: until every case is listed in the inspector (headless 200x50, the app as `turnlens PATH --no-watch`
  makes it; bench_firstframe.py's LOADED stamp, from process start), against `turnlens export` of the same input
  (whole process, output to a file), medians of --runs: a folder of 3,000 eval files, a 50,000-test JSONL dataset.
  Goal: <= 1.5x.
- million: a 1,000,000-test JSONL dataset (59 MB) and a 1,000,000-test AgentV 4 suite (35 MB): the app is told
  `q` (a key event, as the terminal sends it) --quit-after seconds after it started, while it is loading, and the
  time from the key to the end of the process is measured (the app's own exit path, `turnlens`'s os._exit
  included), with the peak resident memory; reference: a bare Textual app told `q` the same way. Goals: <= 1 s,
  peak < 300 MiB.
- export: peak resident memory of `turnlens export` (GNU time's %M: the largest process of the tree) on a 5,000- and a
  50,000-test AgentV 4 suite and JSONL dataset (goal: within 2x between them: flat in the input's size); and the
  50,000-test JSONL dataset's export time against the AgentV 4.42.4 oracle's (node; skipped when absent), goal <=
  0.2x.

The machine is shared: the figures move with its load (printed); compare the ratios.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "benchmarks"))

from bench_firstframe import ENV, INSPECTOR, make_folder, make_jsonl, run, stamp  # noqa: E402

TURNLENS = REPO / ".venv" / "bin" / "turnlens"
ORACLE = Path(os.environ.get("TURNLENS_ORACLE4", "/work/shared/oracle/agentv-4.42.4-oracle.cjs"))
GNU_TIME = "/usr/bin/time"

# Tells the app `q` after a delay, then stamps the key and, when the app has ended, its peak memory and the cases
# listed; it ends as `turnlens` does (tui/cli.py: os._exit once the terminal is restored).
QUIT = r"""
import sys, time
from textual import events
delay, path = float(sys.argv[1]), sys.argv[2]
if path == "-":
    from textual.app import App
    from textual.widgets import Footer, Static

    class Bare(App):
        BINDINGS = [("q", "quit", "Quit")]

        def compose(self):
            yield Static("bare")
            yield Footer()

    app = Bare()
else:
    from turnlens.tui import cli
    app = cli.open_app([path, "--no-watch"], terminal=False)

cases = [0]

def press_q():
    screen = app.screen
    cases[0] = len(screen.session.case_keys()) if hasattr(screen, "session") else 0
    print("Q", time.perf_counter(), flush=True)
    app.post_message(events.Key("q", "q"))

app.call_later(lambda: app.set_timer(delay, press_q))
app.run(headless=True, size=(200, 50))
with open("/proc/self/status") as f:
    peak = next(int(line.split()[1]) for line in f if line.startswith("VmHWM:")) / 1024
print("PEAK", peak, cases[0], flush=True)
from turnlens.formatting.export.output import exit_now
exit_now(0)
"""


def load() -> str:
    return f"load {os.getloadavg()[0]:.1f}"


def exported(path: Path, cwd: Path) -> tuple[float, float]:
    """Wall seconds and peak MiB (of the largest process) of `turnlens export PATH` (output to a file)."""
    with tempfile.TemporaryFile() as out, tempfile.NamedTemporaryFile("r") as peak:
        cmd = [str(TURNLENS), "export", str(path)]
        if os.path.exists(GNU_TIME):
            cmd = [GNU_TIME, "-f", "%M", "-o", peak.name, *cmd]
        start = time.perf_counter()
        subprocess.run(cmd, cwd=cwd, stdout=out, stderr=subprocess.DEVNULL, env=ENV, check=True)
        seconds = time.perf_counter() - start
        text = Path(peak.name).read_text().strip().splitlines()
        return seconds, (int(text[-1]) / 1024 if text else float("nan"))


def quit_after(delay: float, target: str) -> tuple[float, float, int]:
    """(seconds from the `q` key to the process's end, peak MiB, cases loaded) of one run."""
    proc = subprocess.Popen(
        [sys.executable, "-c", QUIT, str(delay), target], cwd=REPO, stdout=subprocess.PIPE, text=True, env=ENV
    )
    out, _ = proc.communicate(timeout=600)
    ended = time.perf_counter()
    lines = out.splitlines()
    pressed = float(next(line for line in lines if line.startswith("Q")).split()[1])
    _, peak, cases = next(line for line in lines if line.startswith("PEAK")).split()
    return ended - pressed, float(peak), int(cases)


def make_million_jsonl(root: Path, tests: int) -> Path:
    (root / ".git").mkdir(parents=True, exist_ok=True)
    path = root / "dataset.jsonl"
    with path.open("w") as out:
        for n in range(tests):
            out.write(f'{{"id":"t{n}","input":"What is {n}?","criteria":"ok"}}\n')
    return path


def make_million_suite(root: Path, tests: int) -> Path:
    (root / ".git").mkdir(parents=True, exist_ok=True)
    path = root / "evals" / "suite.eval.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as out:
        out.write("tests:\n")
        for n in range(tests):
            out.write(f"  - id: t{n}\n    criteria: ok\n    input: q{n}\n")
    return path


def listing(tmp: Path, runs: int) -> None:
    inputs = {
        "a folder of 3,000 eval files": make_folder(tmp / "folder", 3000),
        "a 50,000-test JSONL dataset": make_jsonl(tmp / "jsonl", 50000),
    }
    for name, target in inputs.items():
        exports, listings = [], []
        exported(target, target.parent)  # warm the caches
        for _ in range(runs):
            exports.append(exported(target, target.parent)[0])
            _, lines = run(INSPECTOR, [str(target), "all"])
            listings.append(stamp(lines, "LOADED") or float("nan"))
        listed, export = statistics.median(listings), statistics.median(exports)
        verdict = "ok" if listed / export <= 1.5 else "MISSES"
        print(
            f"every case listed, {name:30s} {listed:6.2f} s vs its export {export:6.2f} s: ratio {listed / export:4.2f}"
            f" (goal <= 1.5) {verdict}  [{load()}]"
        )


def million(tmp: Path, delays: list[float]) -> None:
    inputs = {
        "1,000,000-test JSONL": make_million_jsonl(tmp / "mjsonl", 1_000_000),
        "1,000,000-test YAML suite": make_million_suite(tmp / "myaml", 1_000_000),
    }
    for delay in delays:
        bare, _, _ = quit_after(delay, "-")
        for name, target in inputs.items():
            seconds, peak, cases = quit_after(delay, str(target))
            verdict = "ok" if seconds <= 1.0 and peak < 300 else "MISSES"
            print(
                f"q {delay:4.1f} s after start, {name:26s} ({target.stat().st_size >> 20} MB, {cases:,} cases loaded): "
                f"exit {seconds * 1000:5.0f} ms (bare app {bare * 1000:4.0f} ms), peak {peak:5.0f} MiB "
                f"(goals <= 1 s, < 300 MiB) {verdict}  [{load()}]"
            )


def export_memory(tmp: Path, runs: int) -> None:
    from bench_export4 import make_repo

    peaks: dict[str, list[float]] = {}
    for tests in (5000, 50000):
        root = tmp / f"suite{tests}"
        suite = make_repo(root, tests)
        jsonl = make_jsonl(tmp / f"jsonl{tests}", tests)
        peaks.setdefault("AgentV 4 suite", []).append(exported(suite, root)[1])
        peaks.setdefault("JSONL dataset", []).append(exported(jsonl, jsonl.parent)[1])
    for name, (small, big) in peaks.items():
        verdict = "ok" if big <= 2 * small else "MISSES"
        print(
            f"export peak memory, {name:15s}: 5,000 tests {small:5.0f} MiB, 50,000 tests {big:5.0f} MiB: "
            f"{big / small:4.2f}x (goal <= 2x) {verdict}"
        )
    node = shutil.which("node")
    if not node or not ORACLE.exists():
        print("JSONL export vs the oracle: skipped (node or the oracle not found)")
        return
    jsonl = tmp / "jsonl50000" / "dataset.jsonl"
    ours, theirs, our_peak, their_peak = [], [], 0.0, 0.0
    for _ in range(runs):
        seconds, our_peak = exported(jsonl, jsonl.parent)
        ours.append(seconds)
        with tempfile.TemporaryFile() as out, tempfile.NamedTemporaryFile("r") as peak:
            cmd = [node, str(ORACLE), jsonl.name, "."]
            if os.path.exists(GNU_TIME):
                cmd = [GNU_TIME, "-f", "%M", "-o", peak.name, *cmd]
            start = time.perf_counter()
            subprocess.run(cmd, cwd=jsonl.parent, stdout=out, stderr=subprocess.DEVNULL, env=ENV, check=True)
            theirs.append(time.perf_counter() - start)
            text = Path(peak.name).read_text().strip().splitlines()
            their_peak = int(text[-1]) / 1024 if text else float("nan")
    ratio = statistics.median(ours) / statistics.median(theirs)
    print(
        f"export of the 50,000-test JSONL dataset: {statistics.median(ours) * 1000:.0f} ms vs the oracle's "
        f"{statistics.median(theirs) * 1000:.0f} ms: {ratio:.2f}x (goal <= 0.2x) {'ok' if ratio <= 0.2 else 'MISSES'}"
        f"; memory {our_peak:.0f} vs {their_peak:.0f} MiB  [{load()}]"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--only", default="listing,million,export")
    parser.add_argument("--quit-after", default="2,6,12", help="seconds after start at which q is pressed")
    args = parser.parse_args()
    parts = set(args.only.split(","))
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        if "listing" in parts:
            listing(tmp, args.runs)
        if "million" in parts:
            million(tmp, [float(x) for x in args.quit_after.split(",")])
        if "export" in parts:
            export_memory(tmp, args.runs)


if __name__ == "__main__":
    os.environ.pop("NO_COLOR", None)
    main()
