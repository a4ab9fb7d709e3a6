"""The one way the engine reads a file it was pointed at: regular files only, never past a size limit.

Eval files, their configs and every file they reference are untrusted paths: a FIFO, `/dev/tty`, `/dev/zero` or
a 2 GB file must give a message naming the file, never a hang, a stolen keystroke or a MemoryError. So a file is
opened without blocking and without becoming our terminal (O_NONBLOCK, O_NOCTTY), checked with fstat on the
open descriptor (what is read is what was checked, whatever replaced the path meanwhile), and read to at most
`limit` bytes; a file that grows past it while being read is refused as well.

The limit is generous by default (64 MiB) and raised with `--max-file-size` or `TURNLENS_MAX_FILE_SIZE`.
"""

from __future__ import annotations

import errno
import os
import re
import stat

from turnlens.formatting.patterns import LazyPattern

MAX_FILE_SIZE_ENV = "TURNLENS_MAX_FILE_SIZE"
DEFAULT_MAX_FILE_SIZE = 64 << 20

_override: int | None = None

_SIZE = LazyPattern(r"\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(i?b?)\s*", re.I)
_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}


YAML_SUFFIXES = (".yaml", ".yml")  # what AgentV reads as YAML, eval files and results alike


def parse_size(text: str) -> int:
    """`64M`, `64MiB`, `1.5g`, `1000000` (bytes): binary units. Raises ValueError with a readable message."""
    match = _SIZE.fullmatch(text)
    if match is None:
        raise ValueError(f"not a size: {text!r} (expected bytes, or a number with K, M, G or T, e.g. 64M)")
    value = int(float(match.group(1)) * _UNITS[match.group(2).lower()])
    if value <= 0:
        raise ValueError(f"not a size: {text!r} (must be more than 0 bytes)")
    return value


def set_max_file_size(limit: int | None) -> None:
    """The limit chosen on the command line (None: back to the environment variable or the default)."""
    global _override
    _override = limit


def max_file_size() -> int:
    """The limit in force: the command line's, else TURNLENS_MAX_FILE_SIZE, else 64 MiB (an unreadable
    environment value falls back to the default: the command line reports it, see `env_size_problem`)."""
    if _override is not None:
        return _override
    env = os.environ.get(MAX_FILE_SIZE_ENV)
    if env:
        try:
            return parse_size(env)
        except ValueError:
            pass
    return DEFAULT_MAX_FILE_SIZE


def env_size_problem() -> str | None:
    """Why TURNLENS_MAX_FILE_SIZE cannot be used, or None."""
    env = os.environ.get(MAX_FILE_SIZE_ENV)
    if not env:
        return None
    try:
        parse_size(env)
    except ValueError as exc:
        return f"{MAX_FILE_SIZE_ENV}: {exc}"
    return None


def apply_size_option(value: str | None) -> str | None:
    """Put `--max-file-size VALUE` (or else the environment variable) in force; the problem with either, or None."""
    if value is not None:
        try:
            set_max_file_size(parse_size(value))
        except ValueError as exc:
            return f"--max-file-size: {exc}"
        return None
    return env_size_problem()


SIZE_OPTION_HELP = f"largest file read (eval files, configs, referenced files); default 64M, or ${MAX_FILE_SIZE_ENV}"


def format_size(size: int) -> str:
    if size < 1 << 10:
        return f"{size} bytes"
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= scale:
            return f"{size / scale:.1f} {unit}"
    return f"{size} bytes"  # pragma: no cover


class FileReadError(Exception):
    """A file that was not read, and why. `reason` does not name the file; `str()` does (`path: reason`).
    `os_error` is the OSError behind it when there was one (callers that word errors as Node does use it)."""

    def __init__(self, path: str, reason: str, os_error: OSError | None = None):
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason
        self.os_error = os_error


class NotRegularFile(FileReadError):
    """A FIFO, a device, a socket or a folder: never read (it could block forever or never end)."""


