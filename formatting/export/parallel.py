"""Exporting a big eval file on every core: the `evalcases` block is cut at case boundaries and each slice is
parsed, loaded and formatted in a forked worker, which then writes its own part of the output when told to
(DeferredSlices): only small summaries travel between processes. The last slice is worked by the exporting process
itself, which would otherwise only wait.

Where a file is cut, and what a slice's text is, is evals/slices.py's; a file it will not cut is exported in one
process.
"""

from __future__ import annotations

import gc
import marshal  # the summaries: plain data, and built in (pickle would be one more import before the fork)
import os
import signal
import sys
import time
from collections.abc import Callable
from typing import Any

from turnlens.formatting import gcpause
from turnlens.formatting.evals.slices import Slice, slice_piece
from turnlens.formatting.export import output


def _widen(fd: int) -> None:
    """A pipe that holds a summary of up to 1 MiB (Linux; 64 KiB by default), so a child that reported is not held
    up until this process reads it (a slice's file warnings can be thousands of lines)."""
    import fcntl

    if not hasattr(fcntl, "F_SETPIPE_SZ"):
        return
    try:
        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, 1 << 20)
    except OSError:  # not Linux, or above /proc/sys/fs/pipe-max-size: it is only slower
        pass


def _read_exactly(fd: int, size: int) -> bytes:
    """`size` bytes from `fd`, or fewer when the writer closed it first."""
    parts, got = [], 0
    while got < size:
        part = os.read(fd, min(size - got, 1 << 20))
        if not part:
            break
        parts.append(part)
        got += len(part)
    return b"".join(parts)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


class SliceLost(Exception):
    """A worker stopped while writing its slice: what it wrote is on the output, the rest is missing."""


