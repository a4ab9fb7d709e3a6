"""A bounded (least recently used) cache shared by the event loop and worker threads: views and formatted cases
are built in both, so what the inspector keeps is bounded by what was looked at lately, not by the file's size.

The standard library's OrderedDict behind a lock (Textual's LRUCache relinks entries on every read without one, and
evicts the entry just added once it was full and then emptied by discards).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class BoundedCache(Generic[K, V]):
    def __init__(self, maxsize: int) -> None:
        self.maxsize = maxsize
        self._items: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        with self._lock:
            value = self._items.get(key)
            if value is not None:
                self._items.move_to_end(key)
            return value

    def set(self, key: K, value: V) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.maxsize:
                self._items.popitem(last=False)

    def discard_where(self, predicate: Callable[[K], bool]) -> None:
        """Drop the entries whose key matches (e.g. those of a file just reloaded)."""
        with self._lock:
            for key in [k for k in self._items if predicate(k)]:
                del self._items[key]

    def clear(self) -> None:
        with self._lock:
            self._items.clear()

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, key: object) -> bool:
        return key in self._items
