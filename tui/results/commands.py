"""The command palette of the results screens: each screen's actions, then (on the list) every result by id."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.screen import Screen


def run_action(screen: Screen, action: str) -> Callable[[], Any]:
    """A palette callback that runs `action` on `screen`."""

    async def run() -> None:
        await screen.run_action(action)

    return run


class ResultsCommands(Provider):
    """Every action of the results screens in the command palette: `palette_commands()` of the screen gives
    (title, help, action) rows, and `palette_extras()` (when it has one) further (title, help, callback) rows."""

    def _commands(self) -> list[tuple[str, str, Callable[[], Any]]]:
        screen = self.screen
        getter = getattr(screen, "palette_commands", None)
        commands = (
            [(title, help_text, run_action(screen, action)) for title, help_text, action in getter()] if getter else []
        )
        extras = getattr(screen, "palette_extras", None)
        return commands + (list(extras()) if extras else [])

    async def discover(self) -> Hits:
        for title, help_text, callback in self._commands():
            yield DiscoveryHit(title, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, help_text, callback in self._commands():
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), callback, help=help_text)
