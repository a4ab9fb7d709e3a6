"""A big JSONL results file indexed by worker processes, chunk by chunk, their parts merged in file order.

One process parses about 400 MB of results a second (orjson and the per-record summary, both needed: the columns
read fields anywhere in a record): a GB takes over two seconds of one core. The rest of the file after the scan's
first window is cut into chunks of CHUNK bytes; each worker process (scan_worker.py, started with the file's open
descriptor, so it reads the very file the index opened) maps the file, indexes the lines that start in the chunks it
is given with the scan's own loop, and sends back a `Part`: the chunk's columns (arrays, not a dict per record) and
problems. The scan adds the parts in file order, so the index grows from the top as before, with progress between.

A worker reads through a memory mapping, which a file cut short turns into SIGBUS: that kills the worker, never
the app (`WorkerFailed`; the scan then says the file changed, or reads the rest itself). Workers are started in
their own session (a Ctrl-C meant for the app is not theirs), write nothing to the terminal, and end when their
requests' pipe closes: when the scan is stopped (`close` kills them) or the app is gone.

Pure Python: never imports textual or rich.
"""

from __future__ import annotations

import json
import os
import pickle
import selectors
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass

from turnlens.formatting.records import Severity
from turnlens.formatting.results.columns import ColumnsPart

try:
    import fcntl
except ImportError:  # not a POSIX system (no worker processes there either)
    fcntl = None  # type: ignore[assignment]

# bytes per chunk: a worker's memory holds one chunk's mapped pages and columns at a time
CHUNK = 4 * 1024 * 1024
# at most this many worker processes (each ~20 MiB: a chunk of the file mapped, the interpreter, the engine)
MAX_WORKERS = 2
# chunks sent to a worker before it answered the first: it never waits for its next request, even while the app
# holds the GIL for a while (a re-sort of 100,000 rows holds it for tens of ms without a break, and each chunk is
# about 10 ms of a worker's time); parts are small, so the chunks asked ahead cost no memory to speak of
QUEUED_PER_WORKER = 6
# bytes of a worker's answers pipe (Linux: fcntl's F_SETPIPE_SZ, 1031 on every architecture; 1 MiB is the
# largest an unprivileged process may ask by default)
ANSWERS_PIPE = 1024 * 1024
F_SETPIPE_SZ = 1031
# seconds between two looks at `stop` while waiting for the workers
WAIT = 0.1
# seconds without a word from any worker while chunks are asked for, after which they are taken for hung (a chunk
# is read in well under a second; a line of a GB in a few)
SILENCE = 120.0

# before each part's pickled bytes: these, then its length in 8 bytes (anything else on a worker's output, such as
# a line a startup hook printed, makes it a failed worker rather than a part misread)
PART_MARK = b"turnlens-scan-part"
_HEADER = len(PART_MARK) + 8

_WORKER_CODE = "import sys; sys.path[:] = __import__('json').loads(sys.argv[1]); " + (
    "from turnlens.formatting.results.scan_worker import main; main(sys.argv[2:])"
)


@dataclass
class Part:
    """One chunk as a worker indexed it: the lines that start in [start, end) (`lines` of them, counted from 1 in
    `problems`), their rows and their problems (the first MAX_DIAGNOSTICS of `problem_count`, as (line, message,
    severity))."""

    start: int
    end: int
    lines: int
    columns: ColumnsPart
    problems: list[tuple[int, str, Severity]]
    problem_count: int


class WorkerFailed(Exception):
    """A worker process ended before it answered (it could not start, or the file was cut short under it)."""


def workers_wanted() -> int:
    """Worker processes for a big file: one per core this process may run on, at most MAX_WORKERS (one on a
    single core: a worker reads the file mapped, for less than the scan's reads cost). None without an interpreter
    to start them with."""
    if not sys.executable:
        return 0
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return max(1, min(MAX_WORKERS, cores))


