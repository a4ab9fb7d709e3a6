"""The inspector's first case on screen at any size, and its memory, as ratios to a bare Textual app.

    .venv/bin/python benchmarks/bench_firstframe.py [--runs 5] [--cases 5000] [--files 300] [--no-walk]

Each figure is a fresh process, timed from its start to the first frame the app writes with a case in it (for the
reference: a bare Textual app with one Static and a Footer, its first frame), headless at 200x50, median of --runs.
Inputs: the bundled sample_evals/, one generated eval file of --cases cases (benchmarks/bench_export.py's
generator), a generated folder of --files eval files. Target: every ratio <= 2.

Memory, on the big file: peak RSS once everything is loaded, then while walking through every case in order (the
case list's next-case key, each switch drawn), sampled at each quarter of the walk; target < 120 MiB and flat.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SIZE = (200, 50)
GOAL_RATIO = 2.0
GOAL_RSS_MIB = 120

BARE = r"""
import sys, time
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
        app.exit()

app._display = timed_display
app.run(headless=True, size=(200, 50))
"""

# Stamps the first frame written once a case is on screen; with --walk, then waits for the whole load and walks
# every case (one drawn frame each), printing RSS figures.
INSPECTOR = r"""
import asyncio, json, resource, sys, time
from turnlens.tui.app import make_app
from turnlens.tui.inspector import InspectorScreen

path, walk = sys.argv[1], sys.argv[2] == "walk"
app = make_app([path] if path != "-" else [], watch=False)
display = app._display
frames = [0]

def rss_mib():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096 / 2**20

def peak_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

async def walk_all(screen):
    while not screen.loaded:
        await asyncio.sleep(0.02)
    await asyncio.sleep(0.5)
    keys = screen.session.case_keys()
    out = {"cases": len(keys), "loaded_rss": rss_mib(), "loaded_peak": peak_mib(), "walk": []}
    marks = {len(keys) * q // 4 - 1 for q in (1, 2, 3, 4)}
    for n, key in enumerate(keys):
        seen = frames[0]
        screen.select_case(key)
        while frames[0] == seen:
            await asyncio.sleep(0.001)
        if n in marks:
            out["walk"].append(rss_mib())
    out["peak"] = peak_mib()
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
        if walk:
            app.run_worker(walk_all(app.screen))
        else:
            app.exit()

app._display = timed_display
app.run(headless=True, size=(200, 50))
"""


def first_frame(code: str, args: list[str], runs: int) -> tuple[float, list[str]]:
    """Median seconds from process start to its first FIRST stamp; the last run's other output lines."""
    times = []
    lines: list[str] = []
    for _ in range(runs):
        start = time.perf_counter()
        out = subprocess.run(
            [sys.executable, "-c", code, *args], cwd=REPO, capture_output=True, text=True, check=True
        ).stdout
        lines = out.splitlines()
        first = next(line for line in lines if line.startswith("FIRST"))
        # perf_counter is system-wide monotonic on Linux, so the child's stamp compares with ours.
        times.append(float(first.split()[1]) - start)
    return statistics.median(times), lines


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
    parser.add_argument("--no-walk", action="store_true", help="skip the memory walk through every case")
    args = parser.parse_args()
    sys.path.insert(0, str(REPO / "benchmarks"))
    from bench_export import make_repo

    with tempfile.TemporaryDirectory() as tmp:
        big = make_repo(Path(tmp) / "big", args.cases)
        folder = make_folder(Path(tmp) / "many", args.files)
        first_frame(BARE, [], 1)  # warm the file cache and bytecode
        bare, _ = first_frame(BARE, [], args.runs)
        print(f"bare Textual app (Static + Footer), first frame: {bare * 1000:.0f} ms (median of {args.runs})")
        for name, target in (
            ("sample_evals/", "-"),
            (f"one eval file of {args.cases} cases", str(big)),
            (f"a folder of {args.files} eval files", str(folder)),
        ):
            seconds, _ = first_frame(INSPECTOR, [target, "first"], args.runs)
            verdict = "ok" if seconds / bare <= GOAL_RATIO else "MISSES"
            print(
                f"first case on screen, {name:32s} {seconds * 1000:6.0f} ms  ratio {seconds / bare:4.2f}"
                f"  (goal <= {GOAL_RATIO:.0f}) {verdict}"
            )
        print("first case on screen, a 50,000-test AgentV 4 JSONL dataset: not measurable yet (no loader on main)")
        if not args.no_walk:
            _, lines = first_frame(INSPECTOR, [str(big), "walk"], 1)
            walk = json.loads(next(line for line in lines if line.startswith("WALK"))[5:])
            quarters = ", ".join(f"{mib:.0f}" for mib in walk["walk"])
            verdict = "ok" if walk["peak"] < GOAL_RSS_MIB else "MISSES"
            print(
                f"memory, {walk['cases']} cases: RSS {walk['loaded_rss']:.0f} MiB when loaded, "
                f"{quarters} MiB at each quarter of a walk through every case; peak {walk['peak']:.0f} MiB"
                f"  (goal < {GOAL_RSS_MIB}) {verdict}"
            )


if __name__ == "__main__":
    os.environ.pop("NO_COLOR", None)
    main()
