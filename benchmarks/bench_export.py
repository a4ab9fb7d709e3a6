"""Speed of `turnlens export` against the reference oracle on one big eval file.

Generates a 5,000-case eval file (text, multi-turn, fenced code, file references and guideline files) in a temporary
repo, then times the whole process, start to exit, of

    turnlens export FILE --repo-root ROOT                     (a plain install of this checkout, see below)
    node /work/shared/oracle/agentv-0.15.1-oracle.cjs FILE .  (skipped when node or the oracle is absent)

several runs each, and prints the medians, the ratio (target: turnlens <= 1/10 of the oracle) and each side's peak
RSS (from wait4, so it costs nothing). Also says on how many cases both outputs agree byte for byte.

The `turnlens` timed is a plain (non-editable) install of the checkout in benchmarks/out/plain-venv, built afresh by
each run (benchmarks/plain_install.py): what `pip install turnlens` gives users. `--editable` times .venv/bin/turnlens
instead (a developer's editable install). The script prints which one it timed.

    .venv/bin/python benchmarks/bench_export.py [--cases 5000] [--runs 5] [--keep DIR] [--breakdown] [--editable]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))
from plain_install import EDITABLE, turnlens_command  # noqa: E402

ORACLE = Path(os.environ.get("TURNLENS_ORACLE", "/work/shared/oracle/agentv-0.15.1-oracle.cjs"))
# An installed turnlens runs from its bytecode cache (pip compiles it at install). With PYTHONDONTWRITEBYTECODE set,
# the warm-up run could not write that cache and every timed run would compile turnlens' sources first.
BASE_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def make_repo(root: Path, cases: int) -> Path:
    """A repo with a config, 20 guideline files, 200 ordinary files, and one eval file of `cases` cases."""
    (root / ".git").mkdir(parents=True, exist_ok=True)
    (root / ".agentv").mkdir(exist_ok=True)
    (root / ".agentv" / "config.yaml").write_text(
        '$schema: agentv-config-v2\nguideline_patterns:\n  - "**/*.instructions.md"\n  - "prompts/**/*.md"\n'
    )
    for i in range(20):
        p = root / "prompts" / f"g{i % 4}" / f"rule{i}.instructions.md"
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(f"# Rule {i}\n\n" + "Follow the house style carefully.\n" * 10)
    for i in range(200):
        p = root / "evals" / "files" / f"src{i}.py"
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("".join(f"def f{j}(x):\r\n    return x + {j}\r\n" for j in range(30)))
    out = ["$schema: agentv-eval-v2", "evalcases:"]
    for n in range(cases):
        kind = n % 5
        out += [f"  - id: case-{n:05d}", f"    outcome: Case {n} is answered correctly.", "    input_messages:"]
        if kind == 0:  # flat question with a fenced block
            out += [
                "      - role: user",
                f"        content: |-\n          Fix case {n}:\n          ```python\n"
                f"          print({n})\n          ```",
            ]
        elif kind == 1:  # system guideline + file, user text
            out += [
                "      - role: system",
                "        content:",
                f"          - {{type: file, value: /prompts/g{n % 4}/rule{n % 20}.instructions.md}}",
                f"          - {{type: file, value: files/src{n % 200}.py}}",
                "      - role: user",
                f"        content: Review file {n % 200}.",
            ]
        elif kind == 2:  # multi-turn with a tool turn and a file
            out += [
                "      - {role: user, content: Start}",
                "      - {role: assistant, content: Calling a tool}",
                "      - role: tool",
                "        content:",
                f"          - {{type: file, value: files/src{n % 200}.py}}",
                f"      - {{role: user, content: Continue {n}}}",
            ]
        elif kind == 3:  # several leading systems, a mid-conversation system, guideline in a user turn
            out += [
                "      - {role: system, content: You are careful.}",
                "      - {role: system, content: Be brief.}",
                "      - role: user",
                "        content:",
                f"          - {{type: file, value: ../prompts/g{n % 4}/rule{n % 20}.instructions.md}}",
                "          - {type: text, value: Question}",
                "      - {role: assistant, content: Answer}",
                "      - {role: system, content: Late rule}",
                "      - {role: user, content: Again}",
            ]
        else:  # two users, one with a missing file
            out += [
                "      - {role: user, content: First}",
                "      - role: user",
                "        content:",
                f"          - {{type: file, value: files/missing{n}.py}}",
                "          - {type: text, value: Second}",
            ]
        out += ["    expected_messages:", f"      - {{role: assistant, content: Reference answer {n}}}"]
    eval_file = root / "evals" / "big.yaml"
    eval_file.write_text("\n".join(out) + "\n")
    return eval_file


def timed(cmd: list[str], cwd: Path) -> tuple[float, int, bytes]:
    """Wall time (s), peak RSS (KiB) and stdout of one run of cmd."""
    with tempfile.TemporaryFile() as out:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=cwd, stdout=out, stderr=subprocess.DEVNULL, env=BASE_ENV)
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        data = out.read()
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {proc.returncode}")
    return elapsed, usage.ru_maxrss, data


def bench(name: str, cmd: list[str], cwd: Path, runs: int) -> tuple[float, int, bytes]:
    times, rss, data = [], 0, b""
    timed(cmd, cwd)  # warm the file cache and the interpreter's bytecode cache
    for _ in range(runs):
        t, r, data = timed(cmd, cwd)
        times.append(t)
        rss = max(rss, r)
    med = statistics.median(times)
    print(
        f"{name:9s} median {med * 1000:8.1f} ms  (runs: {', '.join(f'{t * 1000:.0f}' for t in times)} ms)  "
        f"peak RSS {rss / 1024:6.1f} MiB"
    )
    return med, rss, data


def agreement(ours: bytes, theirs: bytes) -> str:
    """How many cases the two outputs agree on, byte for byte, for the compared fields."""

    def cases(data: bytes) -> list[dict]:
        rows = [json.loads(line) for line in data.split(b"\n") if line.strip()]
        return [r for r in rows if "lm" in r]

    a, b = cases(ours), cases(theirs)
    keys = lambda r: (r["id"], r["lm"], r["agent"], r["evaluator_prompt"])  # noqa: E731
    same = sum(1 for x, y in zip(a, b) if keys(x) == keys(y))
    return f"{same}/{len(b)} oracle cases identical in turnlens output ({len(a)} cases exported)"


BREAKDOWN = r"""
import gc, sys, time
gc.disable()  # as `turnlens export` does
t0 = time.perf_counter()
import orjson
from turnlens.formatting.dialects.format import format_case
from turnlens.formatting.dialects.load import load_eval_file
t1 = time.perf_counter()
ev = load_eval_file(sys.argv[1], repo_root=".", cwd=".")
t2 = time.perf_counter()
done = [format_case(c, ev, "agentv") for c in ev.cases if c.skipped is None]
t3 = time.perf_counter()
data = b"\n".join(orjson.dumps({"id": f.case.id, "lm": f.lm.to_json(), "agent": f.agent.to_json(),
                                 "evaluator_prompt": f.evaluator_prompt, "markers": f.explanation.to_json()})
                   for f in done)
