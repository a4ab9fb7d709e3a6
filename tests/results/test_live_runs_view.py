"""Pilot tests: a folder of runs open in the app picks up a run that appears under `runs/` ({ and } reach it), and
a YAML results file that grows shows its new documents as they are written."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

from tui_helpers import wait_for_idle

from turnlens.tui.app import make_app

RESULTS = Path(__file__).parents[1] / "fixtures" / "results"
RUNS = RESULTS / "v4" / ".agentv" / "results"
WIDE = (140, 36)


async def until(pilot, condition, seconds: float = 5.0) -> None:
    for _ in range(int(seconds / 0.05)):
        if condition():
            break
        await asyncio.sleep(0.05)
    await wait_for_idle(pilot)


async def test_a_new_run_folder_is_listed_and_reached(tmp_path, monkeypatch):
    import turnlens.tui.results.screen as screen

    monkeypatch.setattr(screen, "RUNS_EVERY", 0.1)
    folder = tmp_path / "results"
    shutil.copytree(RUNS, folder)
    app = make_app([str(folder)], watch=True)
    async with app.run_test(size=WIDE) as pilot:
        await wait_for_idle(pilot)
        view = app.screen
        before = len(view.model.runs)
        assert view.run.source.name == "default/2026-06-22T09-00-00-000Z"  # the newest, on screen
        new = folder / "runs" / "default" / "2026-06-23T09-00-00-000Z"
        new.mkdir()
        source = RUNS / "runs" / "default" / "2026-06-21T09-00-00-000Z" / "index.jsonl"
        (new / "index.jsonl").write_text(source.read_text().splitlines(keepends=True)[0])
        await until(pilot, lambda: len(view.model.runs) == before + 1)
        assert len(view.model.runs) == before + 1
        # the run on screen stays; the new one is listed first (newest) and { reaches it
        assert view.run.source.name == "default/2026-06-22T09-00-00-000Z"
        assert view.model.header_state().run_position == f"run 2 of {before + 1}"
        await pilot.press("left_curly_bracket")
        await wait_for_idle(pilot)
        assert view.run.source.name == "default/2026-06-23T09-00-00-000Z" and view.run.results.count == 1
        await pilot.press("right_curly_bracket")
        await wait_for_idle(pilot)
        assert view.run.source.name == "default/2026-06-22T09-00-00-000Z"


async def test_without_watching_no_new_run_is_looked_for(tmp_path):
    folder = tmp_path / "results"
    shutil.copytree(RUNS, folder)
    app = make_app([str(folder)], watch=False)
    async with app.run_test(size=WIDE) as pilot:
        await wait_for_idle(pilot)
        assert not app.screen.loader.watching_runs


async def test_a_yaml_run_that_grows(tmp_path):
    path = tmp_path / "run.yaml"
    path.write_text("---\neval_id: first\nscore: 1\n")
    app = make_app([str(path)], watch=True)
    async with app.run_test(size=WIDE) as pilot:
        await wait_for_idle(pilot)
        results = app.screen.run.results
        assert results.eval_ids == ["first"]
        with path.open("a") as handle:
            handle.write("---\neval_id: second\nscore: 0.2\n")
        await until(pilot, lambda: results.count == 2)
        assert app.screen.run.results is results  # followed, not read again
        assert app.screen.model.header_state().stats.count == 2
        with path.open("a") as handle:  # the last document goes on being written: read again in place
            handle.write("error: timed out\n")
        await until(pilot, lambda: results.is_error(1))
        assert app.screen.run.results is results and results.is_error(1)
        assert app.screen.model.header_state().stats.errors == 1
