"""Small helpers for the sentences turnlens writes (explanations, notes, the UI's counts)."""

from __future__ import annotations

import difflib
import re

from turnlens.formatting.patterns import LazyPattern


def plural(count: int, noun: str, many: str | None = None) -> str:
    """`1 warning`, `2 warnings`; `many` when the plural is not the noun and an s (`1 entry`, `2 entries`)."""
    return f"{count} {noun if count == 1 else many or noun + 's'}"


def cut_middle(value: str, width: int) -> str:
    """`value` in `width` characters, its middle replaced by an ellipsis (its start kept shorter than its end)."""
    if len(value) <= width:
        return value
    if width <= 1:
        return "…"[:width]
    start = (width - 1) // 3
    return value[:start] + "…" + value[len(value) - (width - 1 - start) :]


def shorten_apart(first: str, second: str, room: int) -> tuple[str, str]:
    """Two names to tell apart (two runs), shortened to `room` characters between them: the parts they share are
    cut, longest first (in their middle; the last part at its end), the parts that differ kept whole while they
    fit. A name shorter than its half leaves the rest to the other."""
    if len(first) + len(second) <= room:
        return first, second
    room_first = max(room // 2, room - len(second))
    room_second = room - min(room_first, len(first))
    first_parts, second_parts = _parts_apart(first, second)
    return _shorten_parts(first_parts, room_first), _shorten_parts(second_parts, room_second)


# Words, numbers and single separators: "gpt-4.1/2026-06-24T09-00" differs from its neighbour run in whole tokens.
_TOKEN = LazyPattern(r"[0-9]+|[^\W\d_]+|.", re.DOTALL)


def _parts_apart(first: str, second: str) -> tuple[list[tuple[str, bool]], list[tuple[str, bool]]]:
    """Each name as runs of (text, shared with the other)."""
    tokens_first, tokens_second = _TOKEN.findall(first), _TOKEN.findall(second)
    matcher = difflib.SequenceMatcher(None, tokens_first, tokens_second, autojunk=False)
    parts_first: list[tuple[str, bool]] = []
    parts_second: list[tuple[str, bool]] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        shared = tag == "equal"
        if i2 > i1:
            parts_first.append(("".join(tokens_first[i1:i2]), shared))
        if j2 > j1:
            parts_second.append(("".join(tokens_second[j1:j2]), shared))
    return parts_first, parts_second


def _shorten_parts(parts: list[tuple[str, bool]], room: int) -> str:
    texts = [text for text, _ in parts]
    excess = sum(map(len, texts)) - room
    # the shared parts, longest first, each down to one ellipsis at most
    for index in sorted((i for i, (_, shared) in enumerate(parts) if shared), key=lambda i: -len(texts[i])):
        if excess <= 0:
            break
        text = texts[index]
        keep = max(1, len(text) - excess)
        texts[index] = _cut_end(text, keep) if index == len(parts) - 1 and index else cut_middle(text, keep)
        excess -= len(text) - len(texts[index])
    name = "".join(texts)
    return cut_middle(name, room) if len(name) > room else name


def _cut_end(value: str, width: int) -> str:
    if len(value) <= width:
        return value
    return (value[: width - 1] + "…") if width > 0 else ""
