"""Results rows nested 256 to 1,024 levels deep: orjson reads them in full (a row deeper than that is cut as it is
read, jsjson.js_loads), but writes only 255 levels, and pickle and repr stop near 500 and 1,000 levels. Through every
path a user takes (the list, a result's detail and each of its tabs, its transcript and trace, two runs compared,
every export format) such a row shows as AgentV reads it, its deep part as the marker a row past 1,024 levels shows,
and never a traceback. The runs are tests/fixtures/record_deep_rows.py's; `agentv compare --json` on them is recorded
in results/real/compare/deep-rows-within-orjson.json."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from fixtures.record_deep_rows import ANSWER_WITHIN_ORJSON, row, write_runs_within_orjson
from tui_helpers import wait_for_idle

from turnlens.formatting import jsjson
from turnlens.formatting.jsjson import DEEP_CUT, DEEP_MARKER
from turnlens.formatting.results.agentv_compare import compare_json
from turnlens.formatting.results.artifacts import load_artifacts
from turnlens.formatting.results.fields import as_text
from turnlens.formatting.results.index import ResultsFile
from turnlens.tui.app import make_app

ROOT = Path(__file__).resolve().parents[2]
REAL_RUN = ROOT / "tests/fixtures/results/real/project/.agentv/results/runs/default/2026-06-25T09-00-00-000Z"
MARKER = DEEP_MARKER.encode()


def nested(depth: int, leaf: object) -> str:
    return "[" * depth + json.dumps(leaf) + "]" * depth


@pytest.fixture
def runs(tmp_path: Path) -> tuple[Path, Path]:
    """Runs a and b (record_deep_rows.py's), and a third row in a whose test id, target and error are themselves
    nested 300, 600 and 1,000 levels deep (what the list shows is read from them)."""
    a, b = write_runs_within_orjson(tmp_path)
    hostile = json.loads(row("hostile", 0.4))
    text = json.dumps(hostile)[:-1]
    text += ', "test_id": ' + nested(300, "id") + ', "target": ' + nested(600, "t")
    text += ', "error": ' + '{"e":' * 1000 + "1" + "}" * 1000 + "}"
    with (a / "index.jsonl").open("a") as out:
        out.write(text + "\n")
    return a, b


def scanned(path: Path) -> ResultsFile:
    results = ResultsFile(str(path))
    for _ in results.scan():
        pass
    return results


def test_two_runs_are_compared_as_agentv_compares_them(tmp_path, monkeypatch):
    answer = json.loads(ANSWER_WITHIN_ORJSON.read_text())
    write_runs_within_orjson(tmp_path)
    monkeypatch.chdir(tmp_path)
    stdout, stderr, code = compare_json(["a", "b"])
    assert (stdout, stderr, code) == (answer["stdout"], answer["stderr"], answer["exit"])
    assert '"matched": 5' in stdout and '"wins": 2' in stdout


def test_the_list_reads_each_row_and_a_record_is_cut_at_the_marker(runs):
    a, _b = runs
    results = scanned(a / "index.jsonl")
    assert not results.diagnostics
    assert results.eval_ids[:5] == ["out", "plain", "in", "evidence", "details"]
    assert [results.score_of(i) for i in range(5)] == [0.6, 0.5, 0.9, 0.85, 0.3]
    # the hostile row's id, target and error, as JSON text with the marker (the list shows a bounded start of it)
    assert results.eval_ids[5].startswith("[[[[") and results.target_of(5).startswith("[[[[") and results.is_error(5)
    for index in range(results.count):
        record = results.record(index)
        assert not record.diagnostics
        assert not jsjson.deeper_than(record.raw, DEEP_CUT)
        orjson.dumps(record.raw)  # (orjson writes 255 levels: the record is within them)
    assert DEEP_MARKER in orjson.dumps(results.record(0).raw).decode()


def test_a_row_is_cut_where_a_row_past_orjsons_depth_is():
    """The same row 600 and 5,000 levels deep (orjson reads one, not the other) is read alike: cut at DEEP_CUT."""
    shallow = row("x", 0.5, 600).encode()
    deep = row("x", 0.5, 5000).encode()
    assert jsjson.js_loads_bounded(shallow) == jsjson.js_loads_bounded(deep)
    assert jsjson.js_loads_bounded(row("x", 0.5, 150)) == orjson.loads(row("x", 0.5, 150))


def test_a_value_too_deep_for_orjson_is_shown_as_json_with_the_marker():
    text = as_text(orjson.loads(nested(990, "hi")))
    assert text is not None and text.startswith("[[[") and DEEP_MARKER in text
    assert as_text(orjson.loads(nested(100, "hi"))) == nested(100, "hi")


@pytest.mark.parametrize("fmt", ["jsonl", "markdown", "toon", "html"])
def test_every_export_format_writes_every_row(runs, fmt):
    for run in runs:
        proc = subprocess.run(
            [sys.executable, "-m", "turnlens", "export", "--format", fmt, str(run)],
            cwd=run.parent,
            capture_output=True,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            timeout=120,
        )
        assert proc.returncode == 0, proc.stderr.decode()
        assert b"Traceback" not in proc.stderr and b"Recursion" not in proc.stdout + proc.stderr
        assert MARKER in proc.stdout.replace(b"&#x27;", b"'")
        for test_id in (b"out", b"plain", b"in", b"evidence", b"details"):
            assert test_id in proc.stdout


def _texts(app) -> str:
    from textual.widgets import Static

    return "\n".join(str(static.render()) for static in app.screen.query(Static))


async def _every_tab_of_every_result(app, pilot, count: int) -> list[str]:
    shown = []
    for _ in range(count):
        await pilot.press("enter")
        await wait_for_idle(pilot)
        assert type(app.screen).__name__ in ("ResultDetailScreen", "PairScreen"), type(app.screen).__name__
        for tab in "12345678":
            await pilot.press(tab)
            await wait_for_idle(pilot)
            shown.append(_texts(app))
        await pilot.press("escape")
        await wait_for_idle(pilot)
        await pilot.press("down")
    return shown


async def test_each_result_of_a_run_opens_and_shows_every_tab(runs, monkeypatch):
    a, _b = runs
    monkeypatch.chdir(a.parent)
    app = make_app(["a"], watch=False)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for_idle(pilot)
        shown = await _every_tab_of_every_result(app, pilot, 6)
    assert app.return_code in (None, 0)
    assert any(DEEP_MARKER in text for text in shown)


async def test_two_runs_compared_open_each_pair(runs, monkeypatch):
    a, b = runs
    monkeypatch.chdir(a.parent)
    app = make_app(["a", "b"], watch=False)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for_idle(pilot)
        assert type(app.screen).__name__ == "CompareScreen"
        for _ in range(5):
            await pilot.press("enter")
            await wait_for_idle(pilot)
            await pilot.press("escape")
            await wait_for_idle(pilot)
            await pilot.press("down")
    assert app.return_code in (None, 0)


@pytest.fixture
def deep_run(tmp_path: Path) -> Path:
    """AgentV 4.42.4's run with a transcript and a trace (tests/fixtures/make_real_runs.py), its row, a transcript
    turn's tool call and a trace span nested 300 to 900 levels deep."""
    run = tmp_path / "run"
    shutil.copytree(REAL_RUN, run)
    outputs = run / "agent" / "fix-failing-test" / "outputs"
    lines = (outputs / "transcript.jsonl").read_text().splitlines()
    turn = json.loads(lines[1])
    turn["tool_calls"][0]["input"], turn["content"] = "@input@", "@content@"
    lines[1] = json.dumps(turn).replace('"@input@"', nested(900, {"path": "cart.py"}))
    lines[1] = lines[1].replace('"@content@"', nested(300, "thinking"))
    (outputs / "transcript.jsonl").write_text("\n".join(lines) + "\n")
    trace = json.loads((outputs / "trace.json").read_text())
    trace["trace"]["spans"][1]["attributes"] = {"deep": "@deep@"}
    (outputs / "trace.json").write_text(json.dumps(trace).replace('"@deep@"', nested(700, "x")))
    rows = (run / "index.jsonl").read_text().splitlines()
    for i, line in enumerate(rows):
        if '"fix-failing-test"' in line:
            rows[i] = line[:-1] + ', "details": ' + '{"a":' * 800 + "1" + "}" * 800 + "}"
    (run / "index.jsonl").write_text("\n".join(rows) + "\n")
    return run


def test_a_deep_transcript_and_trace_are_read_cut_at_the_marker(deep_run):
    results = scanned(deep_run / "index.jsonl")
    artifacts = load_artifacts(results.record(results.eval_ids.index("fix-failing-test")), str(deep_run))
    assert not [p for p in artifacts.problems if p.severity == "error"]
    assert artifacts.transcript is not None and len(artifacts.transcript.turns) == 4
    assert artifacts.spans is not None and artifacts.trace is not None
    shown = repr(artifacts.transcript.turns[1])  # (repr recurses: it would stop near 1,000 levels)
    assert DEEP_MARKER in shown


async def test_a_deep_transcript_and_trace_show_in_the_detail(deep_run, monkeypatch):
    monkeypatch.chdir(deep_run.parent)
    app = make_app(["run"], watch=False)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for_idle(pilot)
        results = app.screen.query_one("ResultList")
        count = len(results.rows)  # type: ignore[attr-defined]
        await _every_tab_of_every_result(app, pilot, count)
    assert app.return_code in (None, 0)
