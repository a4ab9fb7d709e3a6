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

_EVALCASES_LINE = re.compile(r"evalcases:[ \t]*(?:#[^\n]*)?\r?(?:\n|\Z)")
_FIRST_ITEM = re.compile(r"\n( *)-(?=[ \t]|\r?\n|\Z)")
_TOKEN_CONTEXT = frozenset(" \t\r\n[{,")
_NOT_AFTER_TOKEN = frozenset(" \t\r\n[]{},")


def _has_yaml_token(text: str) -> bool:
    """An anchor (&), alias (*) or tag (!) where YAML would read one; `**bold**` in text counts too (harmless:
    the file is then exported in one process)."""
    for ch in "&*!":
        pos = text.find(ch)
        while pos != -1:
            before = text[pos - 1] if pos else "\n"
            after = text[pos + 1:pos + 2]
            if before in _TOKEN_CONTEXT and after and after not in _NOT_AFTER_TOKEN:
                return True
            pos = text.find(ch, pos + 1)
    return False


def split_points(text: str, parts: int) -> Optional[list[tuple[int, int, int]]]:
    """Per slice: the line range [start, end) of its `evalcases` items and the index of its first case; None when
    cutting is not safe. Every scan here is a C-level search: this runs before any parallel work starts."""
    if parts < 2 or len(text) < MIN_PARALLEL_BYTES:
        return None
    if text.startswith(("---", "...", "%")) or "\n---" in text or "\n..." in text or "\n%" in text:
        return None  # directives or document markers
    if _has_yaml_token(text):
        return None
    heads = [pos + 1 for pos in _find_all(text, "\nevalcases:") if _EVALCASES_LINE.match(text, pos + 1)]
    if text.startswith("evalcases:") and _EVALCASES_LINE.match(text, 0):
        heads.insert(0, 0)
    if len(heads) != 1:
        return None
    head_end = _EVALCASES_LINE.match(text, heads[0]).end()
    first = _FIRST_ITEM.search(text, head_end - 1)
    if first is None or _blank_or_comment_lines(text, head_end - 1, first.start()) < 0:
        return None
    indent = len(first.group(1))
    # Every content line after the first item must be an item start at `indent`, or indented deeper than it.
    shallower = (re.compile(r"\n {0,%d}[^ \t\r\n#]" % (indent - 1)) if indent
                 else re.compile(r"\n[^ \t\r\n#-]"))
    if shallower.search(text, first.start()):
        return None
    item = re.compile(r"\n {%d}-(?=[ \t]|\r?\n|\Z)" % indent)
    start_offsets = [m.start() + 1 for m in item.finditer(text, first.start())]
    if len(start_offsets) < parts * 8:
        return None
    starts = _line_numbers(text, start_offsets)
    total_lines = text.count("\n") + 1
    step = len(starts) / parts
    firsts = [int(k * step) for k in range(parts)]
    bounds = [starts[f] for f in firsts] + [total_lines]
    bounds[0] = text.count("\n", 0, head_end)
    return [(bounds[k], bounds[k + 1], firsts[k]) for k in range(parts)]


def _find_all(text: str, needle: str) -> list[int]:
    out, pos = [], text.find(needle)
    while pos != -1:
        out.append(pos)
        pos = text.find(needle, pos + 1)
    return out


def _blank_or_comment_lines(text: str, start: int, end: int) -> int:
    """Line breaks between `start` and `end` when every line in between is blank or a comment, else -1."""
    between = text[start:end].split("\n")
    if any(line.strip() and not line.strip().startswith("#") for line in between[1:-1]):
        return -1
    return len(between) - 1


def _line_numbers(text: str, offsets: list[int]) -> list[int]:
    """0-based line number of each (ascending) offset."""
    out, line, pos = [], 0, 0
    for off in offsets:
        line += text.count("\n", pos, off)
        pos = off
        out.append(line)
    return out


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