class DeferredSlices:
    """`work(slice_text, slice_number)` for every slice in a forked child that keeps its result: the parent gets
    `summarise(result)` per slice (small plain data: str, numbers, tuples, lists, None), then calls `emit(number)`
    in slice order and that child runs `emit(result)` itself (it writes its part of the output straight to the
    shared stdout/stderr), or `close()` to let every child go without writing. So the bulk of the output is never
    copied between processes, and nothing is written before every slice has been summarised (a refused slice must
    stop the whole output).

    With `complete`, a child sends its summary of `work`'s result early and then makes `complete(result)`, which
    `emit` gets: the parent can let the first slice be written while later slices are still being completed.

    A child that dies before its summary is re-run here (its result is kept and emitted from this process); one
    that dies after it is re-run here when its turn to write comes.
    Children exit with os._exit: their big parsed structures are never freed one object at a time.

    With `here`, the last slice is worked in this process, which would otherwise only wait: one fork fewer, and
    pages this process already has are not copied for it. Its `complete` is made while the first child writes.
    """

    def __init__(
        self,
        text: str,
        slices: list[Slice],
        work: Callable[[str, int], Any],
        summarise: Callable[[Any], Any],
        emit: Callable[[Any], None],
        complete: Callable[[Any], Any] = lambda result: result,
        here: bool = False,
        first: Slice | None = None,
    ):
        self._emit_result = emit
        self._work, self._complete = work, complete
        self._children: dict[int, tuple[int, int, int]] = {}  # number -> (pid, report fd, go fd)
        self._local: dict[int, Any] = {}  # number -> its completed result, made here
        self._worked: dict[int, Any] = {}  # number -> its result, worked here and not completed yet
        # The file's first slice gives the header (`first`: when `slices` are later ones of the file).
        pieces = [lambda s=s: slice_piece(text, first or slices[0], s) for s in slices]
        self._pieces = pieces
        for stream in (sys.stdout, sys.stderr):  # a child must not inherit (and write again) buffered output
            if stream is not None:
                stream.flush()
        _reap_exited()
        try:
            self._start(len(slices), work, summarise, complete, emit, here)
        except BaseException:  # Ctrl-C while the workers load: none of them may be left behind
            self.close()
            raise

    def _start(
        self,
        count: int,
        work: Callable[[str, int], Any],
        summarise: Callable[[Any], Any],
        complete: Callable[[Any], Any],
        emit: Callable[[Any], None],
        here: bool,
    ) -> None:
        pieces = self._pieces
        for number in range(count - 1 if here else count):
            report_r, report_w = os.pipe()
            _widen(report_w)
            go_r, go_w = os.pipe()
            pid = _fork_with_signals_blocked()
            if pid == 0:  # child
                os.close(report_r)
                os.close(go_w)
                for _pid, other_report, other_go in self._children.values():
                    os.close(other_report)
                    os.close(other_go)
                _child(pieces[number], number, work, summarise, complete, emit, report_w, go_r)
            os.close(report_w)
            os.close(go_r)
            self._children[number] = (pid, report_r, go_w)
        if here:
            self._worked[count - 1] = work(pieces[count - 1](), count - 1)
        self.summaries: list[Any] = []
        for number in range(count):
            if number in self._worked:
                self.summaries.append(summarise(self._worked[number]))
                continue
            pid, report_r, _go_w = self._children[number]
            header = _read_exactly(report_r, 8)
            payload = _read_exactly(report_r, int.from_bytes(header, "little")) if len(header) == 8 else b""
            if len(header) == 8 and len(payload) == int.from_bytes(header, "little"):
                self.summaries.append(marshal.loads(payload))
                continue
            self._reap(number)  # it died: do its slice here
            result = work(pieces[number](), number)
            self.summaries.append(summarise(result))
            self._local[number] = complete(result)

    def emit(self, number: int) -> None:
        """Have slice `number` written: by its child, or here when it was worked (`here`) or re-run here. Raises
        BrokenPipeError when the reader went away, SliceLost when the child died while writing."""
        if number in self._worked:
            self._local[number] = self._complete(self._worked.pop(number))
        if number in self._local:
            self._emit_result(self._local.pop(number))
            return
        for stream in (sys.stdout, sys.stderr):  # what this process wrote comes first
            if stream is not None:
                stream.flush()
        pid, report_r, go_w = self._children[number]
        try:
            try:
                os.write(go_w, b"g")
            except BrokenPipeError:  # it is gone already
                pass
            while self._worked:  # made while the child writes (a later slice: it is written after this one)
                later = min(self._worked)
                self._local[later] = self._complete(self._worked.pop(later))
            status = os.read(report_r, 1)
        except BaseException:  # Ctrl-C (or a failure here): the child stops after the rows it is writing
            self._stop_writer(number)
            raise
        message = _read_exactly(report_r, 1 << 16) if status == b"o" else b""
        # A child that reported is done with the output; its exit (the kernel taking back its memory, several ms)
        # is not waited for here, so the next slice is written at once.
        self._reap(number, wait=status == b"")
        if status == b"p":
            raise BrokenPipeError
        if status == b"i":
            raise KeyboardInterrupt
        if status == b"o":
            raise output.OutputError(message.decode("utf-8", "replace"))
        if status == b"":  # it died before writing anything: do its slice here
            self._emit_result(self._complete(self._work(self._pieces[number](), number)))
        elif status != b"d":
            raise SliceLost(f"slice {number + 1} was lost")

    def _stop_writer(self, number: int) -> None:
        """Ctrl-C while child `number` may be writing: it stops after the chunk of whole rows it is writing (or
        writes nothing when it was not told to start yet), and is waited for, so the output never ends with a cut
        row."""
        import select

        pid, report_r, go_w = self._children.pop(number)
        with output.whole():
            os.close(go_w)  # not told to start yet: now it never will
            _kill(pid, signal.SIGINT)
            # Bounded: a reader that stopped reading (a suspended pager) must not hold the export forever; past
            # this the child is killed, its chunk perhaps cut.
            if not select.select([report_r], [], [], WRITER_STOP_SECONDS)[0]:
                _kill(pid)
            os.close(report_r)
            _wait([pid])

    def close(self) -> None:
        """Stop every child that has not written (it writes nothing), and reap the children that have exited."""
        for number in list(self._children):
            _kill(self._children[number][0])  # its work is no longer wanted
            self._reap(number, wait=False)
        self._local.clear()
        self._worked.clear()
        _reap_exited()

    def _reap(self, number: int, wait: bool = True) -> None:
        pid, report_r, go_w = self._children.pop(number)
        os.close(go_w)
        os.close(report_r)
        if wait:
            _wait([pid])


# Every child forked here and not waited for yet. One that was let go (it reported, or was killed) is reaped
# without blocking when a run closes or a new one starts, and end_children waits for them all before the export
# ends: a process never exits leaving a worker running, or one that exited unreaped.
_forked: set[int] = set()

# How long end_children waits for the workers (killed, they take a few ms each), and _stop_writer for one to finish
# the chunk of whole rows it is writing, before giving up on it: never a hang.
END_CHILDREN_SECONDS = 10.0
WRITER_STOP_SECONDS = 10.0


def _reap_exited() -> None:
    for pid in list(_forked):
        try:
            done, _status = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:  # (not ours after all)
            done = pid
        if done:
            _forked.discard(pid)


