"""The panes of a case, numbered in reading order: each shows one piece of what the case becomes."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical

from .pane import Pane, PaneText


class CasePanes(Vertical):
    """Holds the panes (laid out by app.tcss: a grid when wide, stacked when narrow) and shows a case's texts in
    them. `panes`: (id, title) in reading order; a title "a / b" is shown as "a" until a case gives its own."""

    def __init__(self, panes: tuple[tuple[str, str], ...], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._panes = panes

    def compose(self) -> ComposeResult:
        for number, (pane_id, title) in enumerate(self._panes, 1):
            yield Pane(title.split(" / ")[0], key=str(number), id=pane_id)

    def pane(self, pane_id: str) -> Pane:
        return self.query_one(f"#{pane_id}", Pane)

    def show(
        self,
        contents: dict[str, PaneText],
        subtitles: dict[str, str],
        *,
        titles: dict[str, str] | None = None,
        keep_scroll: bool = False,
    ) -> None:
        """Each pane's text (by pane id) with its subtitle; `titles` renames panes whose title depends on the case."""
        for pane_id, title in (titles or {}).items():
            pane = self.pane(pane_id)
            if pane.title_name != title:
                pane.set_title(title)
        for pane_id, content in contents.items():
            self.pane(pane_id).show(content, subtitle=subtitles.get(pane_id, ""), keep_scroll=keep_scroll)

    def show_message(self, pane_id: str, body: PaneText) -> None:
        """`body` in one pane, the others empty (no case to show)."""
        for pane in self.query(Pane):
            pane.show(body if pane.id == pane_id else PaneText(Text(""), ""))

    def widths(self) -> dict[str, int]:
        """The width each pane gives its text now (to wrap views ahead at)."""
        return {pane.id or "": pane.content_width for pane in self.query(Pane)}
