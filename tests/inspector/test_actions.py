"""Pilot tests: keys, mouse, command palette and actions of the inspector."""

from __future__ import annotations

from contextlib import nullcontext

import pytest
from tui_helpers import CASES, FIXTURE_REPO, WIDE, key_for, run_from_palette, select, wait_for_idle

import turnlens.tui.editor
import turnlens.tui.inspector.screen
from turnlens.tui.actions import bindings, palette_entries
from turnlens.tui.app import make_app
from turnlens.tui.inspector.grading import GradingScreen
from turnlens.tui.inspector.screen import INSPECTOR_ACTIONS, InspectorScreen
from turnlens.tui.screens import HelpScreen, ProfileDiffScreen
from turnlens.tui.widgets.pane import Pane


@pytest.fixture(autouse=True)
def _in_fixture_repo(monkeypatch):
    monkeypatch.chdir(FIXTURE_REPO)


def inspector(**options):
    return make_app([CASES], repo_root=str(FIXTURE_REPO), watch=False, **options)


def current_id(app) -> str:
    screen = app.screen
    return screen.session.case(screen.current)[1].id


def pane_text(app, pane_id: str) -> str:
    return app.screen.query_one(f"#{pane_id}", Pane).body_text


async def started(pilot):
    await wait_for_idle(pilot)
    assert isinstance(pilot.app.screen, InspectorScreen)
    assert pilot.app.screen.loaded
    return pilot.app.screen


@pytest.mark.asyncio(loop_scope="package")
class TestCaseNavigation:
    async def test_first_case_is_shown_at_start(self, shared_wide):
        pilot = await shared_wide.fresh()
        app = pilot.app
        assert shared_wide.start["case"] == app.screen.current  # (fresh() selects the case the app started on)
        assert current_id(app) == "flat-question"
        assert "Why does this return the wrong sum?" in pane_text(app, "question")

    async def test_arrow_keys_and_brackets_move_between_cases(self, shared_wide):
        pilot = await shared_wide.fresh()
        app = pilot.app
        await pilot.press("down")
        assert current_id(app) == "non-user-turn"
        await pilot.press("2", "right_square_bracket")
        assert current_id(app) == "several-turns"
        await pilot.press("left_square_bracket", "left_square_bracket")
        assert current_id(app) == "flat-question"

    async def test_next_and_previous_case_with_warnings(self, shared_wide):
        pilot = await shared_wide.fresh()
        app = pilot.app
        await pilot.press("n")
        assert current_id(app) == "missing-file"
        # The skipped case (no-outcome) shows its reason, not a ⚠: n and N pass it by.
        await pilot.press("n")
        assert current_id(app) == "missing-file"
        await pilot.press("N")
        assert current_id(app) == "missing-file"

    async def test_next_warning_hidden_by_the_filter_clears_it_and_shows_the_case(self, shared_wide):
        pilot = await shared_wide.fresh()
        app = pilot.app
        screen = app.screen
        await pilot.press("slash", *"non-user", "enter")
        await pilot.pause()
        assert current_id(app) == "non-user-turn"
        await pilot.press("n")  # the next case with warnings is not listed under this filter
        await pilot.pause()
        assert current_id(app) == "missing-file"
        assert screen.query_one("#case-filter").value == ""
        assert "notes-that-do-not-exist.md was not found in 1 place" in pane_text(app, "messages")

    async def test_filter_as_you_type(self, shared_wide):
        pilot = await shared_wide.fresh()
        app = pilot.app
        screen = app.screen
        await pilot.press("slash", *"skip")
        await pilot.pause()
        case_list = screen.query_one("CaseList")
        assert case_list.visible_keys() == [key_for(screen, "no-outcome")]
        assert current_id(app) == "no-outcome"
        await pilot.press("enter")
        assert screen.focused.id == "case-options"

    async def test_click_a_case(self, shared_wide):
        pilot = await shared_wide.fresh()
        app = pilot.app
        # Each case takes two lines under the list's top border: line 5 is the third case.
        await pilot.click("#case-options", offset=(5, 5))
        await pilot.pause()
        assert current_id(app) == "several-turns"

    async def test_jump_to_case_palette(self, shared_wide):
        pilot = await shared_wide.fresh()
        app = pilot.app
        await run_from_palette(pilot, "missing", opener="colon")
        assert current_id(app) == "missing-file"

    async def test_palette_finds_a_case_whose_id_looks_like_markup(self, shared_wide):
        pilot = await shared_wide.fresh()
        app = pilot.app
        await run_from_palette(pilot, "injection", opener="colon")
        assert current_id(app) == "[bold]markup[/bold] injection"


