"""What a new user tripped over in the inspector (wording, paths, help, screenshots): each fixed and pinned here."""

from __future__ import annotations

import os
from pathlib import Path

from tui_helpers import WIDE, select, wait_for_idle

from turnlens.formatting.evals.loader import load_eval_file
from turnlens.formatting.prompts.engine import format_case
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
    assert "--format toon|jsonl|markdown" in text
    assert {name for name, _usages, _what in cli.SUBCOMMANDS} >= {"export", "diff", "serve"}


async def _samples_app(monkeypatch, **options):
    monkeypatch.chdir(PROJECT)
    for name in ("SUPPORT_PRODUCT", "SUPPORT_SIGNATURE", "REVIEW_MAX_BULLETS"):
        monkeypatch.delenv(name, raising=False)
    return make_app([SAMPLES], repo_root=str(PROJECT), watch=False, **options)


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


async def test_the_screenshot_is_saved_in_the_working_folder_and_the_path_said(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "no-home"))  # no ~/Downloads
    app = await _samples_app(monkeypatch)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_idle(pilot)
        monkeypatch.chdir(tmp_path)
        notes = []
        monkeypatch.setattr(app, "notify", lambda message, **kw: notes.append(message))
        saved = app.save_screenshot_here()
        assert saved is not None and os.path.dirname(saved) == str(tmp_path)
        assert Path(saved).read_text(encoding="utf-8").startswith("<svg")
        assert notes == [f"Saved the screenshot to {saved}"]
        titles = {c.title: c for c in app.system_commands(app.screen)}
        assert titles["Screenshot"].callback == app.save_screenshot_here


async def test_the_screenshot_falls_back_to_the_temp_folder(tmp_path, monkeypatch):
    app = await _samples_app(monkeypatch)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_idle(pilot)
        gone = tmp_path / "gone"  # a working folder that cannot be written (removed since)
        monkeypatch.setattr("os.getcwd", lambda: str(gone))
        temp = tmp_path / "temp"
        temp.mkdir()
        monkeypatch.setattr("tempfile.gettempdir", lambda: str(temp))
        saved = app.save_screenshot_here()
        assert saved is not None and os.path.dirname(saved) == str(temp)


async def test_jump_entries_keep_the_location_in_brackets(monkeypatch):
    app = await _samples_app(monkeypatch)
    async with app.run_test(size=WIDE) as pilot:
        await wait_for_idle(pilot)
        choices = app.screen.case_choices()
        summary = next(s for _k, label, s in choices if label == "agent-fix-retry-off-by-one")
        assert summary == "markers · several (sample_evals/evals/agent-tasks/repo-tasks.eval.yaml:17)"
        assert all(" — " not in s for _k, _l, s in choices)
