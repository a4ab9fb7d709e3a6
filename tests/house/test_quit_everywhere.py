"""One key map: `q` quits turnlens from every screen and box (esc goes back or closes), and every screen's table says so
in its footer, its help and its palette. The results detail took `q` for back, the compare view for back when opened
from a run list, the grading and profile-diff screens and every box over a screen for close."""

from __future__ import annotations

from pathlib import Path

import pytest
from tui_helpers import CASES, FIXTURE_REPO, wait_for_idle

from turnlens.tui.actions import Action, bindings, help_sections, palette_entries
from turnlens.tui.app import make_app

RESULTS = Path(__file__).parents[1] / "fixtures" / "results"
SIZE = (140, 36)


def _tables() -> dict[str, tuple[Action, ...]]:
    from turnlens.tui.inspector.diff import ChangesScreen
    from turnlens.tui.inspector.grading import GRADING_ACTIONS
    from turnlens.tui.inspector.screen import INSPECTOR_ACTIONS
    from turnlens.tui.results.keys import COMPARE_ACTIONS, DETAIL_ACTIONS, PAIR_ACTIONS, RESULTS_ACTIONS
    from turnlens.tui.screens import ProfileDiffScreen

    return {
        "inspector": INSPECTOR_ACTIONS,
        "grading": GRADING_ACTIONS,
        "profile diff": ProfileDiffScreen.ACTIONS,
        "changes": ChangesScreen.ACTIONS,
        "results": RESULTS_ACTIONS,
        "compare": COMPARE_ACTIONS,
        "detail": DETAIL_ACTIONS,
        "pair": PAIR_ACTIONS,
    }


@pytest.mark.parametrize("name", list(_tables()))
def test_every_table_has_q_quit_in_its_footer_help_and_palette(name):
    table = _tables()[name]
    q_rows = [row for row in table if "q" in row.keys.split(",")]
    assert [(row.action, row.footer) for row in q_rows] == [("app.quit", "Quit")], name
    assert any(b.key == "q" and b.action == "app.quit" and b.show for b in bindings(table))  # type: ignore[union-attr]
    assert ("q", "Quit turnlens.") in [row for _, rows in help_sections(table) for row in rows]
    assert any(action == "app.quit" and title == "Quit" for title, _, action in palette_entries(table))
    escape = [row.action for row in table if "escape" in row.keys.split(",")]
    assert "app.quit" not in escape  # esc goes back (or clears), never quits by itself


@pytest.mark.parametrize("name", list(_tables()))
def test_every_action_with_a_key_is_in_the_palette(name):
    """Keyboard first: every action a key runs has a palette entry too (the inspector's pane keys 1-5 and 0, esc's
    clear and back, the pair's tab and shift+tab had none); the palette's own key is the exception."""
    missing = [
        (row.keys, row.action)
        for row in _tables()[name]
        if row.keys and row.action and not row.title and row.action != "app.command_palette"
    ]
    assert not missing, missing


def test_every_box_over_a_screen_quits_on_q_and_closes_on_esc():
    from turnlens.tui.results.screen import (
        ChoiceScreen,
        RunSummaryScreen,
        StatisticsScreen,
        TargetsScreen,
        TextBoxScreen,
    )
    from turnlens.tui.screens import HelpScreen

    for box in (HelpScreen, ChoiceScreen, TextBoxScreen, RunSummaryScreen, StatisticsScreen, TargetsScreen):
        actions = {key: b.action for b in box.BINDINGS for key in b.key.split(",")}  # type: ignore[union-attr]
        assert actions["q"] == "app.quit", box
        assert actions["escape"].startswith("dismiss"), box


async def _quits_on_q(app, keys: tuple[str, ...], screen_name: str) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_idle(pilot)
        for key in keys:
            await pilot.press(key)
            await wait_for_idle(pilot)
        assert type(app.screen).__name__ == screen_name
        await pilot.press("q")
        await pilot.pause()
        assert app.quitting, f"q on {screen_name} did not quit"


@pytest.mark.parametrize(
    ("paths", "keys", "screen_name"),
    [
        (("run-a.jsonl",), ("enter",), "ResultDetailScreen"),
        (("run-a.jsonl",), ("enter", "question_mark"), "HelpScreen"),
        (("run-a.jsonl",), ("percent_sign",), "StatisticsScreen"),
        (("run-a.jsonl", "run-b.jsonl"), (), "CompareScreen"),
        (("run-a.jsonl", "run-b.jsonl"), ("enter",), "CompareDetailScreen"),
    ],
    ids=["result", "help over a result", "statistics", "compare", "pair"],
)
async def test_q_quits_from_every_results_screen(paths, keys, screen_name, monkeypatch):
    monkeypatch.chdir(RESULTS)
    await _quits_on_q(make_app(list(paths), watch=False), keys, screen_name)


