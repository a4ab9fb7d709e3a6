"""Cutting a big eval file at case boundaries, for the exporter's workers (export/parallel.py) and the
inspector's first screen (tui/loading.py) alike.

A slice is the original text with the lines of other slices blanked out, so every line keeps its number and every
case its index; the header (everything before `evalcases:`) is kept in every slice, so it is checked as before.
Cutting is only done when it is plainly safe: one `evalcases:` block at the end of the file, a block sequence whose
items start at one indentation, and no anchors, aliases, directives or document markers anywhere (an alias could
point into another slice). Otherwise the caller loads the file whole, exactly as before.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from turnlens.formatting.jsstr import JS_WHITESPACE


class Slice(NamedTuple):
    """One slice of a file cut at case boundaries: its `evalcases` items' lines [start_line, end_line) (0-based),
    the index of its first case, and its text's offsets [start_offset, end_offset)."""

    start_line: int
    end_line: int
    first_case: int
    start_offset: int
    end_offset: int


MIN_PARALLEL_BYTES = 256 * 1024

_EVALCASES_LINE = re.compile(r"evalcases:[ \t]*(?:#[^\n]*)?\r?(?:\n|\Z)")
_FIRST_ITEM = re.compile(r"\n( *)-(?=[ \t]|\r?\n|\Z)")
_DOCUMENT_MARKER = re.compile(r"\n(?:---|\.\.\.|%)")  # one pass: 4x faster than three `in` tests here
_TOKEN_CONTEXT = frozenset(" \t\r\n[{,")
_NOT_AFTER_TOKEN = frozenset(" \t\r\n[]{},")


def _has_yaml_token(text: str) -> bool:
    """An anchor (&), alias (*) or tag (!) where YAML would read one; `**bold**` in text counts too (harmless:
    the file is then exported in one process)."""
    for ch in "&*!":
        pos = text.find(ch)
        while pos != -1:
            before = text[pos - 1] if pos else "\n"
            after = text[pos + 1 : pos + 2]
            if before in _TOKEN_CONTEXT and after and after not in _NOT_AFTER_TOKEN:
                return True
            pos = text.find(ch, pos + 1)
    return False


def split_points(text: str, parts: int) -> list[tuple[int, int, int]] | None:
    """Per slice: the line range [start, end) of its `evalcases` items and the index of its first case; None when
    cutting is not safe. Every scan here is a C-level search: this runs before any parallel work starts."""
    slices = split_slices(text, parts)
    return None if slices is None else [s[:3] for s in slices]


def split_slices(
    text: str, parts: int, key: str = "evalcases", *, min_bytes: int = MIN_PARALLEL_BYTES, last_share: float = 1.0
) -> list[Slice] | None:
    """split_points() with each slice's text offsets added: (start line, end line, first case, start offset, end
    offset); the end offset of the last slice is len(text) + 1, as if the text ended with a line break.
    `key`: the top-level list that is cut (`evalcases`, or `tests` for an AgentV 4 suite); `min_bytes`: a shorter
    text is not cut (the inspector cuts smaller files than the exporter: tui/loading.py); `last_share`: the last
    slice's number of cases, as a multiple of the others'."""
    if parts < 2 or len(text) < min_bytes:
        return None
    if text.startswith(("---", "...", "%")) or _has_yaml_token(text):
        return None  # a directive or document marker; an anchor, alias or tag
    head_line = _EVALCASES_LINE if key == "evalcases" else re.compile(rf"{key}:[ \t]*(?:#[^\n]*)?\r?(?:\n|\Z)")
    head = head_line.match(text, 0) if text.startswith(f"{key}:") else None
    pos = -1
    while head is None:  # the first line that is the key and nothing else
        pos = text.find(f"\n{key}:", pos + 1)
        if pos == -1:
            return None
        head = head_line.match(text, pos + 1)
    head_end = head.end()
    first = _FIRST_ITEM.search(text, head_end - 1)
    if first is None or _blank_or_comment_lines(text, head_end - 1, first.start()) < 0:
        return None
    indent = len(first.group(1))
    # Every content line after the first item must be an item start at `indent`, or indented deeper than it: so
    # the key is not written again, and (items indented) no document marker or directive is there. Before the first
    # item, one search for those; with items at column 0 (a marker `---` could pass for one), one in the whole text.
    if _DOCUMENT_MARKER.search(text, 0, len(text) if indent == 0 else first.start()):
        return None
    shallower = re.compile(rf"\n {{0,{indent - 1}}}[^ \t\r\n#]") if indent else re.compile(r"\n[^ \t\r\n#-]")
    if shallower.search(text, first.start()):
        return None
    item = re.compile(rf"\n {{{indent}}}-(?=[ \t]|\r?\n|\Z)")
    start_offsets = [m.start() + 1 for m in item.finditer(text, first.start())]
    if len(start_offsets) < parts * 8:
        return None
    step = len(start_offsets) / (parts - 1 + last_share)
    firsts = [int(k * step) for k in range(parts)]
    total_lines = text.count("\n") + 1
    bounds = _line_numbers(text, [start_offsets[f] for f in firsts]) + [total_lines]
    bounds[0] = text.count("\n", 0, head_end)
    offsets = [start_offsets[f] for f in firsts] + [len(text) + 1]
    offsets[0] = head_end
    return [Slice(bounds[k], bounds[k + 1], firsts[k], offsets[k], offsets[k + 1]) for k in range(parts)]


