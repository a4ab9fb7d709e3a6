"""A worker process of the parallel scan (scan_parallel.py): indexes the chunks of a JSONL results file it is asked for.

Run as `python -c … SYS_PATH FD SIZE START` by scan_parallel.py, with the file's descriptor open: it maps the
file's first SIZE bytes (the file as the index opened it), reads requests `A B` (a chunk's bytes) from its standard
input, and writes each chunk's `Part` to its standard output (a length, then the part pickled) in the order asked.
A chunk holds the lines that start in it; a line that starts before A (and the byte before A is not a line feed)
belongs to the chunk before. Each chunk's lines go through the scan's own loop (index.index_lines) into an index of
their own, so a part holds what the scan would have added for them.

Pure Python: never imports textual or rich.
"""

from __future__ import annotations

import gc
import mmap
import pickle
import sys

from turnlens.formatting.results.index import IndexedLines, index_lines
from turnlens.formatting.results.scan_parallel import PART_MARK, Part

# bytes either side of what a chunk read that the kernel may have mapped too (Linux maps 64 KiB around a read page)
MAPPED_AROUND = 256 * 1024


def line_start(data: mmap.mmap, offset: int, first: int, size: int) -> int:
    """The start of the first line that starts at or after `offset` (`first` is a line's start)."""
    if offset <= first:
        return first
    if offset >= size:
        return size
    if data[offset - 1] == 0x0A:
        return offset
    found = data.find(b"\n", offset, size)
    return size if found == -1 else found + 1


def index_chunk(data: mmap.mmap, start: int, end: int, size: int) -> Part:
    """The part for the lines that start in [start, end) (both lines' starts) of the file mapped as `data`."""
    chunk = IndexedLines("")
    lines = 0
    for _at, lines_read in index_lines(chunk, data, 0, start, end, size, 0, size):
        lines = lines_read
    problems = [(d.line or 0, d.message, d.severity) for d in chunk.diagnostics]
    return Part(start, end, lines, chunk.part(), problems, chunk.problem_count)


def main(argv: list[str]) -> None:
    gc.disable()  # what a chunk makes holds no reference cycle: freed as it is dropped, no collection needed
    fd, size, first = (int(value) for value in argv[:3])
    data = mmap.mmap(fd, size, prot=mmap.PROT_READ)
    out = sys.stdout.buffer
    try:
        for request in sys.stdin.buffer:
            a, b = (int(value) for value in request.split())
            start, end = line_start(data, a, first, size), line_start(data, b, first, size)
            part = index_chunk(data, start, end, size)
            payload = pickle.dumps(part, protocol=pickle.HIGHEST_PROTOCOL)
            out.write(PART_MARK + len(payload).to_bytes(8, "little") + payload)
            out.flush()
            # the pages read are the page cache's, not this process's: handed back, so that its memory stays a
            # chunk's; with those the kernel mapped around them (it maps a page's neighbours too when one is read)
            low = max(0, a - MAPPED_AROUND)
            low -= low % mmap.PAGESIZE
            high = min(size, max(b, end) + MAPPED_AROUND)
            if hasattr(data, "madvise") and high > low:
                data.madvise(mmap.MADV_DONTNEED, low, high - low)
    except (BrokenPipeError, KeyboardInterrupt):  # the scan is gone
        pass
