"""Guideline pattern matching with the reference's (micromatch) semantics, on wcmatch.

- `*` and `**` never match a segment that starts with a dot (so `./x` and `../x` never match `**/…`);
- braces `{a,b}`, `?`, character classes and extglobs work;
- a pattern starting with `!` matches every path the rest of the pattern does not;
- backslashes in the path are read as separators;
- a leading `./` in a pattern is dropped, `dir/**` also matches `dir` itself, and `[!x]` is the set of `!` and `x`
  (micromatch negates a class only with `^`).
"""

from __future__ import annotations

import re
from functools import lru_cache

from wcmatch import glob as _glob

_MAGIC = re.compile(r"[*?\[\]{}()!@+]")
_FLAGS = _glob.GLOBSTAR | _glob.BRACE | _glob.EXTGLOB | _glob.NODOTDIR


@lru_cache(maxsize=1024)
def _translate(pattern: str) -> tuple[str, ...]:
    """The wcmatch patterns equivalent to one micromatch pattern (negation handled by the caller)."""
    while pattern.startswith("./"):
        pattern = pattern[2:]
    pattern = pattern.replace("[!", "[\\!")
    if pattern.endswith("/**") and not _MAGIC.search(pattern[:-3]):
        return (pattern, pattern[:-3])  # micromatch: a literal `dir/**` also matches `dir`
    return (pattern,)


@lru_cache(maxsize=1024)
def _matcher(pattern: str):
    """A compiled matcher for one (non-negated) micromatch pattern, or None when wcmatch cannot compile it."""
    try:
        return _glob.compile(list(_translate(pattern)), flags=_FLAGS)
    except Exception:  # a pattern wcmatch cannot compile matches nothing
        return None


@lru_cache(maxsize=8192)
def _match_one(path: str, pattern: str) -> bool:
    if pattern.startswith("!") and not pattern.startswith("!("):
        return not _match_one(path, pattern[1:])
    matcher = _matcher(pattern)
    return bool(matcher and matcher.match(path))


def is_guideline(path: str, patterns: tuple[str, ...] | list[str]) -> bool:
    """True when `path` matches any of the guideline patterns."""
    if not patterns or not path:
        return False
    normalized = path.replace("\\", "/")
    return any(_match_one(normalized, p) for p in patterns)


def matching_pattern(path: str, patterns: tuple[str, ...] | list[str]) -> str | None:
    """The first pattern that matches `path`, for the explanation."""
    normalized = path.replace("\\", "/")
    for p in patterns or ():
        if _match_one(normalized, p):
            return p
    return None
