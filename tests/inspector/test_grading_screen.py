"""The grading screen on a suite whose graders take every form (tests/fixtures/tui_graders): each grader as AgentV
runs it with its settings, and the prompts its grading sends, in the mode AgentV would use (an agent provider in
.agentv/targets.yaml: agent mode), as the inspector opens it, or the one chosen with m."""

from __future__ import annotations

import pytest
from tui_helpers import FIXTURE_REPO, select, wait_for_idle

from turnlens.tui.app import make_app
from turnlens.tui.inspector.grading import GradingScreen
from turnlens.tui.widgets.pane import Pane

REPO = FIXTURE_REPO.parent / "tui_graders"


@pytest.fixture(autouse=True)
def _in_fixture_repo(monkeypatch):
    monkeypatch.chdir(REPO)


def inspector():
    return make_app([REPO / "evals" / "graded.eval.yaml"], repo_root=str(REPO), watch=False)


def grading(case_id: str, *then: str):
    async def run_before(pilot):
        await wait_for_idle(pilot)
        await select(pilot, case_id)
        await pilot.press("e", *then)
        await wait_for_idle(pilot)

    return run_before


class TestSnapshots:
    def test_every_form_in_agentvs_mode_at_120_columns(self, snap_compare):
        """Opened as AgentV would format the test: agent mode (its target's provider is claude-cli)."""
        assert snap_compare(inspector(), terminal_size=(120, 40), run_before=grading("every-form"))

    def test_every_form_switched_to_lm_mode_at_80_columns(self, snap_compare):
        assert snap_compare(inspector(), terminal_size=(80, 24), run_before=grading("every-form", "m"))


async def test_graders_and_prompts_as_agentv_runs_them():
    app = inspector()
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_for_idle(pilot)
        await select(pilot, "every-form")
        await pilot.press("e")
        assert isinstance(app.screen, GradingScreen)
        title = str(app.screen.query_one("#screen-title").visual)
        assert "agent mode" in title
        assert "agent mode (as AgentV would)" in title
        graders = app.screen.query_one("#grading", Pane).body_text
        # why, in full, at the top of what grades it (the header has room for the short form only)
        assert graders.startswith(
            "mode\nagent mode, as AgentV would: target 'default' (none named): provider claude-cli"
        )
        for expected in (
            " 1  llm-grader  tone  weight 2",
            "prompt file: graders/tone.md",
            "criteria sent: ./graders/polite.md",
            " 3  llm-grader  (rubrics) quality",
            "a score-range prompt from its rubrics",
            " 4  composite  all-safety",
            "aggregator: threshold (threshold 0.5)",
            "    4.1  contains  mentions-reset",
            " 5  regex  no-secrets  weight 1 (default)  negated",
            "from include: .agentv/templates/safety.yaml",
            " 6  llm-grader  (rubrics) rubrics",
            " 7  code-grader  script  weight 1 (default)  required",
            "script: graders/check.py",
            "mode: in_order",
            "expects tool call: send_reset_link",
            "depends_on: login-works",
        ):
            assert expected in graders, expected
        prompts = app.screen.query_one("#evaluator", Pane).body_text
        assert "tone (llm-grader)  user prompt\nGrade the answer.\nAnswer: \nExpected: I can help" in prompts
        assert "all-safety › judged (llm-grader)  user prompt" in prompts
        assert "### Criterion: helpful [REQUIRED: min score 0.7]" in prompts
        await pilot.press("m")
        assert "lm mode (AgentV would use agent)" in str(app.screen.query_one("#screen-title").visual)
        assert app.screen.query_one("#grading", Pane).body_text.startswith(
            "mode\nlm mode here; AgentV would use agent mode: target 'default' (none named): provider claude-cli"
        )


async def test_each_case_opens_in_agentvs_mode_until_one_is_chosen(tmp_path, monkeypatch):
    """No --mode: a case is drawn in the mode AgentV would use for it (its target's provider: agent for claude-cli,
    lm for openai), and says so; m makes the other mode the user's choice, kept on every case after."""
    (tmp_path / ".agentv").mkdir()
    (tmp_path / ".agentv" / "targets.yaml").write_text(
        "targets:\n  - name: default\n    provider: claude-cli\n  - name: plain\n    provider: openai\n",
        encoding="utf-8",
    )
    (tmp_path / "s.eval.yaml").write_text(
        "tests:\n"
        "  - id: agentic\n    input: hi\n    criteria: c\n"
        "  - id: chatty\n    input: hi\n    criteria: c\n    execution:\n      target: plain\n",
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path)
    app = make_app([tmp_path / "s.eval.yaml"], repo_root=str(tmp_path), watch=False)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for_idle(pilot)
        screen = app.screen
        await select(pilot, "agentic")
        assert screen.mode == "agent" and screen.model.chosen_mode is None
        await select(pilot, "chatty")
        assert screen.mode == "lm"
        await pilot.press("m")  # the user's choice from now on
        assert screen.mode == "agent" and screen.model.chosen_mode == "agent"
        await select(pilot, "agentic")
        assert screen.mode == "agent"
        await pilot.press("m")
        await select(pilot, "chatty")
        assert screen.mode == "lm" and screen.model.chosen_mode == "lm"
        await select(pilot, "agentic")
        assert screen.mode == "lm"
        # the grading screen opens in the chosen mode and hands back no choice unless m is pressed there
        await pilot.press("e")
        assert isinstance(app.screen, GradingScreen) and app.screen.mode == "lm"
        await pilot.press("escape")
        await wait_for_idle(pilot)
        assert screen.model.chosen_mode == "lm"


