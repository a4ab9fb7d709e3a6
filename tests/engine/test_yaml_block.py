"""The fast block-YAML reader (formatting/evals/yaml_block.py) reads exactly what libyaml and yaml12's builder read,
or declines (returns None) so that they do: on every YAML file of the repository's corpora and samples, on random
documents, and on the constructs it must leave to libyaml."""

from __future__ import annotations

import math
import random
from pathlib import Path

import pytest

from turnlens.formatting.evals import slices as slicing
from turnlens.formatting.evals import yaml12, yaml_binding, yaml_schema, yaml_text, yaml_tree
from turnlens.formatting.evals.yaml_block import parse_block

ROOT = Path(__file__).resolve().parents[2]


def _fast(text: str):
    return parse_block(text, yaml_schema.core_plain, yaml_schema.SPECIAL_START)


def _libyaml(text: str):
    """What yaml12 reads without the fast reader: libyaml's node tree through the builder."""
    loader = yaml_binding.new_loader(text)
    try:
        root = yaml_text.compose_with_big_stack(loader, text.count("[") + text.count("{"))
    finally:
        loader.dispose()
    builder = yaml_tree.FastBuilder()
    builder.text = text
    return builder.build(root), builder.node_lines, builder.child_lines


def _canonical(data, node_lines, child_lines):
    """The data with what YamlDoc answers about every collection (its line, its children's lines, each child's line,
    a missing one's), comparable across two reads."""
    return _answers(data, yaml12.YamlDoc(data, [], node_lines, child_lines))


def _answers(data, doc):
    if isinstance(data, dict):
        lines = [doc.line(data, key) for key in [*data, "not-a-key"]]
        items = [(k, _answers(v, doc)) for k, v in data.items()]
        return ("map", doc.line(data), doc.child_lines(data), lines, items)
    if isinstance(data, list):
        lines = [doc.line(data, i) for i in range(-len(data) - 1, len(data) + 1)]
        return ("seq", doc.line(data), doc.child_lines(data), lines, [_answers(v, doc) for v in data])
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


def test_export_slices_of_corpus_files_read_the_same_or_are_left_to_libyaml():
    """A slice as an export worker reads it: the header, an empty line per line of the slices before, its lines."""
    sliced = 0
    for path in _corpus_files():
        try:
            text = path.read_text(encoding="utf-8").removeprefix("\ufeff")
        except (UnicodeDecodeError, OSError):
            continue
        for key in ("tests", "evalcases"):
            slices = slicing.split_slices(text, 3, key, min_bytes=0)
            for cut in slices or ():
                sliced += _agrees(slicing.piece(text, slices, cut))
    assert sliced >= 100


_ATOMS = [
    "hello", "Hello world", "a:b", "a :b", "x -y", "a,b", "a, b", "it's", "0755", "1e3", "0x1F", "0o17", ".5",
    "+1", ".inf", ".nan", "~", "null", "true", "False", "1_000", "2024-01-01", "12:30", "http://x.y/z", "a]b",
    "a}b", "a  b", "é ü", "ä:ö", "0", "00", "1.", "1.0", "+.5", "yes", "no", "y", "${{ V }} and {{ v }}",
]  # fmt: skip
_ODD = ["a: b", "-x", "- x", "?x", "{x}", "[x]", 'say "hi"', "!tag", "&anc", "*ali", "%p", "@x", "`x", "|", ">",
        "x:", ":x", "--", "...", "---", "-1", "{{ v }}"]  # fmt: skip
_KEYS = ["a", "b", "id", "role", "content", "true", "null", "no", "y", "$schema", "a-b", "x_y", "Yes", "on", "nan"]


def _maybe_quoted(rng: random.Random, atom: str) -> str:
    """`atom` as written, or now and then double- or single-quoted (its own quotes of that kind dropped)."""
    roll = rng.random()
    if roll < 0.15:
        return '"' + atom.replace('"', "") + '"'
    if roll < 0.25:
        return "'" + atom.replace("'", "") + "'"
    return atom


