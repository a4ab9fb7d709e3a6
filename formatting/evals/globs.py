"""Guideline pattern matching with the reference's (micromatch) semantics, on wcmatch.

- `*` and `**` never match a segment that starts with a dot (so `./x` and `../x` never match `**/…`);
- braces `{a,b}`, `?`, character classes and extglobs work;
- a pattern starting with `!` matches every path the rest of the pattern does not;
- backslashes in the path are read as separators;
- a leading `./` in a pattern is dropped, `dir/**` also matches `dir` itself, and `[!x]` is the set of `!` and `x`
  (micromatch negates a class only with `^`);
- a `*` from inside braces may match a leading dot; text between a POSIX class and a dot is lost (micromatch's
  quirks, reproduced because AgentV runs with them).
"""

from __future__ import annotations

import re
from functools import lru_cache

import bracex
from wcmatch import glob as _glob

_MAGIC = re.compile(r"[*?\[\]{}()!@+]")
_FLAGS = _glob.GLOBSTAR | _glob.BRACE | _glob.EXTGLOB | _glob.NODOTDIR


_BRACE_STAR = "\ue000"  # a lone `*` written inside braces, through brace expansion


def _mark_brace_stars(pattern: str) -> str:
    out, depth, i = [], 0, 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\" and i + 1 < len(pattern):
            out.append(pattern[i : i + 2])
            i += 2
            continue
        if ch == "{":
            depth += 1
        elif ch == "}" and depth:
            depth -= 1
        elif ch == "*" and depth and pattern[i - 1] != "*" and pattern[i + 1 : i + 2] != "*":
            ch = _BRACE_STAR
        out.append(ch)
        i += 1
    return "".join(out)


def _star_variants(pattern: str) -> list[str]:
    """micromatch does not dot-protect a `*` that comes from inside braces: at a segment start it may also match
    a leading dot, which wcmatch spells `.*` (or nothing, before a literal dot)."""
    variants = [""]
    for i, ch in enumerate(pattern):
        if ch != _BRACE_STAR:
            variants = [v + ch for v in variants]
        elif i == 0 or pattern[i - 1] == "/":
            variants = [v + alt for v in variants for alt in ("*", ".*", "")]
        else:
            variants = [v + "*" for v in variants]
    return variants


# micromatch loses the literal text between a bracket holding a POSIX class and a following dot:
# `[[:alpha:]]lain.md` behaves as `[[:alpha:]].md` (observed on the reference).
_POSIX_CLASS_THEN_TEXT = re.compile(r"(\[[^\]/]*\[:[a-z]+:\][^\]/]*\])[^*?\[\]{}()/.!@+\\]+(?=\.)")


@lru_cache(maxsize=1024)
def _translate(pattern: str) -> tuple[str, ...]:
    """The wcmatch patterns equivalent to one micromatch pattern (negation handled by the caller)."""
    while pattern.startswith("./"):
        pattern = pattern[2:]
    pattern = _POSIX_CLASS_THEN_TEXT.sub(r"\1", pattern)
    out: list[str] = []
    if "{" in pattern:
        try:
            expanded = bracex.expand(_mark_brace_stars(pattern), limit=256)
        except Exception:
            expanded = [pattern]
        for p in expanded:
            out.extend(_star_variants(p) if _BRACE_STAR in p else [p])
    else:
        out.append(pattern)
    for p in list(out):
        if p.endswith("/**") and not _MAGIC.search(p[:-3]):
            out.append(p[:-3])  # micromatch: a literal `dir/**` also matches `dir`
    return tuple(dict.fromkeys(p.replace("[!", "[\\!") for p in out))


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
