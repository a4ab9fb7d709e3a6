"""The toolbar above the panes: the case's title, then chips (one-line clickable labels) that show the state of a
toggle or name an action with its key. The chips' format (levels of texts given by the screen, widest first) follows
the toolbar's width only, never the title's length, so that it stays the same from case to case and file to file;
a title that does not fit beside them has its id cut, its file:line kept."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Static

from ..render import case_title
from .chip import Chip

CHIP_CHROME = 3  # a chip's padding (1 each side) and left margin
TITLE_PADDING = 2
# Cells left for the title when choosing the chips' format: a typical id and file:line beside the short chips, a
# long one beside the full ones (at 200 columns the full chips cut the samples' paths).
TITLE_ROOM = 60
TITLE_ROOM_FULL = 90
WIDE_ONLY = ("evaluator-chip", "diff-chip")  # chips not shown on a narrow screen (app.tcss)

ChipTexts = dict[str, Text | None]  # chip id -> its text (None: hidden)


class Toolbar(Horizontal):
    def __init__(self, chips: dict[str, str], *, id: str | None = None) -> None:
        """`chips`: chip id -> the action it runs when clicked."""
        super().__init__(id=id)
        self._actions = chips
        self._levels: list[ChipTexts] = []
        self._title_need = 0  # cells the title needs whole (id and file:line): the chips shorten first
        self._title_parts: tuple[str, str] | None = None  # (id, file:line) of the case shown
        self._narrow = False
        self._fallback_width = 0  # the screen's width, until this row is laid out

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

    def set_chips(self, levels: list[ChipTexts]) -> None:
        """The chips' texts, widest first: the first level that leaves the title whole is shown."""
        self._levels = levels
        self.fit()

    def set_narrow(self, narrow: bool, screen_width: int) -> None:
        """The screen is narrow (the evaluator and diff chips are not shown) and this wide."""
        self._fallback_width = screen_width
        if narrow != self._narrow:
            self._narrow = narrow
            self.fit()

    # -- fitting

    def on_resize(self) -> None:
        self.fit()

    def _cells(self, texts: ChipTexts) -> int:
        return sum(
            text.cell_len + CHIP_CHROME
            for chip_id, text in texts.items()
            if text is not None and not (self._narrow and chip_id in WIDE_ONLY)
        )

    def fit(self) -> None:
        """The chips at the widest level that leaves TITLE_ROOM cells for the title (TITLE_ROOM_FULL for the widest);
        the title cut to fit."""
        if not self._levels or not self.is_mounted:
            return
        available = self.size.width or self._fallback_width
        chosen = self._levels[-1]
        for level, texts in enumerate(self._levels):
            room = TITLE_ROOM_FULL if level == 0 and len(self._levels) > 1 else TITLE_ROOM
            if room + TITLE_PADDING + self._cells(texts) <= available:
                chosen = texts
                break
        for chip_id, text in chosen.items():
            chip = self.query_one(f"#{chip_id}", Chip)
            chip.set_class(text is None, "-hidden")
            if text is not None:
                chip.set_state(text)
        if self._title_parts is not None:
            # Even the shortest chips leave too little room: the id is cut, its file:line stays.
            room = available - self._cells(chosen) - TITLE_PADDING
            fitted = case_title(*self._title_parts, room if self._title_need > room > 0 else 0)
            title = self.query_one("#case-title", Static)
            if title.content != fitted:
                title.update(fitted, layout=False)