async def test_the_grading_screen_follows_agentvs_mode_case_by_case_until_m(tmp_path, monkeypatch):
    (tmp_path / ".agentv").mkdir()
    (tmp_path / ".agentv" / "targets.yaml").write_text(
        "targets:\n  - name: default\n    provider: claude-cli\n  - name: plain\n    provider: openai\n",
        encoding="utf-8",
    )
    (tmp_path / "s.eval.yaml").write_text(
        "tests:\n"
        "  - id: agentic\n    input: hi\n    criteria: c\n"
        "  - id: chatty\n    input: hi\n    criteria: c\n    execution:\n      target: plain\n",
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path)
    app = make_app([tmp_path / "s.eval.yaml"], repo_root=str(tmp_path), watch=False)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for_idle(pilot)
        await select(pilot, "agentic")
        await pilot.press("e")
        grading_screen = app.screen
        assert isinstance(grading_screen, GradingScreen) and grading_screen.mode == "agent"
        await pilot.press("]")
        assert grading_screen.mode == "lm"  # chatty: AgentV's mode for it
        await pilot.press("m", "[")
        assert grading_screen.mode == "agent"  # chosen: kept on the case before
        await pilot.press("escape")
        await wait_for_idle(pilot)
        assert app.screen.model.chosen_mode == "agent"


def test_the_grading_texts_say_an_aggregators_placeholder_is_filled_during_a_run(tmp_path):
    from turnlens.formatting.dialects.format import format_case
    from turnlens.formatting.dialects.load import load_eval_file
    from turnlens.tui.inspector import authoring

    (tmp_path / "a.eval.yaml").write_text(
        "tests:\n"
        "  - id: agg\n    input: hi\n    criteria: c\n    assertions:\n"
        "      - name: both\n        type: composite\n        assertions:\n"
        "          - {name: judge, type: llm-grader}\n"
        "        aggregator: {type: llm-grader}\n",
        encoding="utf-8",
    )
    ev = load_eval_file(tmp_path / "a.eval.yaml", repo_root=str(tmp_path), cwd=str(tmp_path), environ={})
    case = ev.cases[0]
    formatted = format_case(case, ev)
    prompts, copied = authoring.grader_prompt_text(case, formatted, "lm")
    assert "both (composite aggregator)  user prompt\n{{EVALUATOR_RESULTS_JSON}}: a placeholder, left as written" in (
        prompts.plain
    )
    assert "{{EVALUATOR_RESULTS_JSON}}" in copied  # what is copied is the prompt as written
    graders = authoring.grading_text(case, formatted).plain
    assert "its prompt's {{EVALUATOR_RESULTS_JSON}} is filled with the members' results during a run" in graders


def test_a_grader_written_in_a_case_file_names_that_file_beside_its_line(tmp_path):
    from turnlens.formatting.dialects.format import format_case
    from turnlens.formatting.dialects.load import load_eval_file
    from turnlens.tui.inspector import authoring

    (tmp_path / "cases").mkdir()
    (tmp_path / "a.eval.yaml").write_text(
        "assertions:\n  - type: contains\n    value: hi\ntests:\n  - file://cases/more.yaml\n", encoding="utf-8"
    )
    (tmp_path / "cases" / "more.yaml").write_text(
        "# pulled in by a.eval.yaml\n- id: t\n  input: hey\n  assertions:\n    - type: contains\n      value: yo\n",
        encoding="utf-8",
    )
    ev = load_eval_file(tmp_path / "a.eval.yaml", repo_root=str(tmp_path), cwd=str(tmp_path), environ={})
    case = ev.cases[0]
    graders = authoring.grading_text(case, format_case(case, ev)).plain
    assert "cases/more.yaml line 5" in graders  # the test's own grader, in the case file
    assert "  line 2  from the suite" in graders  # the suite's, in the eval file
