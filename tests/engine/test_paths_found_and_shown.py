"""The one `find_eval_files` and the one `display_path`, with both rules each is asked for: the inspector's (every
eval file named or found; paths relative to the repo root) and drift's (no dot-named folders, a cap; paths relative
to the working directory)."""

from __future__ import annotations

import os

from turnlens.formatting.dialects.discover import find_eval_files
from turnlens.formatting.evals.files import display_path

SUITE = "tests:\n  - id: a\n    input: hi\n    criteria: c\n"
OLD_SUITE = "$schema: agentv-eval-v2\nevalcases:\n  - id: a\n    outcome: o\n" + (
    "    input_messages:\n      - {role: user, content: hi}\n"
)


def _tree(tmp_path):
    """4.x suites where AgentV looks for them; 0.15 files (found by their `$schema`, anywhere) also in dot names."""
    files = {
        "evals/a.eval.yaml": SUITE,
        "evals/b.eval.yaml": SUITE,
        "old.yaml": OLD_SUITE,
        ".hidden/old.yaml": OLD_SUITE,
        ".old.yaml": OLD_SUITE,
        ".hidden/evals/c.eval.yaml": SUITE,
    }
    for rel, text in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (tmp_path / "notes.yaml").write_text("just: notes\n")
    return tmp_path


def _rel(paths, root):
    return sorted(os.path.relpath(p, root).replace(os.sep, "/") for p in paths)


def test_find_eval_files_takes_every_eval_file_found_and_every_file_named(tmp_path):
    root = _tree(tmp_path)
    found = find_eval_files([root, root / "evals" / "a.eval.yaml", root / "notes.yaml"], str(root))
    assert _rel(found, root) == [
        ".hidden/old.yaml",
        ".old.yaml",
        "evals/a.eval.yaml",
        "evals/b.eval.yaml",
        "notes.yaml",  # named: kept, so that its error shows
        "old.yaml",
    ]
    assert len(found) == len(set(found))  # a.eval.yaml found and named: once


def test_find_eval_files_for_drift_leaves_out_dot_names_and_stops_at_its_limit(tmp_path):
    root = _tree(tmp_path)
    drift = find_eval_files([root], str(root), dot_names=False)
    assert _rel(drift, root) == ["evals/a.eval.yaml", "evals/b.eval.yaml", "old.yaml"]
    assert len(find_eval_files([root], str(root), dot_names=False, limit=1)) == 1
    # dot names above the folder named do not count
    assert _rel(find_eval_files([root / ".hidden"], str(root), dot_names=False), root) == [
        ".hidden/evals/c.eval.yaml",
        ".hidden/old.yaml",
    ]


def test_find_eval_files_reports_the_folders_it_searched(tmp_path):
    root = _tree(tmp_path)
    folders: set[str] = set()
    find_eval_files([root], str(root), folders=folders)
    assert os.path.realpath(root / "evals") in {os.path.realpath(f) for f in folders}


def test_display_path_is_relative_to_the_base_inside_it_and_absolute_outside(tmp_path):
    base = tmp_path / "repo"
    assert display_path(str(base / "evals" / "a.yaml"), str(base)) == "evals/a.yaml"
    assert display_path(str(tmp_path / "elsewhere.yaml"), str(base)) == str(tmp_path / "elsewhere.yaml")
    assert display_path(str(tmp_path / "repo-sibling" / "x.yaml"), str(base)) == str(
        tmp_path / "repo-sibling" / "x.yaml"
    )


def test_display_path_defaults_to_the_working_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert display_path(str(tmp_path / "evals" / "a.yaml")) == "evals/a.yaml"
    assert display_path("evals/../evals/a.yaml") == "evals/a.yaml"
    assert display_path(str(tmp_path)) == "."
    outside = os.path.dirname(str(tmp_path))
    assert display_path(outside) == outside
