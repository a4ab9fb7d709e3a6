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

    def lines(self, start: int = 0, window: int = WINDOW) -> Iterator[tuple[int, int, memoryview]]:
        """(start, end, bytes) of every line from `start` (end excludes the line feed); the last line may have
        none. Lines longer than a window are joined across windows. The bytes are a view into the current
        window (no copy): use them before asking for the next line."""
        size = self.size
        buffer = b""
        view = memoryview(buffer)
        buffer_start = position = start
        # the first window is small: the first record is on screen before 16 MB are read
        step = min(window, FIRST_WINDOW)
        while position < size:
            relative = position - buffer_start
            newline = buffer.find(b"\n", relative)
            if newline == -1:
                loaded_to = buffer_start + len(buffer)
                if loaded_to >= size:
                    yield position, size, view[relative:]
                    return
                buffer = buffer[relative:] + self.read(loaded_to, loaded_to + step)
                step = window
                view = memoryview(buffer)
                buffer_start = position
                continue
            end = buffer_start + newline
            yield position, end, view[relative:newline]
            position = end + 1
