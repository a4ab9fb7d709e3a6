"""Where the interesting parts of a prompt are: plain (start, end, kind) spans, no styling.

The TUI turns these spans into styled text; keeping the scanning here keeps it testable without a terminal and
keeps `formatting` free of rich/textual. Pygments supplies the code tokens.

Kinds:
    "marker:<role>"  a whole `@[Role]:` line (role lower-cased)
    "file-tag"       `<file path="…">`, `</file>`, `<file: path="…">`
    "attached"       `<Attached: …>`
    "section"        `[[ ## … ## ]]`
    "fence"          an opening or closing ``` / ~~~ line
    "heading"        a `=== path ===` line (design profile's embedded files)
    "token:<Token.Type>"  a Pygments token inside fenced code or an embedded file, e.g. "token:Token.Keyword"

Spans are sorted by start and never overlap. Offsets index the text as given.
"""

from __future__ import annotations

import fnmatch
import re
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # (Pygments is imported on first use: it takes a while)
    from pygments.lexer import Lexer

Span = tuple[int, int, str]

# Lexing is the slow part; bodies beyond this size are shown without code colours.
MAX_LEX_CHARS = 200_000

_MARKER_LINE = re.compile(r"@\[([^\]\n]{1,40})\]:[ \t]*")
_FILE_OPEN = re.compile(r'<file path="([^"\n]*)">')
_FILE_CLOSE = "</file>"
_FILE_AGENT = re.compile(r'<file: path="[^"\n]*">')
_ATTACHED = re.compile(r"<Attached: [^>\n]*>")
_SECTION = re.compile(r"\[\[ ## [^\n]*? ## \]\]")
_FENCE = re.compile(r"( {0,3})(`{3,}|~{3,})[ \t]*([^`\s]*)[^\n]*")
_HEADING = re.compile(r"=== (.+) ===")

# Common extensions resolved without scanning Pygments' whole lexer table.
_EXTENSION_ALIASES = {
    ".py": "python",
    ".js": "javascript",
    ".mjs": "javascript",
    ".ts": "typescript",
    ".tsx": "tsx",
    ".json": "json",
    ".yaml": "yaml",
    ".yml": "yaml",
    ".md": "markdown",
    ".sh": "bash",
    ".toml": "toml",
    ".html": "html",
    ".css": "css",
    ".sql": "sql",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".c": "c",
    ".h": "c",
    ".cpp": "cpp",
    ".rb": "ruby",
    ".xml": "xml",
    ".csv": "text",
    ".txt": "text",
}


@lru_cache(maxsize=256)
def _lexer_by_alias(alias: str) -> Lexer | None:
    """A Pygments lexer for a language name, or None. Plugins are not searched (slow entry-point scan)."""
    from pygments.lexers import _mapping, find_lexer_class_by_name
    from pygments.util import ClassNotFound

    alias = alias.strip().lower()
    if not alias or alias == "text":
        return None
    try:
        if not any(alias in entry[2] for entry in _mapping.LEXERS.values()):
            return None
        cls = find_lexer_class_by_name(alias)
    except ClassNotFound:
        return None
    return cls(stripnl=False, ensurenl=False)


@lru_cache(maxsize=256)
def _lexer_by_filename(name: str) -> Lexer | None:
    from pygments.lexers import _mapping, find_lexer_class

    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    dot = base.rfind(".")
    ext = base[dot:].lower() if dot > 0 else ""
    if ext in _EXTENSION_ALIASES:
        return _lexer_by_alias(_EXTENSION_ALIASES[ext])
    for _module, lexer_name, _aliases, patterns, _mimes in _mapping.LEXERS.values():
        if any(fnmatch.fnmatch(base, p) for p in patterns):
            cls = find_lexer_class(lexer_name)
            return cls(stripnl=False, ensurenl=False) if cls else None
    return None


_cold = threading.local()
_made: set[tuple[str | None, str | None]] = set()  # (language, filename) whose lexer was looked for already


