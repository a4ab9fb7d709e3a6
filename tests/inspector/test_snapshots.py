"""Snapshot tests of the inspector (pytest-textual-snapshot). Regenerate with --snapshot-update only after
looking at the new SVGs (snapshot_report.html)."""

from __future__ import annotations

import pytest
from tui_helpers import CASES, FIXTURE_REPO, NARROW, WIDE, copy_fixture_repo, select

from turnlens.tui.app import make_app


@pytest.fixture(autouse=True)
def _in_fixture_repo(monkeypatch):
    # The working directory is a search root for file references: keep it inside the fixture repo so that
    # nothing on screen depends on where the checkout lives.
    monkeypatch.chdir(FIXTURE_REPO)


def inspector(*paths, **options):
    return make_app(list(paths) or [CASES], repo_root=str(FIXTURE_REPO), watch=False, **options)


def showing(case_id: str, *then: str):
    async def run_before(pilot):
        await select(pilot, case_id)
        if then:
            await pilot.press(*then)

    return run_before


class TestMarkerRule:
    def test_flat_case(self, snap_compare):
        assert snap_compare(inspector(), terminal_size=WIDE, run_before=showing("flat-question"))

    def test_markers_from_a_non_user_turn(self, snap_compare):
        assert snap_compare(inspector(), terminal_size=WIDE, run_before=showing("non-user-turn"))

    def test_markers_from_several_visible_turns(self, snap_compare):
        assert snap_compare(inspector(), terminal_size=WIDE, run_before=showing("several-turns"))

    def test_guideline_only_system_message(self, snap_compare):
        assert snap_compare(inspector(), terminal_size=WIDE, run_before=showing("guideline-only-system"))

    def test_missing_file_warning(self, snap_compare):
        assert snap_compare(inspector(), terminal_size=WIDE, run_before=showing("missing-file"))

    def test_skipped_case(self, snap_compare):
        assert snap_compare(inspector(), terminal_size=WIDE, run_before=showing("no-outcome"))


class TestToggles:
    def test_agent_mode(self, snap_compare):
        assert snap_compare(inspector(mode="agent"), terminal_size=WIDE, run_before=showing("several-turns"))

    def test_design_profile(self, snap_compare):
        assert snap_compare(inspector(), terminal_size=WIDE, run_before=showing("flat-question", "p"))

    def test_profile_diff(self, snap_compare):
        assert snap_compare(inspector(), terminal_size=WIDE, run_before=showing("several-turns", "d"))


class TestEvaluatorPrompt:
    def test_evaluator_prompt(self, snap_compare):
        assert snap_compare(inspector(), terminal_size=WIDE, run_before=showing("non-user-turn", "e"))


class TestUntrustedText:
    def test_markup_and_escape_sequences_show_literally(self, snap_compare):
        assert snap_compare(inspector(), terminal_size=WIDE, run_before=showing("[bold]markup[/bold] injection"))


class TestYamlErrors:
    def test_banner_keeps_last_good_render(self, snap_compare, tmp_path, monkeypatch):
        repo = copy_fixture_repo(tmp_path)
        monkeypatch.chdir(repo)
        cases = repo / "cases.yaml"
        app = make_app([cases], repo_root=str(repo), watch=False)

        async def break_the_yaml(pilot):
            await select(pilot, "several-turns")
            cases.write_text(cases.read_text().replace("  - id: several-turns", "  - id: [several-turns"))
            await pilot.app.screen.reload_files([0])

        assert snap_compare(app, terminal_size=WIDE, run_before=break_the_yaml)

    def test_refused_file_among_others(self, snap_compare, tmp_path, monkeypatch):
        repo = copy_fixture_repo(tmp_path)
        monkeypatch.chdir(repo)
        (repo / "broken.yaml").write_text("$schema: agentv-eval-v2\nevalcases:\n  - id: a\n    id: b\n")
        app = make_app([repo], repo_root=str(repo), watch=False)
        assert snap_compare(app, terminal_size=WIDE)

    def test_files_that_could_not_be_read_are_named_in_the_banner(self, snap_compare, tmp_path, monkeypatch):
        # A folder opened: the files there that might be eval files but could not be read are named in the banner
        # with the reason, as warnings; a file name is shown literally (markup stays text, ESC shows as ␛).
        repo = copy_fixture_repo(tmp_path)
        monkeypatch.chdir(repo)
        schema = "$schema: agentv-eval-v2\nevalcases: []\n"
        (repo / "utf16.yaml").write_bytes(schema.encode("utf-16"))
        (repo / "[bold red]x\x1b[2J.yaml").write_bytes(schema.encode("utf-32"))
        app = make_app([repo], repo_root=str(repo), watch=False)
        assert snap_compare(app, terminal_size=WIDE, run_before=showing("several-turns"))


class TestLayout:
    def test_narrow_terminal_stacks_panes(self, snap_compare):
        assert snap_compare(inspector(), terminal_size=NARROW, run_before=showing("several-turns"))

    def test_maximised_pane(self, snap_compare):
        assert snap_compare(inspector(), terminal_size=WIDE, run_before=showing("several-turns", "2", "z"))

    def test_maximised_pane_fills_a_small_terminal(self, snap_compare):
        # Stacked at 80x24: the pane takes the whole screen above the footer (no hatching above or below it),
        # and the footer ends with whole entries.
        assert snap_compare(inspector(), terminal_size=(80, 24), run_before=showing("several-turns", "1", "z"))

    def test_filter(self, snap_compare):
        assert snap_compare(inspector(), terminal_size=WIDE, press=["slash", "m", "a", "r", "k"])

    def test_help_screen(self, snap_compare):
        assert snap_compare(inspector(), terminal_size=WIDE, press=["question_mark"])


PROJECT = FIXTURE_REPO.parent.parent.parent  # the checkout: sample_evals/ is written relative to it
SAMPLES = PROJECT / "sample_evals"


class TestReadme:
    """The README's screenshot: the bundled samples as `turnlens` opens them."""

    def test_samples_overview(self, snap_compare, monkeypatch):
        monkeypatch.chdir(PROJECT)
        for name in ("SUPPORT_PRODUCT", "SUPPORT_SIGNATURE", "REVIEW_MAX_BULLETS"):
            monkeypatch.delenv(name, raising=False)  # the samples' .env gives them (the environment would win)
        app = make_app([SAMPLES], repo_root=str(PROJECT), watch=False)
        # An AgentV 4 test: the suite's system input (${{ VAR }} from .env) marked SUITE, {{ var }} from vars, an
        # embedded policy file, the systemMessage pane.
        assert snap_compare(app, terminal_size=WIDE, run_before=showing("refund-unused-tent"))


def in_theme(name: str, case_id: str, *then: str):
    async def run_before(pilot):
        pilot.app.theme = name
        await pilot.pause()
        await select(pilot, case_id)
        if then:
            await pilot.press(*then)

    return run_before


class TestThemes:
    """The content's colours follow the theme (tui/theme.py): a light theme draws every role, badge, file and
    warning in colours that read on its background."""

    def test_light_theme(self, snap_compare):
        assert snap_compare(inspector(), terminal_size=WIDE, run_before=in_theme("textual-light", "several-turns"))

    def test_light_theme_profile_diff(self, snap_compare):
        assert snap_compare(
            inspector(), terminal_size=WIDE, run_before=in_theme("solarized-light", "several-turns", "d")
        )

    def test_another_dark_theme(self, snap_compare):
        assert snap_compare(inspector(), terminal_size=WIDE, run_before=in_theme("nord", "missing-file"))