async def test_q_quits_a_compare_view_opened_from_a_run_list(monkeypatch):
    """It went back to the run list: esc does that."""
    from turnlens.tui.results.compare import CompareScreen

    monkeypatch.chdir(RESULTS)
    app = make_app(["run-a.jsonl"], watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_idle(pilot)
        app.push_screen(CompareScreen(["run-a.jsonl", "run-b.jsonl"], closable=True))
        await wait_for_idle(pilot)
        await pilot.press("escape")
        await wait_for_idle(pilot)
        assert type(app.screen).__name__ == "ResultsScreen" and not app.quitting
        app.push_screen(CompareScreen(["run-a.jsonl", "run-b.jsonl"], closable=True))
        await wait_for_idle(pilot)
        await pilot.press("q")
        await pilot.pause()
        assert app.quitting


@pytest.mark.parametrize(
    ("keys", "screen_name"),
    [(("e",), "GradingScreen"), (("d",), "ProfileDiffScreen"), (("e", "question_mark"), "HelpScreen")],
    ids=["grading", "profile diff", "help over grading"],
)
async def test_q_quits_from_the_inspectors_sub_screens(keys, screen_name, monkeypatch):
    monkeypatch.chdir(FIXTURE_REPO)
    app = make_app([CASES], repo_root=str(FIXTURE_REPO), watch=False)
    await _quits_on_q(app, ("down", "down", *keys), screen_name)


async def test_q_is_handled_as_it_arrives_and_typed_into_a_text_box(monkeypatch):
    """q quits at the app's first look at the key: it no longer waits for the focused widget and its parents to pass
    it up. In a search box, the palette's or the list's filter, it is a letter."""
    monkeypatch.chdir(FIXTURE_REPO)
    app = make_app([CASES], repo_root=str(FIXTURE_REPO), watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_idle(pilot)
        await pilot.press("slash", "q")
        await wait_for_idle(pilot)
        assert not app.quitting
        assert app.focused is not None and getattr(app.focused, "value", None) == "q"
        await pilot.press("escape", "escape")
        await wait_for_idle(pilot)
        await pilot.press("ctrl+p", "q")
        await wait_for_idle(pilot)
        assert not app.quitting and type(app.screen).__name__ == "BoundedPalette"
        await pilot.press("escape")
        await wait_for_idle(pilot)
        from turnlens.tui.textual_compat import FooterKey

        shown = [key.key for key in app.screen.query(FooterKey) if key.display]
        assert "q" in shown  # the screen's own q, in its footer
        await pilot.press("q")
        await pilot.pause()
        assert app.quitting


def _type_ahead(app, keys: str) -> None:
    """`keys` as they arrive when typed fast (or with the event loop busy): every one queued before the first is
    handled, as pilot.press, which waits after each key, never does."""
    from textual import events

    for char in keys:
        app.post_message(events.Key("slash" if char == "/" else char, char))


@pytest.mark.parametrize(
    ("paths", "keys", "box"),
    [
        ((CASES,), "/faq", "#case-filter"),
        ((str(RESULTS / "run-a.jsonl"),), "/s-q", "#results-search"),
        ((str(RESULTS / "run-a.jsonl"),), "Fsq", "#results-text-search"),
        ((str(RESULTS / "run-a.jsonl"), str(RESULTS / "run-b.jsonl")), "/s-q", "#results-search"),
    ],
    ids=["inspector", "results", "results full text", "compare"],
)
async def test_what_is_typed_straight_after_a_search_key_goes_into_the_box(paths, keys, box, monkeypatch):
    """Textual sends a key to the widget focused when the key arrives: the keys typed after / went to the list
    before the box had the focus (s sorted, - lowered the threshold, q quit)."""
    monkeypatch.chdir(FIXTURE_REPO)
    app = make_app(list(paths), repo_root=str(FIXTURE_REPO), watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_idle(pilot)
        _type_ahead(app, keys)
        await wait_for_idle(pilot)
        assert not app.quitting
        assert app.screen.query_one(box).value == keys[1:]  # type: ignore[attr-defined]
