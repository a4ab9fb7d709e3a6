"""Do the garbage-collector tricks of formatting/gcpause.py pay? Each one timed with and without, same run.

    .venv/bin/python benchmarks/bench_gc.py [--runs 5] [--cases 5000]

1. `paused()` around the YAML parse: loading the generated 5,000-case eval file (benchmarks/bench_export.py).
2. `paused()` + `keep_long_lived()` around `turnlens export` of that file, the whole process.
3. `keep_long_lived()` in the inspector (what is loaded, and each case view built): case switches through the
   cases of the 5,000-case file after loading, drawn, timed as benchmarks/bench_tui.py does.
"Without" replaces the trick by a no-op in a fresh process; both sides alternate, medians printed.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

PATCH = r"""
import contextlib, sys
import turnlens.formatting.gcpause as gcpause
if sys.argv[1] == "without-pause":
    gcpause.paused = contextlib.nullcontext
if sys.argv[1] == "without-freeze":
    gcpause.keep_long_lived = lambda: None
"""

LOAD = (
    PATCH
    + r"""
import time
from turnlens.formatting.dialects.load import load_eval_file
start = time.perf_counter()
load_eval_file(sys.argv[2], repo_root=sys.argv[3])
print(time.perf_counter() - start)
"""
)

EXPORT = (
    PATCH
    + r"""
from turnlens.tui.export_cli import main
sys.stdout = open("/dev/null", "w")
main([sys.argv[2], "--repo-root", sys.argv[3], "--quiet"])
"""
)

SWITCH = (
    PATCH
    + r"""
import asyncio, time
from turnlens.tui.app import make_app

async def go():
    app = make_app([sys.argv[2]], repo_root=sys.argv[3], watch=False)
    frames = []
    async with app.run_test(size=(200, 50)) as pilot:
        screen = app.screen
        while not screen.loaded:
            await pilot.pause(0.05)
        await pilot.pause(0.5)
        display = app._display
        def timed(*a, **k):
            display(*a, **k)
            frames.append(time.perf_counter())
        app._display = timed
        times = []
        for key in screen.session.case_keys()[1:301]:
            start = time.perf_counter()
            screen.select_case(key)
            while screen.current != key:
                await asyncio.sleep(0)
            seen = len(frames)
            while len(frames) == seen:
                await asyncio.sleep(0.001)
            times.append(frames[seen] - start)
    times.sort()
    print(statistics.median(times), times[int(len(times) * 0.95)], max(times))

import statistics
asyncio.run(go())
"""
)


def run(code: str, variant: str, path: Path, root: Path) -> str:
    out = subprocess.run(
        [sys.executable, "-c", code, variant, str(path), str(root)], capture_output=True, text=True, check=True
    )
    return out.stdout.strip()


def timed(code: str, variant: str, path: Path, root: Path) -> float:
    start = time.perf_counter()
    run(code, variant, path, root)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--cases", type=int, default=5000)
    parser.add_argument("--only", type=int, choices=(1, 2, 3), help="run only this measure")
    args = parser.parse_args()
    sys.path.insert(0, str(REPO / "benchmarks"))
    from bench_export import make_repo

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        path = make_repo(root, args.cases)

        def compare(name: str, measure) -> None:
            with_, without = [], []
            for _ in range(args.runs):
                with_.append(measure("with"))
                without.append(measure("without"))
            a, b = statistics.median(with_), statistics.median(without)
            print(f"{name}: with {a * 1000:.0f} ms, without {b * 1000:.0f} ms (without/with {b / a:.2f})")

        if args.only in (None, 1):
            compare(
                f"1. load {args.cases} cases (parse paused)",
                lambda v: float(run(LOAD, v if v == "with" else "without-pause", path, root)),
            )
        if args.only in (None, 2):
            compare(
                "2. turnlens export, whole process (paused, frozen at the end)",
                lambda v: timed(EXPORT, v if v == "with" else "without-pause", path, root),
            )
        for variant in ("with", "without-freeze") if args.only in (None, 3) else ():
            medians = [run(SWITCH, variant, path, root).split() for _ in range(max(1, args.runs // 2))]
            figures = " | ".join(
                f"median {float(m[0]) * 1000:.1f} ms, p95 {float(m[1]) * 1000:.1f}, max {float(m[2]) * 1000:.1f}"
                for m in medians
            )
            print(f"3. inspector case switch, 300 cases of {args.cases}, {variant}: {figures}")


if __name__ == "__main__":
    main()
