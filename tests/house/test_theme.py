"""The theme: the content's colours come from the Textual theme and read on its background in every built-in
theme (tui/theme.py). Snapshots in tests/inspector/test_snapshots.py show a light and another dark theme."""

from __future__ import annotations

import pytest
from textual.color import Color
from textual.theme import BUILTIN_THEMES

from turnlens.tui.theme import (
    DECORATION_CONTRAST,
    DECORATIVE,
    TEXT_CONTRAST,
    TURNLENS,
    TURNLENS_COLOURS,
    contrast,
    palette_for,
)


@pytest.mark.parametrize(
    "name", ["turnlens", *sorted(name for name, theme in BUILTIN_THEMES.items() if not theme.ansi)]
)
def test_every_text_colour_reads_on_the_theme_background(name):
    palette = palette_for(TURNLENS if name == "turnlens" else BUILTIN_THEMES[name])
    background = Color.parse(palette.background)
    for meaning, colour in palette.texts.items():
        if name == "turnlens" and meaning in DECORATIVE:
            continue  # its own faint decorations (One Dark's score-bar track) are chosen, not derived
        wanted = DECORATION_CONTRAST if meaning in DECORATIVE else TEXT_CONTRAST
        assert contrast(Color.parse(colour), background) >= wanted - 0.01, (name, meaning, colour)
    for meaning, (label, block) in palette.badges.items():
        assert contrast(Color.parse(label), Color.parse(block)) >= TEXT_CONTRAST, (name, meaning, label, block)


@pytest.mark.parametrize("name", ["ansi-dark", "ansi-light"])
def test_ansi_themes_use_the_terminal_s_named_colours(name):
    palette = palette_for(BUILTIN_THEMES[name])
    assert palette.texts["role-user"] == "green"
    assert palette.syntax_theme.startswith("ansi")


def test_the_turnlens_theme_names_every_colour():
    palette = palette_for(TURNLENS)
    assert palette.texts["role-user"].lower() == TURNLENS_COLOURS["role-user"]
    assert palette.badges["markers"][1].lower() == TURNLENS_COLOURS["markers"]
    assert palette.tints["diff-added"] == TURNLENS_COLOURS["diff-added"]


def test_a_light_theme_gets_a_light_syntax_style_and_no_token_backgrounds():
    from turnlens.tui import render, theme

    try:
        theme.use_theme(BUILTIN_THEMES["textual-light"])
        style = render.style_for("token:Token.Keyword")
        assert style.bgcolor is None and style.color is not None
        assert render.style_for("token:Token.Punctuation.Indicator") is not None  # a lexer's own subtype
    finally:
        theme.use_theme(TURNLENS)


async def test_the_app_opens_in_the_turnlens_theme_and_follows_a_change(monkeypatch):
    from tui_helpers import CASES, FIXTURE_REPO, WIDE, wait_for_idle

    from turnlens.tui.app import make_app
    from turnlens.tui.theme import palette

    monkeypatch.chdir(FIXTURE_REPO)
    app = make_app([CASES], repo_root=str(FIXTURE_REPO), watch=False)
    async with app.run_test(size=WIDE) as pilot:
        await wait_for_idle(pilot)
        assert app.theme == "turnlens"
        before = app.screen.query_one("#rule-line").content
        app.theme = "textual-light"
        await wait_for_idle(pilot)
        assert palette().name == "textual-light"
        after = app.screen.query_one("#rule-line").content
        assert before.plain == after.plain and before.spans != after.spans
        app.theme = "turnlens"
        await wait_for_idle(pilot)


def _reads_at(segment) -> float:
    """Contrast of a drawn segment's text on its background (dim text as a terminal draws it: halfway to it)."""
    style = segment.style
    background = Color(*style.bgcolor.get_truecolor())
    text = Color(*style.color.get_truecolor())
    return contrast(background.blend(text, 0.5) if style.dim else text, background)


@pytest.mark.parametrize(
    "name", ["turnlens", *sorted(name for name, theme in BUILTIN_THEMES.items() if not theme.ansi)]
)
def test_the_highlighted_row_s_text_reads_on_the_highlight(name):
    from turnlens.tui.theme import _solid, highlight_texts

    theme = TURNLENS if name == "turnlens" else BUILTIN_THEMES[name]
    variables = {**theme.to_color_system().generate(), **theme.variables}
    texts = highlight_texts(variables)
    surface = _solid(variables["surface"], _solid(variables["background"], Color(0, 0, 0)))
    for text, bar in (
        ("tl-highlight-text", "block-cursor-background"),
        ("tl-highlight-blurred-text", "block-cursor-blurred-background"),
    ):
        assert contrast(Color.parse(texts[text]), _solid(variables[bar], surface)) >= TEXT_CONTRAST, (text, texts)


async def test_the_highlighted_case_reads_as_drawn(monkeypatch):
    """The highlighted row of the case list as drawn — its id, badges, rule and ⚠ count, or a skipped case's
    reason — reads (4.5:1) on the highlight, the list focused or not, in the themes where it did not (the ⚠ count
    in the theme's warning colour was 1.2:1 on nord's light-blue bar; the id 2.4:1 on gruvbox's; a badge's
    label in the terminal's "white" 2.5:1 on flexoki's green); every theme's colours are checked above."""
    from tui_helpers import CASES, FIXTURE_REPO, key_for, wait_for_idle

    from turnlens.tui.app import make_app

    monkeypatch.chdir(FIXTURE_REPO)
    app = make_app([CASES], repo_root=str(FIXTURE_REPO), watch=False)
    faint = []
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_idle(pilot)
        screen = app.screen
        options = screen.query_one("#case-options")
        for name in ("turnlens", "nord", "gruvbox", "flexoki", "solarized-dark", "textual-light"):
            app.theme = name
            for case_id, focused in (("missing-file", True), ("no-outcome", True), ("missing-file", False)):
                screen.select_case(key_for(screen, case_id))
                (options if focused else screen.query_one("#question")).focus()
                await wait_for_idle(pilot)
                lines = [options.render_line(y) for y in range(options.size.height)]
                first = next(y for y, line in enumerate(lines) if line.text.strip().startswith(case_id))
                for y in (first, first + 1):  # a case's two lines
                    for segment in options.render_line(y):
                        if segment.text.strip() and _reads_at(segment) < TEXT_CONTRAST - 0.01:
                            faint.append((name, case_id, focused, segment.text.strip(), round(_reads_at(segment), 2)))
        app.theme = "turnlens"
    assert not faint
