"""The inspector on AgentV 4 suites (tests/fixtures/tui4): the dialect and why, suite input marked, interpolation
shown, the systemMessage pane, the grading screen (criteria, expected_output, graders), skipped tests, folders mixing
both dialects, and live re-render of everything a suite depends on (suite, external case file, .env, a referenced
file that appears after being missing)."""

from __future__ import annotations

import shutil

import pytest
import pytest_asyncio
from test_live_rerender import start_watching, wait_for
from tui_helpers import FIXTURE_REPO, WIDE, select, shared_inspector, wait_for_idle

from turnlens.tui.app import make_app
from turnlens.tui.inspector.grading import GradingScreen
from turnlens.tui.widgets.pane import Pane

REPO4 = FIXTURE_REPO.parent / "tui4"
SUITE = REPO4 / "evals" / "support.eval.yaml"
MEDIUM = (120, 40)


@pytest.fixture(autouse=True)
def _in_fixture_repo(monkeypatch):
    # ${{ TL_PRODUCT }} comes from the fixture's .env unless the environment has it (the environment wins).
    monkeypatch.delenv("TL_PRODUCT", raising=False)
    monkeypatch.chdir(REPO4)


def inspector(*paths, **options):
    return make_app(list(paths) or [REPO4 / "evals"], repo_root=str(REPO4), watch=False, **options)


def showing(case_id: str, *then: str):
    async def run_before(pilot):
        await wait_for_idle(pilot)
        await select(pilot, case_id)
        if then:
            await pilot.press(*then)
            await wait_for_idle(pilot)

    return run_before


def pane(app, pane_id: str) -> Pane:
    return app.screen.query_one(f"#{pane_id}", Pane)


class TestSnapshots:
    def test_suite_input_interpolation_and_system_message(self, snap_compare):
        assert snap_compare(inspector(), terminal_size=WIDE, run_before=showing("refund-with-policy"))

    def test_grading_screen_with_assertions(self, snap_compare):
        assert snap_compare(inspector(), terminal_size=WIDE, run_before=showing("graded-by-assertions", "e"))

    def test_skipped_test_at_120_columns(self, snap_compare):
        assert snap_compare(inspector(), terminal_size=MEDIUM, run_before=showing("no-input"))


@pytest_asyncio.fixture(scope="class", loop_scope="class")
async def shared():
    """One inspector on the suite for the tests of a class that only select cases and read what is shown."""
    async with shared_inspector(inspector, WIDE, cwd=REPO4, unset=("TL_PRODUCT",)) as shared:
        yield shared


@pytest.mark.asyncio(loop_scope="class")
class TestAgentV4PanesRead:
    """Each test selects its case first: what an earlier one selected does not matter."""

    async def test_what_the_author_wrote_and_what_it_became(self, shared):
        pilot = await shared.fresh()
        app = pilot.app
        await select(pilot, "refund-with-policy")
        messages = pane(app, "messages").body_text
        assert "Message 1 comes from the suite's `input`" in messages
        assert " 1 system  SUITE " in messages
        assert "You are the support agent for Ridgeline Outdoor." in messages  # ${{ TL_PRODUCT }} from .env
        assert "Hi, I'm Dana." in messages  # {{ name }} from vars
        # this test's own text used only vars; the suite's ${{ TL_PRODUCT }} is said once, for the file
        assert "Interpolated\n• input: {{ name }} replaced from vars" in messages
        assert "TL_PRODUCT }} replaced" not in messages
        assert "⎘ docs/policy.md" in messages
        fifth = pane(app, "guidelines")
        assert fifth.title_name == "systemMessage"
        assert fifth.body_text.startswith("You are the support agent for Ridgeline Outdoor.")
        rule = pane(app, "rule").body_text
        assert " agentv-4  AgentV 4 · suite support" in rule
        assert "because it has `tests`" in rule
        assert (
            "in the file:\n• ${{ TL_PRODUCT }} replaced by 'Ridgeline Outdoor' (line 4)\n"
            "• ${{ TL_PRODUCT }} replaced by 'Ridgeline Outdoor' (line 8)" in rule
        )
        await select(pilot, "graded-by-assertions")  # its input uses the variable itself
        assert "• ${{ TL_PRODUCT }} replaced by 'Ridgeline Outdoor'" in pane(app, "messages").body_text
        # Not a warning: no banner for what interpolation did.
        assert not app.screen.query_one("#banner").has_class("-visible")

    async def test_external_case_file_is_named(self, shared):
        pilot = await shared.fresh()
        app = pilot.app
        await select(pilot, "escalation-angry")
        assert "test from cases/escalations.yaml" in pane(app, "rule").body_text
        # The header says where the test is written: the suite pulls it in from the case file, at its line.
        title = str(app.screen.query_one("#case-title").visual)
        assert "evals/support.eval.yaml ← evals/cases/escalations.yaml:2" in title
        path, line = app.screen.session.case_location(app.screen.current)
        assert (path.endswith("escalations.yaml"), line) == (True, 2)

    async def test_skipped_test_shows_the_reference_reason(self, shared):
        pilot = await shared.fresh()
        app = pilot.app
        await select(pilot, "no-input")
        assert "AgentV skips this case: `input` is undefined" in pane(app, "rule").body_text
        await pilot.press("e")
        assert not isinstance(app.screen, GradingScreen)


