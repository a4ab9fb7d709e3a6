"""A footer that ends cleanly at every width: the key entries that do not fit are left out whole.

Textual's Footer lays its keys out in a row and clips the row at the screen's edge, so on a narrow terminal the
last visible entry is cut mid-label ("o E"). Here the entries are kept in their binding order (the screens put
what must stay visible first) up to the last one that fits beside the command palette's key, and the rest are
hidden until the footer is wide enough again.
"""

from __future__ import annotations

from rich.cells import cell_len
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

    def on_resize(self) -> None:
        self._fit()

    def on_mount(self) -> None:
        super().on_mount()
        self.call_after_refresh(self._fit)

    async def recompose(self) -> None:
        await super().recompose()
        self._fit()

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
