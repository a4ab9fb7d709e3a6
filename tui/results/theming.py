"""The results screens follow the app's theme: the lists, headers and details are rich Text coloured from the theme's
palette (tui/theme.py), so a theme chosen in the palette makes them redraw."""

from __future__ import annotations

from textual.screen import Screen
from textual.theme import Theme

from ..theme import generation, use_theme


class ThemedScreen(Screen[None]):
    """A screen whose content is drawn with the theme's palette: `redraw` runs whenever the palette changes."""

    _drawn_generation = -1

    def follow_theme(self) -> None:
        """Call from on_mount."""
        self._drawn_generation = generation()
        self.app.theme_changed_signal.subscribe(self, self._theme_changed)

    def _theme_changed(self, theme: Theme) -> None:
        use_theme(theme)  # whichever screen hears of it first makes it the palette's
        if generation() != self._drawn_generation:
            self._drawn_generation = generation()
            self.redraw()

    def redraw(self) -> None:
        """Draw again what was drawn with the previous palette."""
