"""A copy of sample_evals/ committed in a fresh git repository, for `turnlens diff`."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from git_helpers import SAMPLES, commit_all, git  # tests/git_helpers.py


@pytest.fixture
def sample_repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    shutil.copytree(SAMPLES, repo)
    shutil.rmtree(repo / ".agentv" / "results")  # results are not eval files: less to copy
    git(repo, "init", "-q", "-b", "main")
    commit_all(repo, "samples")
    return repo
