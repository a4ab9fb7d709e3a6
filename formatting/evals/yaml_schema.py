"""Typing scalars as the reference's `yaml` parser does: the YAML 1.2 core schema, YAML 1.1 for a document that
declares `%YAML 1.1`, explicit tags, and JavaScript's String() of a mapping key."""

from __future__ import annotations

import base64
import datetime
import math
import re
from typing import Any

from turnlens.formatting.evals.yaml_binding import BINARY, BOOL, FLOAT, INT, NULL, STR, TIMESTAMP
from turnlens.formatting.jsstr import js_number
from turnlens.formatting.patterns import LazyPattern

# --- YAML 1.2 core schema --------------------------------------------------------------------------------------

_INT_DEC = re.compile(r"[-+]?[0-9]+\Z")
_INT_OCT = LazyPattern(r"0o[0-7]+\Z")
_INT_HEX = LazyPattern(r"0x[0-9a-fA-F]+\Z")
_FLOAT_RE = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?\Z")
_FLOAT_EXP = LazyPattern(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+\Z")
_FLOAT_DOT = LazyPattern(r"[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)\Z")
_NULLS = frozenset(("", "~", "null", "Null", "NULL"))
_TRUES = frozenset(("true", "True", "TRUE"))
_FALSES = frozenset(("false", "False", "FALSE"))
_INFS = {
    ".inf": math.inf,
    ".Inf": math.inf,
    ".INF": math.inf,
    "+.inf": math.inf,
    "+.Inf": math.inf,
    "+.INF": math.inf,
    "-.inf": -math.inf,
    "-.Inf": -math.inf,
    "-.INF": -math.inf,
    ".nan": math.nan,
    ".NaN": math.nan,
    ".NAN": math.nan,
}
# A plain scalar starting with anything else is a string: checked first, as most scalars are text.
SPECIAL_START = frozenset("0123456789+-.~nNtTfF")
_WORD_START = frozenset("~nNtTfF")
_MAX_SAFE = 2**53


def _js_int(value: int) -> int | float:
    # JavaScript numbers are doubles: past 2**53 an integer is a float here too (same value, same precision).
    if -_MAX_SAFE <= value <= _MAX_SAFE:
        return value
    return float(value) if abs(value) < 2**1024 else math.copysign(math.inf, value)


def _core_int(value: str) -> int | float | None:
    if _INT_DEC.match(value):
        return _js_int(int(value))
    if value.startswith("0o") and _INT_OCT.match(value):
        return _js_int(int(value[2:], 8))
    if value.startswith("0x") and _INT_HEX.match(value):
        return _js_int(int(value[2:], 16))
    return None


def _core_float(value: str) -> float | None:
    if _FLOAT_EXP.match(value) or _FLOAT_DOT.match(value):
        return float(value)
    return _INFS.get(value)


def core_plain(value: str) -> Any:
    """Type a plain (unquoted, untagged) scalar the way the YAML 1.2 core schema does."""
    if value and value[0] not in SPECIAL_START:
        return value
    if value in _NULLS:
        return None
    if value in _TRUES:
        return True
    if value in _FALSES:
        return False
    if value[0] in _WORD_START:  # `file`, `true_story`, `~x`: no number starts like that
        return value
    number = _core_int(value)
    if number is not None:
        return number
    if _FLOAT_RE.match(value):
        return float(value)
    special = _INFS.get(value)
    if special is not None:
        return special
    return value


# --- YAML 1.1 typing, for documents that declare `%YAML 1.1` ----------------------------------------------------

_Y11_TRUE = LazyPattern(r"(?:Y|y|[Yy]es|YES|[Tt]rue|TRUE|[Oo]n|ON)\Z")
_Y11_FALSE = LazyPattern(r"(?:N|n|[Nn]o|NO|[Ff]alse|FALSE|[Oo]ff|OFF)\Z")
_Y11_INT_BIN = LazyPattern(r"[-+]?0b[0-1_]+\Z")
_Y11_INT_OCT = LazyPattern(r"[-+]?0[0-7_]+\Z")
_Y11_INT_DEC = LazyPattern(r"[-+]?[0-9][0-9_]*\Z")
_Y11_INT_HEX = LazyPattern(r"[-+]?0x[0-9a-fA-F_]+\Z")
_Y11_INT_SEX = LazyPattern(r"[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\Z")
_Y11_FLOAT_EXP = LazyPattern(r"[-+]?(?:[0-9][0-9_]*)?(?:\.[0-9_]*)?[eE][-+]?[0-9]+\Z")
_Y11_FLOAT = LazyPattern(r"[-+]?(?:[0-9][0-9_]*)?\.[0-9_]*\Z")
_Y11_FLOAT_SEX = LazyPattern(r"[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*\Z")
_TIMESTAMP_RE = LazyPattern(
    r"([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})"
    r"(?:(?:t|T|[ \t]+)([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2})(\.[0-9]+)?"
    r"(?:[ \t]*(Z|[-+][012]?[0-9](?::[0-9]{2})?))?)?\Z"
)


def _sexagesimal(text: str) -> float:
    sign = -1 if text.startswith("-") else 1
    total = 0.0
    for part in text.lstrip("+-").replace("_", "").split(":"):
        total = total * 60 + float(part)
    return sign * total


def y11_plain(value: str) -> Any:
    if value in _NULLS:
        return None
    if _Y11_TRUE.match(value):
        return True
    if _Y11_FALSE.match(value):
        return False
    sign = -1 if value.startswith("-") else 1
    digits = value.lstrip("+-").replace("_", "")
    try:
        if _Y11_INT_BIN.match(value):
            return _js_int(sign * int(digits[2:], 2))
        if _Y11_INT_HEX.match(value):
            return _js_int(sign * int(digits[2:], 16))
        if _Y11_INT_OCT.match(value):
            return _js_int(sign * int(digits, 8))
        if _Y11_INT_DEC.match(value):
            return _js_int(sign * int(digits))
        if _Y11_INT_SEX.match(value):
            return _js_int(int(_sexagesimal(value)))
        if value in _INFS:
            return _INFS[value]
        if _Y11_FLOAT_EXP.match(value) or _Y11_FLOAT.match(value):
            return float(value.replace("_", "")) if digits not in (".", "") else value
        if _Y11_FLOAT_SEX.match(value):
            return _sexagesimal(value)
    except ValueError:
        return value
    stamp = _timestamp(value)
    return value if stamp is None else stamp


def _timestamp(value: str) -> datetime.datetime | None:
    match = _TIMESTAMP_RE.match(value)
    if not match:
        return None
    year, month, day, hour, minute, second, fraction, zone = match.groups()
    try:
        stamp = datetime.datetime(
            int(year),
            int(month),
            int(day),
            int(hour or 0),
            int(minute or 0),
            int(second or 0),
            int(round(float(fraction or 0) * 1000)) * 1000,
            tzinfo=datetime.timezone.utc,
        )
    except ValueError:
        return None
    if zone and zone != "Z":
        hours, _, minutes = zone[1:].partition(":")
        offset = datetime.timedelta(hours=int(hours), minutes=int(minutes or 0))
        stamp = stamp - offset if zone[0] == "+" else stamp + offset
    return stamp


# --- explicit tags ---------------------------------------------------------------------------------------------

UNRESOLVED = object()


def tagged_scalar(tag: str, value: str) -> Any:
    """A scalar with an explicit tag; UNRESOLVED when the tag does not apply (the text stays a string)."""
    if tag == STR:
        return value
    if tag == INT:
        number = _core_int(value)
        return UNRESOLVED if number is None else number
    if tag == FLOAT:
        number = _core_float(value)
        return UNRESOLVED if number is None else number
    if tag == BOOL:
        return True if value in _TRUES else False if value in _FALSES else UNRESOLVED
    if tag == NULL:
        return None if value in _NULLS else UNRESOLVED
    if tag == BINARY:
        return _node_base64(value)
    if tag == TIMESTAMP:
        stamp = _timestamp(value)
        if stamp is None:
            raise ValueError("a !!timestamp value must be a date, starting with yyyy-mm-dd")
        return stamp
    return UNRESOLVED


_BASE64_KEEP = LazyPattern(r"[^A-Za-z0-9+/\-_]")


def _node_base64(text: str) -> bytes:
    """Base64 decoded as Node's Buffer.from(text, "base64"): other characters skipped, stops at "=", a lone
    trailing character ignored."""
    clean = _BASE64_KEEP.sub("", text.split("=", 1)[0]).replace("-", "+").replace("_", "/")
    clean = clean[: len(clean) - (len(clean) % 4 == 1)]

    return base64.b64decode(clean + "=" * (-len(clean) % 4))


# --- JavaScript String() of a value, for mapping keys -----------------------------------------------------------


def js_string(value: Any) -> str:
    """String(value) as the reference makes a mapping key of it."""
    if value is None:
        return ""
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, (int, float)):
        return js_number(value)
    if isinstance(value, str):
        return value
    return _flow_text(value)


def _flow_text(value: Any) -> str:
    # How the reference names a collection used as a key: its flow-style YAML text.
    if isinstance(value, dict):
        if not value:
            return "{}"
        return "{ " + ", ".join(f"{_flow_text(k)}: {_flow_text(v)}" for k, v in value.items()) + " }"
    if isinstance(value, list):
        if not value:
            return "[]"
        return "[ " + ", ".join(_flow_text(v) for v in value) + " ]"
    if value is None:
        return "null"
    if isinstance(value, bytes):
        return base64.b64encode(value).decode()
    if isinstance(value, datetime.datetime):
        return value.strftime("%Y-%m-%dT%H:%M:%S.") + f"{value.microsecond // 1000:03d}Z"
    return js_string(value)


def is_array_index(key: str) -> bool:
    return key.isdigit() and key.isascii() and (key == "0" or key[0] != "0") and int(key) < 4294967295