@pytest.mark.asyncio(loop_scope="package")
class TestToggles:
    async def test_mode_toggle_key_and_chip(self):
        app = inspector()
        async with app.run_test(size=WIDE) as pilot:
            screen = await started(pilot)
            await pilot.press("m")
            assert screen.mode == "agent"
            assert '<file: path="src/calc.py">' in pane_text(app, "question")
            await pilot.click("#mode-chip")
            await pilot.pause()
            assert screen.mode == "lm"
            assert '<file path="src/calc.py">' in pane_text(app, "question")

    async def test_profile_toggle_gives_a_flat_case_a_chat_prompt(self, shared_wide):
        pilot = await shared_wide.fresh()
        app = pilot.app
        screen = app.screen
        assert "No chatPrompt" in pane_text(app, "chat")
        await pilot.press("p")
        assert screen.profile == "design"
        assert "No chatPrompt" not in pane_text(app, "chat")
        assert "message 1" in pane_text(app, "chat")
        await pilot.press("p")  # (the shared inspector's profile back)

    async def test_toggle_from_the_command_palette(self):
        app = inspector()
        async with app.run_test(size=WIDE) as pilot:
            screen = await started(pilot)
            await run_from_palette(pilot, "Toggle mode")
            assert screen.mode == "agent"


@pytest.mark.asyncio(loop_scope="package")
class TestScreens:
    async def test_evaluator_prompt_one_key_away(self, shared_wide):
        pilot = await shared_wide.fresh()
        app = pilot.app
        await select(pilot, "non-user-turn")
        await pilot.press("e")
        assert isinstance(app.screen, GradingScreen)
        text = app.screen.query_one("#evaluator", Pane).body_text
        assert "[[ ## question ## ]]\n@[User]:\nWhat does add() do?" in text
        await pilot.press("escape")
        assert isinstance(app.screen, InspectorScreen)

    async def test_profile_diff_marks_differences(self, shared_wide):
        pilot = await shared_wide.fresh()
        app = pilot.app
        await select(pilot, "several-turns")
        await pilot.press("d")
        assert isinstance(app.screen, ProfileDiffScreen)
        left = app.screen.query_one("#diff-agentv", Pane).body_text
        right = app.screen.query_one("#diff-design", Pane).body_text
        assert '~ <file path="src/calc.py">' in left
        assert "~ === src/calc.py ===" in right
        await pilot.press("d")
        assert isinstance(app.screen, InspectorScreen)

    async def test_grading_and_profile_diff_palettes_list_their_actions(self, shared_wide):
        """Their keys, footers and palette entries come from one action table each."""
        for screen_class in (GradingScreen, ProfileDiffScreen):
            made = [(b.key, b.action) for b in bindings(screen_class.ACTIONS)]
            assert [(b.key, b.action) for b in screen_class.BINDINGS] == made
            assert all(row.title for row in screen_class.ACTIONS), screen_class
        pilot = await shared_wide.fresh()
        app = pilot.app
        await select(pilot, "non-user-turn")
        await pilot.press("e")
        await run_from_palette(pilot, "Focus what grades")
        assert isinstance(app.screen, GradingScreen)
        assert app.screen.focused is app.screen.query_one("#grading", Pane)
        await pilot.press("escape", "d", "2")  # the profile diff's sides are numbered as the grading's panes
        await wait_for_idle(pilot)
        assert isinstance(app.screen, ProfileDiffScreen)
        assert app.screen.focused is app.screen.query_one("#diff-design", Pane)

    async def test_sub_screens_take_the_inspectors_keys(self, shared_wide):
        """`?`/F1 help, `[`/`]` the previous/next case without going back, `z` maximises and restores (issue 24.1)."""
        pilot = await shared_wide.fresh()  # one app visits both screens, back to the inspector between
        app = pilot.app
        for key, screen_class, pane_id in (
            ("e", GradingScreen, "evaluator"),
            ("d", ProfileDiffScreen, "diff-agentv"),
        ):
            await select(pilot, "non-user-turn")
            await pilot.press(key)
            assert isinstance(app.screen, screen_class)
            before = app.screen.case.id
            await pilot.press("right_square_bracket")
            await pilot.pause()
            assert isinstance(app.screen, screen_class)
            assert app.screen.case.id != before
            await pilot.press("left_square_bracket")
            await pilot.pause()
            assert app.screen.case.id == before
            app.screen.query_one(f"#{pane_id}", Pane).focus()
            await pilot.press("z")
            await pilot.pause()
            assert app.screen.maximized is app.screen.query_one(f"#{pane_id}", Pane)
            await pilot.press("z")
            await pilot.pause()
            assert app.screen.maximized is None
            for help_key in ("question_mark", "f1"):
                await pilot.press(help_key)
                await pilot.pause()
                assert isinstance(app.screen, HelpScreen)
                await pilot.press("escape")
                await pilot.pause()
                assert isinstance(app.screen, screen_class)
            await pilot.press("escape")
            await wait_for_idle(pilot)
            assert isinstance(app.screen, InspectorScreen)

    async def test_skipped_case_has_no_evaluator_prompt(self, shared_wide):
        pilot = await shared_wide.fresh()
        app = pilot.app
        await select(pilot, "no-outcome")
        await pilot.press("e")
        assert isinstance(app.screen, InspectorScreen)

    async def test_help_screen(self, shared_wide):
        pilot = await shared_wide.fresh()
        app = pilot.app
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        assert isinstance(app.screen, InspectorScreen)


