"""A run folder's benchmark.json in the app: one line in the results header, every figure with `b`."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static
from tui_helpers import wait_for_idle

from turnlens.tui.app import make_app

RUNS = Path(__file__).parents[1] / "fixtures" / "results" / "v4" / ".agentv" / "results" / "runs" / "default"
WIDE = (140, 36)


async def test_header_line_and_summary_screen():
    app = make_app([str(RUNS / "2026-06-21T09-00-00-000Z")], watch=False)
    async with app.run_test(size=WIDE) as pilot:
        await wait_for_idle(pilot)
        from turnlens.tui.results.widgets import ResultsHeader, header_text

        state = app.screen.query_one(ResultsHeader).state
        assert state.benchmark == "azure-gpt-4o: pass_rate 60%, 7.87 s, 1,455 tokens"
        assert "benchmark azure-gpt-4o: pass_rate 60%" in header_text(state).plain.splitlines()[0]
        await pilot.press("b")
        await wait_for_idle(pilot)
        from turnlens.tui.results.screen import RunSummaryScreen

        assert isinstance(app.screen, RunSummaryScreen)
        text = str(app.screen.query_one(Static).render())
        assert "run summary (per target)" in text and "pass_rate: 60%" in text
        await pilot.press("escape")
        await wait_for_idle(pilot)
        assert not isinstance(app.screen, RunSummaryScreen)


async def test_a_run_without_one_says_so():
    app = make_app([str(RUNS / "2026-06-22T09-00-00-000Z")], watch=False)  # still being written
    async with app.run_test(size=WIDE) as pilot:
        await wait_for_idle(pilot)
        from turnlens.tui.results.widgets import ResultsHeader

        assert app.screen.query_one(ResultsHeader).state.benchmark == ""
        await pilot.press("b")
        await wait_for_idle(pilot)
        assert any("No benchmark.json for this run" in str(n.message) for n in app._notifications)
