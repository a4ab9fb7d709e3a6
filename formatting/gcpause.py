"""The one place turnlens steers Python's cyclic garbage collector, kept where benchmarks show it pays.

- `paused()`: no cyclic collection while big, acyclic, long-lived structures are built (the YAML parser's node
  tree, an export's rows): each collection their allocations trigger would re-scan them all for nothing
  (benchmarks/bench_gc.py measures it). The collector is process-wide, so pauses are counted: it comes back on
  when the last pause ends, and only if it was on when the first began; safe to use from several threads at once.
- `keep_long_lived()`: what exists now lives as long as the process (the inspector's loaded files, an export
  about to exit): moved out of every later collection (gc.freeze), so a full collection does not walk it again.
  `release_long_lived()` (gc.unfreeze) hands it back before it is replaced, so that it can be collected.
- `settle_long_lived()`: the same for a structure still growing (the inspector's load, between its batches), else
  each full collection the load's allocations trigger re-scans all that was loaded before, many times over. Not
  collected first: a young collection there scans everything loaded since the last one (0.3-0.4 s of CPU for a
  50,000-test dataset) and finds only the event loop's cycles of the meantime (~11,000 objects for that dataset,
  none of the load's), which stay frozen, as what keep_long_lived freezes does, until release_long_lived.
- `pause_until_started()` … `started()`: no cyclic collection while the app starts (its modules imported, its first
  screen built and drawn): what it makes then lives as long as the app, and the collections its allocations
  triggered re-scanned it all (~40 ms of the inspector's first frame, a full collection among them;
  benchmarks/bench_firstframe.py). A pause like `paused()`'s, begun at most once; what exists when it ends is kept
  out of later collections (gc.freeze).
- `exit_without_freeing()`: this process ends with os._exit (an export worker, the export command), so what it is
  given to `keep_to_exit` is never freed one object at a time (a loaded 2,500-test slice takes ~10 ms to free).
  `drop_kept()` lets go of it (an export of several files, before the next one); `collect_round()` frees the cycles
  a round of an export in rounds left (export/evals.py).
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_pauses = 0
_was_enabled = False


_starting = False  # the start's pause is on


def _pause() -> None:  # with _lock held
    global _pauses, _was_enabled
    if _pauses == 0:
        _was_enabled = gc.isenabled()
        gc.disable()
    _pauses += 1


def _resume() -> None:  # with _lock held
    global _pauses
    _pauses -= 1
    if _pauses == 0 and _was_enabled:
        gc.enable()


@contextmanager
def paused() -> Iterator[None]:
    with _lock:
        _pause()
    try:
        yield
    finally:
        with _lock:
            _resume()


def pause_until_started() -> None:
    global _starting
    with _lock:
        if not _starting:
            _starting = True
            _pause()


def started() -> None:
    global _starting
    with _lock:
        if _starting:
            _starting = False
            # Kept out of later collections, as keep_long_lived does: the first collection after the pause would
            # scan everything made while starting at once (~20 ms for the results view, ~80 for the inspector),
            # holding the GIL just when Textual's writer thread has the first frame to write. What of it is garbage
            # (~1,500 objects of cycles) waits for release_long_lived.
            gc.freeze()
            _resume()


def keep_long_lived() -> None:
    gc.freeze()


def settle_long_lived() -> None:
    gc.freeze()


def release_long_lived() -> None:
    gc.unfreeze()


_kept: list[object] | None = None  # what keep_to_exit holds, once exit_without_freeing was called


def exit_without_freeing() -> None:
    global _kept
    if _kept is None:
        _kept = []


def keep_to_exit(obj: object) -> None:
    if _kept is not None:
        _kept.append(obj)


def drop_kept() -> None:
    if _kept is not None:
        _kept.clear()


def collect_round() -> None:
    """Free now what a round of a long export left in cycles (its loaded cases, ~130,000 objects per slice of 1 MiB
    of JSONL): the collector is paused for the whole export, and each round's cycles would stay to the end (export
    memory grew ~14 MiB a round). A round's heap is small, so this full collection is too."""
    gc.collect()
