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


# Node.js 20's messages for texts 100,000 and 50,000 levels deep, from
#   node -e "for (const t of [T1, T2, T3]) { try { JSON.parse(t) } catch (e) { console.log(e.message) } }"
# with the texts below (JSON.parse reads any depth: it also read 200,000 and 1,000,000 levels).
DEEP_REFUSED = [
    ("[" * 100_000 + "1,]" + "]" * 99_999, "Unexpected token ']', ...\"[[[[[[[[1,]]]]]]]]]]\"... is not valid JSON"),
    ("[" * 100_000 + "]" * 99_999, "Expected ',' or ']' after array element in JSON at position 199999"),
    ('{"a":' * 50_000 + "1" + "}" * 50_000 + "x", "Unexpected non-whitespace character after JSON at position 300001"),
]


@pytest.mark.parametrize(("text", "message"), DEEP_REFUSED, ids=["token", "unclosed", "after"])
def test_a_deep_text_is_refused_with_json_parses_message(text, message):
    from turnlens.formatting.jsjson import js_loads

    assert js_json_error(text) == message
    with pytest.raises(orjson.JSONDecodeError):
        js_loads(text)


@pytest.mark.parametrize("depth", [1_500, 200_000])
def test_any_depth_json_parse_reads_is_read_cut_deep_down_with_a_marker(depth):
    """orjson stops at 1,024 levels; JSON.parse reads any depth. What lies deeper than DEEP_CUT levels is replaced
    by DEEP_MARKER (so that nothing that walks the value later recurses too deep); what is above it, and every
    field beside it, is read as it is."""
    from turnlens.formatting.jsjson import DEEP_CUT, DEEP_MARKER, js_loads

    text = '{"score": 0.5, "output": ' + "[" * depth + '{"a": 1}' + "]" * depth + ', "test_id": "t", "big": 1e400}'
    assert js_json_error(text) == ""
    value = js_loads(text)
    assert value["score"] == 0.5 and value["test_id"] == "t" and value["big"] == float("inf")
    levels, inner = 1, value["output"]
    while isinstance(inner, list):
        assert len(inner) == 1
        levels, inner = levels + 1, inner[0]
    assert (levels, inner) == (DEEP_CUT, DEEP_MARKER)
    assert orjson.loads(orjson.dumps(value["output"])) == value["output"]  # written back, compared: no RecursionError


def test_a_dataset_line_nested_2000_levels_deep_is_refused_in_agentvs_words(tmp_path):
    """AgentV 4.42.4's dataset loader overflows on such a line (JSON.parse reads it; what follows does not), as
    recorded with `node agentv-4.42.4-oracle.cjs d.jsonl .` on this file: {"load_error": "Line 2: Invalid JSON -
    Maximum call stack size exceeded\\n  File: d.jsonl"}. Never a traceback (json's RecursionError)."""
    ds = tmp_path / "d.jsonl"
    deep = '{"id":"t2","criteria":"c","input":"deep","metadata":{"x":' + "[" * 2000 + "1" + "]" * 2000 + "}}"
    ds.write_text('{"id": "t1", "criteria": "c", "input": "hello"}\n' + deep + "\n")
    ev = load_eval_file(str(ds), repo_root=str(tmp_path), cwd=str(tmp_path))
    assert ev.error is not None and ev.error.line == 2
    assert ev.error.message == f"Line 2: Invalid JSON - Maximum call stack size exceeded\n  File: {ev.path}"
