"""SlicePool: a pool of forked workers, each given the next slice as it finishes one; summaries come back in slice
order, a dead worker's slice is worked by the parent, and a run can stop at the first slice that says so."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the pool forks")

RUN = r"""
import os, sys, time
from turnlens.formatting.export.parallel import SlicePool
mode, parent = sys.argv[1], os.getpid()

def work(n, place):
    here = os.getpid() == parent
    if mode == "die" and n == 5 and not here:
        os._exit(3)  # a worker killed before it reports: the parent works its slice
    if mode == "stop" and n in (3, 7):
        if n == 7:
            return ("error", n, here)  # reported first (slice 3 is slow), but not the first in slice order
        time.sleep(0.3)
        return ("error", n, here)
    if mode == "raise" and n == 4:
        raise ValueError("slice 4 is bad")
    return ("ok", n, here, place)

pool = SlicePool(12, 3, work)
try:
    summaries = pool.run(stop=lambda s: s[0] == "error")
except ValueError as exc:
    print("raised", exc)
else:
    print(repr(summaries))
"""


def _run(mode: str) -> list[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-c", RUN, mode], capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.splitlines()


def test_summaries_come_in_slice_order_from_every_worker():
    summaries = eval(_run("all")[0])
    assert [s[1] for s in summaries] == list(range(12))
    assert not any(s[2] for s in summaries)  # all worked by the workers
    assert {s[3] for s in summaries} == {0, 1, 2}


def test_a_worker_that_dies_has_its_slice_worked_here():
    summaries = eval(_run("die")[0])
    assert [s[1] for s in summaries] == list(range(12))
    assert [n for n, s in enumerate(summaries) if s[2]] == [5] and summaries[5][3] == 3  # the parent's place


def test_the_run_stops_at_the_first_slice_in_order_that_says_so():
    summaries = eval(_run("stop")[0])
    assert [s[1] for s in summaries] == [0, 1, 2, 3] and summaries[-1][0] == "error"


def test_what_goes_wrong_in_a_slice_is_raised_here():
    assert _run("raise")[0] == "raised slice 4 is bad"
