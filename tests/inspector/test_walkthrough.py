"""Pilot tests for the second walk through every screen: the config in force, the header, filters and warnings,
the palette, the footer at 80 columns, the list keys, and when the panes stack."""

from __future__ import annotations

import pytest
from tui_helpers import CASES, FIXTURE_REPO, WIDE, key_for, run_from_palette, wait_for_idle

from turnlens.tui.app import make_app
from turnlens.tui.inspector.screen import INSPECTOR_ACTIONS, is_narrow
from turnlens.tui.widgets.pane import Pane

EVAL_HEAD = "$schema: agentv-eval-v2\nevalcases:\n"
CASE_WITH_GUIDELINE = (
    "  - id: with-guideline\n    outcome: o\n    input_messages:\n      - role: user\n        content:\n"
    "          - type: text\n            value: Review this.\n"
    "          - type: file\n            value: x.instructions.md\n"
)


@pytest.fixture(autouse=True)
def _in_fixture_repo(monkeypatch):
    monkeypatch.chdir(FIXTURE_REPO)


def inspector():
    return make_app([CASES], repo_root=str(FIXTURE_REPO), watch=False)


def pane_text(app, pane_id: str) -> str:
    return app.screen.query_one(f"#{pane_id}", Pane).body_text


def current_id(app) -> str:
    return app.screen.session.case(app.screen.current)[1].id


def guideline_repo(tmp_path, config: str | None):
    (tmp_path / "x.instructions.md").write_text("Be brief.\n")
    (tmp_path / "evals.yaml").write_text(EVAL_HEAD + CASE_WITH_GUIDELINE)
    if config is not None:
        (tmp_path / ".agentv").mkdir()
        (tmp_path / ".agentv" / "config.yaml").write_text(config)
    return make_app([tmp_path / "evals.yaml"], repo_root=str(tmp_path), watch=False)


class TestConfigInForce:
    async def test_no_config_says_no_patterns_are_in_force_and_where_it_looked(self, tmp_path):
        app = guideline_repo(tmp_path, None)
        async with app.run_test(size=WIDE) as pilot:
            await wait_for_idle(pilot)
            rule = pane_text(app, "rule")
            assert "Guideline patterns\nnone in force: every referenced file is embedded" in rule
            assert "looked for (nearest first):\n  .agentv/config.yaml" in rule
            assert "file embedded" in rule
            assert not app.screen.query_one("#banner").has_class("-visible")

    async def test_the_config_in_force_and_its_patterns(self, tmp_path):
        app = guideline_repo(tmp_path, '$schema: agentv-config-v2\nguideline_patterns:\n  - "**/*.instructions.md"\n')
        async with app.run_test(size=WIDE) as pilot:
            await wait_for_idle(pilot)
            assert "Guideline patterns\nfrom .agentv/config.yaml\n• **/*.instructions.md" in pane_text(app, "rule")

    async def test_a_broken_config_is_a_banner_with_file_and_line(self, tmp_path):
        app = guideline_repo(tmp_path, "$schema: agentv-config-v2\nguideline_patterns: [unclosed\n")
        async with app.run_test(size=WIDE) as pilot:
            await wait_for_idle(pilot)
            banner = app.screen.query_one("#banner")
            assert banner.has_class("-visible") and banner.has_class("-warning")
            text = str(banner.content)
            assert text.startswith(" ⚠ .agentv/config.yaml:")
            assert "Could not read .agentv/config.yaml" in text
            rule = pane_text(app, "rule")
            assert "none in force" in rule
            assert "skipped, could not be used:\n✗ .agentv/config.yaml:" in rule


