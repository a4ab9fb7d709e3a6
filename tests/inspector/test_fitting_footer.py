"""The footer follows its screen's bindings with one rebuild per burst of changes (each rebuild remakes every key)."""

from __future__ import annotations

from textual.app import App
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Input

from turnlens.tui.textual_compat import FooterKey
from turnlens.tui.widgets.footer import FittingFooter


class Counted(FittingFooter):
    recomposed = 0

    async def recompose(self) -> None:
        Counted.recomposed += 1
        await super().recompose()


class Keys(Screen):
    BINDINGS = [Binding("f1", "alpha", "Alpha"), Binding("f2", "beta", "Beta")]
    shown = True

    def compose(self):
        yield Input(id="one")
        yield Input(id="two")
        yield Counted()

    def action_alpha(self) -> None:
        pass

    def action_beta(self) -> None:
        pass

    def check_action(self, action, parameters):
        return self.shown if action in ("alpha", "beta") else True


class Host(App):
    def on_mount(self) -> None:
        self.push_screen(Keys())


async def test_a_burst_of_binding_changes_rebuilds_the_footer_once():
    async with Host().run_test(size=(80, 10)) as pilot:
        await pilot.pause()
        screen = pilot.app.screen
        Counted.recomposed = 0
        screen.query_one("#one").focus()
        screen.refresh_bindings()
        screen.query_one("#two").focus()
        screen.shown = False  # the last change: Alpha and Beta hidden
        screen.refresh_bindings()
        await pilot.pause()
        await pilot.pause()
        # One rebuild for the burst (a change posted once it has begun makes a second); eight before.
        # One rebuild for the burst (a change posted once it has begun makes a second); eight before.
        assert Counted.recomposed <= 2
        labels = [key.description for key in screen.query(FooterKey)]
        assert "Alpha" not in labels and "Beta" not in labels
        screen.shown = True
        before = Counted.recomposed
        screen.refresh_bindings()
        await pilot.pause()
        await pilot.pause()
        assert Counted.recomposed == before + 1
        assert {"Alpha", "Beta"} <= {key.description for key in screen.query(FooterKey)}


async def test_a_change_of_bindings_that_changes_no_key_shown_keeps_the_keys_drawn():
    """A load's last step or a focus move that leaves the footer's keys as they were does not rebuild them (each
    rebuild remakes and styles every key); a change of what a key shows does."""
    async with Host().run_test(size=(80, 10)) as pilot:
        await pilot.pause()
        screen = pilot.app.screen
        footer = screen.query_one(Counted)
        keys = list(footer.query_children(FooterKey))
        assert {"Alpha", "Beta"} <= {key.description for key in keys}
        screen.query_one("#two").focus()  # the same bindings: nothing the footer shows changes
        screen.refresh_bindings()
        await pilot.pause()
        await pilot.pause()
        assert list(footer.query_children(FooterKey)) == keys  # the same widgets: not rebuilt
        screen.shown = False
        screen.refresh_bindings()
        await pilot.pause()
        await pilot.pause()
        assert "Alpha" not in {key.description for key in footer.query_children(FooterKey)}
        screen.shown = True
        screen.refresh_bindings()
        await pilot.pause()
        await pilot.pause()
        assert {"Alpha", "Beta"} <= {key.description for key in footer.query_children(FooterKey)}
