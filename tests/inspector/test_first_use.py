"""Pilot tests for what a first-time user ran into (QA pass): how paths are recognised, ids that are not strings,
empty and refused states, the profile diff's mode, the header's room for the case id."""

from __future__ import annotations

import shutil
from contextlib import nullcontext
from pathlib import Path

import pytest
from tui_helpers import CASES, FIXTURE_REPO, NARROW, WIDE, select, wait_for_idle

import turnlens.tui.editor
import turnlens.tui.inspector.screen
from turnlens.tui.app import make_app
from turnlens.tui.inspector.screen import InspectorScreen
from turnlens.tui.widgets.pane import Pane

RESULTS = Path(__file__).parents[1] / "fixtures" / "results"
EVAL_HEAD = "$schema: agentv-eval-v2\nevalcases:\n"


@pytest.fixture(autouse=True)
def _in_fixture_repo(monkeypatch):
    monkeypatch.chdir(FIXTURE_REPO)


def pane_text(app, pane_id: str) -> str:
    return app.screen.query_one(f"#{pane_id}", Pane).body_text


def header_text(app) -> str:
    return str(app.screen.query_one("#case-title").content)


def banner_text(app) -> str:
    return str(app.screen.query_one("#banner").content)


class TestWhatOpens:
    async def test_a_folder_of_results_files_opens_the_results_view_whatever_its_name(self, tmp_path):
        from turnlens.tui.results.screen import ResultsScreen

        runs = tmp_path / "runs"
        runs.mkdir()
        shutil.copy(RESULTS / "run-a.jsonl", runs / "run-a.jsonl")
        app = make_app([runs], watch=False)
        async with app.run_test(size=WIDE) as pilot:
            await wait_for_idle(pilot)
            assert isinstance(app.screen, ResultsScreen)

    async def test_a_folder_with_eval_files_opens_the_inspector_even_with_results_beside(self, tmp_path):
        folder = tmp_path / "mixed"
        folder.mkdir()
        shutil.copy(RESULTS / "run-a.jsonl", folder / "run-a.jsonl")
        (folder / "evals.yaml").write_text(
            EVAL_HEAD + "  - id: a\n    outcome: o\n    input_messages:\n      - role: user\n        content: hi\n"
        )
        app = make_app([folder], repo_root=str(tmp_path), watch=False)
        async with app.run_test(size=WIDE) as pilot:
            await wait_for_idle(pilot)
            assert isinstance(app.screen, InspectorScreen)
            assert app.screen.session.case_keys() == ["0:0"]

    async def test_a_results_file_named_with_an_eval_file_is_a_note_not_an_error(self):
        results = RESULTS / "run-a.jsonl"
        app = make_app([CASES, results], repo_root=str(FIXTURE_REPO), watch=False)
        async with app.run_test(size=WIDE) as pilot:
            await wait_for_idle(pilot)
            screen = app.screen
            assert isinstance(screen, InspectorScreen)
            assert [f.path for f in screen.session.files] == [str(CASES)]
            assert screen.session.errors() == []
            assert screen.sub_title == "cases.yaml, 7 cases"
            await pilot.press("b")  # the note is longer than a line: all of it
            banner = banner_text(app)
            assert "run-a.jsonl is an AgentV results file" in banner
            assert f"turnlens {results} --evals {CASES}" in banner


