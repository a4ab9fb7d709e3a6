"""The inspector's loads, off the event loop: the first load of a session's files, its rows again for another
profile, and reloads after an edit. Each runs in a worker thread of the host (the screen) and reports what it made
by message (`CaseLoader.Loaded`, `CaseLoader.Reloaded`); nothing here writes to the session: the host applies what
arrives, on the event loop, and tells the loader when a reload is applied (`reload_applied`), so that reloads are
made one after another, each from the state the previous one left."""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import threading
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field

from textual.dom import DOMNode
from textual.message import Message
from textual.worker import Worker, get_current_worker

from turnlens.formatting import gcpause
from turnlens.formatting.model import EvalFile

from ..loading import LoadStep, case_row, load_steps, quick_first, row_steps
from ..rows import CaseRow
from ..session import Scan, Session

# Seconds between the loading worker's messages (after the first, which is sent at once). Each message appends rows
# to the list, and so repaints its scrollbar and counts; at 0.1 s these repaints took ~0.6 s of the event loop's
# CPU (and the GIL from the loading thread) while a 50,000-test dataset was listed.
POST_EVERY = 0.5


@dataclass
class Reload:
    """What a reload made: the files found again (when it rescanned the folders opened) and, per file number in
    that list, the fresh load (None: not reloaded, only its rows remade because numbers moved) and the rows."""

    scan: Scan | None
    files: list[tuple[int, EvalFile | None, tuple[CaseRow, ...]]]
    waiting: list[asyncio.Future[None]] = field(default_factory=list)
    notes: dict[str, str | None] = field(default_factory=dict)  # path -> where the memory limit stopped its load


class CaseLoader:
    """Loads the session's files in the host's worker threads and posts what it made to the host."""

    class Loaded(Message):
        """Steps of the load (see tui/loading.py), to apply in order."""

        def __init__(self, steps: list[LoadStep], generation: int) -> None:
            super().__init__()
            self.steps = steps
            self.generation = generation  # the load (or rows pass) it belongs to: an older one is dropped

    class Reloaded(Message):
        """Files loaded again after an edit (and the folders rescanned, when asked)."""

        def __init__(self, reload: Reload) -> None:
            super().__init__()
            self.reload = reload

    def __init__(self, host: DOMNode, session: Session) -> None:
        self._host = host
        self._session = session
        self.generation = 0  # bumped when rows are remade: steps of an older pass are dropped
        self._pending: set[int] = set()
        self._pending_rescan = False
        self._pending_profile = "agentv"
        self._waiting: list[asyncio.Future[None]] = []
        self._reloading = False

    def is_current(self, message: CaseLoader.Loaded) -> bool:
        """Whether a load's step is to be applied: not one of a load stopped since, nor once the app is quitting
        (the steps queued before the quit, each taking tens of ms to apply, came before it)."""
        return message.generation == self.generation and not getattr(self._host.app, "quitting", False)

    def stop(self) -> None:
        """Stop the load in progress; what it still sends is dropped."""
        self.generation += 1
        self._host.workers.cancel_group(self._host, "load")

    # -- the first load, and the rows again

    def load_all(self, profile: str, *, first_now: bool = False) -> list[LoadStep]:
        """Load every file step by step (the first case first); restarts a load in progress. With `first_now`, the
        first step is made here and returned when it is quick (tui/loading.py's quick_first): shown before the
        screen's first frame, it spares painting the screen empty and then again with the case."""
        paths = [f.path for f in self._session.files]
        session, generation = self._session, self.generation
        workers: list[Worker[None]] = []
        quick, cut = quick_first(paths[0], session.dialect) if first_now and paths else (False, None)
        steps = load_steps(
            paths,
            repo_root=session.repo_root,
            cwd=session.cwd,
            profile=profile,
            dialect=session.dialect,
            cancelled=lambda: bool(workers) and workers[0].is_cancelled,
            first_cut=cut,
        )
        first = [step for step in itertools.islice(steps, 1)] if quick else []

        def load() -> None:
            workers.append(get_current_worker())
            in_background(lambda: self._post_steps(steps, generation))

        if first:
            # After the first frame: the worker would compete with the painting of the first case for the GIL.
            self._host.call_after_refresh(self._host.run_worker, load, thread=True, group="load", exclusive=True)
        else:
            self._host.run_worker(load, thread=True, group="load", exclusive=True)
        return first

    def remake_rows(self, profile: str) -> None:
        """The rows of every loaded file again, for another profile (their rule may differ)."""
        files = [(number, f.path, f.good) for number, f in enumerate(self._session.files)]
        generation = self.generation

        def remake() -> None:
            worker = get_current_worker()
            in_background(
                lambda: self._post_steps(
                    (
                        step
                        for number, path, good in files
                        if good is not None
                        for step in row_steps(number, path, good, profile, lambda: worker.is_cancelled)
                    ),
                    generation,
                )
            )

        self._host.run_worker(remake, thread=True, group="load", exclusive=True)

    def restart(self, profile: str, *, loaded: bool) -> None:
        """Rows for another profile: remade for what is loaded, or the load restarted (its rows were being made for
        the other profile)."""
        self.generation += 1
        if loaded:
            self.remake_rows(profile)
        else:
            self.load_all(profile)

    def _post_steps(self, steps: Iterable[LoadStep], generation: int) -> None:
        """Post the steps, the first at once, then together every POST_EVERY seconds: the list is updated once per
        message (a message per small file would redraw it hundreds of times). What was loaded so far is kept out of
        the cyclic GC's later passes (gcpause.settle_long_lived): it lives as long as the session. Between two posts
        the collector does not run on its own (gcpause.paused): the young collections the load's allocations
        triggered cost ~35% of a 50,000-test dataset's load, and found no garbage."""
        with gcpause.paused():
            self._post_steps_unpaused(steps, generation)

    def _post_steps_unpaused(self, steps: Iterable[LoadStep], generation: int) -> None:
        pending: list[LoadStep] = []
        posted = 0.0
        session = self._session
        folders: dict[str, str] = {}  # (real paths of folders, found once for the whole load)
        found: dict[int, tuple[EvalFile, int]] = {}  # file number -> its last load seen here, and its cases
        for step in steps:
            # What the step makes its file depend on, found here rather than on the event loop (see
            # Session.dependencies); a step repeating the load seen last (more rows of it) adds nothing.
            seen = found.get(step.number)
            if seen is None or seen[0] is not step.eval_file:
                since = (seen[1] if seen is not None else 0) if step.extends else None
                dependencies = session.dependencies(step.path, step.eval_file, since, folders)
                step = dataclasses.replace(step, dependencies=dependencies)
                found[step.number] = (step.eval_file, len(step.eval_file.cases))
            pending.append(step)
            if time.perf_counter() - posted >= POST_EVERY:
                gcpause.settle_long_lived()
                self._host.post_message(self.Loaded(pending, generation))
                pending, posted = [], time.perf_counter()
        if pending:
            self._host.post_message(self.Loaded(pending, generation))

    # -- reloads

    def reload(self, numbers: Iterable[int], *, profile: str, rescan: bool = False) -> Awaitable[None]:
        """Reload files `numbers` (with `rescan`, first look for eval files added to or removed from the folders
        opened). Done when the host has applied it; asked while another reload runs, it follows that one."""
        self._pending.update(numbers)
        self._pending_rescan |= rescan
        self._pending_profile = profile
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting.append(done)
        if not self._reloading:
            self._start_reload()
        return done

    def reload_applied(self, reload: Reload) -> None:
        """The host applied `reload`: the next one (asked meanwhile) starts from there."""
        for done in reload.waiting:
            if not done.done():
                done.set_result(None)
        self._reloading = False
        if self._waiting:
            self._start_reload()

    def _start_reload(self) -> None:
        numbers, rescan, profile = sorted(self._pending), self._pending_rescan, self._pending_profile
        waiting, self._waiting = self._waiting, []
        self._pending, self._pending_rescan = set(), False
        self._reloading = True
        gcpause.release_long_lived()
        session = self._session

        def reload() -> None:
            def made() -> None:
                done = reload_files(session, numbers, profile=profile, rescan=rescan)
                done.waiting = waiting
                self._host.post_message(self.Reloaded(done))

            in_background(made)

        self._host.run_worker(reload, thread=True, group="reload")