class TestAgentV4Panes:
    async def test_grading_screen(self):
        app = inspector()
        async with app.run_test(size=WIDE) as pilot:
            await wait_for_idle(pilot)
            await select(pilot, "graded-by-assertions")
            await pilot.press("e")
            assert isinstance(app.screen, GradingScreen)
            grading = pane(app, "grading").body_text
            assert "criteria\nStates the two-year warranty." in grading
            # every grader as AgentV runs it, in its order, with its settings
            assert " 1  llm-grader  (rubrics) rubrics  weight 1  line 27" in grading
            assert "[rubric-1] (required): Mentions the two-year warranty" in grading
            assert " 2  contains  contains-two years  weight 2  line 28\n    value: two years" in grading
            assert " 3  llm-grader  tone  weight 3  line 31" in grading
            assert "criteria sent: Is the answer polite and brief?" in grading
            assert "The default grader does not run" in grading
            prompts = pane(app, "evaluator")
            assert prompts.title_name == "grader prompts"
            assert (
                "rubrics (llm-grader)  user prompt\nYou are an expert grader. Evaluate the candidate"
                in prompts.body_text
            )
            assert "[[ ## criteria ## ]]\nIs the answer polite and brief?" in prompts.body_text
            # the mode the prompts are made in is said, and `m` switches it (agent-mode grading is not labelled lm)
            title = str(app.screen.query_one("#screen-title").visual)
            assert "lm mode" in title
            await pilot.press("m")
            assert "agent mode" in str(app.screen.query_one("#screen-title").visual)
            await pilot.press("escape")
            await select(pilot, "refund-with-policy")
            await pilot.press("e")
            grading = pane(app, "grading").body_text
            assert "the grader's reference answer" in grading
            assert "(none: the default grader runs" in grading
            assert "Yes, unused items are refunded in full" in pane(app, "evaluator").body_text

    @pytest.mark.asyncio(loop_scope="package")
    async def test_a_0_15_file_keeps_its_guidelines_pane(self, shared_wide):
        pilot = await shared_wide.fresh()  # the inspector on tests/fixtures/tui/cases.yaml (conftest.py)
        app = pilot.app
        await select(pilot, "guideline-only-system")
        assert pane(app, "guidelines").title_name == "guidelines"
        assert " agentv-0.15  AgentV 0.15" in pane(app, "rule").body_text

    async def test_a_folder_mixing_both_dialects(self, tmp_path, monkeypatch):
        repo = tmp_path / "repo"
        shutil.copytree(REPO4, repo)
        shutil.copy(FIXTURE_REPO / "cases.yaml", repo / "legacy.yaml")
        shutil.copytree(FIXTURE_REPO / "src", repo / "src")
        monkeypatch.chdir(repo)
        app = make_app([repo], repo_root=str(repo), watch=False)
        async with app.run_test(size=WIDE) as pilot:
            await wait_for_idle(pilot)
            screen = app.screen
            dialects = {f.rel: f.good.dialect for f in screen.session.files if f.good}
            assert dialects == {"legacy.yaml": "agentv-0.15", "evals/support.eval.yaml": "agentv-4"}
            await select(pilot, "several-turns")
            assert pane(app, "guidelines").title_name == "guidelines"
            await select(pilot, "refund-with-policy")
            assert pane(app, "guidelines").title_name == "systemMessage"

    async def test_dialect_option_is_honoured(self):
        app = inspector(SUITE, dialect="agentv-0.15")
        async with app.run_test(size=WIDE) as pilot:
            await wait_for_idle(pilot)
            session = app.screen.session
            assert session.files[0].good is None or session.files[0].good.dialect == "agentv-0.15"


