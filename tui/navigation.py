"""Going from one view to the other. The inspector and the results view never import each other: each posts one of
these messages, and the app, which knows both views, opens the other one (tui/app.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from textual.message import Message


class SelectsCase(Protocol):
    """The inspector's screen, as the results view asks it to show the test of a result."""

    def select_case(self, key: str) -> None: ...


class OpenTestOfResult(Message):
    """Results → inspector: the test behind a result. `over_results(InspectorScreen)` is the screen class to make
    (esc goes back to the results); `opened(screen)` is called once it is pushed (to select the case)."""

    def __init__(
        self,
        session: Any,
        mode: str,
        over_results: Callable[[type], type],
        opened: Callable[[SelectsCase], None],
    ) -> None:
        super().__init__()
        self.session = session
        self.mode = mode
        self.over_results = over_results
        self.opened = opened


class OpenLatestResult(Message):
    """Inspector → results: the run that recorded a case last, opened at that result (`index`)."""

    def __init__(self, argument: str, repo_root: str | None, index: int) -> None:
        super().__init__()
        self.argument = argument
        self.repo_root = repo_root
        self.index = index
