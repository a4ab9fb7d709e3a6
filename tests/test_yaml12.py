"""YAML 1.2 core-schema loader: typing, lines and refusals, checked against oracle-recorded fixtures."""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path

import pytest

try:
    from formatting import yaml12
except ImportError:  # the engine package may be mid-construction; this module stands alone
    _spec = importlib.util.spec_from_file_location(
        "formatting_yaml12_standalone", Path(__file__).parent.parent / "formatting" / "yaml12.py"
    )
    yaml12 = importlib.util.module_from_spec(_spec)
    sys.modules[_spec.name] = yaml12
    _spec.loader.exec_module(yaml12)

YamlError = yaml12.YamlError
parse_yaml = yaml12.parse_yaml


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("yes", "yes"), ("no", "no"), ("on", "on"), ("off", "off"), ("y", "y"), ("n", "n"),
        ("true", True), ("True", True), ("TRUE", True), ("false", False), ("tRUE", "tRUE"),
        ("null", None), ("Null", None), ("NULL", None), ("~", None), ("", None), ("nULL", "nULL"),
        ("0755", 755), ("0o755", 493), ("0x1F", 31), ("+12", 12), ("-0", 0), ("1_000", "1_000"),
        ("1e3", 1000.0), (".5", 0.5), ("1.", 1.0), (".inf", math.inf), ("-.Inf", -math.inf), ("+.INF", math.inf),
        ("2024-01-01", "2024-01-01"), ("2024-01-01T10:00:00Z", "2024-01-01T10:00:00Z"), ("0b101", "0b101"),
        ("'yes'", "yes"), ('"12"', "12"), ("!!str 12", "12"), ("!!int '12'", 12),
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
