"""`turnlens diff` as a view in the app: the changed tests listed, their causes named, fields side by side."""

from __future__ import annotations

from pathlib import Path

import pytest
from git_helpers import make_sample_repo  # tests/git_helpers.py
from textual.widgets import OptionList, Static
from tui_helpers import wait_for_idle  # tests/tui_helpers.py

from turnlens.tui.app import TurnlensApp, make_app
from turnlens.tui.inspector.diff import ChangesScreen
from turnlens.tui.widgets.pane import Pane

GUIDELINE = "prompts/code-review.instructions.md"


@pytest.fixture
def sample_repo(tmp_path: Path) -> Path:
    return make_sample_repo(tmp_path)


async def test_the_view_lists_the_changed_tests_with_their_causes(sample_repo: Path):
    with open(sample_repo / GUIDELINE, "a") as f:
        f.write("\nAlways name the line.\n")
    app = TurnlensApp(lambda: ChangesScreen([], str(sample_repo)))
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for_idle(pilot, timeout=120)
        screen = app.screen
        assert isinstance(screen, ChangesScreen) and screen.diff is not None
        options = screen.query_one("#changes-list", OptionList)
        assert options.option_count == len(screen.diff.changed) == 8
        causes = str(screen.query_one("#changes-causes", Static).render())
        assert "because: prompts/code-review.instructions.md (attachment, modified)" in causes
        after = screen.query_one("#changes-after", Pane)
        assert "+ Always name the line." in after.copy_text or "Always name the line." in after.copy_text
        names = [str(screen.query_one(f"#changes-{side}", Pane).border_subtitle) for side in ("before", "after")]
        field = screen.diff.changed[0].fields[0].name
        assert names == [f"{field} · HEAD", f"{field} · working tree"]
        # at 80 columns the panes are too narrow for both: the field alone (it was cut to `lm.question · …`)
        await pilot.resize_terminal(80, 24)
        await wait_for_idle(pilot)
        assert [str(screen.query_one(f"#changes-{side}", Pane).border_subtitle) for side in ("before", "after")] == [
            field,
            field,
        ]
        title = str(screen.query_one("#screen-title", Static).render())
        assert title.rstrip().endswith("eval files).") and "…" not in title  # the status whole, on two rows
        await pilot.resize_terminal(140, 40)
        await wait_for_idle(pilot)
        first_field = screen.field_index
        await pilot.press("f")
        assert screen.field_index == first_field + 1
        await pilot.press("down")
        assert screen.field_index == 0  # a new test starts on its first field
        await pilot.press("q")
    assert app.return_code in (0, None)


async def test_outside_a_repository_the_view_says_so(tmp_path: Path):
    app = TurnlensApp(lambda: ChangesScreen([], str(tmp_path)))
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_for_idle(pilot, timeout=60)
        title = str(app.screen.query_one("#screen-title", Static).render())
        assert "not inside a git repository" in title


async def test_the_inspector_opens_it_on_its_own_files(sample_repo: Path, monkeypatch):
    monkeypatch.chdir(sample_repo)
    with open(sample_repo / "fixtures/code/retry.ts", "a") as f:
        f.write("// and one more line\n")
    app = make_app([str(sample_repo / "evals")], watch=False)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for_idle(pilot, timeout=60)
        await pilot.press("D")
        await wait_for_idle(pilot, timeout=120)
        screen = app.screen
        assert isinstance(screen, ChangesScreen) and screen.diff is not None
        assert screen.diff.changed and all(c.file.startswith("evals/") for c in screen.diff.changed)
        assert {c.causes[0].file for c in screen.diff.changed} == {"fixtures/code/retry.ts"}
        await pilot.press("escape")
        assert not isinstance(app.screen, ChangesScreen)
