"""One enter in a search box gives the list the focus (issue 24.21), even while the screen is still busy with the
keys typed before it: the next key goes to the list, never into the box."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from tui_helpers import wait_for_idle

from turnlens.tui.app import make_app

RESULTS = Path(__file__).parents[1] / "fixtures" / "results"
SIZE = (120, 36)
BUSY = 0.5  # seconds the screen's message queue is held, as refiltering a big run on a loaded machine holds it


@pytest.fixture(autouse=True)
def _in_results_fixtures(monkeypatch):
    monkeypatch.chdir(RESULTS)


async def _type_then_enter(pilot, app, opener: str, typed: str, *, busy: bool) -> None:
    await pilot.press(opener, *typed)
    await wait_for_idle(pilot)
    if busy:
        app.screen.call_later(asyncio.sleep, BUSY)  # the screen handles nothing meanwhile
    await pilot.press("enter", "j")  # j: a key typed right after enter
    await wait_for_idle(pilot)


@pytest.mark.parametrize("busy", [False, True], ids=["idle", "busy"])
@pytest.mark.parametrize(
    ("opener", "box", "typed"),
    [
        ("slash", "#results-search", "gr"),  # matches
        ("slash", "#results-search", "zzz"),  # matches nothing
        ("F", "#results-text-search", "arith"),
    ],
)
async def test_one_enter_reaches_the_results_list(opener, box, typed, busy):
    from turnlens.tui.results.widgets import ResultList

    app = make_app(["run-a.jsonl"], watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_idle(pilot)
        await _type_then_enter(pilot, app, opener, typed, busy=busy)
        assert isinstance(app.focused, ResultList)
        assert app.screen.query_one(box).value == typed  # j went to the list, not into the box


@pytest.mark.parametrize("busy", [False, True], ids=["idle", "busy"])
async def test_one_enter_reaches_the_compare_list(busy):
    from turnlens.tui.results.widgets import CompareList

    app = make_app(["run-a.jsonl", "run-b.jsonl"], watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_idle(pilot)
        await _type_then_enter(pilot, app, "slash", "gr", busy=busy)
        assert isinstance(app.focused, CompareList)
        assert app.screen.query_one("#results-search").value == "gr"


async def test_a_second_enter_opens_the_result():
    app = make_app(["run-a.jsonl"], watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_idle(pilot)
        await pilot.press("slash", *"chat", "enter", "enter")
        await wait_for_idle(pilot)
        assert type(app.screen).__name__ == "ResultDetailScreen"
        assert app.screen.record.eval_id == "chat-history"
