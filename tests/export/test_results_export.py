"""`turnlens export RESULTS --format toon|jsonl|markdown`."""

from __future__ import annotations

import io
import os

import orjson
import toon_format

from turnlens.formatting.export.results import export_results, export_row
from turnlens.formatting.results.index import read_all
from turnlens.tui.export_cli import main

FIXTURES = os.path.join(os.path.dirname(os.path.dirname(__file__)), "fixtures", "results")
RUN_A = os.path.join(FIXTURES, "run-a.jsonl")


def run(fmt: str, *paths: str) -> tuple[str, list]:
    out = io.StringIO()
    problems = export_results(list(paths) or [RUN_A], fmt, out)
    return out.getvalue(), problems


def test_jsonl_rows():
    text, problems = run("jsonl")
    rows = [orjson.loads(line) for line in text.splitlines()]
    assert not problems and len(rows) == 6
    assert rows[2]["conversation"][-2:] == [
        {"role": "user", "content": "4711"},
        {"role": "assistant", "content": "Order 4711 ships tomorrow."},
    ]
    assert rows[3]["verdict"]["error"].startswith("Provider timed out") and rows[3]["verdict"]["pass"] is False
    assert rows[5] == {
        "eval_id": "bare-minimum",
        "dataset": None,
        "target": None,
        "timestamp": None,
        "conversation": [{"role": "assistant", "content": ""}],
        "verdict": {"score": 0.9, "pass": True, "hits": [], "misses": [], "reasoning": ""},
    }


def test_toon_is_streamed_yet_one_valid_document():
    text, _ = run("toon")
    _, records = read_all(RUN_A)
    rows = [export_row(r) for r in records]
    assert text == toon_format.encode({"results": rows}) + "\n"
    assert toon_format.decode(text) == {"results": rows}


def test_toon_empty(tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    assert run("toon", str(empty))[0] == "results[0]:\n"


def test_markdown_is_literal_and_control_free():
    text, _ = run("markdown")
    assert text.startswith("# Results: run-a.jsonl\n")
    assert "## sum-markers — score 0.25 (fail)" in text and "## timeout-case — score 0 (error)" in text
    assert "\x1b" not in text and "␛[31mRED" in text


def test_broken_lines_are_reported_and_rest_exported(capsys):
    assert main([os.path.join(FIXTURES, "broken.jsonl"), "--format", "jsonl"]) == 0
    captured = capsys.readouterr()
    assert len(captured.out.splitlines()) == 2
    assert "broken.jsonl:2: not valid JSON" in captured.err and "broken.jsonl:6: truncated" in captured.err


def test_missing_file_fails_cleanly(capsys, tmp_path):
    assert main([str(tmp_path / "nope.jsonl"), "--format", "toon"]) == 1
    assert "nope.jsonl: cannot read" in capsys.readouterr().err


def test_yaml_results_and_folders(capsys):
    assert main([os.path.join(FIXTURES, "run.yaml"), os.path.join(FIXTURES, "project", ".agentv", "results")]) == 0
    out = capsys.readouterr().out
    assert [orjson.loads(line)["eval_id"] for line in out.splitlines()] == [
        "greet-flat",
        "sum-markers",
        "chat-history",
        "greet-flat",
        "sum-markers",
        "chat-history",
        "deleted-case",
    ]


RUNS4 = os.path.join(FIXTURES, "v4", ".agentv", "results", "runs", "default")
RUN2 = os.path.join(RUNS4, "2026-06-21T09-00-00-000Z")


def test_agentv4_run_folder_jsonl_has_graders_assertions_and_the_artifacts():
    text, problems = run("jsonl", RUN2)
    rows = {row["test_id"]: row for row in map(orjson.loads, text.splitlines())}
    assert not problems and len(rows) == 5
    failed = rows["hello-flat"]
    assert failed["conversation"] == [
        {"role": "user", "content": "My name is Ada. Can you help me plan a trip?"},  # from input.md
        {"role": "assistant", "content": failed["conversation"][-1]["content"]},
    ]
    assert failed["conversation"][-1]["content"].startswith("Here is my answer")  # from outputs/answer.md
    assert failed["verdict"]["pass"] is False and failed["verdict"]["execution_status"] == "quality_failure"
    helpful = failed["verdict"]["graders"][0]
    assert helpful["verdict"] == "fail" and helpful["assertions"][0]["passed"] is False
    assert "evidence" in helpful["assertions"][0]
    assert rows["multi-turn"]["verdict"]["error"].startswith("Agent timed out")
    composite = rows["no-assertions"]["verdict"]["graders"][0]
    assert [g["name"] for g in composite["graders"]] == ["tone", "format"]


def test_agentv4_folder_toon_and_markdown():
    folder = os.path.join(FIXTURES, "v4", ".agentv", "results")
    text, problems = run("toon", folder)
    decoded = toon_format.decode(text)
    assert not problems and len(decoded["results"]) == 3 + 5 + 4 + 4  # three runs, then the baseline
    text, _ = run("markdown", RUN2)
    assert text.startswith("# Results: default/2026-06-21T09-00-00-000Z")
    assert "- grader `helpful` (llm-grader): 0.25, **fail**" in text and "✗ Greets" in text


def test_streamed_full_rows_export_their_own_input_and_output():
    text, _ = run("jsonl", os.path.join(RUNS4, "2026-06-22T09-00-00-000Z"))
    row = orjson.loads(text.splitlines()[0])
    assert row["conversation"][0]["role"] == "user" and row["conversation"][-1]["role"] == "assistant"
    assert row["verdict"]["assertions"]


def test_a_ctrl_c_between_a_toon_rows_write_and_its_count_leaves_the_header_true(monkeypatch):
    """Ctrl-C during a streamed TOON export writes the rows spooled so far under a header counting exactly them,
    wherever it lands: here just after the third row was written to the spool, before it was counted."""
    import tempfile

    import pytest

    from turnlens.formatting.export import results

    class InterruptedSpool(tempfile.SpooledTemporaryFile):
        writes = 0

        def write(self, data):
            written = super().write(data)
            InterruptedSpool.writes += 1
            if InterruptedSpool.writes == 3:
                raise KeyboardInterrupt
            return written

    monkeypatch.setattr(tempfile, "SpooledTemporaryFile", InterruptedSpool)
    rows = [{"test_id": f"t{n}", "conversation": [{"role": "assistant", "content": "hi"}]} for n in range(5)]
    out = io.BytesIO()
    with pytest.raises(KeyboardInterrupt):
        results._stream_toon(results.toon_rows(rows), out)
    text = out.getvalue().decode()
    assert text.startswith("results[2]:")
    assert [r["test_id"] for r in toon_format.decode(text)["results"]] == ["t0", "t1"]
