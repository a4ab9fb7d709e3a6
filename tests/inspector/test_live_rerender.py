"""Live re-render: edit a temporary copy of the fixture repo while the app watches it."""

from __future__ import annotations

import asyncio

import pytest
from tui_helpers import WIDE, copy_fixture_repo, select, wait_for_idle

from turnlens.tui.app import make_app
from turnlens.tui.widgets.pane import Pane

# Generous: these tests check behaviour, not speed (benchmarks/bench_tui.py measures the delay).
TIMEOUT = 10.0


async def wait_for(pilot, predicate, what: str) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + TIMEOUT
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await pilot.pause(0.05)
    await pilot.pause()


def pane_text(app, pane_id: str) -> str:
    return app.screen.query_one(f"#{pane_id}", Pane).body_text


def banner_visible(app) -> bool:
    return app.screen.query_one("#banner").has_class("-visible")


@pytest.fixture
def repo(tmp_path, monkeypatch):
    repo = copy_fixture_repo(tmp_path)
    monkeypatch.chdir(repo)
    return repo


async def start_watching(pilot):
    await wait_for_idle(pilot)
    screen = pilot.app.screen
    await wait_for(pilot, lambda: screen.watcher.running, "the watcher to start")
    # No pause needed: changes saved before the watcher is ready are caught up by mtime.
    return screen


class TestLiveRerender:
    async def test_edit_break_and_fix_the_eval_file(self, repo):
        cases = repo / "cases.yaml"
        original = cases.read_text()
        app = make_app([cases], repo_root=str(repo), watch=True)
        async with app.run_test(size=WIDE) as pilot:
            screen = await start_watching(pilot)
            await select(pilot, "several-turns")
            key = screen.current

            cases.write_text(original.replace("Review this file.", "Review this file twice."))
            await wait_for(pilot, lambda: "Review this file twice." in pane_text(app, "question"), "the edit")
            assert screen.current == key  # same case still selected
            assert not banner_visible(app)

            cases.write_text(original.replace("  - id: several-turns", "  - id: [several-turns"))
            await wait_for(pilot, lambda: banner_visible(app), "the error banner")
            banner = str(screen.query_one("#banner").visual)
            assert "cases.yaml:29" in banner
            assert "last good version" in banner
            assert "Review this file twice." in pane_text(app, "question")  # last good render kept
            assert screen.current == key

            cases.write_text(original)
            await wait_for(pilot, lambda: not banner_visible(app), "the banner to go")
            await wait_for(pilot, lambda: "Review this file.\n" in pane_text(app, "question"), "the fixed render")
            assert screen.current == key

    async def test_edit_a_referenced_file_keeps_the_scroll_position(self, repo):
        calc = repo / "src" / "calc.py"
        calc.write_text(calc.read_text() + "".join(f"# padding line {n}\n" for n in range(200)))
        app = make_app([repo / "cases.yaml"], repo_root=str(repo), watch=True)
        async with app.run_test(size=WIDE) as pilot:
            screen = await start_watching(pilot)
            await select(pilot, "several-turns")
            question = screen.query_one("#question", Pane)
            question.scroll_to(y=40, animate=False)
            await pilot.pause()
            assert question.scroll_y == 40

            calc.write_text(calc.read_text().replace("Add two numbers.", "Add two numbers, really."))
            await wait_for(pilot, lambda: "Add two numbers, really." in pane_text(app, "question"), "the edit")
            await pilot.pause()
            assert question.scroll_y == 40

    async def test_a_new_case_appears_and_the_selection_stays(self, repo):
        cases = repo / "cases.yaml"
        app = make_app([cases], repo_root=str(repo), watch=True)
        async with app.run_test(size=WIDE) as pilot:
            screen = await start_watching(pilot)
            await select(pilot, "missing-file")
            cases.write_text(
                cases.read_text().replace(
                    "evalcases:\n",
                    "evalcases:\n  - id: brand-new\n    outcome: x\n    input_messages:\n"
                    "      - role: user\n        content: hello\n\n",
                )
            )
            await wait_for(pilot, lambda: screen.reloads > 0 and len(screen.session.case_keys()) == 8, "the new case")
            assert screen.session.case(screen.current)[1].id == "missing-file"

    async def test_new_eval_file_in_an_opened_folder_appears(self, repo):
        app = make_app([repo], repo_root=str(repo), watch=True)
        async with app.run_test(size=WIDE) as pilot:
            screen = await start_watching(pilot)
            await select(pilot, "several-turns")
            extra = repo / "extra.yaml"
            extra.write_text(
                "$schema: agentv-eval-v2\nevalcases:\n  - id: from-a-new-file\n    outcome: x\n"
                "    input_messages:\n      - role: user\n        content: hi\n"
            )
            await wait_for(pilot, lambda: len(screen.session.files) == 2, "the new file")
            ids = [screen.session.case(k)[1].id for k in screen.session.case_keys()]
            assert "from-a-new-file" in ids
            assert screen.session.case(screen.current)[1].id == "several-turns"

            extra.unlink()
            await wait_for(pilot, lambda: len(screen.session.files) == 1, "the file to go")
            assert screen.session.case(screen.current)[1].id == "several-turns"

    async def test_editing_the_config_re_renders(self, repo):
        app = make_app([repo / "cases.yaml"], repo_root=str(repo), watch=True)
        async with app.run_test(size=WIDE) as pilot:
            screen = await start_watching(pilot)
            await select(pilot, "guideline-only-system")
            assert "# Review guidelines" in pane_text(app, "guidelines")
            config = repo / ".agentv" / "config.yaml"
            config.write_text('$schema: agentv-config-v2\nguideline_patterns:\n  - "**/*.nothing"\n')
            # No pattern matches now: the file is an ordinary attachment, the system turn becomes visible.
            await wait_for(pilot, lambda: "(no guidelines)" in pane_text(app, "guidelines"), "the config change")
            assert "@[System]:" in pane_text(app, "question")
            assert screen.session.case(screen.current)[1].id == "guideline-only-system"

    async def test_creating_a_config_re_renders(self, repo):
        (repo / ".agentv" / "config.yaml").unlink()
        (repo / ".agentv").rmdir()
        app = make_app([repo / "cases.yaml"], repo_root=str(repo), watch=True)
        async with app.run_test(size=WIDE) as pilot:
            await start_watching(pilot)
            await select(pilot, "several-turns")
            await select(pilot, "guideline-only-system")
            assert "(no guidelines)" in pane_text(app, "guidelines")  # no config: no guideline patterns
            (repo / ".agentv").mkdir()
            await pilot.pause(0.5)  # the watcher picks up the new folder
            (repo / ".agentv" / "config.yaml").write_text(
                '$schema: agentv-config-v2\nguideline_patterns:\n  - "**/*.instructions.md"\n'
            )
            await wait_for(pilot, lambda: "# Review guidelines" in pane_text(app, "guidelines"), "the new config")


class TestCatchUp:
    def test_changes_since_load_are_found_by_mtime(self, repo):
        import os

        from turnlens.tui.session import Session

        session = Session([repo / "cases.yaml"], repo_root=str(repo))
        session.load_all()
        assert session.changed_since_load() == []
        calc = repo / "src" / "calc.py"
        stat = calc.stat()
        os.utime(calc, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
        assert session.changed_since_load() == [0]
