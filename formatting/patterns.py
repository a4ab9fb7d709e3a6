"""Regexes compiled when first used.

Every module's patterns compiled at import took ~10 ms of each command's start, most of it for patterns that only
rare input needs (non-ASCII characters, YAML 1.1, a size option, a results listing): a character class of C1
controls and lone surrogates alone takes ~4 ms to compile. Patterns on the hot path of reading a plain file stay
compiled up front (re.compile): a LazyPattern adds an attribute lookup to each use.
"""

from __future__ import annotations

import re
from typing import Any


class LazyPattern:
    """`re.compile(*args)`, made on first use; has the compiled pattern's methods (search, sub, finditer...). Each
    method is looked up on the pattern once, then kept on this object: later uses cost what the pattern's own do."""

    def __init__(self, *args: Any) -> None:
        self._args = args
        self._pattern: re.Pattern[str] | re.Pattern[bytes] | None = None  # (sniff.py has bytes patterns)

    def __getattr__(self, name: str) -> Any:  # (only for names not set on this object yet)
        if name.startswith("__"):
            raise AttributeError(name)
        pattern = self._pattern
        if pattern is None:
            pattern = self._pattern = re.compile(*self._args)
        value = getattr(pattern, name)
        setattr(self, name, value)
        return value
