"""A file with anchors and aliases is cut at case boundaries all the same (formatting/evals/slices.py): a slice whose
alias takes an anchor of an earlier slice reads that anchor's item too, and the cases it makes are dropped. Each
slice's rows, put together, must be the oracle's (AgentV 4.42.4, recorded in tests/fixtures/oracle4) and the whole
file's; where the whole file's alias limits could be reached, it is not cut."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pytest

from turnlens.formatting.dialects.load import load_eval_file
from turnlens.formatting.evals import slices as slicing
from turnlens.formatting.export.evals import iter_rows

ROOT = Path(__file__).resolve().parents[2]
ORACLE4 = ROOT / "tests" / "fixtures" / "oracle4"
sys.path.insert(0, str(ORACLE4))

import compare  # noqa: E402  (tests/fixtures/oracle4/compare.py: a helper module)

_MANIFEST = compare.load_manifest()


def _anchored_fixtures() -> list[str]:
    keys = []
    for key, entry in _MANIFEST["fixtures"].items():
        path = ROOT / entry["eval"]
        if entry.get("oracle_crash") or entry.get("load_error") or path.suffix not in (".yaml", ".yml"):
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        if slicing.may_alias(text) and slicing.split_slices(text, 2, "tests", min_bytes=0) is not None:
            keys.append(key)
    return keys


_KEYS = _anchored_fixtures()


def _sliced(entry: dict, parts: int) -> tuple[list[dict], list[str]] | None:
    """The rows and file warnings of the file loaded slice by slice, as the exporter's workers load them."""
    eval_path, root, cwd = compare.paths_for(entry)
    text = eval_path.read_text(encoding="utf-8")
    cut = slicing.split_slices(text, parts, "tests", min_bytes=0)
    if cut is None:
        return None
    rows: list[dict] = []
    warnings: list[str] = []
    old = os.getcwd()
    os.chdir(cwd)
    try:
        for n, part in enumerate(cut):
            ev = load_eval_file(
                os.path.relpath(eval_path, cwd),
                repo_root=str(root),
                cwd=str(cwd),
                environ=compare.environment_for(entry),
                text=slicing.piece(text, cut, part),
                first_case_index=part.load_first_case,
            )
            assert ev.error is None, ev.error
            ev.cases, ev.diagnostics = slicing.drop_borrowed(ev.cases, ev.diagnostics, part)
            assert [c.index for c in ev.cases][:1] == [part.first_case]
            rows += iter_rows(ev, "agentv")
            first_line = ev.cases[0].line or 0
            warnings += [d.message for d in ev.diagnostics if n == 0 or (d.line or 0) >= first_line]
            warnings += [d.message for c in ev.cases for d in c.diagnostics]
    finally:
        os.chdir(old)
    return rows, warnings


def test_the_anchored_corpus_files_are_cut():
    assert "corpus4/suites/evals/anchors-across.eval.yaml" in _KEYS
    text = (ROOT / "tests/corpus4/suites/evals/anchors-across.eval.yaml").read_text()
    cut = slicing.split_slices(text, 4, "tests", min_bytes=0)
    assert cut is not None and all(part.borrowed for part in cut[1:])  # the first test's anchors, everywhere


@pytest.mark.parametrize("parts", [2, 3, 5])
@pytest.mark.parametrize("fixture", _KEYS)
def test_slices_of_an_anchored_file_give_the_oracles_rows(fixture, parts):
    entry = _MANIFEST["fixtures"][fixture]
    sliced = _sliced(entry, parts)
    if sliced is None:
        pytest.skip("too few tests for that many slices")
    rows, warnings = sliced
    oracle = compare.read_fixture(fixture, manifest=_MANIFEST)
    assert compare.compare(oracle, rows, None, warnings) == []
    whole = load_eval_file(str(compare.paths_for(entry)[0]), environ=compare.environment_for(entry))
    assert json.dumps(rows, default=str) == json.dumps(list(iter_rows(whole, "agentv")), default=str)


