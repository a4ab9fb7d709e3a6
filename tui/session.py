"""What the inspector knows: the eval files it shows, their last good load, and formatted cases (cached).

Plain Python (no Textual) so it can be driven from tests and benchmarks. Loading is done by the engine; this module
only decides which files to load, keeps the last good version of a file whose YAML broke, and caches formatting.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import cast

import turnlens
from turnlens.formatting.dialects.discover import find_eval_files
from turnlens.formatting.dialects.format import format_case
from turnlens.formatting.evals.files import YAML_SUFFIXES, FileReadError, display_path, read_text_file
from turnlens.formatting.evals.paths import find_repo_root
from turnlens.formatting.model import Diagnostic, EvalCase, EvalFile, FormattedCase, Profile

from .cache import BoundedCache
from .loading import case_row, load_kept, load_whole
from .rows import CaseRow

FORMATTED_CACHE_SIZE = 64  # formatted cases kept (the ones around the case on screen); the list keeps only rows
FORMATTED_CACHE_CHARS = 4_000_000  # ... and the characters they hold (~1 byte each): a few MB for big cases


def _unread_warnings(unread: list[tuple[str, str]], cut: list[tuple[str, str]]) -> list[Diagnostic]:
    # The reader's reason may end with its own "not read" (a FIFO): said once here.
    return [
        Diagnostic(path, None, f"not read, so not shown: {reason.removesuffix(': not read')}")
        for path, reason in unread
    ] + [Diagnostic(path, None, why) for path, why in cut]


@dataclass
class LoadedFile:
    """One eval file of the session: its last good load, its current refusal, and what its load depends on."""

    path: str  # absolute
    root: str  # the repository root, which `rel` is relative to
    good: EvalFile | None = None  # last load without a file-level error
    error: Diagnostic | None = None  # the current load's refusal, if any
    generation: int = 0
    depends_on: set[str] = field(default_factory=set)  # absolute paths whose change calls for a reload
    stamps: dict[str, int | None] = field(default_factory=dict)  # mtime_ns of depends_on when applied
    partial: bool = False  # `good` is the first part of a load in progress (not a last good version)

    @cached_property
    def rel(self) -> str:
        """The path for display. Made when first shown: a folder of 3,000 eval files made all of theirs before its
        first frame (~15 ms), when it shows the first file's."""
        return display_path(self.path, self.root)

    @property
    def stale(self) -> bool:
        """Showing the last good version while the file on disk is refused."""
        return self.error is not None and self.good is not None


@dataclass
class Scan:
    """The eval files found in the folders opened (see Session.scan)."""

    files: list[LoadedFile]
    folders: set[str]  # the folders searched (real paths)
    unread: list[Diagnostic]  # candidate files that could not be read


