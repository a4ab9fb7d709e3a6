"""File references as AgentV resolves and reads them, for both dialects: the search order from the eval file's
folder up to the repo root and the working folder (`Resolver`), the text as it is read (UTF-8 with invalid bytes
replaced, CRLF -> LF) and why a file could not be read, in Node's words."""

from __future__ import annotations

import codecs
import errno
import os
from collections.abc import Callable
from typing import Any

from turnlens.formatting.cancel import check, never
from turnlens.formatting.evals.files import FileReadError, read_bytes, real_outside
from turnlens.formatting.evals.paths import dirs_up

NOT_UTF8 = "the file is not valid UTF-8: invalid bytes read as U+FFFD, as AgentV reads them"


def read_text(path: str) -> tuple[str, bool]:
    """File text as the reference reads it: UTF-8 (invalid bytes replaced), CRLF -> LF; and whether it was valid.
    Raises FileReadError (not a regular file, too large, or an OSError)."""
    raw = read_bytes(path)
    try:
        text, valid = raw.decode("utf-8"), True
    except UnicodeDecodeError:
        text, valid = raw.decode("utf-8", errors="replace"), False
    # (a search of the bytes first: replace scans the text even when there is no CR, ~20 ms on a 20 MB attachment)
    return (text.replace("\r\n", "\n") if b"\r" in raw else text), valid


def read_error_text(exc: FileReadError, path: str) -> str:
    """Why a file was not read: Node's wording for an OSError (as the reference prints it), ours otherwise."""
    return os_error_text(exc.os_error, path) if exc.os_error is not None else exc.reason


def os_error_text(exc: OSError, path: str, op: str = "open") -> str:
    names = {  # libuv's wording, which Node prints (lower case, unlike the C library's strerror)
        errno.EISDIR: ("EISDIR", "illegal operation on a directory"),
        errno.EACCES: ("EACCES", "permission denied"),
        errno.ENOENT: ("ENOENT", "no such file or directory"),
        errno.ENOTDIR: ("ENOTDIR", "not a directory"),
        errno.ELOOP: ("ELOOP", "too many symbolic links encountered"),
        errno.EPERM: ("EPERM", "operation not permitted"),
        errno.ENAMETOOLONG: ("ENAMETOOLONG", "name too long"),
    }
    strerror = exc.strerror or "error"
    code, text = names.get(
        exc.errno or 0, (errno.errorcode.get(exc.errno or 0, "EIO"), strerror[:1].lower() + strerror[1:])
    )
    if exc.errno == errno.EISDIR:
        return f"{code}: {text}, read"
    return f"{code}: {text}, {op} '{path}'"


_DECODE_PIECE = 1 << 20  # bytes decoded at a time, in a big file


def decode_eval_bytes(raw: bytes, cancelled: Callable[[], bool] = never) -> tuple[str, int | None]:
    """Text as the reference decodes it, and the line of the first invalid UTF-8 byte (None when valid). A big
    file is decoded a piece at a time: one decode holds the GIL throughout (the inspector's loading thread decoding
    a 50 MB file held its event loop, and `q`, for most of a second on a busy machine). Raises Cancelled between
    pieces once `cancelled()` says so."""
    try:
        return _decoded_in_pieces(raw, cancelled), None
    except UnicodeDecodeError:
        pass
    bad = 0
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:  # (where the first invalid byte is, in the whole file)
        bad = exc.start
    return raw.decode("utf-8", errors="replace"), raw.count(b"\n", 0, bad) + 1


def _decoded_in_pieces(raw: bytes, cancelled: Callable[[], bool]) -> str:
    """raw.decode("utf-8"), _DECODE_PIECE bytes at a time (the GIL let go between them)."""
    if len(raw) <= _DECODE_PIECE:
        return raw.decode("utf-8")
    decoder = codecs.getincrementaldecoder("utf-8")()
    view = memoryview(raw)
    pieces = []
    for at in range(0, len(raw), _DECODE_PIECE):
        check(cancelled)
        pieces.append(decoder.decode(view[at : at + _DECODE_PIECE]))
    pieces.append(decoder.decode(b"", final=True))
    return "".join(pieces)


# A folder listed to rule out missing files holds at most this many entries (else each is looked up on its own).
_LISTING_LIMIT = 10_000


