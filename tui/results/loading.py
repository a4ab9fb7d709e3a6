"""What reads the runs of a results screen, off the event loop: indexing a run (or both runs compared), following the
run on screen as it grows, new runs appearing in a folder of runs, sorting a big run, searching its full text and
checking its drift. Each job runs in a worker thread of the host (the screen) and reports by message
(messages.py); nothing here writes to a run or to the view model: the host applies what arrives, on the event loop.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from textual.dom import DOMNode
from textual.message import Message
from textual.worker import get_current_worker

from turnlens.formatting.cancel import Cancelled
from turnlens.formatting.evals.files import display_path
from turnlens.formatting.results.discover import RunWatcher
from turnlens.formatting.results.index import ScanProgress

from .messages import Compared, DriftChecked, Followed, IndexProgressed, RowsSelected, RunsAppeared, TextFound
from .model import DRIFT_CODES, DRIFT_OTHER, Run, Selection, select_rows

if TYPE_CHECKING:  # (imported in the follow thread)
    from turnlens.formatting.results.wake import FileWake

DRIFT_REPORT_EVERY = 0.25  # seconds between drift progress messages
# seconds between index progress messages: each redraws the header (and may re-sort), in the UI thread, which holds
# the GIL the index worker needs
INDEX_REPORT_EVERY = 0.2
# seconds between looks at a followed file that is watched (wake.py: a write wakes the look at once): for what a
# watch on the file cannot see, such as another file renamed over it
FOLLOW_FALLBACK = 1.0


class RunLoader:
    """Runs the results view's reading jobs in the host's worker threads; `stop` ends them (the host unmounted)."""

    def __init__(self, host: DOMNode) -> None:
        self._host = host
        self.stop = threading.Event()
        self._following = False  # a change to the current run's file waits for the host to apply it
        self._looking_for_runs = False
        self._watcher: RunWatcher | None = None  # over the folder of runs opened

    def _run(self, job: Callable[[], None], group: str, *, exclusive: bool = False) -> None:
        self._host.run_worker(job, thread=True, group=group, exclusive=exclusive)

    def _post(self, message: Message) -> None:
        self._host.post_message(message)

    def close(self) -> None:
        self.stop.set()

    # -- indexing --------------------------------------------------------------------------------------------

    def first_batch(self, run: Run) -> tuple[ScanProgress | None, Iterator[ScanProgress]]:
        """The first batch of `run`'s index, read at once (so that it is on the very first frame), and the scan
        that `index_rest` resumes."""
        scan = run.results.scan(batch_seconds=INDEX_REPORT_EVERY, stop=self.stop)
        return next(scan, None), scan

    def index_rest(self, run: Run, scan: Iterator[ScanProgress]) -> None:
        def index() -> None:
            worker = get_current_worker()
            for progress in scan:
                if worker.is_cancelled:  # q: the scan (and its worker processes) ends now, not once the screen closes
                    self.stop.set()
                self._post(IndexProgressed(run, progress))

        self._run(index, "index")

    def index_pair(
        self, a: Run, b: Run, delta: float | None = None, target_a: str | None = None, target_b: str | None = None
    ) -> None:
        """Index both runs, then pair them as agentv compare does (Compared)."""

        def index() -> None:
            from turnlens.formatting.results.compare import compare_runs

            for run in (a, b):
                for progress in run.results.scan(batch_seconds=0.25, stop=self.stop):
                    self._post(IndexProgressed(run, progress))
                if self.stop.is_set():
                    return
            self._post(Compared(compare_runs(a.results, b.results, delta, target_a, target_b)))

        self._run(index, "index")

    # -- following -------------------------------------------------------------------------------------------

    def follow_every(self, seconds: float, current: Callable[[], Run | None]) -> None:
        """Follow the file of the run on screen (`current()`) until `stop`, in a thread of its own: a row appended
        shows at once, and an idle view costs one stat a second.

        Each turn of the loop waits, then looks:
        - it waits until the file watched is written to (formatting/results/wake.py) or a timeout passes: `seconds`
          when a look is owed or no file is watched (inotify missing or refused: the loop is then a poll), else
          FOLLOW_FALLBACK (the fallback look, for what a watch cannot see: another file renamed over this one);
        - it looks (`_look`) unless the host is still applying the last change (until `followed`) or the run is
          still being indexed; the look is then owed, and the next wait short.
        A look is owed by a write that woke the loop and by a new watch (a write made before it is unseen). The file
        watched is the run on screen's (another run chosen, a file replaced under its name: watched anew).
        """

        def follow() -> None:
            from turnlens.formatting.results.wake import FileWake

            wake = FileWake()
            owed = True  # the first look
            try:
                while not self.stop.is_set():
                    run = current()
                    if run is not None and wake.path != run.path:  # another run on screen, or none watched yet
                        owed = wake.watch(run.path) or owed
                    if wake.wait(seconds if owed or not wake.watching else FOLLOW_FALLBACK):
                        owed = True
                    if self.stop.is_set():
                        return
                    run = current()
                    if run is not None and not self._following and run.indexed:
                        owed = False
                        self._look(run, wake)
            finally:
                wake.close()

        # a thread of its own rather than a worker of the host's: it lasts as long as the screen (workers are
        # what the screen waits on to be idle)
        threading.Thread(target=follow, name="turnlens-follow", daemon=True).start()

    def _look(self, run: Run, wake: FileWake) -> None:
        """Index what was appended to `run`'s file (one stat when nothing was) and post Followed when anything
        changed; a file replaced under its name is watched anew (none there: the loop polls)."""
        before = run.results.count
        try:
            outcome = run.results.follow()
        except (OSError, ValueError):
            outcome = "replaced"
        if outcome == "replaced":
            wake.watch(run.path)
        if outcome != "same":
            self._following = True
            self._post(Followed(run, outcome, run.results.count - before))

    def followed(self) -> None:
        """The host applied a Followed: the next look may start."""
        self._following = False

    def watch_runs(self, folder: str, known: list[str]) -> None:
        """Look for runs appearing under `folder` (a folder of runs) on `look_for_runs`."""
        self._watcher = RunWatcher(folder, known)

    @property
    def watching_runs(self) -> bool:
        return self._watcher is not None

    def look_for_runs(self) -> None:
        watcher = self._watcher
        if watcher is None or self._looking_for_runs:
            return
        self._looking_for_runs = True

        def poll() -> None:
            try:
                found = watcher.poll()
            except OSError:
                found = []
            self._post(RunsAppeared(found))

        self._run(poll, "runs")

    def runs_looked(self) -> None:
        """The host applied a RunsAppeared: the next look may start."""
        self._looking_for_runs = False

    # -- sorting, searching, drift ---------------------------------------------------------------------------

    def select(self, selection: Selection) -> None:
        """The rows of `selection` (RowsSelected); a newer request cancels an older one still running."""
        self._run(lambda: self._post(RowsSelected(selection, select_rows(selection))), "select", exclusive=True)

    def find_text(self, run: Run, needle: str) -> None:
        def find() -> None:
            mask = run.results.find_text(needle, stop=self.stop)
            if mask is not None:
                self._post(TextFound(run, needle, mask))

        self._run(find, "text-search", exclusive=True)

    def check_drift(self, run: Run, marks: bytearray, checker: Any) -> None:
        """Check the drift of every record `marks` has room for; DriftChecked reports the codes in chunks (the
        host writes them into `marks`)."""

        def check() -> None:
            worker = get_current_worker()
            try:  # (the eval files under a results file's folder: a walk of seconds in a big one, which q stops)
                eval_paths = checker.find_eval_paths(lambda: self.stop.is_set() or worker.is_cancelled)
            except Cancelled:
                return
            if not eval_paths:
                note = f"no eval files found under {display_path(checker.root)}"
                self._post(DriftChecked(run, marks, 0, b"", {}, True, note))
                return
            counts = {"drifted": 0, "equal": 0, "eval not found": 0, "other": 0}
            start, codes = 0, bytearray()
            last = time.monotonic()
            for index in range(len(marks)):
                if self.stop.is_set():
                    return
                try:
                    status = checker.check(run.results.record(index)).status
                except Exception:  # an engine failure on one case must not stop the others
                    status = "other"
                codes.append(DRIFT_CODES.get(status, DRIFT_OTHER))
                counts[status if status in counts else "other"] += 1
                if time.monotonic() - last > DRIFT_REPORT_EVERY:
                    last = time.monotonic()
                    self._post(DriftChecked(run, marks, start, bytes(codes), dict(counts), False))
                    start, codes = index + 1, bytearray()
            self._post(DriftChecked(run, marks, start, bytes(codes), dict(counts), True))

        self._run(check, "drift")