class _Worker:
    def __init__(self, fd: int, size: int, start: int) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-I", "-c", _WORKER_CODE, json.dumps(sys.path), str(fd), str(size), str(start)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            pass_fds=(fd,),
            start_new_session=True,
            bufsize=0,
        )
        assert self.process.stdin is not None and self.process.stdout is not None
        self.requests = self.process.stdin
        self.answers = self.process.stdout.fileno()
        try:  # room for several parts (each ~50 kB) in the pipe: a worker writes them while the app holds the GIL
            fcntl.fcntl(self.answers, F_SETPIPE_SZ, ANSWERS_PIPE)
        except (OSError, AttributeError):  # not Linux (no fcntl), or above what this system lets a pipe be
            pass
        self.queued: list[int] = []  # chunks asked for, in the order it answers them
        self.received = bytearray()


class ParallelScan:
    """Worker processes indexing the lines of the open file `fd` (`size` bytes as opened) from `start` (a line's
    start) to the end, CHUNK by CHUNK."""

    def __init__(self, fd: int, size: int, start: int, workers: int, chunk: int | None = None) -> None:
        self.bounds = [*range(start, size, chunk or CHUNK), size]
        self.workers: list[_Worker] = []
        self._lock = threading.Lock()
        try:
            for _ in range(max(1, min(workers, len(self.bounds) - 1))):
                self.workers.append(_Worker(fd, size, start))
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        """End the workers (they may be in the middle of a chunk) and wait for them."""
        with self._lock:
            workers, self.workers = self.workers, []
        for worker in workers:
            worker.process.kill()
            worker.requests.close()
            worker.process.stdout.close()  # type: ignore[union-attr]
            worker.process.wait()

    def parts(self, stop: threading.Event | None = None) -> Iterator[Part | None]:
        """The chunks' parts in file order; None every WAIT seconds while none is ready (to look at `stop`).
        Raises WorkerFailed when a worker ends early (the parts before its chunk were all yielded)."""
        chunks = len(self.bounds) - 1
        sent = 0  # chunks asked for
        done = 0  # chunks yielded
        ready: dict[int, Part] = {}
        ahead = QUEUED_PER_WORKER * len(self.workers)  # parts kept waiting for an earlier one, at most
        heard = time.monotonic()  # when a worker last wrote
        with selectors.DefaultSelector() as selector:
            for worker in self.workers:
                selector.register(worker.answers, selectors.EVENT_READ, worker)
            while done < chunks:
                for worker in self.workers:  # keep each worker's queue full, never too far ahead of `done`
                    while len(worker.queued) < QUEUED_PER_WORKER and sent < chunks and sent < done + ahead:
                        try:
                            worker.requests.write(b"%d %d\n" % (self.bounds[sent], self.bounds[sent + 1]))
                        except OSError:
                            raise WorkerFailed("a worker process ended") from None
                        worker.queued.append(sent)
                        sent += 1
                events = selector.select(WAIT)
                if stop is not None and stop.is_set():
                    return
                now = time.monotonic()
                if events:
                    heard = now
                elif now - heard > SILENCE:
                    raise WorkerFailed("no worker process answered")
                for key, _mask in events:
                    worker = key.data
                    data = os.read(worker.answers, 1 << 20)
                    if not data:
                        raise WorkerFailed("a worker process ended")
                    worker.received += data
                    while len(worker.received) >= _HEADER:
                        if not worker.received.startswith(PART_MARK) or not worker.queued:
                            raise WorkerFailed("a worker process wrote something else than a part")
                        length = int.from_bytes(worker.received[len(PART_MARK) : _HEADER], "little")
                        if len(worker.received) < _HEADER + length:
                            break
                        part = pickle.loads(worker.received[_HEADER : _HEADER + length])
                        del worker.received[: _HEADER + length]
                        ready[worker.queued.pop(0)] = part
                if done in ready:
                    while done in ready:
                        yield ready.pop(done)
                        done += 1
                else:
                    yield None
