"""A search box above a list: typing filters the list (its owner listens to Changed), enter submits and gives the
focus to the list."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual import events
from textual.widgets import Input


class SearchInput(Input):
    """An Input whose enter runs `focus_list` (given by its owner: the focus to the list) at once.

    As Input's binding, enter is run once the key has bubbled up through the box's parents, and a parent busy
    refiltering for the keys typed before it (a screen of results, the inspector's case list) held it back: a key
    typed meanwhile went into the box, so that enter seemed to need pressing twice (issue 24.21). Here the key is
    handled by the box itself, before the next key is dispatched."""

    def __init__(self, *, focus_list: Callable[[], object], **options: Any) -> None:
        super().__init__(**options)
        self._focus_list = focus_list

    async def _on_key(self, event: events.Key) -> None:
        if event.key == "enter":
            event.stop()
            event.prevent_default()
            await self.action_submit()  # Submitted is posted as Input posts it: the listeners run as before
            self._focus_list()
            return
        await super()._on_key(event)