def _kill(pid: int, signum: int = signal.SIGKILL) -> None:
    """Signal a child not reaped yet (a reaped one's pid may be another process's by now)."""
    if pid not in _forked:
        return
    try:
        os.kill(pid, signum)
    except OSError:  # (gone already)
        pass


def _wait(pids: list[int], timeout: float = END_CHILDREN_SECONDS) -> list[int]:
    """Wait for the children `pids` to exit (reaping them), at most `timeout` seconds in all; returns those still
    running then. Ctrl-C, SIGTERM and SIGHUP meanwhile are held until the wait is over (then taken as usual)."""
    deadline = time.monotonic() + timeout
    pause = 0.0005
    left = list(pids)
    old_mask = signal.pthread_sigmask(signal.SIG_BLOCK, output.ENDING_SIGNALS)
    try:
        while True:
            for pid in list(left):
                try:
                    done, _status = os.waitpid(pid, os.WNOHANG)
                except ChildProcessError:
                    done = pid
                if done:
                    left.remove(pid)
                    _forked.discard(pid)
            now = time.monotonic()
            if not left or now >= deadline:
                return left
            time.sleep(min(pause, deadline - now))
            pause = min(pause * 2, 0.05)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old_mask)


def end_children(timeout: float = END_CHILDREN_SECONDS) -> list[int]:
    """Every child this process forked and has not waited for killed (the export is over: what they had to write
    is written, or no longer wanted) and waited for, at most `timeout` seconds; returns those that outlived it
    (none, unless the system could not end them). For every way an export ends: done, refused, Ctrl-C, a closed
    output, an error."""
    pids = sorted(_forked)
    for pid in pids:
        _kill(pid)
    return _wait(pids, timeout)


def _child(
    piece: Callable[[], str],
    number: int,
    work: Callable[[str, int], Any],
    summarise: Callable[[Any], Any],
    complete: Callable[[Any], Any],
    emit: Callable[[Any], None],
    report_w: int,
    go_r: int,
) -> None:
    gcpause.exit_without_freeing()
    # Ctrl-C, SIGTERM, SIGHUP: the parent stops this worker between two chunks of whole rows
    output.defer_sigint()
    signal.pthread_sigmask(signal.SIG_UNBLOCK, output.ENDING_SIGNALS)
    status = 1
    try:
        result = work(piece(), number)
        payload = marshal.dumps(summarise(result))
        _write_all(report_w, len(payload).to_bytes(8, "little") + payload)
        status = 0
        result = complete(result)  # a crash here reads as "died before writing": the parent redoes the slice
        if os.read(go_r, 1) == b"g":
            try:
                emit(result)
                for stream in (sys.stdout, sys.stderr):
                    if stream is not None:  # None: started with it closed
                        stream.flush()
                for fd in (1, 2):  # a reader of a pipe sees the end as soon as the parent is done too
                    try:
                        os.close(fd)
                    except OSError:
                        pass
                done = b"d"
            except BrokenPipeError:
                done = b"p"
            except KeyboardInterrupt:
                done = b"i"
            except output.OutputError as exc:  # a full disk, …: the parent says why, once
                done = b"o" + str(exc).encode("utf-8", "replace")
            except BaseException:
                done = b"x"
            _write_all(report_w, done)
    except BaseException:  # the parent redoes this slice (it has written nothing)
        pass
    os._exit(status)


