"""The results view in the app: snapshots (list, detail, drift diff, compare) and pilot tests (sort/filter/search).

Regenerate snapshots with --snapshot-update only after looking at the new SVGs (snapshot_report.html).
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from tui_helpers import run_from_palette, wait_for_idle

from turnlens.tui.app import make_app

RESULTS = Path(__file__).parents[1] / "fixtures" / "results"
WIDE = (140, 36)
NARROW = (80, 24)


@pytest.fixture(autouse=True)
def _in_results_fixtures(monkeypatch):
    # Paths on screen are shown as given: run from the fixture folder so they never depend on the checkout.
    monkeypatch.chdir(RESULTS)


def results_app(*paths: str, **options):
    return make_app(list(paths), watch=False, **options)


def press(*keys: str):
    async def run_before(pilot):
        for key in keys:
            await pilot.press(key)
            await wait_for_idle(pilot)

    return run_before


def listed(app) -> list[str]:
    from turnlens.tui.results.widgets import ResultList

    result_list = app.screen.query_one(ResultList)
    return [result_list.results.eval_ids[i] for i in result_list.rows]


class TestResultsView:
    def test_failures_first_with_drift_marks(self, snap_compare):
        assert snap_compare(results_app("run-a.jsonl"), terminal_size=WIDE)

    def test_broken_lines_are_reported(self, snap_compare):
        assert snap_compare(results_app("broken.jsonl"), terminal_size=WIDE)

    def test_yaml_run(self, snap_compare):
        assert snap_compare(results_app("run.yaml"), terminal_size=WIDE)

    def test_sorted_by_time_shows_times(self, snap_compare):
        assert snap_compare(results_app("run-a.jsonl"), terminal_size=WIDE, run_before=press("s", "s"))

    def test_narrow_terminal(self, snap_compare):
        assert snap_compare(results_app("project/.agentv/results/mini-run.jsonl"), terminal_size=NARROW)


class TestResultDetail:
    def test_request_with_markers(self, snap_compare):
        # sorted failures first: timeout-case, then sum-markers
        assert snap_compare(results_app("run-a.jsonl"), terminal_size=WIDE, run_before=press("down", "enter"))

    def test_verdict_with_evaluators(self, snap_compare):
        assert snap_compare(results_app("run-a.jsonl"), terminal_size=WIDE, run_before=press("down", "enter", "3"))

    def test_answer_markdown(self, snap_compare):
        assert snap_compare(results_app("run-a.jsonl"), terminal_size=WIDE, run_before=press("down", "enter", "2"))

    def test_untrusted_request_stays_literal(self, snap_compare):
        # markup-injection: [bold], [@click=…], @[User]: and [[ ## q ## ]] in the question, all shown literally
        assert snap_compare(results_app("run-a.jsonl"), terminal_size=WIDE, run_before=press("down", "down", "enter"))

    def test_untrusted_answer_and_verdict_stay_literal(self, snap_compare):
        # an ESC colour sequence and a bell in the answer show as ␛[31m and ␇; [red] stays text
        assert snap_compare(
            results_app("run-a.jsonl"), terminal_size=WIDE, run_before=press("down", "down", "enter", "2")
        )

    def test_chat_prompt_cards(self, snap_compare):
        # sorted by id: bare-minimum, chat-history, …
        assert snap_compare(results_app("run-a.jsonl"), terminal_size=WIDE, run_before=press("s", "down", "enter"))


class TestDrift:
    def test_drift_diff(self, snap_compare):
        # mini-run: chat-history was recorded before its eval case changed
        app = results_app("project/.agentv/results/mini-run.jsonl")
        assert snap_compare(app, terminal_size=WIDE, run_before=press("end", "enter", "5"))


class TestCompare:
    def test_compare_view(self, snap_compare):
        assert snap_compare(results_app("run-a.jsonl", "run-b.jsonl"), terminal_size=WIDE)

    def test_answers_side_by_side(self, snap_compare):
        assert snap_compare(results_app("run-a.jsonl", "run-b.jsonl"), terminal_size=WIDE, run_before=press("enter"))


def in_theme(name: str, *keys: str):
    async def run_before(pilot):
        pilot.app.theme = name
        await wait_for_idle(pilot)
        for key in keys:
            await pilot.press(key)
            await wait_for_idle(pilot)

    return run_before


class TestThemes:
    """The results view in other themes (tui/theme.py): scores, marks, badges and diffs stay legible, the light
    themes included."""

    def test_list_in_a_light_theme(self, snap_compare):
        assert snap_compare(results_app("run-a.jsonl"), terminal_size=WIDE, run_before=in_theme("textual-light"))

    def test_graders_and_assertions_in_a_light_theme(self, snap_compare):
        assert snap_compare(
            results_app(RUN2), terminal_size=WIDE, run_before=in_theme("textual-light", "down", "enter", "3")
        )

    def test_drift_diff_in_another_light_theme(self, snap_compare):
        app = results_app("project/.agentv/results/mini-run.jsonl")
        assert snap_compare(app, terminal_size=WIDE, run_before=in_theme("solarized-light", "end", "enter", "5"))

    def test_compare_in_another_dark_theme(self, snap_compare):
        assert snap_compare(results_app("run-a.jsonl", "run-b.jsonl"), terminal_size=WIDE, run_before=in_theme("nord"))

    async def test_the_list_follows_a_theme_change(self):
        from turnlens.tui.results.widgets import ResultList

        app = results_app("run-a.jsonl")
        async with app.run_test(size=WIDE) as pilot:
            await wait_for_idle(pilot)
            result_list = app.screen.query_one(ResultList)
            before = result_list.render_line(0)
            app.theme = "textual-light"
            await wait_for_idle(pilot)
            after = result_list.render_line(0)
            assert before.text == after.text and list(before) != list(after)
            app.theme = "turnlens"
            await wait_for_idle(pilot)
            await pilot.press("enter")
            await wait_for_idle(pilot)
            from textual.widgets import Static

            dark = app.screen.query_one("#detail-title", Static).content
            app.theme = "textual-light"
            await wait_for_idle(pilot)
            light = app.screen.query_one("#detail-title", Static).content
            assert dark.plain == light.plain and dark.spans != light.spans  # the detail is drawn again


class TestPilot:
    async def test_sort_cycle(self):
        app = results_app("run-a.jsonl")
        async with app.run_test(size=WIDE) as pilot:
            await wait_for_idle(pilot)
            assert listed(app)[:2] == ["timeout-case", "sum-markers"]  # failures first
            await pilot.press("s")
            await wait_for_idle(pilot)
            assert listed(app) == sorted(listed(app))  # by id
            await pilot.press("s")
            await wait_for_idle(pilot)
            assert listed(app)[0] == "greet-flat" and listed(app)[-1] == "bare-minimum"  # by time, untimed last
            await pilot.press("s")
            await wait_for_idle(pilot)
            assert listed(app) == [
                "greet-flat",
                "sum-markers",
                "chat-history",
                "timeout-case",
                "markup-injection",
                "bare-minimum",
            ]  # file order
            await pilot.press("r")
            await wait_for_idle(pilot)
            assert listed(app)[0] == "bare-minimum"

    async def test_filter_and_threshold(self):
        app = results_app("run-a.jsonl", threshold=0.5)
        async with app.run_test(size=WIDE) as pilot:
            await wait_for_idle(pilot)
            await pilot.press("f")
            await wait_for_idle(pilot)
            assert listed(app) == ["timeout-case", "sum-markers"]  # failures at 0.50
            for _ in range(3):
                await pilot.press("+")
            await wait_for_idle(pilot)
            assert listed(app) == ["timeout-case", "sum-markers", "markup-injection"]  # failures at 0.65
            await pilot.press("f")
            await wait_for_idle(pilot)
            assert listed(app) == ["timeout-case"]  # errors
            await pilot.press("f")
            await wait_for_idle(pilot)
            assert listed(app) == ["sum-markers", "markup-injection"]  # quality failures: judged, under 0.65
            await pilot.press("f")
            await wait_for_idle(pilot)
            assert "timeout-case" not in listed(app) and len(listed(app)) == 3  # ok
            await pilot.press("f")
            await wait_for_idle(pilot)
            assert set(listed(app)) == {"greet-flat", "sum-markers", "chat-history"}  # drifted
            await pilot.press("escape")
            await wait_for_idle(pilot)
            assert len(listed(app)) == 6

    async def test_search_as_you_type(self):
        app = results_app("run-a.jsonl")
        async with app.run_test(size=WIDE) as pilot:
            await wait_for_idle(pilot)
            await pilot.press("slash", "c", "l")
            await wait_for_idle(pilot)
            assert listed(app) == ["timeout-case"]  # its target is claude
            await pilot.press("backspace", "h", "a")
            await wait_for_idle(pilot)
            assert listed(app) == ["chat-history"]
            await pilot.press("enter", "enter")  # back to the list, open the result
            await wait_for_idle(pilot)
            assert "ResultDetailScreen" in type(app.screen).__name__
            await pilot.press("escape", "escape")
            await wait_for_idle(pilot)
            assert len(listed(app)) == 6

    async def test_detail_walks_the_list(self):
        app = results_app("run-a.jsonl")
        async with app.run_test(size=WIDE) as pilot:
            await wait_for_idle(pilot)
            await pilot.press("enter")
            await wait_for_idle(pilot)
            assert app.screen.record.eval_id == "timeout-case"
            await pilot.press("n")
            await wait_for_idle(pilot)
            assert app.screen.record.eval_id == "sum-markers"

    async def test_folder_of_runs_and_compare(self):
        app = results_app("project/.agentv/results")
        async with app.run_test(size=WIDE) as pilot:
            await wait_for_idle(pilot)
            assert listed(app)[0] == "deleted-case"

    async def test_click_selects_and_opens(self):
        from turnlens.tui.results.widgets import ResultList

        app = results_app("run-a.jsonl")
        async with app.run_test(size=WIDE) as pilot:
            await wait_for_idle(pilot)
            result_list = app.screen.query_one(ResultList)
            await pilot.click(ResultList, offset=(20, 2))
            await wait_for_idle(pilot)
            assert result_list.cursor == 2
            await pilot.click(ResultList, offset=(20, 2))
            await wait_for_idle(pilot)
            assert app.screen.record.eval_id == listed_on(result_list)[2]


def help_shown(app) -> str:
    from rich.console import Console

    console = Console(width=200, record=True, file=io.StringIO())
    console.print(app.screen.query_one("#help-text").content)
    return console.export_text()


def listed_on(result_list) -> list[str]:
    return [result_list.results.eval_ids[i] for i in result_list.rows]


class TestEvalsOption:
    async def test_explicit_evals_and_repo_root(self, tmp_path):
        import shutil

        copy = tmp_path / "elsewhere.jsonl"  # far from any eval file: drift needs --evals
        shutil.copy(RESULTS / "project" / ".agentv" / "results" / "mini-run.jsonl", copy)
        for evals, expected in (
            (None, {"eval not found": 4}),
            (str(RESULTS / "project" / "evals"), {"equal": 2, "drifted": 1, "eval not found": 1}),
        ):
            app = make_app([str(copy)], evals=evals, repo_root=str(RESULTS / "project"), watch=False)
            async with app.run_test(size=WIDE) as pilot:
                await wait_for_idle(pilot)
                counts = {k: v for k, v in app.screen.run.drift_counts.items() if v}
                assert counts == ({} if evals is None else expected)
                if evals is None:
                    assert "no eval files found" in app.screen.run.drift_note


class TestHugeRecord:
    async def test_ten_megabyte_line_is_shown_cut(self, tmp_path):
        import orjson

        big = "word " * 2_000_000  # 10 MB on one line
        path = tmp_path / "huge.jsonl"
        path.write_bytes(
            orjson.dumps(
                {"eval_id": "huge", "score": 1, "candidate_answer": big, "lm_provider_request": {"question": big}}
            )
            + b"\n"
        )
        app = results_app(str(path))
        async with app.run_test(size=WIDE) as pilot:
            await wait_for_idle(pilot)
            await pilot.press("enter")
            await wait_for_idle(pilot)
            from textual.widgets import Static

            request = app.screen.query_one("#request-text", Static)
            shown = str(request.render())
            assert "more characters not shown" in shown and len(shown) < 200_000
            answer = app.screen.query_one(".answer")
            assert isinstance(answer, Static)  # too long for Markdown: literal text


class TestPalette:
    async def test_every_action_has_a_command(self):
        app = results_app("run-a.jsonl")
        async with app.run_test(size=WIDE) as pilot:
            await wait_for_idle(pilot)
            titles = [title for title, _, _ in app.screen.palette_commands()]
            for action in ("sort", "filter", "threshold", "drift", "search", "open"):
                assert any(action in title.lower() for title in titles), action
            await run_from_palette(pilot, "cycle sort")
            assert listed(app) == sorted(listed(app))  # the palette ran "cycle sort": now by id


class TestFullTextSearch:
    async def test_full_text_as_you_type_and_clear(self):
        app = results_app("run-a.jsonl")
        async with app.run_test(size=WIDE) as pilot:
            await wait_for_idle(pilot)
            await pilot.press("F", *"arithmetic")
            await wait_for_idle(pilot)
            assert listed(app) == ["sum-markers"]
            await pilot.press("enter")  # back to the list, the search stays
            await wait_for_idle(pilot)
            assert listed(app) == ["sum-markers"]
            await pilot.press("escape")
            await wait_for_idle(pilot)
            assert len(listed(app)) == 6


class TestLargeFileTextSearch:
    async def test_a_large_file_says_enter_runs_the_search_and_shows_it_running(self, monkeypatch):
        import threading

        import turnlens.tui.results.screen as results_screen

        monkeypatch.setattr(results_screen, "TEXT_AS_YOU_TYPE_BYTES", 0)  # every file counts as large
        app = results_app("run-a.jsonl")
        async with app.run_test(size=WIDE) as pilot:
            await wait_for_idle(pilot)
            every = listed(app)
            await pilot.press("F")
            search = app.screen.query_one("#results-text-search")
            assert "enter to search" in str(search.border_subtitle)
            await pilot.press(*"zzz-no-such-text")
            await wait_for_idle(pilot)
            assert listed(app) == every  # not searched as you type
            results = app.screen.run.results
            release = threading.Event()
            real_find = results.find_text
            monkeypatch.setattr(results, "find_text", lambda *a, **k: release.wait(5) and real_find(*a, **k))
            await pilot.press("enter")
            await pilot.pause(0.1)
            assert "searching" in str(search.border_subtitle)  # visible while it runs
            release.set()
            await wait_for_idle(pilot)
            assert listed(app) == []
            assert "0 results contain the text" in str(search.border_subtitle)
            await pilot.press("escape")
            await wait_for_idle(pilot)
            assert listed(app) == every


class TestResultsPolish:
    async def test_an_empty_filtered_list_says_why(self):
        app = results_app("run-a.jsonl")
        async with app.run_test(size=WIDE) as pilot:
            await wait_for_idle(pilot)
            await pilot.press("slash", *"no-such-id")
            await wait_for_idle(pilot)
            from turnlens.tui.results.widgets import ResultList

            note = app.screen.query_one(ResultList).empty_note
            assert note is not None and "No result to show (search 'no-such-id')" in note.plain

    async def test_help_has_a_title_and_says_how_to_close(self):
        app = results_app("run-a.jsonl")
        async with app.run_test(size=WIDE) as pilot:
            await wait_for_idle(pilot)
            await pilot.press("question_mark")
            await wait_for_idle(pilot)
            box = app.screen.query_one("#help-box")
            assert box.border_title and "esc closes" in str(box.border_subtitle)
            shown = help_shown(app)
            # made from the action tables: the list's keys, the detail's and the compare view's, and the marks
            for said in ("Sort by score", "The next result that failed", "Show changed pairs only", "execution error"):
                assert said in shown, said

    def test_the_key_maps_are_the_action_tables(self):
        from turnlens.tui.actions import bindings, palette_entries
        from turnlens.tui.results.compare import CompareScreen
        from turnlens.tui.results.detail import CompareDetailScreen, ResultDetailScreen
        from turnlens.tui.results.keys import COMPARE_ACTIONS, DETAIL_ACTIONS, PAIR_ACTIONS, RESULTS_ACTIONS
        from turnlens.tui.results.screen import ResultsScreen

        for screen, table in (
            (ResultsScreen, RESULTS_ACTIONS),
            (CompareScreen, COMPARE_ACTIONS),
            (ResultDetailScreen, DETAIL_ACTIONS),
            (CompareDetailScreen, PAIR_ACTIONS),
        ):
            assert [(b.key, b.action) for b in screen.BINDINGS] == [(b.key, b.action) for b in bindings(table)]
            # every palette entry says its key
            assert all(description.endswith(")") for _t, description, _a in palette_entries(table)), screen

    async def test_help_of_the_detail_and_of_a_pair(self):
        for paths in (("run-a.jsonl",), ("run-a.jsonl", "run-b.jsonl")):
            app = results_app(*paths)
            async with app.run_test(size=WIDE) as pilot:
                await wait_for_idle(pilot)
                await pilot.press("enter")
                await wait_for_idle(pilot)
                await pilot.press("question_mark")
                await wait_for_idle(pilot)
                shown = help_shown(app)
                assert ("failed or errored" if len(paths) == 1 else "next pair whose result changed") in shown

    async def test_a_pushed_compare_view_shows_esc_back_in_the_footer(self, tmp_path):
        from turnlens.tui.results.compare import CompareScreen

        app = results_app("run-a.jsonl")
        async with app.run_test(size=WIDE) as pilot:
            await wait_for_idle(pilot)
            app.push_screen(CompareScreen(["run-a.jsonl", "run-b.jsonl"], closable=True))
            await wait_for_idle(pilot)
            shown = {b.key: b.description for b in app.screen._bindings.shown_keys}
            assert shown.get("escape") == "Back"

    def test_the_verdict_score_has_two_decimals_as_in_the_header(self):
        from turnlens.formatting.results.record import ResultRecord
        from turnlens.tui.results.texts import verdict_text

        assert verdict_text(ResultRecord(file="f", line=1, score=0.4), 0.5).plain.count("0.40") >= 1

    def test_tabs_show_their_keys(self):
        from turnlens.tui.results.detail import _tab_title

        assert _tab_title("3", "Verdict").plain == "3 Verdict"


RUN2 = "v4/.agentv/results/runs/default/2026-06-21T09-00-00-000Z"


class TestAgentV4:
    def test_run_folder_list_and_header(self, snap_compare):
        # status marks, duration / tokens / cost columns, status counts and totals in the header
        assert snap_compare(results_app(RUN2), terminal_size=WIDE)

    def test_graders_and_assertions(self, snap_compare):
        # the quality failure (hello-flat, second: errors first): failing grader, evidence
        assert snap_compare(results_app(RUN2), terminal_size=WIDE, run_before=press("down", "enter", "3"))

    def test_composite_grader(self, snap_compare):
        assert snap_compare(results_app(RUN2), terminal_size=WIDE, run_before=press("down", "down", "enter", "3"))

    def test_raw_tab(self, snap_compare):
        assert snap_compare(results_app(RUN2), terminal_size=WIDE, run_before=press("down", "enter", "7"))

    def test_execution_error_is_not_a_failed_score(self, snap_compare):
        assert snap_compare(results_app(RUN2), terminal_size=WIDE, run_before=press("enter", "3"))

    async def test_answer_and_input_from_the_artifacts(self):
        app = results_app(RUN2)
        async with app.run_test(size=WIDE) as pilot:
            await wait_for_idle(pilot)
            await pilot.press("down", "enter")
            await wait_for_idle(pilot)
            from textual.widgets import Static

            assert app.screen.record.eval_id == "hello-flat"
            request = str(app.screen.query_one("#request-text", Static).render())
            assert "My name is Ada" in request and "input.md" in request
            answer = app.screen.query_one(".answer")
            assert "hello-flat" in getattr(answer, "source", "") or "hello-flat" in str(answer.render())
            timing = str(app.screen.query_one("#timing-text", Static).render())
            assert "read_file ×2" in timing

    async def test_folder_of_runs_newest_first(self):
        app = results_app("v4/.agentv/results")
        async with app.run_test(size=WIDE) as pilot:
            await wait_for_idle(pilot)
            assert app.screen.run.source.name == "default/2026-06-22T09-00-00-000Z"
            await pilot.press("right_curly_bracket")
            await wait_for_idle(pilot)
            assert app.screen.run.source.name == "default/2026-06-21T09-00-00-000Z"

    async def test_filter_by_failing_grader(self):
        app = results_app(RUN2)
        async with app.run_test(size=WIDE) as pilot:
            await wait_for_idle(pilot)
            for _ in range(5):  # all, failures, errors, quality failures, ok -> grader:format
                await pilot.press("f")
            await wait_for_idle(pilot)
            assert app.screen.filter == "grader:format" and listed(app) == ["no-assertions"]
            await pilot.press("f")
            await wait_for_idle(pilot)
            assert listed(app) == ["hello-flat"]

    def test_drift_of_a_4x_result(self, snap_compare):
        # run 1 recorded hello-flat's input from an older wording: input.md differs from what the suite sends now
        app = results_app("v4/.agentv/results/runs/default/2026-06-20T09-00-00-000Z")
        assert snap_compare(app, terminal_size=WIDE, run_before=press("s", "enter", "5"))

    def test_compare_two_runs(self, snap_compare):
        runs = "v4/.agentv/results/runs/default/"
        app = results_app(runs + "2026-06-20T09-00-00-000Z", RUN2)
        assert snap_compare(app, terminal_size=WIDE)

    def test_compare_unrelated_suites_says_no_ids_pair(self, snap_compare):
        assert snap_compare(results_app("run-a.jsonl", RUN2), terminal_size=WIDE)


class TestFollow:
    async def test_rows_appended_to_an_open_run_arrive(self, tmp_path):
        import asyncio

        source = RESULTS / RUN2 / "index.jsonl"
        rows = source.read_text().splitlines(keepends=True)
        run = tmp_path / "run"
        run.mkdir()
        index = run / "index.jsonl"
        index.write_text(rows[0])
        app = make_app([str(run)], watch=True)
        async with app.run_test(size=WIDE) as pilot:
            await wait_for_idle(pilot)
            assert listed(app) == ["hello-flat"]
            await pilot.press("down")  # the user is on hello-flat: it stays highlighted as rows arrive above it
            with index.open("a") as handle:
                handle.write(rows[1] + rows[2])
            for _ in range(40):
                await asyncio.sleep(0.05)
                if app.screen.run.results.count == 3:
                    break
            await wait_for_idle(pilot)
            assert listed(app) == ["multi-turn", "hello-flat", "system-and-user"]  # errors first, then by score
            from turnlens.tui.results.widgets import ResultList, ResultsHeader

            result_list = app.screen.query_one(ResultList)
            assert result_list.current == 0  # still hello-flat
            assert app.screen.query_one(ResultsHeader).state.stats.count == 3
            index.write_text(rows[3])  # rewritten shorter (AgentV rewrites index.jsonl at the end of a run)
            for _ in range(40):
                await asyncio.sleep(0.05)
                if listed(app) == ["no-assertions"]:
                    break
            await wait_for_idle(pilot)
            assert listed(app) == ["no-assertions"]


class TestFooter:
    async def test_help_and_quit_stay_in_the_list_footer_at_80_columns(self):
        """As in the inspector: `?` and `q` rank first among what the footer keeps on a narrow terminal."""
        from textual.widgets import Footer

        app = results_app("run-a.jsonl")
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for_idle(pilot)
            footer = app.screen.query_one(Footer)
            shown = {key.key for key in footer.query("FooterKey") if key.display}
            assert {"question_mark", "q"} <= shown, shown

    @pytest.mark.parametrize("keys", [(), ("enter",)], ids=["list", "result"])
    async def test_the_footer_drops_whole_entries_never_cuts_one(self, keys):
        from textual.widgets import Footer

        from turnlens.tui.widgets.footer import entry_width

        app = results_app("run-a.jsonl")
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for_idle(pilot)
            for key in keys:
                await pilot.press(key)
                await wait_for_idle(pilot)
            footer = app.screen.query_one(Footer)
            palette = footer.query_one(".-command-palette")
            entries = [key for key in footer.query("FooterKey") if key is not palette]
            shown = [key.display for key in entries]
            assert shown[0] and shown == sorted(shown, reverse=True)
            for key in entries:
                if key.display:
                    assert key.region.width == entry_width(key) - key.styles.margin.width
                    assert key.region.right <= palette.region.x
