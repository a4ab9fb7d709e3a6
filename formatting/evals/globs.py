"""Guideline pattern matching with the reference's (micromatch) semantics, on wcmatch.

- `*` and `**` never match a segment that starts with a dot (so `./x` and `../x` never match `**/…`);
- braces `{a,b}`, `?`, character classes and extglobs work;
- a pattern starting with `!` matches every path the rest of the pattern does not;
- backslashes in the path are read as separators;
- a leading `./` in a pattern is dropped, `dir/**` also matches `dir` itself, and `[!x]` is the set of `!` and `x`
  (micromatch negates a class only with `^`);
- a `*` from inside braces may match a leading dot; text between a POSIX class and a dot is lost (micromatch's
  quirks, reproduced because AgentV runs with them).

Bounded, whatever a config holds: extglobs (`+(a|aa)`) compile to regexes that can backtrack exponentially, so
they run on the `regex` module with a time budget (a pattern that exceeds it matches nothing from then on, and
`slow_patterns` names it for a warning); a pattern list is compiled once per list, literal patterns are looked up
in a set, and past MAX_MAGIC_PATTERNS patterns with wildcards the rest are not used (`load_config` warns).
"""

from __future__ import annotations

import threading
from functools import lru_cache
from typing import Protocol

from turnlens.formatting.patterns import LazyPattern

_MAGIC = LazyPattern(r"[*?\[\]{}()!@+]")
_EXTGLOB = LazyPattern(r"[?*+@!]\(")
# Time one extglob pattern may take on one path (seconds). A match that overruns the first budget is tried once more
# with the second before the pattern is dropped: a busy machine can pause a process for a moment (dropping a good
# pattern then would change the output), while a backtracking pattern takes minutes.
EXTGLOB_BUDGET = 0.25
EXTGLOB_RETRY_BUDGET = 2.0
# Patterns with wildcards each need a compiled regex (about 0.5 ms each): past this many, the rest are not used.
MAX_MAGIC_PATTERNS = 1000

_slow_lock = threading.Lock()
_slow: dict[str, str] = {}  # pattern -> the path it took too long on


def slow_patterns() -> dict[str, str]:
    """Extglob patterns that exceeded their time budget so far (pattern -> path), for a warning."""
    with _slow_lock:
        return dict(_slow)


class _Budgeted:
    """An extglob pattern's regexes on the `regex` module, each match given EXTGLOB_BUDGET seconds."""

    def __init__(self, pattern: str, regexes: list[str]):
        import regex

        self.pattern = pattern
        self.regexes = [regex.compile(r) for r in regexes]

    def match(self, path: str) -> bool:
        if self.pattern in _slow:
            return False
        for budget in (EXTGLOB_BUDGET, EXTGLOB_RETRY_BUDGET):
            try:
                return any(r.match(path, timeout=budget) for r in self.regexes)
            except TimeoutError:
                continue
        with _slow_lock:
            _slow.setdefault(self.pattern, path)
        return False


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
_POSIX_CLASS_THEN_TEXT = LazyPattern(r"(\[[^\]/]*\[:[a-z]+:\][^\]/]*\])[^*?\[\]{}()/.!@+\\]+(?=\.)")


BRACE_LIMIT = 1000  # paths one pattern's braces may expand to (wcmatch's own limit, which it raises past)


def expands_too_far(pattern: str, limit: int = BRACE_LIMIT) -> bool:
    """Whether the braces of `pattern` expand to more than `limit` paths (`case-{1..1001}.yaml`, eleven `{a,b}`):
    such a pattern is said so and left out, instead of ending the command in wcmatch's exception."""
    if "{" not in pattern:
        return False
    import bracex  # here, not at the top: only a pattern with braces needs it (startup time of `turnlens export`)

    try:
        bracex.expand(pattern, limit=limit)
    except bracex.ExpansionLimitException:
        return True
    except Exception:  # (a pattern bracex cannot read: wcmatch reads it as a literal)
        return False
    return False


def too_far_message(pattern: str, limit: int = BRACE_LIMIT) -> str:
    return f"pattern expands to more than {limit:,} paths: {pattern} (left out)"


def _translate(pattern: str) -> tuple[str, ...]:
    """The wcmatch patterns equivalent to one micromatch pattern (negation handled by the caller)."""
    while pattern.startswith("./"):
        pattern = pattern[2:]
    pattern = _POSIX_CLASS_THEN_TEXT.sub(r"\1", pattern)
    out: list[str] = []
    if "{" in pattern:
        import bracex  # here, not at the top: only a pattern with braces needs it (startup time of `turnlens export`)

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


class _Matcher(Protocol):
    """What a compiled pattern is used for (wcmatch's WcGlob, or a _Budgeted)."""

    def match(self, path: str) -> bool: ...


