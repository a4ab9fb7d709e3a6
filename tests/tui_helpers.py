"""Helpers for the TUI tests: the fixture repo, copies of it, and selecting cases the way a user would."""

from __future__ import annotations

import shutil
from pathlib import Path

FIXTURE_REPO = Path(__file__).parent / "fixtures" / "tui"
CASES = FIXTURE_REPO / "cases.yaml"

WIDE = (160, 48)
NARROW = (80, 30)


def copy_fixture_repo(tmp_path: Path) -> Path:
    """A private copy of the fixture repo (for tests that edit files)."""
    target = tmp_path / "repo"
    shutil.copytree(FIXTURE_REPO, target)
    return target


def key_for(screen, case_id: str) -> str:
    for key in screen.session.case_keys():
        found = screen.session.case(key)
        if found and found[1].id == case_id:
            return key
    raise KeyError(case_id)


async def select(pilot, case_id: str) -> None:
    """Highlight a case in the list (as clicking it would)."""
    screen = pilot.app.screen
    screen.select_case(key_for(screen, case_id))
    await pilot.pause()
