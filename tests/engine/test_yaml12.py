"""YAML 1.2 core-schema loader: typing, lines and refusals, checked against oracle-recorded fixtures."""

from __future__ import annotations

import base64
import datetime
import importlib.util
import json
import math
import re
import subprocess
import sys
from pathlib import Path

import pytest

from turnlens.formatting.evals import yaml12, yaml_errors

YamlError = yaml12.YamlError
parse_yaml = yaml12.parse_yaml
refusal_text = yaml12.refusal_text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("yes", "yes"),
        ("no", "no"),
        ("on", "on"),
        ("off", "off"),
        ("y", "y"),
        ("n", "n"),
        ("true", True),
        ("True", True),
        ("TRUE", True),
        ("false", False),
        ("tRUE", "tRUE"),
        ("null", None),
        ("Null", None),
        ("NULL", None),
        ("~", None),
        ("", None),
        ("nULL", "nULL"),
        ("0755", 755),
        ("0o755", 493),
        ("0x1F", 31),
        ("+12", 12),
        ("-0", 0),
        ("1_000", "1_000"),
        ("1e3", 1000.0),
        (".5", 0.5),
        ("1.", 1.0),
        (".inf", math.inf),
        ("-.Inf", -math.inf),
        ("+.INF", math.inf),
        ("2024-01-01", "2024-01-01"),
        ("2024-01-01T10:00:00Z", "2024-01-01T10:00:00Z"),
        ("0b101", "0b101"),
        ("'yes'", "yes"),
        ('"12"', "12"),
        ("!!str 12", "12"),
        ("!!int '12'", 12),
        ("! 12", "12"),
        ("!!float 1", "1"),
        ("!!binary aGk=", b"hi"),
        ("!!set {a, b}", {}),
        ("!!pairs [a: 1, b]", [{"a": 1}, {"b": None}]),
    ],
)
def test_plain_scalar_typing_follows_core_schema(text, expected):
    assert parse_yaml(f"v: {text}\n").data == {"v": expected}


def test_nan():
    assert math.isnan(parse_yaml("v: .nan\n").data["v"])


def test_lines_of_containers_keys_and_items():
    doc = parse_yaml("a: 1\nlist:\n  - x\n  - {k: v}\n")
    assert doc.line(doc.data) == 1
    assert doc.line(doc.data, "list") == 2
    items = doc.data["list"]
    assert (doc.line(items, 0), doc.line(items, 1), doc.line(items, 2)) == (3, 4, None)
    assert doc.line(items[1]) == 4
    assert doc.line({}) is None


def test_duplicate_key_is_refused_with_both_lines():
    with pytest.raises(YamlError) as info:
        parse_yaml("a: 1\nid: x\nb: 2\nid: y\n")
    assert info.value.line == 4
    assert info.value.message == "duplicate key 'id' (first at line 2)"


# --- against the reference, through fixtures recorded by tests/fixtures/yaml12/record_fixtures.py --------------

