"""Running out of memory names the limit that was hit (issue 22.10): a process limit (`ulimit -v`), a control
group's, or the machine's memory; never --max-file-size, which bounds a file's size and was not what stopped it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from turnlens.formatting.dialects import load
from turnlens.formatting.evals import agentv4
from turnlens.formatting.memlimit import limit_hit

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="POSIX limits")
def test_a_process_limit_is_named():
    code = (
        "import resource; resource.setrlimit(resource.RLIMIT_AS, (3 << 30, resource.RLIM_INFINITY)); "
        "from turnlens.formatting.memlimit import limit_hit; print(limit_hit())"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert out.stdout.strip() == "this process may use at most 3,072 MiB (ulimit -v)", out.stderr


def test_a_load_out_of_memory_names_the_limit_not_the_size_option(tmp_path, monkeypatch):
    path = tmp_path / "suite.eval.yaml"
    path.write_text("tests:\n  - id: a\n    input: hi\n    criteria: c\n")

    def no_memory(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(agentv4, "load_suite", no_memory)
    loaded = load.load_eval_file(path, repo_root=str(tmp_path))
    assert loaded.error is not None
    assert loaded.error.message == f"out of memory while loading this file ({limit_hit()})"
    assert "--max-file-size" not in loaded.error.message
