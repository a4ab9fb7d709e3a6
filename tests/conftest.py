"""Shared test fixtures: determinism for Textual apps (snapshots and Pilot tests). Generic; no app specifics."""

from __future__ import annotations

import inspect
import os
import sys

import pytest
from tui_helpers import wait_for_idle  # tests/tui_helpers.py


@pytest.fixture(autouse=True)
def _deterministic_terminal(monkeypatch):
    """Same screen everywhere: colours on, no animations, no cursor blink, no user Textual settings."""
    for name in list(os.environ):
        if name == "NO_COLOR" or (name.startswith("TEXTUAL") and not name.startswith("TEXTUAL_SNAPSHOT")):
            monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TEXTUAL_ANIMATIONS", "none")
    if "textual" not in sys.modules:
        return  # a test module that never imported Textual: keep it that way (import-hygiene tests)
    from textual.widgets import Input, TextArea

    for widget in (Input, TextArea):
        reactive = widget.__dict__.get("cursor_blink")
        if reactive is not None and hasattr(reactive, "_default"):
            monkeypatch.setattr(reactive, "_default", False)


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
