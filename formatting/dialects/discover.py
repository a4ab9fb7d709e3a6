"""Which files of a folder are eval files: those the current AgentV's discovery patterns find, then those a
dialect's sniff recognises by their first bytes (SNIFFED_GROUPS). Which dialect a file is then read in is decided by
the dialect records (registry.py); discovery does not load them, since it runs as the app starts.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Iterator

from turnlens.formatting.cancel import never
from turnlens.formatting.evals.files import (
    YAML_SUFFIXES,
    FileReadError,
    read_bytes,
    read_head,
    relative_path,
    wide_encoding,
)
from turnlens.formatting.walk import TreeWalk

DEFAULT_EVAL_PATTERNS = ("**/evals/**/*.eval.yaml", "**/evals/**/eval.yaml", "**/evals/**/*.eval.ts")
# What `agentv eval FOLDER` expands a folder named on its command line to (relative to that folder).
FOLDER_PATTERNS = ("**/{*.eval.yaml,*.eval.yml,eval.yaml,eval.yml,*.eval.ts,*.eval.mts}",)
SKIP_DIRS = {".git", ".venv", "node_modules", "dist", "__pycache__", ".mypy_cache", ".pytest_cache", ".agentv"}
_SCHEMA_SNIFF = re.compile(rb"""^\$schema\s*:\s*["']?agentv-eval-v2["']?\s*(#.*)?$""", re.M)


def declares_v2_schema(path: str, listed_regular: bool = False) -> bool:
    """AgentV 0.15's sniff: a YAML file whose first few KB declare `$schema: agentv-eval-v2`. `listed_regular`: a
    walk's directory entry says it is a regular file, not a link (read_head reads it without a stat first)."""
    if not path.endswith(YAML_SUFFIXES):
        return False
    try:
        head = read_head(path, 8192, listed_regular=listed_regular)
    except (FileReadError, OSError):
        return False
    return bool(_SCHEMA_SNIFF.search(head.replace(b"\r\n", b"\n") if b"\r" in head else head))


# The files of older dialects that the current AgentV's patterns do not find, each told by a look at its first
# bytes (sniff(path, listed_regular): whether a walk's directory entry says it is a regular file, not a link); found
# after the pattern's files, a group per sniff in this order. A new dialect whose files the patterns miss adds its
# sniff here.
SNIFFED_GROUPS: tuple[Callable[[str, bool], bool], ...] = (declares_v2_schema,)


def eval_patterns(folder: str, repo_root: str | None = None) -> tuple[list[str], str | None]:
    """AgentV 4's discovery patterns for `folder`: the `eval_patterns` of the first `.agentv/config.yaml` from the
    folder up to the repo root, else the defaults. Returns (patterns, the config that gave them or None)."""
    from turnlens.formatting.evals.paths import dirs_up, find_repo_root
    from turnlens.formatting.evals.yaml12 import YamlError, parse_yaml_bytes

    root = repo_root or find_repo_root(folder)
    for current in dirs_up(folder, root):
        cfg = os.path.join(current, ".agentv", "config.yaml")
        if not os.path.isfile(cfg):
            continue
        try:
            data = parse_yaml_bytes(read_bytes(cfg)).data
        except (FileReadError, YamlError):
            continue
        patterns = data.get("eval_patterns") if isinstance(data, dict) else None
        if isinstance(patterns, list) and patterns and all(isinstance(p, str) for p in patterns):
            return list(patterns), cfg
        return list(DEFAULT_EVAL_PATTERNS), None
    return list(DEFAULT_EVAL_PATTERNS), None


def discover_eval_files(
    folder: str,
    repo_root: str | None = None,
    folders: set[str] | None = None,
    unread: list[tuple[str, str]] | None = None,
    cut: list[tuple[str, str]] | None = None,
    cancelled: Callable[[], bool] = never,
) -> list[str]:
    """Absolute paths of the eval files in `folder`: first those AgentV 4 finds (its default patterns or the
    `eval_patterns` of `.agentv/config.yaml`, matched from the repo root; and `*.eval.yaml`, `eval.yaml`…
    anywhere under a folder named to it; case-insensitive), then those of each of SNIFFED_GROUPS (the YAML files
    declaring `$schema: agentv-eval-v2`, 0.15): the current format first. In each group, a folder's files (by name)
    come before its subfolders. `folders`, when given, receives every folder searched;
    `unread`, (path, reason) for every .yaml/.yml/.json/.jsonl file that could not be read or sniffed (unreadable,
    UTF-16/32, not a regular file), so it is named rather than silently left out; `cut`, (path, why) for each
    folder not searched (a link out of `folder` and the repo root, /proc, past the depth limit: walk.py).
    `cancelled()` is asked before each folder is searched: true ends the search with formatting.cancel.Cancelled."""
    from turnlens.formatting.evals.paths import find_repo_root

    folder = os.path.abspath(folder)
    root = os.path.abspath(repo_root) if repo_root else find_repo_root(folder)
    patterns = _usable_patterns(folder, root, cut)
    groups: list[list[str]] = [[] for _ in range(1 + len(SNIFFED_GROUPS))]  # the patterns' files, then each sniff's
    walk = TreeWalk(folder, bounds=(root,), skip=SKIP_DIRS, cancelled=cancelled)
    for path, group in _walk_eval_files(walk, folder, root, patterns, folders, unread):
        groups[group].append(path)
    if cut is not None:
        cut.extend(walk.report())
    return [path for group in groups for path in group]


def find_eval_files(
    paths: Iterable[str | os.PathLike[str]],
    repo_root: str | None = None,
    *,
    dot_names: bool = True,
    limit: int | None = None,
    folders: set[str] | None = None,
    unread: list[tuple[str, str]] | None = None,
    cut: list[tuple[str, str]] | None = None,
    cancelled: Callable[[], bool] = never,
) -> list[str]:
    """Absolute paths of the files named and of the eval files found in the folders named (discover_eval_files),
    in order, each once. A file named is kept even if it does not look like an eval file, so that its error shows.

    `dot_names=False` leaves out what lies under a dot-named folder (or is dot-named) below a folder named: drift's
    search for the test behind a result, where such copies are not the suite. `limit` keeps the first that many.
    `folders`, `unread` and `cut` collect, over every folder named, what discover_eval_files says they do;
    `cancelled` stops the search as it does there.
    """
    found: list[str] = []
    seen: set[str] = set()
    for raw in paths:
        path = os.path.abspath(os.fspath(raw))
        if os.path.isdir(path):
            candidates = discover_eval_files(
                path, repo_root, folders=folders, unread=unread, cut=cut, cancelled=cancelled
            )
            if not dot_names:
                candidates = [p for p in candidates if not _dot_named(relative_path(p, path))]
        else:
            candidates = [path]
        for candidate in candidates:
            if candidate not in seen:
                seen.add(candidate)
                found.append(candidate)
    return found if limit is None else found[:limit]


def _dot_named(relative: str) -> bool:
    return any(part.startswith(".") and part not in (".", "..") for part in relative.split(os.sep))


def has_eval_files(folder: str, repo_root: str | None = None, skip_folder: Callable[[str], bool] | None = None) -> bool:
    """Whether `folder` holds an eval file (as discover_eval_files finds them), stopping at the first; subfolders
    for which `skip_folder` is true are not searched."""
    from turnlens.formatting.evals.paths import find_repo_root

    folder = os.path.abspath(folder)
    root = os.path.abspath(repo_root) if repo_root else find_repo_root(folder)
    walk = TreeWalk(folder, bounds=(root,), skip=SKIP_DIRS, skip_folder=skip_folder)
    return next(_walk_eval_files(walk, folder, root, _usable_patterns(folder, root), None, None), None) is not None


def _usable_patterns(folder: str, root: str, problems: list[tuple[str, str]] | None = None) -> list[str]:
    """eval_patterns, without those whose braces expand past globs.BRACE_LIMIT paths: each is named in
    `problems` as (`config.yaml:line`, why) and the others still apply."""
    from turnlens.formatting.evals.globs import expands_too_far, too_far_message

    patterns, cfg = eval_patterns(folder, root)
    usable = [p for p in patterns if not expands_too_far(p)]
    if len(usable) < len(patterns) and cfg is not None and problems is not None:
        lines = _pattern_lines(cfg)
        for n, pattern in enumerate(patterns):
            if pattern not in usable:
                where = f"{cfg}:{lines[n]}" if n < len(lines) and lines[n] else cfg
                problems.append((where, too_far_message(pattern)))
    return usable


def _pattern_lines(cfg: str) -> list[int | None]:
    """The line of each of `eval_patterns` in the config file (read again: only when one is refused)."""
    from turnlens.formatting.evals.yaml12 import YamlError, parse_yaml_bytes

    try:
        doc = parse_yaml_bytes(read_bytes(cfg))
    except (FileReadError, YamlError):
        return []
    patterns = doc.data.get("eval_patterns") if isinstance(doc.data, dict) else None
    return list(doc.child_lines(patterns) or []) if isinstance(patterns, list) else []


def _walk_eval_files(
    walk: TreeWalk,
    folder: str,
    root: str,
    patterns: list[str],
    folders: set[str] | None,
    unread: list[tuple[str, str]] | None,
) -> Iterator[tuple[str, int]]:
    """(path, group) of each eval file in `folder` as the walk finds it: group 0 for the patterns' files, n for
    SNIFFED_GROUPS[n - 1]'s."""
    folder_match = _GlobMatch(list(FOLDER_PATTERNS), _plain_folder_match)
    # (each pattern within globs.BRACE_LIMIT already: _usable_patterns; none left matches nothing)
    if not patterns:
        root_match: Callable[[str], bool] = _no_match
    else:
        root_match = _GlobMatch(patterns, _plain_default_match if patterns == list(DEFAULT_EVAL_PATTERNS) else None)
    root_prefix = os.path.join(root, "")
    root_names = _name_endings(patterns)
    for current, _dirs, files in walk:
        if folders is not None:
            folders.add(walk.real)
        for name in files:
            path = os.path.join(current, name)
            lower = name.lower()
            folder_may = lower.endswith(_FOLDER_NAME_ENDINGS)
            if folder_may or root_names is None or lower.endswith(root_names):
                rel = relative_path(path, folder).replace(os.sep, "/")
                # A file outside the root is matched by its path from the folder.
                from_root = relative_path(path, root).replace(os.sep, "/") if path.startswith(root_prefix) else rel
                if (folder_may and folder_match(rel)) or root_match(from_root):
                    yield path, 0
                    continue
            regular = walk.is_regular_file(name)  # (links, FIFOs and devices: read_head's stat first decides)
            group = next((n for n, sniff in enumerate(SNIFFED_GROUPS, 1) if sniff(path, regular)), None)
            if group is not None:
                yield path, group
            elif unread is not None and name.lower().endswith(_SNIFFED_EXTENSIONS):
                reason = _unsniffable(path)
                if reason is not None:
                    unread.append((path, reason))


_SNIFFED_EXTENSIONS = (".yaml", ".yml", ".json", ".jsonl")
# How the name of every file FOLDER_PATTERNS match ends (lowercase): a name that ends otherwise is not matched
# against them (a glob match is ~20 us; a folder of 3,000 0.15 files matched each twice before the first frame).
_FOLDER_NAME_ENDINGS = ("eval.yaml", "eval.yml", "eval.ts", "eval.mts")
_PLAIN_LAST_PART = re.compile(r"\*?[^*?\[\]{}()!@+|/\\]+")


def _name_endings(patterns: list[str]) -> tuple[str, ...] | None:
    """How the name of every file `patterns` match ends (lowercase), when each pattern's last part is a plain name
    or `*` and a plain ending (`**/evals/**/*.eval.yaml`, `eval.yaml`); None when one is anything else (then every
    name is matched against them)."""
    endings = []
    for pattern in patterns:
        last = pattern.rsplit("/", 1)[-1]
        if not _PLAIN_LAST_PART.fullmatch(last):
            return None
        endings.append(last.lstrip("*").lower())
    return tuple(endings)


def _no_match(_path: str) -> bool:
    return False


class _GlobMatch:
    """Whether a path (relative, `/`-separated) matches `patterns` as AgentV's discovery matches them (wcmatch:
    GLOBSTAR, IGNORECASE, BRACE, EXTGLOB). `plain`, when given, answers for the ASCII paths without `.` or `..` parts
    as wcmatch does, without it: importing wcmatch and compiling the patterns cost ~55 M instructions before the first
    frame of a folder whose files the patterns need not match (3,000 0.15 files, each sniffed)."""

    def __init__(self, patterns: list[str], plain: Callable[[str], bool] | None) -> None:
        self._patterns = patterns
        self._plain = plain
        self._compiled: Callable[[str], bool] | None = None

    def __call__(self, path: str) -> bool:
        if self._plain is not None and path.isascii() and "/./" not in f"/{path}/" and "/../" not in f"/{path}/":
            return self._plain(path)
        if self._compiled is None:
            from wcmatch import glob as wglob  # here, not at the top: only a folder needs it (export startup time)

            flags = wglob.GLOBSTAR | wglob.IGNORECASE | wglob.BRACE | wglob.EXTGLOB
            # Compiled once: globmatch() compiles (and brace-expands) its patterns on every call, ~4/5 of a folder's
            # time.
            self._compiled = wglob.compile(self._patterns, flags=flags, limit=0).match
        return self._compiled(path)


# The plain forms of FOLDER_PATTERNS and DEFAULT_EVAL_PATTERNS on an ASCII path (IGNORECASE is lower()): without
# DOTGLOB, neither `**` nor `*` matches a part starting with `.`; tests/engine/test_discovery_match.py checks them
# against wcmatch.
_FOLDER_NAMES = ("eval.yaml", "eval.yml")
_FOLDER_ENDINGS = (".eval.yaml", ".eval.yml", ".eval.ts", ".eval.mts")
_DEFAULT_ENDINGS = (".eval.yaml", ".eval.ts")


def _plain_parts(path: str) -> list[str] | None:
    parts = path.lower().split("/")
    return None if any(not part or part[0] == "." for part in parts) else parts


def _plain_folder_match(path: str) -> bool:
    """FOLDER_PATTERNS: `**/{*.eval.yaml,*.eval.yml,eval.yaml,eval.yml,*.eval.ts,*.eval.mts}`."""
    parts = _plain_parts(path)
    return parts is not None and (parts[-1] in _FOLDER_NAMES or parts[-1].endswith(_FOLDER_ENDINGS))


def _plain_default_match(path: str) -> bool:
    """DEFAULT_EVAL_PATTERNS: `**/evals/**/*.eval.yaml`, `**/evals/**/eval.yaml`, `**/evals/**/*.eval.ts`."""
    parts = _plain_parts(path)
    return (
        parts is not None
        and (parts[-1] == "eval.yaml" or parts[-1].endswith(_DEFAULT_ENDINGS))
        and "evals" in parts[:-1]
    )


def _unsniffable(path: str) -> str | None:
    """Why a file left out of discovery could not be told apart from an eval file, or None (it was read: not one)."""
    try:
        head = read_head(path, 8192)
    except FileReadError as exc:
        return exc.reason
    except OSError as exc:
        return exc.strerror or str(exc)
    encoding = wide_encoding(head)
    return f"encoded as {encoding}; eval files are UTF-8" if encoding else None
