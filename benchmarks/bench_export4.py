"""Speed of `turnlens export` against the AgentV 4.42.4 oracle on one big AgentV 4 suite.

Generates a 5,000-test suite (suite `input` and `input_files` defaults, `skip_defaults`, `input_files` with string
inputs, file references in content lists, multi-turn with tool turns, `{{ var }}` and `${{ VAR }}` interpolation,
expected outputs, graders) in a temporary repo, then times the whole process, start to exit, of

    turnlens export FILE --repo-root ROOT                      (a plain install of this checkout, see below)
    node /work/shared/oracle/agentv-4.42.4-oracle.cjs FILE .   (skipped when node or the oracle is absent)

several runs each, alternating, with stdout and stderr written to files (as `> out.jsonl` would), and prints the
medians and the ratio (target: turnlens <= 1/10 of the oracle). Also says on how many tests both outputs agree byte
for byte.

The `turnlens` timed is a plain (non-editable) install of the checkout in benchmarks/out/plain-venv, built afresh by
each run (benchmarks/plain_install.py): what `pip install turnlens` gives users. `--editable` times .venv/bin/turnlens
instead (a developer's editable install). The script prints which one it timed.

    .venv/bin/python benchmarks/bench_export4.py [--tests 5000] [--runs 5] [--keep DIR] [--editable]
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

ORACLE = Path(os.environ.get("TURNLENS_ORACLE4", "/work/shared/oracle/agentv-4.42.4-oracle.cjs"))
ENV = {"BENCH_TEAM": "payments"}
# An installed turnlens runs from its bytecode cache (pip compiles it at install). With PYTHONDONTWRITEBYTECODE set,
# the warm-up run could not write that cache and every timed run would compile turnlens' sources first.
BASE_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def make_repo(root: Path, tests: int) -> Path:
    """A repo with 200 source files, a style guide, and one suite of `tests` tests."""
    (root / ".git").mkdir(parents=True, exist_ok=True)
    files = root / "evals" / "files"
    files.mkdir(parents=True, exist_ok=True)
    for i in range(200):
        (files / f"src{i}.py").write_text("".join(f"def f{j}(x):\r\n    return x + {j}\r\n" for j in range(30)))
    (files / "style.md").write_text("# House style\n\n" + "Prefer small, tested changes.\n" * 10)
    out = [
        "name: big-suite",
        "description: generated for the benchmark",
        "input:",
        "  - role: system",
        "    content: You review code for the ${{ BENCH_TEAM }} team.",
        "input_files: [files/style.md]",
        "assertions:",
        "  - type: contains",
        "    value: review",
        "tests:",
    ]
    for n in range(tests):
        kind = n % 5
        out += [f"  - id: test-{n:05d}", f"    criteria: Test {n} is answered correctly."]
        if kind == 0:  # string input + the suite's input_files
            out += [f"    input: Review change {n}."]
        elif kind == 1:  # own input_files, vars
            out += [
                f"    vars: {{n: {n}, file: src{n % 200}.py}}",
                '    input_files: ["files/{{ file }}"]',
                '    input: "Explain {{ file }} for ticket {{ n }}."',
            ]
        elif kind == 2:  # multi-turn with a tool turn and a file, skip_defaults
            out += [
                "    execution: {skip_defaults: true}",
                "    input:",
                "      - {role: user, content: Start}",
                "      - {role: assistant, content: Calling a tool}",
                "      - role: tool",
                "        content:",
                f"          - {{type: file, value: files/src{n % 200}.py}}",
                f"      - {{role: user, content: Continue {n}}}",
            ]
        elif kind == 3:  # content list with text and files, expected output (a message list needs skip_defaults
            # when the suite has input_files: AgentV leaves such an input undefined)
            out += [
                "    execution: {skip_defaults: true}",
                "    input:",
                "      - role: user",
                "        content:",
                "          - Please look at",
                f"          - {{type: file, value: files/src{(n * 7) % 200}.py}}",
                "          - {type: text, value: and say what changed.}",
                "    expected_output:",
                f"      - {{role: assistant, content: Reference answer {n}}}",
            ]
        else:  # object content and a missing file, own graders
            out += [
                "    execution: {skip_defaults: true}",
                "    input:",
                "      - role: user",
                f"        content: {{ticket: {n}, note: urgent}}",
                "      - role: user",
                "        content:",
                f"          - {{type: file, value: files/missing{n}.py}}",
                "          - {type: text, value: Second}",
                "    assertions:",
                "      - Mentions the ticket",
            ]
    eval_file = root / "evals" / "big.eval.yaml"
    eval_file.write_text("\n".join(out) + "\n")
    return eval_file


def timed(cmd: list[str], cwd: Path) -> tuple[float, bytes]:
    """Wall time (s) and stdout of one run of cmd. Its output goes to files, as `> out.jsonl 2> warnings.txt`
    would send it: read through a pipe, the reading (24 MB in this process) would take CPU from the process timed."""
    env = {**BASE_ENV, **ENV}
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.run(cmd, cwd=cwd, stdout=out, stderr=err, env=env)
        elapsed = time.perf_counter() - start
        if proc.returncode != 0:
            err.seek(0)
            raise RuntimeError(f"{' '.join(cmd)} exited {proc.returncode}: {err.read()[-500:]!r}")
        out.seek(0)
        return elapsed, out.read()


def agreement(ours: bytes, theirs: bytes) -> str:
    def rows(data: bytes) -> list[dict]:
        return [r for r in (json.loads(line) for line in data.split(b"\n") if line.strip()) if "lm" in r]

    def formatted(mode: dict) -> dict:
        # the graders' prompts: the oracle gives them only with --graders, which runs each test through AgentV's
        # runEvalCase (not the export timed here); tests/engine/test_graders_oracle.py checks them against the oracle
        return {k: v for k, v in mode.items() if k != "graders"}

    a, b = rows(ours), rows(theirs)
    key = lambda r: (r["id"], formatted(r["lm"]), formatted(r["agent"]), r["evaluator_prompt"])  # noqa: E731
    same = sum(1 for x, y in zip(a, b) if key(x) == key(y))
    return f"{same}/{len(b)} oracle tests identical in turnlens output ({len(a)} tests exported)"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="Time turnlens export against the AgentV 4.42.4 oracle.")
    ap.add_argument("--tests", type=int, default=5000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--keep", metavar="DIR", help="generate into DIR and keep it (default: a temp dir)")
    ap.add_argument("--editable", action="store_true", help="time .venv/bin/turnlens instead of a plain install")
    args = ap.parse_args(argv)
    if not EDITABLE.exists():
        print(f"turnlens not found at {EDITABLE}", file=sys.stderr)
        return 2
    turnlens, how = turnlens_command(args.editable)
    tmp = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="turnlens-bench4-"))
    try:
        root = tmp.resolve()
        eval_file = make_repo(root, args.tests)
        rel = eval_file.relative_to(root).as_posix()
        print(
            f"suite: {args.tests} tests, {eval_file.stat().st_size / 1024:.0f} KiB, 201 referenced files, "
            f"suite input/input_files/assertions; {args.runs} runs each, alternating"
        )
        print(f"turnlens: {how}")
        ours_cmd = [str(turnlens), "export", rel, "--repo-root", "."]
        node = shutil.which("node")
        theirs_cmd = [node, str(ORACLE), rel, "."] if node and ORACLE.exists() else None
        timed(ours_cmd, root)  # warm the file cache and the bytecode cache
        if theirs_cmd:
            timed(theirs_cmd, root)
        ours, theirs = [], []
        our_out = their_out = b""
        for _ in range(args.runs):
            t, our_out = timed(ours_cmd, root)
            ours.append(t)
            if theirs_cmd:
                t, their_out = timed(theirs_cmd, root)
                theirs.append(t)
        med = statistics.median(ours)
        print(f"turnlens  median {med * 1000:8.1f} ms  (runs: {', '.join(f'{t * 1000:.0f}' for t in ours)} ms)")
        if not theirs_cmd:
            print("oracle    skipped: " + ("node not found" if node is None else f"{ORACLE} not found"))
            return 0
        med4 = statistics.median(theirs)
        print(f"oracle    median {med4 * 1000:8.1f} ms  (runs: {', '.join(f'{t * 1000:.0f}' for t in theirs)} ms)")
        ratio = med / med4
        verdict = "meets" if ratio <= 0.1 else "misses"
        print(f"ratio     turnlens/oracle = {ratio:.3f} (1/{1 / ratio:.1f}); {verdict} the target <= 1/10")
        print("outputs   " + agreement(our_out, their_out))
        return 0
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