@contextmanager
def cold_lexers_skipped() -> Iterator[set[tuple[str | None, str | None]]]:
    """Within (in this thread): code whose lexer this process has not looked for yet is left without code colours,
    its (language, filename) added to the set yielded, for `make_lexers` to make later. A first frame so does not
    wait for Pygments (its import and a lexer's first regular expressions: tens of ms)."""
    skipped: set[tuple[str | None, str | None]] = set()
    before = getattr(_cold, "skipped", None)
    _cold.skipped = skipped
    try:
        yield skipped
    finally:
        _cold.skipped = before


def make_lexers(wanted: Iterable[tuple[str | None, str | None]]) -> None:
    """Make the lexers `cold_lexers_skipped` left out (safe in a worker thread)."""
    for language, filename in wanted:
        lexer_for(language=language, filename=filename)


def lexer_for(*, language: str | None = None, filename: str | None = None) -> Lexer | None:
    """The Pygments lexer for a fenced block's language or a file's name, None when unknown or plain text."""
    key = (language, filename)
    skipped = getattr(_cold, "skipped", None)
    if skipped is not None and key not in _made:
        skipped.add(key)
        return None
    lexer = _lexer_for(language, filename)
    _made.add(key)
    return lexer


def _lexer_for(language: str | None, filename: str | None) -> Lexer | None:
    if language:
        lexer = _lexer_by_alias(language)
        if lexer is not None:
            return lexer
    if filename:
        return _lexer_by_filename(filename)
    return None


def code_spans(text: str, *, language: str | None = None, filename: str | None = None, offset: int = 0) -> list[Span]:
    """Pygments token spans for `text` as code, shifted by `offset`; plain text tokens are left out."""
    if not text or len(text) > MAX_LEX_CHARS:
        return []
    lexer = lexer_for(language=language, filename=filename)
    if lexer is None:
        return []
    spans = _lex(text, lexer)
    if offset:
        return [(start + offset, end + offset, kind) for start, end, kind in spans]
    return list(spans)


@lru_cache(maxsize=64)
def _lex(text: str, lexer: Lexer) -> tuple[Span, ...]:
    # Cached: the same file is often embedded in several places (question, chatPrompt, both profiles).
    spans: list[Span] = []
    for index, token_type, value in lexer.get_tokens_unprocessed(text):
        if not value:
            continue
        kind = str(token_type)
        if kind in ("Token.Text", "Token.Text.Whitespace", "Token.Whitespace"):
            continue
        end = index + len(value)
        if spans and spans[-1][2] == "token:" + kind and spans[-1][1] == index:
            spans[-1] = (spans[-1][0], end, spans[-1][2])  # merge runs of the same token
        else:
            spans.append((index, end, "token:" + kind))
    return tuple(spans)


def _inline_spans(line: str, offset: int) -> list[Span]:
    found: list[Span] = []
    for pattern, kind in ((_ATTACHED, "attached"), (_SECTION, "section"), (_FILE_AGENT, "file-tag")):
        for m in pattern.finditer(line):
            found.append((offset + m.start(), offset + m.end(), kind))
    found.sort()
    spans: list[Span] = []
    last_end = -1
    for span in found:
        if span[0] >= last_end:
            spans.append(span)
            last_end = span[1]
    return spans


# Every span's text holds one of these (a marker's `@[`, a file tag's `<`, a fence's ` or ~, a heading's `=`, a
# section's `[`): lines without any are passed over by str.find, in C, not looked at one by one in Python.
_SPAN_CHARS = "@<`~=["
_FIRST_WINDOW = 256  # characters searched for them at first from a line; four times more each time none is found


def _next_span_char(text: str, pos: int) -> int:
    """The offset of the first character of _SPAN_CHARS at or after `pos`, -1 when there is none. Searched in
    growing windows: a character that is rare is not looked for through the whole text at every line."""
    n = len(text)
    window = _FIRST_WINDOW
    while pos < n:
        stop = min(n, pos + window)
        hits = [at for at in [text.find(char, pos, stop) for char in _SPAN_CHARS] if at >= 0]
        if hits:
            return min(hits)
        pos = stop
        window *= 4
    return -1


_RARE_TRIES = 32  # occurrences of a needle's first character looked at one by one before a plain search


