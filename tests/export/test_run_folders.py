"""A run folder written by the real `agentv eval --dry-run` (tests/fixtures/results/dryrun, recorded by
tests/fixtures/record_dryrun.py) exports as results in every format, as does `.agentv/results`: its per-test
`task/EVAL.yaml` bundles are never taken for eval files, but naming one itself exports it as an eval file. The app
and the export decide with the same `classify`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from turnlens.formatting.inputs import PathKind, classify, path_kind

PROJECT = Path(__file__).parents[1] / "fixtures" / "results" / "dryrun"
RESULTS = PROJECT / ".agentv" / "results"
(RUN,) = sorted((RESULTS / "runs" / "default").iterdir())
TASK = RUN / "greet" / "sum" / "task" / "EVAL.yaml"


def export(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "turnlens", "export", *args], cwd=PROJECT, capture_output=True, timeout=60
    )


def test_kinds():
    assert path_kind(str(RUN)) is PathKind.RUN_FOLDER
    assert path_kind(str(RESULTS)) is PathKind.RESULTS_FOLDER
    assert path_kind(str(RUN / "index.jsonl")) is PathKind.RESULTS_FILE
    assert path_kind(str(TASK)) is PathKind.EVAL_FILE
    assert path_kind(str(PROJECT)) is PathKind.EVAL_FOLDER
    mixed = classify([str(TASK), str(RUN)])
    assert mixed.both and mixed.evals == [str(TASK)] and mixed.results == [str(RUN)]


@pytest.mark.parametrize("where", [RUN, RESULTS], ids=["run folder", ".agentv/results"])
@pytest.mark.parametrize("fmt", ["jsonl", "json", "markdown", "toon"])
def test_results_export_in_every_format(where, fmt):
    proc = export(str(where.relative_to(PROJECT)), "--format", fmt)
    if fmt == "json" and where == RESULTS:  # `agentv compare` compares run workspaces only, and says so
        assert proc.returncode == 1 and b"Result workspace is missing index.jsonl" in proc.stderr
        return
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.decode()
    if fmt == "jsonl":
        assert [json.loads(line)["test_id"] for line in out.splitlines()] == ["hello", "sum"]
    elif fmt == "json":  # the run's targets compared, as `agentv compare RUN --json` prints it
        assert isinstance(json.loads(out), dict)
    elif fmt == "toon":
        assert out.startswith("results[2]:") and "test_id: sum" in out
    else:
        assert "## hello" in out and "## sum" in out
    assert "EVAL.yaml" not in proc.stderr.decode()


def test_a_task_bundle_named_itself_is_an_eval_file():
    proc = export(str(TASK.relative_to(PROJECT)))
    assert proc.returncode == 0, proc.stderr
    (row,) = [json.loads(line) for line in proc.stdout.decode().splitlines()]
    assert row["id"] == "sum" and row["dialect"] == "agentv-4"


def test_the_project_exports_its_eval_files_not_the_bundles():
    proc = export(".")
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(line) for line in proc.stdout.decode().splitlines()]
    assert [row["id"] for row in rows] == ["hello", "sum"]  # the suite's two tests, not the bundles' copies


def test_eval_files_and_results_together_are_refused():
    proc = export(str(TASK.relative_to(PROJECT)), str(RUN.relative_to(PROJECT)))
    assert proc.returncode == 2 and b"cannot mix" in proc.stderr


def test_a_copied_results_folder_outside_agentv_is_results(tmp_path):
    """CI artifacts or a colleague's runs, copied anywhere: the folder holds runs, and its only eval files are the
    runs' task bundles, so it is results (before, the bundles made it a folder of eval files)."""
    import shutil

    copy = tmp_path / "ci-results"
    shutil.copytree(RESULTS, copy)
    assert path_kind(str(copy)) is PathKind.RESULTS_FOLDER
    (copy / "mine.eval.yaml").write_text("tests:\n  - id: own\n    criteria: c\n    input: hi\n")
    assert path_kind(str(copy)) is PathKind.EVAL_FOLDER  # an eval file of its own, outside the runs: eval files
    (copy / "mine.eval.yaml").unlink()
    proc = subprocess.run(
        [sys.executable, "-m", "turnlens", "export", str(copy)], cwd=tmp_path, capture_output=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    assert [json.loads(line)["test_id"] for line in proc.stdout.decode().splitlines()] == ["hello", "sum"]
