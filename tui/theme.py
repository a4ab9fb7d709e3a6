"""The content's colours by meaning (roles, files, warnings, badges, diff marks), taken from the Textual theme.

The panes draw rich Text, whose styles cannot refer to Textual's CSS variables: the app turns the current theme
into a `Palette` of rich Styles (`use_theme`), and `render.py` asks the palette. The turnlens theme names every
colour (the `tl-*` variables); any other theme — the light ones included — gets them derived from its own colours
(Textual's `text-*` variables, which it makes readable on the theme's background), and every text colour is then
checked against the background and pushed lighter or darker until it reads (WCAG contrast of 4.5, 3 for
decoration). So every theme the palette offers shows the content legibly.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from functools import lru_cache

from rich.style import Style
from textual.color import Color
from textual.theme import BUILTIN_THEMES, Theme

# The turnlens theme: Textual's dark theme for the chrome, One Dark colours for the content.
_DARK = BUILTIN_THEMES["textual-dark"]
TURNLENS_COLOURS = {
    "role-system": "#e5c07b",
    "role-user": "#98c379",
    "role-assistant": "#61afef",
    "role-tool": "#c678dd",
    "role-other": "#abb2bf",
    "file": "#56b6c2",
    "attached": "#d19a66",
    "section": "#e06c75",
    "fence": "#7f848e",
    "warning": "#e5c07b",
    "error": "#e06c75",
    "success": "#98c379",
    "key": "#e5c07b",
    "markers": "#61afef",
    "flat": "#98c379",
    "skip": "#5c6370",
    # the results view: scores, graders, timings
    "muted": "#7f848e",  # no score, evidence, a drift badge that says nothing is wrong
    "track": "#3e4451",  # the empty part of a score bar, an empty histogram bin
    "measure": "#56b6c2",  # durations, tokens, cost, times
    "heading": "#56b6c2",  # a section of a result's detail
    "label": "#61afef",  # a target, a recorded field's name
    "neutral": "#abb2bf",  # a mark that is neither good nor bad
    "diff-added": "#1e3a1e",
    "diff-removed": "#3a1e1e",
    "diff-changed": "#3a341e",
    "badge-text": "black",
}
TURNLENS = Theme(
    name="turnlens",
    primary=_DARK.primary,
    secondary=_DARK.secondary,
    warning=_DARK.warning,
    error=_DARK.error,
    success=_DARK.success,
    accent=_DARK.accent,
    foreground=_DARK.foreground,
    background=_DARK.background,
    surface=_DARK.surface,
    panel=_DARK.panel,
    boost=_DARK.boost,
    dark=True,
    variables={f"tl-{name}": colour for name, colour in TURNLENS_COLOURS.items()},
)

# What a theme without `tl-*` variables gives each meaning: (Textual variable for text, for a badge's background).
_DERIVED = {
    "role-system": ("text-warning", "warning"),
    "role-user": ("text-success", "success"),
    "role-assistant": ("text-primary", "primary"),
    "role-tool": ("text-secondary", "secondary"),
    "role-other": ("foreground-muted", "foreground-muted"),
    "file": ("text-accent", "accent"),
    "attached": ("text-warning", "warning"),
    "section": ("text-error", "error"),
    "fence": ("foreground-muted", "foreground-muted"),
    "warning": ("text-warning", "warning"),
    "error": ("text-error", "error"),
    "success": ("text-success", "success"),
    "key": ("text-accent", "accent"),
    "markers": ("text-primary", "primary"),
    "flat": ("text-success", "success"),
    "skip": ("foreground-muted", "foreground-muted"),
    "muted": ("foreground-muted", "foreground-muted"),
    "track": ("foreground-muted", "foreground-muted"),
    "measure": ("text-accent", "accent"),
    "heading": ("text-accent", "accent"),
    "label": ("text-primary", "primary"),
    "neutral": ("foreground-muted", "foreground-muted"),
}
# Meanings that decorate rather than say something: they need only DECORATION_CONTRAST.
DECORATIVE = frozenset({"fence", "role-other", "skip", "muted", "track", "neutral"})
# Backgrounds of the profile diff's changed lines: the theme's colour, faint, over its background.
_DIFF_TINTS = {"diff-added": "success", "diff-removed": "error", "diff-changed": "warning"}
DIFF_TINT = 0.22

TEXT_CONTRAST = 4.5  # WCAG AA for text
DECORATION_CONTRAST = 3.0  # fences, muted notes


def contrast(a: Color, b: Color) -> float:
    """WCAG contrast ratio of two opaque colours (1 to 21)."""

    def luminance(c: Color) -> float:
        def channel(v: int) -> float:
            s = v / 255
            return s / 12.92 if s <= 0.03928 else ((s + 0.055) / 1.055) ** 2.4

        return 0.2126 * channel(c.r) + 0.7152 * channel(c.g) + 0.0722 * channel(c.b)

    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def legible(colour: Color, background: Color, minimum: float = TEXT_CONTRAST) -> Color:
    """`colour`, made lighter on a dark background (darker on a light one) until it reads on `background`."""
    step_lighter = background.brightness < 0.5
    out = colour
    for _ in range(20):
        if contrast(out, background) >= minimum:
            return out
        out = out.lighten(0.05) if step_lighter else out.darken(0.05)
    return out


def _solid(value: str, background: Color) -> Color:
    """A theme colour as an opaque colour (a translucent one is blended over the background)."""
    colour = Color.parse(value)
    if colour.a < 1:
        colour = background.blend(colour.with_alpha(1), colour.a)
    return colour


@dataclass(frozen=True)
class Palette:
    """Rich styles for the content, by meaning. `text(name)` for coloured text, `badge(name)` for a label on a
    coloured block (` user `, ` MARK `), `tint(name)` for a line's background (diff)."""

    name: str
    dark: bool
    background: str
    texts: dict[str, str] = field(default_factory=dict)
    badges: dict[str, tuple[str, str]] = field(default_factory=dict)  # name -> (foreground, background)
    tints: dict[str, str] = field(default_factory=dict)
    syntax_theme: str = "monokai"

    def colour(self, name: str) -> str:
        return self.texts.get(name) or self.texts["role-other"]

    def text(self, name: str, *, bold: bool = False, underline: bool = False, italic: bool = False) -> Style:
        return _style(self.colour(name), None, bold, underline, italic)

    def badge(self, name: str, *, bold: bool = True) -> Style:
        fg, bg = self.badges.get(name) or self.badges["role-other"]
        return _style(fg, bg, bold, False, False)

    def tint(self, name: str) -> Style:
        bg = self.tints[name]
        return _style(None, None if bg == "default" else bg, False, False, False)


