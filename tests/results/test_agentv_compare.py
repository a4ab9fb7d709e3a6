"""`agentv compare --json` byte for byte: every answer the real 4.42.4 CLI recorded under
tests/fixtures/results/real/compare/ (tests/fixtures/make_real_runs.py made them, the command in each `.cmd`)."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

from turnlens.formatting.results.agentv_compare import (
    Row,
    compare_json,
    compare_results,
    js_object,
    js_round,
)

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "results" / "real"
COMPARE = REAL / "compare"
RECORDED = sorted(p.stem for p in COMPARE.glob("*.cmd"))


def _arguments(command: list[str]) -> dict:
    sources, options, words = [], {"targets": []}, iter(command)
    for word in words:
        if word in ("-t", "--threshold"):
            options["delta"] = float(next(words))
        elif word in ("-b", "--baseline"):
            options["baseline"] = next(words)
        elif word in ("-c", "--candidate"):
            options["candidate"] = next(words)
        elif word == "--targets":
            options["targets"].append(next(words))
        elif word != "--json":
            sources.append(word)
    return {"sources": sources, **options}


@pytest.mark.parametrize("name", RECORDED)
def test_what_agentv_compare_printed(name, monkeypatch):
    command, status = (COMPARE / f"{name}.cmd").read_text().splitlines()
    words = shlex.split(command)
    assert words[:2] == ["agentv", "compare"]
    monkeypatch.chdir(REAL)
    stdout, stderr, code = compare_json(**_arguments(words[2:]))
    expected_out = COMPARE / f"{name}.json"
    expected_err = COMPARE / f"{name}.err"
    assert stdout == (expected_out.read_text() if expected_out.exists() else "")
    assert stderr.replace(str(REAL) + "/", "{real}/") == (expected_err.read_text() if expected_err.exists() else "")
    assert f"exit {code}" == status


def test_the_example_agentv_documents():
    stdout, _, code = compare_json([str(COMPARE / "example" / "baseline"), str(COMPARE / "example" / "candidate")])
    assert '"wins": 1' in stdout and '"ties": 4' in stdout and '"mean_delta": 0.054' in stdout
    assert '"mean_normalized_gain": 0.198' in stdout and code == 0


def test_a_delta_of_exactly_the_step_is_a_tie_when_floating_point_says_so():
    # 0.9 - 0.8 is 0.09999999999999998 in binary floating point: under 0.1, so AgentV calls it a tie
    comparison = compare_results([Row("a", 0.8, "x")], [Row("a", 0.9, "y")])
    assert comparison.matched[0].outcome == "tie"
    assert compare_results([Row("a", 0.5, "x")], [Row("a", 0.6, "y")]).matched[0].outcome == "tie"  # same
    assert compare_results([Row("a", 0.25, "x")], [Row("a", 0.375, "y")]).matched[0].outcome == "win"


def test_a_perfect_baseline_has_no_gain_and_duplicates_keep_the_last_score_at_the_first_place():
    comparison = compare_results(
        [Row("a", 1, "x"), Row("b", 0.2, "x"), Row("a", 0.5, "x")], [Row("b", 0.2, "y"), Row("a", 1, "y")]
    )
    assert [p.test_id for p in comparison.matched] == ["a", "b"]
    assert comparison.matched[0].score1 == 0.5 and comparison.matched[0].gain == 1.0
    assert comparison.unmatched1 == 0 and comparison.total == 5
    assert compare_results([Row("a", 1, "x")], [Row("a", 0.5, "y")]).mean_gain is None


def test_javascript_rounding_and_key_order():
    assert [js_round(x) for x in (0.5, 1.5, -0.5, -1.5, 2.4999)] == [1, 2, 0, -1, 2]
    assert list(js_object([("b", 1), ("10", 2), ("2", 3), ("a", 4)])) == ["2", "10", "b", "a"]


def test_rows_agentv_refuses_are_refused_with_its_words(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    (run / "index.jsonl").write_text('{"test_id": "a", "score": 1}\n{"test_id": "b"}\n')
    _, stderr, code = compare_json([str(run), str(run)])
    assert stderr == "Error: Missing or invalid score in result row at line 2.\n" and code == 1
    (run / "index.jsonl").write_text('{"score": 1}\n')
    assert compare_json([str(run), str(run)])[1] == f"Error: Missing test_id in result source: {run}\n"
    (run / "index.jsonl").write_text("not json\n")
    assert compare_json([str(run), str(run)])[1].startswith("Error: Unexpected token")
    empty = tmp_path / "empty"
    empty.mkdir()
    assert compare_json([str(empty), str(run)])[1] == f"Error: Result workspace is missing index.jsonl: {empty}\n"


@pytest.mark.parametrize("name", ["pairwise", "matrix", "matrix-targets", "example"])
def test_turnlens_export_format_json_prints_what_agentv_compare_prints(name, monkeypatch, capfdbinary):
    from turnlens.tui.export_cli import main

    command, status = (COMPARE / f"{name}.cmd").read_text().splitlines()
    words = [w for w in shlex.split(command)[2:] if w != "--json"]
    words = ["--delta" if w == "-t" else w for w in words]
    monkeypatch.chdir(REAL)
    code = main([*words, "--format", "json"])
    captured = capfdbinary.readouterr()
    assert captured.out == (COMPARE / f"{name}.json").read_bytes()
    assert f"exit {code}" == status


def agentv_number(text: str) -> float | None:
    """`text` as a whole number in JavaScript's decimal syntax (what both --delta options take), else None."""
    match = re.fullmatch(r"\s*([+-]?(?:Infinity|(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?))\s*", text)
    return float(match.group(1)) if match else None


