"""The results view's colours come from the theme too: every span of its lists, headers and detail tabs reads on
the theme's background (or on its badge's colour) in every built-in theme, and no colour is written in the code."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from rich.style import Style
from rich.text import Text
from textual.color import Color
from textual.theme import BUILTIN_THEMES

from turnlens.formatting.results.drift import DriftReport, FieldDrift
from turnlens.tui import theme
from turnlens.tui.theme import DECORATION_CONTRAST, TURNLENS, contrast

ROOT = Path(__file__).parents[2]
RESULTS = ROOT / "tests" / "fixtures" / "results"
RUNS = RESULTS / "v4" / ".agentv" / "results" / "runs" / "default"


def test_no_colour_is_written_in_the_app_outside_the_theme():
    hex_colour = re.compile(r"""["'\s]#[0-9a-fA-F]{6}\b""")
    found = [
        f"{path.relative_to(ROOT)}:{n}"
        for path in sorted((ROOT / "tui").rglob("*.py"))
        if path.name != "theme.py"
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if hex_colour.search(line) and not line.lstrip().startswith("#")
    ]
    assert found == []


def _indexed(path: Path):
    from turnlens.tui.results.model import ResultsModel, open_runs

    runs, _ = open_runs([str(path)])
    for run in runs:
        for progress in run.results.scan():
            run.progress = progress
    model = ResultsModel(runs)
    selection = model.request()
    assert selection is not None
    from turnlens.tui.results.model import select_rows

    model.accept(selection, select_rows(selection))
    return model


def _results_view_texts() -> list[Text]:
    """What the results view draws: header, list rows with drift marks, each detail tab, a drift diff, compare."""
    from turnlens.formatting.results.compare import compare_runs
    from turnlens.tui.results import texts as detail
    from turnlens.tui.results.keys import marks_legend
    from turnlens.tui.results.model import CompareModel
    from turnlens.tui.results.widgets import CompareList, ListLook, ResultList, compare_header_text, header_text

    texts: list[Text] = []
    for path in (RESULTS / "run-a.jsonl", RUNS / "2026-06-21T09-00-00-000Z"):
        model = _indexed(path)
        run = model.run
        assert run is not None
        state = model.header_state()
        assert state is not None
        state.drift = {"drifted": 1, "equal": 2, "eval not found": 1}
        texts.append(header_text(state))
        rows = ResultList(run.results)
        rows.set_look(ListLook(0.5, bytearray(range(5)) * 2, show_time=True))
        texts += [rows.render_row(index, 140) for index in range(run.results.count)]
        for index in range(run.results.count):
            record = run.results.record(index)
            texts += [
                detail.title_text(record, 0.5, "1 of 6"),
                detail.request_text(record),
                detail.verdict_text(record, 0.5),
                detail.evaluator_text(record),
                detail.timing_text(record, None),
                detail.raw_text(record),
            ]
            found = detail.verdict_text(record, 0.5)
            detail.mark_hits(found, "e")  # full-text search hits
            texts.append(found)
    diff = "--- recorded\n+++ current\n@@ -1 +1 @@\n-old line\n+new line\n same"
    for status in ("equal", "drifted", "eval not found", "eval refused"):
        texts.append(detail.drift_text(DriftReport(status, "why", fields=[FieldDrift("lm question", "a", "b", diff)])))
    a, b = (_indexed(RESULTS / name).run for name in ("run-a.jsonl", "run-b.jsonl"))
    assert a is not None and b is not None
    compare = CompareModel(a, b)
    compare.comparison = compare_runs(a.results, b.results)
    pairs = CompareList()
    texts.append(compare_header_text(compare.header_state()))
    texts += [pairs.render_row(row, 140) for row in compare.refilter()]
    texts += [mark for mark, _ in marks_legend()]
    return texts


def _solid(colour, background: Color) -> Color | None:
    """A span colour as an opaque Textual colour; None when the terminal chooses it (default, named)."""
    if colour is None or colour.triplet is None:
        return None
    return Color(*colour.triplet)


@pytest.mark.parametrize("name", sorted(name for name, t in BUILTIN_THEMES.items() if not t.ansi))
def test_every_results_view_span_reads_in_every_theme(name):
    try:
        theme.use_theme(BUILTIN_THEMES[name])
        background = Color.parse(theme.palette().background)
        texts = _results_view_texts()
        checked = 0
        for text in texts:
            for span in [*text.spans, *([] if not text.style else [None])]:
                style = text.style if span is None else span.style
                style = Style.parse(style) if isinstance(style, str) else style
                fg = _solid(style.color, background)
                if fg is None:
                    continue
                bg = _solid(style.bgcolor, background) or background
                shown = text.plain[span.start : span.end] if span is not None else text.plain[:20]
                assert contrast(fg, bg) >= DECORATION_CONTRAST - 0.01, (name, shown, fg.hex, bg.hex)
                checked += 1
        assert checked > 500
    finally:
        theme.use_theme(TURNLENS)


def test_the_turnlens_theme_keeps_the_results_view_s_colours():
    """The semantic names give the turnlens theme the colours the results view always had (its snapshots)."""
    from turnlens.tui.results.widgets import ink

    theme.use_theme(TURNLENS)
    assert ink("success").color.triplet.hex == "#98c379"
    assert ink("track").color.triplet.hex == "#3e4451"
    assert ink("label").color.triplet.hex == "#61afef"