class Session:
    """The eval files being inspected, reloadable one by one."""

    def __init__(
        self, paths: Iterable[str], *, repo_root: str | None = None, cwd: str | None = None, dialect: str = "auto"
    ):
        self.dialect = dialect  # "auto" (each file's shape decides), "agentv-0.15" or "agentv-4"

        self.cwd = cwd  # the working directory as a search root for file references (None: the real one)
        self.repo_root = os.path.abspath(repo_root) if repo_root else find_repo_root(cwd)
        self.roots = [os.fspath(p) for p in paths]
        # the folders named: one deleted is still a folder (no files while it is gone, and watched for its return)
        self.root_folders = {os.path.realpath(p) for p in self.roots if os.path.isdir(p)}
        self.scanned_folders: set[str] = set()  # folders searched for eval files (real paths)
        unread: list[tuple[str, str]] = []
        cut: list[tuple[str, str]] = []
        self.files: list[LoadedFile] = [
            LoadedFile(path=p, root=self.repo_root)
            for p in find_eval_files(self.roots, self.repo_root, folders=self.scanned_folders, unread=unread, cut=cut)
        ]
        self.unread = _unread_warnings(unread, cut)
        self._formatted: BoundedCache[tuple[str, int, int, str], FormattedCase] = BoundedCache(
            FORMATTED_CACHE_SIZE, max_weight=FORMATTED_CACHE_CHARS, weigh=formatted_chars
        )
        self.notes: list[str] = []  # said once above the panes (e.g. a results file named among eval files)
        self.stop_notes: dict[str, str] = {}  # path -> where loading it stopped (the memory limit), one of `notes`
        self._real_folders: dict[str, str] | None = None  # folder -> real path, while files are applied together

    def rescan(self) -> list[int]:
        """Look for eval files added to or removed from the folders opened; returns the numbers of new files.

        Files still present keep their state (last good load, generation), so the caller can re-find the
        selected case by path and id.
        """
        return self.apply_scan(self.scan())

    def scan(self) -> Scan:
        """The folders opened searched again, the session unchanged (safe in a worker thread): the files still
        present are the same objects, new ones are not loaded yet."""
        folders: set[str] = set()
        unread: list[tuple[str, str]] = []
        cut: list[tuple[str, str]] = []
        present = [p for p in self.roots if os.path.realpath(p) not in self.root_folders or os.path.isdir(p)]
        paths = find_eval_files(present, self.repo_root, folders=folders, unread=unread, cut=cut)
        known = {f.path: f for f in self.files}
        files = [known.get(p) or LoadedFile(path=p, root=self.repo_root) for p in paths]
        return Scan(files, folders, _unread_warnings(unread, cut))

    def apply_scan(self, scan: Scan) -> list[int]:
        """Take the files of `scan`; returns the numbers of the new ones."""
        known = {f.path for f in self.files}
        self.scanned_folders = scan.folders
        self.unread = scan.unread
        self.files = list(scan.files)
        return [n for n, f in enumerate(self.files) if f.path not in known]

    def is_new_candidate(self, path: str) -> bool:
        """A YAML file in a searched folder that is not (yet) one of the eval files: rescan when it changes."""
        real = os.path.realpath(path)
        return (
            real.endswith(YAML_SUFFIXES)
            and os.path.dirname(real) in self.scanned_folders
            and all(os.path.realpath(f.path) != real for f in self.files)
        )

    # -- loading

    def load_all(self) -> None:
        for number in range(len(self.files)):
            self.apply(number, self.load(number))

    def load(self, number: int) -> EvalFile:
        """Load one file with the engine (safe to call from a worker thread)."""
        return self.load_path(self.files[number].path)

    def load_path(self, path: str) -> EvalFile:
        """Load the eval file at `path` with the session's settings (safe to call from a worker thread); a big one
        in slices, as the first load does (tui/loading.py), so that a reload's memory peaks no higher."""
        return load_whole(path, repo_root=self.repo_root, cwd=self.cwd, dialect=self.dialect)

    def reload_path(self, path: str) -> tuple[EvalFile, str | None]:
        """load_path() for a reload: with the note that says where the memory limit stopped it (else None)."""
        return load_kept(path, repo_root=self.repo_root, cwd=self.cwd, dialect=self.dialect)

    def set_stop_note(self, path: str, note: str | None) -> None:
        """Say where loading `path` stopped (in place of what its last load said), or that it did not (None)."""
        old = self.stop_notes.pop(path, None)
        if old is not None and old in self.notes:
            self.notes.remove(old)
        if note is not None:
            self.stop_notes[path] = note
            if note not in self.notes:
                self.notes.append(note)

    def dependencies(
        self, path: str, eval_file: EvalFile, since: int | None = None, folders: dict[str, str] | None = None
    ) -> dict[str, int | None]:
        """What applying `eval_file` as file `path`'s load makes it depend on, each path with its mtime (None: none
        there): all of it (`since` None, for `apply`), or what cases `since` on add (for `extend`). Safe in a worker
        thread: the loading worker finds it there, for the event loop only to take (a folder of 3,000 files' realpath
        and stat calls were a large part of the event loop's time while it was listed). `folders`: real paths of
        folders found already (see _real_path), kept there."""
        folders = {} if folders is None else folders
        if since is not None:
            paths = _dependencies(eval_file, eval_file.cases[since:], folders)
        else:
            paths = (
                _dependencies(eval_file, folders=folders)
                | {_real_path(path, folders), os.path.abspath(path)}  # a link: its target, and itself
                | self._config_candidates(path, folders)
            )
        return {p: _mtime(p) for p in paths}

    def apply(
        self,
        number: int,
        eval_file: EvalFile,
        *,
        partial: bool = False,
        dependencies: Mapping[str, int | None] | None = None,
    ) -> None:
        """Take a fresh load of file `number`; a refused load keeps the last good one for display. `partial`: the
        first part of a load in progress, which `extend` completes (or a whole load replaces). `dependencies`: what
        `dependencies(path, eval_file)` said, when it was found already."""
        loaded = self.files[number]
        if loaded.partial:
            loaded.good = None  # a part of a load that was then refused is no "last good version"
        loaded.partial = partial
        loaded.generation += 1
        folders = self._real_folders if self._real_folders is not None else {}
        stamps = (
            dict(dependencies) if dependencies is not None else self.dependencies(loaded.path, eval_file, None, folders)
        )
        if eval_file.error is not None:
            loaded.error = eval_file.error
            if loaded.good is not None:
                for p in _dependencies(loaded.good, folders=folders) - stamps.keys():
                    stamps[p] = _mtime(p)
        else:
            loaded.error = None
            loaded.good = eval_file
        loaded.depends_on = set(stamps)
        loaded.stamps = stamps
        self._formatted.discard_where(lambda k: k[0] == loaded.path)

    def extend(
        self,
        number: int,
        eval_file: EvalFile,
        *,
        partial: bool = False,
        dependencies: Mapping[str, int | None] | None = None,
    ) -> None:
        """Take `eval_file`, the part of file `number` applied last with more cases appended (the same objects):
        what was made of the cases already there stays valid (same generation). `dependencies`: what
        `dependencies(path, eval_file, since)` said for cases from `since` at most, when it was found already."""
        loaded = self.files[number]
        before = loaded.good.cases if loaded.good is not None else []
        folders = self._real_folders if self._real_folders is not None else {}
        if dependencies is None:
            dependencies = self.dependencies(loaded.path, eval_file, len(before), folders)
        added = dependencies.keys() - loaded.depends_on
        loaded.depends_on |= added
        loaded.stamps.update((p, dependencies[p]) for p in added)
        loaded.good = eval_file
        loaded.partial = partial

    def changed_since_load(self) -> list[int]:
        """Files one of whose inputs changed on disk since it was applied (a change the watcher may have missed
        while it was (re)starting)."""
        return [
            n
            for n, f in enumerate(self.files)
            if f.generation and any(_mtime(p) != stamp for p, stamp in f.stamps.items())
        ]

    @contextmanager
    def applying(self) -> Iterator[None]:
        """Files applied (or extended) together, a load's batch: each folder's real path is found once for them all
        (os.path.realpath looks at every part of every path, the same folders again for every file of a folder: a
        large part of the event loop's time while a big folder was listed)."""
        self._real_folders = {}
        try:
            yield
        finally:
            self._real_folders = None

    def _config_candidates(self, eval_path: str, folders: dict[str, str]) -> set[str]:
        """Where a `.agentv/config.yaml` would take effect (eval folder up to the repo root): creating one there
        changes the guidelines, so these paths are watched too, as is the `.agentv` folder itself."""
        candidates: set[str] = set()
        folder = os.path.dirname(_real_path(eval_path, folders))
        root = _real_path(self.repo_root, folders)
        while True:
            candidates.add(os.path.join(folder, ".agentv"))
            candidates.add(os.path.join(folder, ".agentv", "config.yaml"))
            if folder == root or not folder.startswith(root + os.sep):
                break
            folder = os.path.dirname(folder)
        return candidates

    def files_depending_on(self, changed: Iterable[str]) -> list[int]:
        changed = list(changed)
        # the path itself too: a file replaced by a link has a new real path (its target), not the one loaded
        real = {os.path.realpath(p) for p in changed} | {os.path.abspath(p) for p in changed}
        real |= {os.path.dirname(p) for p in real}  # a file appearing in a folder read whole
        return [n for n, f in enumerate(self.files) if f.depends_on & real]

    def is_relevant(self, path: str, watched: set[str] | None = None) -> bool:
        """A change at `path` matters: a file a load depended on (or a missing one it looked for), a file inside a
        folder it read whole (`tests: folder`, a glob's folder), a folder on the way to a missing file (created:
        the watcher must look inside it), or a possible new eval file."""
        watched = self.watched_paths() if watched is None else watched
        real = os.path.realpath(path)
        if real in watched or os.path.dirname(real) in watched or self.is_new_candidate(path):
            return True
        if os.path.abspath(path) in watched:  # replaced by a link: its real path is now the link's target
            return True
        if self.is_root_folder(real):
            return True
        prefix = real + os.sep
        return os.path.isdir(real) and any(p.startswith(prefix) for p in watched)

    def is_root_folder(self, path: str) -> bool:
        """`path` is a folder named (or on the way to one): made or deleted, the folders opened are searched again."""
        real = os.path.realpath(path)
        return any(root == real or root.startswith(real + os.sep) for root in self.root_folders)

    def watched_paths(self) -> set[str]:
        paths: set[str] = set()
        for f in self.files:
            paths |= f.depends_on
        return paths

    def watched_folders(self) -> set[str]:
        """Folders to watch (not recursively): those holding watched files, and those searched for eval files
        (for a folder named that was deleted, its nearest existing parent, to see it made again)."""
        folders = set(self.scanned_folders)
        for root in self.root_folders:
            existing = root if os.path.isdir(root) else _existing_folder(os.path.dirname(root))
            if existing:
                folders.add(existing)
        for path in self.watched_paths():
            folder = _existing_folder(os.path.dirname(path))
            if folder:
                folders.add(folder)
            if os.path.isdir(path):  # a folder read whole: what appears in it matters
                folders.add(path)
        return folders

    # -- cases

    def case(self, key: str) -> tuple[LoadedFile, EvalCase] | None:
        try:
            number, index = (int(x) for x in key.split(":"))
            loaded = self.files[number]
        except (ValueError, IndexError):
            return None
        if loaded.good is None or not 0 <= index < len(loaded.good.cases):
            return None
        return loaded, loaded.good.cases[index]

    def formatted(self, key: str, profile: str) -> FormattedCase | None:
        """The case formatted with `profile`, None for a skipped (or unknown) case. Cached per load (the latest
        ones: safe to call from a worker thread)."""
        found = self.case(key)
        if found is None:
            return None
        loaded, case = found
        if case.skipped or loaded.good is None:
            return None
        cache_key = (loaded.path, loaded.generation, case.index, profile)
        result = self._formatted.get(cache_key)
        if result is None:
            try:
                result = format_case(case, loaded.good, cast(Profile, profile))
            except ValueError:
                return None
            self._formatted.set(cache_key, result)
        return result

    def case_keys(self) -> list[str]:
        return [
            f"{number}:{case.index}"
            for number, loaded in enumerate(self.files)
            if loaded.good is not None
            for case in loaded.good.cases
        ]

    def find_key(self, path: str, case_id: str | None, index: int) -> str | None:
        """The key of a case after a reload: same file, same id if it still exists, else same position."""
        for number, loaded in enumerate(self.files):
            if loaded.path != path or loaded.good is None:
                continue
            cases = loaded.good.cases
            if case_id is not None:
                for case in cases:
                    if case.id == case_id:
                        return f"{number}:{case.index}"
            if cases:
                return f"{number}:{min(index, len(cases) - 1)}"
        return None

    def case_location(self, key: str) -> tuple[str, int | None]:
        """(file, line) where the case is written: the eval file, or for an agentv-4 test pulled in from an external
        case file (`source` "cases/x.yaml") or a dataset (`source` "data.jsonl line 3") that file."""
        found = self.case(key)
        if found is None:
            return "", None
        loaded, case = found
        if not case.source:
            return loaded.path, case.line
        name, _, line = case.source.partition(" line ")
        path = os.path.join(os.path.dirname(loaded.path), name)
        if not os.path.isfile(path):
            return loaded.path, case.line
        return path, int(line) if line.isdigit() else case.line

    def case_source(self, key: str) -> tuple[int, str]:
        """(first line, text) of the case as written in the file on disk, up to the next case."""
        found = self.case(key)
        if found is None:
            return 0, ""
        loaded, case = found
        good, first = loaded.good, case.line or 0
        if good is None or not first or case.source:  # a test written in another file: no excerpt of this one
            return 0, ""
        later = [c.line for c in good.cases if c.line and c.line > first]
        try:
            lines = read_text_file(loaded.path, utf16_ok=True).split("\n")
        except FileReadError:  # not a regular file any more, or too large
            return 0, ""
        end = min(later) - 1 if later else len(lines)
        chunk = lines[first - 1 : end]
        # Blank lines and comments just above the next case belong to it.
        while chunk and (not chunk[-1].strip() or chunk[-1].lstrip().startswith("#")):
            chunk.pop()
        return first, "\n".join(chunk)

    def row(self, key: str, profile: str = "agentv") -> CaseRow | None:
        found = self.case(key)
        if found is None or found[0].good is None:
            return None
        return case_row(key, found[0].good, found[1].index, profile)

    def errors(self) -> list[tuple[LoadedFile, Diagnostic]]:
        return [(f, f.error) for f in self.files if f.error is not None]

    def file_warnings(self) -> list[Diagnostic]:
        """File-level warnings of the files shown (a broken `.agentv/config.yaml`, an entry that is not a case),
        each once even when several eval files share the config."""
        seen: set[tuple[str, int | None, str]] = set()
        out: list[Diagnostic] = list(self.unread)  # candidate files in the folders opened that could not be read
        for loaded in self.files:
            if loaded.good is None:
                continue
            for d in loaded.good.diagnostics:
                if d.severity == "info":  # e.g. what `${{ VAR }}` replaced: said in the rule panel, not a warning
                    continue
                key = (d.file, d.line, d.message)
                if key not in seen:
                    seen.add(key)
                    out.append(d)
        return out

    def config_searched(self, eval_path: str) -> list[str]:
        """The `.agentv/config.yaml` paths looked for, nearest first (eval file's folder up to the repo root)."""
        out = []
        folder = os.path.dirname(os.path.abspath(eval_path))
        root = os.path.abspath(self.repo_root)
        while True:  # as the loader looks: up to the repo root, or to the filesystem root when it is not above
            out.append(os.path.join(folder, ".agentv", "config.yaml"))
            parent = os.path.dirname(folder)
            if folder == root or parent == folder:
                break
            folder = parent
        return out


