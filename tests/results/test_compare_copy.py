"""`c` in the compare detail: the selection, else the side chosen with tab (or a click), else the whole pair;
sanitised like every copy."""

from __future__ import annotations

from pathlib import Path

import pytest
from tui_helpers import wait_for_idle

from turnlens.tui.app import make_app

RESULTS = Path(__file__).parents[1] / "fixtures" / "results"
WIDE = (140, 36)


@pytest.fixture(autouse=True)
def _in_results_fixtures(monkeypatch):
    monkeypatch.chdir(RESULTS)


async def test_copy_the_pair_then_one_side():
    app = make_app(["run-a.jsonl", "run-b.jsonl"], watch=False)
    async with app.run_test(size=WIDE) as pilot:
        await wait_for_idle(pilot)
        await pilot.press("enter")
        await wait_for_idle(pilot)
        await pilot.press("c")
        await wait_for_idle(pilot)
        pair = app.clipboard
        assert pair.startswith("greet-flat  loss  Δ -0.50\n\nA  run-a.jsonl\n")
        assert "Hello, Ada!" in pair and "\n\nB  run-b.jsonl\n" in pair and "Hi." in pair
        await pilot.press("tab", "tab", "c")  # side A, then side B
        await wait_for_idle(pilot)
        assert app.clipboard.startswith("B  run-b.jsonl\n") and "Hello, Ada!" not in app.clipboard
        assert "greets Ada by name" in app.clipboard
        await pilot.press("shift+tab", "c")
        await wait_for_idle(pilot)
        assert app.clipboard.startswith("A  run-a.jsonl\n") and "Hi." not in app.clipboard


async def test_copied_text_is_sanitised(tmp_path):
    a = tmp_path / "a.jsonl"
    b = tmp_path / "b.jsonl"
    a.write_text('{"eval_id": "x", "score": 1, "candidate_answer": "ok \\u001b[31mred\\u0007"}\n')
    b.write_text('{"eval_id": "x", "score": 0, "candidate_answer": "no"}\n')
    app = make_app([str(a), str(b)], watch=False)
    async with app.run_test(size=WIDE) as pilot:
        await wait_for_idle(pilot)
        await pilot.press("enter")
        await wait_for_idle(pilot)
        await pilot.press("c")
        await wait_for_idle(pilot)
        assert "\x1b" not in app.clipboard and "\x07" not in app.clipboard and "red" in app.clipboard
