"""The private Textual APIs turnlens relies on, in one place.

Textual is pinned (pyproject.toml); these are not part of its public API and may change with any release.
tests/house/test_textual_compat.py checks that each still exists with the signature and the role used here, so
an upgrade fails there, by name, rather than somewhere in the app.
"""

from __future__ import annotations

from typing import Any, TypeVar

import rich
from rich.segment import Segments
from textual import events
from textual.app import App, ComposeResult
from textual.content import Content
from textual.geometry import Size
from textual.screen import Screen
from textual.visual import VisualType
from textual.widget import Widget
from textual.widgets import Header
from textual.widgets._footer import FooterKey
from textual.widgets._header import HeaderTitle

__all__ = [
    "CrashReportWithoutLocals",
    "StylesheetInParts",
    "FooterKey",
    "FirstResumeKeepsStyles",
    "TitleRepaintedHeader",
    "set_virtual_size_without_layout",
    "start_in_theme",
]


def start_in_theme(app: App[Any], name: str) -> None:
    """Make the registered theme `name` the one `app` starts in, from its __init__. Setting `App.theme` there runs
    Textual's theme watcher, which has the whole stylesheet parsed again once the app runs (~15 ms before the first
    frame): the first parse used the variables of the default theme, made when the app was. Here the theme is set
    without the watcher and the stylesheet gets its variables before anything is parsed; the rest of what the
    watcher does (the app's theme classes, the ANSI colour filter) is done as it does it."""
    theme = app.get_theme(name)
    assert theme is not None, name
    app.set_reactive(App.theme, name)
    app.update_classes(
        {
            **{cls: False for cls in app.classes if cls.startswith("-theme-")},
            f"-theme-{theme.name}": True,
            "-dark-mode": theme.dark,
            "-light-mode": not theme.dark,
        },
        update=False,
    )
    app._refresh_truecolor_filter(app.ansi_theme)
    app.stylesheet.set_variables(app.get_css_variables())


class StylesheetInParts(App[None]):
    """An app whose one CSS file (CSS_PATH) can be parsed in two parts (`parse_css_in_parts`): its rules up to a line
    starting with a marker, before the first screen's first frame, and the rules after it once another screen opens.
    Textual parses the whole file before the first frame. The rest is added where Textual loads a pushed screen's
    own CSS (`App._load_screen_css`), and the stylesheet is parsed again and applied as Textual does it there."""

    _later_css: tuple[str, tuple[str, str]] | None = None  # (the rules after the marker, where they were read from)
    _first_screen_pushed = False

    def parse_css_in_parts(self, marker: str) -> None:
        """From __init__: the CSS file's rules up to the line starting with `marker` for the first screen pushed, the
        rest for any screen pushed after it. Without that line, the file is read whole as Textual reads it."""
        (path,) = self.css_path
        with open(path, encoding="utf-8") as css_file:
            text = css_file.read()
        at = text.find("\n" + marker)
        if at < 0:
            return
        first, later = text[: at + 1], text[at + 1 :]
        self.css_path = []  # (Textual would read the file whole as the app starts)
        self.stylesheet.add_source(first, read_from=(str(path), ""))
        # (the rest after as many empty lines as come before it: an error in it names its line in the file)
        self._later_css = ("\n" * first.count("\n") + later, (str(path), marker))

    def _load_screen_css(self, screen: Screen[Any]) -> None:
        later = self._later_css
        if later is not None and self._first_screen_pushed:
            self._later_css = None
            self.stylesheet.add_source(later[0], read_from=later[1])
            self.stylesheet.reparse()
            self.stylesheet.update(self)
        self._first_screen_pushed = True
        super()._load_screen_css(screen)


class CrashReportWithoutLocals(App[None]):
    """Textual's crash report without the local variables of each frame: they hold the parsed eval and results
    data (untrusted, possibly large or secret) and would be printed to the terminal. Textual has no option for it,
    so its `App._fatal_error` is redone here with show_locals=False (its other steps as Textual takes them)."""

    def _fatal_error(self) -> None:
        # imported here: rich.traceback (with rich.pretty) is ~30 ms of every start, and only a crash needs it
        from rich.traceback import Traceback

        self.bell()
        traceback = Traceback(show_locals=False, width=None, suppress=[rich])
        self._exit_renderables.append(Segments(self.console.render(traceback, self.console.options)))
        self._close_messages_no_wait()


def set_virtual_size_without_layout(widget: Widget, size: Size, *, repaint: bool = True) -> None:
    """Set a widget's scrollable size without the screen-wide layout pass that setting `virtual_size` asks for:
    only its scrollbars follow, as Textual does itself for a size change that needs no layout
    (`Widget._size_updated` with layout=False). `repaint`: the widget's lines are drawn again too (not needed when
    only lines below those shown were added)."""
    widget.set_reactive(Widget.virtual_size, size)
    widget._scroll_update(size)
    if repaint:
        widget.refresh()


ResultType = TypeVar("ResultType")


class FirstResumeKeepsStyles(Screen[ResultType]):
    """A screen whose first ScreenResume (pushing it) does not restyle it whole. Textual's `Screen._on_screen_resume`
    computes the styles of every widget again when a screen is made active, for a screen coming back after the theme
    or the CSS changed under it; a screen just pushed had each widget's styles computed as it was mounted, with every
    class and pseudo-class change restyling what it touched since, so this pass made the same styles again (38 of
    the 93 style applications before the inspector's first frame, 1.5% of its instructions). Later resumes restyle as
    Textual does. This handler runs before Textual's: handlers are called down the class's MRO, the subclass's
    first."""

    _resumed_once = False

    def on_screen_resume(self, event: events.ScreenResume) -> None:
        if not self._resumed_once:
            self._resumed_once = True
            event.refresh_styles = False


class _RepaintedTitle(HeaderTitle):
    """Textual's header title, drawn again without a layout pass when it changes to one line (its size stays: the
    header's width, one line)."""

    def update(self, content: VisualType = "", *, layout: bool | None = None) -> None:
        if layout is None:
            layout = not isinstance(content, Content) or "\n" in content.plain
        super().update(content, layout=layout)


class TitleRepaintedHeader(Header):
    """Textual's Header, its title and subtitle only drawn again when they change. Textual's HeaderTitle updates
    with a layout pass of the whole screen; while a big dataset is listed the count in the subtitle changes twice a
    second, and these passes took ~0.3 s of the event loop's ~0.9 s while 50,000 tests were listed."""

    def compose(self) -> ComposeResult:
        for widget in super().compose():
            yield _RepaintedTitle() if type(widget) is HeaderTitle else widget