@lru_cache(maxsize=4096)
def _style(fg: str | None, bg: str | None, bold: bool, underline: bool, italic: bool) -> Style:
    return Style(color=fg, bgcolor=bg, bold=bold or None, underline=underline or None, italic=italic or None)


# An ANSI theme leaves the colours to the terminal: the content uses the terminal's own named colours.
_ANSI_TEXTS = {
    "role-system": "yellow",
    "role-user": "green",
    "role-assistant": "blue",
    "role-tool": "magenta",
    "role-other": "default",
    "file": "cyan",
    "attached": "yellow",
    "section": "red",
    "fence": "bright_black",
    "warning": "yellow",
    "error": "red",
    "success": "green",
    "key": "yellow",
    "markers": "blue",
    "flat": "green",
    "skip": "bright_black",
    "muted": "bright_black",
    "track": "bright_black",
    "measure": "cyan",
    "heading": "cyan",
    "label": "blue",
    "neutral": "default",
}


def _ansi_palette(theme: Theme) -> Palette:
    badges = {name: ("black", colour) for name, colour in _ANSI_TEXTS.items()}
    for name in ("role-other", "skip", "muted", "track", "neutral"):
        badges[name] = ("default", "bright_black")
    return Palette(
        name=theme.name,
        dark=theme.dark,
        background="default",
        texts=dict(_ANSI_TEXTS),
        badges=badges,
        # No tinted lines: the gutter's - + ~ say it (an ANSI background colour would drown the text).
        tints={"diff-added": "default", "diff-removed": "default", "diff-changed": "default"},
        syntax_theme="ansi_dark" if theme.dark else "ansi_light",
    )


def _badge_label(own: str | None, block: Color) -> str:
    """A badge's label colour: the theme's where it reads on the block, else black or white, whichever reads
    better (as hex: a terminal draws the named "white" as its own light grey, 2.5:1 on flexoki's green)."""
    if own:
        colour = Color.parse(own)
        if contrast(colour, block) >= TEXT_CONTRAST:
            return colour.hex
    white, black = Color(255, 255, 255), Color(0, 0, 0)
    return (white if contrast(white, block) > contrast(black, block) else black).hex


