"""Shared test fixtures: determinism for Textual apps (snapshots and Pilot tests). Generic; no app specifics."""

from __future__ import annotations

import inspect
import os

import pytest
from tui_helpers import deterministic_terminal, wait_for_idle  # tests/tui_helpers.py


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto`: two test processes per core, four more at most. A good share of the suite waits (apps settling,
    the processes and terminals the tests start), so one process per core leaves the cores idle for much of it."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return min(2 * cores, cores + 4)


@pytest.fixture(autouse=True)
def _deterministic_terminal(monkeypatch):
    deterministic_terminal(monkeypatch)


@pytest.fixture
def snap_compare(snap_compare):
    """The plugin's snap_compare, waiting for the app to be idle before and after `run_before`."""

    def compare(app, *, run_before=None, **kwargs):
        async def settle_then_run(pilot):
            await wait_for_idle(pilot)
            if run_before is not None:
                result = run_before(pilot)
                if inspect.isawaitable(result):
                    await result
                await wait_for_idle(pilot)

        return snap_compare(app, run_before=settle_then_run, **kwargs)

    return compare
