"""The one place turnlens steers Python's cyclic garbage collector, kept where benchmarks show it pays.

- `paused()`: no cyclic collection while big, acyclic, long-lived structures are built (the YAML parser's node
  tree, an export's rows): each collection their allocations trigger would re-scan them all for nothing
  (benchmarks/bench_gc.py measures it). The collector is process-wide, so pauses are counted: it comes back on
  when the last pause ends, and only if it was on when the first began; safe to use from several threads at once.
- `keep_long_lived()`: what exists now lives as long as the process (the inspector's loaded files, an export
  about to exit): moved out of every later collection (gc.freeze), so a full collection does not walk it again.
  `release_long_lived()` (gc.unfreeze) hands it back before it is replaced, so that it can be collected.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_pauses = 0
_was_enabled = False


@contextmanager
def paused() -> Iterator[None]:
    global _pauses, _was_enabled
    with _lock:
        if _pauses == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _pauses += 1
    try:
        yield
    finally:
        with _lock:
            _pauses -= 1
            if _pauses == 0 and _was_enabled:
                gc.enable()


def keep_long_lived() -> None:
    gc.freeze()


def release_long_lived() -> None:
    gc.unfreeze()