@pytest.mark.asyncio(loop_scope="package")
class TestPaneActions:
    async def test_copy_focused_pane_copies_the_value(self, shared_wide, monkeypatch):
        pilot = await shared_wide.fresh()
        app = pilot.app
        copied = []
        monkeypatch.setattr(app, "copy_to_clipboard", copied.append)
        screen = app.screen
        await select(pilot, "non-user-turn")
        await pilot.press("2", "c")
        question = screen.session.formatted(screen.current, "agentv").lm.question
        assert copied == [question]
        await pilot.press("3", "c")
        assert copied[-1].startswith('[\n  {\n    "role": "user"')

    async def test_copy_is_sanitised_and_copy_raw_gives_the_bytes(self, tmp_path, monkeypatch):
        hostile = "a\x1b]52;c;eA==\x07b \u202eevil\u202c"
        path = tmp_path / "e.yaml"
        path.write_text(
            "$schema: agentv-eval-v2\nevalcases:\n  - id: x\n    outcome: ok\n    input_messages:\n"
            f'      - role: user\n        content: "{hostile.encode("unicode_escape").decode()}"\n'
        )
        (tmp_path / ".git").mkdir()
        monkeypatch.chdir(tmp_path)
        app = make_app([path], repo_root=str(tmp_path), watch=False)
        copied = []
        monkeypatch.setattr(app, "copy_to_clipboard", copied.append)
        async with app.run_test(size=WIDE) as pilot:
            await started(pilot)
            await pilot.press("2", "c")
            assert hostile not in copied[-1]
            assert not any(ch in copied[-1] for ch in "\x1b\x07\u202e\u202c")
            assert "\u241b]52;c;eA==\u2407b" in copied[-1] and "\\u202eevil" in copied[-1]
            await pilot.press("C")
            assert hostile in copied[-1]
            assert "Copy raw text" in [title for title, _, _ in palette_entries(INSPECTOR_ACTIONS)]

    async def test_maximise_and_restore(self, shared_wide):
        pilot = await shared_wide.fresh()
        app = pilot.app
        screen = app.screen
        await pilot.press("4", "z")
        assert screen.maximized is screen.query_one("#rule", Pane)
        await pilot.press("z")
        assert screen.maximized is None
        await pilot.press("z", "escape")
        assert screen.maximized is None

    async def test_open_in_editor_at_the_case_line(self, shared_wide, monkeypatch):
        pilot = await shared_wide.fresh()
        app = pilot.app
        commands = []
        monkeypatch.setenv("EDITOR", "myeditor --wait")
        monkeypatch.delenv("VISUAL", raising=False)
        monkeypatch.setattr(turnlens.tui.editor, "run_editor", commands.append)
        monkeypatch.setattr(app, "suspend", nullcontext)
        await select(pilot, "several-turns")
        await pilot.press("o")
        await wait_for_idle(pilot)
        assert commands == [["myeditor", "--wait", "+28", str(CASES)]]


class TestEditorCommand:
    @pytest.mark.parametrize(
        "editor, expected",
        [
            ("vim", ["vim", "+7", "f.yaml"]),
            ("code --wait", ["code", "--wait", "--goto", "f.yaml:7"]),
            ("subl", ["subl", "f.yaml:7"]),
            ("", ["vi", "+7", "f.yaml"]),
        ],
    )
    def test_editor_command(self, editor, expected):
        from turnlens.tui.editor import editor_command

        assert editor_command("f.yaml", 7, {"EDITOR": editor}) == expected


