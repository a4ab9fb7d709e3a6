"""Speed of reading eval YAML: yaml12.parse_yaml with its block line reader (formatting/evals/yaml_block.py) against
the same call reading through libyaml (the reader turned off), in one process, on the two generated benchmark suites
(benchmarks/bench_export4.py's 5,000-test AgentV 4 suite, benchmarks/bench_export.py's 5,000-case 0.15 file), whole
and as the second of two export slices (formatting/evals/slices.py: the header, an empty line per line of the
slice before, then its own lines), which is what an export worker reads.

CPU time (time.process_time), best of --runs, the two readers alternating, with the collector off as in `turnlens
export` (formatting/gcpause.py); each document is freed after its run, outside the time taken. Also checks that both
readers give the same data.

    .venv/bin/python benchmarks/bench_yaml.py [--runs 10]
"""

from __future__ import annotations

import argparse
import gc
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))
import bench_export  # noqa: E402
import bench_export4  # noqa: E402

from turnlens.formatting.evals import slices as slicing  # noqa: E402
from turnlens.formatting.evals import yaml12  # noqa: E402


def timed(parse, text: str) -> float:
    start = time.process_time()
    doc = parse(text)
    elapsed = time.process_time() - start
    del doc
    return elapsed


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="Time parse_yaml with and without the block line reader.")
    ap.add_argument("--runs", type=int, default=10)
    args = ap.parse_args(argv)
    block_reader = yaml12.parse_block

    def with_libyaml(text: str) -> yaml12.YamlDoc:
        yaml12.parse_block = lambda *_: None
        try:
            return yaml12.parse_yaml(text)
        finally:
            yaml12.parse_block = block_reader

    gc.disable()
    with tempfile.TemporaryDirectory() as tmp:
        suites = [
            ("4.x", bench_export4.make_repo(Path(tmp, "v4"), 5000), "tests"),
            ("0.15", bench_export.make_repo(Path(tmp, "v015"), 5000), "evalcases"),
        ]
        for name, path, key in suites:
            text = path.read_text(encoding="utf-8")
            slices = slicing.split_slices(text, 2, key)
            assert slices is not None, "the suite is cut into slices"
            for label, part in (("whole", text), ("slice 2/2", slicing.piece(text, slices, slices[1]))):
                ours, theirs = yaml12.parse_yaml(part), with_libyaml(part)
                assert ours.data == theirs.data, f"{name} {label}: the readers disagree"
                block = libyaml = float("inf")
                for _ in range(args.runs):
                    block = min(block, timed(yaml12.parse_yaml, part))
                    libyaml = min(libyaml, timed(with_libyaml, part))
                lines = part.count("\n")
                print(
                    f"{name:5} {label:9} ({lines:,} lines)  block reader {block * 1000:6.1f} ms   "
                    f"libyaml {libyaml * 1000:6.1f} ms   ratio {block / libyaml:.2f}"
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
