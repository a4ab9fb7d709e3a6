"""Waking a thread as soon as a file is written: what lets a followed run show a row appended at once, rather than
at the next of a poll's looks.

On Linux, an inotify watch on the file (through ctypes: the standard library has no binding) makes `wait` return as
the write happens; nothing runs in between, so an idle view costs nothing. Elsewhere, or when no watch can be had
(inotify's per-user limits, a file system without it), `wait` only sleeps its timeout and the caller polls as before.
watchfiles, which the inspector uses for folders, batches what it sees for at least two of its steps and looks at
its queue every step: a row would wait those steps, or an idle view would wake hundreds of times a second.

The watch is on the file's inode: a file replaced under its name (renamed over, deleted and made again) is seen by
the caller's own looks (its `wait` timeout), which then `watch` the new file.

Pure Python: never imports textual or rich.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import select
import sys
import time

# inotify(7): written to (a truncation too), its metadata changed (its name removed, another file renamed over it),
# moved, deleted
_IN_MODIFY = 0x2
_IN_ATTRIB = 0x4
_IN_MOVE_SELF = 0x800
_IN_DELETE_SELF = 0x400
_MASK = _IN_MODIFY | _IN_ATTRIB | _IN_MOVE_SELF | _IN_DELETE_SELF
_IN_NONBLOCK = os.O_NONBLOCK
_IN_CLOEXEC = os.O_CLOEXEC


def _libc() -> ctypes.CDLL | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        libc.inotify_init1.argtypes = [ctypes.c_int]
        libc.inotify_add_watch.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
        libc.inotify_rm_watch.argtypes = [ctypes.c_int, ctypes.c_int]
    except (OSError, AttributeError):  # no C library to load, or one without inotify
        return None
    return libc


class FileWake:
    """`wait(timeout)` returns True as soon as the file `watch`ed is written to (or changed otherwise), else False
    once `timeout` seconds passed. Used from one thread; `close` when done."""

    def __init__(self) -> None:
        self._libc = _libc()
        self._fd = -1
        self._watch = -1
        self.path: str | None = None  # the file watched, None when none is (the caller then polls)
        if self._libc is not None:
            self._fd = self._libc.inotify_init1(_IN_NONBLOCK | _IN_CLOEXEC)

    @property
    def watching(self) -> bool:
        return self.path is not None

    def watch(self, path: str) -> bool:
        """Watch `path` (the one file watched: another one watched before is let go). False when it cannot be."""
        libc = self._libc
        if libc is None or self._fd < 0:
            return False
        if self._watch >= 0:
            libc.inotify_rm_watch(self._fd, self._watch)
            self._watch, self.path = -1, None
        watch = libc.inotify_add_watch(self._fd, os.fsencode(path), _MASK)
        if watch < 0:  # gone, unreadable, or inotify's limits reached: the caller polls
            return False
        self._watch, self.path = watch, path
        return True

    def wait(self, timeout: float) -> bool:
        """Sleep until the file watched is written to (True, its events read) or `timeout` seconds (False)."""
        if self._fd < 0 or self._watch < 0:
            time.sleep(timeout)
            return False
        poller = select.poll()
        poller.register(self._fd, select.POLLIN)
        if not poller.poll(timeout * 1000):
            return False
        try:
            while os.read(self._fd, 64 * 1024):  # every event queued: one look sees what they all say
                pass
        except BlockingIOError:
            pass
        except OSError:
            return True
        return True

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd, self._watch, self.path = -1, -1, None
