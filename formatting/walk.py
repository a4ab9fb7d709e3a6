"""The one way turnlens walks a folder tree (eval discovery, folders of runs): iterative (a tree 1,100 levels deep
is no recursion), bounded in depth, each folder once (link loops), never through a link (to a folder or a file) that
leads out of the folders it is bounded to (the folder named, the repository root), never into /proc or /sys. What
it leaves out is reported in `cuts`, so that nothing is left out silently. Pure Python.

One `evals/a/root -> /` link made an export walk the whole filesystem (other processes' /proc/<pid>/cwd
included: a million unrelated rows) and the app overflow its stack.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator

from turnlens.formatting.cancel import check, never

FORBIDDEN_ROOTS = ("/proc", "/sys")  # never searched nor read, whatever a link or a row says
MAX_DEPTH = 64  # levels below the folder named that are searched; deeper subfolders are cut (and said to be)
MAX_FOLDERS = 50_000  # folders listed by one walk; past them it stops (and says so): `turnlens /` ends, q works
MAX_CUTS = 50  # cuts kept for the report; the rest are counted


def forbidden(real: str) -> str | None:
    """/proc or /sys when the real path `real` lies in it (a process's files, the kernel's: never anyone's evals)."""
    return next((root for root in FORBIDDEN_ROOTS if real == root or real.startswith(root + "/")), None)


def inside(real: str, real_root: str) -> bool:
    """Whether the real path `real` is `real_root` or lies under it."""
    return real == real_root or real.startswith(real_root.rstrip(os.sep) + os.sep)


class TreeWalk:
    """`for folder, subfolders, files in TreeWalk(top, bounds=[…]):` like os.walk top-down (the same order: a
    folder, then each subfolder's tree by name; names sorted), where the caller may prune `subfolders` in place.

    A link, to a folder or a file, is followed only when its real path lies inside one of `bounds` (real paths are
    taken of them) and outside /proc and /sys; `skip` names folders never entered. `cuts` receives (path, why) for each
    link not followed, each folder whose subfolders lie past `max_depth`, and `top` itself when it is in /proc or
    /sys, and the walk itself when it stops after `max_folders`; `cut_count` counts them past MAX_CUTS.
    `skip_folder(path)`, when given, is asked of each subfolder: true leaves it out (and everything below it).
    `cancelled()` is asked before each folder is listed: true ends the walk with formatting.cancel.Cancelled."""

    def __init__(
        self,
        top: str,
        bounds: Iterable[str | None] = (),
        skip: Iterable[str] = (),
        max_depth: int = MAX_DEPTH,
        max_folders: int = MAX_FOLDERS,
        skip_folder: Callable[[str], bool] | None = None,
        cancelled: Callable[[], bool] = never,
    ) -> None:
        self.top = top
        self.cancelled = cancelled
        self.skip_folder = skip_folder
        self.bounds = [os.path.realpath(b) for b in {top, *bounds} if b]
        self.skip = frozenset(skip)
        self.max_depth = max_depth
        self.max_folders = max_folders
        self.cuts: list[tuple[str, str]] = []
        self.cut_count = 0
        self.real = ""  # the real path of the folder last yielded
        self.depth = 0  # and how many levels below `top` it lies
        self._file_entries: dict[str, os.DirEntry[str]] = {}  # its files' directory entries, by name

    def _cut(self, path: str, why: str) -> None:
        self.cut_count += 1
        if len(self.cuts) < MAX_CUTS:
            self.cuts.append((path, why))

    def __iter__(self) -> Iterator[tuple[str, list[str], list[str]]]:
        seen: set[str] = set()
        stack = [(self.top, 0)]
        while stack:
            if len(seen) >= self.max_folders:
                self._cut(self.top, f"more than {self.max_folders:,} folders: the search stopped there")
                return
            check(self.cancelled)
            current, depth = stack.pop()
            real = os.path.realpath(current)
            if real in seen:  # a link loop, or a folder reached again through a link
                continue
            seen.add(real)
            root = forbidden(real)
            if root is not None:
                self._cut(current, f"in {root}: not searched")
                continue
            try:
                with os.scandir(current) as listing:
                    entries = list(listing)
            except OSError:
                continue
            subfolders: list[str] = []
            files: list[str] = []
            file_entries: dict[str, os.DirEntry[str]] = {}
            for entry in entries:
                try:
                    is_dir = entry.is_dir()  # (a link is followed to tell)
                except OSError:
                    continue
                if not is_dir:
                    if entry.is_symlink() and not self._may_follow(entry.path, "read"):
                        continue
                    files.append(entry.name)
                    file_entries[entry.name] = entry
                elif entry.name in self.skip:
                    continue
                elif entry.is_symlink() and not self._may_follow(entry.path):
                    continue
                elif self.skip_folder is not None and self.skip_folder(entry.path):
                    continue
                else:
                    subfolders.append(entry.name)
            subfolders.sort()
            files.sort()
            self.real, self.depth, self._file_entries = real, depth, file_entries
            yield current, subfolders, files
            if not subfolders:
                continue
            if depth >= self.max_depth:
                self._cut(current, f"more than {self.max_depth} levels deep: its subfolders are not searched")
                continue
            stack.extend((os.path.join(current, name), depth + 1) for name in reversed(subfolders))

    def is_regular_file(self, name: str) -> bool:
        """Whether the file `name` of the folder last yielded is a regular file and not a link, as its directory
        entry says (no system call where the file system gives the entry's type, as most do)."""
        entry = self._file_entries.get(name)
        try:
            return entry is not None and entry.is_file(follow_symlinks=False)
        except OSError:
            return False

    def _may_follow(self, link: str, verb: str = "followed") -> bool:
        """Whether the link `link` (to a folder, or to a file: `verb` "read") leads inside `bounds` and outside /proc
        and /sys; if not, it is cut."""
        try:
            target = os.path.realpath(link)
        except (OSError, ValueError):
            return False
        if forbidden(target):
            self._cut(link, f"a link into {forbidden(target)}: not {verb}")
            return False
        if not any(inside(target, bound) for bound in self.bounds):
            self._cut(link, f"a link to {target}, outside the folder searched: not {verb}")
            return False
        return True

    def report(self) -> list[tuple[str, str]]:
        """The cuts, and how many more there were past MAX_CUTS."""
        more = self.cut_count - len(self.cuts)
        return self.cuts + ([(self.top, f"… and {more:,} more folders not searched")] if more > 0 else [])