# What the real CLI made of `agentv compare … -t VALUE --json` for each value (tests/fixtures/
# record_compare_threshold.py): the command, its exit status, stdout and stderr.
THRESHOLDS = json.loads((COMPARE / "threshold.json").read_text())
TAKEN = [a for a in THRESHOLDS if a["exit"] == 0 and agentv_number(a["value"]) is not None]
READ_IN_PART = [a for a in THRESHOLDS if a["exit"] == 0 and agentv_number(a["value"]) is None]
REFUSED = [a for a in THRESHOLDS if a["exit"] != 0]


def test_the_recorded_thresholds_cover_every_kind_of_value():
    assert {a["value"] for a in TAKEN} >= {"-0.2", "1.5", "Infinity", "-Infinity", "-1e-3", "1e400"}
    assert {a["value"] for a in READ_IN_PART} == {"0x10", "0.2abc", "1_000", "0,2"}
    assert {a["value"] for a in REFUSED} == {"abc", "NaN", "inf", "", "-"}
    assert all("Not a number" in a["stderr"] and a["stdout"] == "" for a in REFUSED)


@pytest.mark.parametrize("answer", TAKEN, ids=[a["value"] for a in TAKEN])
def test_export_delta_takes_every_number_agentv_compare_takes(answer, monkeypatch, capfdbinary):
    """Negative, above 1, infinite, written with spaces or an exponent: the same delta, the same bytes and status."""
    from turnlens.tui.export_cli import main

    argv = answer["argv"]
    sources = [w for w in argv[2:] if not w.startswith("-") and w != answer["value"]]
    monkeypatch.chdir(REAL)
    code = main([*sources, "--format", "json", "--delta", answer["value"]])
    captured = capfdbinary.readouterr()
    assert captured.out.decode() == answer["stdout"]
    assert code == answer["exit"]


def _app_delta(monkeypatch, *argv: str) -> float | None:
    """The delta `turnlens ARGV` gives the app it makes (none is started)."""
    from turnlens.tui import app, cli

    made: dict = {}
    monkeypatch.setattr(app, "make_app", lambda *args, **kwargs: made.update(kwargs) or object())
    monkeypatch.chdir(REAL)
    cli.open_app([*argv, "--no-watch"], terminal=False)
    return made["delta"]


@pytest.mark.parametrize("answer", TAKEN, ids=[a["value"] for a in TAKEN])
def test_the_apps_delta_takes_the_same_numbers(answer, monkeypatch):
    delta = _app_delta(monkeypatch, "compare/example/baseline", "compare/example/candidate", "--delta", answer["value"])
    assert delta == agentv_number(answer["value"])


@pytest.mark.parametrize("answer", REFUSED + READ_IN_PART, ids=[a["value"] for a in REFUSED + READ_IN_PART])
@pytest.mark.parametrize("command", ["app", "export"])
def test_both_deltas_refuse_what_is_not_a_number_saying_why(answer, command, monkeypatch, capsys):
    """What AgentV refuses is refused; what it would read only the start of (`0x10` is 0 to it) is refused too, with
    the number it would read: one message, exit status 2, for both options."""
    from turnlens.tui import cli
    from turnlens.tui.export_cli import main

    monkeypatch.chdir(REAL)
    sources = ["compare/example/baseline", "compare/example/candidate"]
    with pytest.raises(SystemExit) as stopped:
        if command == "app":
            cli.open_app([*sources, "--delta", answer["value"]], terminal=False)
        else:
            main([*sources, "--format", "json", "--delta", answer["value"]])
    assert stopped.value.code == 2
    message = capsys.readouterr().err.splitlines()[-1]
    assert f"not a number: {answer['value']!r} (agentv compare -t " in message
    if answer in REFUSED:
        assert message.endswith("refuses it too)")
    else:  # what AgentV read instead: the answer it gave is that number's
        start = message.rsplit(", ", 1)[1].rstrip(")")
        same = [a for a in TAKEN if agentv_number(a["value"]) == float(start)]
        assert same and same[0]["stdout"] == answer["stdout"]


def test_rows_nested_deeper_than_orjson_reads_are_compared_as_agentv_compares_them(tmp_path, monkeypatch):
    """Rows whose `output` is nested 1,500, 100,000 and 200,000 levels deep: JSON.parse reads them, and so does
    turnlens; the pairs, verdicts, counts and means are AgentV's, byte for byte (tests/fixtures/record_deep_rows.py)."""
    from fixtures.record_deep_rows import ANSWER, write_runs

    answer = json.loads(ANSWER.read_text())
    write_runs(tmp_path)
    monkeypatch.chdir(tmp_path)
    stdout, stderr, code = compare_json(["a", "b"])
    assert (stdout, stderr, code) == (answer["stdout"], answer["stderr"], answer["exit"])
    assert '"matched": 3' in stdout and '"ties": 1' in stdout