class Resolver:
    """The reference's search order for a file reference, with a cache (eval files repeat references)."""

    def __init__(self, eval_dir: str, repo_root: str, cwd: str):
        roots = dirs_up(eval_dir, repo_root)
        for extra in (repo_root, cwd):
            if extra not in roots:
                roots.append(extra)
        self.roots = [os.path.normpath(root) for root in roots]
        self.repo_root = repo_root
        self._cache: dict[str, tuple[str | None, list[str]]] = {}
        self._outside: dict[str, bool] = {}
        # folder -> the lower-cased names in it; None when it could not be listed (or is too big to be worth it)
        self._listings: dict[str, frozenset[str] | None] = {}
        self._real_root: str | None = None
        self._real_folders: dict[str, str] = {}  # folder -> its real path (symbolic links followed)

    def _may_exist(self, path: str) -> bool:
        """False when `path` is certainly missing: its name is not in its folder, listed once per load. A suite can
        refer to thousands of files that are not there, each tried in several folders: one listing per folder
        instead of a lookup per place tried. Only ASCII names are ruled out, compared without case, so that a file
        system that ignores case (or normalises Unicode) is never contradicted."""
        folder, _sep, name = path.rpartition(os.sep)  # (a path made by resolve: absolute and normalised)
        if not name.isascii():
            return True
        names = self._listings.get(folder, _NOT_LISTED)
        if names is _NOT_LISTED:
            names = self._listings[folder] = _lower_names(folder)
        return names is None or name.lower() in names

    @staticmethod
    def display_path(raw: str) -> str:
        return raw.lstrip("/\\")

    def resolve(self, raw: str) -> tuple[str | None, list[str]]:
        hit = self._cache.get(raw)
        if hit is not None:
            return hit
        display = self.display_path(raw)
        tried: list[str] = []
        if os.path.isabs(raw):
            tried.append(os.path.normpath(raw))
        plain = _plain_relative(display)
        for root in self.roots:
            # (a reference that needs no normalising is appended as it is: normpath and join are slow for thousands)
            cand = f"{root.rstrip(os.sep)}{os.sep}{display}" if plain else os.path.normpath(os.path.join(root, display))
            if cand not in tried:
                tried.append(cand)
        found = next((p for p in tried if self._may_exist(p) and os.path.exists(p)), None)
        result = (found, tried)
        self._cache[raw] = result
        return result

    def outside_root(self, resolved: str) -> bool:
        """files.outside_root against the repo root, once per file per load. realpath is pure Python and costs a
        system call per folder of the path: the root's and each folder's are found once, and a file that is not a
        symbolic link is its real folder and its name."""
        hit = self._outside.get(resolved)
        if hit is None:
            if self._real_root is None:
                self._real_root = os.path.realpath(self.repo_root)
            folder, sep, name = resolved.rpartition(os.sep)
            if not sep or not name or os.path.islink(resolved):
                real = os.path.realpath(resolved)
            else:
                real_folder = self._real_folders.get(folder)
                if real_folder is None:
                    real_folder = self._real_folders[folder] = os.path.realpath(folder or os.sep)
                real = f"{real_folder.rstrip(os.sep)}{os.sep}{name}"
            hit = self._outside[resolved] = real_outside(real, self._real_root)
        return hit


_NOT_LISTED: Any = object()


def _plain_relative(path: str) -> bool:
    """A relative path that os.path.normpath would leave as it is, appended to a normalised folder: no empty, `.`
    or `..` part, no separator at either end (POSIX only)."""
    if os.sep != "/" or not path or path[0] == "/" or path[-1] == "/" or "//" in path:
        return False
    return "." not in path or not any(part in (".", "..") for part in path.split("/"))


def _lower_names(folder: str) -> frozenset[str] | None:
    """The names in `folder`, lower-cased; empty when it does not exist; None when it cannot be listed or holds
    more than _LISTING_LIMIT entries."""
    names = []
    try:
        with os.scandir(folder) as entries:
            for count, entry in enumerate(entries):
                if count >= _LISTING_LIMIT:
                    return None
                names.append(entry.name.lower())
    except FileNotFoundError:
        return frozenset()  # (its folder, or one above it, is missing: nothing in it can be found)
    except OSError:  # not a folder, not readable...: every path is looked up on its own
        return None
    return frozenset(names)