def _find(text: str, needle: str, start: int) -> int:
    """text.find(needle, start), faster when the needle's first character is rare in the text: str.find looks for
    one character with memchr, for several at every character (~12 ms through a 20 MB attachment for its closing
    `</file>`, 2 ms for its `<`). A plain search once that character proves common."""
    first = needle[0]
    for _ in range(_RARE_TRIES):
        start = text.find(first, start)
        if start < 0 or text.startswith(needle, start):
            return start
        start += 1
    return text.find(needle, start)


def _closing_line(text: str, start: int, needle: str, closes: Callable[[str], bool]) -> tuple[int, int] | None:
    """(start, end) of the first line at or after offset `start` (a line's start) for which `closes(line)` holds,
    among the lines holding `needle` (every line that can close holds it); None when there is none."""
    at = start
    while (at := _find(text, needle, at)) >= 0:
        line_start = text.rfind("\n", start, at) + 1 or start
        line_end = text.find("\n", at)
        if line_end < 0:
            line_end = len(text)
        if closes(text[line_start:line_end]):
            return line_start, line_end
        at = line_end + 1
    return None


def _block_body_spans(
    text: str, body_start: int, close_start: int, *, language: str | None = None, filename: str | None = None
) -> list[Span]:
    """code_spans of the lines between an opening line and its closing line (which starts at `close_start`), the
    body not copied when it is too long to lex."""
    body_end = max(body_start, close_start - 1)
    if body_end - body_start > MAX_LEX_CHARS:
        return []
    return code_spans(text[body_start:body_end], language=language, filename=filename, offset=body_start)


def prompt_spans(text: str) -> list[Span]:
    """Spans for a prompt string: question, guidelines, chat message content, evaluator prompt, or message text.
    Line by line (a line is what text.split("\n") gives), lines without a character of _SPAN_CHARS skipped."""
    spans: list[Span] = []
    n = len(text)
    pos = 0  # the start of a line
    while pos <= n:
        found = _next_span_char(text, pos)
        if found < 0:
            break
        line_start = text.rfind("\n", pos, found) + 1 or pos
        newline = text.find("\n", found)
        line_end = n if newline < 0 else newline
        line = text[line_start:line_end]
        pos = line_end + 1

        m = _MARKER_LINE.fullmatch(line)
        if m:
            spans.append((line_start, line_end, "marker:" + m.group(1).strip().lower()))
            continue

        m = _FILE_OPEN.match(line)
        if m and line[m.end() :] == "" and pos <= n:
            # An embedded file: lex its body by the file's extension, up to the matching </file> line.
            close = _closing_line(text, pos, _FILE_CLOSE, _FILE_CLOSE.__eq__)
            if close is not None:
                spans.append((line_start, line_end, "file-tag"))
                spans.extend(_block_body_spans(text, pos, close[0], filename=m.group(1)))
                spans.append((close[0], close[1], "file-tag"))
                pos = close[1] + 1
                continue

        m = _FENCE.fullmatch(line)
        if m and pos <= n:
            fence = m.group(2)
            mark = fence[0] * len(fence)

            def closes(candidate: str, char: str = fence[0], mark: str = mark) -> bool:
                return (
                    candidate.lstrip(" ").startswith(mark)
                    and candidate.strip().strip(char) == ""
                    and len(candidate) - len(candidate.lstrip(" ")) <= 3
                )

            close = _closing_line(text, pos, mark, closes)
            if close is not None:
                spans.append((line_start, line_end, "fence"))
                spans.extend(_block_body_spans(text, pos, close[0], language=m.group(3) or None))
                spans.append((close[0], close[1], "fence"))
                pos = close[1] + 1
                continue

        m = _HEADING.fullmatch(line)
        if m:
            spans.append((line_start, line_end, "heading"))
            continue

        spans.extend(_inline_spans(line, line_start))
    return spans


def file_spans(text: str, path: str) -> list[Span]:
    """Spans for a referenced file's contents, by its extension (Markdown falls back to prompt scanning)."""
    if path.lower().endswith((".md", ".markdown", ".txt")) or lexer_for(filename=path) is None:
        return prompt_spans(text)
    return code_spans(text, filename=path)
