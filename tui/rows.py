"""The case list's rows and file headings as plain data: what the session computes and the list widget draws (no
rich here), with the few plain-text helpers they are made with."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from turnlens.formatting.jsstr import js_string_of
from turnlens.formatting.model import EvalCase
from turnlens.formatting.wording import plural

__all__ = ["plural"]  # re-exported: the list and the panes count with it


def case_label(case: EvalCase) -> str:
    """The case's id as written: a string id, or a non-string one (`id: 1042`, which the reference skips) as YAML
    wrote it, else its position."""
    if case.id is not None:
        return case.id
    raw = case.raw_id
    if raw is None:
        return f"#{case.index + 1} (no id)"
    if isinstance(raw, bool):
        return "true" if raw else "false"
    if isinstance(raw, (int, float)):
        return js_string_of(raw)  # as JavaScript writes the number (`1e400`: Infinity, not Python's inf)
    if isinstance(raw, str):
        return raw
    return json.dumps(raw, ensure_ascii=False, default=str)


RULE_SHORT = {
    "non-user turn": "non-user",
    "several visible turns": "several",
    "single visible turn": "single",
    "no visible content": "empty",
}


@dataclass(frozen=True)
class CaseRow:
    """One case as the case list shows it."""

    key: str  # "<file number>:<case index>"
    label: str  # id, or "#<index>" when it has none
    markers: bool | None  # None for a skipped case
    rule: str  # short rule name, "" when skipped
    warnings: int
    skipped: str | None = None
    # What the filter looks in, lower-cased: made with the row, in the loading worker (the filter looks at every row
    # per key; a cached_property, with its lock, cost twice as much to make).
    search_text: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        parts = [self.label, self.rule]
        if self.markers is not None:
            parts.append("markers" if self.markers else "flat")
        if self.warnings:
            parts.append("warnings warn")
        if self.skipped:
            parts.extend(["skipped", self.skipped])
        object.__setattr__(self, "search_text", " ".join(parts).lower())


@dataclass(frozen=True)
class FileEntry:
    """A file heading in the list (shown when several files are open, or when the file has an error)."""

    rel: str
    error: str | None
    stale: bool
    rows: tuple[CaseRow, ...]
    number: int = -1  # the file's number in the session (its position in the list when not given)
    dialect: str = ""  # the short tag of the dialect the file was read in (DialectLabels.tag), "" when refused


def relativize(text: str, repo_root: str | None) -> str:
    """Absolute paths under the repo root shown relative to it (the screen must not depend on the machine)."""
    if not repo_root:
        return text
    root = repo_root.rstrip("/\\")
    return text.replace(root + "/", "").replace(root + "\\", "")
