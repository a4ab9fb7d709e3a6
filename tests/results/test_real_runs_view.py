"""Run folders written by the real `agentv eval --dry-run` 4.42.4, in the app: the header's pass figure, the rows'
marks and the verdict tab say what AgentV said. Snapshots: look at snapshot_report.html before updating."""

from __future__ import annotations

from pathlib import Path

import pytest
from tui_helpers import wait_for_idle

from turnlens.tui.app import make_app

REAL = Path(__file__).parents[1] / "fixtures" / "results" / "real"
RUNS = "project/.agentv/results/runs/default/"
FIRST, LENIENT = RUNS + "2026-06-20T09-00-00-000Z", RUNS + "2026-06-24T09-00-00-000Z"
WIDE = (140, 36)
NARROW = (80, 24)


@pytest.fixture(autouse=True)
def _in_real_fixtures(monkeypatch):
    monkeypatch.chdir(REAL)  # paths on screen are shown as given


def press(*keys: str):
    async def run_before(pilot):
        for key in keys:
            await pilot.press(key)
            await wait_for_idle(pilot)

    return run_before


def test_list_marks_cursor_and_columns(snap_compare):
    # ✓ ok, ✗ quality failure; own-threshold passed at 0.25 (its own threshold), the cursor on the third row
    assert snap_compare(make_app([FIRST], watch=False), terminal_size=WIDE, run_before=press("down", "down"))


def test_verdict_explained_by_the_tests_own_threshold(snap_compare):
    app = make_app([FIRST], watch=False)
    assert snap_compare(app, terminal_size=WIDE, run_before=press("down", "down", "enter", "3"))


def test_suite_threshold_in_the_header_at_80_columns(snap_compare):
    assert snap_compare(make_app([LENIENT], watch=False), terminal_size=NARROW)


async def test_threshold_flag_and_keys():
    app = make_app([FIRST], watch=False, threshold=0.5)
    async with app.run_test(size=WIDE) as pilot:
        await wait_for_idle(pilot)
        model = app.screen.model
        assert model.threshold_setting.source == "--threshold" and model.threshold == 0.5
        await pilot.press("plus")
        await wait_for_idle(pilot)
        assert model.threshold == 0.55 and model.threshold_setting.source == "set with + and -"
        # the recorded verdicts stay: 2 of 8 passed, as AgentV said
        stats = model.header_state().stats
        assert (stats.passed, stats.failed) == (2, 6)


AGENT = RUNS + "2026-06-25T09-00-00-000Z"


def test_transcript_tab_with_tool_calls(snap_compare):
    # fix-failing-test: four tool calls over two turns, the first one's arguments and result unfolded
    keys = press("down", "enter", "8", "down", "down", "down", "enter", "down", "enter", "down", "down", "enter")
    assert snap_compare(make_app([AGENT], watch=False), terminal_size=WIDE, run_before=keys)


async def test_a_run_and_a_filter_are_chosen_from_lists():
    from turnlens.tui.results.screen import ChoiceScreen

    app = make_app(["project/.agentv/results"], watch=False)
    async with app.run_test(size=WIDE) as pilot:
        await wait_for_idle(pilot)
        model = app.screen.model
        assert len(model.runs) == 6 and model.current == 0
        await pilot.press("R")
        await wait_for_idle(pilot)
        assert isinstance(app.screen, ChoiceScreen)
        await pilot.press("down", "down", "enter")
        await wait_for_idle(pilot)
        assert model.current == 2 and model.run.name.endswith("2026-06-23T09-00-00-000Z")
        await pilot.press("S")
        await wait_for_idle(pilot)
        await pilot.press("down", "enter")  # all, failures, …
        await wait_for_idle(pilot)
        assert model.filter == "failures"


async def test_from_a_case_to_its_latest_recorded_result():
    from turnlens.tui.inspector.screen import InspectorScreen
    from turnlens.tui.results.detail import ResultDetailScreen

    app = make_app(["project/evals/scoring/scoring.eval.yaml"], watch=False, repo_root="project")
    async with app.run_test(size=WIDE) as pilot:
        await wait_for_idle(pilot)
        await pilot.press("R")  # all-pass: last run by the newest run that ran it (2026-06-23, --threshold 0.5)
        for _ in range(80):
            await pilot.pause(0.1)
            if isinstance(app.screen, ResultDetailScreen) and app.screen.record is not None:
                break
        assert isinstance(app.screen, ResultDetailScreen)
        record = app.screen.record
        assert record.eval_id == "all-pass" and "2026-06-23T09-00-00-000Z" in record.file
        # and back: esc closes the result, esc again leaves its run for the case it was opened from
        await pilot.press("escape")
        await wait_for_idle(pilot)
        await pilot.press("escape")
        await wait_for_idle(pilot)
        assert isinstance(app.screen, InspectorScreen) and app.screen.current is not None
        assert app.screen.session.case(app.screen.current)[1].id == "all-pass"


def test_a_case_shows_its_latest_recorded_result(snap_compare):
    # half, as scoring.eval.yaml has it: last run on 2026-06-23 (lenient's `half` ran later, in another suite)
    app = make_app(["project/evals/scoring/scoring.eval.yaml"], watch=False, repo_root="project")
    assert snap_compare(app, terminal_size=WIDE, run_before=press("down", "down"))


def test_a_case_shows_its_latest_recorded_result_at_80_columns(snap_compare):
    # the run's name is left out where the rule would be cut too short
    app = make_app(["project/evals/scoring/scoring.eval.yaml"], watch=False, repo_root="project")
    assert snap_compare(app, terminal_size=NARROW)


def test_drift_tab_compares_the_test_as_run_with_the_test_now(snap_compare):
    # all-pass, run with scoring-v1.yaml.txt: a grader was added since (the run's task bundle against the eval file)
    keys = press("end", "enter", "5")
    assert snap_compare(make_app([FIRST], watch=False), terminal_size=WIDE, run_before=keys)


async def test_headers_at_80_columns_leave_out_whole_figures_and_keep_what_finds_the_result():
    """Issue 24 (second walk): at 80 columns the list's header ended in `m…` (its mean, cut) and lost the run's
    place (`run 1 of 6`), compare's ended in `(…`, and a result's lost its file:line off the end of its path.
    Figures that do not fit are left out whole (turnlens's first); the path loses its start."""
    app = make_app(["project/.agentv/results"], watch=False)
    async with app.run_test(size=NARROW) as pilot:
        await wait_for_idle(pilot)
        rows = str(app.screen.query_one("ResultsHeader").render()).split("\n")
        assert all(len(row) <= 78 for row in rows), rows
        assert rows[0].endswith("/  (run 1 of 6)")
        assert rows[1].endswith("execution error 0")  # AgentV's counts whole; turnlens's mean left out
        await pilot.press("enter")
        await wait_for_idle(pilot)
        title = app.screen.query_one("#detail-title").render()
        rows = str(title).split("\n")
        assert all(len(row) <= 78 for row in rows), rows
        assert rows[0].endswith("target transcript") and "…" not in rows[0]
        assert rows[1].startswith("…") and "/index.jsonl:2  41s  6.0k tokens  1 of 2" in rows[1]
        await pilot.press("escape", "v")
        await wait_for_idle(pilot)
        rows = str(app.screen.query_one("CompareHeader").render()).split("\n")
        assert all(len(row) <= 78 and not row.endswith("…") for row in rows), rows
        assert rows[1].endswith("3 only in A  2 only in B")
