"""The fast block-YAML reader (formatting/evals/yaml_block.py) reads exactly what libyaml and yaml12's builder read,
or declines (returns None) so that they do: on every YAML file of the repository's corpora and samples, on random
documents, and on the constructs it must leave to libyaml."""

from __future__ import annotations

import math
import random
from pathlib import Path

import pytest

from turnlens.formatting.evals import yaml12
from turnlens.formatting.evals.yaml_block import parse_block

ROOT = Path(__file__).resolve().parents[2]


def _fast(text: str):
    return parse_block(text, yaml12._core_plain, yaml12._SPECIAL_START)


def _libyaml(text: str):
    """What yaml12 reads without the fast reader: libyaml's node tree through the builder."""
    loader = yaml12._new_loader(text)
    try:
        root = yaml12._compose_with_big_stack(loader, text.count("[") + text.count("{"))
    finally:
        loader.dispose()
    builder = yaml12._FastBuilder()
    builder.text = text
    return builder.build(root), builder.node_lines, builder.child_lines


def _canonical(data, node_lines, child_lines):
    """The data with every collection's line and its children's lines, comparable across two reads."""
    if isinstance(data, dict):
        items = [(k, _canonical(v, node_lines, child_lines)) for k, v in data.items()]
        return ("map", node_lines.get(id(data)), child_lines.get(id(data)), items)
    if isinstance(data, list):
        items = [_canonical(v, node_lines, child_lines) for v in data]
        return ("seq", node_lines.get(id(data)), child_lines.get(id(data)), items)
    if isinstance(data, float) and math.isnan(data):
        return ("nan",)
    return (type(data).__name__, data)


def _agrees(text: str) -> bool:
    """True when the fast reader read `text` (the same as libyaml), False when it declined."""
    fast = _fast(text)
    if fast is None:
        return False
    assert _canonical(*fast) == _canonical(*_libyaml(text))
    return True


def _corpus_files() -> list[Path]:
    files = []
    for folder in ("tests", "sample_evals"):
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix in (".yaml", ".yml") and path.is_file():
                files.append(path)
    return files


def test_every_corpus_file_reads_the_same_or_is_left_to_libyaml():
    read = 0
    for path in _corpus_files():
        try:
            text = path.read_text(encoding="utf-8").removeprefix("\ufeff")
        except (UnicodeDecodeError, OSError):
            continue
        if _fast(text) is None:
            continue
        assert _canonical(*_fast(text)) == _canonical(*_libyaml(text)), path
        read += 1
    assert read >= 100  # the reader is actually used on the corpora


_ATOMS = [
    "hello", "Hello world", "a:b", "a :b", "x -y", "a,b", "a, b", "it's", "0755", "1e3", "0x1F", "0o17", ".5",
    "+1", ".inf", ".nan", "~", "null", "true", "False", "1_000", "2024-01-01", "12:30", "http://x.y/z", "a]b",
    "a}b", "a  b", "é ü", "ä:ö", "0", "00", "1.", "1.0", "+.5", "yes", "no", "y", "${{ V }} and {{ v }}",
]  # fmt: skip
_ODD = ["a: b", "-x", "- x", "?x", "{x}", "[x]", 'say "hi"', "!tag", "&anc", "*ali", "%p", "@x", "`x", "|", ">",
        "x:", ":x", "--", "...", "---", "-1", "{{ v }}"]  # fmt: skip
_KEYS = ["a", "b", "id", "role", "content", "true", "null", "no", "y", "$schema", "a-b", "x_y", "Yes", "on", "nan"]