def _document(rng: random.Random, odd: bool, long: bool = False) -> str:
    """A random block YAML document; `odd`: with scalars the reader leaves to libyaml; `long`: with runs of empty
    lines and long sequences."""
    atoms = _ATOMS + (_ODD if odd else [])

    def scalar() -> str:
        return _maybe_quoted(rng, rng.choice(atoms))

    def flow() -> str:
        if rng.random() < 0.5:
            count = rng.randint(0, 9 if long else 3)  # (the reader takes four pairs at a time)
            pairs = [f"{rng.choice(_KEYS)}:{rng.choice([' ', '  '])}{scalar()}" for _ in range(count)]
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
                if long:  # like a slice of a big file (formatting/evals/slices.py): empty lines, then items
                    out += [""] * rng.choice([0, 0, 0, 1, 25])
                if rng.random() < 0.3:
                    out += sequence(indent, depth + 1)
                else:
                    out += mapping(indent + rng.choice([1, 2, 4]), depth + 1)
            if rng.random() < 0.1:
                out += [""] * (rng.choice([1, 1, 2, 30]) if long else 1)
        return out

    def sequence(indent: int, depth: int) -> list[str]:
        out = []
        for _ in range(rng.randint(1, 25) if long and depth < 2 else rng.randint(1, 4)):
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


@pytest.mark.parametrize(("odd", "long"), [(False, False), (True, False), (False, True)])
def test_random_documents_read_the_same_or_are_left_to_libyaml(odd, long):
    rng = random.Random(20261124 + odd + 2 * long)
    read = sum(_agrees(_document(rng, odd, long)) for _ in range(1500))
    assert read >= 100


def _soup(rng: random.Random) -> str:
    """Nested mappings and sequences from a tiny vocabulary, so that the same line stands in many places (under
    other parents, as an entry and as an item: the reader remembers what a line holds by its text), some lines then
    moved into another role."""
    keys = ["a", "b", "id", "n"]
    values = ["x", "1", "{a: 1}", "[x]", "|", '"q"']

    def mapping(pad: str, depth: int) -> list[str]:
        out = []
        for key in rng.sample(keys, rng.randint(1, 3)):
            roll = rng.random()
            if roll < 0.5 or depth > 3:
                out.append(f"{pad}{key}: {rng.choice(values)}")
                if out[-1].endswith("|"):
                    out.append(pad + "  " + rng.choice(values))
            else:
                out.append(f"{pad}{key}:")
                out += mapping(pad + "  ", depth + 1) if roll < 0.75 else sequence(pad + rng.choice(["", "  "]), depth)
        return out

    def sequence(pad: str, depth: int) -> list[str]:
        out = []
        for _ in range(rng.randint(1, 3)):
            if rng.random() < 0.6:
                sub = mapping(pad + "  ", depth + 1)
                out += [pad + "- " + sub[0].lstrip(" "), *sub[1:]]
            else:
                out.append(f"{pad}- {rng.choice(values)}")
        return out

    lines = mapping("", 0) if rng.random() < 0.7 else sequence("", 0)
    for _ in range(rng.randint(0, 3)):
        k = rng.randrange(len(lines))
        roll = rng.random()
        if roll < 0.2:
            lines.insert(k, lines[rng.randrange(len(lines))])  # a line again, elsewhere
        elif roll < 0.5:  # a line again after one at its column
            column = len(lines[k]) - len(lines[k].lstrip(" "))
            same = [line for line in lines if line and len(line) - len(line.lstrip(" ")) == column]
            lines.insert(k + 1, rng.choice(same or [""]))
        elif roll < 0.7:  # an entry made an item, or an item an entry
            text = lines[k].lstrip(" ")
            pad = lines[k][: len(lines[k]) - len(text)]
            lines[k] = pad + (text[2:] if text.startswith("- ") else "- " + text)
        elif roll < 0.85:
            lines[k] = "  " + lines[k]
        else:
            lines.insert(k, "")
    return "\n".join(lines) + rng.choice(["", "\n"])


def test_the_same_lines_in_other_places_read_the_same_or_are_left_to_libyaml():
    rng = random.Random(20261124)
    read = sum(_agrees(_soup(rng)) for _ in range(8000))
    assert read >= 1000


