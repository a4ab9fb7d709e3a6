"""Statistics as `agentv inspect stats` gives them (tests/fixtures/results/real/stats: what 4.42.4 printed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from turnlens.formatting.results.index import ResultsFile
from turnlens.formatting.results.stats import (
    figures_of,
    group_stats,
    percentile,
    run_stats_lines,
    stats_lines,
    stats_markdown,
    to_fixed,
)

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "results" / "real"


def scanned(run: str) -> ResultsFile:
    results = ResultsFile(str(REAL / run / "index.jsonl"))
    for _ in results.scan():
        pass
    return results


@pytest.mark.parametrize("name", ["first-by-target", "matrix-by-target", "agent", "mixed"])
def test_what_agentv_inspect_stats_printed(name):
    words = (REAL / "stats" / f"{name}.cmd").read_text().split()
    run, by = words[3], (words[5] if len(words) > 5 else None)
    expected = (REAL / "stats" / f"{name}.txt").read_text().split("\n")
    lines = stats_lines(group_stats(figures_of(scanned(run), str(REAL / run)), by))
    assert expected[:3] == ["", f"Statistics: {run}", lines[0] if by is None else ""]
    assert [line.rstrip() for line in expected[2 if by is None else 2 :] if line] == [
        line.rstrip() for line in lines if line
    ]


def test_percentiles_and_javascript_number_text():
    assert percentile([1.0, 4.0], 90) == pytest.approx(3.7) and percentile([], 50) == 0.0
    assert [to_fixed(x, 2) for x in (0.125, 0.375, 2.5, -0.001, 0.0)] == ["0.13", "0.38", "2.50", "-0.00", "0.00"]


def test_the_screen_lines_and_markdown_group_by_target_and_suite():
    run = "project/.agentv/results/runs/default/2026-06-22T09-00-00-000Z"
    lines = run_stats_lines(scanned(run), str(REAL / run))
    assert lines[0] == "10 tests" and "By target" in lines
    markdown = stats_markdown(group_stats(figures_of(scanned(run), str(REAL / run)), "suite"), "run")
    assert "| score | 0.65 |" in markdown and "### scoring (10 tests)" in markdown


def test_export_markdown_stats(monkeypatch, capfdbinary):
    from turnlens.tui.export_cli import main

    monkeypatch.chdir(REAL)
    run = "project/.agentv/results/runs/default/2026-06-25T09-00-00-000Z/index.jsonl"
    assert main([run, "--format", "markdown", "--stats"]) == 0
    out = capfdbinary.readouterr().out.decode()
    assert out.startswith("## Statistics: default/2026-06-25T09-00-00-000Z\n\n2 tests\n")
    assert "| tool_calls | 3 | 3 | 4 | 4 | 4 |" in out and "| tokens_total | 6,030 |" in out
    assert main([run, "--format", "jsonl", "--stats"]) == 2


async def test_the_statistics_screen():
    from tui_helpers import wait_for_idle

    from turnlens.tui.app import make_app
    from turnlens.tui.results.screen import StatisticsScreen

    app = make_app([str(REAL / "project/.agentv/results/runs/default/2026-06-25T09-00-00-000Z")], watch=False)
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_for_idle(pilot)
        await pilot.press("percent_sign")
        for _ in range(50):
            await pilot.pause(0.1)
            if isinstance(app.screen, StatisticsScreen):
                break
        assert isinstance(app.screen, StatisticsScreen) and app.screen.lines[0] == "2 tests"


def test_the_header_counts_agree_with_each_row_verdict():
    """The header's counts (queries._count_stats, verdicts written out for speed) are what verdict_of says row by row,
    counted all at once or in steps as while a run is indexed; infinite scores (JSON.parse reads 1e400 as Infinity)
    fall in the end bins rather than stopping the count."""
    import math
    import random

    from turnlens.formatting.results.columns import FLAG_ERROR, FLAG_NO_SCORE, RecordColumns
    from turnlens.formatting.results.queries import (
        VERDICT_ERROR,
        VERDICT_PASS,
        StatsCounter,
        compute_stats,
        verdict_of,
    )

    chooser = random.Random(23)
    columns = RecordColumns()
    values = [0.0, 0.05, 0.1, 0.5, 0.79, 0.8, 0.95, 1.0, 1.5, -0.2, -1.5, math.inf, -math.inf]
    for index in range(3000):
        flag = chooser.choice([0, 0, 0, FLAG_ERROR, FLAG_NO_SCORE, FLAG_ERROR | FLAG_NO_SCORE])
        score = math.nan if flag & FLAG_NO_SCORE else chooser.choice(values)
        status = chooser.choice([0, 1, 2, 3, 3, 3, 7])  # (7: a byte no status has, judged as a row without one)
        duration = chooser.choice([math.nan, 0.1, 1e3, 7.25])
        columns.add_rows([(index, index + 1, index + 1, score, flag, math.nan, 0, 0, f"t{index}", status) + (
            duration, math.nan, math.nan)])  # fmt: skip
    columns.v4_count = 1
    for threshold in (0.8, 0.5, 1.0):
        verdicts = [verdict_of(s, f, x, threshold) for s, f, x in zip(columns.statuses, columns.flags, columns.scores)]
        scored = [x for f, x in zip(columns.flags, columns.scores) if not f & FLAG_NO_SCORE]
        total = 0.0
        for x in scored:  # added in row order
            total += x
        histogram = [0] * 10
        for x in scored:
            histogram[9 if x >= 0.9 else 0 if x < 0.1 else int(x * 10)] += 1
        other = sum(
            1
            for v, s, x in zip(verdicts, columns.statuses, columns.scores)
            if v != VERDICT_ERROR and s < 2 and (v == VERDICT_PASS) != (x >= threshold)
        )
        whole = compute_stats(columns, threshold)
        assert (whole.passed, whole.failed, whole.errors, whole.scored, whole.other_threshold) == (
            verdicts.count(VERDICT_PASS),
            len(verdicts) - verdicts.count(VERDICT_PASS) - verdicts.count(VERDICT_ERROR),
            verdicts.count(VERDICT_ERROR),
            len(scored),
            other,
        )
        assert whole.histogram == histogram
        assert whole.mean == total / len(scored) or math.isnan(total)
        assert whole.v4 is not None and whole.v4.duration_ms == sum(x for x in columns.durations if x == x)
        assert whole.v4.statuses == [columns.statuses.tobytes().count(status) for status in range(4)]
        counter = StatsCounter()  # in steps, as the header counts while a run is indexed
        full = columns.count
        for upto in (1, 700, 1500, full):
            columns.count = upto
            stepped = counter.update(columns, threshold)
        columns.count = full
        assert (stepped.passed, stepped.failed, stepped.errors, stepped.histogram, stepped.other_threshold) == (
            whole.passed,
            whole.failed,
            whole.errors,
            whole.histogram,
            whole.other_threshold,
        )
        assert stepped.mean == whole.mean or math.isnan(total)
    # the mean's sum is added in row order, as a loop adds it (another order can differ in the last digits)
    finite = RecordColumns()
    for index in range(2000):
        score = chooser.choice([0.1, 0.7, 1e-9, 0.333, 1e6])
        finite.add_rows([(index, index + 1, index + 1, score, 0, math.nan, 0, 0, "t", 3, math.nan, math.nan, math.nan)])
    total = 0.0
    for x in finite.scores:
        total += x
    assert compute_stats(finite, 0.8).mean == total / 2000 != math.fsum(finite.scores) / 2000
