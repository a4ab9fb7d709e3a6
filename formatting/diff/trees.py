"""The two versions `turnlens diff` compares, each a folder on disk: the working tree, a git revision read into a
temporary folder, or a folder named on the command line.

Git is only read: `git ls-tree` and `git cat-file --batch` (with optional locks off), never a command that writes
the index, the refs or the working tree. A revision is written out as its blobs are (no checkout filters, no
export-ignore: what the commit holds), so that it reads as the tree did when it was committed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field

# git must not wait for a password or an editor, nor take the index lock to refresh it.
_GIT_ENV = {"GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"}
WORKTREE = "working tree"


class DiffInputError(Exception):
    """What `turnlens diff` was asked cannot be compared (not in a repository, an unknown revision…): one line."""


@dataclass
class Tree:
    """One version: `root` is where its files are on disk, `label` what the output calls it; `temporary` when
    turnlens wrote it (then it is removed by `close`)."""

    root: str
    label: str
    temporary: bool = False
    size_limited: list[str] = field(default_factory=list)  # files written as their size only (see _write_blob)

    def close(self) -> None:
        if self.temporary and os.path.isdir(self.root):
            shutil.rmtree(self.root, ignore_errors=True)


def _git(args: list[str], cwd: str, data: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, **_GIT_ENV}
    try:
        return subprocess.run(
            ["git", *args], cwd=cwd, input=data, capture_output=True, env=env, check=False, stdin=None
        )
    except FileNotFoundError:
        raise DiffInputError("git is not installed (it is needed to read revisions)") from None


def repository_root(cwd: str) -> str | None:
    """The top folder of the git working tree holding `cwd`, or None outside one."""
    done = _git(["rev-parse", "--show-toplevel"], cwd)
    if done.returncode != 0:
        return None
    top = done.stdout.decode("utf-8", "surrogateescape").strip()
    return os.path.realpath(top) if top else None


def resolve_revision(name: str, repo: str) -> str | None:
    """The commit `name` names in the repository, or None when it names none."""
    if name.startswith("-"):
        return None
    done = _git(["rev-parse", "--verify", "--quiet", "--end-of-options", f"{name}^{{commit}}"], repo)
    if done.returncode != 0:
        return None
    return done.stdout.decode().strip() or None


def _ls_tree(commit: str, repo: str) -> Iterator[tuple[str, str, str]]:
    """(mode, object id, path) of every entry of the commit's tree, recursively."""
    done = _git(["ls-tree", "-r", "-z", "--full-tree", commit], repo)
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise DiffInputError(f"git cannot list {commit[:12]}: {message[-1] if message else 'failed'}")
    for entry in done.stdout.split(b"\0"):
        if not entry:
            continue
        meta, _, path = entry.partition(b"\t")
        mode, _kind, oid = meta.decode().split(" ")
        yield mode, oid, os.fsdecode(path)


def _object_sizes(oids: list[str], repo: str) -> dict[str, int]:
    data = "".join(f"{oid}\n" for oid in oids).encode()
    done = _git(["cat-file", "--batch-check=%(objectname) %(objectsize)"], repo, data)
    sizes: dict[str, int] = {}
    for line in done.stdout.decode().splitlines():
        parts = line.split(" ")
        if len(parts) == 2 and parts[1].isdigit():
            sizes[parts[0]] = int(parts[1])
    return sizes


def _blobs(oids: list[str], repo: str) -> Iterator[tuple[str, bytes]]:
    """Each blob's bytes, through one `git cat-file --batch`."""
    if not oids:
        return
    env = {**os.environ, **_GIT_ENV}
    with subprocess.Popen(
        ["git", "cat-file", "--batch"], cwd=repo, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env
    ) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        # Written from a thread: a big list of ids could fill the pipe while git waits for us to read.

        def feed() -> None:
            try:
                proc.stdin.write("".join(f"{oid}\n" for oid in oids).encode())  # type: ignore[union-attr]
                proc.stdin.close()  # type: ignore[union-attr]
            except OSError:
                pass

        writer = threading.Thread(target=feed, daemon=True)
        writer.start()
        for _ in oids:
            header = proc.stdout.readline().decode().split()
            if len(header) != 3:
                break
            oid, _kind, size = header
            body = proc.stdout.read(int(size))
            proc.stdout.read(1)  # the newline after each object
            yield oid, body
        writer.join(timeout=5)


def read_revision(name: str, repo: str, max_size: int) -> Tree:
    """The commit `name` written into a fresh temporary folder, laid out as the repository is (same relative
    paths; symbolic links kept, an absolute one into the repository pointed at the same place in the copy)."""
    commit = resolve_revision(name, repo)
    if commit is None:
        raise DiffInputError(f"unknown revision {name!r} (not a commit of the repository at {repo})")
    root = tempfile.mkdtemp(prefix="turnlens-diff-")
    tree = Tree(root, name, temporary=True)
    try:
        entries = list(_ls_tree(commit, repo))
        sizes = _object_sizes([oid for mode, oid, _ in entries if mode != "160000"], repo)
        wanted = [oid for mode, oid, _ in entries if mode != "160000" and sizes.get(oid, 0) <= max_size]
        contents = dict(_blobs(sorted(set(wanted)), repo))
        for mode, oid, path in entries:
            target = os.path.join(root, path)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            if mode == "160000":  # a submodule: an empty folder, as a checkout without it has
                os.makedirs(target, exist_ok=True)
                continue
            body = contents.get(oid)
            if mode == "120000":
                _write_link(target, (body or b"").decode("utf-8", "surrogateescape"), repo, root)
            elif body is None:
                _write_size_only(target, sizes.get(oid, 0))
                tree.size_limited.append(path)
            else:
                with open(target, "wb") as out:
                    out.write(body)
    except BaseException:
        tree.close()
        raise
    return tree


def _write_link(target: str, link: str, repo: str, root: str) -> None:
    """A symbolic link of the revision, pointing where it points in the repository: into the copy for a target
    inside the repository, at the same outside file for one that leaves it (a relative link climbing out of the
    repository would otherwise point somewhere under the temporary folder)."""
    real_repo = os.path.realpath(repo)
    if not os.path.isabs(link):
        in_repo = os.path.normpath(os.path.join(real_repo, os.path.relpath(os.path.dirname(target), root), link))
        if in_repo != real_repo and not in_repo.startswith(real_repo + os.sep):
            link = in_repo  # leaves the repository: the same outside file, by its absolute path
    elif link == real_repo or link.startswith(real_repo + os.sep):
        link = os.path.join(root, os.path.relpath(link, real_repo))
    try:
        os.symlink(link, target)
    except OSError:
        pass  # a link the system cannot make: the file is missing in this version, as in such a checkout


def _write_size_only(target: str, size: int) -> None:
    """A blob over the size limit is never read: a sparse file of its size stands for it, which the loader
    refuses by size exactly as it would the real one."""
    with open(target, "wb") as out:
        out.truncate(size)


def working_tree(repo: str) -> Tree:
    return Tree(repo, WORKTREE)


def folder_tree(path: str) -> Tree:
    return Tree(os.path.realpath(path), path)
