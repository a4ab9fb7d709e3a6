"""A JSONL line that is not JSON is refused with JSON.parse's own message, as AgentV 4 words it: the scanner of
formatting/jsjson.py against Node.js's messages recorded in tests/fixtures/jsjson/ (no Node.js needed)."""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest

from turnlens.formatting.dialects.load import load_eval_file
from turnlens.formatting.jsjson import js_json_error

RECORDED = Path(__file__).resolve().parents[1] / "fixtures" / "jsjson" / "node20.jsonl"
_CASES = [json.loads(line) for line in RECORDED.read_text(encoding="utf-8").splitlines() if line]


def test_every_recorded_message_is_reproduced():
    wrong = [
        (text, node, js_json_error(text) or None) for text, node in _CASES if (js_json_error(text) or None) != node
    ]
    assert not wrong, "\n".join(ascii(w) for w in wrong[:10])


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("not json", "Unexpected token 'o', \"not json\" is not valid JSON"),
        ('{"a":1', "Expected ',' or '}' after property value in JSON at position 6"),
        ('{"a":1,"b" 2}', "Unexpected number in JSON at position 11"),  # V8 words the missing ':' on the first key only
        ("", "Unexpected end of JSON input"),
        ("x" * 21, "Unexpected token 'x', \"xxxxxxxxxx\"... is not valid JSON"),
        ('"\U0001f600" x', "Unexpected non-whitespace character after JSON at position 5"),  # UTF-16 positions
    ],
)
def test_named_messages(text, message):
    assert js_json_error(text) == message


def test_accepted_texts_have_no_message():
    for text in ('{"a": [1, 2.5e3, -0, true, null, "\\u00e9"]}', "  []  ", '"\\ud800"'):
        assert js_json_error(text) == ""


def test_jsonl_refusal_carries_the_message_with_file_and_line(tmp_path):
    ds = tmp_path / "d.jsonl"
    ds.write_text('{"id": "a", "input": "Q", "criteria": "c"}\n   {x\n', encoding="utf-8")
    ev = load_eval_file(str(ds), repo_root=str(tmp_path), cwd=str(tmp_path))
    assert ev.error is not None and ev.error.line == 2
    # the line is trimmed first, as AgentV does: position 1, not 4
    assert (
        ev.error.message == f"Line 2: Invalid JSON - Expected property name or '}}' in JSON at position 1\n  File: {ds}"
    )


def test_json_that_only_orjson_refuses_is_read(tmp_path):
    """A lone surrogate escape is JSON to JavaScript (orjson refuses it): the line loads."""
    line = '{"id": "a", "input": "Q \\ud800", "criteria": "c"}'
    with pytest.raises(orjson.JSONDecodeError):
        orjson.loads(line)
    ds = tmp_path / "d.jsonl"
    ds.write_text(line + "\n", encoding="utf-8")
    ev = load_eval_file(str(ds), repo_root=str(tmp_path), cwd=str(tmp_path))
    assert ev.error is None and [c.id for c in ev.cases] == ["a"]
