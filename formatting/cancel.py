"""Stopping long work part-way: a function that may take seconds (decoding or cutting a 50 MB file) takes a
`cancelled` callable, looks at it between its steps, and raises Cancelled once it says so. The inspector's loading
thread passes one that is true once the app quits, so the exit no longer shares the CPU and the GIL with work
nobody will see."""

from __future__ import annotations

from collections.abc import Callable


class Cancelled(Exception):
    """The caller's `cancelled()` said to stop; what was made so far is dropped."""


def never() -> bool:
    """The `cancelled` of work that is never stopped part-way."""
    return False


def check(cancelled: Callable[[], bool]) -> None:
    """Raise Cancelled when `cancelled()` says so."""
    if cancelled():
        raise Cancelled
