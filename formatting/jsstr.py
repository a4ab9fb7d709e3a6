"""JavaScript string semantics the reference relies on: String.prototype.trim() and JSON.stringify().

Python's str.strip() differs: it strips \\x1c-\\x1f and \\x85, which JavaScript keeps, and keeps U+FEFF (a BOM),
which JavaScript strips.
"""

from __future__ import annotations

import datetime
import math
from json.encoder import encode_basestring
from typing import Any

from turnlens.formatting.patterns import LazyPattern

JS_WHITESPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)


_EXACT_LIMIT = 2**53  # integers up to it (Number.MAX_SAFE_INTEGER + 1) print as they are


def js_number(value: float | int) -> str:
    """Number::toString as JavaScript gives it (shortest round-trip digits, JavaScript's layout)."""
    if isinstance(value, int):
        if -_EXACT_LIMIT <= value <= _EXACT_LIMIT:
            return str(value)
        value = float(value)
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "0"
    if value.is_integer() and abs(value) <= _EXACT_LIMIT:
        return str(int(value))
    sign = "-" if value < 0 else ""
    digits_repr = repr(abs(value))  # shortest round-trip digits, as JavaScript uses
    if "e" in digits_repr:
        mant, _, e = digits_repr.partition("e")
        exponent = int(e)
    else:
        mant, exponent = digits_repr, 0
    int_part, _, frac_part = mant.partition(".")
    all_digits = int_part + frac_part
    digits = all_digits.lstrip("0")
    point = len(int_part) + exponent - (len(all_digits) - len(digits))
    digits = digits.rstrip("0") or "0"
    k, n = len(digits), point
    if k <= n <= 21:
        return sign + digits + "0" * (n - k)
    if 0 < n <= 21:
        return sign + digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return sign + "0." + "0" * (-n) + digits
    exp = n - 1
    exp_str = f"e+{exp}" if exp >= 0 else f"e-{-exp}"
    return sign + digits[0] + ("." + digits[1:] if k > 1 else "") + exp_str


def js_trim(text: str) -> str:
    return text.strip(JS_WHITESPACE)


_WHITESPACE = frozenset(JS_WHITESPACE)


def _is_array_index(key: str) -> bool:
    return key.isdigit() and key.isascii() and (key == "0" or key[0] != "0") and int(key) < 4294967295


# A JSON text that may hold an integer-like key (an object key that is an array index, "0" to "4294967294"), or a
# digit written as an escape (which may be one).
_INDEX_KEY = LazyPattern(r'"(?:0|[1-9][0-9]{0,9})"\s*:|\\u003')
_QUOTE_DIGIT = LazyPattern(r'"[0-9]')


def may_need_key_order(text: str) -> bool:
    """Whether JSON `text` may hold an integer-like key, which js_key_order moves first (else it changes nothing).
    (Such a key starts with a quote and a digit: searched for first, ~5x faster on a big text than _INDEX_KEY.)"""
    if "\\u003" in text:
        return True
    return _QUOTE_DIGIT.search(text) is not None and _INDEX_KEY.search(text) is not None


def js_key_order(value: Any, text: str | None = None) -> Any:
    """Parsed JSON with each object's keys in the order a JavaScript object lists them: integer-like keys ("2",
    "10") first, ascending, then the others as written. `text`, the JSON it was parsed from, lets a text without
    such a key be answered at once (the usual case)."""
    if text is not None and not _INDEX_KEY.search(text):
        return value
    return _key_order(value)


def _key_order(value: Any) -> Any:
    if isinstance(value, list):
        return [_key_order(v) for v in value]
    if isinstance(value, dict):
        index_keys = sorted((k for k in value if _is_array_index(k)), key=int)
        ordered = {k: _key_order(value[k]) for k in index_keys}
        ordered.update((k, _key_order(v)) for k, v in value.items() if k not in ordered)
        return ordered
    return value


def js_string_of(value: Any) -> str:
    """JavaScript's String(value) for parsed JSON: null "null", an array its items joined by "," (null as ""), an
    object "[object Object]", a number as JavaScript writes it."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return ",".join("" if v is None else js_string_of(v) for v in value)
    if isinstance(value, dict):
        return "[object Object]"
    if isinstance(value, float) and (math.isinf(value) or math.isnan(value)):  # (JSON.stringify's null is not it)
        return "NaN" if math.isnan(value) else "Infinity" if value > 0 else "-Infinity"
    return js_json(value)


def js_blank(text: str) -> bool:
    """`text.trim() === ""`; text that starts or ends with anything but white space is answered without a scan or a
    copy. (A regex over the class of JavaScript white space took ~4 ms to compile, at every start.)"""
    if not text:
        return True
    if text[0] not in _WHITESPACE or text[-1] not in _WHITESPACE:
        return False
    return not text.strip(JS_WHITESPACE)


LONE_SURROGATE = LazyPattern("[\ud800-\udfff]")


def json_string(text: str) -> str:
    """A JSON string literal as JSON.stringify writes it: non-ASCII kept, lone surrogates escaped."""
    out = encode_basestring(text)  # what json.dumps(text, ensure_ascii=False) returns, without making an encoder
    if LONE_SURROGATE.search(out):
        out = LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", out)
    return out


def js_json(value: Any) -> str:
    """JSON.stringify(value) for YAML data (compact, keys in order, JavaScript number text, Buffer and Date)."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, (int, float)):
        if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
            return "null"
        return js_number(value)
    if isinstance(value, str):
        return json_string(value)
    if isinstance(value, dict):
        return "{" + ",".join(f"{json_string(str(k))}:{js_json(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(js_json(v) for v in value) + "]"
    if isinstance(value, (bytes, bytearray)):  # a Node Buffer (!!binary)
        return '{"type":"Buffer","data":[' + ",".join(str(b) for b in value) + "]}"
    if isinstance(value, datetime.datetime):  # a JavaScript Date (!!timestamp)
        if value.tzinfo is not None:
            value = value.astimezone(datetime.timezone.utc).replace(tzinfo=None)
        return f'"{value.strftime("%Y-%m-%dT%H:%M:%S")}.{value.microsecond // 1000:03d}Z"'
    if isinstance(value, (set, frozenset)):
        return "{}"
    return json_string(str(value))


def js_json_indent(value: Any, indent: str = "  ", _depth: int = 0) -> str:
    """JSON.stringify(value, null, 2): one member per line, `{}`/`[]` when empty. A `__proto__` key read from YAML
    sets the object's prototype in JavaScript instead of a property, so JSON.stringify leaves it out."""
    if isinstance(value, dict):
        if "__proto__" in value:
            value = {k: v for k, v in value.items() if k != "__proto__"}
        if not value:
            return "{}"
        inner = indent * (_depth + 1)
        members = ",\n".join(
            f"{inner}{json_string(str(k))}: {js_json_indent(v, indent, _depth + 1)}" for k, v in value.items()
        )
        return "{\n" + members + "\n" + indent * _depth + "}"
    if isinstance(value, (list, tuple)):
        if not value:
            return "[]"
        inner = indent * (_depth + 1)
        items = ",\n".join(f"{inner}{js_json_indent(v, indent, _depth + 1)}" for v in value)
        return "[\n" + items + "\n" + indent * _depth + "]"
    return js_json(value)
