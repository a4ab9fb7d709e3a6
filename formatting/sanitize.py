"""The one neutraliser for untrusted text shown in a terminal (the app, the Markdown export, messages on stderr).

Text from eval and results files is shown as written, but nothing in it may act on the terminal or hide what it
says: C0 controls (except tab and line feed) become Unicode control pictures (ESC shows as `␛`, so `\\e]0;…` can
neither retitle the window nor write the clipboard), DEL becomes `␡`, C1 controls and lone surrogates their escape
(`\\x9b`, `\\ud83d`), bidirectional overrides and isolates (which reorder what is shown: "Trojan Source") and
zero-width characters and Unicode tag characters (which hide text, even from a reviewer) their `\\u` escape. A
zero-width joiner inside an emoji sequence stays.

`display=True` (the app) also leaves out the emoji joiners and presentation modifiers (ZWJ between emoji, variation
selectors, skin tones): terminals disagree on the width of such sequences (🏕️👩‍👩‍👧 is 4 cells to Rich, 7 to tmux),
so a pane border drawn after one lands elsewhere; each emoji is then drawn on its own.
"""

from __future__ import annotations

import re
import unicodedata

from turnlens.formatting.patterns import LazyPattern

_BIDI = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
_ZERO_WIDTH = "\u200b\u200c\u2060-\u2064\ufeff\u180e\U000e0000-\U000e007f"
_EMOJI = "\u00a9\u00ae\u203c-\u3299\U0001f000-\U0001faff\ufe0f"
# A ZWJ between emoji (👨‍👩‍👧) joins them and stays; anywhere else it only hides things.
_UNSAFE = LazyPattern(
    rf"[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff{_BIDI}{_ZERO_WIDTH}]|\u200d(?<![{_EMOJI}]\u200d)|\u200d(?![{_EMOJI}])"
)
_SAFE_ASCII = b"\t\n" + bytes(range(0x20, 0x7F))  # printable ASCII, tab and line feed
_UNSAFE_ASCII = tuple(chr(c) for c in (*range(0x09), *range(0x0B, 0x20), 0x7F))  # what ASCII text may hold unsafe
_UNSAFE_IN_ASCII = LazyPattern(r"[\x00-\x08\x0b-\x1f\x7f]")  # (the same characters, for re.sub)
_LONG_ASCII = 2048  # characters from which a search per unsafe character (memchr) beats deleting every safe byte
_ASCII_PIECE = 1 << 17  # characters searched at a time: each piece stays in the CPU's cache for the 30 searches
MAX_FOUND = 10_000  # unsafe characters a long ASCII text's searches replace; past them, one regular-expression pass
_LINE_BREAKS = {ord("\n"): "\u2424", ord("\t"): "\u2409", 0x2028: "\\u2028", 0x2029: "\\u2029"}


# Left after the pass above, a ZWJ is one between emoji.
_UNMEASURABLE = LazyPattern("[\u200d\ufe0e\ufe0f\U0001f3fb-\U0001f3ff]")


def _picture(ch: str) -> str:
    code = ord(ch)
    if code < 0x20:
        return chr(0x2400 + code)  # ␛ for ESC, ␍ for CR, ␊ for a line feed in one-line text
    if code == 0x7F:
        return "\u2421"  # ␡
    if code < 0xA0:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def sanitize(text: str, *, display: bool = False) -> str:
    """`text` with every character that could act on a terminal or hide text made visible; \\n and \\t stay.
    `display`: emoji joiners and modifiers left out as well (see above)."""
    if text.isascii():  # (most text: a C0 control or DEL is all it can hold that is unsafe)
        return _sanitized_ascii(text)
    if _UNSAFE.search(text) is not None:
        text = _UNSAFE.sub(_picture_of, text)
    if display and _UNMEASURABLE.search(text) is not None:
        text = _UNMEASURABLE.sub("", text)
    return text


def _sanitized_ascii(text: str) -> str:
    """sanitize() of ASCII `text`. A short text: deleting every safe byte leaves nothing (one pass in C), else one
    regular-expression pass. A long one (a 20 MB attachment before the inspector's first frame): a search for each
    unsafe character, which the C library does many bytes at a time, a piece at a time so that the 30 searches read
    it from the cache; what they find is replaced in one join (one ESC in 20 MB cost a second of regular-expression
    pass over the whole text), or past MAX_FOUND, by the regular expression."""
    if len(text) <= _LONG_ASCII:
        if not text.encode("ascii").translate(None, _SAFE_ASCII):
            return text
        cleaned: str = _UNSAFE_IN_ASCII.sub(_picture_of, text)
        return cleaned
    found: list[int] = []
    find = text.find
    for at in range(0, len(text), _ASCII_PIECE):
        end = at + _ASCII_PIECE
        for unsafe in _UNSAFE_ASCII:
            hit = find(unsafe, at, end)
            while hit >= 0:
                found.append(hit)
                if len(found) > MAX_FOUND:
                    cleaned = _UNSAFE_IN_ASCII.sub(_picture_of, text)
                    return cleaned
                hit = find(unsafe, hit + 1, end)
    if not found:
        return text
    found.sort()
    parts: list[str] = []
    start = 0
    for hit in found:
        parts += (text[start:hit], _picture(text[hit]))
        start = hit + 1
    parts.append(text[start:])
    return "".join(parts)


def _picture_of(match: re.Match[str]) -> str:
    return _picture(match.group())


def sanitize_line(text: str) -> str:
    """sanitize() for text that must stay on one line (a heading, a name): line breaks and tabs shown too."""
    return sanitize(text).translate(_LINE_BREAKS)


LABEL_LIMIT = 200  # characters of an id or a name drawn on one line of a list or a title
_MARKS_KEPT = 2  # combining marks kept on one character (ten thousand on one broke the list's border)


def sanitize_label(text: str, limit: int = LABEL_LIMIT) -> str:
    """sanitize_line() for an id or a name drawn in a list row or a title: on one line (an id holding line feeds
    drew over the rows below it and could pass for other entries), at most `limit` characters, and at most two
    combining marks on a character (terminals stack them differently, and a long run pushes the border)."""
    text = sanitize_line(text[: limit * 4])
    if not text.isascii():
        kept: list[str] = []
        marks = 0
        for ch in text:
            if unicodedata.category(ch) in ("Mn", "Me"):
                marks += 1
                if marks > _MARKS_KEPT:
                    continue
            else:
                marks = 0
            kept.append(ch)
        text = "".join(kept)
    return text if len(text) <= limit else text[: limit - 1] + "…"
