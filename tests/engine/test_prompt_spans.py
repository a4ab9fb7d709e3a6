"""prompt_spans skips the lines that cannot hold a span (str.find, in C) and finds a block's closing line by searching
for it: its spans must be those of the line-by-line scan it replaced (kept here as the reference), on random prompts
made of every construct's pieces and on the texts of this repository; and a 20 MB text is scanned without a copy per
line."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from turnlens.formatting.prompts.highlight import Span, code_spans, prompt_spans

REPO = Path(__file__).resolve().parents[2]

# The constructs, as formatting/prompts/highlight.py's docstring lists them
_MARKER_LINE = re.compile(r"@\[([^\]\n]{1,40})\]:[ \t]*")
_FILE_OPEN = re.compile(r'<file path="([^"\n]*)">')
_FILE_CLOSE = "</file>"
_FILE_AGENT = re.compile(r'<file: path="[^"\n]*">')
_ATTACHED = re.compile(r"<Attached: [^>\n]*>")
_SECTION = re.compile(r"\[\[ ## [^\n]*? ## \]\]")
_FENCE = re.compile(r"( {0,3})(`{3,}|~{3,})[ \t]*([^`\s]*)[^\n]*")
_HEADING = re.compile(r"=== (.+) ===")


def inline_spans(line: str, offset: int) -> list[Span]:
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


def reference_spans(text: str) -> list[Span]:
    """prompt_spans as it was written before it skipped lines: text.split("\n"), every line looked at."""
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

        spans.extend(inline_spans(line, line_start))
        i += 1
    return spans


PIECES = [
    "@[User]:", "@[Assistant]: ", "@[x]:\t", '<file path="a.py">', '<file path="b.md">', "</file>", "</file> ",
    "```", "```python", "````", " ```", "    ```", "~~~", "~~~ js", "=== a.py ===", "=== x", "<Attached: y>",
    "[[ ## q ## ]]", '<file: path="z">', " ", "  ", "\t", "\r", "\u00a0", "\u2003", "word", "x = 1", "`", "~", "=",
    "[", "<", "@", "def f(): pass", "import os", "\n", "\n", "\n", "\n",
]  # fmt: skip


@pytest.mark.parametrize("seed", range(4))
def test_spans_of_random_prompts_are_the_line_by_line_scans(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(2500):
        text = "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 40)))
        assert prompt_spans(text) == reference_spans(text), repr(text)


def test_spans_of_this_repositorys_texts_are_the_line_by_line_scans() -> None:
    paths = [*(REPO / "sample_evals").rglob("*"), *(REPO / "docs").rglob("*.md"), *(REPO / "tui").rglob("*.py")]
    compared = 0
    for path in paths:
        if path.is_file():
            text = path.read_text(encoding="utf-8", errors="replace")
            assert prompt_spans(text) == reference_spans(text), path
            compared += 1
    assert compared > 20


def test_a_20_mb_embedded_file_and_a_20_mb_text() -> None:
    body = "A line of an attached log: 0123456789 abcdefghij.\n" * 400_000
    question = f'<file path="big.log">\n{body}\n</file>\n[[ ## done ## ]]'
    spans = prompt_spans(question)
    close = question.index("\n</file>\n") + 1
    assert spans == [
        (0, 21, "file-tag"),
        (close, close + 7, "file-tag"),
        (len(question) - 16, len(question), "section"),
    ]
    assert prompt_spans(body + "@[User]:") == [(len(body), len(body) + 8, "marker:user")]
