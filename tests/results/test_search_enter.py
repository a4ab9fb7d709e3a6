"""One enter in a search box gives the list the focus (issue 24.21), even while the screen is still busy with the
keys typed before it: the next key goes to the list, never into the box."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
import pytest_asyncio
from textual._context import active_app, active_message_pump
from tui_helpers import deterministic_terminal, wait_for_idle

from turnlens.tui.app import make_app
from turnlens.tui.results.widgets import CompareList, ResultList, SearchBox

RESULTS = Path(__file__).parents[1] / "fixtures" / "results"
SIZE = (120, 36)
BUSY = 0.5  # seconds the screen's message queue is held, as refiltering a big run on a loaded machine holds it


@pytest.fixture(autouse=True)
def _in_results_fixtures(monkeypatch):
    monkeypatch.chdir(RESULTS)


@pytest_asyncio.fixture(scope="class", loop_scope="class")
async def shared(request):
    """One app on the class's run(s) (its RUNS) for the tests of a class; each test starts from the list as the app
    opened it (as_opened). The determinism and working folder every test of this module has, applied here: a class
    fixture starts before the function ones."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        deterministic_terminal(monkeypatch)
        monkeypatch.chdir(RESULTS)
        app = make_app(list(request.cls.RUNS), watch=False)
        async with app.run_test(size=SIZE) as pilot:
            await wait_for_idle(pilot)
            request.cls.rows_as_opened = len(app.screen.query_one(request.cls.LIST).rows)
            yield pilot


async def as_opened(pilot, list_type, rows: int) -> None:
    """Back to the list as the app opened it, and checked to be so: no search box open or holding text, the list
    focused, every row listed, the cursor on the first (what an earlier test of the class typed is gone)."""
    app = pilot.app
    # The app was started in the fixture's context; this test runs in its own, where the pilot's redraws need the app
    # as Textual's active one (as run_test sets it for the test that starts an app).
    active_app.set(app)
    active_message_pump.set(app)
    await pilot.press("escape")  # closes the search box an earlier test left open (its text goes with it)
    await wait_for_idle(pilot)
    await pilot.press("home")
    await wait_for_idle(pilot)
    listing = app.screen.query_one(list_type)
    for box in app.screen.query(SearchBox):
        assert box.value == "" and not box.has_class("-visible"), box.id
    assert app.focused is listing and listing.cursor == 0 and len(listing.rows) == rows, "not the list as opened"


async def _type_then_enter(pilot, app, opener: str, typed: str, *, busy: bool) -> None:
    await pilot.press(opener, *typed)
    await wait_for_idle(pilot)
    if busy:
        app.screen.call_later(asyncio.sleep, BUSY)  # the screen handles nothing meanwhile
    await pilot.press("enter", "j")  # j: a key typed right after enter
    await wait_for_idle(pilot)


@pytest.mark.asyncio(loop_scope="class")
class TestResultsList:
    RUNS, LIST = ("run-a.jsonl",), ResultList

    @pytest.mark.parametrize("busy", [False, True], ids=["idle", "busy"])
    @pytest.mark.parametrize(
        ("opener", "box", "typed"),
        [
            ("slash", "#results-search", "gr"),  # matches
            ("slash", "#results-search", "zzz"),  # matches nothing
            ("F", "#results-text-search", "arith"),
        ],
    )
    async def test_one_enter_reaches_the_results_list(self, shared, opener, box, typed, busy):
        pilot = shared
        app = pilot.app
        await as_opened(pilot, ResultList, self.rows_as_opened)
        await _type_then_enter(pilot, app, opener, typed, busy=busy)
        assert isinstance(app.focused, ResultList)
        assert app.screen.query_one(box).value == typed  # j went to the list, not into the box


@pytest.mark.asyncio(loop_scope="class")
class TestCompareList:
    RUNS, LIST = ("run-a.jsonl", "run-b.jsonl"), CompareList

    @pytest.mark.parametrize("busy", [False, True], ids=["idle", "busy"])
    async def test_one_enter_reaches_the_compare_list(self, shared, busy):
        pilot = shared
        app = pilot.app
        await as_opened(pilot, CompareList, self.rows_as_opened)
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
