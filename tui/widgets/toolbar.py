"""The toolbar above the panes: the case's title, then chips (one-line clickable labels) that show the state of a
toggle or name an action with its key. The chips' format (levels of texts given by the screen, widest first) follows
the toolbar's width only, never the title's length nor the toggles' state, so that it stays the same from case to
case, file to file and mode to mode; a title that does not fit beside them has its id cut, its file:line kept."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Static

from ..render import case_title
from .chip import Chip

CHIP_CHROME = 3  # a chip's padding (1 each side) and left margin
TITLE_PADDING = 2
# Cells left for the title when choosing the chips' format, whatever the layout: a short id and the end of its file
# name with the line beside the short chips (from 120 columns, as the list then names the case whole: 120 less the
# standard list leaves 82 cells, 38 beside the widest short chips), a long id and file:line beside the full ones (at
# 200 columns the full chips cut the samples' paths).
TITLE_ROOM = 38
TITLE_ROOM_FULL = 90

ChipTexts = dict[str, Text | None]  # chip id -> its text (None: hidden)


def chip_cells(texts: ChipTexts) -> int:
    """The cells the chips shown take in the toolbar."""
    return sum(text.cell_len + CHIP_CHROME for text in texts.values() if text is not None)


class Toolbar(Horizontal):
    def __init__(self, chips: dict[str, str], *, id: str | None = None) -> None:
        """`chips`: chip id -> the action it runs when clicked."""
        super().__init__(id=id)
        self._actions = chips
        self._levels: list[ChipTexts] = []
        self._most_cells: list[int] = []  # the most cells each level takes, whatever the toggles' state
        self._title_need = 0  # cells the title needs whole (id and file:line): the chips shorten first
        self._title_parts: tuple[str, str] | None = None  # (id, file:line) of the case shown
        self._fallback_width = 0  # the toolbar's width from the screen's, until this row is laid out

    def compose(self) -> ComposeResult:
        yield Static("", id="case-title", markup=False)
        for chip_id, action in self._actions.items():
            yield Chip(action, id=chip_id)

    # -- data down

    def show_title(self, title: Text, parts: tuple[str, str] | None = None, *, layout: bool = True) -> None:
        """The title: a case's (`parts`: its id and file:line, so that the id can be cut to fit) or a message."""
        self.query_one("#case-title", Static).update(title, layout=layout)
        self._title_need = title.cell_len
        self._title_parts = parts
        self.fit()

    def set_chips(self, levels: list[ChipTexts], most_cells: list[int] | None = None) -> None:
        """The chips' texts, widest first: the first level that leaves the title its room is shown. `most_cells`:
        the most cells each level takes in any state of the toggles (`chip_cells`), so that a toggle's longer
        text does not change the format; by default, the cells of `levels`."""
        self._levels = levels
        self._most_cells = most_cells or [chip_cells(texts) for texts in levels]
        self.fit()

    def set_width(self, width: int) -> None:
        """The toolbar's width as the screen lays it out (used until the toolbar itself is laid out)."""
        if width != self._fallback_width:
            self._fallback_width = width
            self.fit()

    # -- fitting

    def on_resize(self) -> None:
        self.fit()

    def fit(self) -> None:
        """The chips at the widest level that leaves TITLE_ROOM cells for the title (TITLE_ROOM_FULL for the widest);
        the title cut to fit."""
        if not self._levels or not self.is_mounted:
            return
        available = self.size.width or self._fallback_width
        chosen = self._levels[-1]
        for level, texts in enumerate(self._levels):
            room = TITLE_ROOM_FULL if level == 0 and len(self._levels) > 1 else TITLE_ROOM
            if room + TITLE_PADDING + self._most_cells[level] <= available:
                chosen = texts
                break
        for chip_id, text in chosen.items():
            chip = self.query_one(f"#{chip_id}", Chip)
            chip.set_class(text is None, "-hidden")
            if text is not None:
                chip.set_state(text)
        if self._title_parts is not None:
            # Even the shortest chips leave too little room: the id is cut, its file:line stays.
            room = available - chip_cells(chosen) - TITLE_PADDING
            fitted = case_title(*self._title_parts, room if self._title_need > room > 0 else 0)
            title = self.query_one("#case-title", Static)
            if title.content != fitted:
                title.update(fitted, layout=False)