class TestFilterKeys:
    async def test_escape_and_down_leave_the_filter_for_the_list(self):
        app = inspector()
        async with app.run_test(size=WIDE) as pilot:
            screen = await started(pilot)
            await pilot.press("slash", "f", "l", "a", "t")
            assert screen.focused.id == "case-filter"
            await pilot.press("escape")
            assert screen.focused.id == "case-options"
            assert screen.query_one("#case-filter").value == "flat"  # the filter stays
            await pilot.press("slash", "down")
            assert screen.focused.id == "case-options"
            await pilot.press("m")  # keys act on the inspector again
            assert screen.mode == "agent"


class TestStartup:
    async def test_no_path_opens_the_samples_from_any_directory(self, tmp_path, monkeypatch):
        from pathlib import Path

        monkeypatch.chdir(tmp_path)
        app = make_app([], watch=False)
        async with app.run_test(size=WIDE) as pilot:
            screen = await started(pilot)
            project = Path(__file__).resolve().parents[2]
            assert screen.session.repo_root == str(project)
            assert all(f.path.startswith(str(project / "sample_evals")) for f in screen.session.files)
            assert screen.session.case_keys()
            assert screen.current is not None
            # the current format first: the first file, and the case on screen, are AgentV 4 (the 0.15 samples
            # follow them)
            dialects = [f.good.dialect for f in screen.session.files if f.good is not None]
            assert dialects[0] == "agentv-4" and "agentv-0.15" in dialects
            assert dialects.index("agentv-0.15") > max(i for i, d in enumerate(dialects) if d == "agentv-4")
            loaded, _case = screen.session.case(screen.current)
            assert loaded.good.dialect == "agentv-4"

    def test_export_does_not_import_textual(self):
        import subprocess
        import sys

        code = (
            "import sys; from turnlens.tui.cli import main\n"
            "try:\n    main(['export', '--help'])\nexcept SystemExit:\n    pass\n"
            "print('textual' in sys.modules)"
        )
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=str(FIXTURE_REPO))
        assert out.stdout.strip().splitlines()[-1] == "False"

    def test_missing_path_is_reported_without_starting_the_app(self, capsys):
        from turnlens.tui.cli import run

        assert run(["no-such-file.yaml"]) == 2
        assert "no such file or folder: no-such-file.yaml" in capsys.readouterr().err


@pytest.mark.asyncio(loop_scope="package")
class TestSelection:
    async def test_mouse_selection_in_a_pane_is_copied(self, shared_wide, monkeypatch):
        from textual.geometry import Offset
        from textual.selection import Selection

        pilot = await shared_wide.fresh()
        app = pilot.app
        copied = []
        monkeypatch.setattr(app, "copy_to_clipboard", copied.append)
        screen = app.screen
        await select(pilot, "non-user-turn")
        pane = screen.query_one("#question", Pane)
        screen.selections = {pane: Selection(Offset(0, 1), Offset(4, 1))}
        await pilot.pause()
        await pilot.press("c")
        assert copied == ["What"]

    async def test_drag_selects_text(self, shared_wide):
        pilot = await shared_wide.fresh()
        app = pilot.app
        screen = app.screen
        await select(pilot, "non-user-turn")
        pane = screen.query_one("#question", Pane)
        await pilot.mouse_down(pane, offset=(2, 2))
        await pilot.hover(pane, offset=(5, 2))
        await pilot.mouse_up(pane, offset=(5, 2))
        await pilot.pause()
        assert screen.get_selected_text() == "What"


class TestProfileDiffScrolling:
    async def test_scrolling_one_side_follows_on_the_other(self, tmp_path, monkeypatch):
        import shutil

        repo = tmp_path / "repo"
        shutil.copytree(FIXTURE_REPO, repo)
        monkeypatch.chdir(repo)
        calc = repo / "src" / "calc.py"
        calc.write_text(calc.read_text() + "".join(f"# line {n}\n" for n in range(120)))
        app = make_app([repo / "cases.yaml"], repo_root=str(repo), watch=False)
        async with app.run_test(size=WIDE) as pilot:
            await started(pilot)
            await select(pilot, "several-turns")
            await pilot.press("d")
            await wait_for_idle(pilot)
            left = app.screen.query_one("#diff-agentv", Pane)
            right = app.screen.query_one("#diff-design", Pane)
            left.focus()
            left.scroll_to(y=60, animate=False, immediate=True)
            await pilot.pause()
            assert left.top_line() > 50
            assert abs(right.top_line() - left.top_line()) <= 1
