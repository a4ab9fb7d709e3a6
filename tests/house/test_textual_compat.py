"""The private Textual APIs behind tui/textual_compat.py still exist with the signatures and roles it relies on: a
Textual upgrade that changes them fails here, by name. Also: nothing else in tui/ reaches for a private Textual
name."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest
from textual.app import App
from textual.dom import DOMNode
from textual.geometry import Size
from textual.message_pump import MessagePump
from textual.reactive import Reactive
from textual.scroll_view import ScrollView
from textual.widget import Widget

from turnlens.tui import textual_compat

TUI = Path(textual_compat.__file__).parent


def params(function) -> list[str]:
    return list(inspect.signature(function).parameters)


def test_the_crash_report_textual_makes_is_the_one_redone():
    assert params(App._fatal_error) == ["self"]
    source = inspect.getsource(App._fatal_error)
    # The redo keeps Textual's steps, with show_locals=False: if Textual's own report changes, look again.
    for step in ("self.bell()", "Traceback(", "show_locals=True", "self._exit_renderables.append(", "Segments("):
        assert step in source, step
    assert "self._close_messages_no_wait()" in source
    assert params(MessagePump._close_messages_no_wait) == ["self"]
    assert isinstance(App()._exit_renderables, list)
    assert textual_compat.CrashReportWithoutLocals._fatal_error is not App._fatal_error


def test_a_scrollable_size_without_a_layout_pass():
    assert isinstance(Widget.__dict__["virtual_size"], Reactive)
    assert params(Widget._scroll_update) == ["self", "virtual_size"]
    assert params(DOMNode.set_reactive) == ["self", "reactive", "value"]
    # What Textual itself does for a size change that needs no layout.
    source = inspect.getsource(Widget._size_updated)
    assert "self.set_reactive(Widget.virtual_size, virtual_size)" in source
    assert "self._scroll_update(virtual_size)" in source


async def test_set_virtual_size_without_layout_moves_the_scrollbar():
    class Scrolled(ScrollView):
        DEFAULT_CSS = "Scrolled { height: 5; }"

    class Host(App):
        def compose(self):
            yield Scrolled()

    async with Host().run_test(size=(40, 10)) as pilot:
        widget = pilot.app.query_one(Scrolled)
        textual_compat.set_virtual_size_without_layout(widget, Size(30, 100))
        await pilot.pause()
        assert widget.virtual_size == Size(30, 100)
        assert widget.max_scroll_y == 95
        assert widget.vertical_scrollbar.window_virtual_size == 100


def _private_textual_names() -> set[str]:
    """Private names of Textual's App, Screen and ScrollView: methods and class attributes of them and their bases,
    and the attributes an instance is made with."""
    from textual.screen import Screen

    names: set[str] = set()
    for cls in (App, Screen, ScrollView):
        for base in cls.__mro__:
            if base.__module__.startswith("textual"):
                names |= set(vars(base))
        names |= set(vars(cls()))
    return {n for n in names if n.startswith("_") and not n.startswith("__")}


@pytest.mark.parametrize(
    "path", sorted(p for p in TUI.rglob("*.py") if p.name != "textual_compat.py"), ids=lambda p: str(p.relative_to(TUI))
)
def test_no_other_module_reaches_for_a_private_textual_name(path: Path):
    """`self._x` (or `obj._x`) where `_x` is a private name of Textual's App, Screen or Widget classes: such a use
    goes through textual_compat (an attribute of turnlens' own that Textual's classes also name would show here
    too: it is one to rename, as it could shadow Textual's)."""
    private = _private_textual_names()
    used = {
        node.attr
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Attribute) and node.attr in private
    }
    defined = {
        node.name
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in private
    }
    assert not used and not defined, f"{path.relative_to(TUI)}: {sorted(used | defined)}"


def test_footer_keys_are_what_the_fitting_footer_measures():
    from textual.widgets import Footer

    key = textual_compat.FooterKey("c", "c", "Copy", "copy")
    assert (key.key_display, key.description) == ("c", "Copy")
    assert {"footer-key--key", "footer-key--description"} <= set(textual_compat.FooterKey.COMPONENT_CLASSES)
    source = inspect.getsource(Footer.compose)
    assert "FooterKey(" in source and '"-command-palette"' in source
    assert "self.recompose" in inspect.getsource(Footer.bindings_changed)


def test_the_theme_watcher_start_in_theme_stands_in_for():
    source = inspect.getsource(App._watch_theme)
    for step in ('f"-theme-{', '"-dark-mode"', '"-light-mode"', "self._refresh_truecolor_filter(self.ansi_theme)"):
        assert step in source, step
    assert "self.refresh_css" in source  # the whole stylesheet parsed again: what start_in_theme spares
    assert params(App._refresh_truecolor_filter) == ["self", "theme"]
    assert "Stylesheet(variables=self.get_css_variables())" in inspect.getsource(App.__init__)


