"""Opening `.agentv/results/` (or any folder under `.agentv/`): results, decided without walking every per-test
artifact folder for eval files (AgentV never discovers eval files under .agentv/; a run of 50,000 tests took
minutes to walk)."""

from __future__ import annotations

import shutil
from pathlib import Path

from turnlens.formatting.inputs import path_kind
from turnlens.tui.app import make_app

RUNS = Path(__file__).parents[1] / "fixtures" / "results" / "v4" / ".agentv" / "results"


def test_a_folder_of_runs_under_agentv_is_not_walked_for_eval_files(tmp_path, monkeypatch):
    results = tmp_path / "project" / ".agentv" / "results"
    shutil.copytree(RUNS, results)
    # a copied suite inside a test's artifacts looks like an eval file to discovery
    task = results / "runs" / "default" / "2026-06-21T09-00-00-000Z" / "greeting" / "hello-flat" / "task" / "evals"
    task.mkdir(parents=True)
    (task / "x.eval.yaml").write_text("tests:\n  - id: a\n    input: hi\n    criteria: c\n")

    import turnlens.tui.session as session

    def walked(*args, **kwargs):
        raise AssertionError("the folder of runs was walked for eval files")

    monkeypatch.setattr(session, "find_eval_files", walked)
    assert path_kind(str(results)).is_results
    assert path_kind(str(results / "runs")).is_results
    app = make_app([str(results)], watch=False)
    assert app is not None


def test_a_project_folder_is_still_looked_at_for_eval_files(tmp_path):
    project = tmp_path / "project"
    (project / "evals").mkdir(parents=True)
    (project / "evals" / "x.eval.yaml").write_text("tests:\n  - id: a\n    input: hi\n    criteria: c\n")
    shutil.copytree(RUNS, project / ".agentv" / "results")
    assert not path_kind(str(project)).is_results  # eval files here: the inspector opens
