"""A followed results file wakes its look as it is written (formatting/results/wake.py), rather than at a poll's
next look: the watch, its timeout, a file replaced under its name, and the results view showing an appended row
with its polls made far too slow to be what showed it."""

from __future__ import annotations

import asyncio
import os
import sys
import threading
import time
from pathlib import Path

import pytest
from tui_helpers import wait_for_idle

from turnlens.formatting.results.wake import FileWake
from turnlens.tui.app import make_app

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify: Linux only")


def append_later(path: Path, text: str, delay: float = 0.2) -> threading.Timer:
    def write() -> None:
        with path.open("a") as handle:
            handle.write(text)

    timer = threading.Timer(delay, write)
    timer.start()
    return timer


@linux_only
def test_a_write_wakes_the_wait_at_once(tmp_path):
    path = tmp_path / "run.jsonl"
    path.write_text('{"eval_id": "a", "score": 1}\n')
    wake = FileWake()
    try:
        assert wake.watch(str(path)) and wake.watching
        started = time.monotonic()
        assert wake.wait(0.05) is False  # nothing written: the timeout
        assert time.monotonic() - started >= 0.04
        timer = append_later(path, '{"eval_id": "b", "score": 0}\n')
        started = time.monotonic()
        assert wake.wait(30) is True
        assert time.monotonic() - started < 5  # woken by the write, not by the 30 s timeout
        timer.join()
        assert wake.wait(0.01) is False  # the write's events were all read
    finally:
        wake.close()


@linux_only
def test_a_file_replaced_under_its_name_is_watched_anew(tmp_path):
    path = tmp_path / "run.jsonl"
    path.write_text("{}\n")
    wake = FileWake()
    try:
        assert wake.watch(str(path))
        other = tmp_path / "new.jsonl"
        other.write_text("{}\n")
        os.replace(other, path)
        assert wake.wait(5) is True  # the old file lost its name
        assert wake.watch(str(path))
        timer = append_later(path, "{}\n")
        assert wake.wait(30) is True
        timer.join()
    finally:
        wake.close()


def test_without_a_file_it_only_waits(tmp_path):
    wake = FileWake()
    try:
        assert not wake.watch(str(tmp_path / "missing.jsonl")) and not wake.watching
        started = time.monotonic()
        assert wake.wait(0.05) is False
        assert time.monotonic() - started >= 0.04
    finally:
        wake.close()


@linux_only
async def test_an_appended_row_is_shown_without_waiting_for_a_poll(tmp_path, monkeypatch):
    import turnlens.tui.results.loading as loading
    import turnlens.tui.results.screen as screen

    # polls far too slow to show the row within the test: only the watch can
    monkeypatch.setattr(screen, "FOLLOW_EVERY", 600.0)
    monkeypatch.setattr(loading, "FOLLOW_FALLBACK", 600.0)
    path = tmp_path / "run.jsonl"
    path.write_text('{"eval_id": "first", "score": 1}\n')
    app = make_app([str(path)], watch=True)
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_for_idle(pilot)
        view = app.screen
        assert view.run.indexed
        with path.open("a") as handle:
            handle.write('{"eval_id": "appended", "score": 0, "error": "boom"}\n')
        for _ in range(250):
            await asyncio.sleep(0.02)
            if view.run.results.count == 2:
                break
        await wait_for_idle(pilot)
        assert view.run.results.count == 2
        assert list(view.model.rows)[0] == 1  # the error row, listed first