class TestBanner:
    async def test_more_problems_than_the_banner_holds_are_counted_not_cut(self, tmp_path):
        for i in range(12):
            (tmp_path / f"broken{i}.yaml").write_text(EVAL_HEAD + "  - id: [unclosed\n")
        (tmp_path / "good.yaml").write_text(
            EVAL_HEAD + "  - id: a\n    outcome: o\n    input_messages:\n      - role: user\n        content: hi\n"
        )
        app = make_app([tmp_path], repo_root=str(tmp_path), watch=False)
        async with app.run_test(size=WIDE) as pilot:
            await wait_for_idle(pilot)
            lines = banner_text(app).splitlines()
            assert len(lines) == 1  # one line until asked: a small terminal keeps its cases
            assert "broken0.yaml" in lines[0] and lines[0].endswith("+11 more · b all · x dismiss")
            await pilot.press("b")
            lines = banner_text(app).splitlines()
            assert len(lines) == 10
            assert sum("broken" in line for line in lines) == 9
            assert lines[-1].startswith(" … and 3 more (`turnlens export` on these files prints every one)")
            assert lines[-1].endswith("b one line · x dismiss")
            assert 10 <= app.screen.query_one("#banner").size.height <= 11  # long lines wrap, up to 11 rows

    async def test_the_banner_is_one_line_at_80_columns_and_can_be_dismissed(self, tmp_path):
        (tmp_path / "broken.yaml").write_text(EVAL_HEAD + "  - id: [unclosed\n")
        body = "".join(
            f"  - id: case-{i}\n    outcome: o\n    input_messages:\n      - role: user\n        content: hi\n"
            for i in range(9)
        )
        (tmp_path / "good.yaml").write_text(EVAL_HEAD + body)
        app = make_app([tmp_path], repo_root=str(tmp_path), watch=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for_idle(pilot)
            banner = app.screen.query_one("#banner")
            assert banner.display and banner.size.height == 1
            assert banner_text(app).endswith("x dismiss") and "…" in banner_text(app)  # cut, its hint kept
            await pilot.click("#banner")
            await wait_for_idle(pilot)
            assert banner.size.height > 1  # the whole message, wrapped
            await pilot.press("x")
            await wait_for_idle(pilot)
            assert not banner.display


class TestFileHeadings:
    async def test_a_file_without_tests_says_0_and_a_refused_file_no_count(self, tmp_path):
        from turnlens.tui.widgets.case_list import CaseList

        (tmp_path / "none.eval.yaml").write_text("tests: []\n")
        (tmp_path / "one.eval.yaml").write_text("tests:\n  - id: a\n    criteria: c\n    input: hi\n")
        (tmp_path / "broken.eval.yaml").write_text("tests:\n  - id: [unclosed\n")
        app = make_app([tmp_path], repo_root=str(tmp_path), watch=False)
        async with app.run_test(size=WIDE) as pilot:
            await wait_for_idle(pilot)
            headings = app.screen.query_one(CaseList).headings()
            assert any("none.eval.yaml (0)" in h for h in headings), headings
            assert any("one.eval.yaml (1)" in h for h in headings), headings
            assert any("broken.eval.yaml" in h and "(" not in h for h in headings), headings


class TestNonStringId:
    async def test_a_numeric_id_is_shown_as_written_and_can_be_found(self, tmp_path):
        evals = tmp_path / "evals.yaml"
        evals.write_text(
            EVAL_HEAD + "  - id: first\n    outcome: o\n    input_messages:\n"
            "      - role: user\n        content: hi\n"
            "  - id: 1042\n    outcome: o\n    input_messages:\n"
            "      - role: user\n        content: numeric\n"
        )
        app = make_app([evals], repo_root=str(tmp_path), watch=False)
        async with app.run_test(size=WIDE) as pilot:
            await wait_for_idle(pilot)
            screen = app.screen
            rows = [screen.session.row(k) for k in screen.session.case_keys()]
            assert [r.label for r in rows] == ["first", "1042"]
            assert rows[1].skipped  # the reference skips it; the reason is shown with it
            # Found by the filter …
            await pilot.press("slash", *"1042")
            await wait_for_idle(pilot)
            assert screen.query_one("CaseList").visible_keys() == ["0:1"]
            assert header_text(app).startswith("1042")
            # … and by the jump palette.
            assert any(label == "1042" for _key, label, _help in screen.case_choices())


class TestEmptyStates:
    async def test_a_folder_without_eval_files_says_so(self, tmp_path):
        empty = tmp_path / "nothing-here"
        empty.mkdir()
        app = make_app([empty], repo_root=str(tmp_path), watch=False)
        async with app.run_test(size=WIDE) as pilot:
            await wait_for_idle(pilot)
            assert f"No eval files in {empty}" in header_text(app)
            assert "$schema: agentv-eval-v2" in pane_text(app, "messages")
            assert app.screen.sub_title == "no eval files"

    async def test_a_refused_file_shows_its_error_copies_it_and_opens_at_its_line(self, tmp_path, monkeypatch):
        broken = tmp_path / "broken.yaml"
        broken.write_text(EVAL_HEAD + "  - id: a\n    id: b\n")
        app = make_app([broken], repo_root=str(tmp_path), watch=False)
        commands, copied = [], []
        monkeypatch.setenv("EDITOR", "myeditor")
        monkeypatch.delenv("VISUAL", raising=False)
        monkeypatch.setattr(turnlens.tui.editor, "run_editor", commands.append)
        monkeypatch.setattr(app, "suspend", nullcontext)
        monkeypatch.setattr(app, "copy_to_clipboard", copied.append)
        async with app.run_test(size=WIDE) as pilot:
            await wait_for_idle(pilot)
            assert "broken.yaml:4" in header_text(app)
            body = pane_text(app, "messages")
            assert "duplicate key" in body and "    id: b" in body
            await pilot.press("c")
            assert copied and "duplicate key" in copied[0]
            await pilot.press("o")
            assert commands == [["myeditor", "+4", str(broken)]]


class TestProfileDiffMode:
    async def test_mode_changed_in_the_diff_is_kept_on_return(self):
        app = make_app([CASES], repo_root=str(FIXTURE_REPO), watch=False)
        async with app.run_test(size=WIDE) as pilot:
            await wait_for_idle(pilot)
            await select(pilot, "several-turns")
            await pilot.press("d")
            await wait_for_idle(pilot)
            await pilot.press("m", "escape")
            await wait_for_idle(pilot)
            assert isinstance(app.screen, InspectorScreen)
            assert app.screen.mode == "agent"
            assert "agent" in str(app.screen.query_one("#mode-chip").content)


class TestHeader:
    @pytest.mark.parametrize("size", [(140, 40), NARROW])
    async def test_the_case_id_is_not_cut_for_the_chips(self, tmp_path, size):
        long_id = "cr-sql-injection-with-a-long-name"
        evals = tmp_path / "evals.yaml"
        evals.write_text(
            EVAL_HEAD + f"  - id: {long_id}\n    outcome: o\n    input_messages:\n"
            "      - role: user\n        content: hi\n"
        )
        app = make_app([evals], repo_root=str(tmp_path), watch=False)
        async with app.run_test(size=size) as pilot:
            await wait_for_idle(pilot)
            title = app.screen.query_one("#case-title")
            assert title.size.width >= len(long_id) + 2


class TestPolish:
    async def test_help_stays_in_the_footer_at_80_columns(self):
        from textual.widgets import Footer

        app = make_app([CASES], repo_root=str(FIXTURE_REPO), watch=False)
        async with app.run_test(size=NARROW) as pilot:
            await wait_for_idle(pilot)
            footer = app.screen.query_one(Footer)
            keys = [child for child in footer.query("FooterKey") if child.region.right <= NARROW[0] - 12]
            assert any(key.description == "Help" for key in keys)

    @pytest.mark.asyncio(loop_scope="package")
    async def test_pane_titles_show_their_key_apart_from_the_name(self, shared_wide):
        pilot = await shared_wide.fresh()
        app = pilot.app
        from textual.content import Content

        def title(pane_id: str) -> str:
            return Content.from_markup(app.screen.query_one(f"#{pane_id}", Pane).border_title).plain

        assert title("messages") == "[1] messages as written"
        await pilot.press("2", "c")
        assert "Copied question (" in [n.message for n in app._notifications][-1]
        assert title("rule") == "[4] marker rule"  # reading order: messages, question, chatPrompt / rule, guidelines

    @pytest.mark.asyncio(loop_scope="package")
    async def test_the_jump_palette_has_one_line_per_case(self, shared_wide):
        pilot = await shared_wide.fresh()
        app = pilot.app
        from turnlens.tui.commands import CaseCommands

        provider = CaseCommands(app.screen)
        hits = [hit async for hit in provider.discover()]
        assert len(hits) == len(app.screen.session.case_keys())
        assert all(hit.help is None for hit in hits)  # a help line would take a second row per case

    async def test_the_case_list_widens_for_long_ids_on_wide_terminals(self, tmp_path):
        long_id = "sup-handoff-note-mid-conversation-x"
        evals = tmp_path / "evals.yaml"
        evals.write_text(
            EVAL_HEAD + f"  - id: {long_id}\n    outcome: o\n    input_messages:\n"
            "      - role: user\n        content: hi\n"
        )
        app = make_app([evals], repo_root=str(tmp_path), watch=False)
        async with app.run_test(size=(200, 40)) as pilot:
            await wait_for_idle(pilot)
            assert app.screen.query_one("#case-options").scrollable_content_region.width - 2 >= len(long_id)

    def test_a_skipped_case_as_written_stops_before_the_next_case_s_comments(self, tmp_path):
        from turnlens.tui.session import Session

        evals = tmp_path / "evals.yaml"
        evals.write_text(
            EVAL_HEAD + "  - id: 1042\n    outcome: o\n\n  # The next case is about something else.\n"
            "  - id: next\n    outcome: o\n"
        )
        session = Session([str(evals)], repo_root=str(tmp_path))
        session.load_all()
        first, text = session.case_source("0:0")
        assert (first, text) == (3, "  - id: 1042\n    outcome: o")


class TestListKeys:
    @pytest.mark.asyncio(loop_scope="package")
    async def test_n_says_when_it_wraps_around(self, shared_wide):
        pilot = await shared_wide.fresh()
        app = pilot.app
        await select(pilot, "no-outcome")  # the last case with warnings
        await pilot.press("n")
        assert [n.message for n in app._notifications][-1] == "Wrapped around to the first case with warnings."

    @pytest.mark.asyncio(loop_scope="package")
    async def test_the_filter_shows_its_count_and_esc_clears_it(self, shared_wide):
        pilot = await shared_wide.fresh()
        app = pilot.app
        screen = app.screen
        total = len(screen.session.case_keys())
        await pilot.press("slash", *"skip")
        await pilot.pause()
        options = screen.query_one("#case-options")
        assert str(options.border_subtitle).startswith(f"1 of {total}")
        await pilot.press("escape")  # to the list, filter kept
        assert screen.focused is options
        assert len(screen.query_one("CaseList").visible_keys()) == 1
        await pilot.press("escape")  # clears it
        await pilot.pause()
        assert len(screen.query_one("CaseList").visible_keys()) == total
        assert not options.border_subtitle
