"""`q` quits within a second at every moment of a big load (issue 22.3): the 1,000,000-test JSONL dataset and the
1,000,000-test AgentV 4 suite of bench_scale.py, the app told `q` at several moments after its start (while it
reads, lists and formats), each the time from the key to the end of the process; the worst of them is the figure.
Reference: a bare Textual app told `q` the same way, in the same run.

    .venv/bin/python benchmarks/bench_quit.py [--at 0.5,1,2,3,5,8,12] [--tests 1000000]

The machine is shared: the figures move with its load (printed); compare with the bare app's.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_scale import load, make_million_jsonl, make_million_suite, quit_after

GOAL = 1.0  # seconds from `q` to the end of the process


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--at", default="0.5,1,2,3,5,8,12", help="seconds after the start at which q is pressed")
    parser.add_argument("--tests", type=int, default=1_000_000)
    args = parser.parse_args()
    moments = [float(x) for x in args.at.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        inputs = {
            f"{args.tests:,}-test JSONL": make_million_jsonl(Path(tmp) / "jsonl", args.tests),
            f"{args.tests:,}-test YAML suite": make_million_suite(Path(tmp) / "yaml", args.tests),
        }
        bare = [quit_after(at, "-")[0] for at in moments[:3]]
        print(f"bare Textual app: q to exit {max(bare) * 1000:.0f} ms at worst  [{load()}]", flush=True)
        for name, target in inputs.items():
            times = []
            for at in moments:
                seconds, peak, cases = quit_after(at, str(target))
                times.append(seconds)
                print(
                    f"  {name}: q {at:4.1f} s after start ({cases:,} cases listed): exit {seconds * 1000:5.0f} ms, "
                    f"peak {peak:4.0f} MiB  [{load()}]",
                    flush=True,
                )
            worst = max(times)
            print(
                f"{name}: worst q to exit {worst * 1000:.0f} ms over {len(times)} moments "
                f"({worst / max(max(bare), 1e-3):.1f}x the bare app; goal <= {GOAL:.0f} s: "
                f"{'met' if worst <= GOAL else 'MISSED'})",
                flush=True,
            )


if __name__ == "__main__":
    main()