class FileTooLarge(FileReadError):
    """Bigger than the limit in force: `size` is what was known when it was refused."""

    def __init__(self, path: str, size: int, limit: int, grew: bool = False):
        what = "grew past" if grew else f"is {format_size(size)}, over"
        super().__init__(
            path,
            f"file too large: {what} the {format_size(limit)} limit "
            f"(raise it with --max-file-size or {MAX_FILE_SIZE_ENV})",
        )
        self.size, self.limit = size, limit


class WideEncoding(FileReadError):
    """UTF-16 or UTF-32 text where UTF-8 is read: `encoding` names it."""

    def __init__(self, path: str, encoding: str):
        super().__init__(path, f"the file is {encoding} encoded; AgentV reads it as UTF-8 (save it as UTF-8)")
        self.encoding = encoding


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a special file"


def _refuse_mode(path: str, mode: int) -> FileReadError:
    if stat.S_ISDIR(mode):
        return NotRegularFile(
            path, "is a folder, not a file", IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)
        )
    return NotRegularFile(path, f"is {_kind(mode)}, not a regular file: not read")


_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
_NO_FOLLOW = getattr(os, "O_NOFOLLOW", 0)


def open_regular(path: str) -> tuple[int, int]:
    """A descriptor open (read-only) on the regular file at `path`, and its size. Raises FileReadError; the
    caller closes the descriptor."""
    try:
        st = os.stat(path)  # before opening: opening some devices already does something
    except OSError as exc:
        raise FileReadError(path, exc.strerror or str(exc), exc) from None
    if not stat.S_ISREG(st.st_mode):
        raise _refuse_mode(path, st.st_mode)
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except OSError as exc:
        raise FileReadError(path, exc.strerror or str(exc), exc) from None
    try:
        st = os.fstat(fd)  # the path may have been replaced between stat and open: this is what we read
        if not stat.S_ISREG(st.st_mode):
            raise _refuse_mode(path, st.st_mode)
    except BaseException:
        os.close(fd)
        raise
    return fd, st.st_size


def read_bytes(path: str, limit: int | None = None) -> bytes:
    """The whole content of the regular file at `path`, at most `limit` bytes (default: `max_file_size()`).
    Raises FileReadError (NotRegularFile, FileTooLarge, or an OSError's reason)."""
    if limit is None:
        limit = max_file_size()
    fd, size = open_regular(path)
    try:
        if size > limit:
            raise FileTooLarge(path, size, limit)
        parts: list[bytes] = []
        got = 0
        # Read to the end rather than trust st_size: /proc files say 0, and a file may grow while read.
        while True:
            try:
                part = os.read(fd, min(max(size - got, 1 << 16), limit + 1 - got))
            except OSError as exc:
                raise FileReadError(path, exc.strerror or str(exc), exc) from None
            if not part:
                break
            parts.append(part)
            got += len(part)
            if got > limit:
                raise FileTooLarge(path, got, limit, grew=True)
        return b"".join(parts)
    finally:
        os.close(fd)


def read_head(path: str, size: int, *, listed_regular: bool = False) -> bytes:
    """At most the first `size` bytes of a regular file (for sniffing). `listed_regular`: a walk's directory entry
    says `path` is a regular file, not a link: it is opened without the stat made first otherwise (sniffing a folder
    of 3,000 eval files before the inspector's first frame), a link put there since is refused (O_NOFOLLOW), and what
    was opened is still checked to be a regular file. Raises FileReadError."""
    if not listed_regular:
        fd, _size = open_regular(path)
        return _read_head_and_close(fd, path, size, check_regular=False)
    try:
        fd = os.open(path, _OPEN_FLAGS | _NO_FOLLOW)
    except OSError as exc:
        raise FileReadError(path, exc.strerror or str(exc), exc) from None
    return _read_head_and_close(fd, path, size, check_regular=True)  # (it may be replaced since the folder was listed)


