"""A titled, focusable, scrollable, maximisable pane showing one piece of a case."""

from __future__ import annotations

from typing import Optional

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static


class Pane(VerticalScroll, can_focus=True):
    """Holds one rich Text; knows the exact string to copy (the raw value, not the decorated view)."""

    ALLOW_MAXIMIZE = True

    DEFAULT_CSS = """
    Pane { border: round $panel-lighten-2; padding: 0 1; }
    Pane:focus { border: round $accent; }
    Pane > Static { width: 1fr; }
    """

    def __init__(self, title: str, *, id: Optional[str] = None, classes: Optional[str] = None) -> None:
        super().__init__(id=id, classes=classes)
        self.border_title = Content(title)
        self.copy_text = ""
        self._body = Static("", markup=False)

    def compose(self) -> ComposeResult:
        yield self._body

    def show(self, text: Text, copy_text: str, *, subtitle: str = "", keep_scroll: bool = True) -> None:
        """Replace the contents; `keep_scroll=False` goes back to the top (a different case)."""
        self.copy_text = copy_text
        self.border_subtitle = Content(subtitle)
        self._body.update(text)
        if not keep_scroll:
            self.scroll_home(animate=False, immediate=True)

    def set_title(self, title: str) -> None:
        self.border_title = Content(title)

    @property
    def body_text(self) -> str:
        """What the pane shows, as plain text (for tests)."""
        visual = self._body.visual
        return visual.plain if hasattr(visual, "plain") else str(visual)
