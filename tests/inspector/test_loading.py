"""Loading in steps: the first case shows before a big file (or a folder of files) is loaded, the list fills in,
the filter and the palette work over what is loaded, and the end state is that of a full load."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest

import turnlens.tui.loading as loading
from turnlens.formatting.dialects.load import load_eval_file
from turnlens.tui.app import make_app
from turnlens.tui.inspector.screen import InspectorScreen
from turnlens.tui.session import Session
from turnlens.tui.widgets.case_list import CaseList

SIZE = (160, 48)


def big_eval(folder: Path, cases: int = 700) -> Path:
    """An eval file big enough to be cut (over 256 KiB): every fifth case has a warning, every seventh a marker."""
    (folder / ".git").mkdir(parents=True, exist_ok=True)
    padding = "Some words to make the case long enough. " * 8
    out = ["$schema: agentv-eval-v2", "evalcases:"]
    for n in range(cases):
        out += [f"  - id: case-{n:04d}", f"    outcome: {padding}", "    input_messages:"]
        if n % 7 == 0:
            out += ["      - {role: system, content: Be brief.}", "      - {role: assistant, content: Earlier}"]
        if n % 5 == 0:
            out += ["      - role: user", "        content:", f"          - {{type: file, value: missing{n}.md}}"]
        out += [f"      - {{role: user, content: 'Question {n}? {padding}'}}"]
    path = folder / "big.yaml"
    path.write_text("\n".join(out) + "\n")
    return path


async def wait_for(pilot, condition, what: str, timeout: float = 20) -> None:
    for _ in range(int(timeout / 0.02)):
        if condition():
            return
        await pilot.pause(0.02)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.fixture
def held_whole_load(monkeypatch):
    """Hold the load of a file after its first slice (its next slices, or the whole) until the test lets it go."""
    release = threading.Event()
    real = loading.load_eval_file

    def held(path, *args, **kwargs):
        if kwargs.get("text") is None or kwargs.get("first_case_index"):
            release.wait(30)
        return real(path, *args, **kwargs)

    monkeypatch.setattr(loading, "load_eval_file", held)
    yield release
    release.set()


def full_rows(paths: list[Path], repo_root: Path, profile: str = "agentv"):
    session = Session([str(p) for p in paths], repo_root=str(repo_root))
    session.load_all()
    return [session.row(key, profile) for key in session.case_keys()]


def listed_rows(screen: InspectorScreen):
    return [row for number in sorted(screen.model.rows) for row in screen.model.rows[number]]


def test_the_first_slice_has_the_whole_files_first_cases(tmp_path):
    path = big_eval(tmp_path)
    cut = loading.first_slice(str(path))
    assert cut is not None
    part = load_eval_file(path, repo_root=str(tmp_path), text=cut[0])
    whole = load_eval_file(path, repo_root=str(tmp_path))
    assert 0 < len(part.cases) < len(whole.cases)
    for a, b in zip(part.cases, whole.cases):
        assert (a.id, a.index, a.line, a.skipped) == (b.id, b.index, b.line, b.skipped)


def test_a_small_file_is_not_cut(tmp_path):
    path = tmp_path / "small.yaml"
    path.write_text("$schema: agentv-eval-v2\nevalcases:\n  - id: a\n    input_messages: [{role: user, content: hi}]\n")
    assert loading.first_slice(str(path)) is None


async def test_a_big_file_shows_its_first_case_while_loading_then_everything(tmp_path, held_whole_load):
    path = big_eval(tmp_path)
    app = make_app([path], repo_root=str(tmp_path), watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, InspectorScreen)
        await wait_for(pilot, lambda: screen.current is not None, "the first case")
        assert not screen.loaded
        assert "loading" in screen.sub_title  # visible progress
        assert screen.session.case(screen.current)[1].id == "case-0000"
        first = len(screen.query_one(CaseList).visible_keys())
        assert 0 < first < 700

        # The filter works over what is loaded meanwhile, and keeps applying as the rest comes in.
        screen.query_one("#case-filter").focus()
        await pilot.press(*"warn")
        await wait_for(pilot, lambda: bool(screen.query_one(CaseList).visible_keys()), "filtered rows")
        shown = screen.query_one(CaseList).visible_keys()
        assert shown and all(screen.session.case(k)[1].index % 5 == 0 for k in shown)

        held_whole_load.set()
        await wait_for(pilot, lambda: screen.loaded, "the whole load")
        await pilot.pause()
        shown = screen.query_one(CaseList).visible_keys()
        assert len(shown) == 140  # every fifth case of 700, not only those of the first slice
        assert "loading" not in screen.sub_title

        assert listed_rows(screen) == full_rows([path], tmp_path)
        assert screen.session.case(screen.current)[1].id == "case-0000"
        assert screen.session.case_keys() == [f"0:{n}" for n in range(700)]


async def test_a_folder_lists_files_as_they_load_and_ends_as_a_full_load(tmp_path, monkeypatch):
    (tmp_path / ".git").mkdir()
    paths = []
    for n in range(12):
        path = tmp_path / "evals" / f"e{n:02d}.yaml"
        path.parent.mkdir(exist_ok=True)
        path.write_text(
            "$schema: agentv-eval-v2\nevalcases:\n"
            + "".join(f"  - id: f{n}-c{k}\n    input_messages: [{{role: user, content: q{k}}}]\n" for k in range(3))
        )
        paths.append(path)
    gate = threading.Semaphore(1)  # one file per release
    real = loading.load_eval_file

    def one_at_a_time(path, *args, **kwargs):
        gate.acquire(timeout=30)
        return real(path, *args, **kwargs)

    monkeypatch.setattr(loading, "load_eval_file", one_at_a_time)
    app = make_app([tmp_path / "evals"], repo_root=str(tmp_path), watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await wait_for(pilot, lambda: screen.current is not None, "the first case")
        assert not screen.loaded and "loading" in screen.sub_title
        assert len(listed_rows(screen)) == 3  # only the first file so far
        choices = screen.case_choices()  # the jump palette offers what is loaded
        assert [c[1] for c in choices] == ["f0-c0", "f0-c1", "f0-c2"]
        for _ in range(11):
            gate.release()
        await wait_for(pilot, lambda: screen.loaded, "every file")
        await pilot.pause()
        monkeypatch.undo()  # the full load compared with is not gated
        assert listed_rows(screen) == full_rows(paths, tmp_path)
        assert len(screen.query_one(CaseList).visible_keys()) == 36
        assert screen.sub_title == "12 eval files, 36 cases"


async def test_switching_profile_while_loading_ends_with_that_profiles_rows(tmp_path, held_whole_load):
    path = big_eval(tmp_path)
    app = make_app([path], repo_root=str(tmp_path), watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await wait_for(pilot, lambda: screen.current is not None, "the first case")
        await pilot.press("p")
        held_whole_load.set()
        await wait_for(pilot, lambda: screen.loaded, "the whole load")
        await pilot.pause()
        assert screen.profile == "design"
        assert listed_rows(screen) == full_rows([path], tmp_path, "design")


async def test_memory_stays_bounded_walking_every_case(tmp_path, monkeypatch):
    """The caches of views and formatted cases are bounded, whatever the number of cases walked through."""
    import turnlens.tui.inspector.views
    import turnlens.tui.session

    monkeypatch.setattr(turnlens.tui.inspector.views, "VIEW_CACHE_SIZE", 8)
    monkeypatch.setattr(turnlens.tui.session, "FORMATTED_CACHE_SIZE", 12)
    path = big_eval(tmp_path, 40)
    app = make_app([path], repo_root=str(tmp_path), watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await wait_for(pilot, lambda: screen.loaded, "the whole load")
        for key in screen.session.case_keys():
            screen.select_case(key)
            await asyncio.sleep(0)
        await pilot.pause()
        assert screen.current == screen.session.case_keys()[-1]
        assert len(screen.views) == 8
        assert len(screen.session._formatted) <= 12


def test_a_big_jsonl_datasets_first_slice_is_its_first_lines(tmp_path):
    lines = [
        f'{{"id": "t{n:05d}", "criteria": "Answers.", "input": "Question {n}? {"words " * 30}"}}' for n in range(2000)
    ]
    path = tmp_path / "dataset.jsonl"
    path.write_text("\n".join(lines) + "\n")
    cut = loading.first_slice(str(path))
    assert cut is not None
    part = load_eval_file(path, repo_root=str(tmp_path), text=cut[0])
    whole = load_eval_file(path, repo_root=str(tmp_path))
    assert whole.error is None and 0 < len(part.cases) < len(whole.cases) == 2000
    for a, b in zip(part.cases, whole.cases):
        assert (a.id, a.index, a.line) == (b.id, b.index, b.line)


def big_suite(folder: Path, tests: int = 3000) -> Path:
    """An AgentV 4 suite big enough to be cut: a suite input, `${{ VAR }}` in the header, assertions here and there."""
    (folder / ".git").mkdir(parents=True, exist_ok=True)
    out = ["name: big", "input:", "  - role: system", "    content: Be exact ${{ UNSET_IN_TESTS }}.", "tests:"]
    for n in range(tests):
        out += [f"  - id: t-{n:05d}", f"    criteria: Answers case {n} correctly and well.", f"    input: Is {n} odd?"]
        if n % 7 == 0:
            out += ["    assertions:", "      - type: contains", "        value: yes"]
    path = folder / "evals" / "big.eval.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(out) + "\n")
    return path


def big_jsonl(folder: Path, tests: int = 3000) -> Path:
    """A JSONL dataset big enough to be loaded in parts, with blank lines here and there."""
    (folder / ".git").mkdir(parents=True, exist_ok=True)
    lines = []
    for n in range(tests):
        lines.append(f'{{"id": "t{n:05d}", "criteria": "Answers {n}.", "input": "Question {n}? {"words " * 20}"}}')
        if n % 50 == 0:
            lines.append("")
    path = folder / "dataset.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def big_anchored_suite(folder: Path, tests: int = 3000) -> Path:
    """An AgentV 4 suite whose first test's anchors are aliased in every slice (a merge key among them), one of
    them redefined half-way: cut all the same (formatting/evals/slices.py)."""
    path = big_suite(folder, tests)
    text = path.read_text().replace(
        "  - id: t-00000\n    criteria: Answers case 0 correctly and well.",
        "  - id: t-00000\n    criteria: &crit Shared **criteria**.\n    metadata: &meta {owner: a}",
    )
    for n in range(50, tests, 70):  # (*meta: 86 aliases; past 99 the whole file would be refused)
        text = text.replace(f"criteria: Answers case {n} correctly and well.", "criteria: *crit\n    metadata: *meta")
        text = text.replace(f"    input: Is {n + 1} odd?", f"    input: Is {n + 1} odd?\n    metadata: {{<<: *meta}}")
    text = text.replace("criteria: Answers case 1500 correctly and well.", "criteria: &crit Redefined.")
    path.write_text(text)
    return path


@pytest.mark.parametrize("make", [big_eval, big_suite, big_jsonl, big_anchored_suite])
def test_a_big_file_loaded_in_slices_is_its_whole_load(tmp_path, monkeypatch, make):
    """Slice by slice (only one slice's parse tree alive at a time), the end is the whole load: the same cases,
    file diagnostics said once, the same files watched, the same dialect and reason."""
    monkeypatch.setattr(loading, "SLICE_BYTES", 64 * 1024)
    monkeypatch.setattr(loading, "JSONL_PART_BYTES", 64 * 1024)
    path = str(make(tmp_path))
    cut = loading.cut_file(path)
    assert cut is not None and len(list(cut.parts)) >= 3
    assert (make is big_anchored_suite) == any(part.borrowed for part in cut.parts)
    # (the memory limit measured from now: a test process that ran many apps before may hold 256 MiB already)
    baseline = loading.resident_bytes() or 0
    parts = [
        part
        for part, _, _ in loading.load_in_slices(
            path, cut, repo_root=str(tmp_path), cwd=None, dialect="auto", baseline=baseline
        )
    ]
    whole = load_eval_file(path, repo_root=str(tmp_path))
    for before, after in zip(parts, parts[1:]):  # each part extends the one before, with the same case objects
        assert all(a is b for a, b in zip(before.cases, after.cases)) and len(after.cases) > len(before.cases)
    merged = parts[-1]
    assert merged.cases == whole.cases
    assert [str(d) for d in merged.diagnostics] == [str(d) for d in whole.diagnostics]
    assert merged.watched_paths == whole.watched_paths
    assert (merged.dialect, merged.dialect_reason, merged.config) == (whole.dialect, whole.dialect_reason, whole.config)


def test_a_mid_size_file_is_cut_for_the_first_frame_too(tmp_path):
    """Under the exporter's threshold for cutting, over the inspector's: its first slice is the first frame's (a
    file of 100 KB loaded whole held the first frame ~70 ms), and its slices end as its whole load."""
    from turnlens.formatting.evals.slices import MIN_PARALLEL_BYTES

    path = big_eval(tmp_path, cases=80)
    assert loading.CUT_FROM_BYTES < path.stat().st_size < MIN_PARALLEL_BYTES
    quick, cut = loading.quick_first(str(path))
    assert quick and cut is not None and len(list(cut.parts)) >= 2
    baseline = loading.resident_bytes() or 0  # (as above)
    sliced = loading.load_in_slices(
        str(path), cut, repo_root=str(tmp_path), cwd=None, dialect="auto", baseline=baseline
    )
    parts = [p for p, _, _ in sliced]
    assert 0 < len(parts[0].cases) < len(parts[-1].cases)
    assert parts[-1].cases == load_eval_file(path, repo_root=str(tmp_path)).cases


def test_a_file_whose_later_slice_is_refused_ends_refused_without_a_stale_part(tmp_path):
    """The first slice shows, then a later one is refused: the whole load says why, and the part shown meanwhile
    is not kept as a "last good version"."""
    path = big_eval(tmp_path)
    path.write_text(path.read_text() + "  - id: broken\n    input_messages: [{role: user, content: 'unclosed}\n")
    session = Session([str(path)], repo_root=str(tmp_path))
    steps = list(loading.load_steps([str(path)], repo_root=str(tmp_path), cwd=None, profile="agentv"))
    assert steps[0].partial and steps[0].eval_file.error is None and steps[0].eval_file.cases
    assert steps[-1].eval_file.error is not None and not steps[-1].extends
    for step in steps:
        if step.extends:
            session.extend(0, step.eval_file, partial=step.partial)
        else:
            session.apply(0, step.eval_file, partial=step.partial)
    assert session.files[0].error is not None and session.files[0].good is None
    assert not session.files[0].stale and session.case_keys() == []


def test_a_file_whose_later_lines_cannot_be_cut_ends_as_its_whole_load(tmp_path):
    """Only the first slice's lines are checked before the first frame: a key after the list, found as the second
    part is made, has the file loaded whole (here refused, as the key is written twice), as a refused part does."""
    path = big_eval(tmp_path)
    path.write_text(path.read_text() + "evalcases: []\n")
    quick, cut = loading.quick_first(str(path))
    assert quick and cut is not None
    steps = list(loading.load_steps([str(path)], repo_root=str(tmp_path), cwd=None, profile="agentv", first_cut=cut))
    assert steps[0].partial and steps[0].eval_file.error is None and steps[0].eval_file.cases
    whole = load_eval_file(path, repo_root=str(tmp_path))
    assert whole.error is not None and not steps[-1].extends and not steps[-1].partial
    assert str(steps[-1].eval_file.error) == str(whole.error)


async def test_a_big_agentv4_suite_shows_its_first_test_while_loading(tmp_path, held_whole_load):
    path = big_suite(tmp_path)
    app = make_app([path], repo_root=str(tmp_path), watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await wait_for(pilot, lambda: screen.current is not None, "the first test")
        assert not screen.loaded and screen.session.case(screen.current)[1].id == "t-00000"
        assert 0 < len(screen.session.case_keys()) < 3000
        held_whole_load.set()
        await wait_for(pilot, lambda: screen.loaded, "the whole load")
        assert screen.session.case_keys() == [f"0:{n}" for n in range(3000)]
        assert listed_rows(screen) == full_rows([path], tmp_path)


@pytest.mark.parametrize("make", [big_eval, big_suite])
async def test_the_first_case_is_in_the_screens_first_frame(tmp_path, held_whole_load, make):
    """The first step (a big file's first slice, a small file whole) is made when the screen mounts, so its first
    frame already shows the case: it is not painted empty, then again."""
    path = make(tmp_path)
    app = make_app([path], repo_root=str(tmp_path), watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, InspectorScreen) and screen.current is not None and not screen.loaded
        held_whole_load.set()
        await wait_for(pilot, lambda: screen.loaded, "the whole load")


def test_loading_stops_at_the_memory_limit_and_says_so(tmp_path, monkeypatch):
    """Past the memory limit the load stops after the part loaded, as a finished load that says what it left out
    (a million-test dataset would take gigabytes); the files after it are not loaded."""
    monkeypatch.setattr(loading, "JSONL_PART_BYTES", 32 * 1024)
    first = big_jsonl(tmp_path / "a")
    second = big_jsonl(tmp_path / "b")
    monkeypatch.setattr(loading, "MEMORY_LIMIT", 0)
    steps = list(loading.load_steps([str(first), str(second)], repo_root=str(tmp_path), cwd=None, profile="agentv"))
    last = steps[-1]
    assert {step.path for step in steps} == {str(first)}
    assert last.note is not None and not last.partial and last.rows_done and last.files_done == last.files_total
    kept = len(last.eval_file.cases)
    assert 0 < kept < 3000 and len(last.rows) == kept
    assert last.note.startswith(f"Loading stopped after {kept:,} cases (memory in use passed the inspector's limit")
    assert "dataset.jsonl" in last.note and "turnlens export" in last.note
    # Where resident memory cannot be read, the limit is a number of cases.
    monkeypatch.setattr(loading, "resident_bytes", lambda: None)
    monkeypatch.setattr(loading, "MAX_CASES", 10**9)
    steps = list(loading.load_steps([str(first)], repo_root=str(tmp_path), cwd=None, profile="agentv"))
    assert steps[-1].note is None and len(steps[-1].eval_file.cases) == 3000


def test_running_out_of_memory_while_loading_stops_with_a_note(tmp_path, monkeypatch):
    monkeypatch.setattr(loading, "JSONL_PART_BYTES", 32 * 1024)
    path = big_jsonl(tmp_path)
    real, calls = loading.load_eval_file, []

    def failing(*args, **kwargs):
        calls.append(1)
        if len(calls) > 3:
            raise MemoryError
        return real(*args, **kwargs)

    monkeypatch.setattr(loading, "load_eval_file", failing)
    steps = list(loading.load_steps([str(path)], repo_root=str(tmp_path), cwd=None, profile="agentv"))
    last = steps[-1]
    assert last.note is not None and "(out of memory: " in last.note
    assert not last.partial and last.rows_done and last.files_done == last.files_total


async def test_the_app_stops_loading_at_the_limit_and_shows_a_banner(tmp_path, monkeypatch):
    monkeypatch.setattr(loading, "JSONL_PART_BYTES", 32 * 1024)
    monkeypatch.setattr(loading, "MEMORY_LIMIT", 0)
    path = big_jsonl(tmp_path)
    app = make_app([path], repo_root=str(tmp_path), watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await wait_for(pilot, lambda: screen.loaded, "the load to end")
        shown = len(screen.query_one(CaseList).visible_keys())
        assert 0 < shown < 3000
        banner = str(screen.query_one("#banner").render())
        assert f"Loading stopped after {shown:,} cases" in banner
        assert "loading" not in screen.sub_title


async def test_a_reload_stops_at_the_limit_too_and_loads_no_file_the_first_load_left(tmp_path, monkeypatch):
    """A reload of a file the first load stopped in stops at the limit as well (measured from what the reload
    adds), and its banner line replaces the first one; a file after it, never loaded, stays unloaded."""
    monkeypatch.setattr(loading, "JSONL_PART_BYTES", 32 * 1024)
    monkeypatch.setattr(loading, "MEMORY_LIMIT", 0)
    first, second = big_jsonl(tmp_path / "a"), big_jsonl(tmp_path / "b")
    app = make_app([first, second], repo_root=str(tmp_path), watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await wait_for(pilot, lambda: screen.loaded, "the load to end")
        shown = len(screen.query_one(CaseList).visible_keys())
        assert 0 < shown < 3000
        first.write_text(first.read_text().replace('"t00001"', '"again"'))
        await screen.reload_files([0])
        await pilot.pause()
        again = len(screen.query_one(CaseList).visible_keys())
        assert 0 < again < 3000 and screen.session.files[1].generation == 0
        banner = str(screen.query_one("#banner").render())
        assert banner.count("Loading stopped after") == 1 and f"Loading stopped after {again:,} cases" in banner
    monkeypatch.setattr(loading, "MEMORY_LIMIT", 1 << 40)  # no limit: the reload says nothing
    eval_file, note = loading.load_kept(str(first), repo_root=str(tmp_path), cwd=None, dialect="auto")
    assert note is None and len(eval_file.cases) == 3000


async def test_out_of_memory_in_the_case_list_stops_loading_with_a_banner(tmp_path, monkeypatch):
    """A MemoryError while the list takes what was loaded: no traceback, loading stops, the banner says so."""
    path = big_jsonl(tmp_path)
    calls = []
    real = CaseList.set_entries

    def failing(self, *args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise MemoryError
        return real(self, *args, **kwargs)

    monkeypatch.setattr(CaseList, "set_entries", failing)
    app = make_app([path], repo_root=str(tmp_path), watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await wait_for(pilot, lambda: screen.loaded, "the load to end")
        assert "(out of memory: " in str(screen.query_one("#banner").render())
        assert screen.current is not None


@pytest.mark.parametrize("make", [big_suite, big_jsonl])
def test_a_cancelled_load_ends_at_its_next_look_without_reading_on(tmp_path, monkeypatch, make):
    """Once `cancelled()` says so (the app quits), the load ends at its next look: no further part is loaded, no
    further row made, whatever is left of the file. A row at a time here, so the look between rows is seen."""
    monkeypatch.setattr(loading, "SLICE_BYTES", 16 * 1024)
    monkeypatch.setattr(loading, "JSONL_PART_BYTES", 16 * 1024)
    monkeypatch.setattr(loading, "ROW_BATCH_SECONDS", -1)  # a step after every row
    path = str(make(tmp_path))
    loads: list[str] = []
    rows: list[str] = []
    real_load, real_row = loading.load_eval_file, loading.case_row
    monkeypatch.setattr(loading, "load_eval_file", lambda p, **kw: loads.append(p) or real_load(p, **kw))
    monkeypatch.setattr(loading, "case_row", lambda key, *args: rows.append(key) or real_row(key, *args))
    stop = threading.Event()
    steps = loading.load_steps([path], repo_root=str(tmp_path), cwd=None, profile="agentv", cancelled=stop.is_set)
    for _ in range(3):
        step = next(steps)
    assert step.partial and not step.rows_done
    made = (len(loads), len(rows))
    stop.set()
    assert list(steps) == []
    assert (len(loads), len(rows)) == made and len(rows) < 3000


def test_cutting_a_big_file_ends_at_its_next_look_once_cancelled(tmp_path):
    """A file of megabytes is decoded and searched in steps, with a look between them: cancelled at any look,
    cutting ends there (Cancelled), and load_steps ends without a step."""
    from turnlens.formatting.cancel import Cancelled

    path = str(big_suite(tmp_path, tests=20000))
    assert Path(path).stat().st_size > 1 << 20  # (decoded and searched a MiB at a time)
    looks = 0

    def counted() -> bool:
        nonlocal looks
        looks += 1
        return False

    assert loading.cut_file(path, cancelled=counted) is not None
    every = looks
    assert every >= 6
    for stop_at in range(1, every + 1):
        looks = 0

        def cancelled(stop_at: int = stop_at) -> bool:
            nonlocal looks
            looks += 1
            return looks >= stop_at

        with pytest.raises(Cancelled):
            loading.cut_file(path, cancelled=cancelled)
        assert looks == stop_at  # (not one more step made)
    steps = loading.load_steps([path], repo_root=str(tmp_path), cwd=None, profile="agentv", cancelled=lambda: True)
    assert list(steps) == []


async def test_what_a_load_depends_on_is_found_by_the_worker_as_applying_finds_it(tmp_path):
    # The loading worker finds what each step makes its file depend on (the event loop only takes it): the files'
    # dependencies and their stamps end as a load applied on the event loop makes them, for a big file loaded in
    # slices (whose later cases look for missing attachments) and small files beside it.
    big = big_eval(tmp_path / "evals")
    small = tmp_path / "evals" / "small.yaml"
    small.write_text(
        "$schema: agentv-eval-v2\nevalcases:\n  - id: s1\n    input_messages:\n      - role: user\n"
        "        content:\n          - {type: file, value: nowhere/missing.md}\n          - {type: text, value: Hi}\n"
    )
    app = make_app([tmp_path / "evals"], repo_root=str(tmp_path), watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await wait_for(pilot, lambda: screen.loaded, "every file")
        shown = {f.path: (f.depends_on, f.stamps) for f in screen.session.files}
    applied = Session([str(tmp_path / "evals")], repo_root=str(tmp_path))
    applied.load_all()
    expected = {f.path: (f.depends_on, f.stamps) for f in applied.files}
    assert set(shown) == {str(big), str(small)} == set(expected)
    assert shown == expected
    assert any("missing695.md" in p for p in shown[str(big)][0])  # a late slice's attachment looked for
