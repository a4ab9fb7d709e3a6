"""Every dialect turnlens reads, in the order a YAML file's shape is tried (the last reads what no other claims),
and what the engine asks of them by a file's path, its parsed YAML or a dialect's name.

Adding a dialect: write its module beside agentv4.py (its labels, file types, claims, loader, formatting strategy,
slicing) and add its DIALECT to DIALECTS below. Nothing else in the engine names a dialect.
"""

from __future__ import annotations

from typing import Any

from turnlens.formatting.dialects import agentv015, agentv4
from turnlens.formatting.dialects.dialect import Dialect, FileType
from turnlens.formatting.dialects.unread import unread_format

DIALECTS: tuple[Dialect, ...] = (
    agentv015.DIALECT,
    agentv4.DIALECT,
)


def names() -> tuple[str, ...]:
    """The dialects' names, as --dialect takes them (besides `auto`)."""
    return tuple(d.name for d in DIALECTS)


def named(name: str) -> Dialect:
    for dialect in DIALECTS:
        if dialect.name == name:
            return dialect
    raise ValueError(f"no dialect named {name!r} (dialects: {', '.join(names())})")


def candidates(dialect: str) -> tuple[Dialect, ...]:
    """The dialects a file may be read in: every one for `auto`, else the one named (--dialect)."""
    return DIALECTS if dialect == "auto" else (named(dialect),)


def by_file_type(path: str, dialect: str = "auto") -> tuple[Dialect, FileType] | None:
    """The dialect (of `candidates(dialect)`) whose file types settle `path` by its extension alone, and that type."""
    lower = path.lower()
    for candidate in candidates(dialect):
        for file_type in candidate.file_types:
            if lower.endswith(file_type.suffixes):
                return candidate, file_type
    return None


def detect(data: Any) -> tuple[Dialect, str] | None:
    """The dialect of a parsed YAML eval file, and one sentence saying why: the first that claims it, the last one
    reading what the others do not. None for a file shaped for a format turnlens recognises but does not read
    (unread.py), which no dialect before the last claims."""
    for dialect in DIALECTS[:-1]:
        reason = dialect.claims(data)
        if reason is not None:
            return dialect, reason
    if unread_format(data) is not None:
        return None
    last = DIALECTS[-1]
    return last, last.claims(data) or f"read as {last.labels.title}"


def one_test_per_line(path: str, dialect: str = "auto") -> bool:
    """Whether `path` is read a test per line (a JSONL dataset), so that a big one is cut after a line."""
    found = by_file_type(path, dialect)
    return found is not None and found[1].one_test_per_line


def cut_at(path: str, text: str, dialect: str = "auto") -> tuple[str, Dialect] | None:
    """The top-level list a big eval file may be cut at (`evalcases`, `tests`) and the dialect whose rule allowed
    it, or None when it must be loaded whole. Every slice must be read in the dialect of the whole file: each
    dialect's slice_key says when its files can be cut safely."""
    for candidate in candidates(dialect):
        key = candidate.slice_key(path, text)
        if key is not None:
            return key, candidate
    return None
