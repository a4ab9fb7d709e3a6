"""DeferredSlices: workers keep their results and write them themselves, in slice order, only when told to."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from turnlens.formatting.evals.slices import slice_by_offsets, slice_text, split_slices

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="slicing needs fork")


def _text(cases: int = 4000) -> str:
    lines = ["$schema: agentv-eval-v2", "# head", "evalcases:", ""]
    for n in range(cases):
        lines += [f"  - id: c{n}", "    outcome: ok", "    input_messages:", f"      - {{role: user, content: q{n}}}"]
    return "\n".join(lines)


@pytest.mark.parametrize("parts", [2, 3, 8])
@pytest.mark.parametrize("trailing", ["", "\n", "\n\n"])
def test_offsets_cut_the_same_text_as_lines(parts, trailing):
    text = _text() + trailing
    slices = split_slices(text, parts)
    assert slices is not None and len(slices) == parts
    header_lines, header_end = slices[0][0], slices[0][3]
    for start, end, _first, start_offset, end_offset, _borrowed in slices:
        assert slice_by_offsets(text, header_end, start - header_lines, start_offset, end_offset) == slice_text(
            text, header_lines, start, end
        )


@pytest.mark.parametrize("parts", [2, 3])
def test_the_last_slice_can_take_a_larger_share(parts):
    even = split_slices(_text(), parts)
    larger = split_slices(_text(), parts, last_share=1.05)
    assert even is not None and larger is not None

    def cases(slices):
        firsts = [s[2] for s in slices] + [4000]
        return [b - a for a, b in zip(firsts, firsts[1:])]

    assert cases(even)[-1] in (4000 // parts, 4000 // parts + 1)
    assert abs(cases(larger)[-1] - 4000 * 1.05 / (parts - 1 + 1.05)) < 1 and sum(cases(larger)) == 4000


RUN = r"""
import os, sys
from turnlens.formatting.evals.slices import split_slices
from turnlens.formatting.export.parallel import DeferredSlices
text = open(sys.argv[1]).read()
slices = split_slices(text, 3)
parent = os.getpid()
mode = sys.argv[2]

def work(piece, n):
    if mode == "die" and n == 1 and os.getpid() != parent:
        os._exit(3)  # a worker killed before it reports: its slice is redone in the parent
    return (n, piece.count("- id:"), os.getpid() == parent)

def complete(r):
    if mode == "die-late" and r[0] == 1 and os.getpid() != parent:
        os._exit(3)  # killed after its summary, before writing: redone in the parent when its turn comes
    return (r[0], r[1], os.getpid() == parent)

run = DeferredSlices(text, slices, work, lambda r: r, lambda r: sys.stdout.write(f"slice {r[0]}: {r[1]} {r[2]}\n"),
                     complete=complete, here=len(sys.argv) > 3)
print("summaries", [s[:2] for s in run.summaries], flush=True)
if mode == "cancel":
    run.close()
else:
    for n in range(len(slices)):
        run.emit(n)
    run.close()
print("end")
"""


def _run(tmp_path: Path, mode: str, here: bool = False) -> str:
    path = tmp_path / "e.yaml"
    path.write_text(_text())
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [sys.executable, "-c", RUN, str(path), mode, *(["here"] if here else [])],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_workers_write_in_slice_order(tmp_path):
    out = _run(tmp_path, "emit").splitlines()
    counts = [int(line.split()[2]) for line in out[1:4]]
    assert [line.split(":")[0] for line in out[1:4]] == ["slice 0", "slice 1", "slice 2"]
    assert sum(counts) == 4000 and all(line.endswith("False") for line in out[1:4])  # written by the workers
    assert out[-1] == "end"


def test_a_worker_that_dies_is_redone_here(tmp_path):
    out = _run(tmp_path, "die").splitlines()
    assert out[2].startswith("slice 1:") and out[2].endswith("True")  # redone (and written) by the parent
    assert sum(int(line.split()[2]) for line in out[1:4]) == 4000


def test_closing_writes_nothing(tmp_path):
    assert _run(tmp_path, "cancel").splitlines()[1:] == ["end"]


def test_a_worker_that_dies_after_its_summary_is_redone_when_its_turn_comes(tmp_path):
    out = _run(tmp_path, "die-late").splitlines()
    assert [line.split(":")[0] for line in out[1:4]] == ["slice 0", "slice 1", "slice 2"]
    assert out[2].endswith("True") and out[1].endswith("False") and out[3].endswith("False")
    assert sum(int(line.split()[2]) for line in out[1:4]) == 4000


def test_with_here_the_last_slice_is_worked_and_written_by_this_process(tmp_path):
    out = _run(tmp_path, "emit", here=True).splitlines()
    assert [line.split(":")[0] for line in out[1:4]] == ["slice 0", "slice 1", "slice 2"]
    assert [line.endswith("True") for line in out[1:4]] == [False, False, True]
    assert sum(int(line.split()[2]) for line in out[1:4]) == 4000 and out[-1] == "end"


def test_with_here_a_worker_that_dies_is_still_redone_here(tmp_path):
    out = _run(tmp_path, "die", here=True).splitlines()
    assert [line.endswith("True") for line in out[1:4]] == [False, True, True]
    assert sum(int(line.split()[2]) for line in out[1:4]) == 4000


def test_with_here_closing_writes_nothing(tmp_path):
    assert _run(tmp_path, "cancel", here=True).splitlines()[1:] == ["end"]
