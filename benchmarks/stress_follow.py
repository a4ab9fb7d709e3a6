"""Following a results file that is rewritten in place, each version longer than the last (issue 22.9).

A writer thread rewrites a JSONL file (or a run folder's index.jsonl) in place every 0.1-0.3 s, each version one row
longer and with the earlier rows changed; the reader follows it as the results view does (`follow()` every 50 ms,
opened anew on "replaced"). After the last version, the reader must hold exactly the last version's rows. Before the
fix, about 1 try in 4 (JSONL) or 1 in 5 (run folder) kept an earlier version's rows for good.

Slow (seconds per try), so a script and not a unit test; prints the tries whose rows differ, as a ratio.

    .venv/bin/python benchmarks/stress_follow.py [--tries 20] [--versions 12] [--run-folder]
"""

from __future__ import annotations

import argparse
import os
import random
import tempfile
import threading
import time
from pathlib import Path

from turnlens.formatting.results.index import ResultsFile

BASE = 30  # rows the versions share at the start (past the 4 KB compared at the head)


def version(n: int) -> bytes:
    """Version `n`: the shared rows, then rows 0..n naming the version (an earlier version's rows are told apart)."""
    rows = [b'{"eval_id": "base-%d", "score": 1, "pad": "%s"}\n' % (r, b"x" * 200) for r in range(BASE)]
    rows += [b'{"eval_id": "v%d-r%d", "score": 0.5}\n' % (n, r) for r in range(n + 1)]
    return b"".join(rows)


def one_try(path: Path, versions: int, rng: random.Random) -> bool:
    path.write_bytes(version(0))
    results = ResultsFile(str(path))
    list(results.scan())
    done = threading.Event()

    def writer() -> None:
        for n in range(1, versions):
            time.sleep(rng.uniform(0.1, 0.3))
            with open(path, "r+b") as handle:  # in place: same inode, never shorter
                handle.write(version(n))
        done.set()

    thread = threading.Thread(target=writer)
    thread.start()
    while True:
        finished = done.is_set()
        if results.follow() == "replaced":
            results.close()
            results = ResultsFile(str(path))
            list(results.scan())
        if finished:
            break
        time.sleep(0.05)
    thread.join()
    while results.follow() == "replaced":  # settled: one last look
        results.close()
        results = ResultsFile(str(path))
        list(results.scan())
    expected = [f"base-{r}" for r in range(BASE)] + [f"v{versions - 1}-r{r}" for r in range(versions)]
    ok = results.eval_ids == expected
    results.close()
    return ok


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tries", type=int, default=20)
    parser.add_argument("--versions", type=int, default=12)
    parser.add_argument("--run-folder", action="store_true", help="follow <run>/index.jsonl")
    options = parser.parse_args()
    rng = random.Random(22)
    wrong = 0
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / ("index.jsonl" if options.run_folder else "results.jsonl")
        for n in range(options.tries):
            if not one_try(path, options.versions, rng):
                wrong += 1
                print(f"try {n + 1}: an earlier version's rows were kept")
            os.unlink(path)
    print(f"kept an earlier version: {wrong}/{options.tries} tries ({wrong / options.tries:.0%}; target 0%)")


if __name__ == "__main__":
    main()
