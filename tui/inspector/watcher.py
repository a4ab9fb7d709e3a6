"""Following the files a session depends on: a watch of their folders (not recursive) that posts `Changed` with the
files to reload. The host (the screen) reloads them, then calls `follow` so that the watch moves to the new set of
files and folders when the reload changed it."""

from __future__ import annotations

import asyncio
import os

from textual.dom import DOMNode
from textual.message import Message

from ..session import Session

WATCH_DEBOUNCE_MS = 150
WATCH_STEP_MS = 40
WATCH_CATCH_UP = 0.3  # seconds after the watcher (re)starts: look for changes it could not see
WATCH_RETRY = 2.0  # seconds between tries to watch again after a watch failed (a folder made unreadable)
WATCH_LOOK = 0.5  # seconds between looks for a watched folder that was deleted


def _failure(error: Exception, folders: list[str]) -> str:
    """ "cannot watch FOLDER: REASON" from watchfiles' error (its text names the folders: `… about ["/x"]`)."""
    reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error).split(" about ")[0]
    named = [f for f in folders if f in str(error)] or folders[:1]
    return f"cannot watch {', '.join(named)}: {reason}; the last view is kept, and the watch is tried again"


class FileWatcher:
    """Watches in an async worker of `host` and posts `FileWatcher.Changed` to it."""

    class Changed(Message):
        """Files `numbers` changed on disk (with `rescan`: an eval file may have appeared or gone)."""

        def __init__(self, numbers: list[int], rescan: bool) -> None:
            super().__init__()
            self.numbers = numbers
            self.rescan = rescan

    class Failed(Message):
        """The watch failed: `problem` says where and why."""

        def __init__(self, problem: str) -> None:
            super().__init__()
            self.problem = problem

    def __init__(self, host: DOMNode, session: Session) -> None:
        self._problem: str | None = None  # the last failure said
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
            present = [f for f in folders if os.path.isdir(f)]
            missing = [f for f in folders if f not in present]
            if missing:  # (deleted, maybe made again: looked for until they are)
                asyncio.get_running_loop().call_later(WATCH_LOOK, self._look_for, missing, restart)
            if not present:
                await restart.wait()
                continue

            def relevant(_change: object, path: str, _watched: set[str] = watched) -> bool:
                return session.is_relevant(path, _watched)

            try:
                async for changes in awatch(
                    *present,
                    stop_event=restart,
                    debounce=WATCH_DEBOUNCE_MS * 4,
                    step=WATCH_STEP_MS,
                    recursive=False,
                    watch_filter=relevant,
                ):
                    self._changed([path for _change, path in changes], present)
            except (OSError, RuntimeError) as error:  # watchfiles: PermissionError, FileNotFoundError, a failed watch
                problem = _failure(error, present)
                if problem != self._problem:  # said once, not at every try
                    self._problem = problem
                    self._host.post_message(self.Failed(problem))
                restart.set()  # (the looks for missing folders stop)
                await asyncio.sleep(WATCH_RETRY)  # the last view stays; the watch starts again (with what exists)
                continue
            self._problem = None

    def _look_for(self, missing: list[str], restart: asyncio.Event) -> None:
        """Folders watched that did not exist: once one does again, everything is caught up and watched anew."""
        if restart.is_set():
            return
        if any(os.path.isdir(f) for f in missing):
            self._host.post_message(self.Changed(list(range(len(self._session.files))), True))
            restart.set()
            return
        asyncio.get_running_loop().call_later(WATCH_LOOK, self._look_for, missing, restart)

    def _changed(self, paths: list[str], folders: list[str]) -> None:
        session = self._session
        known = {os.path.realpath(f.path) for f in session.files}
        rescan = any(session.is_new_candidate(p) or session.is_root_folder(p) for p in paths) or any(
            not os.path.exists(p) and os.path.realpath(p) in known for p in paths
        )
        numbers = session.files_depending_on(paths)
        if numbers or rescan:
            self._host.post_message(self.Changed(numbers, rescan))
        # A folder watched, or one on the way to a watched file, created or removed (an eval folder deleted and made
        # again): the watch must move to the folders that exist now, and what changed meanwhile is caught up.
        if any(os.path.isdir(p) or p in folders for p in paths) and self._restart is not None:
            self._restart.set()

    def _catch_up(self) -> None:
        numbers = self._session.changed_since_load()
        if numbers:
            self._host.post_message(self.Changed(numbers, False))
