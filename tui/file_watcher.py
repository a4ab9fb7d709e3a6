"""Following the files a session depends on: a watch of their folders (not recursive) that posts `Changed` with the
files to reload. The host (the screen) reloads them, then calls `follow` so that the watch moves to the new set of
files and folders when the reload changed it."""

from __future__ import annotations

import asyncio
import os

from textual.dom import DOMNode
from textual.message import Message

from .session import Session

WATCH_DEBOUNCE_MS = 150
WATCH_STEP_MS = 40
WATCH_CATCH_UP = 0.3  # seconds after the watcher (re)starts: look for changes it could not see


class FileWatcher:
    """Watches in an async worker of `host` and posts `FileWatcher.Changed` to it."""

    class Changed(Message):
        """Files `numbers` changed on disk (with `rescan`: an eval file may have appeared or gone)."""

        def __init__(self, numbers: list[int], rescan: bool) -> None:
            super().__init__()
            self.numbers = numbers
            self.rescan = rescan

    def __init__(self, host: DOMNode, session: Session) -> None:
        self._host = host
        self._session = session
        self._restart: asyncio.Event | None = None
        self._watched: set[str] = set()
        self._folders: list[str] = []

    @property
    def running(self) -> bool:
        """The watch has started (changes saved since are seen, or caught up by mtime)."""
        return self._restart is not None

    def start(self) -> None:
        self._host.run_worker(self._watch(), group="watch", exclusive=True)

    def follow(self, *, rescanned: bool = False) -> None:
        """After a reload: watch the new set of files and folders if it changed (always after a rescan)."""
        if self._restart is None:
            return
        session = self._session
        if rescanned or session.watched_paths() != self._watched or sorted(session.watched_folders()) != self._folders:
            self._restart.set()

    async def _watch(self) -> None:
        from watchfiles import awatch

        session = self._session
        while True:
            self._watched = watched = session.watched_paths()
            self._folders = folders = sorted(session.watched_folders())
            if not folders:
                return
            self._restart = restart = asyncio.Event()
            # Changes saved while the watcher (re)registers its folders raise no event: compare mtimes shortly after.
            self._host.set_timer(WATCH_CATCH_UP, self._catch_up)

            def relevant(_change, path: str, _watched=watched) -> bool:
                return session.is_relevant(path, _watched)

            async for changes in awatch(
                *folders,
                stop_event=restart,
                debounce=WATCH_DEBOUNCE_MS * 4,
                step=WATCH_STEP_MS,
                recursive=False,
                watch_filter=relevant,
            ):
                paths = [path for _change, path in changes]
                known = {os.path.realpath(f.path) for f in session.files}
                rescan = any(session.is_new_candidate(p) for p in paths) or any(
                    not os.path.exists(p) and os.path.realpath(p) in known for p in paths
                )
                numbers = session.files_depending_on(paths)
                if numbers or rescan:
                    self._host.post_message(self.Changed(numbers, rescan))

    def _catch_up(self) -> None:
        numbers = self._session.changed_since_load()
        if numbers:
            self._host.post_message(self.Changed(numbers, False))
