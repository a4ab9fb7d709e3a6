"""Reading a results file that may change while it is read: by offset (pread), never through a memory mapping.

A mapping of a file that another process truncates kills the reader with SIGBUS on the next page it touches (no
Python code can catch that, and the app would leave the terminal in the alternate screen). pread instead returns
fewer bytes: `FileChanged`, which the reader reports. Reading window by window also keeps only the window in our
memory, as the mapping did with its pages released.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

from turnlens.formatting.evals.files import open_regular

WINDOW = 16 * 1024 * 1024
FIRST_WINDOW = 64 * 1024


class FileChanged(Exception):
    """The file got shorter than when it was opened: what is read now is not what was indexed."""


class Source:
    """A regular file of `size` bytes (as opened), read by offset."""

    def __init__(self, path: str) -> None:
        """Raises FileReadError (not a regular file, missing, …)."""
        self.path = path
        self.fd, self.size = open_regular(path)

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def size_now(self) -> int:
        """The file's size now (it may have changed since it was opened)."""
        return os.fstat(self.fd).st_size if self.fd >= 0 else 0

    def read(self, start: int, end: int) -> bytes:
        """Bytes [start, end) of the file as opened; FileChanged when they are no longer there."""
        end = min(end, self.size)
        if end <= start:
            return b""
        if self.fd < 0:
            raise FileChanged(f"{self.path} was closed")
        parts = []
        position = start
        while position < end:
            part = os.pread(self.fd, end - position, position)
            if not part:
                now = os.fstat(self.fd).st_size
                raise FileChanged(f"got shorter while it was read ({self.size:,} bytes, now {now:,})")
            parts.append(part)
            position += len(part)
        return parts[0] if len(parts) == 1 else b"".join(parts)

    def read_into(self, view: memoryview, position: int) -> int:
        """Fill `view` with the bytes from `position` on, up to the size as opened; how many were read.
        FileChanged when they are no longer there."""
        wanted = max(0, min(len(view), self.size - position))
        if wanted and self.fd < 0:
            raise FileChanged(f"{self.path} was closed")
        done = 0
        while done < wanted:
            got = os.preadv(self.fd, [view[done:wanted]], position + done)
            if not got:
                now = os.fstat(self.fd).st_size
                raise FileChanged(f"got shorter while it was read ({self.size:,} bytes, now {now:,})")
            done += got
        return wanted

    def windows(self, start: int = 0, window: int = WINDOW) -> Iterator[tuple[int, bytearray, int]]:
        """(offset, buffer, length): the file from `start` on, a window at a time, each cut after its last line
        feed so that no line is split (the last one runs to the end of the file). A line longer than the window
        makes the buffer grow. The buffer is reused (read into, never reallocated per window: a GB costs no
        allocation and no page faults per window): use what it holds before asking for the next window."""
        size = self.size
        # the first window is small: the first record is on screen before 16 MB are read
        buffer = bytearray(min(window, FIRST_WINDOW))
        base = start  # the file offset of buffer[0]
        kept = 0  # bytes at the front of the buffer carried over from the last window: a line not ended there
        while base + kept < size:
            if kept == len(buffer):  # one line fills the buffer: a bigger one
                buffer = _moved(buffer, 0, kept, 2 * kept)
            filled = kept + self.read_into(memoryview(buffer)[kept:], base + kept)
            if base + filled >= size:
                yield base, buffer, filled
                return
            cut = buffer.rfind(b"\n", 0, filled) + 1
            if not cut:  # no line ends in it yet
                kept = filled
                continue
            yield base, buffer, cut
            base += cut
            kept = filled - cut
            if len(buffer) != window and kept <= window:  # after the first window or a long line: full-size
                buffer = _moved(buffer, cut, filled, window)
            else:
                buffer[:kept] = buffer[cut:filled]  # (no resize: allowed while the buffer is still viewed)

    def lines(self, start: int = 0, window: int = WINDOW) -> Iterator[tuple[int, int, memoryview]]:
        """(start, end, bytes) of every line from `start` (end excludes the line feed); the last line may have
        none. Lines longer than a window are read whole (see `windows`). The bytes are a view into the current
        window (no copy): use them before asking for the next line."""
        for base, buffer, length in self.windows(start, window):
            view = memoryview(buffer)
            at = 0
            while at < length:
                newline = buffer.find(b"\n", at, length)
                end = length if newline == -1 else newline
                yield base + at, base + end, view[at:end]
                at = end + 1


def _moved(buffer: bytearray, start: int, end: int, size: int) -> bytearray:
    """A new buffer of `size` bytes that starts with buffer[start:end]."""
    moved = bytearray(size)
    moved[: end - start] = memoryview(buffer)[start:end]
    return moved