# A line with something on it once JavaScript's trim() is done with it (what the JSONL reader reads).
_BLANK = re.escape(JS_WHITESPACE.replace("\n", ""))
_CONTENT_LINE = re.compile(f"^[{_BLANK}]*[^{_BLANK}\\n]", re.M)


def jsonl_slices(text: str, parts: int, *, min_bytes: int = MIN_PARALLEL_BYTES) -> list[Slice] | None:
    """A JSONL dataset (a test a line) cut after a line into `parts` slices of about equal size, as split_slices
    gives them: there is no header, a slice's first case is the number of lines with content before it."""
    if parts < 2 or len(text) < min_bytes:
        return None
    starts = [0]
    for k in range(1, parts):
        end = text.find("\n", len(text) * k // parts)
        if end < 0 or end + 1 >= len(text):
            break
        if end + 1 > starts[-1]:
            starts.append(end + 1)
    if len(starts) < 2:
        return None
    slices: list[Slice] = []
    line = case = 0
    for k, start in enumerate(starts):
        end = starts[k + 1] if k + 1 < len(starts) else len(text) + 1
        lines = text.count("\n", start, end)
        slices.append(Slice(line, line + lines, case, start, end))
        case += len(_CONTENT_LINE.findall(text, start, min(end, len(text))))
        line += lines
    return slices


def cut_key(path: str, text: str, dialect: str) -> str | None:
    """The top-level list a big eval file may be cut at (`evalcases`, `tests`), or None when it must be loaded
    whole. Every slice must be read in the dialect of the whole file: a 0.15 file declares its $schema; an AgentV 4
    suite is cut only when no case anywhere uses input_messages (which would make it 0.15) and no `file://` entry
    (which expands to a number of tests known only when loaded) is in it."""
    from turnlens.formatting.evals.dialect import declares_v2_schema

    if dialect != "agentv-4" and declares_v2_schema(path):
        return "evalcases"
    if dialect != "agentv-0.15" and "input_messages" not in text and "file://" not in text:
        return "tests"
    return None


def joined(slices: list[Slice], first: int, last: int) -> Slice:
    """Slices first..last (consecutive) as one."""
    a, b = slices[first], slices[last]
    return Slice(a.start_line, b.end_line, a.first_case, a.start_offset, b.end_offset)


def piece(text: str, slices: list[Slice], cut: Slice) -> str:
    """The text of slice `cut` (one of `slices`, or several of them joined) as a loader reads it: the header, a blank
    line per line of the slices before, then its own lines."""
    header_lines, header_end = slices[0].start_line, slices[0].start_offset
    return slice_by_offsets(text, header_end, cut.start_line - header_lines, cut.start_offset, cut.end_offset)


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


def slice_by_offsets(text: str, header_end: int, blank_lines: int, start: int, end: int) -> str:
    """slice_text() from offsets: the header, a blank line per line of other slices before, then the slice's lines."""
    return text[:header_end] + "\n" * blank_lines + text[start : end - 1]