def formatted_chars(formatted: FormattedCase) -> int:
    """The characters a formatted case holds (both modes' texts and the grader's prompt): its weight in the cache.
    The prompt is counted as the lm question it holds, made or not (making it to weigh it is the copy its laziness
    saves)."""
    chars = len(formatted.lm.question)
    for rendered in (formatted.lm, formatted.agent):
        chars += len(rendered.question) + len(rendered.guidelines) + len(rendered.system_message or "")
        chars += sum(len(message.content) for message in rendered.chat_prompt or ())
    return chars


def _dependencies(
    eval_file: EvalFile, cases: list[EvalCase] | None = None, folders: dict[str, str] | None = None
) -> set[str]:
    """Every path a load depended on (real paths): what the engine read or looked for (`watched_paths`: the eval
    file, configs, `.env` files, external case files, sidecars, referenced files), and every place a missing
    referenced file was looked for (in `cases`, by default all), so that it showing up later re-renders the case.
    `folders`: real paths of folders found already (see _real_path)."""
    paths = set(eval_file.watched_paths)
    for case in eval_file.cases if cases is None else cases:
        for message in (*case.messages, *case.expected_messages, *case.expected_output):
            for segment in message.segments:
                if segment.resolved_path is None and segment.tried:
                    paths.update(segment.tried)
    folders = {} if folders is None else folders
    return {_real_path(p, folders) for p in paths}


