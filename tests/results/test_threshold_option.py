"""--threshold (the app's and `turnlens export`'s) against what `agentv eval --threshold` made of the same values
(tests/fixtures/record_eval_threshold.py): the threshold AgentV judged at, or its refusal."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "results" / "real"
RUN = "project/.agentv/results/runs/default/2026-06-23T09-00-00-000Z"  # recorded with --threshold 0.5
ANSWERS = json.loads((REAL / "eval-threshold.json").read_text())


def judged_at(answer: dict) -> float | None:
    """The threshold AgentV's summary says it judged at (`4/5 scored >= 50%`), else None (it refused the value)."""
    for line in answer["said"]:
        found = re.search(r"scored >= (\d+)%", line)
        if found:
            return int(found.group(1)) / 100
    return None


def whole_number(text: str) -> float | None:
    match = re.fullmatch(r"\s*([+-]?(?:Infinity|(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?))\s*", text)
    return float(match.group(1)) if match else None


TAKEN = [a for a in ANSWERS if judged_at(a) is not None and whole_number(a["value"]) == judged_at(a)]
READ_IN_PART = [a for a in ANSWERS if judged_at(a) is not None and whole_number(a["value"]) is None]
OUTSIDE = [a for a in ANSWERS if any("between 0 and 1" in line for line in a["said"])]
NOT_A_NUMBER = [a for a in ANSWERS if a["said"] == ["Not a number"]]


def test_the_recorded_values_cover_every_kind():
    assert {a["value"] for a in TAKEN} >= {"0", "0.5", "1", ".5", "5e-1", "+0.5", "-0", " 0.5"}
    assert {a["value"] for a in READ_IN_PART} == {"0.5x", "0.5abc", "1_0", "0x1", "0b1", "0,5"}
    assert {a["value"] for a in OUTSIDE} == {"1.5", "-0.5"}
    assert {a["value"] for a in NOT_A_NUMBER} == {"abc", "NaN", ""}
    # Infinity: AgentV judged at its default, 0.8, as if no threshold was given
    (infinity,) = [a for a in ANSWERS if a["value"] == "Infinity"]
    assert judged_at(infinity) == 0.8 and infinity["exit"] == 0


def _app_threshold(monkeypatch, value: str) -> float | None:
    """The threshold `turnlens RUN --threshold VALUE` gives the app it makes (none is started)."""
    from turnlens.tui import app, cli

    made: dict = {}
    monkeypatch.setattr(app, "make_app", lambda *args, **kwargs: made.update(kwargs) or object())
    monkeypatch.chdir(REAL)
    cli.open_app([RUN, "--threshold", value, "--no-watch"], terminal=False)
    return made["threshold"]


@pytest.mark.parametrize("answer", TAKEN, ids=[a["value"] for a in TAKEN])
def test_the_app_takes_the_threshold_agentv_judged_at(answer, monkeypatch):
    assert _app_threshold(monkeypatch, answer["value"]) == judged_at(answer)


@pytest.mark.parametrize("answer", TAKEN, ids=[a["value"] for a in TAKEN])
def test_export_takes_the_same_thresholds(answer, monkeypatch, capfdbinary):
    from turnlens.tui.export_cli import main

    monkeypatch.chdir(REAL)
    assert main([RUN, "--format", "jsonl", "--threshold", answer["value"]]) == 0
    assert capfdbinary.readouterr().out.count(b"\n") == 5


def _refusal(command: str, value: str, monkeypatch, capsys) -> str:
    from turnlens.tui import cli
    from turnlens.tui.export_cli import main

    monkeypatch.chdir(REAL)
    with pytest.raises(SystemExit) as stopped:
        if command == "app":
            cli.open_app([RUN, "--threshold", value, "--no-watch"], terminal=False)
        else:
            main([RUN, "--format", "jsonl", "--threshold", value])
    assert stopped.value.code == 2
    return capsys.readouterr().err.splitlines()[-1]


@pytest.mark.parametrize("command", ["app", "export"])
@pytest.mark.parametrize("answer", OUTSIDE, ids=[a["value"] for a in OUTSIDE])
def test_a_number_outside_0_and_1_is_refused_as_agentv_refuses_it(answer, command, monkeypatch, capsys):
    message = _refusal(command, answer["value"], monkeypatch, capsys)
    assert message.endswith(f"{answer['value']} is not between 0 and 1 (agentv eval --threshold takes 0 to 1)")


@pytest.mark.parametrize("command", ["app", "export"])
@pytest.mark.parametrize("answer", NOT_A_NUMBER, ids=[a["value"] or "empty" for a in NOT_A_NUMBER])
def test_what_is_not_a_number_is_refused_as_agentv_refuses_it(answer, command, monkeypatch, capsys):
    message = _refusal(command, answer["value"], monkeypatch, capsys)
    assert message.endswith(f"not a number: {answer['value']!r} (agentv eval --threshold refuses it too)")


@pytest.mark.parametrize("command", ["app", "export"])
@pytest.mark.parametrize("answer", READ_IN_PART, ids=[a["value"] for a in READ_IN_PART])
def test_a_number_with_more_after_it_is_refused_naming_the_number_agentv_would_use(
    answer, command, monkeypatch, capsys
):
    """`0x1` is 0 to AgentV, `1_0` is 1: a typo is not silently another threshold; the message says AgentV's."""
    message = _refusal(command, answer["value"], monkeypatch, capsys)
    assert f"not a number: {answer['value']!r} (agentv eval --threshold would read only its start, " in message
    assert float(message.rsplit(", ", 1)[1].rstrip(")")) == judged_at(answer)


@pytest.mark.parametrize("command", ["app", "export"])
def test_infinity_is_refused_where_agentv_falls_back_to_its_default(command, monkeypatch, capsys):
    message = _refusal(command, "Infinity", monkeypatch, capsys)
    assert message.endswith("Infinity is not between 0 and 1 (agentv eval --threshold takes 0 to 1)")
