"""The theme and threshold remembered between sessions, in the user's config folder only."""

from __future__ import annotations

import json

from tui_helpers import wait_for_idle

from turnlens.tui.app import make_app
from turnlens.tui.settings import Settings, config_path


def test_the_config_folder_follows_xdg():
    assert config_path({"XDG_CONFIG_HOME": "/x/conf"}) == "/x/conf/turnlens/settings.json"
    assert config_path({"XDG_CONFIG_HOME": "relative", "HOME": "/home/u"}).endswith("/.config/turnlens/settings.json")


def test_choices_are_written_whole_and_read_back(tmp_path):
    path = tmp_path / "conf" / "turnlens" / "settings.json"
    settings = Settings.load(str(path))
    assert settings.theme is None and settings.threshold is None
    assert settings.remember(theme="nord") is None and settings.remember(threshold=0.65) is None
    assert json.loads(path.read_text()) == {"theme": "nord", "threshold": 0.65}
    again = Settings.load(str(path))
    assert (again.theme, again.threshold) == ("nord", 0.65)
    assert [p.name for p in path.parent.iterdir()] == ["settings.json"]  # no temporary file left


def test_a_broken_or_unwritable_file_is_ignored(tmp_path):
    path = tmp_path / "settings.json"
    path.write_text('{"theme": 3, "threshold": 7}')
    settings = Settings.load(str(path))
    assert settings.theme is None and settings.threshold is None
    blocked = tmp_path / "file"
    blocked.write_text("")
    assert Settings(str(blocked / "settings.json")).remember(theme="x") is not None


async def test_the_app_remembers_the_theme_and_the_threshold(tmp_path, monkeypatch):
    from pathlib import Path

    monkeypatch.chdir(Path(__file__).parents[1] / "fixtures" / "results" / "real")
    settings = Settings(str(tmp_path / "settings.json"), threshold=0.7)
    run = "project/.agentv/results/runs/default/2026-06-20T09-00-00-000Z"
    app = make_app([run], watch=False, theme="nord", settings=settings)
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_for_idle(pilot)
        assert app.theme == "nord"
        model = app.screen.model
        assert model.threshold == 0.7 and model.threshold_setting.source == "remembered"
        await pilot.press("plus")
        await wait_for_idle(pilot)
        app.theme = "textual-light"
        await wait_for_idle(pilot)
    assert json.loads((tmp_path / "settings.json").read_text()) == {"theme": "textual-light", "threshold": 0.75}


async def test_an_unknown_theme_is_said():
    app = make_app([], watch=False, theme="no-such-theme")
    said = []
    app.notify = lambda message, **options: said.append(message)  # type: ignore[method-assign]
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_for_idle(pilot)
        assert app.theme == "turnlens"
        assert any("no-such-theme" in message for message in said)