def _real_path(path: str, folders: dict[str, str]) -> str:
    """os.path.realpath(path), its folder's real path taken from `folders` (and kept there): only the last part
    is looked at again (a link: the whole path is resolved)."""
    folder, name = os.path.split(os.path.abspath(path))
    real = folders.get(folder)
    if real is None:
        real = folders[folder] = os.path.realpath(folder)
    if not name:
        return real
    joined = os.path.join(real, name)
    return os.path.realpath(joined) if os.path.islink(joined) else joined


def _mtime(path: str) -> int | None:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return None


def _existing_folder(folder: str) -> str | None:
    """`folder`, or its nearest existing ancestor (a referenced file's folder may not exist yet)."""
    while folder and not os.path.isdir(folder):
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent
    return folder or None


def installed_sample(path: str) -> bool:
    """Whether `path` is one of the bundled samples as installed with the package (in site-packages, not a
    checkout): editing it changes the installed copy, which the next upgrade replaces."""
    samples = default_sample_dir().resolve()
    try:
        Path(path).resolve().relative_to(samples)
    except ValueError:
        return False
    return any(part in ("site-packages", "dist-packages") for part in samples.parts)


def copy_samples(folder: str) -> str:
    """Copy the bundled samples into `folder` (made if missing) as `folder/sample_evals`; its path. OSError (the
    message says why) when it cannot, FileExistsError when `sample_evals` is already there."""
    target = Path(folder) / "sample_evals"
    if target.exists():
        raise FileExistsError(f"{target} already exists")
    Path(folder).mkdir(parents=True, exist_ok=True)
    shutil.copytree(default_sample_dir(), target, ignore=shutil.ignore_patterns("__pycache__"))
    return str(target)


def default_sample_dir() -> Path:
    """The bundled samples: package data of `turnlens`, in a checkout and in a wheel alike. From the package's own
    path (importlib.resources, which says the same of a package on disk, costs the start more), its links followed:
    a strict editable install imports the checkout's modules through a folder of links, and the samples are the
    checkout's, not links to them."""
    return Path(turnlens.__file__).resolve().parent / "sample_evals"
