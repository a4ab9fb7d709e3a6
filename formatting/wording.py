"""Small helpers for the sentences turnlens writes (explanations, notes, the UI's counts)."""

from __future__ import annotations


def plural(count: int, noun: str, many: str | None = None) -> str:
    """`1 warning`, `2 warnings`; `many` when the plural is not the noun and an s (`1 entry`, `2 entries`)."""
    return f"{count} {noun if count == 1 else many or noun + 's'}"
