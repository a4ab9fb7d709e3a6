"""The case list's rows as plain data: what the session computes and the list widget draws (no rich here)."""

from __future__ import annotations

import json
from dataclasses import dataclass

from turnlens.formatting.model import EvalCase


def case_label(case: EvalCase) -> str:
    """The case's id as written: a string id, or a non-string one (`id: 1042`, which the reference skips) as YAML
    wrote it, else its position."""
    if case.id is not None:
        return case.id
    raw = case.raw.get("id") if isinstance(case.raw, dict) else None
    if raw is None:
        return f"#{case.index + 1} (no id)"
    if isinstance(raw, bool):
        return "true" if raw else "false"
    if isinstance(raw, (int, float, str)):
        return str(raw)
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

    @property
    def search_text(self) -> str:
        parts = [self.label, self.rule]
        if self.markers is not None:
            parts.append("markers" if self.markers else "flat")
        if self.warnings:
            parts.append("warnings warn")
        if self.skipped:
            parts.extend(["skipped", self.skipped])
        return " ".join(parts).lower()