@pytest.mark.parametrize("theme", ["nord", "textual-light"])
async def test_an_app_started_in_a_theme_is_as_one_whose_theme_was_set(theme, monkeypatch):
    from textual.css.stylesheet import Stylesheet
    from textual.widgets import Static

    reparsed: list[bool] = []
    reparse = Stylesheet.reparse
    monkeypatch.setattr(Stylesheet, "reparse", lambda self: (reparsed.append(True), reparse(self))[1])

    class Host(App):
        CSS = "Static { color: $primary; background: $boost; }"

        def __init__(self, started: bool) -> None:
            super().__init__()
            if started:
                textual_compat.start_in_theme(self, theme)
            else:
                self.theme = theme

        def compose(self):
            yield Static("x")

    seen = []
    for started in (False, True):
        reparsed.clear()
        async with Host(started).run_test(size=(20, 3)) as pilot:
            await pilot.pause()
            static = pilot.app.query_one(Static)
            seen.append((pilot.app.theme, set(pilot.app.classes), static.styles.color, static.styles.background))
            assert bool(reparsed) is not started
    assert seen[0] == seen[1]
    assert f"-theme-{theme}" in seen[1][1]


def test_the_resume_restyle_a_first_resume_skips():
    from textual.screen import Screen

    source = inspect.getsource(Screen._on_screen_resume)
    assert "if event.refresh_styles:" in source and "self.update_node_styles(" in source
    # handlers are called down the MRO, the subclass's first: its on_screen_resume runs before Screen's own
    assert "for cls in self.__class__.__mro__:" in inspect.getsource(MessagePump._get_dispatch_methods)


async def test_a_screen_pushed_is_not_restyled_whole_until_it_comes_back(monkeypatch):
    from textual import events
    from textual.widgets import Static

    restyled: list[str] = []
    update = DOMNode.update_node_styles
    monkeypatch.setattr(
        DOMNode,
        "update_node_styles",
        lambda self, animate=True: (restyled.append(type(self).__name__), update(self, animate))[1],
    )

    class Kept(textual_compat.FirstResumeKeepsStyles[None]):
        def compose(self):
            yield Static("kept", id="kept")

    class Host(App):
        CSS = "#kept { color: $primary; }"

    async with Host().run_test(size=(20, 3)) as pilot:
        kept = Kept()
        await pilot.app.push_screen(kept)
        await pilot.pause()
        assert "Kept" not in restyled
        assert kept.query_one("#kept", Static).styles.color == pilot.app.current_theme.to_color_system().primary
        kept.post_message(events.ScreenResume())  # made active again (as after a screen that was transparent)
        await pilot.pause()
        assert "Kept" in restyled  # as Textual restyles any screen


def test_the_header_title_textual_composes_is_the_one_replaced():
    from textual.widgets import Header
    from textual.widgets._header import HeaderTitle

    assert "layout" in params(HeaderTitle.update)
    assert "yield HeaderTitle()" in inspect.getsource(Header.compose)


async def test_a_new_subtitle_is_drawn_without_a_layout_pass():
    from textual.content import Content
    from textual.widgets._header import HeaderTitle

    class Host(App):
        def compose(self):
            yield textual_compat.TitleRepaintedHeader()

    async with Host().run_test(size=(60, 5)) as pilot:
        title = pilot.app.query_one(HeaderTitle)
        layouts: list[bool] = []
        refresh = title.refresh

        def counted(*regions, **options):
            layouts.append(options.get("layout", False))
            return refresh(*regions, **options)

        title.refresh = counted
        pilot.app.sub_title = "3 cases"
        await pilot.pause()
        assert layouts and not any(layouts)
        assert isinstance(title.content, Content) and "3 cases" in title.content.plain
        title.update(Content("two\nlines"))  # (a title that could change the header's height: laid out)
        assert layouts[-1] is True


def test_the_screen_css_loader_the_stylesheet_in_parts_extends():
    assert params(App._load_screen_css) == ["self", "screen"]
    source = inspect.getsource(App._load_screen_css)
    # What Textual does once it added a screen's CSS, which the rest of a stylesheet in parts does too.
    assert "self.stylesheet.reparse()" in source and "self.stylesheet.update(self)" in source


async def test_the_inspector_parses_the_other_screens_rules_once_another_screen_opens():
    """app.tcss's rules after OTHER_SCREENS_CSS are left out of the inspector's first frame; once another screen is
    pushed the stylesheet holds every rule of the file, as when it is read whole (the results view's app)."""
    from textual.css.stylesheet import Stylesheet
    from textual.screen import Screen

    from turnlens.tui.app import OTHER_SCREENS_CSS, TurnlensApp, make_app

    css = TUI / "app.tcss"
    assert css.read_text(encoding="utf-8").count("\n" + OTHER_SCREENS_CSS) == 1

    def own_rules(app: App) -> list[str]:
        return sorted(rule.css for rule in app.stylesheet.rules if not rule.is_default_rules)

    app = make_app(["sample_evals/code-review.yaml"], watch=False)
    assert isinstance(app, TurnlensApp)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        whole = Stylesheet(variables=app.get_css_variables())
        whole.read(css)
        every_rule = sorted(rule.css for rule in whole.rules)
        first = own_rules(app)
        assert first and len(first) < len(every_rule) and set(first) < set(every_rule)
        assert not any("GradingScreen" in rule or "ResultsScreen" in rule for rule in first)
        await app.push_screen(Screen())
        await pilot.pause()
        assert own_rules(app) == every_rule
    results = make_app(["sample_evals/.agentv/results"], watch=False)
    async with results.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert own_rules(results) == every_rule  # (read whole: its first screen is not the inspector)
