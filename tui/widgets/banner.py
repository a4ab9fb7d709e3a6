"""The banner above the panes: refused files, file-level warnings and notes; hidden when there is none."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

KINDS = ("error", "warning", "note")  # the colour of the banner (app.tcss): errors first, then warnings, then notes


class Banner(Static):
    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id, markup=False)

    def show(self, text: Text | None, kind: str = "error") -> None:
        """Show `text` in the colour of `kind` (one of KINDS); None hides the banner."""
        self.set_class(kind == "warning", "-warning")
        self.set_class(kind == "note", "-note")
        self.update(text or "")
        self.set_class(text is not None, "-visible")
