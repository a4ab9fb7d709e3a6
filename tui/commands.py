"""Command palette providers: jump to a case by id."""

from __future__ import annotations

from functools import partial

from rich.text import Text
from textual.command import DiscoveryHit, Hit, Hits, Provider


def _case_prompt(label: str, where: str, offsets: tuple[int, ...] = ()) -> Text:
    # Built as Text: the palette would parse a plain string (a case id such as "[bold]") as markup.
    text = Text(label, end="")
    for offset in offsets:
        if offset < len(label):
            text.stylize("bold underline", offset, offset + 1)
    text.append("  " + where, style="dim")
    return text


class CaseCommands(Provider):
    """Every case of the inspector screen, by id."""

    def _choices(self):
        from .inspector import InspectorScreen

        screen = self.screen
        if not isinstance(screen, InspectorScreen):
            return screen, []
        return screen, screen.case_choices()

    async def discover(self) -> Hits:
        screen, choices = self._choices()
        for key, label, summary in choices:
            yield DiscoveryHit(_case_prompt(label, summary), partial(screen.select_case, key), text=label)

    async def search(self, query: str) -> Hits:
        screen, choices = self._choices()
        matcher = self.matcher(query)
        for key, label, summary in choices:
            score = matcher.match(label)
            if score > 0:
                offsets = matcher.fuzzy_search.match(query, label)[1]
                yield Hit(
                    score, _case_prompt(label, summary, tuple(offsets)), partial(screen.select_case, key), text=label
                )