def _commented(rng: random.Random, text: str) -> str:
    """`text` with lines that are only a comment put between its lines, at any indentation (a `#` of a comment
    sometimes followed by what looks like YAML)."""
    lines = text.split("\n")
    for _ in range(rng.randint(1, 4)):
        comment = " " * rng.choice([0, 0, 1, 2, 4, 6]) + rng.choice(["#", "# a comment", "#- x: |", "#k: >"])
        lines.insert(rng.randrange(len(lines) + 1), comment)
    return "\n".join(lines)


def test_lines_that_are_only_a_comment_read_the_same_or_are_left_to_libyaml():
    rng = random.Random(20261127)
    read = sum(_agrees(_commented(rng, _soup(rng))) for _ in range(4000))
    read += sum(_agrees(_commented(rng, _document(rng, False))) for _ in range(1500))
    assert read >= 500
    commented = "$schema: agentv-config-v2\n\n# Globs of guideline files\nguideline_patterns:\n  # one\n  - a.md\n"
    assert _agrees(commented)
    scalar = "a: |\n  # a heading, text\n  x\n# a comment\nb:\n  # another\n  - 1\n"
    assert _agrees(scalar) and _fast(scalar)[0] == {"a": "# a heading, text\nx\n", "b": [1]}  # type: ignore[index]
    assert _fast(commented) is not None and _fast(commented)[0] == {  # type: ignore[index]
        "$schema": "agentv-config-v2",
        "guideline_patterns": ["a.md"],
    }


@pytest.mark.parametrize(
    "text",
    [
        "a: 1 # comment\n",
        "a: |\n  # text, not a comment\n",  # (a line starting with `#` in a block scalar)
        "a: |\n  x\n# a comment\n  y\n",  # (the scalar's text after a comment that ended it)
        "a: b\n# c\n  continued\n",
        "a: |+\n  x\n# c\n",
        "a: 'x' #c\n",
        "a:\tb\n",
        "a: b\r\nc: d\r\n",
        'a: "x\\ty"\n',
        "a: &x 1\nb: *x\n",
        "a: !!str 1\n",
        "a: b\n  continued\n",
        "a: >\n  folded\n",
        "a: |+\n  kept\n\n",
        "a: {b: { }}\n",  # an empty flow written with a space in it
        "a: [b, [ ]]\n",
        "a: {b: {c: d},}\n",
        "a: {b: [c, d], e}\n",  # a key without a value
        "a: [b, {c: d}: e]\n",  # a flow mapping as a key
        "a: {b: [c: d]}\n",  # a pair in a sequence
        "a: {b: {c: d} e}\n",
        "a: {b: {c: {{ v }}}}\n",
        "a: " + "{b: " * 9 + "c" + "}" * 9 + "\n",  # nested deeper than MAX_FLOW_DEPTH
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
        "x:\n  - id: 1\ny:\n  k: v\n  - id: 1\n",  # the same line read as an item, then where an entry should be
        "a: {b: 1, c: 2, d: 3, e: 4, f: 5, b: 6}\n",  # a duplicate key after the first four pairs
        "a: {b: 1, c: 2, d: 3, e: 4,}\n",  # a trailing comma (libyaml takes it, the reference too: left to them)
        "- a\n-b\n",
        "a: 'it''s'\n",
        "plain scalar\n",
        "",
    ],
)
def test_what_it_leaves_to_libyaml(text):
    assert _fast(text) is None


