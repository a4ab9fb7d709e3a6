"""What a new user tripped over in the inspector (wording, paths, help, screenshots): each fixed and pinned here."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import pytest_asyncio
from tui_helpers import WIDE, select, shared_inspector, wait_for_idle

from turnlens.formatting.dialects.format import format_case
from turnlens.formatting.dialects.load import load_eval_file
from turnlens.formatting.wording import plural
from turnlens.tui import cli
from turnlens.tui.app import make_app
from turnlens.tui.widgets.pane import Pane

PROJECT = Path(__file__).resolve().parents[2]
SAMPLES = PROJECT / "sample_evals"
AGENT_TASKS = "sample_evals/evals/agent-tasks/repo-tasks.eval.yaml"


def _sample_cases():
    for path in sorted(SAMPLES.joinpath("evals").rglob("*.eval.yaml")):
        loaded = load_eval_file(path.relative_to(PROJECT).as_posix(), repo_root=str(PROJECT), cwd=str(PROJECT))
        for case in loaded.cases:
            yield case, loaded


def test_plural():
    assert plural(1, "message") == "1 message"
    assert plural(2, "message") == "2 messages"
    assert plural(0, "entry", "entries") == "0 entries"


def test_explanations_count_in_words_not_with_a_bracketed_s():
    """'the leading 1 system message(s)', 'prepends 1 message(s)': every explanation of the AgentV 4 samples."""
    seen = 0
    for case, loaded in _sample_cases():
        texts = list(case.notes)
        if case.skipped is None:
            formatted = format_case(case, loaded, profile="agentv")
            texts += formatted.explanation.evidence
        for text in texts:
            seen += 1
            assert "(s)" not in text, text
    assert seen > 20


def test_the_skip_reason_names_input_files_with_a_message_list_input():
    """AgentV 4.42.4 skips a test whose `input_files` come with a message-list `input` as missing `input`
    (`Skipping incomplete test: agent-files-with-message-list. Missing required fields: id, input, …`, the oracle on
    sample_evals): the reason says why, not that `input` is undefined while it is plainly written."""
    loaded = load_eval_file(AGENT_TASKS, repo_root=str(PROJECT), cwd=str(PROJECT))
    case = next(c for c in loaded.cases if c.id == "agent-files-with-message-list")
    assert case.skipped == "`input_files` needs a string `input`, not a message list: AgentV reads no input"
    assert any("skips the test as missing `input`" in note for note in case.notes)
    assert any(
        "Missing required fields: id, input" in d.message or "Skipping incomplete" in d.message
        for d in case.diagnostics
    )


def test_help_lists_every_subcommand_and_export_s_formats():
    text = cli._parser().format_help()
    for name, usages, _what in cli.SUBCOMMANDS:
        assert f"turnlens {name}" in text
        for usage in usages:
            assert usage in text
    # every format export takes, as its own --help lists them
    export_help = subprocess.run(
        [sys.executable, "-m", "turnlens", "export", "--help"], capture_output=True, text=True, check=True
    ).stdout
    formats = re.search(r"--format \{([a-z,]+)\}", export_help).group(1).split(",")
    listed = re.search(r"export RESULTS \.\.\. --format ([a-z|]+)", text).group(1).split("|")
    assert sorted(listed) == sorted(formats)
    assert {name for name, _usages, _what in cli.SUBCOMMANDS} >= {"export", "diff", "serve"}


SAMPLES_ENV = ("SUPPORT_PRODUCT", "SUPPORT_SIGNATURE", "REVIEW_MAX_BULLETS")  # the samples' .env, not the caller's


def _in_project(monkeypatch):
    monkeypatch.chdir(PROJECT)
    for name in SAMPLES_ENV:
        monkeypatch.delenv(name, raising=False)


async def _samples_app(monkeypatch, **options):
    _in_project(monkeypatch)
    return make_app([SAMPLES], repo_root=str(PROJECT), watch=False, **options)


def _on_the_samples():
    return make_app([SAMPLES], repo_root=str(PROJECT), watch=False)


# The samples at each size the tests look at, one app each for the module's tests that leave it as they found it
# (each begins with `fresh()`, in the project folder, and runs on the module's event loop).
def _samples_at(name: str, size: tuple[int, int]):
    @pytest_asyncio.fixture(scope="module", loop_scope="module", name=name)
    async def samples():
        async with shared_inspector(_on_the_samples, size, cwd=PROJECT, unset=SAMPLES_ENV) as shared:
            yield shared

    return samples


samples_80x24 = _samples_at("samples_80x24", (80, 24))
samples_120x40 = _samples_at("samples_120x40", (120, 40))
samples_200x50 = _samples_at("samples_200x50", (200, 50))
samples_wide = _samples_at("samples_wide", WIDE)


@pytest.fixture
def samples_at(request, monkeypatch):
    """The shared samples app of size `request.param`, fresh (for tests parametrized by size)."""
    _in_project(monkeypatch)
    width, height = request.param
    return request.getfixturevalue(f"samples_{width}x{height}")


in_module_loop = pytest.mark.asyncio(loop_scope="module")
in_package_loop = pytest.mark.asyncio(loop_scope="package")


async def test_the_messages_pane_names_the_path_the_question_sends(monkeypatch):
    """AgentV 4's agent question names an embedded file by its absolute path: the messages pane says that path in
    agent mode (it said the repo-relative one), and the lm tag in lm mode."""
    app = await _samples_app(monkeypatch, mode="agent")
    async with app.run_test(size=WIDE) as pilot:
        await wait_for_idle(pilot)
        await select(pilot, "agent-fix-retry-off-by-one")
        messages = app.screen.query_one("#messages", Pane).body_text.replace("\n", " ")
        question = app.screen.query_one("#question", Pane).body_text
        absolute = str(SAMPLES / "fixtures" / "code" / "retry.ts")
        assert f'<file: path="{absolute}">' in question
        assert "agent sends <file: path=" in messages
        assert "lm: <file" not in messages
        await pilot.press("m")
        await wait_for_idle(pilot)
        messages = app.screen.query_one("#messages", Pane).body_text.replace("\n", " ")
        assert 'lm sends <file path="fixtures/code/retry.ts">' in messages
        assert absolute not in messages


@in_module_loop
async def test_the_screenshot_is_saved_in_the_working_folder_and_the_path_said(samples_80x24, tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "no-home"))  # no ~/Downloads
    _in_project(monkeypatch)
    pilot = await samples_80x24.fresh()
    app = pilot.app
    monkeypatch.chdir(tmp_path)
    notes = []
    monkeypatch.setattr(app, "notify", lambda message, **kw: notes.append(message))
    saved = app.save_screenshot_here()
    assert saved is not None and os.path.dirname(saved) == str(tmp_path)
    assert Path(saved).read_text(encoding="utf-8").startswith("<svg")
    assert notes == [f"Saved the screenshot to {saved}"]
    titles = {c.title: c for c in app.system_commands(app.screen)}
    assert titles["Screenshot"].callback == app.save_screenshot_here


@in_module_loop
async def test_the_screenshot_falls_back_to_the_temp_folder(samples_80x24, tmp_path, monkeypatch):
    _in_project(monkeypatch)
    app = (await samples_80x24.fresh()).app
    gone = tmp_path / "gone"  # a working folder that cannot be written (removed since)
    monkeypatch.setattr("os.getcwd", lambda: str(gone))
    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setattr("tempfile.gettempdir", lambda: str(temp))
    saved = app.save_screenshot_here()
    assert saved is not None and os.path.dirname(saved) == str(temp)


@in_module_loop
async def test_jump_entries_keep_the_location_in_brackets(samples_wide, monkeypatch):
    _in_project(monkeypatch)
    app = (await samples_wide.fresh()).app
    choices = app.screen.case_choices()
    summary = next(s for _k, label, s in choices if label == "agent-fix-retry-off-by-one")
    assert summary == "markers · several (sample_evals/evals/agent-tasks/repo-tasks.eval.yaml:17)"
    assert all(" — " not in s for _k, _l, s in choices)
    # a test from a dataset: its line in the dataset, as the toolbar and c say it (it named the suite, no line)
    summary = next(s for _k, label, s in choices if label == "faq-shipping-time")
    assert summary.endswith("(sample_evals/evals/faq/faq.jsonl:1)")


@in_package_loop
async def test_unfocused_pane_titles_read_on_every_built_in_theme(shared_wide, monkeypatch):
    """`[4] marker rule` and the panes' footers were drawn in the border's colour: 2.27:1 on the dark theme, 1.84:1
    on textual-light, 1.73:1 on solarized-light. Every built-in theme (the terminal's ansi ones aside) reaches 4.5:1."""
    from textual.theme import BUILTIN_THEMES
    from tui_helpers import FIXTURE_REPO, apply_theme

    from turnlens.tui.theme import TEXT_CONTRAST, contrast

    monkeypatch.chdir(FIXTURE_REPO)
    app = (await shared_wide.fresh()).app
    names = ["turnlens", *sorted(name for name, theme in BUILTIN_THEMES.items() if not theme.ansi)]
    assert app.theme == names[0]
    pane = app.screen.query_one("#rule", Pane)
    assert not pane.has_focus
    for name in names:
        await apply_theme(app, name)  # the styles are read, not the screen: no redraw waited for
        background = pane.background_colors[1]
        for colour in (pane.styles.border_title_color, pane.styles.border_subtitle_color):
            solid = background.blend(colour.with_alpha(1), colour.a) if colour.a < 1 else colour
            ratio = contrast(solid, background)
            assert ratio >= TEXT_CONTRAST, (name, solid.hex, background.hex, round(ratio, 2))
    await apply_theme(app, names[0])  # (the shared inspector's theme back)


def _chip_texts(app) -> list[str]:
    return [str(chip.content) for chip in app.screen.query("Chip") if chip.display and not chip.has_class("-hidden")]


@in_package_loop
async def test_the_toolbar_keeps_one_format_for_one_file_and_several(shared_wide, monkeypatch):
    """The chips' format follows the toolbar's width only: one short-pathed file and the samples' long paths
    give the same chips at the same width (both apps at 160x48)."""
    from tui_helpers import FIXTURE_REPO

    monkeypatch.chdir(FIXTURE_REPO)
    one_file = _chip_texts((await shared_wide.fresh()).app)
    _in_project(monkeypatch)
    app = await _samples_app(monkeypatch)
    async with app.run_test(size=WIDE) as pilot:
        await wait_for_idle(pilot)
        several = _chip_texts(app)
    assert one_file == several == ["m lm", "p agentv", "e grading", "d diff"]


@pytest.mark.parametrize(
    ("size", "shown"),
    [
        ((120, 40), ["m lm", "p agentv", "e grading", "d diff"]),  # stacked panes: e and d fit, so they show
        ((80, 24), ["m lm", "p agentv"]),  # the list on top: beside them the title would keep under 40 cells
    ],
)
async def test_the_toolbar_shows_e_and_d_whenever_they_fit_and_the_toggles_keep_the_format(monkeypatch, size, shown):
    """Issue 24 (second walk): e and d were hidden whenever the panes stacked (at 120 columns too), not when they did
    not fit; and the format follows the width only, not the toggles' state (agent and design are longer)."""
    app = await _samples_app(monkeypatch)
    async with app.run_test(size=size) as pilot:
        await wait_for_idle(pilot)
        assert app.screen.has_class("-narrow")
        assert _chip_texts(app) == shown
        await pilot.press("m", "p")
        await wait_for_idle(pilot)
        assert len(_chip_texts(app)) == len(shown) and _chip_texts(app)[:2] == ["m agent", "p design"]


@in_module_loop
async def test_the_case_list_takes_the_height_the_layout_allows_and_z_maximises_it(
    samples_120x40, samples_80x24, monkeypatch
):
    from turnlens.tui.widgets.case_list import CaseList

    _in_project(monkeypatch)
    pilot = await samples_120x40.fresh()
    app = pilot.app
    case_list = app.screen.query_one(CaseList)
    assert case_list.region.x == 0 and case_list.size.height >= 36  # beside the stacked panes, full height
    await pilot.press("0", "z")
    await wait_for_idle(pilot)
    assert app.screen.maximized is case_list and case_list.size.width == 120
    await pilot.press("z")
    await wait_for_idle(pilot)
    assert app.screen.maximized is None and case_list.size.width < 60
    app = (await samples_80x24.fresh()).app
    case_list = app.screen.query_one(CaseList)
    assert case_list.size.width == 80 and case_list.size.height >= 11  # on top: half the height, not 9 rows


@in_package_loop
async def test_the_profile_diff_header_keeps_its_legend_at_80_columns(shared_80x24, monkeypatch):
    from tui_helpers import FIXTURE_REPO

    monkeypatch.chdir(FIXTURE_REPO)
    pilot = await shared_80x24.fresh()
    app = pilot.app
    await select(pilot, "several-turns")
    await pilot.press("d")
    await wait_for_idle(pilot)
    header = app.screen.query_one("#screen-title")
    text = str(header.content)
    assert "2 differences" in text and "~ changed  - only agentv  + only design" in text
    assert header.size.height == 2


def test_samples_copies_the_bundled_samples_into_a_folder(tmp_path, capsys):
    target = tmp_path / "mine"
    assert cli.run(["--samples", str(target)]) == 0
    copied = target / "sample_evals"
    assert (copied / "evals" / "agent-tasks" / "repo-tasks.eval.yaml").is_file()
    assert (copied / ".agentv" / "config.yaml").exists() or (copied / ".agentv").is_dir()
    assert f"Copied the samples to {copied}" in capsys.readouterr().out
    assert cli.run(["--samples", str(target)]) == 2  # never over a copy already there
    assert "already exists" in capsys.readouterr().err


def test_an_installed_sample_is_told_apart_from_a_checkout(monkeypatch, tmp_path):
    from turnlens.tui import session

    installed = tmp_path / "lib" / "python3" / "site-packages" / "turnlens" / "sample_evals"
    (installed / "evals").mkdir(parents=True)
    (installed / "evals" / "a.eval.yaml").write_text("tests: []\n")
    monkeypatch.setattr(session, "default_sample_dir", lambda: installed)
    assert session.installed_sample(str(installed / "evals" / "a.eval.yaml"))
    assert not session.installed_sample(str(tmp_path / "a.eval.yaml"))
    monkeypatch.setattr(session, "default_sample_dir", lambda: SAMPLES)  # a checkout: editing is the point
    assert not session.installed_sample(str(SAMPLES / "evals" / "faq" / "faq.eval.yaml"))


@in_module_loop
async def test_o_on_an_installed_sample_says_so_instead_of_opening_it(samples_wide, monkeypatch):
    from turnlens.tui import editor
    from turnlens.tui.inspector import screen

    opened = []
    monkeypatch.setattr(screen, "installed_sample", lambda path: True)  # (where the inspector looks it up)
    monkeypatch.setattr(editor, "run_editor", lambda command: opened.append(command))
    _in_project(monkeypatch)
    pilot = await samples_wide.fresh()
    app = pilot.app
    notes = []
    monkeypatch.setattr(app.screen, "notify", lambda message, **kw: notes.append(message))
    await pilot.press("o")
    assert not opened
    assert "bundled sample inside the installed package" in notes[0] and "turnlens --samples DIR" in notes[0]


async def test_the_empty_state_never_names_a_sample_evals_that_is_not_there(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    app = make_app([tmp_path], repo_root=str(tmp_path), watch=False)
    async with app.run_test(size=WIDE) as pilot:
        await wait_for_idle(pilot)
        text = app.screen.query_one("#messages", Pane).body_text
        assert "No eval" in str(app.screen.query_one("#case-title").content)
        assert "sample_evals" not in text


@in_module_loop
async def test_c_in_the_case_list_copies_the_id_and_file_line_as_the_results_list_does(samples_wide, monkeypatch):
    _in_project(monkeypatch)
    pilot = await samples_wide.fresh()
    app = pilot.app
    copied = []
    monkeypatch.setattr(app, "copy_to_clipboard", copied.append)
    await pilot.press("0", "c")
    assert copied == ["agent-fix-retry-off-by-one\tsample_evals/evals/agent-tasks/repo-tasks.eval.yaml:17"]
    await pilot.press("2", "c")
    assert copied[-1].startswith("@[System]:")  # a pane: its text, as before


async def test_every_palette_lists_the_screen_s_actions_first_then_theme_and_screenshot(monkeypatch):
    """The inspector listed its actions first and the results view Textual's commands first."""
    from turnlens.tui.commands import TableCommands

    monkeypatch.chdir(PROJECT)
    app = make_app([SAMPLES / ".agentv" / "results"], watch=False)
    async with app.run_test(size=WIDE) as pilot:
        await wait_for_idle(pilot)
        screen = app.screen
        assert list(app.get_system_commands(screen)) == []  # Textual's own provider adds nothing here
        provider = TableCommands(screen)
        titles = [title for title, _help, _callback in provider._commands()]
        actions = [title for title, _help, _action in screen.palette_commands()]
        assert titles[: len(actions)] == actions
        assert titles[len(actions) : len(actions) + 2] == ["Theme", "Screenshot"]


@pytest.mark.parametrize("busy", [False, True], ids=["idle", "busy"])
@pytest.mark.parametrize("focused", ["0", "2"], ids=["from-the-list", "from-a-pane"])
@in_module_loop
async def test_one_enter_in_the_search_box_reaches_the_case_list(samples_120x40, monkeypatch, focused, busy):
    """Issue 24.21: enter gives the list the focus at once, even while the list is still refiltering for the keys
    typed before it (a key typed right after enter went into the box)."""
    import asyncio

    _in_project(monkeypatch)
    pilot = await samples_120x40.fresh()
    app = pilot.app
    await pilot.press(focused, "slash", *"faq")
    await wait_for_idle(pilot)
    if busy:
        app.screen.query_one("#cases").call_later(asyncio.sleep, 0.5)
    await pilot.press("enter", "j")
    await wait_for_idle(pilot)
    assert app.focused is not None and app.focused.id == "case-options"
    assert app.screen.query_one("#case-filter").value == "faq"


@pytest.mark.parametrize(
    ("samples_at", "rows"),
    [((80, 24), 2), ((120, 40), 2), ((200, 50), 1)],
    ids=["80x24", "120x40", "200x50"],
    indirect=["samples_at"],
)
@in_module_loop
async def test_the_latest_result_leaves_the_rule_whole_beside_it_or_below_it(samples_at, rows):
    """Issue 24 (second walk): at 80 columns the latest recorded result cut the rule's explanation (`Role markers:
    2 messages have visible…`), and its `▸` suggested a fold (as on the file headers). It now sits beside the rule
    when both fit, else on a row below it."""
    pilot = await samples_at.fresh()
    app = pilot.app
    await select(pilot, "refund-unused-tent")
    await wait_for_idle(pilot)
    line = str(app.screen.query_one("#rule-line").render()).split("\n")
    assert len(line) == rows and app.screen.query_one("#rule-line").size.height == rows
    assert line[0].startswith(" MARKERS  Role markers: 2 messages have visible content")
    assert "latest 0.90 ✓ PASS" in line[-1] and "▸" not in line[-1]
    assert line[-1].rstrip().endswith("R opens")


def test_a_header_legend_too_long_for_its_own_row_goes_on_beside_the_head():
    """Issue 24 (second walk): at 80 columns `D`'s status lost its end (`… (49 tests in 10 eval files com…`). A
    legend that fits beside the head stays there, one that fits a row of its own takes the second row, and a longer
    one starts beside the head and goes on on the second row, words whole."""
    from rich.text import Text

    from turnlens.tui.render import header_with_legend

    head = Text(" turnlens diff ")
    status = "No test changed between HEAD and working tree (49 tests in 10 eval files compared)."
    assert header_with_legend(head, Text(status), 120, gap="  ").plain == " turnlens diff   " + status
    assert header_with_legend(head, Text(status[:60]), 61, gap="  ").plain == " turnlens diff \n " + status[:60]
    rows = header_with_legend(head, Text(status), 78, gap="  ").plain.split("\n")
    assert [len(row) <= 78 for row in rows] == [True, True]
    assert rows[0] == " turnlens diff   No test changed between HEAD and working tree (49 tests in 10"
    assert rows[1] == " eval files compared)."
