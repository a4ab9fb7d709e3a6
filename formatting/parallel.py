"""Exporting a big eval file on every core: the `evalcases` block is cut at case boundaries and each slice is
parsed, loaded and formatted in a forked worker.

A slice is the original text with the lines of other slices blanked out, so every line keeps its number and every
case its index; the header (everything before `evalcases:`) is kept in every slice, so it is checked as before.
Cutting is only done when it is plainly safe: one `evalcases:` block at the end of the file, a block sequence whose
items start at one indentation, and no anchors, aliases, directives or document markers anywhere (an alias could
point into another slice). Otherwise the caller exports in one process, exactly as before.
"""

from __future__ import annotations

import os
import pickle
import re
from typing import Callable, Optional

MIN_PARALLEL_BYTES = 256 * 1024

_EVALCASES = re.compile(r"^evalcases:[ \t]*(#.*)?\r?$")
_ITEM = re.compile(r"^( *)-(?:[ \t]|\r?$)")
_UNSAFE = re.compile(r"(?:^|[\s\[{,])[&*!][^\s\[\]{},]|^(?:---|\.\.\.|%)", re.M)


def split_points(text: str, parts: int) -> Optional[list[tuple[int, int, int]]]:
    """Per slice: the line range [start, end) of its `evalcases` items and the index of its first case; None when
    cutting is not safe."""
    if parts < 2 or len(text) < MIN_PARALLEL_BYTES or _UNSAFE.search(text):
        return None
    lines = text.split("\n")
    heads = [i for i, line in enumerate(lines) if _EVALCASES.match(line)]
    if len(heads) != 1:
        return None
    first = next((i for i in range(heads[0] + 1, len(lines)) if _content(lines[i])), None)
    if first is None:
        return None
    m = _ITEM.match(lines[first])
    if not m:
        return None
    indent = len(m.group(1))
    starts = []
    for i in range(first, len(lines)):
        line = lines[i]
        if not _content(line):
            continue
        lead = len(line) - len(line.lstrip(" "))
        if lead == indent and _ITEM.match(line):
            starts.append(i)
        elif lead < indent or (indent == 0 and not line.startswith(" ")):
            return None  # something follows the block: keep it simple, no cutting
    if len(starts) < parts * 8:
        return None
    step = len(starts) / parts
    firsts = [int(k * step) for k in range(parts)]
    bounds = [starts[f] for f in firsts] + [len(lines)]
    bounds[0] = heads[0] + 1
    return [(bounds[k], bounds[k + 1], firsts[k]) for k in range(parts)]


def _content(line: str) -> bool:
    stripped = line.strip()
    return bool(stripped) and not stripped.startswith("#")


def slice_text(text: str, header_end: int, start: int, end: int) -> str:
    """The text with only the header and lines [start, end) kept; other lines blank, so line numbers hold."""
    lines = text.split("\n")
    return "\n".join(lines[:header_end] + [""] * (start - header_end) + lines[start:end])


def run_sliced(text: str, ranges: list[tuple[int, int, int]], work: Callable[[str, int], object]) -> list[object]:
    """`work(slice_text, slice_number)` for every slice, the first in this process and the rest in forked children;
    results in slice order. A child that dies is re-run here, so a result is never lost."""
    header_end = ranges[0][0]
    children: list[tuple[int, int]] = []
    for number, (start, end, _) in enumerate(ranges[1:], 1):
        read_fd, write_fd = os.pipe()
        pid = os.fork()
        if pid == 0:  # child
            os.close(read_fd)
            status = 0
            try:
                payload = pickle.dumps(work(slice_text(text, header_end, start, end), number), protocol=5)
                with os.fdopen(write_fd, "wb") as fh:
                    fh.write(payload)
            except BaseException:  # the parent redoes this slice
                status = 1
            os._exit(status)
        os.close(write_fd)
        children.append((pid, read_fd))
    results: list[object] = [work(slice_text(text, header_end, *ranges[0][:2]), 0)]
    for number, (pid, read_fd) in enumerate(children, 1):
        with os.fdopen(read_fd, "rb") as fh:
            payload = fh.read()
        _, status = os.waitpid(pid, 0)
        if status == 0 and payload:
            results.append(pickle.loads(payload))
        else:
            results.append(work(slice_text(text, header_end, *ranges[number][:2]), number))
    return results
