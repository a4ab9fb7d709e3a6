"""The command palette of the results screens: each screen's actions, then (on the list) every result by id."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from rich.text import Text
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.screen import Screen

from ..actions import Action, help_sections, palette_entries


def table_commands(screen: Screen, table: Iterable[Action]) -> list[tuple[str, str, str]]:
    """(title, description, action) of `table`'s palette rows the screen offers now (its check_action)."""
    return [entry for entry in palette_entries(table) if screen.check_action(entry[2].split("(")[0], ()) is not False]


def show_help(screen: Screen, tables: Iterable[Iterable[Action]], legend: Sequence[tuple[Text, str]] = ()) -> None:
    """The help screen made from `tables`, then `legend`."""
    from ..screens import HelpScreen

    sections = [section for table in tables for section in help_sections(table)]
    screen.app.push_screen(HelpScreen(sections, list(legend)))


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
