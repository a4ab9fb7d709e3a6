"""wrap_line's row-at-a-time path for printable ASCII gives the rows of the word-by-word rules (wrap_line_by_words)
on every kind of line: words longer than a row (folded), rows of symbols only, leading spaces, hanging indents,
trailing spaces, and wrapping stopped at a row limit and resumed."""

from __future__ import annotations

import random

import pytest

from turnlens.tui.widgets.textlayout import wrap_line, wrap_line_by_words

PIECES = ["a", "of", "word", "longer", "0123456789", "•", "⎘", "->", "--", "::", "é", "日本", "x" * 30, "/usr/lib/x/y"]
PATH = "/home/user/project/src/some/deeply/nested/module/file_name.py"


def random_line(rng: random.Random, ascii_only: bool) -> str:
    pieces = [p for p in PIECES if p.isascii()] if ascii_only else PIECES
    words = [rng.choice(pieces + [PATH]) for _ in range(rng.randint(0, 40))]
    line = " " * rng.choice([0, 0, 0, 1, 2, 4, 9, 30]) + "".join(w + " " * rng.choice([1, 1, 1, 2, 3]) for w in words)
    return line if rng.random() < 0.5 else line.rstrip(" ")


def by_words(line: str, width: int, hang: int) -> list[tuple[int, int, int]]:
    rows: list[tuple[int, int, int]] = []
    wrap_line_by_words(line, 0, len(line), width, rows, hang)
    return rows


def in_steps(line: str, width: int, hang: int, step: int) -> list[tuple[int, int, int]]:
    """wrap_line as a pane calls it: `step` rows at a time, resumed where it stopped."""
    rows: list[tuple[int, int, int]] = []
    resume = None
    while True:
        resume = wrap_line(line, 0, len(line), width, rows, hang, limit=len(rows) + step, resume=resume)
        if resume < 0:
            return rows


@pytest.mark.parametrize("seed", range(40))
def test_ascii_lines_wrap_as_the_word_by_word_rules_say(seed):
    rng = random.Random(seed)
    for _ in range(50):
        line = random_line(rng, ascii_only=rng.random() < 0.8)
        width, hang = rng.randint(1, 90), rng.choice([0, 0, 2, 4, 12, 20])
        rows: list[tuple[int, int, int]] = []
        wrap_line(line, 0, len(line), width, rows, hang)
        assert rows == by_words(line, width, hang), (line, width, hang)
        assert in_steps(line, width, hang, rng.randint(1, 5)) == rows, (line, width, hang)


@pytest.mark.parametrize(
    ("line", "width"),
    [
        ("A line of the attached log, long enough to count: 0123456789 abcdefghij.", 38),
        ("• " + PATH, 30),  # a symbol never stays alone above a long path
        ("see " + PATH + " and more", 20),  # a word longer than a row, folded after a separator
        ("    indented text that wraps under its own indentation", 20),
        ("trailing spaces hang past the edge" + " " * 40, 34),
        ("x" * 100, 7),
        ("a " * 50, 1),
    ],
)
def test_lines_of_each_kind(line, width):
    rows: list[tuple[int, int, int]] = []
    wrap_line(line, 0, len(line), width, rows)
    assert rows == by_words(line, width, 0)
    assert "".join(line[a:b] for a, b, _ in rows) == line
