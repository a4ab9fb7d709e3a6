"""The banner above the panes: refused files, file-level warnings and notes; hidden when there is none.

One line by default (the first problem, and how many more there are), so that a small terminal keeps its cases on
screen; expanded on demand (a click, or the screen's key) to every line, and dismissable until what it says changes.
"""

from __future__ import annotations

from rich.text import Text
from textual.message import Message
from textual.widgets import Static

KINDS = ("error", "warning", "note")  # the colour of the banner (app.tcss): errors first, then warnings, then notes
EXPANDED_LINES = 10  # lines shown expanded (app.tcss gives the banner that many rows at most)


class Banner(Static):
    class Toggled(Message):
        """The banner was clicked: the screen expands or collapses it (its key does the same)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id, markup=False)
        self._lines: list[Text] = []
        self._kind = "error"
        self._keys = ("", "")  # the screen's keys to expand and to dismiss, named in the collapsed line
        self.expanded = False
        self._dismissed: tuple[str, ...] | None = None  # what was showing when it was dismissed

    def set_keys(self, expand: str, dismiss: str) -> None:
        self._keys = (expand, dismiss)

    @property
    def lines(self) -> int:
        return len(self._lines)

    @property
    def showing(self) -> bool:
        return bool(self._lines) and not self.is_dismissed

    @property
    def is_dismissed(self) -> bool:
        return self._dismissed is not None and self._dismissed == tuple(line.plain for line in self._lines)

    def show(self, lines: list[Text], kind: str = "error") -> None:
        """Show `lines` in the colour of `kind` (one of KINDS); no lines hides the banner. Dismissed, it stays
        hidden until the lines change."""
        self._lines = list(lines)
        self._kind = kind
        self._draw()

    def toggle(self) -> None:
        self.expanded = not self.expanded
        self._draw()

    def dismiss(self) -> None:
        self._dismissed = tuple(line.plain for line in self._lines)
        self._draw()

    def _draw(self) -> None:
        self.set_class(self._kind == "warning", "-warning")
        self.set_class(self._kind == "note", "-note")
        self.set_class(self.expanded, "-expanded")
        visible = self.showing
        self.set_class(visible, "-visible")
        self.update(self._text() if visible else "")

    def _text(self) -> Text:
        expand, dismiss = self._keys
        hint = Text(end="", style="italic")
        more = len(self._lines) - 1
        if self.expanded:
            shown = self._lines[:EXPANDED_LINES]
            if len(self._lines) > EXPANDED_LINES:
                hidden = len(self._lines) - (EXPANDED_LINES - 1)
                shown = shown[: EXPANDED_LINES - 1]
                shown.append(
                    Text(f" … and {hidden} more (`turnlens export` on these files prints every one)", style="italic")
                )
            keys = [f"{expand} one line" if expand else "", f"{dismiss} dismiss" if dismiss else ""]
            hint.append("  " + " · ".join(k for k in keys if k))
            out = Text("\n", end="").join(shown)
            out.append_text(hint)
            return out
        first = self._lines[0].split("\n")
        line = first[0]  # a message of several lines: its first here
        line.no_wrap = True
        line.overflow = "ellipsis"
        width = self.size.width - 2 if self.size.width else 0
        keys = [f"+{more} more" if more else "", "", f"{dismiss} dismiss" if dismiss else ""]
        cut = len(first) > 1 or (width > 0 and line.cell_len + len("  " + " · ".join(k for k in keys if k)) > width)
        if expand and (more or cut):
            keys[1] = f"{expand} all"
        hint.append("  " + " · ".join(k for k in keys if k))
        # The hint is kept whole: say what there is and how to see it, then as much of the problem as fits.
        return _fit_with_hint(line, hint, width)

    def on_resize(self) -> None:
        if self.showing and not self.expanded:
            self._draw()

    def on_click(self) -> None:
        self.post_message(self.Toggled())


def _fit_with_hint(line: Text, hint: Text, width: int) -> Text:
    """`line` cut with an ellipsis so that `hint` still fits after it on one row of `width` cells."""
    if width <= 0 or line.cell_len + hint.cell_len <= width:
        return Text.assemble(line, hint, end="", no_wrap=True, overflow="ellipsis")
    line.truncate(max(1, width - hint.cell_len), overflow="ellipsis")
    return Text.assemble(line, hint, end="", no_wrap=True, overflow="ellipsis")
