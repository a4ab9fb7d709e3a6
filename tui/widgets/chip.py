"""A one-line clickable label that runs an action: the visible state of a toggle."""

from __future__ import annotations

from rich.text import Text
from textual.message import Message
from textual.widgets import Static


class Chip(Static):
    """Posts `Chip.Clicked` when clicked: the screen runs the chip's action."""

    DEFAULT_CSS = """
    Chip { width: auto; height: 1; padding: 0 1; margin: 0 0 0 1; background: $boost; }
    Chip:hover { background: $accent 40%; }
    """

    class Clicked(Message):
        def __init__(self, chip: Chip) -> None:
            super().__init__()
            self.chip = chip

        @property
        def control(self) -> Chip:
            return self.chip

    def __init__(self, action: str, *, id: str | None = None) -> None:
        super().__init__("", id=id, markup=False)
        self.action = action
        self._state: Text | None = None

    def set_state(self, text: Text) -> None:
        if text != self._state:  # an update lays the screen out again (the chip's width follows its text)
            self._state = text
            self.update(text)

    def on_click(self) -> None:
        self.post_message(self.Clicked(self))
