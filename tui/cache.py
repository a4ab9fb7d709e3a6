"""A bounded (least recently used) cache shared by the event loop and worker threads: views and formatted cases
are built in both, so what the inspector keeps is bounded by what was looked at lately, not by the file's size.

Bounded in entries, and optionally in weight (`weigh`: e.g. the characters a view holds, so that a few huge cases
are not kept 32 at a time). The standard library's OrderedDict behind a lock (Textual's LRUCache relinks entries on
every read without one, and evicts the entry just added once it was full and then emptied by discards).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Collection
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class BoundedCache(Generic[K, V]):
    def __init__(self, maxsize: int, *, max_weight: int | None = None, weigh: Callable[[V], int] | None = None) -> None:
        self.maxsize = maxsize
        self.max_weight = max_weight
        self._weigh = weigh or (lambda _value: 0)
        self._items: OrderedDict[K, tuple[V, int]] = OrderedDict()
        self.weight = 0
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        with self._lock:
            item = self._items.get(key)
            if item is None:
                return None
            self._items.move_to_end(key)
            return item[0]

    def set(self, key: K, value: V, *, keep: Collection[K] | None = None) -> bool:
        """Add `value` as the most recent entry, dropping the least recent ones beyond the bounds; never the new
        one (alone over the weight, it stays). With `keep` (say, the views around the case on screen), those are
        not dropped either: when the value does not fit beside them it is not added, and False is returned."""
        weight = self._weigh(value)
        with self._lock:
            self._pop(key)
            for old in list(self._items):
                if len(self._items) < self.maxsize and not self._over(weight):
                    break
                if keep is None or old not in keep:
                    self._pop(old)
            if keep is not None and (len(self._items) >= self.maxsize or self._over(weight)):
                return False
            self._items[key] = (value, weight)
            self.weight += weight
            return True

    def _over(self, weight: int) -> bool:
        return self.max_weight is not None and bool(self._items) and self.weight + weight > self.max_weight

    def _pop(self, key: K) -> None:
        item = self._items.pop(key, None)
        if item is not None:
            self.weight -= item[1]

    def discard_where(self, predicate: Callable[[K], bool]) -> None:
        """Drop the entries whose key matches (e.g. those of a file just reloaded)."""
        with self._lock:
            for key in [k for k in self._items if predicate(k)]:
                self._pop(key)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self.weight = 0

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, key: object) -> bool:
        return key in self._items
