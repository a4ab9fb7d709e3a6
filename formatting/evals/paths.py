"""Where an eval file's repository is, and the folders from one folder up to another (both dialects, discovery
and the `.env`/config searches walk these)."""

from __future__ import annotations

import os


def find_repo_root(cwd: str | None = None) -> str:
    """Nearest ancestor of `cwd` holding `.git`, else `cwd` itself."""
    start = os.path.abspath(cwd or os.getcwd())
    current = start
    while True:
        if os.path.exists(os.path.join(current, ".git")):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return start
        current = parent


def dirs_up(start: str, stop: str) -> list[str]:
    """`start`, its parent, … up to and including `stop` (or the filesystem root when `stop` is not above)."""
    out = []
    current = start
    while True:
        out.append(current)
        if current == stop:
            break
        parent = os.path.dirname(current)
        if parent == current:
            break
        current = parent
    return out


def posix_rel(path: str, root: str) -> str:
    return os.path.relpath(path, root).replace(os.sep, "/")
