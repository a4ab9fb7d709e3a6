"""The results screens' help, made from their action tables (their palette is tui/commands.TableCommands)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from rich.text import Text
from textual.screen import Screen

from ..actions import Action, help_sections


def show_help(screen: Screen[Any], tables: Iterable[Iterable[Action]], legend: Sequence[tuple[Text, str]] = ()) -> None:
    """The help screen made from `tables`, then `legend`."""
    from ..screens import HelpScreen

    sections = [section for table in tables for section in help_sections(table)]
    screen.app.push_screen(HelpScreen(sections, list(legend)))
