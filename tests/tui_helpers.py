"""Helpers for the TUI tests: the fixture repo, copies of it, and selecting cases the way a user would."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import sys
import weakref
from pathlib import Path

import pytest

FIXTURE_REPO = Path(__file__).parent / "fixtures" / "tui"
CASES = FIXTURE_REPO / "cases.yaml"

WIDE = (160, 48)
NARROW = (80, 30)


def deterministic_terminal(monkeypatch) -> None:
    """Same screen everywhere: colours on, no animations, no cursor blink, no user Textual settings (every test has
    it, from conftest; an app shared by a class of tests applies it before it starts)."""
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
    patient_settling(monkeypatch)


# Textual's pilot waits at most 30 s for every widget to take a callback (run_test's start, each press and pause),
# then raises WaitForScreenTimeout. An inspector's first settle (its first frame and load, and the first app of a
# test process paying its imports) is 0.3-0.85 s of CPU, and took 7-20 s of wall time with 9 processes busy on its
# core: the CI load of ~17 on two cores passed 30 s. The tests bound their own waits; this bound only guards a hang.
SETTLE_TIMEOUT = 180.0


def patient_settling(monkeypatch) -> None:
    """Textual's pilot waits up to SETTLE_TIMEOUT for the app to settle, wherever it waits."""
    from textual.pilot import Pilot

    wait = Pilot.__dict__["_wait_for_screen"]
    if getattr(wait, "patient", False):
        return

    async def wait_for_screen(self: Pilot, timeout: float = SETTLE_TIMEOUT) -> bool:
        return await wait(self, max(timeout, SETTLE_TIMEOUT))

    wait_for_screen.patient = True
    monkeypatch.setattr(Pilot, "_wait_for_screen", wait_for_screen)


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


# Long-lived workers (file watchers) never complete; everything else is waited for before a screenshot.
LONG_LIVED_WORKER_GROUPS = {"watch"}


async def wait_for_idle(pilot, timeout: float = 10.0) -> None:
    """Let the app settle: every worker (except long-lived ones) done, messages processed, screen refreshed."""
    app = pilot.app
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        await pilot.pause()
        busy = [w for w in app.workers if w.group not in LONG_LIVED_WORKER_GROUPS and not w.is_finished]
        # The inspector's loading worker is started after the first frame (call_after_refresh): until then no
        # worker runs, yet the files after the first are still to be loaded.
        if not busy and getattr(app.screen, "loaded", True):
            break
        if loop.time() > deadline:
            raise TimeoutError(f"workers still running: {busy}")
        await asyncio.sleep(0.01)
    await pilot.pause()
    await pilot.wait_for_scheduled_animations()
    await pilot.pause()


async def run_from_palette(pilot, command: str, opener: str = "ctrl+p") -> None:
    """Run a command as a user does from the command palette: Ctrl+P (or `opener`: `colon` for the jump-to-case
    palette), its title typed, Enter; then settle."""
    await pilot.press(opener)
    await pilot.pause()
    await pilot.press(*("space" if key == " " else key for key in command))
    await wait_for_idle(pilot)  # the palette's search runs in a worker
    await pilot.press("enter")
    await wait_for_idle(pilot)


_applied_themes: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # app -> the themes it has applied


async def apply_theme(app, name: str, timeout: float = 10.0) -> None:
    """Switch the app to a theme and return once its CSS is applied (Textual publishes `theme_changed_signal` after
    refreshing the CSS): for tests that read styles, not the drawn screen, so no redraw is waited for."""
    if app.theme == name:
        return
    applied = _applied_themes.get(app)
    if applied is None:  # one subscription per app (a node's subscriptions can only be dropped all at once)
        applied = _applied_themes[app] = asyncio.Queue()
        app.theme_changed_signal.subscribe(app, applied.put_nowait)
    while not applied.empty():
        applied.get_nowait()
    app.theme = name
    while (await asyncio.wait_for(applied.get(), timeout)).name != name:
        pass


def inspector_state(app, screen) -> dict:
    """What a test of a shared inspector can change on it (screens, focus, case, toggles, filter, maximised pane,
    selection, theme): the next test starts from a fresh app's, not from what this one left."""
    return {
        "screens": [type(s).__name__ for s in app.screen_stack],
        "focused": getattr(screen.focused, "id", None),
        "case": screen.current,
        "mode": screen.mode,
        "chosen mode": screen.model.chosen_mode,
        "profile": screen.profile,
        "maximised": getattr(screen.maximized, "id", None),
        "filter": screen.query_one("#case-filter").value,
        "selected text": screen.get_selected_text(),
        "theme": app.theme,
    }


class SharedInspector:
    """One inspector for several tests that each begin with `await shared.fresh()`: back to the state the app had
    once started (the first case, the list focused, no filter, no sub-screen, nothing maximised or selected). Mode,
    profile and theme are not reset: a test that changes them changes them back, and the check says if it did not."""

    def __init__(self, pilot) -> None:
        self.pilot = pilot
        self.app = pilot.app
        self.screen = pilot.app.screen  # the inspector, on top once started
        self.start = inspector_state(pilot.app, self.screen)

    async def fresh(self):
        # The app was started in the fixture's context and each test runs in a context of its own: the pilot draws
        # from the test's task (pause() refreshes the screen), which needs the app as Textual's active one there, as
        # run_test sets it for the test that starts an app.
        from textual._context import active_app, active_message_pump

        pilot, app = self.pilot, self.app
        active_app.set(app)
        active_message_pump.set(app)
        for _ in range(5):  # sub-screens and palettes are left as a user leaves them
            if app.screen is self.screen:
                break
            await pilot.press("escape")
            await wait_for_idle(pilot)
        screen = app.screen
        if screen.maximized is not None:
            screen.minimize()
        screen.clear_selection()
        app.clear_notifications()
        box = screen.query_one("#case-filter")
        if box.value:
            box.value = ""
        await wait_for_idle(pilot)
        if self.start["case"] is not None:
            screen.select_case(self.start["case"])
        if self.start["focused"]:
            screen.query_one(f"#{self.start['focused']}").focus()
        await wait_for_idle(pilot)
        now = inspector_state(app, self.screen)
        left = {name: (now[name], was) for name, was in self.start.items() if now[name] != was}
        assert not left, f"an earlier test left the shared inspector changed (now, at start): {left}"
        return pilot


@contextlib.asynccontextmanager
async def shared_inspector(make, size, *, cwd: Path, unset: tuple[str, ...] = ()):
    """Start `make()` for the tests of a class, module or package, with the suite's determinism (conftest's autouse
    fixture runs after a wider fixture), the environment its tests have, and `cwd` as the working folder while it
    starts (then the one before again: each test sets its own)."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        deterministic_terminal(monkeypatch)
        for name in unset:
            monkeypatch.delenv(name, raising=False)
        before = os.getcwd()
        os.chdir(cwd)
        try:
            app = make()
            async with app.run_test(size=size) as pilot:
                await wait_for_idle(pilot)
                os.chdir(before)
                yield SharedInspector(pilot)
        finally:
            os.chdir(before)
