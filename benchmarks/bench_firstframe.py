"""The inspector's first case on screen at any size, and its memory, as ratios to a bare Textual app.

    .venv/bin/python benchmarks/bench_firstframe.py [--runs 5] [--cases 5000] [--files 300] [--tests 50000]
        [--no-walk] [--walk-stride 2]

Each figure is a fresh process, timed from its start to the first frame the app writes with a case in it (for the
reference: a bare Textual app with one Static and a Footer, its first frame), headless at 200x50, median of --runs;
turnlens is made as the `turnlens PATH --no-watch` command makes it (tui/cli.open_app), both from their bytecode;
the runs of every input are interleaved (bare, then each input, again and again) so that a busy machine weighs on
all alike. Inputs: the bundled sample_evals/, one generated 0.15 eval file of --cases cases (benchmarks/
bench_export.py's generator), a generated folder of --files eval files, and a generated AgentV 4 JSONL dataset of
--tests tests. Target: every ratio <= 2. Also printed: how long until everything is loaded and listed.

Memory, on the big file: RSS once everything is loaded, then while walking through the cases in order (as the case
list's next-case key does, each switch drawn), sampled at each quarter of the walk, and the peak; targets: peak < 120
MiB, and flat: at most 1 MiB more at the end of the walk than half-way (what grows in the first half is bounded caches
filling, Textual's and Rich's among them). A drawn switch at 200x50 is ~50 ms of CPU, so by default the walk takes
every second case (--walk-stride 2: 2,500 switches on 5,000 cases, about two minutes); --walk-stride 1 walks every
case.
"""

from __future__ import annotations

import argparse
import atexit
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
# Every process runs from its bytecode caches, as an installed app does (pip compiles what it installs; Textual's
# are). With PYTHONDONTWRITEBYTECODE set, turnlens (an editable install, never compiled by pip) compiled its sources
# on every timed run, ~0.1 s the bare app never paid; the untimed first runs write the caches.
# Settings the user chose in the app (a theme, a threshold) are not the benchmark's: every run starts from none.
SETTINGS_HOME = tempfile.mkdtemp(prefix="turnlens-bench-settings-")
atexit.register(shutil.rmtree, SETTINGS_HOME, ignore_errors=True)
ENV = {**{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}, "XDG_CONFIG_HOME": SETTINGS_HOME}
SIZE = (200, 50)
GOAL_RATIO = 2.0
GOAL_RSS_MIB = 120
GOAL_GROWTH_MIB = 1.0  # "flat": RSS from half-way through the walk to its end

BARE = r"""
import os, sys, time
from textual.app import App
from textual.widgets import Footer, Static

class Bare(App):
    def compose(self):
        yield Static("turnlens")
        yield Footer()

app = Bare()
display = app._display

def timed_display(screen, renderable):
    display(screen, renderable)
    if renderable is not None and not getattr(app, "_first", False):
        app._first = True
        print("FIRST", time.perf_counter(), flush=True)
        print("CPU", time.process_time(), flush=True)
        if sys.argv[1:] == ["count"]:
            os._exit(0)  # (counted by instructions: nothing after the first frame)
        app.exit()

app._display = timed_display
app.run(headless=True, size=(200, 50))
"""

