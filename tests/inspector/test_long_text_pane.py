"""A pane showing a very long text (a big attachment in the question): what is on screen is wrapped at once, the rest
in steps between events, so that keys (q above all) are never held behind one long wrap. The prerender wraps only a
screenful ahead."""

from __future__ import annotations

import pytest
from tui_helpers import wait_for_idle

from turnlens.tui.app import make_app
from turnlens.tui.inspector.views import PRERENDER_ROWS
from turnlens.tui.widgets import pane as pane_module
from turnlens.tui.widgets.pane import LAYOUT_STEP_SECONDS, ROWS_PER_LAYOUT_STEP, Pane
from turnlens.tui.widgets.textlayout import RowLayout

LINE = "A line of the attached log, long enough to wrap in a narrow pane: 0123456789 abcdefghij.\n"


CHUNKS_PER_STEP = 3


@pytest.fixture
def step_clock(monkeypatch):
    """The pane's clock, advanced by a fraction of a step's time at each look: every step wraps CHUNKS_PER_STEP times
    ROWS_PER_LAYOUT_STEP rows, however fast this machine wraps them."""
    now = [0.0]

    def monotonic() -> float:
        now[0] += LAYOUT_STEP_SECONDS / (CHUNKS_PER_STEP + 0.5)
        return now[0]

    monkeypatch.setattr(pane_module, "monotonic", monotonic)


def _attached(tmp_path, lines: int):
    (tmp_path / ".git").mkdir()
    (tmp_path / "big.log").write_text(LINE * lines, encoding="utf-8")
    (tmp_path / "a.eval.yaml").write_text(
        "tests:\n  - id: attached\n    criteria: Reads the log.\n    input:\n      - role: user\n"
        "        content:\n          - {type: file, value: big.log}\n          - {type: text, value: Summarise it.}\n",
        encoding="utf-8",
    )
    return make_app([tmp_path / "a.eval.yaml"], repo_root=str(tmp_path), watch=False)


async def test_a_long_question_is_wrapped_in_steps(tmp_path, monkeypatch, step_clock):
    """Each step wraps for its time (LAYOUT_STEP_SECONDS), a chunk of rows at a time: a fixed small count per step made
    a 20 MB text's steps cost far more than its wrap."""
    steps: list[int] = []
    finish_layout = Pane._finish_layout

    def counted(pane, layout):
        before = len(layout.rows)
        finish_layout(pane, layout)
        if pane.id == "question":
            steps.append(len(layout.rows) - before)

    monkeypatch.setattr(Pane, "_finish_layout", counted)
    app = _attached(tmp_path, 30_000)  # about 60,000 rows in the question pane at this size
    async with app.run_test(size=(200, 50)) as pilot:
        pane = app.screen.query_one("#question", Pane)
        while pane.content.text.plain.count("\n") < 30_000:
            await pilot.pause()
        width = pane.content_width
        layout = pane.content.layout(width)
        # the screenful and what the prerender wrapped ahead, not the whole text
        assert len(layout.rows) < PRERENDER_ROWS + 2 * ROWS_PER_LAYOUT_STEP
        while not layout.done:
            await pilot.pause()
        await wait_for_idle(pilot)
        assert len(steps) > 5  # a step ends when its time is up: within a line's rows of its last chunk
        assert max(steps) <= CHUNKS_PER_STEP * (ROWS_PER_LAYOUT_STEP + 2)
        assert max(steps) > ROWS_PER_LAYOUT_STEP
        expected = RowLayout(pane.content.styled, width).finish()
        assert layout.rows == expected
        assert pane.virtual_size.height == len(expected)  # the scrollbar's estimate gave way to the true height


async def test_the_end_of_a_long_question_comes_with_the_steps(tmp_path, step_clock):
    """End on a long text that is still being wrapped: the rows there are not wrapped at once (that held the event
    loop, and q, for seconds on a 20 MB attachment); they are drawn once the steps reach them, and once every row is
    wrapped the pane is at the true end (not where the scrollbar's estimate ended), without a second End."""
    app = _attached(tmp_path, 30_000)
    async with app.run_test(size=(200, 50)) as pilot:
        pane = app.screen.query_one("#question", Pane)
        while pane.content.text.plain.count("\n") < 30_000:
            await pilot.pause()
        layout = pane.content.layout(pane.content_width)
        pane.focus()
        pane.scroll_end(animate=False, immediate=True)
        rows = range(pane.scrollable_content_region.height)
        strips = [pane.render_line(y) for y in rows]
        assert not layout.done and len(layout.rows) < pane.scroll_offset.y  # not wrapped up to the end at once
        assert all(not strip.text.strip() for strip in strips)  # blank until the steps come there
        while not layout.done:
            await pilot.pause()
        await wait_for_idle(pilot)
        assert pane.scroll_offset.y == pane.max_scroll_y > 0
        assert "Summarise it." in "".join(pane.render_line(y).text for y in rows)
