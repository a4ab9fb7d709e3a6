"""`file://` globs in an AgentV 4 suite's `tests`: the folders they read are recorded in the load's watched paths,
so that a case file appearing there later is picked up (the inspector re-renders; see tests/inspector)."""

from __future__ import annotations

import os

from turnlens.formatting.dialects.load import load_eval_file


def _suite(tmp_path, entry: str):
    (tmp_path / "evals").mkdir()
    suite = tmp_path / "evals" / "s.eval.yaml"
    suite.write_text(f"tests:\n  - {entry}\n")
    return suite


def test_a_glob_records_its_folder_even_when_nothing_matches(tmp_path):
    suite = _suite(tmp_path, "file://cases/*.yaml")
    ev = load_eval_file(str(suite), repo_root=str(tmp_path), cwd=str(tmp_path))
    assert ev.error is None and ev.cases == []
    assert str(tmp_path / "evals" / "cases") in ev.watched_paths
    assert any("Glob pattern matched no files" in d.message for d in ev.diagnostics)


def test_a_recursive_glob_records_every_folder_under_its_base(tmp_path):
    suite = _suite(tmp_path, "file://cases/**/*.yaml")
    deep = tmp_path / "evals" / "cases" / "a" / "b"
    deep.mkdir(parents=True)
    (deep / "x.yaml").write_text("- id: deep\n  criteria: c\n  input: Q\n")
    ev = load_eval_file(str(suite), repo_root=str(tmp_path), cwd=str(tmp_path))
    assert [c.id for c in ev.cases] == ["deep"]
    base = tmp_path / "evals" / "cases"
    assert {str(base), str(base / "a"), str(deep)} <= ev.watched_paths
    assert str(deep / "x.yaml") in {os.path.normpath(p) for p in ev.watched_paths}