# Stamps the first frame written once a case is on screen; with --walk, then waits for the whole load and walks
# every case (one drawn frame each), printing RSS figures. The app is the one `turnlens PATH --no-watch` runs, made
# as the command makes it (tui/cli.open_app: its options parsed, Textual and the app imported, the app made), only
# run headless and without the check that the process has a terminal.
INSPECTOR = r"""
import asyncio, os, sys, time
from turnlens.tui import cli

path, walk = sys.argv[1], sys.argv[2] == "walk"
stride = int(sys.argv[3]) if walk else 1
start = time.perf_counter()
app = cli.open_app(([path] if path != "-" else []) + ["--no-watch"], terminal=False)
from turnlens.tui.inspector.screen import InspectorScreen
display = app._display
frames = [0]

def status_mib(field):  # VmRSS: resident now; VmHWM: its peak (the same count)
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith(field + ":")) / 1024

def rss_mib():
    return status_mib("VmRSS")

def peak_mib():
    return status_mib("VmHWM")

async def walk_all(screen):
    while not screen.loaded:
        await asyncio.sleep(0.02)
    print("LOADED", time.perf_counter(), flush=True)
    await asyncio.sleep(0.5)
    keys = screen.session.case_keys()
    walked = keys[::stride]
    out = {"cases": len(keys), "switches": len(walked), "loaded_rss": rss_mib(), "loaded_peak": peak_mib(), "walk": []}
    marks = {len(walked) * q // 4 - 1 for q in (1, 2, 3, 4)}
    for n, key in enumerate(walked):
        seen = frames[0]
        if key != screen.current:
            screen.select_case(key)
            while frames[0] == seen:
                await asyncio.sleep(0.001)
        if n in marks:
            out["walk"].append(rss_mib())
    out["peak"] = peak_mib()
    import json  # (only here: the bare app's probe imports no more than it needs either)

    print("WALK", json.dumps(out), flush=True)
    app.exit()

def timed_display(screen, renderable):
    display(screen, renderable)
    if renderable is None:
        return
    frames[0] += 1
    if not getattr(app, "_first", False) and isinstance(app.screen, InspectorScreen) and app.screen.current:
        app._first = True
        print("FIRST", time.perf_counter(), flush=True)
        print("CPU", time.process_time(), flush=True)
        if walk or sys.argv[2] == "all":
            app.run_worker(walk_all(app.screen) if walk else loaded(app.screen))
        elif sys.argv[2] == "count":
            os._exit(0)  # (counted by instructions: nothing after the first frame)
        else:
            app.exit()

async def loaded(screen):
    while not screen.loaded:
        await asyncio.sleep(0.02)
    print("LOADED", time.perf_counter(), flush=True)
    app.exit()

app._display = timed_display
app.run(headless=True, size=(200, 50))
"""


def run(code: str, args: list[str]) -> tuple[float, list[str]]:
    """Seconds from process start to its FIRST stamp, and its output lines."""
    start = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-c", code, *args], cwd=REPO, capture_output=True, text=True, check=True, env=ENV
    )
    lines = out.stdout.splitlines()
    first = next(line for line in lines if line.startswith("FIRST"))
    # perf_counter is system-wide monotonic on Linux, so the child's stamp compares with ours.
    return float(first.split()[1]) - start, [f"{line} {start}" for line in lines]


def stamp(lines: list[str], name: str) -> float | None:
    """Seconds from process start to the stamp `name`."""
    for line in lines:
        if line.startswith(name + " "):
            _, at, start = line.split()
            return float(at) - float(start)
    return None


