"""The grading screen on a suite whose graders take every form (tests/fixtures/tui_graders): each grader as AgentV
runs it with its settings, and the prompts its grading sends, in the mode AgentV would use (an agent provider in
.agentv/targets.yaml: agent mode) or the one chosen with m."""

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
    def test_every_form_at_120_columns(self, snap_compare):
        assert snap_compare(inspector(), terminal_size=(120, 40), run_before=grading("every-form"))

    def test_every_form_in_agent_mode_at_80_columns(self, snap_compare):
        assert snap_compare(inspector(), terminal_size=(80, 24), run_before=grading("every-form", "m"))


async def test_graders_and_prompts_as_agentv_runs_them():
    app = inspector()
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_for_idle(pilot)
        await select(pilot, "every-form")
        await pilot.press("e")
        assert isinstance(app.screen, GradingScreen)
        title = str(app.screen.query_one("#screen-title").visual)
        assert "(here; AgentV would use agent mode: target 'default' (none named): provider claude-cli" in title
        graders = app.screen.query_one("#grading", Pane).body_text
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
        assert "(as AgentV would" in str(app.screen.query_one("#screen-title").visual)
