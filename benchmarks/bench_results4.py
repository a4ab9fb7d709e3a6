"""Results view on an AgentV 4 run folder of 50,000 tests with per-test artifacts. Prints figures as ratios.

    .venv/bin/python benchmarks/bench_results4.py                 # 50,000 tests
    .venv/bin/python benchmarks/bench_results4.py --tests 10000
    .venv/bin/python benchmarks/bench_results4.py --install-toolong

The run folder (benchmarks/out/run4-<N>/) is written once: index.jsonl with AgentV 4's slim rows (scores[] with
assertions and evidence, tokens, cost, duration, artifact paths) and, per test, `<suite>/<test_id>/` with
grading.json, timing.json, input.md and outputs/answer.md. Both apps run for real in a headless tmux pane of the
same size (as benchmarks/bench_results.py does): the clock starts when tmux launches the command and stops when
`tmux capture-pane` first shows a row (turnlens: a result row; toolong: a JSON line of index.jsonl). Then:
- peak memory: the turnlens process's VmHWM once its header says the run is indexed;
- whole index: when the header says indexed (and the index timed in process, no UI);
- a followed run: one row is appended to index.jsonl while turnlens shows the run; the clock stops when the row is
  on screen (an execution error without a score, so it sorts to the top).
Targets: first result <= 0.5 x toolong's first line; peak RSS < 150 MiB; whole index < 5 s; a new row < 0.5 s.
The CPU time each app used until then is printed too: on a busy machine (see the load average printed) wall times
stretch with the load, CPU times much less. Both apps run from their bytecode caches, after one untimed run each.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import sys
import time

import orjson

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from bench_results import (  # noqa: E402
    OUT,
    TOOLONG,
    TURNLENS,
    cpu_seconds,
    install_toolong,
    kill_server,
    kill_session,
    launch,
    vm_hwm_mib,
    wait_for,
)

SUITES = ("code-review", "support-refunds", "agent-tasks", "faq")
WORDS = "the retry helper loop invoice refund order review decimal timeout context answer plan step".split()


def _sentence(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + "."


def write_run(folder: str, tests: int) -> None:
    """A finished AgentV 4 run folder of `tests` tests (deterministic)."""
    rng = random.Random(4)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "index.jsonl"), "wb") as index:
        for i in range(tests):
            suite = SUITES[i % len(SUITES)]
            test_id = f"test-{i:06d}"
            test_dir = f"{suite}/{test_id}"
            roll = rng.random()
            status = "execution_error" if roll < 0.02 else "quality_failure" if roll < 0.2 else "ok"
            score = 0.0 if status == "execution_error" else round(rng.random() * (0.6 if status != "ok" else 1), 3)
            assertions = [
                {"text": _sentence(rng, 6), "passed": status == "ok" or k, "evidence": _sentence(rng, 10)}
                for k in range(3)
            ]
            row = {
                "timestamp": f"2026-06-22T{i % 24:02d}:{i % 60:02d}:{(i * 7) % 60:02d}.000Z",
                "test_id": test_id,
                "suite": suite,
                "score": score,
                "target": ("azure-gpt-4o", "claude-sonnet")[i % 2],
                "token_usage": {"input": 800 + i % 900, "output": 150 + i % 300},
                "cost_usd": round((950 + i % 1200) * 0.0000025, 6),
                "duration_ms": 2000 + (i * 37) % 20000,
                "experiment": "default",
                "scores": [
                    {
                        "name": "rubric",
                        "type": "llm-grader",
                        "score": score,
                        "weight": 1,
                        "verdict": "pass" if status == "ok" else "fail",
                        "assertions": assertions,
                        "input": {"systemPrompt": "You are an expert grader.", "userPrompt": _sentence(rng, 60)},
                    }
                ],
                "execution_status": status,
                "artifact_dir": test_dir,
                "grading_path": f"{test_dir}/grading.json",
                "timing_path": f"{test_dir}/timing.json",
                "answer_path": f"{test_dir}/outputs/answer.md",
                "input_path": f"{test_dir}/input.md",
            }
            if status == "execution_error":
                row["error"] = "Agent timed out after 120000 ms"
            index.write(orjson.dumps(row) + b"\n")
            os.makedirs(os.path.join(folder, test_dir, "outputs"), exist_ok=True)
            with open(os.path.join(folder, test_dir, "input.md"), "w") as handle:
                handle.write(f"@[system]:\n{_sentence(rng, 20)}\n\n@[user]:\n{_sentence(rng, 40)}\n")
            with open(os.path.join(folder, test_dir, "outputs", "answer.md"), "w") as handle:
                handle.write(_sentence(rng, 80) + "\n")
            with open(os.path.join(folder, test_dir, "grading.json"), "wb") as handle:
                handle.write(orjson.dumps({"assertions": assertions, "summary": {"total": 3}}))
            with open(os.path.join(folder, test_dir, "timing.json"), "wb") as handle:
                handle.write(orjson.dumps({"duration_ms": row["duration_ms"], "token_usage": row["token_usage"]}))


def ensure_run(tests: int) -> str:
    folder = os.path.join(OUT, f"run4-{tests}", "runs", "default", "2026-06-22T09-00-00-000Z")
    index = os.path.join(folder, "index.jsonl")
    if not os.path.exists(index) or sum(1 for _ in open(index, "rb")) != tests:
        shutil.rmtree(os.path.dirname(os.path.dirname(os.path.dirname(folder))), ignore_errors=True)
        started = time.perf_counter()
        write_run(folder, tests)
        print(f"generated {os.path.relpath(folder, ROOT)}: {tests:,} tests in {time.perf_counter() - started:.1f}s")
    with open(index, "rb") as handle:  # warm the page cache, as for a run just written
        while handle.read(16 * 1024 * 1024):
            pass
    return folder


def shows_result_row(screen: str) -> bool:
    return any("test-0" in line and ("✓" in line or "✗" in line or " · " in line) for line in screen.splitlines())


def shows_json_line(screen: str) -> bool:
    return '"test_id"' in screen or '{"timestamp"' in screen


def indexed(screen: str) -> bool:
    return any(line.startswith(" indexed") for line in screen.splitlines())


def run_turnlens(folder: str, timeout: float, follow: bool) -> dict:
    started, pid = launch(f"{TURNLENS} {folder}")
    first = wait_for(shows_result_row, started, timeout)
    first_cpu = cpu_seconds(pid)
    whole = wait_for(indexed, started, timeout)
    whole_cpu = cpu_seconds(pid)
    hwm = vm_hwm_mib(pid)
    arrived = None
    if follow and whole is not None:
        index = os.path.join(folder, "index.jsonl")
        size = os.path.getsize(index)
        # an execution error without a score sorts first: the row is on screen wherever it lands in the file
        row = {"test_id": "zz-followed-row", "suite": "faq", "execution_status": "execution_error"}
        row["error"] = "appended while the run was open"
        time.sleep(0.3)  # the view settles first
        appended = time.perf_counter()
        with open(index, "ab") as handle:
            handle.write(orjson.dumps(row) + b"\n")
        seen = wait_for(lambda s: "zz-followed-row" in s, appended, 10)
        arrived = seen
        with open(index, "r+b") as handle:  # leave the run as generated
            handle.truncate(size)
    kill_session()
    return {"first": first, "indexed": whole, "peak": hwm, "follow": arrived, "first_cpu": first_cpu,
            "indexed_cpu": whole_cpu}  # fmt: skip


def run_toolong(folder: str, timeout: float) -> dict:
    started, pid = launch(f"{TOOLONG} {os.path.join(folder, 'index.jsonl')}")
    first = wait_for(shows_json_line, started, timeout)
    first_cpu = cpu_seconds(pid)
    kill_session()
    return {"first": first, "first_cpu": first_cpu}


def in_process_index(folder: str) -> tuple[float, int]:
    from turnlens.formatting.results.index import ResultsFile

    results = ResultsFile(os.path.join(folder, "index.jsonl"))
    started = time.perf_counter()
    for _ in results.scan():
        pass
    elapsed = time.perf_counter() - started
    results.close()
    return elapsed, results.count


def median(values: list) -> float | None:
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}s"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tests", type=int, default=50_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--install-toolong", action="store_true")
    args = parser.parse_args()
    if args.install_toolong:
        install_toolong()
    if not shutil.which("tmux"):
        print("tmux is needed to run both apps headless", file=sys.stderr)
        return 2
    print(f"load average (1, 5, 15 min) before: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    folder = ensure_run(args.tests)
    index_s, count = in_process_index(folder)
    size_mib = os.path.getsize(os.path.join(folder, "index.jsonl")) / 1024 / 1024
    print(f"run folder: {count:,} tests, index.jsonl {size_mib:.0f} MiB; index in process (no UI) {index_s:.2f}s")
    have_toolong = os.path.exists(TOOLONG)
    if not have_toolong:
        print(f"toolong: not installed at {os.path.relpath(TOOLONG, ROOT)} (--install-toolong)")
    # one untimed run of each first: the bytecode caches are written, the files are in the page cache
    run_turnlens(folder, args.timeout, follow=False)
    if have_toolong:
        run_toolong(folder, args.timeout)
    ours, theirs = [], []
    for _ in range(args.repeat):  # interleaved, so that a busy moment hits both apps alike
        ours.append(run_turnlens(folder, args.timeout, follow=True))
        if have_toolong:
            theirs.append(run_toolong(folder, args.timeout))
    kill_server()
    print(f"load average (1, 5, 15 min) after the runs: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    first, whole = median([r["first"] for r in ours]), median([r["indexed"] for r in ours])
    follow = median([r["follow"] for r in ours])
    peak = max((r["peak"] or 0) for r in ours)
    print(f"turnlens: first result {fmt(first)} median (runs: {', '.join(fmt(r['first']) for r in ours)})")
    print(f"turnlens: whole run indexed on screen {fmt(whole)} after launch")
    print(f"turnlens: appended row on screen {fmt(follow)} (runs: {', '.join(fmt(r['follow']) for r in ours)})")
    print(f"turnlens: peak RSS {peak:.1f} MiB")
    first_cpu = median([r["first_cpu"] for r in ours])
    whole_cpu = median([r["indexed_cpu"] for r in ours])
    print(f"turnlens: CPU time used by then: first result {fmt(first_cpu)}, whole run indexed {fmt(whole_cpu)}")
    toolong_first = median([r["first"] for r in theirs]) if theirs else None
    toolong_cpu = median([r["first_cpu"] for r in theirs]) if theirs else None
    if theirs:
        print(
            f"toolong:  first line of index.jsonl {fmt(toolong_first)} median; CPU time used by then {fmt(toolong_cpu)}"
        )
    print("targets (ratios to the target; <= 1 meets it):")
    if first and toolong_first:
        ratio = first / toolong_first
        print(f"  first result / toolong's first line: {ratio:.2f} (target 0.5: {ratio / 0.5:.2f})")
    if first_cpu and toolong_cpu:
        ratio = first_cpu / toolong_cpu
        print(f"  the same in CPU time (less sensitive to the load): {ratio:.2f} (target 0.5: {ratio / 0.5:.2f})")
    print(f"  peak RSS / 150 MiB: {peak / 150:.2f}")
    if whole is not None:
        print(f"  whole index on screen / 5 s: {whole / 5:.2f} (in process {index_s / 5:.2f})")
    if follow is not None:
        print(f"  appended row on screen / 0.5 s: {follow / 0.5:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