def palette_for(theme: Theme) -> Palette:
    """The content's styles in `theme`."""
    if theme.ansi:
        return _ansi_palette(theme)
    variables = {**theme.to_color_system().generate(), **theme.variables}
    background = _solid(variables["background"], Color(0, 0, 0))
    texts: dict[str, str] = {}
    badges: dict[str, tuple[str, str]] = {}
    for name, (text_var, badge_var) in _DERIVED.items():
        own = variables.get(f"tl-{name}")
        text = _solid(own or variables[text_var], background)
        block = _solid(own or variables[badge_var], background)
        minimum = DECORATION_CONTRAST if name in DECORATIVE else TEXT_CONTRAST
        texts[name] = (text if own else legible(text, background, minimum)).hex
        badges[name] = (_badge_label(variables.get("tl-badge-text"), block), block.hex)
    tints: dict[str, str] = {}
    for name, source in _DIFF_TINTS.items():
        own = variables.get(f"tl-{name}")
        tints[name] = own or background.blend(_solid(variables[source], background), DIFF_TINT).hex
    return Palette(
        name=theme.name,
        dark=theme.dark,
        background=background.hex,
        texts=texts,
        badges=badges,
        tints=tints,
        syntax_theme="monokai" if theme.dark else "default",
    )


def highlight_texts(variables: dict[str, str]) -> dict[str, str]:
    """The text colours of the case list's highlighted row, from the app's CSS variables, as the variables
    `tl-highlight-text` (list focused) and `tl-highlight-blurred-text` (not focused). Textual's own choices (the
    theme's text colour, or one a theme names) read at 2:1 on some highlights (nord, gruvbox, solarized); here
    they are kept where they read (4.5:1), and black or white, whichever reads better, replaces them elsewhere."""
    focused = variables.get("block-cursor-background", "")
    if focused.startswith("ansi_") or "background" not in variables:  # the terminal's colours: left to it
        return {
            "tl-highlight-text": variables.get("block-cursor-foreground", "auto 87%"),
            "tl-highlight-blurred-text": variables.get("block-cursor-blurred-foreground", "auto 87%"),
        }
    background = _solid(variables["background"], Color(0, 0, 0))
    surface = _solid(variables.get("surface", variables["background"]), background)  # the list's own background
    out = {}
    for name, bar_var, text_var in (
        ("tl-highlight-text", "block-cursor-background", "block-cursor-foreground"),
        ("tl-highlight-blurred-text", "block-cursor-blurred-background", "foreground"),
    ):
        bar = _solid(variables[bar_var], surface)
        raw = variables.get(text_var, "")
        white, black = Color(255, 255, 255), Color(0, 0, 0)
        try:  # Textual's choice, as drawn (translucent over the bar), then the same colour opaque
            own = bar.get_contrast_text(1.0) if raw.startswith("auto") else Color.parse(raw)
            alpha = float(raw.split()[1].rstrip("%")) / 100 if raw.startswith("auto ") else own.a
            candidates = [bar.blend(own.with_alpha(1), alpha), own.with_alpha(1)]
        except Exception:
            candidates = []
        best = white if contrast(white, bar) >= contrast(black, bar) else black
        out[name] = next((c for c in candidates if contrast(c, bar) >= TEXT_CONTRAST), best).hex
    return out


def pane_title_text(variables: dict[str, str]) -> dict[str, str]:
    """The colour of an unfocused pane's title and footer (`tl-pane-title`): the pane's border colour drew them at
    1.7-2.3:1 on the dark and light themes; here that colour made legible (4.5:1) on the screen's background, which
    the panes show through."""
    if "background" not in variables or variables["background"].startswith("ansi_"):
        return {"tl-pane-title": variables.get("foreground", "ansi_default")}  # the terminal's own colours
    background = _solid(variables["background"], Color(0, 0, 0))
    dark = background.brightness < 0.5
    border = variables.get("panel-lighten-2" if dark else "panel-darken-2", variables.get("foreground", "#888888"))
    try:
        colour = _solid(border, background)
    except Exception:
        colour = Color(255, 255, 255) if dark else Color(0, 0, 0)
    return {"tl-pane-title": legible(colour, background, TEXT_CONTRAST).hex}


_lock = threading.Lock()
_current: Palette = palette_for(TURNLENS)
_current_theme: Theme = TURNLENS  # the theme _current was made for: the app starts in it, and is not made again
_generation = 0


def palette() -> Palette:
    """The palette of the theme in use (safe to read from a worker thread)."""
    return _current


def generation() -> int:
    """Changes whenever the theme does: part of the key of anything cached with the palette's styles."""
    return _generation


def use_theme(theme: Theme) -> bool:
    """Make `theme`'s palette the current one; True when it changed."""
    global _current, _current_theme, _generation
    if theme == _current_theme:
        return False  # (each screen is told of a new theme: the first makes its palette, ~5 ms)
    new = palette_for(theme)
    with _lock:
        _current_theme = theme
        if new == _current:
            return False
        _current = new
        _generation += 1
    return True
