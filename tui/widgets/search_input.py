"""A search box above a list: typing filters the list (the screen or the list listens to Changed), enter submits and
gives the focus to the list."""

from __future__ import annotations

from textual import events
from textual.widgets import Input


class SearchInput(Input):
    """An Input whose enter gives the focus to `list_selector` (a query on its screen) at once.

    As Input's binding, enter is run once the key has bubbled up through the box's parents, and a parent busy
    refiltering for the keys typed before it (a screen of results, the inspector's case list) held it back: a key
    typed meanwhile went into the box, so that enter seemed to need pressing twice (issue 24.21). Here the key is
    handled by the box itself, before the next key is dispatched."""

    def __init__(self, *, list_selector: str, **options) -> None:
        super().__init__(**options)
        self.list_selector = list_selector

    async def _on_key(self, event: events.Key) -> None:
        if event.key == "enter":
            event.stop()
            event.prevent_default()
            await self.action_submit()  # Submitted is posted as Input posts it: the listeners run as before
            self.screen.set_focus(self.screen.query_one(self.list_selector))
            return
        await super()._on_key(event)
