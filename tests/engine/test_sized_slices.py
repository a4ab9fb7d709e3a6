"""sized_slices: a file cut one slice at a time (the inspector's big files) gives slices numbered as in the whole
text (their first line and first case), contiguous, each at least one item, lends a slice the earlier items whose
anchors it aliases, and cuts only what split_slices cuts."""

from __future__ import annotations

import re

import pytest

from turnlens.formatting.evals.slices import CutRefused, Slice, sized_slices, split_slices


def suite(tests: int, *, indent: int = 2, crlf: bool = False, comments: bool = False) -> str:
    pad = " " * indent
    lines = ["name: sized", "# a header comment", "tests:"]
    if comments:
        lines += ["", "# before the first item"]
    for n in range(tests):
        lines += [f"{pad}- id: t{n}", f"{pad}  criteria: ok {n}", f"{pad}  input:"]
        lines += [f"{pad}    - role: user", f"{pad}      content: |", f"{pad}        line one", "", f"{pad}        -x"]
        if comments and n % 3 == 0:
            lines += ["# between items", ""]
    return ("\r\n" if crlf else "\n").join(lines) + "\n"


def expected(text: str, slices: list[Slice], indent: int) -> None:
    """Each slice's numbers from the whole text."""
    items = [m.start() + 1 for m in re.finditer(rf"\n {{{indent}}}-(?=[ \t]|\r?\n|\Z)", text)]
    assert slices[0].start_offset == text.index("\n", text.index("\ntests:") + 1) + 1  # after the key's line
    assert slices[0].start_line == text.count("\n", 0, slices[0].start_offset)
    assert slices[-1].end_offset == len(text) + 1 and slices[-1].end_line == text.count("\n") + 1
    for k, piece in enumerate(slices):
        assert piece.end_offset > piece.start_offset
        if k:
            assert piece.start_offset == slices[k - 1].end_offset and piece.start_line == slices[k - 1].end_line
            assert piece.start_offset in items and piece.start_line == text.count("\n", 0, piece.start_offset)
        assert piece.first_case == sum(1 for start in items if start < piece.start_offset)


@pytest.mark.parametrize("options", [{}, {"indent": 0}, {"indent": 4}, {"crlf": True}, {"comments": True}], ids=repr)
@pytest.mark.parametrize("sizes", [(1, 1), (300, 1000), (5000, 20000)])
def test_sized_slices_number_lines_and_cases_as_the_whole_text(options, sizes):
    text = suite(200, **options)
    made = sized_slices(text, "tests", *sizes, min_bytes=0)
    assert made is not None
    slices = list(made)
    expected(text, slices, options.get("indent", 2))
    assert len(slices) > 1 and (len(slices) == 200 or sizes != (1, 1))  # (at least an item each)


@pytest.mark.parametrize("first_items", [1, 5, 1000])
def test_the_first_slice_holds_at_most_first_items_items(first_items):
    text = suite(200)
    made = sized_slices(text, "tests", 5000, 20000, min_bytes=0, first_items=first_items)
    assert made is not None
    slices = list(made)
    expected(text, slices, 2)
    whole = list(sized_slices(text, "tests", 5000, 20000, min_bytes=0) or [])
    assert slices[1].first_case == min(first_items, whole[1].first_case)  # (5,000 characters hold 33 items)


def taken(text: str, *sizes: int, **options: int) -> list[Slice] | None:
    """Every slice sized_slices makes, or None when it says the text cannot be cut: at once, or as the slice is made
    past which it cannot (CutRefused: the lines are checked as the first and second slices are made)."""
    made = sized_slices(text, "tests", *sizes, **options)
    try:
        return None if made is None else list(made)
    except CutRefused:
        return None


def test_what_is_not_cut_whole_is_not_cut_here_either():
    text = suite(100)
    assert taken(text + "after: a key after the list\n", 100, 100, min_bytes=0) is None
    assert sized_slices(text.replace("ok 5", "!tagged 5"), "tests", 100, 100, min_bytes=0) is None
    assert sized_slices(text, "tests", 100, 100, min_bytes=len(text) + 1) is None
    # a key written again in the first slice's lines refuses it as it is made; further on, as the second is
    for at in (text.index("  - id: t1\n"), text.index("  - id: t90\n")):
        made = sized_slices(text[:at] + "tests:\n" + text[at:], "tests", 100, 100, min_bytes=0)
        assert made is not None
        if at > 1000:
            next(made)  # (the first slice is made: its own lines are nested)
        with pytest.raises(CutRefused):
            next(made)
    # Past the alias limits (an anchor aliased 100 times) the whole file is loaded, as split_slices says.
    many = suite(150).replace("criteria: ok 0\n", "criteria: &zero ok 0\n")
    for n in range(1, 101):
        many = many.replace(f"criteria: ok {n}\n", "criteria: *zero\n")
    assert taken(many, 100, 100, min_bytes=0) is None
    assert split_slices(many, 2, "tests", min_bytes=0) is None
    made = sized_slices(many, "tests", 100, 100, min_bytes=0)
    assert made is not None and not next(made).borrowed  # (the first slice is made before the aliases are counted)
    with pytest.raises(CutRefused):
        next(made)


def test_a_slice_borrows_the_earlier_item_whose_anchor_it_aliases():
    text = suite(100).replace("criteria: ok 5\n", "criteria: &five ok 5\n").replace("ok 70\n", "*five\n")
    made = sized_slices(text, "tests", 100, 100, min_bytes=0)
    assert made is not None
    slices = list(made)
    expected(text, slices, 2)
    item5 = text.index("  - id: t5\n")
    for piece in slices:
        lends = piece.start_offset <= text.index("*five") < piece.end_offset and piece.start_offset > item5
        assert [b.start_offset for b in piece.borrowed] == ([item5] if lends else [])


@pytest.mark.parametrize("indent", [1, 2, 4])
def test_a_shallower_line_in_any_piece_of_a_big_text_stops_the_cut(indent):
    """The search for a line shallower than the items is passed over where every line is indented (pieces of ~1 MiB):
    a shallower line, wherever it is, still stops the cut; blank lines and the text's last line break do not."""
    pad = " " * indent
    text = suite(30_000, indent=indent).replace("\n\n", "\n")  # (no blank line but a few)
    text = text.replace(f"\n{pad}        line one", f"\n{pad}        line one\n", 3)
    assert len(text) > 3 << 20 and text.count("\n\n") == 3
    assert taken(text, 100_000, 100_000, min_bytes=0) is not None
    for at in (len(text) // 10, len(text) // 2, len(text) - 100):
        cut = text.rindex(f"\n{pad}- ", 0, at)
        shallower = text[:cut] + "\nafter: a key\n" + text[cut + 1 :]
        assert taken(shallower, 100_000, 100_000, min_bytes=0) is None
        if indent > 1:
            shallow = text[:cut] + "\n" + pad[1:] + "x: one space short" + text[cut:]
            assert taken(shallow, 100_000, 100_000, min_bytes=0) is None
