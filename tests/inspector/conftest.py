"""Inspectors shared by the inspector tests that leave them as they found them: an app start costs about as much CPU
as a short test, so one app per terminal size serves every such test a worker runs. A test using one begins with
`await shared.fresh()` (tui_helpers.SharedInspector) and runs on the package's event loop
(`@pytest.mark.asyncio(loop_scope="package")`)."""

from __future__ import annotations

import pytest_asyncio
from tui_helpers import CASES, FIXTURE_REPO, WIDE, shared_inspector

from turnlens.tui.app import make_app


def _on_the_cases():
    return make_app([CASES], repo_root=str(FIXTURE_REPO), watch=False)


@pytest_asyncio.fixture(scope="package", loop_scope="package")
async def shared_wide():
    """The fixture cases at 160x48."""
    async with shared_inspector(_on_the_cases, WIDE, cwd=FIXTURE_REPO) as shared:
        yield shared


@pytest_asyncio.fixture(scope="package", loop_scope="package")
async def shared_80x24():
    """The fixture cases at 80x24."""
    async with shared_inspector(_on_the_cases, (80, 24), cwd=FIXTURE_REPO) as shared:
        yield shared