def make_jsonl(root: Path, tests: int) -> Path:
    """An AgentV 4 JSONL dataset: a question, a system+user conversation, a multi-turn one, expected outputs."""
    (root / ".git").mkdir(parents=True, exist_ok=True)
    lines = []
    for n in range(tests):
        kind = n % 4
        if kind == 0:
            value: object = f"What is {n} + {n}?"
        elif kind == 1:
            value = [{"role": "system", "content": "Be exact."}, {"role": "user", "content": f"Question {n}?"}]
        elif kind == 2:
            value = [
                {"role": "user", "content": f"Start {n}"},
                {"role": "assistant", "content": "Working"},
                {"role": "user", "content": "Continue"},
            ]
        else:
            value = f"Explain case {n} briefly."
        test = {"id": f"test-{n:05d}", "criteria": f"Answers case {n} correctly.", "input": value}
        if n % 3 == 0:
            test["expected_output"] = f"Answer {n}"
        lines.append(json.dumps(test))
    path = root / "dataset.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def make_folder(root: Path, files: int) -> Path:
    """`files` eval files of 12 cases each, in nested folders, as a repository of many suites would hold."""
    (root / ".git").mkdir(parents=True, exist_ok=True)
    folder = root / "evals"
    for n in range(files):
        path = folder / f"suite{n // 50}" / f"eval{n:03d}.yaml"
        path.parent.mkdir(parents=True, exist_ok=True)
        cases = "".join(
            f"  - id: s{n}-case-{k}\n    outcome: answered\n    input_messages:\n"
            f"      - {{role: system, content: Be brief.}}\n      - {{role: user, content: Question {k} of {n}?}}\n"
            for k in range(12)
        )
        path.write_text("$schema: agentv-eval-v2\nevalcases:\n" + cases)
    return folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--cases", type=int, default=5000)
    parser.add_argument("--files", type=int, default=300)
    parser.add_argument("--tests", type=int, default=50000)
    parser.add_argument("--no-walk", action="store_true", help="skip the memory walk through the cases")
    parser.add_argument("--walk-stride", type=int, default=2, help="walk every Nth case (1: every case)")
    args = parser.parse_args()
    sys.path.insert(0, str(REPO / "benchmarks"))
    from bench_export import make_repo

    with tempfile.TemporaryDirectory() as tmp:
        big = make_repo(Path(tmp) / "big", args.cases)
        inputs = {
            "sample_evals/": "-",
            f"one eval file of {args.cases} cases": str(big),
            f"a folder of {args.files} eval files": str(make_folder(Path(tmp) / "many", args.files)),
            f"a JSONL dataset of {args.tests} tests": str(make_jsonl(Path(tmp) / "jsonl", args.tests)),
        }
        run(BARE, [])  # warm the file cache and bytecode
        for target in inputs.values():
            run(INSPECTOR, [target, "first"])
        bare: list[float] = []
        firsts: dict[str, list[float]] = {name: [] for name in inputs}
        everything: dict[str, list[float]] = {name: [] for name in inputs}
        for n in range(args.runs):
            bare.append(run(BARE, [])[0])
            for name, target in inputs.items():
                # The first run of each also waits for the whole load (the others exit at the first frame).
                seconds, lines = run(INSPECTOR, [target, "all" if n == 0 else "first"])
                firsts[name].append(seconds)
                loaded = stamp(lines, "LOADED")
                if loaded is not None:
                    everything[name].append(loaded)
        reference = statistics.median(bare)
        print(f"bare Textual app (Static + Footer), first frame: {reference * 1000:.0f} ms (median of {args.runs})")
        for name in inputs:
            seconds = statistics.median(firsts[name])
            verdict = "ok" if seconds / reference <= GOAL_RATIO else "MISSES"
            whole = f"; all loaded and listed after {everything[name][0]:.1f} s" if everything[name] else ""
            print(
                f"first case on screen, {name:36s} {seconds * 1000:6.0f} ms  ratio {seconds / reference:4.2f}"
                f"  (goal <= {GOAL_RATIO:.0f}) {verdict}{whole}"
            )
        if not args.no_walk:
            _, lines = run(INSPECTOR, [str(big), "walk", str(max(1, args.walk_stride))])
            walk = json.loads(next(line for line in lines if line.startswith("WALK"))[5:].rsplit(" ", 1)[0])
            quarters = ", ".join(f"{mib:.1f}" for mib in walk["walk"])
            growth = walk["walk"][-1] - walk["walk"][1]
            verdict = "ok" if walk["peak"] < GOAL_RSS_MIB and growth <= GOAL_GROWTH_MIB else "MISSES"
            which = "every case" if args.walk_stride <= 1 else f"one case in {args.walk_stride}"
            print(
                f"memory, {walk['cases']} cases: RSS {walk['loaded_rss']:.1f} MiB when loaded; walking {which} "
                f"({walk['switches']} switches, each drawn): {quarters} MiB at each quarter, {growth:+.1f} MiB "
                f"over the second half; peak {walk['peak']:.1f} MiB  (goal < {GOAL_RSS_MIB}, "
                f"at most +{GOAL_GROWTH_MIB:.0f} over the second half) {verdict}"
            )


if __name__ == "__main__":
    os.environ.pop("NO_COLOR", None)
    main()
