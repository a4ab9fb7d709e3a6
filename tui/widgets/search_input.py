"""A search box above a list: typing filters the list (its owner listens to Changed), enter submits and gives the
focus to the list."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from textual.binding import Binding, BindingType
from textual.widgets import Input


class SearchInput(Input):
    """An Input whose enter submits and runs `focus_list` (given by its owner: the focus to the list) at once.

    As Input's plain binding, enter was run once the key had bubbled up through the box's parents, and a parent busy
    refiltering for the keys typed before it (a screen of results, the inspector's case list) held it back: a key
    typed meanwhile went into the box, so that enter seemed to need pressing twice (issue 24.21). A priority binding
    is run when the key is dispatched, before the next key."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("enter", "submit", "Submit", show=False, priority=True)]

    def __init__(self, *, focus_list: Callable[[], object], **options: Any) -> None:
        super().__init__(**options)
        self._focus_list = focus_list

    async def action_submit(self) -> None:
        await super().action_submit()  # Submitted is posted as Input posts it: the listeners run as before
        self._focus_list()