def _read_head_and_close(fd: int, path: str, size: int, *, check_regular: bool) -> bytes:
    """At most the first `size` bytes of the file open as `fd`, which is closed after; `check_regular`: refused
    unless it is a regular file. Raises FileReadError."""
    try:
        if check_regular and not stat.S_ISREG(mode := os.fstat(fd).st_mode):
            raise _refuse_mode(path, mode)
        try:
            return os.read(fd, size)
        except OSError as exc:
            raise FileReadError(path, exc.strerror or str(exc), exc) from None
    finally:
        os.close(fd)


def wide_encoding(raw: bytes) -> str | None:
    """'UTF-16 (little-endian)', 'UTF-32 (big-endian)', … when `raw` plainly is UTF-16/32 text (by its byte order
    mark, or by NUL bytes interleaved with ASCII at the start), else None."""
    if raw.startswith((b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")):
        return "UTF-32 (little-endian)" if raw[0] == 0xFF else "UTF-32 (big-endian)"
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "UTF-16 (little-endian)" if raw[0] == 0xFF else "UTF-16 (big-endian)"
    head = raw[:64]
    if len(head) >= 8 and head.count(0) * 2 >= len(head) - 1:
        if len(head) >= 8 and head[1:4] == b"\x00\x00\x00" and head[0]:
            return "UTF-32 (little-endian)"
        if head[0:3] == b"\x00\x00\x00" and head[3]:
            return "UTF-32 (big-endian)"
        if all(head[i] == 0 for i in range(1, len(head), 2)) and head[0]:
            return "UTF-16 (little-endian)"
        if all(head[i] == 0 for i in range(0, len(head), 2)) and head[1]:
            return "UTF-16 (big-endian)"
    return None


def read_text_file(path: str, limit: int | None = None, *, utf16_ok: bool = False) -> str:
    """The text of a regular file as AgentV reads it: UTF-8, invalid bytes as U+FFFD, line breaks as written.
    UTF-16/UTF-32 text is refused with a message naming the encoding (WideEncoding) unless `utf16_ok` (a
    referenced file is sent as AgentV reads it, garbled or not). Raises FileReadError."""
    raw = read_bytes(path, limit)
    if not utf16_ok:
        encoding = wide_encoding(raw)
        if encoding is not None:
            raise WideEncoding(path, encoding)
    return raw.decode("utf-8", errors="replace")


def real_outside(real: str, real_root: str) -> bool:
    """Whether `real` lies outside the folder `real_root`, both with their symbolic links followed (os.path.realpath;
    the loader's resolver finds them once per folder): AgentV reads such a file all the same (`../../etc/passwd`,
    `/proc/self/environ`), so turnlens embeds it too but says so."""
    return real != real_root and not real.startswith(real_root.rstrip(os.sep) + os.sep)


def outside_root_message(written: str, resolved: str) -> str:
    return f"File outside the repository root: {written} (reads {resolved})"


def display_path(path: str, base: str | None = None) -> str:
    """`path` as shown on screen and in messages: relative to `base` (the repo root, say; the working directory when
    None), with `/` between names, when it lies inside it (short, and the same on every machine); else absolute."""
    absolute = os.path.abspath(path)
    start = os.path.abspath(base) if base is not None else os.getcwd()
    if absolute != start and not absolute.startswith(start if start.endswith(os.sep) else start + os.sep):
        return absolute  # outside: no relpath (slow, and this runs for every file found)
    return relative_path(absolute, start).replace(os.sep, "/")


def relative_path(path: str, start: str) -> str:
    """os.path.relpath(path, start), taken as a slice when `path` is under `start` (both absolute and normalised, as
    os.path.abspath and an os.walk from such a folder make them): relpath normalises and splits both on every call,
    ~15 µs, and discovering a folder of 300 eval files called it 900 times before the first frame."""
    prefix = start if start.endswith(os.sep) else start + os.sep
    if path.startswith(prefix) and os.path.isabs(start):
        return path[len(prefix) :]
    return os.path.relpath(path, start)
