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


@pytest.mark.parametrize("name", sorted(name for name, theme in BUILTIN_THEMES.items() if not theme.ansi))
def test_every_text_colour_reads_on_the_theme_background(name):
    palette = palette_for(BUILTIN_THEMES[name])
    background = Color.parse(palette.background)
    for meaning, colour in palette.texts.items():
        wanted = DECORATION_CONTRAST if meaning in DECORATIVE else TEXT_CONTRAST
        assert contrast(Color.parse(colour), background) >= wanted - 0.01, (name, meaning, colour)
    for meaning, (label, block) in palette.badges.items():
        assert contrast(Color.parse(label), Color.parse(block)) >= DECORATION_CONTRAST, (name, meaning)


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
    from conftest import wait_for_idle
    from tui_helpers import CASES, FIXTURE_REPO, WIDE

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
