"""A footer that ends cleanly at every width: the key entries that do not fit are left out whole.

Textual's Footer lays its keys out in a row and clips the row at the screen's edge, so on a narrow terminal the
last visible entry is cut mid-label ("o E"). Here the entries are kept in their binding order (the screens put
what must stay visible first) up to the last one that fits beside the command palette's key, and the rest are
hidden until the footer is wide enough again.
"""

from __future__ import annotations

from typing import Any

from rich.cells import cell_len
from textual.screen import Screen
from textual.widgets import Footer

from ..textual_compat import FooterKey


def entry_width(key: FooterKey) -> int:
    """Columns the entry takes in the footer's row: its label (key, description and their padding, as
    FooterKey.render draws them), its own padding and border, and the margin after it."""
    key_padding = key.get_component_styles("footer-key--key").padding
    text = cell_len(key.key_display) + key_padding.left + key_padding.right
    if key.description:
        description_padding = key.get_component_styles("footer-key--description").padding
        text += cell_len(key.description) + description_padding.left + description_padding.right
    styles = key.styles
    return text + styles.gutter.width + styles.margin.left + styles.margin.right


class FittingFooter(Footer):
    """Footer whose entries past the width are hidden whole, never cut."""

    _recompose_waiting = False  # a recompose for changed bindings is scheduled and has not started
    _bindings_screen: Screen[Any] | None = None  # the screen whose bindings changed last

    def on_resize(self) -> None:
        self._fit()

    def on_mount(self) -> None:
        # Not super().on_mount(): Textual calls Footer's own on_mount as well, and a second subscription to the
        # screen's bindings signal made every change of bindings recompose the footer twice.
        self.call_after_refresh(self._fit)

    def bindings_changed(self, screen: Screen[Any]) -> None:
        # Bindings change in bursts (focus moves, a load's steps, refresh_bindings): one recompose, made when it
        # runs, shows the last of them; each one rebuilds every key (~20 ms, several after the first frame).
        if self._recompose_waiting:
            return
        self._bindings_screen = screen  # (what the keys are drawn from, read again when the rebuild runs)
        super().bindings_changed(screen)  # the screen is the footer's own: it subscribes to its screen's signal
        self._recompose_waiting = self.is_attached and screen.app.app_focus  # as Footer decides to recompose

    async def recompose(self) -> None:
        self._recompose_waiting = False
        drawn = self._drawn()
        screen = self._bindings_screen
        if drawn and screen is not None and drawn == to_draw(screen, self.show_command_palette):
            # Nothing the keys show changed (a load's last step, the banner's keys enabled, a focus move within the
            # same bindings): the keys drawn stay. A rebuild remakes and styles every key, 35-50 ms of the event loop
            # each time, one of them just after the first frame when a load ends. (The first build, before the first
            # frame, is made without this check.)
            return
        await super().recompose()
        self._fit()

    def _drawn(self) -> list[tuple[object, ...]]:
        """The keys drawn: each one's key, display, label, action, whether it is disabled, and its tooltip."""
        return [
            (key.key, key.key_display, key.description, key.action, key.has_class("-disabled"), key.tooltip)
            for key in self.query_children(FooterKey)
        ]

    def _fit(self) -> None:
        width = self.size.width
        if width <= 0:
            return
        keys = list(self.query_children(FooterKey))
        palette = [key for key in keys if key.has_class("-command-palette")]
        room = width - sum(entry_width(key) for key in palette)
        used = 0
        fits = True
        for key in keys:
            if key in palette:
                continue
            needed = entry_width(key)
            # The margin after the last entry shown may fall off the edge; its label may not.
            fits = fits and used + needed - key.styles.margin.right <= room
            key.display = fits
            if fits:
                used += needed


def to_draw(screen: Screen[Any], show_command_palette: bool) -> list[tuple[object, ...]] | None:
    """What Footer.compose would draw from `screen`'s bindings now, in the form of FittingFooter._drawn (None: a
    binding in a group, which it draws otherwise: always rebuilt)."""
    app = screen.app
    active = screen.active_bindings
    keys: dict[str, tuple[object, ...]] = {}
    for _node, binding, enabled, tooltip in active.values():
        if not binding.show:
            continue
        if binding.group is not None:
            return None
        display = app.get_key_display(binding)
        keys.setdefault(
            binding.action,
            (binding.key, display, binding.description, binding.action, not enabled, tooltip or None),
        )
    out = list(keys.values())
    palette = active.get(app.COMMAND_PALETTE_BINDING) if show_command_palette and app.ENABLE_COMMAND_PALETTE else None
    if palette is not None:
        _node, binding, enabled, _tooltip = palette
        tip = binding.tooltip or binding.description
        out.append(
            (
                binding.key,
                app.get_key_display(binding),
                binding.description,
                binding.action,
                not enabled,
                tip or None,
            )
        )
    return out