def _document(rng: random.Random, odd: bool) -> str:
    atoms = _ATOMS + (_ODD if odd else [])

    def scalar() -> str:
        atom = rng.choice(atoms)
        roll = rng.random()
        if roll < 0.15:
            return '"' + atom.replace('"', "") + '"'
        if roll < 0.25:
            return "'" + atom.replace("'", "") + "'"
        return atom

    def flow() -> str:
        if rng.random() < 0.5:
            pairs = [f"{rng.choice(_KEYS)}:{rng.choice([' ', '  '])}{scalar()}" for _ in range(rng.randint(0, 3))]
            return "{" + rng.choice([", ", ",", " , "]).join(pairs) + rng.choice(["", " ", ","]) + "}"
        return "[" + ", ".join(scalar() for _ in range(rng.randint(0, 3))) + rng.choice(["", " ", ","]) + "]"

    def mapping(indent: int, depth: int) -> list[str]:
        out = []
        keys = rng.sample(_KEYS, rng.randint(1, 4)) if rng.random() < 0.95 else [rng.choice(_KEYS)] * 2
        for key in keys:
            roll = rng.random()
            pad = " " * indent
            if roll < 0.4 or depth > 3:
                out.append(f"{pad}{key}: {scalar()}")
            elif roll < 0.55:
                out.append(f"{pad}{key}: {flow()}")
            elif roll < 0.65:
                out.append(f"{pad}{key}: {rng.choice(['|', '|-', '|+', '>'])}")
                for _ in range(rng.randint(0, 4)):
                    out.append(rng.choice(["", " " * (indent + 2) + scalar(), " " * (indent + 4) + "deeper"]))
            elif roll < 0.7:
                out.append(f"{pad}{key}:")
            else:
                out.append(f"{pad}{key}:")
                if rng.random() < 0.3:
                    out += sequence(indent, depth + 1)
                else:
                    out += mapping(indent + rng.choice([1, 2, 4]), depth + 1)
            if rng.random() < 0.1:
                out.append("")
        return out

    def sequence(indent: int, depth: int) -> list[str]:
        out = []
        for _ in range(rng.randint(1, 4)):
            dash = " " * indent + rng.choice(["- ", "-  "])
            roll = rng.random()
            if roll < 0.35:
                out.append(dash + scalar())
            elif roll < 0.5:
                out.append(dash + flow())
            elif roll < 0.8 and depth < 4:
                sub = mapping(len(dash), depth + 1)
                out.append(dash + sub[0].lstrip(" "))
                out += sub[1:]
            else:
                out.append(" " * indent + "-")
                out += mapping(indent + 2, depth + 1)
        return out

    lines = mapping(0, 0) if rng.random() < 0.7 else sequence(0, 0)
    return "\n".join(lines) + rng.choice(["\n", "", "\n\n"])


@pytest.mark.parametrize("odd", [False, True])
def test_random_documents_read_the_same_or_are_left_to_libyaml(odd):
    rng = random.Random(20261124 + odd)
    read = sum(_agrees(_document(rng, odd)) for _ in range(1500))
    assert read >= 100


@pytest.mark.parametrize(
    "text",
    [
        "a: 1 # comment\n",
        "a:\tb\n",
        "a: b\r\nc: d\r\n",
        'a: "x\\ty"\n',
        "a: &x 1\nb: *x\n",
        "a: !!str 1\n",
        "a: b\n  continued\n",
        "a: >\n  folded\n",
        "a: |+\n  kept\n\n",
        "a: {b: {c: d}}\n",
        "a: 1\na: 2\n",
        "1: one\n",
        "<<: {a: 1}\n",
        "---\na: 1\n",
        "a: 1\n...\n",
        "a: 1 \n",
        "a:\n  - b\n  c: d\n",
        "? a\n: b\n",
        "- - a\n",
        "a:\n- b\n-c: d\n",  # `-c` at the items' column is a key of `a`'s mapping, not an item
        "- a\n-b\n",
        "a: 'it''s'\n",
        "plain scalar\n",
        "",
    ],
)
def test_what_it_leaves_to_libyaml(text):
    assert _fast(text) is None


def test_parse_yaml_gives_the_same_document_either_way():
    text = (ROOT / "sample_evals").rglob("*.eval.yaml").__next__().read_text(encoding="utf-8")
    doc = yaml12.parse_yaml(text)
    data, node_lines, child_lines = _libyaml(text)
    assert _canonical(doc.data, doc._node_lines, doc._child_lines) == _canonical(data, node_lines, child_lines)