class SlicePool:
    """`work(number, place)` for slices 0…count-1 in `workers` forked processes, each given the next slice as soon
    as it is done with one (the first slices first), so that every core is busy to the end and no process holds
    more than the slice it works. `place` is the worker's number (`workers` for this process): where `work` writes
    its output (its own temporary files: only summaries, plain data, travel between processes). `run` returns the
    summaries in slice order; with `stop`, it ends at the first slice (in order) whose summary `stop` takes, all
    those before it summarised: the slices after it are not worked, or their workers stopped.

    A worker that dies (or whose `work` raises) has its slice worked here: what went wrong is raised here, where
    the command words it. Ctrl-C stops every worker. Workers exit with os._exit, and are waited for: a process
    that measures this one's children (GNU time) sees them."""

    def __init__(self, count: int, workers: int, work: Callable[[int, int], Any]):
        self._count, self._work = count, work
        self._here = min(workers, count)  # the place of this process
        self._workers: dict[int, tuple[int, int, int]] = {}  # place -> (pid, report fd, task fd)
        for stream in (sys.stdout, sys.stderr):  # a child must not inherit (and write again) buffered output
            if stream is not None:
                stream.flush()
        _reap_exited()
        try:
            for place in range(min(workers, count)):
                self._fork(place)
        except BaseException:
            self.close()
            raise

    def _fork(self, place: int) -> None:
        report_r, report_w = os.pipe()
        _widen(report_w)
        task_r, task_w = os.pipe()
        pid = _fork_with_signals_blocked()
        if pid == 0:  # child
            os.close(report_r)
            os.close(task_w)
            for _pid, other_report, other_task in self._workers.values():
                os.close(other_report)
                os.close(other_task)
            _pool_worker(place, self._work, task_r, report_w)
        os.close(report_w)
        os.close(task_r)
        self._workers[place] = (pid, report_r, task_w)

    def run(self, stop: Callable[[Any], bool] = lambda summary: False) -> list[Any]:
        import select

        summaries: dict[int, Any] = {}
        given: dict[int, int] = {}  # place -> the slice it works
        following = 0  # the next slice to give
        end = self._count  # the slices wanted: up to the first that stops the run
        try:
            for place in list(self._workers):
                following = self._give(place, following, end, given)
            while given:
                ready, _, _ = select.select([self._workers[place][1] for place in given], [], [])
                for place in [p for p in given if self._workers[p][1] in ready]:
                    number = given.pop(place)
                    summary = self._report(place)
                    if summary is _LOST:  # it died: its slice is worked here
                        self._reap(place)
                        summary = self._work(number, self._here)
                    summaries[number] = summary
                    if number < end and stop(summary):
                        end = number + 1
                    if place in self._workers:
                        following = self._give(place, following, end, given)
                if all(n in summaries for n in range(end)):
                    break
            return [summaries[n] for n in range(end)]
        finally:
            self.close()

    def _give(self, place: int, following: int, end: int, given: dict[int, int]) -> int:
        """Slice `following` to worker `place`, or (none left) let it go; returns the next slice to give."""
        pid, _report_r, task_w = self._workers[place]
        if following >= end:
            return following
        try:
            _write_all(task_w, following.to_bytes(4, "little"))
        except OSError:  # it is gone: its slice is worked when its report reads as lost
            pass
        given[place] = following
        return following + 1

    def _report(self, place: int) -> Any:
        report_r = self._workers[place][1]
        header = _read_exactly(report_r, 8)
        if len(header) < 8:
            return _LOST
        size = int.from_bytes(header, "little")
        payload = _read_exactly(report_r, size)
        return marshal.loads(payload) if len(payload) == size else _LOST

    def _reap(self, place: int) -> None:
        pid, report_r, task_w = self._workers.pop(place)
        os.close(task_w)
        os.close(report_r)
        _wait([pid])

    def close(self) -> None:
        """Every worker told to end (stopped at once when its work is no longer wanted) and waited for."""
        pids = []
        for place in list(self._workers):
            pid, report_r, task_w = self._workers.pop(place)
            os.close(task_w)  # a worker waiting for a slice ends
            _kill(pid)  # one still working: its work is no longer wanted
            os.close(report_r)
            pids.append(pid)
        _wait(pids)


_LOST = object()


def _pool_worker(place: int, work: Callable[[int, int], Any], task_r: int, report_w: int) -> None:
    """A SlicePool's worker: a slice number in, its summary out, until told to end (its task pipe closed)."""
    gcpause.exit_without_freeing()
    gc.freeze()  # what it was forked with is not scanned again by the collections after each slice
    for signum in output.ENDING_SIGNALS:  # Ctrl-C, SIGTERM, SIGHUP are the parent's: it stops the workers
        signal.signal(signum, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, output.ENDING_SIGNALS)
    try:
        while True:
            task = _read_exactly(task_r, 4)
            if len(task) < 4:
                break
            payload = marshal.dumps(work(int.from_bytes(task, "little"), place))
            _write_all(report_w, len(payload).to_bytes(8, "little") + payload)
    except BaseException:  # the parent works the slice itself (and says what went wrong)
        pass
    os._exit(0)


def _fork_with_signals_blocked() -> int:
    """os.fork() with Ctrl-C, SIGTERM and SIGHUP blocked across it, so that the child sets how it takes them before
    it can get one, and the parent records the child before it can be interrupted; the parent's mask is restored
    (the child restores its own once its handlers are set)."""
    old_mask = signal.pthread_sigmask(signal.SIG_BLOCK, output.ENDING_SIGNALS)
    pid = -1
    try:
        pid = os.fork()
        if pid > 0:
            _forked.add(pid)  # (before a signal can interrupt: end_children finds it whatever happens next)
    finally:
        if pid != 0:
            signal.pthread_sigmask(signal.SIG_SETMASK, old_mask)
    return pid
