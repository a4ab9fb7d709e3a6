"""A git repository for tests: commands with a fixed identity and no user configuration, and the samples committed
in one."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

SAMPLES = Path(__file__).resolve().parents[1] / "sample_evals"
GIT_ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.invalid",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.invalid",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *args], cwd=repo, capture_output=True, text=True, env={**os.environ, **GIT_ENV}, check=True
    )
    return done.stdout


def commit_all(repo: Path, message: str) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)


def make_sample_repo(tmp_path: Path) -> Path:
    """A copy of sample_evals/ committed in a fresh git repository (its results left out: they are no eval files)."""
    repo = tmp_path / "repo"
    shutil.copytree(SAMPLES, repo, ignore=shutil.ignore_patterns("results"))
    git(repo, "init", "-q", "-b", "main")
    commit_all(repo, "samples")
    return repo