def _suite(aliases: int, *, same_test: bool = False) -> str:
    lines = ["tests:", "  - id: t0", "    criteria: &crit Shared.", "    input: Q0"]
    for n in range(1, 200):
        criteria = "*crit" if n <= aliases else f"c{n}"
        lines += [f"  - id: t{n}", f"    criteria: {criteria}", f"    input: Q{n}"]
    if same_test:
        lines += ["  - id: both", "    criteria: &own Own.", "    input: *own"]
    return "\n".join(lines) + "\n"


def test_a_file_whose_alias_limit_could_be_reached_is_not_cut():
    assert slicing.split_slices(_suite(99), 4, "tests", min_bytes=0) is not None
    assert slicing.split_slices(_suite(100), 4, "tests", min_bytes=0) is None  # the whole file refuses it
    assert slicing.split_slices(_suite(10, same_test=True), 4, "tests", min_bytes=0) is None  # could nest


def test_text_that_looks_like_an_alias_does_not_stop_the_cut():
    text = _suite(0).replace("input: Q7", "input: a **bold** word, *args and R&D")
    cut = slicing.split_slices(text, 4, "tests", min_bytes=0)
    assert cut is not None and not any(part.borrowed for part in cut)


def test_a_borrowed_item_keeps_its_line_numbers():
    text = _suite(99)
    cut = slicing.split_slices(text, 4, "tests", min_bytes=0)
    assert cut is not None
    second = slicing.piece(text, cut, cut[1])
    lines, original = second.split("\n"), text.split("\n")
    assert len(lines) == cut[1].end_line
    assert lines[1:4] == original[1:4]  # t0, with its anchor
    assert all(not line for line in lines[4 : cut[1].start_line])
    assert lines[cut[1].start_line :] == original[cut[1].start_line : cut[1].end_line]
    joined = slicing.joined(cut, 1, 3)
    assert joined.borrowed == cut[1].borrowed  # what a joined slice holds itself is not borrowed again


_KEY_LINE = re.compile(r"^tests:[ \t]*\r?\n", re.M)
_FIRST_ITEM = re.compile(r"\n( *)-(?=[ \t]|\r?\n|\Z)")


def _borrowing_agrees(text: str, parts: int) -> bool:
    """Whether slicing.borrowing, which looks only around the anchors and aliases, gives each slice of split_slices'
    cut the items it borrows (True), or refuses the file as split_slices does (False)."""
    cut = slicing.split_slices(text, parts, "tests", min_bytes=0)
    key = _KEY_LINE.search(text)
    assert key is not None
    head_end = key.end()
    assert cut is None or cut[0].start_offset == head_end
    first = _FIRST_ITEM.search(text, head_end - 1)
    assert first is not None
    borrowed = slicing.borrowing(text, head_end, first.start())
    if cut is None:
        assert borrowed is None
        return False
    assert borrowed is not None
    assert [borrowed(part.start_offset, part.end_offset) for part in cut] == [part.borrowed for part in cut]
    return True


@pytest.mark.parametrize("fixture", _KEYS)
def test_the_borrowed_items_are_found_from_the_anchors_alone(fixture):
    text = (ROOT / _MANIFEST["fixtures"][fixture]["eval"]).read_text(encoding="utf-8", errors="replace")
    for parts in (2, 3, 5):
        if len(_FIRST_ITEM.findall(text)) >= parts * 8:
            assert _borrowing_agrees(text, parts)


def test_the_borrowed_items_of_a_suite_cut_a_slice_at_a_time():
    assert _borrowing_agrees(_suite(99), 4)
    assert not _borrowing_agrees(_suite(100), 4)  # the whole file refuses it
    assert not _borrowing_agrees(_suite(10, same_test=True), 4)  # could nest
    # an anchor redefined; a line that starts like an item but is not one to the item pattern; CRLF line breaks;
    # items at column 0
    text = _suite(60).replace("    criteria: c150", "    criteria: &crit Again.").replace("input: Q9", "input: |\n  -x")
    assert _borrowing_agrees(text, 5)
    assert _borrowing_agrees(text.replace("\n", "\r\n"), 5)
    assert _borrowing_agrees(text.replace("\n  - id:", "\n- id:").replace("\n  -x", "\n-x"), 5)
