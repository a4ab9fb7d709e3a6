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
from collections.abc import Iterable, Iterator
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


def prompt_spans(text: str) -> list[Span]:
    """Spans for a prompt string: question, guidelines, chat message content, evaluator prompt, or message text."""
    spans: list[Span] = []
    lines = text.split("\n")
    pos = 0
    i = 0
    n = len(lines)
    while i < n:
        line = lines[i]
        line_start = pos
        pos += len(line) + 1

        m = _MARKER_LINE.fullmatch(line)
        if m:
            spans.append((line_start, line_start + len(line), "marker:" + m.group(1).strip().lower()))
            i += 1
            continue

        m = _FILE_OPEN.match(line)
        if m and line[m.end() :] == "":
            # An embedded file: lex its body by the file's extension, up to the matching </file> line.
            close = next((j for j in range(i + 1, n) if lines[j] == _FILE_CLOSE), None)
            if close is not None:
                spans.append((line_start, line_start + len(line), "file-tag"))
                body_start = pos
                body = "\n".join(lines[i + 1 : close])
                spans.extend(code_spans(body, filename=m.group(1), offset=body_start))
                close_start = body_start + len(body) + (1 if close > i + 1 else 0)
                spans.append((close_start, close_start + len(_FILE_CLOSE), "file-tag"))
                pos = close_start + len(_FILE_CLOSE) + 1
                i = close + 1
                continue

        m = _FENCE.fullmatch(line)
        if m:
            fence = m.group(2)
            close = next(
                (
                    j
                    for j in range(i + 1, n)
                    if lines[j].lstrip(" ").startswith(fence[0] * len(fence))
                    and lines[j].strip().strip(fence[0]) == ""
                    and len(lines[j]) - len(lines[j].lstrip(" ")) <= 3
                ),
                None,
            )
            if close is not None:
                spans.append((line_start, line_start + len(line), "fence"))
                body_start = pos
                body = "\n".join(lines[i + 1 : close])
                spans.extend(code_spans(body, language=m.group(3) or None, offset=body_start))
                close_start = body_start + len(body) + (1 if close > i + 1 else 0)
                spans.append((close_start, close_start + len(lines[close]), "fence"))
                pos = close_start + len(lines[close]) + 1
                i = close + 1
                continue

        m = _HEADING.fullmatch(line)
        if m:
            spans.append((line_start, line_start + len(line), "heading"))
            i += 1
            continue

        spans.extend(_inline_spans(line, line_start))
        i += 1
    return spans


def file_spans(text: str, path: str) -> list[Span]:
    """Spans for a referenced file's contents, by its extension (Markdown falls back to prompt scanning)."""
    if path.lower().endswith((".md", ".markdown", ".txt")) or lexer_for(filename=path) is None:
        return prompt_spans(text)
    return code_spans(text, filename=path)