@pytest.fixture
def repo4(tmp_path, monkeypatch):
    repo = tmp_path / "repo"
    shutil.copytree(REPO4, repo)
    monkeypatch.chdir(repo)
    return repo


class TestLiveRerender:
    async def test_suite_external_case_file_and_env(self, repo4):
        suite = repo4 / "evals" / "support.eval.yaml"
        app = make_app([repo4 / "evals"], repo_root=str(repo4), watch=True)
        async with app.run_test(size=WIDE) as pilot:
            screen = await start_watching(pilot)
            await select(pilot, "escalation-angry")
            key = screen.current

            external = repo4 / "evals" / "cases" / "escalations.yaml"
            external.write_text(external.read_text().replace("Fix it today.", "Fix it this week."))
            await wait_for(pilot, lambda: "Fix it this week." in pane(app, "question").body_text, "the case file")
            assert screen.current == key

            env = repo4 / ".env"
            env.write_text(env.read_text().replace("Ridgeline Outdoor", "Northwind"))
            await wait_for(
                pilot, lambda: "support agent for Northwind." in pane(app, "guidelines").body_text, "the .env edit"
            )

            suite.write_text(suite.read_text().replace("Be brief", "Be very brief"))
            await wait_for(pilot, lambda: "Be very brief" in pane(app, "guidelines").body_text, "the suite edit")
            assert screen.session.case(screen.current)[1].id == "escalation-angry"

    async def test_a_referenced_file_that_appears_after_being_missing(self, repo4):
        policy = repo4 / "docs" / "policy.md"
        text = policy.read_text()
        policy.unlink()
        app = make_app([repo4 / "evals"], repo_root=str(repo4), watch=True)
        async with app.run_test(size=WIDE) as pilot:
            await start_watching(pilot)
            await select(pilot, "refund-with-policy")
            assert "file missing: docs/policy.md" in pane(app, "rule").body_text
            policy.write_text(text.replace("Refund policy", "Refund policy, new"))
            await wait_for(pilot, lambda: "Refund policy, new" in pane(app, "question").body_text, "the new file")

    async def test_a_new_env_file_next_to_the_suite(self, repo4):
        app = make_app([repo4 / "evals"], repo_root=str(repo4), watch=True)
        async with app.run_test(size=WIDE) as pilot:
            await start_watching(pilot)
            await select(pilot, "refund-with-policy")
            (repo4 / "evals" / ".env").write_text("TL_PRODUCT=Closer Outfitters\n")  # the nearest wins
            await wait_for(pilot, lambda: "Closer Outfitters" in pane(app, "guidelines").body_text, "the new .env file")

    async def test_a_case_file_appearing_in_a_file_glob_folder(self, repo4):
        """`- file://batch/*.yaml` in `tests`: a case file created in batch/ while the inspector is open is read."""
        (repo4 / "evals" / "batch").mkdir()
        (repo4 / "evals" / "batch" / "a.yaml").write_text("- id: batch-a\n  criteria: c\n  input: From a.\n")
        (repo4 / "evals" / "globbed.eval.yaml").write_text("tests:\n  - file://batch/*.yaml\n")
        app = make_app([repo4 / "evals"], repo_root=str(repo4), watch=True)
        async with app.run_test(size=WIDE) as pilot:
            screen = await start_watching(pilot)

            def ids() -> set[str]:
                return {c.id for f in screen.session.files if f.good for c in f.good.cases if c.id}

            assert "batch-a" in ids() and "batch-b" not in ids()
            (repo4 / "evals" / "batch" / "b.yaml").write_text("- id: batch-b\n  criteria: c\n  input: From b.\n")
            await wait_for(pilot, lambda: "batch-b" in ids(), "the new case file")
            await select(pilot, "batch-b")
            assert "From b." in pane(app, "question").body_text