t4 = time.perf_counter()
print(f"import {(t1 - t0) * 1000:.0f} ms, load {(t2 - t1) * 1000:.0f} ms, format {(t3 - t2) * 1000:.0f} ms, "
      f"json {(t4 - t3) * 1000:.0f} ms")
"""


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="Time turnlens export against the reference oracle.")
    ap.add_argument("--cases", type=int, default=5000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--keep", metavar="DIR", help="generate into DIR and keep it (default: a temp dir)")
    ap.add_argument(
        "--breakdown",
        action="store_true",
        help="also time turnlens' phases (import, load, format, json) in one process, no slicing",
    )
    ap.add_argument("--editable", action="store_true", help="time .venv/bin/turnlens instead of a plain install")
    args = ap.parse_args(argv)

    tmp = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="turnlens-bench-"))
    try:
        root = tmp.resolve()
        eval_file = make_repo(root, args.cases)
        rel = eval_file.relative_to(root).as_posix()
        size = eval_file.stat().st_size
        print(f"eval file: {args.cases} cases, {size / 1024:.0f} KiB, 220 referenced files; {args.runs} runs each")
        if not EDITABLE.exists():
            print(f"turnlens not found at {EDITABLE}", file=sys.stderr)
            return 2
        turnlens, how = turnlens_command(args.editable)
        print(f"turnlens: {how}")
        ours, _, our_out = bench("turnlens", [str(turnlens), "export", rel, "--repo-root", "."], root, args.runs)
        if args.breakdown:
            python = turnlens.parent / "python"
            out = subprocess.run([str(python), "-c", BREAKDOWN, rel], cwd=root, capture_output=True, text=True)
            print("phases    " + (out.stdout.strip() or out.stderr.strip().splitlines()[-1]))
        node = shutil.which("node")
        if node is None or not ORACLE.exists():
            print("oracle    skipped: " + ("node not found" if node is None else f"{ORACLE} not found"))
            return 0
        theirs, _, their_out = bench("oracle", [node, str(ORACLE), rel, "."], root, args.runs)
        ratio = ours / theirs
        verdict = "meets" if ratio <= 0.1 else "misses"
        print(f"ratio     turnlens/oracle = {ratio:.3f} (1/{1 / ratio:.1f}); {verdict} the target <= 1/10")
        print("outputs   " + agreement(our_out, their_out))
        return 0
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