class TestHeader:
    async def test_a_long_id_keeps_its_file_and_line_at_200_columns(self, tmp_path):
        long_id = "sup-handoff-note-mid-conversation"
        evals = tmp_path / "evals" / "support" / "handoff-notes.yaml"
        evals.parent.mkdir(parents=True)
        evals.write_text(
            EVAL_HEAD + f"  - id: {long_id}\n    outcome: o\n    input_messages:\n"
            "      - role: user\n        content: hi\n"
        )
        app = make_app([evals], repo_root=str(tmp_path), watch=False)
        async with app.run_test(size=(200, 50)) as pilot:
            await wait_for_idle(pilot)
            title = app.screen.query_one("#case-title")
            assert str(title.content) == f"{long_id}  evals/support/handoff-notes.yaml:3"
            assert title.size.width >= len(str(title.content))

    async def test_narrow_the_id_is_cut_before_its_file_and_line(self, tmp_path):
        long_id = "a-very-long-case-id-that-cannot-fit-in-an-eighty-column-terminal-header"
        evals = tmp_path / "evals.yaml"
        evals.write_text(
            EVAL_HEAD + f"  - id: {long_id}\n    outcome: o\n    input_messages:\n"
            "      - role: user\n        content: hi\n"
        )
        app = make_app([evals], repo_root=str(tmp_path), watch=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for_idle(pilot)
            title = str(app.screen.query_one("#case-title").content)
            assert title.endswith("…  evals.yaml:3")


class TestWarnings:
    @pytest.mark.asyncio(loop_scope="package")
    async def test_warn_filter_lists_only_cases_with_a_warning_badge(self, shared_wide):
        pilot = await shared_wide.fresh()
        app = pilot.app
        screen = app.screen
        await pilot.press("slash", *"warn")
        await pilot.pause()
        assert screen.query_one("CaseList").visible_keys() == [key_for(screen, "missing-file")]
        assert screen.sub_title == "cases.yaml, 1 of 7 cases shown"

    async def test_skipped_cases_have_one_warning_naming_the_id_as_written(self, tmp_path):
        evals = tmp_path / "evals.yaml"
        evals.write_text(EVAL_HEAD + "  - id: 1042\n    outcome: o\n    input_messages:\n      - role: user\n")
        app = make_app([evals], repo_root=str(tmp_path), watch=False)
        async with app.run_test(size=WIDE) as pilot:
            await wait_for_idle(pilot)
            rule = pane_text(app, "rule")
            assert rule.count("⚠") == 1
            assert "Skipping incomplete eval case 1042: `id` is not a string" in rule

    @pytest.mark.asyncio(loop_scope="package")
    async def test_one_warning_is_singular_in_the_palette(self, shared_wide):
        pilot = await shared_wide.fresh()
        app = pilot.app
        screen = app.screen
        summaries = {label: summary for _key, label, summary in screen.case_choices()}
        assert "· 1 warning (" in summaries["missing-file"]


class TestFileHeader:
    async def test_the_file_heading_counts_what_the_filter_shows(self, tmp_path):
        for name in ("a", "b"):
            (tmp_path / f"{name}.yaml").write_text(
                EVAL_HEAD
                + "".join(
                    f"  - id: {name}-{n}\n    outcome: o\n    input_messages:\n"
                    "      - role: user\n        content: hi\n"
                    for n in range(3)
                )
            )
        app = make_app([tmp_path], repo_root=str(tmp_path), watch=False)
        async with app.run_test(size=WIDE) as pilot:
            await wait_for_idle(pilot)
            await pilot.press("slash", *"a-1")
            await pilot.pause()
            headers = app.screen.query_one("CaseList").headings()
            assert headers == ["▪ a.yaml (1 of 3) 0.15"]
            assert app.screen.sub_title == "2 eval files, 1 of 6 cases shown"


class TestPalette:
    @pytest.mark.asyncio(loop_scope="package")
    async def test_actions_come_before_cases_and_textual_duplicates_are_gone(self, shared_wide):
        pilot = await shared_wide.fresh()
        app = pilot.app
        from turnlens.tui.commands import InspectorCommands

        screen = app.screen
        hits = [hit async for hit in InspectorCommands(screen).discover()]
        texts = [hit.text for hit in hits]
        first_case = texts.index("flat-question")
        assert texts[:first_case][:3] == ["Next case", "Previous case", "Jump to case…"]
        assert {"Keys", "Maximize", "Minimize"}.isdisjoint(texts)
        assert "Theme" in texts[:first_case] and "Maximise pane" in texts[:first_case]
        for hit in hits[:first_case]:
            assert hit.help and hit.help[0].isupper() and "." in hit.help  # a sentence, not a bare key
        system = [command.title for command in app.get_system_commands(screen)]
        assert system == []  # listed by the inspector's own provider, in its order

    @pytest.mark.asyncio(loop_scope="package")
    async def test_the_palette_runs_an_action(self, shared_wide):
        pilot = await shared_wide.fresh()
        app = pilot.app
        screen = app.screen
        await run_from_palette(pilot, "Toggle profile")
        assert screen.profile == "design"
        await pilot.press("p")  # (the shared inspector's profile back)


class TestFooter:
    @pytest.mark.asyncio(loop_scope="package")
    async def test_copy_maximise_and_quit_stay_in_the_footer_at_80_columns(self, shared_80x24):
        pilot = await shared_80x24.fresh()
        app = pilot.app
        from textual.widgets import Footer

        screen = app.screen
        footer = screen.query_one(Footer)
        palette = footer.query_one(".-command-palette")

        def visible() -> set[str]:
            return {
                key.key
                for key in footer.query("FooterKey")
                if "-command-palette" not in key.classes and key.region.right <= palette.region.x
            }

        assert {"question_mark", "c", "z", "q"} <= visible()
        await pilot.press("2", "z")
        await pilot.pause()
        assert screen.maximized is not None
        labels = {key.key: key.description for key in footer.query("FooterKey")}
        assert labels["z"] == "Restore"
        await pilot.press("escape")
        await pilot.pause()
        labels = {key.key: key.description for key in screen.query_one(Footer).query("FooterKey")}
        assert labels["z"] == "Max"

    @pytest.mark.parametrize("width", [60, 80, 100, 200])
    async def test_the_footer_drops_whole_entries_never_cuts_one(self, width):
        from textual.widgets import Footer

        from turnlens.tui.widgets.footer import entry_width

        app = inspector()
        async with app.run_test(size=(width, 24)) as pilot:
            screen = await _started(pilot)
            for keys in ((), ("1", "z")):  # the footer of the stacked panes, then of a maximised pane (Restore)
                await pilot.press(*keys)
                await wait_for_idle(pilot)
                footer = screen.query_one(Footer)
                palette = footer.query_one(".-command-palette")
                entries = [key for key in footer.query("FooterKey") if key is not palette]
                shown = [key.display for key in entries]
                assert shown[0] and shown == sorted(shown, reverse=True)  # the first ones, in rank order
                for key in entries:
                    if key.display:
                        assert key.region.width == entry_width(key) - key.styles.margin.width
                        assert key.region.right <= palette.region.x
                if width >= 100:
                    assert all(shown)


class TestListKeys:
    @pytest.mark.asyncio(loop_scope="package")
    async def test_pager_keys_in_the_case_list(self, shared_wide):
        pilot = await shared_wide.fresh()
        app = pilot.app
        await pilot.press("j")
        assert current_id(app) == "non-user-turn"
        await pilot.press("G")
        assert current_id(app) == "[bold]markup[/bold] injection"
        await pilot.press("k")
        assert current_id(app) == "no-outcome"
        await pilot.press("g")
        assert current_id(app) == "flat-question"
        await pilot.press("end")
        assert current_id(app) == "[bold]markup[/bold] injection"
        await pilot.press("home")
        assert current_id(app) == "flat-question"

    @pytest.mark.asyncio(loop_scope="package")
    async def test_colon_jumps_to_a_case(self, shared_wide):
        pilot = await shared_wide.fresh()
        app = pilot.app
        await run_from_palette(pilot, "several", opener="colon")
        assert current_id(app) == "several-turns"


class TestActionTable:
    def test_every_binding_help_row_and_palette_entry_comes_from_the_table(self):
        from turnlens.tui.actions import bindings, help_sections, palette_entries
        from turnlens.tui.inspector.screen import InspectorScreen

        assert [(b.key, b.action) for b in InspectorScreen.BINDINGS] == [
            (b.key, b.action) for b in bindings(INSPECTOR_ACTIONS)
        ]
        keys = [key for _section, rows in help_sections(INSPECTOR_ACTIONS) for key, _ in rows]
        assert ":" in keys and "g" not in keys
        assert all(description.endswith(")") for _t, description, _a in palette_entries(INSPECTOR_ACTIONS))

    def test_keys_are_bound_once(self):
        from collections import Counter

        keys = Counter(key for row in INSPECTOR_ACTIONS if row.action for key in row.keys.split(",") if row.keys)
        assert [key for key, n in keys.items() if n > 1] == ["z"]  # Max / Restore: one shows at a time


class TestStacking:
    @pytest.mark.parametrize("width, narrow", [(80, True), (120, True), (139, True), (140, False), (200, False)])
    def test_panes_stack_when_three_columns_would_be_too_narrow(self, width, narrow):
        assert is_narrow(width) is narrow

    async def test_at_120_columns_the_panes_stack(self):
        app = inspector()
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await _started(pilot)
            assert screen.has_class("-narrow")


async def _started(pilot):
    await wait_for_idle(pilot)
    assert pilot.app.screen.loaded
    return pilot.app.screen


class TestEmoji:
    def test_joiners_and_modifiers_are_left_out_of_what_is_shown(self):
        from rich.cells import cell_len

        from turnlens.tui.render import sanitize

        shown = sanitize("🏕️👩‍👩‍👧 👍🏽 ❤️")
        assert shown == "🏕👩👩👧 👍 ❤"
        # Measured one code point at a time, as terminals (and tmux) do: Rich agrees.
        assert cell_len(shown) == sum(cell_len(ch) for ch in shown)

    async def test_a_zwj_line_keeps_the_pane_border_in_place(self, tmp_path):
        line = "Camping trip 🏕️👩‍👩‍👧 planned"
        evals = tmp_path / "evals.yaml"
        evals.write_text(
            EVAL_HEAD + "  - id: emoji\n    outcome: o\n    input_messages:\n"
            f"      - role: user\n        content: '{line}'\n",
            encoding="utf-8",
        )
        app = make_app([evals], repo_root=str(tmp_path), watch=False)
        async with app.run_test(size=WIDE) as pilot:
            await wait_for_idle(pilot)
            pane = app.screen.query_one("#question", Pane)
            assert "Camping trip 🏕👩👩👧 planned" in pane.body_text
            strip = pane.render_line(0)
            assert "\u200d" not in strip.text and "\ufe0f" not in strip.text
            assert strip.cell_length == pane.content_width


class TestScreenTitles:
    @pytest.mark.parametrize("key", ["e", "d"])
    @pytest.mark.asyncio(loop_scope="package")
    async def test_a_long_title_puts_its_legend_on_a_second_row(self, shared_80x24, key):
        pilot = await shared_80x24.fresh()
        app = pilot.app
        from textual.widgets import Static

        screen = app.screen
        screen.select_case(key_for(screen, "several-turns"))
        await wait_for_idle(pilot)
        await pilot.press(key)
        await wait_for_idle(pilot)
        title = app.screen.query_one("#screen-title", Static)
        assert title.size.height == 2  # cut at 80 columns, the legend was what was lost
        assert not title.render_line(0).text.rstrip().endswith("…")
        assert title.render_line(1).text.strip()

    async def test_a_refused_file_s_title_ends_with_an_ellipsis(self, tmp_path):
        from textual.widgets import Static

        (tmp_path / "a-folder-with-a-long-name").mkdir()
        broken = tmp_path / "a-folder-with-a-long-name" / "a-broken-eval-file.yaml"
        broken.write_text("$schema: agentv-eval-v2\nevalcases:\n  - id: a\n    id: b\n")
        app = make_app([broken], repo_root=str(tmp_path), watch=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for_idle(pilot)
            title = app.screen.query_one("#case-title", Static)
            assert title.render_line(0).text.rstrip().endswith("…")