def _compile(pattern: str) -> _Matcher | None:
    """A compiled matcher for one (non-negated) micromatch pattern, or None when wcmatch cannot compile it."""
    from wcmatch import glob  # here, not at the top: only a pattern with wildcards needs it (export startup time)

    flags = glob.GLOBSTAR | glob.BRACE | glob.EXTGLOB | glob.NODOTDIR
    try:
        if _EXTGLOB.search(pattern):
            included, excluded = glob.translate(list(_translate(pattern)), flags=flags)
            if not excluded:
                return _Budgeted(pattern, included)
        return glob.compile(list(_translate(pattern)), flags=flags)
    except Exception:  # a pattern wcmatch cannot compile matches nothing
        return None


_matcher = lru_cache(maxsize=1024)(_compile)


@lru_cache(maxsize=8192)
def _match_one(path: str, pattern: str) -> bool:
    if pattern.startswith("!") and not pattern.startswith("!("):
        return not _match_one(path, pattern[1:])
    matcher = _matcher(pattern)
    return bool(matcher and matcher.match(path))


def _literal(pattern: str) -> str | None:
    """The path a pattern without wildcards or escapes matches (it matches only that path), else None."""
    if _MAGIC.search(pattern) is not None or "\\" in pattern:
        return None
    while pattern.startswith("./"):
        pattern = pattern[2:]
    return pattern


class _PatternSet:
    """A pattern list made ready once: literal patterns in a set, the others compiled in order (up to the cap)."""

    def __init__(self, patterns: tuple[str, ...]):
        self.literals: set[str] = set()
        self.magic: dict[str, tuple[bool, _Matcher | None]] = {}  # pattern -> (negated, matcher or None)
        for p in patterns:
            literal = _literal(p)
            if literal is not None:
                self.literals.add(literal)
            elif p not in self.magic and len(self.magic) < MAX_MAGIC_PATTERNS:
                body, negated = p, False
                while body.startswith("!") and not body.startswith("!("):  # `!!x` is `x`
                    body, negated = body[1:], not negated
                self.magic[p] = (negated, _compile(body))
        # Results by path: an eval file names the same few files in thousands of cases. Not when an extglob pattern
        # is timed (one that overruns is dropped, which changes its answer from then on).
        self.seen: dict[str, bool] | None = (
            None if any(isinstance(m, _Budgeted) for _negated, m in self.magic.values()) else {}
        )
        self.firsts: dict[str, str | None] = {}  # first_match by path, under the same condition

    def _match(self, path: str, pattern: str) -> bool:
        negated, matcher = self.magic[pattern]
        found = bool(matcher is not None and matcher.match(path))
        return found != negated

    def matches(self, path: str) -> bool:
        seen = self.seen
        if seen is not None:
            hit = seen.get(path)
            if hit is not None:
                return hit
            if len(seen) >= 8192:
                seen.clear()
        found = path in self.literals or any(self._match(path, p) for p in self.magic)
        if seen is not None:
            seen[path] = found
        return found

    def first_match(self, path: str, patterns: tuple[str, ...]) -> str | None:
        firsts = self.firsts if self.seen is not None else None  # (kept, as `seen`, unless a pattern is timed)
        if firsts is not None and path in firsts:
            return firsts[path]
        found = None
        if self.matches(path):
            for p in patterns:  # which one, in the config's order
                literal = _literal(p)
                if literal == path or (literal is None and p in self.magic and self._match(path, p)):
                    found = p
                    break
        if firsts is not None:
            if len(firsts) >= 8192:
                firsts.clear()
            firsts[path] = found
        return found


@lru_cache(maxsize=16)
def _pattern_set(patterns: tuple[str, ...]) -> _PatternSet:
    return _PatternSet(patterns)


def unused_patterns(patterns: tuple[str, ...] | list[str]) -> int:
    """How many patterns with wildcards are past MAX_MAGIC_PATTERNS (not used)."""
    magic = sum(1 for p in patterns if _literal(p) is None)
    return max(0, magic - MAX_MAGIC_PATTERNS)


def is_guideline(path: str, patterns: tuple[str, ...] | list[str]) -> bool:
    """True when `path` matches any of the guideline patterns."""
    if not patterns or not path:
        return False
    return _pattern_set(tuple(patterns)).matches(path.replace("\\", "/"))


def matching_pattern(path: str, patterns: tuple[str, ...] | list[str]) -> str | None:
    """The first pattern that matches `path`, for the explanation."""
    if not patterns:
        return None
    patterns = tuple(patterns)
    return _pattern_set(patterns).first_match(path.replace("\\", "/"), patterns)
