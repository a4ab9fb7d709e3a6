"""Score history and trend across runs, as `agentv trend` 4.42.4 reports it (tests/fixtures/results/real/stats)."""

from __future__ import annotations

from pathlib import Path

from turnlens.formatting.results.index import ResultsFile
from turnlens.formatting.results.trend import regression, sparkline, trend, trend_lines

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "results" / "real"


def test_the_trend_agentv_printed():
    runs = []
    for run in (REAL / "stats" / "trend.cmd").read_text().split()[2:]:
        results = ResultsFile(str(REAL / run / "index.jsonl"))
        for _ in results.scan():
            pass
        runs.append(results)
    found = trend(list(reversed(runs)))  # any order: runs are put in time order
    expected = (REAL / "stats" / "trend.txt").read_text()
    lines = trend_lines(found)
    assert f"Matched Tests: {found.matched} | Verdict: {found.direction}" in expected
    assert lines[2].split(" (")[0] in expected  # slope=+0.010 intercept=0.524 r²=0.107
    for point in lines[5:8]:
        assert point in expected
    assert found.history["half"] == [0.5, 0.6666666666666666, 0.6666666666666666]
    assert found.history["none-pass"] == [0.0, None, None]


def test_regression_and_sparkline():
    assert regression([1.0, 1.0]) == (0.0, 1.0, 1.0)
    slope, intercept, r2 = regression([0.0, 0.5, 1.0])
    assert (slope, intercept, r2) == (0.5, 0.0, 1.0)
    assert sparkline([0.0, 0.5, 1.0, None]) == "▁▅█ "
    assert trend([]) is None and "two runs" in trend_lines(None)[0]


async def test_history_of_a_folder_of_runs():
    from tui_helpers import wait_for_idle

    from turnlens.tui.app import make_app
    from turnlens.tui.results.screen import StatisticsScreen

    app = make_app([str(REAL / "project" / ".agentv" / "results")], watch=False)
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_for_idle(pilot)
        await pilot.press("h")
        for _ in range(80):
            await pilot.pause(0.1)
            if isinstance(app.screen, StatisticsScreen):
                break
        assert isinstance(app.screen, StatisticsScreen)
        assert app.screen.lines[0].startswith("Runs: 6 | no test ran in every run")
        assert any(line.startswith("  half ") for line in app.screen.lines)