def _nested_flow(rng: random.Random, depth: int = 0) -> str:
    """A flow mapping or sequence on one line whose values are scalars and flow collections in turn; now and then
    written in a way the reader leaves to libyaml (odd scalars, keys that are not strings, no space after a key's
    `:`, a trailing comma, an empty collection with a space in it, duplicate keys)."""
    plain = [atom for atom in _ATOMS if ":" not in atom]
    odd = [*_ODD, "{ }", "[ ]", "a{b", "x]", "12:30", "a:b"]
    keys = ["a", "b", "id", "name", "path", "a-b", "x_y", "$schema"]

    def value() -> str:
        roll = rng.random()
        if depth < 4 and roll < 0.3:
            return _nested_flow(rng, depth + 1)
        return _maybe_quoted(rng, rng.choice(odd if roll > 0.97 else ["{}", "[]"] if roll > 0.92 else plain))

    count = rng.choice([1, 1, 2, 2, 3, 4])
    if rng.random() < 0.6:
        names = rng.sample(keys, count) if rng.random() < 0.97 else [rng.choice(keys)] * count
        names = [rng.choice(_KEYS) if rng.random() < 0.05 else name for name in names]
        colons = [": " if rng.random() < 0.9 else rng.choice([":", ":  "]) for _ in names]
        parts = [name + colon + value() for name, colon in zip(names, colons)]
        opener, closer = "{", "}"
    else:
        parts = [value() for _ in range(count)]
        opener, closer = "[", "]"
    space = " " if rng.random() < 0.1 else ""
    comma = rng.choice([", ", ", ", ", ", ",", " , "])
    end = rng.choice([" ", ","]) if rng.random() < 0.1 else ""
    return opener + space + comma.join(parts) + end + closer


def _with_nested_flows(rng: random.Random) -> str:
    """A small block document whose values and items are nested flow collections, some standing in several places."""
    flows = [_nested_flow(rng) for _ in range(3)]
    lines = []
    for key in rng.sample(_KEYS, rng.randint(1, 4)):
        roll = rng.random()
        if roll < 0.4:
            lines.append(f"{key}: {rng.choice(flows)}")
        elif roll < 0.8:
            lines.append(f"{key}:")
            for _ in range(rng.randint(1, 3)):
                lines.append(f"  - {rng.choice(flows)}")
        else:
            lines += [f"{key}:", f"  - id: {rng.choice(_ATOMS)}", f"    args: {rng.choice(flows)}"]
    return "\n".join(lines) + "\n"


def test_nested_flow_collections_read_the_same_or_are_left_to_libyaml():
    """Flow collections in one another (a tool call's arguments: `{id: t1, arguments: {path: a.ts}}`), each place a
    collection stands in given its own copy with its own lines."""
    rng = random.Random(20261128)
    read = sum(_agrees(_with_nested_flows(rng)) for _ in range(6000))
    assert read >= 1000
    call = "- role: assistant\n  tool_calls:\n    - {id: t1, name: run, arguments: {path: a.ts, n: [1, {b: c}]}}\n"
    assert _agrees(call)
    twice = "a: {b: {c: d}}\nb: {b: {c: d}}\n"
    assert _agrees(twice)
    data = _fast(twice)[0]  # type: ignore[index]
    assert data["a"] == data["b"] and data["a"]["b"] is not data["b"]["b"]
    sample = (ROOT / "sample_evals" / "evals" / "agent-tasks" / "repo-tasks.eval.yaml").read_text(encoding="utf-8")
    assert _agrees(sample)  # read here: PyYAML is not imported before the first frame of sample_evals/


def _chain(levels: int) -> str:
    """Sequences at their key's column and compact mappings, nested `levels` times: no line is a collection indented
    under a key, the way the reader counts nesting elsewhere."""
    lines = ["a:"] + ["  " * i + f"- k{i}:" for i in range(levels)] + ["  " * levels + "- x"]
    return "\n".join(lines) + "\n"


def test_deep_nesting_is_left_to_libyaml_however_it_is_written():
    assert _agrees(_chain(20))
    assert _fast(_chain(40)) is None  # 80 levels
    with pytest.raises(yaml12.YamlError, match="nested more than 800 levels deep"):
        yaml12.parse_yaml(_chain(600))  # which the reader used to read (its own limit checked for indented ones only)


def test_parse_yaml_gives_the_same_document_either_way():
    text = (ROOT / "sample_evals").rglob("*.eval.yaml").__next__().read_text(encoding="utf-8")
    doc = yaml12.parse_yaml(text)
    data, node_lines, child_lines = _libyaml(text)
    assert _answers(doc.data, doc) == _canonical(data, node_lines, child_lines)
