"""What `turnlens diff [REV_A [REV_B]] [PATH…]` compares: the two versions, where to look in them, and the
comparison itself."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from turnlens.formatting.diff.compare import TreeDiff, compare_snapshots, snapshot_version
from turnlens.formatting.diff.trees import (
    DiffInputError,
    Tree,
    folder_tree,
    read_revision,
    repository_root,
    resolve_revision,
    working_tree,
)


@dataclass
class DiffPlan:
    """Two versions and the parts of them compared (`paths`, relative to the versions' root; none: all of it).
    `shown_root` is the path every text is written with: the repository's (or the first folder's)."""

    before: Tree
    after: Tree
    shown_root: str
    paths: list[str] = field(default_factory=list)
    cwd_rel: str = ""  # the working folder, relative to the root ("" at the root or outside it)

    def close(self) -> None:
        self.before.close()
        self.after.close()


def plan_diff(args: Sequence[str], cwd: str, max_size: int) -> DiffPlan:
    """Read `[REV_A [REV_B]] [--] [PATH…]` (or two folders) the way `git diff` reads them: an argument that is
    an existing path is a path, else it must name a revision. Raises DiffInputError with one line."""
    args = list(args)
    if "--" in args:
        cut = args.index("--")
        heads, paths = args[:cut], args[cut + 1 :]
    else:
        heads, paths = [], []
        for arg in args:
            if not paths and len(heads) < 2 and not os.path.exists(os.path.join(cwd, arg)):
                heads.append(arg)
            else:
                paths.append(arg)
    if not heads and len(paths) == 2 and "--" not in args and all(os.path.isdir(os.path.join(cwd, p)) for p in paths):
        return _folders(os.path.join(cwd, paths[0]), os.path.join(cwd, paths[1]), paths)
    repo = repository_root(cwd)
    if repo is None:
        raise DiffInputError(
            "not inside a git repository: turnlens diff compares git revisions (HEAD and the working tree by "
            "default); outside one, name two folders: turnlens diff OLD_FOLDER NEW_FOLDER"
        )
    if len(heads) > 2:
        raise DiffInputError(f"at most two revisions are compared (given: {', '.join(heads)})")
    for head in heads:
        if resolve_revision(head, repo) is None:
            raise DiffInputError(
                f"unknown revision or path not in the working tree: {head!r} (use -- to separate paths from revisions)"
            )
    rel_paths = []
    for path in paths:
        absolute = os.path.realpath(os.path.join(cwd, path))
        rel = os.path.relpath(absolute, repo)
        if rel == ".." or rel.startswith(".." + os.sep):
            raise DiffInputError(f"{path}: is outside the repository at {repo}")
        rel_paths.append("" if rel == "." else rel)
    cwd_rel = os.path.relpath(os.path.realpath(cwd), repo)
    cwd_rel = "" if cwd_rel == "." or cwd_rel.startswith("..") else cwd_rel
    revisions = heads or ["HEAD"]
    if resolve_revision(revisions[0], repo) is None:  # HEAD of a repository without a commit yet
        raise DiffInputError(f"unknown revision {revisions[0]!r}: the repository at {repo} has no commit yet")
    before = read_revision(revisions[0], repo, max_size)
    try:
        after = read_revision(revisions[1], repo, max_size) if len(revisions) == 2 else working_tree(repo)
    except BaseException:
        before.close()
        raise
    return DiffPlan(before, after, repo, rel_paths, cwd_rel)


def _folders(old: str, new: str, names: list[str]) -> DiffPlan:
    before, after = folder_tree(old), folder_tree(new)
    before.label, after.label = names
    return DiffPlan(before, after, before.root)


def eval_files_in(tree: Tree, paths: list[str]) -> list[str]:
    """The eval files of one version under `paths` (all of it when none), as the inspector discovers them."""
    from turnlens.formatting.dialects.discover import discover_eval_files

    found: list[str] = []
    for rel in paths or [""]:
        target = os.path.join(tree.root, rel) if rel else tree.root
        if os.path.isdir(target):
            found.extend(p for p in discover_eval_files(target, tree.root) if p not in found)
        elif os.path.isfile(target) and target not in found:
            found.append(target)
    return found


def run_diff(
    plan: DiffPlan,
    environ: Mapping[str, str] | None = None,
    dialect: str = "auto",
    progress: Callable[[str], None] | None = None,
) -> TreeDiff:
    sides = []
    for tree in (plan.before, plan.after):
        cwd = os.path.join(tree.root, plan.cwd_rel) if plan.cwd_rel else tree.root
        if not os.path.isdir(cwd):
            cwd = tree.root
        sides.append(
            snapshot_version(tree, eval_files_in(tree, plan.paths), plan.shown_root, cwd, environ, dialect, progress)
        )
    (before, problems_a), (after, problems_b) = sides
    diff = compare_snapshots(before, after, plan.before, plan.after)
    for refused, label, other in (
        (problems_a, plan.before.label, problems_b),
        (problems_b, plan.after.label, problems_a),
    ):
        diff.problems.extend(
            f"{name}: not read in {label}: {why}" for name, why in refused.items() if other.get(name) != why
        )
    return diff
