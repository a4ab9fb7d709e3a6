"""The first screen's first frame is one Textual writes to the terminal: drawn inside the app's start (a batch
update), it was dropped and the screen drawn again later (~60 ms more before anything showed)."""

from __future__ import annotations

import pytest

from turnlens.tui.app import make_app


@pytest.mark.parametrize("path", ["sample_evals/code-review.yaml", "sample_evals/.agentv/results"])
async def test_the_first_frame_of_the_first_screen_is_not_drawn_in_a_batch(path):
    app = make_app([path], watch=False)
    batches: list[int] = []
    display = app._display

    def first_frames(screen, renderable):
        if renderable is not None and screen is app.screen and screen.id != "_default":
            batches.append(app._batch_count)
        display(screen, renderable)

    app._display = first_frames
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert type(app.screen).__name__ in {"InspectorScreen", "ResultsScreen"}
    assert batches and batches[0] == 0