CANCEL_CHECK = 0.05  # seconds between a worker's looks at whether it was cancelled (the app quitting)


def in_background(work: Callable[[], None]) -> None:
    """Run `work` for the current (thread) worker in a daemon thread, and return when it is done or the worker is
    cancelled. Quitting cancels the workers and then waits for their threads; a load can be in a step that takes
    seconds (reading and cutting a 50 MB file, loading a big file that cannot be cut) and checks for it only between
    steps: the worker returns at once and the daemon thread, which only posts messages, ends with the process (or
    at its next check). An exception in `work` is raised here, as if `work` ran here."""
    worker = get_current_worker()
    done = threading.Event()
    failed: list[BaseException] = []

    def run() -> None:
        try:
            work()
        except BaseException as exc:  # handed to the worker, which reports it as Textual does
            failed.append(exc)
        finally:
            done.set()

    threading.Thread(target=run, name=f"turnlens-{worker.group}", daemon=True).start()
    while not done.wait(CANCEL_CHECK):
        if worker.is_cancelled:
            return
    if failed:
        raise failed[0]


def reload_files(session: Session, numbers: list[int], *, profile: str, rescan: bool) -> Reload:
    """Load files `numbers` again and make their rows, without changing the session (safe in a worker thread).
    With `rescan`, the folders opened are searched again first: new files are loaded too, and the rows of the
    others are made again (numbers may have moved, and the rows' keys with them)."""
    paths = {session.files[n].path for n in numbers if n < len(session.files)}
    scan = session.scan() if rescan else None
    files = scan.files if scan is not None else session.files

    def rows_of(number: int, eval_file: EvalFile | None) -> tuple[CaseRow, ...]:
        if eval_file is None or eval_file.error is not None:
            return ()
        return tuple(case_row(f"{number}:{c.index}", eval_file, c.index, profile) for c in eval_file.cases)

    out: list[tuple[int, EvalFile | None, tuple[CaseRow, ...]]] = []
    notes: dict[str, str | None] = {}
    # Files the first load never reached because memory passed the limit stay unloaded (the banner says so).
    stopped = bool(session.stop_notes)
    for number, loaded in enumerate(files):
        if loaded.path in paths or (loaded.generation == 0 and not stopped):
            eval_file, notes[loaded.path] = session.reload_path(loaded.path)
            # A refused file keeps showing its last good version (and its rows).
            shown = loaded.good if eval_file.error is not None else eval_file
            out.append((number, eval_file, rows_of(number, shown)))
        elif scan is not None:
            out.append((number, None, rows_of(number, loaded.good)))
    return Reload(scan, out, notes=notes)