FIXTURES = Path(__file__).parents[1] / "fixtures" / "yaml12"
_JS_WHITESPACE = (
    " \t\n\r\x0b\x0c\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def js_json(value) -> str:
    """JSON.stringify(value) as the reference prints it."""
    if isinstance(value, dict):
        return "{" + ",".join(f"{json.dumps(k, ensure_ascii=False)}:{js_json(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(js_json(v) for v in value) + "]"
    if isinstance(value, str):
        # well-formed JSON.stringify: a lone surrogate is written as its escape
        return _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", json.dumps(value, ensure_ascii=False))
    if value is True:
        return "true"
    if value is False:
        return "false"
    if value is None:
        return "null"
    if isinstance(value, (int, float)):
        return "null" if isinstance(value, float) and not math.isfinite(value) else yaml12.js_string(value)
    if isinstance(value, bytes):
        return '{"type":"Buffer","data":[' + ",".join(str(b) for b in value) + "]}"
    if isinstance(value, datetime.datetime):
        return json.dumps(
            value.astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.") + f"{value.microsecond // 1000:03d}Z"
        )
    raise TypeError(type(value))


def reference_answer(case: dict) -> str:
    """What the reference shows as reference_answer for a case, computed from our data."""
    messages = case.get("expected_messages")
    if not isinstance(messages, list) or not messages or not isinstance(messages[0], dict):
        return ""
    content = messages[0].get("content")
    if isinstance(content, str):
        return content.strip(_JS_WHITESPACE)
    if isinstance(content, list) and content and all(isinstance(item, dict) for item in content):
        return " ".join(js_json(item) for item in content)
    return ""


def oracle_sections(prompt: str) -> tuple[str, str]:
    outcome = prompt.split("[[ ## expected_outcome ## ]]\n", 1)[1].split("\n\n[[ ## question ## ]]", 1)[0]
    answer = prompt.split("[[ ## reference_answer ## ]]\n", 1)[1].split("\n\n[[ ## candidate_answer ## ]]", 1)[0]
    return outcome, answer


def _recorder():
    spec = importlib.util.spec_from_file_location("yaml12_record_fixtures", FIXTURES / "record_fixtures.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def fixture_input(fixture: dict) -> bytes:
    if "input_generator" in fixture:  # big inputs are regenerated, not stored
        return eval(fixture["input_generator"], {"record_fixtures": _recorder()}).encode("utf-8")
    if "input_base64" in fixture:
        return base64.b64decode(fixture["input_base64"])
    return fixture["input"].encode("utf-8")


def load_fixtures() -> list:
    return [json.loads(p.read_text()) for p in sorted(FIXTURES.glob("*.json"))]


# Where libyaml's grammar and the reference's differ and no bridge exists yet: name -> reason (expected failure).
KNOWN_DIFFERENCES: dict = {}


def _fixture_param(fixture: dict):
    reason = KNOWN_DIFFERENCES.get(fixture["name"])
    marks = [pytest.mark.xfail(reason=reason, strict=True)] if reason else []
    return pytest.param(fixture, id=fixture["name"], marks=marks)


@pytest.mark.parametrize("fixture", [_fixture_param(f) for f in load_fixtures()])
def test_matches_reference(fixture):
    raw = fixture_input(fixture)
    outputs = fixture["oracle_stdout"]
    load_error = next((o["load_error"] for o in outputs if "load_error" in o), None)
    if load_error is not None and not load_error.startswith("Invalid test file format"):
        with pytest.raises(YamlError) as info:
            yaml12.parse_yaml_bytes(raw)
        where = re.search(r" at line (\d+), column (\d+):", load_error)
        if where:
            assert info.value.line == int(where.group(1)), (str(info.value), load_error)
        assert "\n" not in info.value.message and info.value.message.strip()
        return
    doc = yaml12.parse_yaml_bytes(raw)
    data = doc.data
    if load_error is not None:  # refused by the eval-file loader, not by YAML
        assert not (isinstance(data, dict) and isinstance(data.get("evalcases"), list))
        return
    accepted = [
        case
        for case in data["evalcases"]
        # the reference tests truthiness: an empty id or outcome skips the case too
        if isinstance(case, dict)
        and isinstance(case.get("id"), str)
        and case["id"]
        and isinstance(case.get("outcome"), str)
        and case["outcome"]
        and isinstance(case.get("input_messages"), list)
    ]
    cases = [o for o in outputs if "id" in o]
    if "oracle_case_count" in fixture:  # only the first and last few outputs were kept
        assert len(accepted) == fixture["oracle_case_count"]
        accepted = accepted[:3] + accepted[-2:]
    assert [c["id"] for c in accepted] == [o["id"] for o in cases]
    for ours, theirs in zip(accepted, cases):
        outcome, answer = oracle_sections(theirs["evaluator_prompt"])
        assert ours["outcome"].strip(_JS_WHITESPACE) == outcome, ours["id"]
        assert reference_answer(ours) == answer, ours["id"]


# --- behaviour beyond the fixtures ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "line", "needle"),
    [
        ("a: 1\nb:\n\tc: 2\n", 3, "tab character"),
        ("a: 1\nb: x: y\n", 2, "quote a value that contains ': '"),
        ("a: 1\nb: [1, 2\nc: 3\n", 3, "'[' list opened at line 2 is not closed with ']'"),
        ("a: 1\nb: [1, 2\n", 3, "'[' list opened at line 2 is not closed with ']' before the end of the text"),
        ("tests:\n  - id: a\n   criteria: c\n", 3, "indented past its list's '-' but does not start a new item"),
        ('a: "abc\nb: 1\n', 3, "quoted value (opened at line 1) is not closed"),
        ("a: 1\n---\nb: 2\n", 2, "more than one YAML document"),
        ("a: *nowhere\n", 1, "*nowhere refers to no anchor"),
        ("a: @me\n", 1, "cannot start with '@'"),
        ("a:\n  - x\n  b: 1\n", 3, "items of its list"),
    ],
)
def test_refusals_are_one_sentence_with_the_line(text, line, needle):
    with pytest.raises(YamlError) as info:
        parse_yaml(text)
    assert info.value.line == line
    assert needle in info.value.message
    assert "\n" not in info.value.message and "Traceback" not in str(info.value)
    assert str(info.value).startswith(f"line {line}")


@pytest.mark.parametrize(
    ("text", "headline"),
    [
        ("tests:\n  - id: a\n   criteria: c\n", "Sequence item without - indicator"),
        ("name: [unclosed\n", "Flow sequence in block collection must be sufficiently indented and end with a ]"),
        ("a: [1,\nb: 2]\n", "Flow sequence in block collection must be sufficiently indented and end with a ]"),
    ],
)
def test_refusals_lead_with_the_reference_parsers_headline(text, headline):
    """Where libyaml and AgentV's parser agree on the cause, the refusal starts with AgentV's own words."""
    with pytest.raises(YamlError) as info:
        parse_yaml(text)
    assert refusal_text(info.value).startswith(headline + " — ")


def test_lines_inside_flow_and_block_scalars():
    doc = parse_yaml("top:\n  text: |\n    one\n    two\n  flow: {a: 1,\n    b: [x,\n      y]}\n  after: 1\n")
    top = doc.data["top"]
    assert doc.line(top, "text") == 2 and doc.line(top, "after") == 8
    assert doc.line(top["flow"], "b") == 6 and doc.line(top["flow"]["b"], 1) == 7


def test_alias_shares_the_object_and_its_lines():
    doc = parse_yaml("a: &x {k: 1}\nb: *x\n")
    assert doc.data["a"] is doc.data["b"]
    assert doc.line(doc.data["b"], "k") == 1


def test_warnings_for_what_the_reference_only_warns_about():
    doc = parse_yaml("a: !!float 1\nb: !custom x\nc: 1\n")
    assert doc.data == {"a": "1", "b": "x", "c": 1}
    assert [(w.line, "unresolved tag" in w.message) for w in doc.warnings] == [(1, True), (2, True)]


def test_unknown_directive_is_ignored_with_a_warning():
    doc = parse_yaml("%FOO bar\n---\na: yes\n")
    assert doc.data == {"a": "yes"} and doc.warnings[0].line == 1


def test_yaml_11_directive_switches_typing():
    doc = parse_yaml("%YAML 1.1\n---\na: yes\nb: 0755\nc: 1_000\nd: off\n")
    assert doc.data == {"a": True, "b": 493, "c": 1000, "d": False}


def test_control_and_line_separator_characters_are_text():
    doc = parse_yaml("a: x\x01y\nb: 'p\x85q'\nc: r\u2028s\nd: 2\n")
    assert doc.data == {"a": "x\x01y", "b": "p\x85q", "c": "r\u2028s", "d": 2}
    assert doc.line(doc.data, "d") == 4  # U+2028 and NEL are not line breaks in YAML 1.2


def test_bytes_decode_like_the_reference():
    doc = yaml12.parse_yaml_bytes(b"\xef\xbb\xbfa: caf\xe9\r\nb: 1\r\n")
    assert doc.data == {"a": "caf\ufffd", "b": 1}
    assert yaml12.first_invalid_utf8(b"ok: 1\nbad: caf\xe9\n") == (2, 9, 14)
    assert yaml12.first_invalid_utf8("fine: é\n".encode()) is None


def test_keys_are_javascript_strings_in_javascript_order():
    doc = parse_yaml("b: 1\n2: x\n1.0: y\nnull: z\n.inf: w\n[1, 2]: v\n")
    assert list(doc.data) == ["1", "2", "b", "", "Infinity", "[ 1, 2 ]"]


def test_numbers_are_javascript_doubles():
    assert parse_yaml("a: 12345678901234567890\n").data["a"] == 12345678901234567168
    assert yaml12.js_string(12345678901234567890) == "12345678901234567000"
    assert [yaml12.js_string(v) for v in (1e21, 1e-7, 0.000001, 1.5, -0.0, 100.0)] == [
        "1e+21",
        "1e-7",
        "0.000001",
        "1.5",
        "0",
        "100",
    ]


@pytest.mark.parametrize(
    "text",
    [
        "a: " + "[" * 100_000 + "]" * 100_000,
        "a:\n" + "".join(" " * i + "- \n" for i in range(2, 3000)),
        "a:\n" + "- " * 50_000 + "x\n",
    ],
    ids=["flow", "indented", "compact"],
)
def test_hostile_nesting_is_refused_without_crashing(text):
    # libyaml's own composer recurses in C: this would kill the process if the guard were missing.
    script = (
        "import sys; from turnlens.formatting.evals import yaml12\n"
        "try:\n    yaml12.parse_yaml(sys.stdin.read())\nexcept yaml12.YamlError as e:\n    print(e.message)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        input=text,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=Path(__file__).parents[2],
    )
    assert done.returncode == 0, done.stderr[-500:]
    assert done.stdout.strip() == "the data is nested more than 800 levels deep"


class _Mark:
    line, column = 0, 1002


@pytest.mark.parametrize("context", ["while increasing flow level", "while increasing block level"])
def test_the_library_s_own_nesting_refusal_is_worded_as_turnlens_words_it(context):
    # libyaml 0.2.6 (PyYAML 6.0.4) has a nesting limit of its own and says so in these words
    import yaml

    error = yaml.parser.ParserError(context, _Mark(), "exceeded maximum nesting depth", _Mark())
    refusal = yaml_errors.nesting_refusal(error)
    assert refusal is not None
    assert (refusal.message, refusal.line, refusal.column) == ("the data is nested more than 800 levels deep", 1, 1003)


def test_other_library_errors_are_not_taken_for_nesting():
    import yaml

    assert (
        yaml_errors.nesting_refusal(yaml.parser.ParserError("while parsing", _Mark(), "found unexpected ':'")) is None
    )
    assert yaml_errors.nesting_refusal(ValueError("exceeded maximum nesting depth")) is None


@pytest.mark.parametrize("library_limit", [True, False], ids=["libyaml-0.2.6", "libyaml-0.2.5"])
def test_deep_flow_nesting_is_one_refusal_whatever_the_library_s_limit(monkeypatch, library_limit):
    # libyaml before 0.2.6 has no limit of its own: turnlens's MAX_DEPTH refuses the text, with the same sentence.

    text = "a: " + "[" * 1200 + "]" * 1200
    if not library_limit:
        real_compose = yaml12._compose

        def compose_without_library_limit(text, careful, flow_openers):
            try:
                return real_compose(text, careful, flow_openers)
            except yaml12.YamlError:
                return real_compose(text, True, flow_openers)  # the event path stops at MAX_DEPTH itself

        monkeypatch.setattr(yaml12, "_compose", compose_without_library_limit)
    with pytest.raises(YamlError, match=r"^line 1, column \d+: the data is nested more than 800 levels deep$"):
        parse_yaml(text)


def test_mapping_switching_to_javascript_keys_midway_keeps_values_and_lines():
    doc = parse_yaml("m:\n  a: [1]\n  b: {c: 2}\n  1: x\n  '2': y\n  a2: z\n")
    m = doc.data["m"]
    assert m == {"1": "x", "2": "y", "a": [1], "b": {"c": 2}, "a2": "z"}
    assert list(m) == ["1", "2", "a", "b", "a2"]
    assert [doc.line(m, k) for k in ("a", "b", "1", "2", "a2")] == [2, 3, 4, 5, 6]
    assert doc.line(m["a"]) == 2 and doc.line(m["b"], "c") == 3
    with pytest.raises(YamlError, match=r"duplicate key 'a' \(first at line 1\)"):
        parse_yaml("a: 1\nb: 2\n1: 3\na: 4\n")


@pytest.mark.parametrize("text", ["a: 1\nhits: [", "a: 1\nhits: [x,\n", "a: {b: 1,", "a: [\n  x", 'a: "abc\n  d'])
def test_text_cut_inside_a_flow_collection_or_quote_is_an_error_not_a_crash(text):
    # a results file read while AgentV writes it ends anywhere; the error's line was looked up past the end
    with pytest.raises(YamlError):
        parse_yaml(text)


def test_ctrl_c_in_the_first_import_of_pyyaml_stays_an_interrupt(monkeypatch):
    """PyYAML is imported when first needed. Ctrl-C landing in that import must end the parse as an interrupt: the
    except clause that reads PyYAML's error class imported it again, half-imported, and the AttributeError that
    gave replaced the interrupt (an interrupted export said the file 'could not be parsed as YAML' and exited 1)."""
    from turnlens.formatting.evals import yaml_binding

    calls = []

    def load():
        calls.append(1)
        if len(calls) == 1:
            raise KeyboardInterrupt  # in the first import
        raise AttributeError("partially initialized module 'yaml' has no attribute 'error'")  # importing it again

    fresh = yaml_binding.Binding()
    monkeypatch.setattr(yaml_binding, "_load", load)
    monkeypatch.setattr(yaml_binding, "lib", fresh)
    monkeypatch.setattr(yaml12, "lib", fresh)
    with pytest.raises(KeyboardInterrupt):
        parse_yaml("a: {b: [1, 2]}\nc: &x 1\nd: *x\n")
    assert calls == [1]
