"""Why JavaScript's JSON.parse refuses a text, in its own words (Node.js 20, V8 11).

AgentV names a bad JSONL line with the message of JSON.parse ("Unexpected token 'o', "not json" is not valid
JSON"); Python's parsers word it differently. This scanner is run only on a text a Python parser has refused, and
finds the first error the way V8 reports it: the specific messages ("Expected ',' or ']' after array element in
JSON at position N"), the token kinds (end of input, a number, a string) and, for any other character, the
character with the text around it (the whole text up to 20 characters, else 10 characters either side).
Positions count UTF-16 code units, as JavaScript strings do. tests/fixtures/jsjson/ records Node.js's messages.
"""

from __future__ import annotations

import json
from typing import Any

import orjson

__all__ = ["DEEP_CUT", "DEEP_MARKER", "cut_deep_value", "deeper_than", "js_json_error", "js_loads", "js_loads_bounded"]

_WS = " \t\n\r"
_SPECIAL = ("undefined", "NaN", "Infinity", "[object Object]")
_CONTEXT = 10  # characters either side of the unexpected one
_SHORT = 2 * _CONTEXT  # a text this long or shorter is quoted whole


class _Refused(Exception):
    def __init__(self, pos: int, message: str | None = None):
        self.pos, self.message = pos, message


class _Scanner:
    def __init__(self, text: str, cut_depth: int = -1):
        self.s = text
        self.i = 0
        self.cut_depth = cut_depth  # (see value)
        self.cut: list[tuple[int, int]] = []

    def peek(self) -> str:
        return self.s[self.i] if self.i < len(self.s) else ""

    def skip_ws(self) -> None:
        s, i = self.s, self.i
        while i < len(s) and s[i] in _WS:
            i += 1
        self.i = i

    def value(self) -> None:
        """One JSON value from here, checked as V8 checks it; iterative (an explicit stack, not recursion), so that
        any depth JSON.parse reads is read: V8's JSON.parse is not recursive either. Containers opened at depth
        `cut_depth` + 1 are noted in `cut` as (start, end) spans."""
        stack: list[tuple[bool, int]] = []  # the containers open around here: (is an object, start if noted, else -1)
        cut_depth, cut = self.cut_depth, self.cut
        while True:
            self.skip_ws()
            c = self.peek()
            start = self.i
            if c == "{":
                self.i += 1
                self.skip_ws()
                if self.peek() != "}":
                    if self.peek() != '"':
                        raise _Refused(self.i, "Expected property name or '}' in JSON")
                    self.string()
                    self.expect(":", "Expected ':' after property name in JSON")
                    stack.append((True, start if len(stack) == cut_depth else -1))
                    continue  # its first property's value
                self.i += 1
                if len(stack) == cut_depth:
                    cut.append((start, self.i))
            elif c == "[":
                self.i += 1
                self.skip_ws()
                if self.peek() != "]":
                    stack.append((False, start if len(stack) == cut_depth else -1))
                    continue  # its first element
                self.i += 1
                if len(stack) == cut_depth:
                    cut.append((start, self.i))
            elif c == '"':
                self.string()
            elif c == "-" or c.isascii() and c.isdigit():
                self.number()
            elif c in ("t", "f", "n") and c:
                self.literal({"t": "true", "f": "false", "n": "null"}[c])
            else:
                raise _Refused(self.i)
            # a value is complete: close the containers it completes, up to one that goes on
            while stack:
                is_object, opened = stack[-1]
                self.skip_ws()
                c = self.peek()
                if c == ("}" if is_object else "]"):
                    self.i += 1
                    stack.pop()
                    if opened >= 0:
                        cut.append((opened, self.i))
                    continue
                if is_object:
                    if c != ",":
                        raise _Refused(self.i, "Expected ',' or '}' after property value in JSON")
                    self.i += 1
                    self.skip_ws()
                    if self.peek() != '"':
                        raise _Refused(self.i, "Expected double-quoted property name in JSON")
                    self.string()
                    # V8 words a missing ':' only for an object's first property; later ones get the plain message
                    self.expect(":", None)
                else:
                    if c != ",":
                        raise _Refused(self.i, "Expected ',' or ']' after array element in JSON")
                    self.i += 1
                break
            else:
                return

    def literal(self, word: str) -> None:
        for ch in word:
            if self.peek() != ch:
                raise _Refused(self.i)
            self.i += 1

    def string(self) -> None:
        s = self.s
        self.i += 1
        while True:
            if self.i >= len(s):
                raise _Refused(self.i, "Unterminated string in JSON")
            c = s[self.i]
            if c == '"':
                self.i += 1
                return
            if c < " ":
                raise _Refused(self.i, "Bad control character in string literal in JSON")
            if c == "\\":
                self.i += 1
                e = self.peek()
                if e == "u":
                    for _ in range(4):
                        self.i += 1
                        h = self.peek()
                        if not h or h not in "0123456789abcdefABCDEF":
                            raise _Refused(self.i, "Bad Unicode escape in JSON")
                elif not e or ord(e) >= 0x10000:  # (V8 reads a surrogate there as an unexpected token)
                    raise _Refused(self.i)
                elif e not in '"\\/bfnrt':
                    raise _Refused(self.i, "Bad escaped character in JSON")
            self.i += 1

    def digits(self) -> bool:
        start = self.i
        while self.peek().isascii() and self.peek().isdigit() and self.peek():
            self.i += 1
        return self.i > start

    def number(self) -> None:
        if self.peek() == "-":
            self.i += 1
            if not (self.peek().isascii() and self.peek().isdigit() and self.peek()):
                raise _Refused(self.i, "No number after minus sign in JSON")
        if self.peek() == "0":
            self.i += 1
            if self.peek().isascii() and self.peek().isdigit() and self.peek():
                raise _Refused(self.i)
        else:
            self.digits()
        if self.peek() == ".":
            self.i += 1
            if not self.digits():
                raise _Refused(self.i, "Unterminated fractional number in JSON")
        if self.peek() in ("e", "E") and self.peek():
            self.i += 1
            if self.peek() in ("+", "-") and self.peek():
                self.i += 1
            if not self.digits():
                raise _Refused(self.i, "Exponent part is missing a number in JSON")

    def expect(self, ch: str, message: str | None) -> None:
        self.skip_ws()
        if self.peek() != ch:
            raise _Refused(self.i, message)
        self.i += 1


def _units(text: str) -> str:
    """`text` as UTF-16 code units, one character each (a surrogate pair for a character past U+FFFF)."""
    if all(ord(c) < 0x10000 for c in text):
        return text
    return "".join(
        c if ord(c) < 0x10000 else chr(0xD800 + ((ord(c) - 0x10000) >> 10)) + chr(0xDC00 + ((ord(c) - 0x10000) & 0x3FF))
        for c in text
    )


def _text(units: str) -> str:
    """Code units back to a Python string (a pair cut in half stays a lone surrogate, as Node.js prints it)."""
    return (
        units.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
        if not units.isascii()
        else units
    )


def js_json_error(text: str) -> str:
    """JSON.parse's message for `text`; "" if JavaScript would accept it."""
    return _checked(_Scanner(text))


def _checked(scanner: _Scanner) -> str:
    text = scanner.s
    try:
        scanner.value()
        scanner.skip_ws()
        if scanner.i < len(text):
            raise _Refused(scanner.i, "Unexpected non-whitespace character after JSON")
        return ""
    except _Refused as exc:
        pos, message = exc.pos, exc.message
    units = _units(text)
    upos = len(_units(text[:pos]))
    if message is not None:
        return f"{message} at position {upos}"
    c = text[pos] if pos < len(text) else ""
    if not c:
        return "Unexpected end of JSON input"
    if c == "-" or c.isascii() and c.isdigit():
        return f"Unexpected number in JSON at position {upos}"
    if c == '"':
        return f"Unexpected string in JSON at position {upos}"
    if text in _SPECIAL:
        return f'"{text}" is not valid JSON'
    token = _text(units[upos])
    if len(units) <= _SHORT:
        return f"Unexpected token '{token}', \"{_text(units)}\" is not valid JSON"
    if upos < _CONTEXT:
        return f"Unexpected token '{token}', \"{_text(units[: upos + _CONTEXT])}\"... is not valid JSON"
    if upos < len(units) - _CONTEXT:
        return (
            f"Unexpected token '{token}', ...\"{_text(units[upos - _CONTEXT : upos + _CONTEXT])}\"... is not valid JSON"
        )
    return f"Unexpected token '{token}', ...\"{_text(units[upos - _CONTEXT :])}\" is not valid JSON"


# A text nested deeper than orjson reads (1,024 levels; JSON.parse reads any depth) is read with what lies deeper
# than DEEP_CUT levels replaced by DEEP_MARKER: every part of the app that walks a value (orjson's writer stops at
# 255 levels, pickle and repr at the interpreter's recursion limit) copes with it, and what AgentV judges a result
# by (its score, status, test id) sits at the top.
DEEP_CUT = 200
DEEP_MARKER = f"[nested more than {DEEP_CUT} levels deep: not shown]"


def js_loads(raw: str | bytes | memoryview) -> Any:
    """A JSON text as JavaScript's JSON.parse reads it: orjson, and when orjson refuses, what JSON.parse still
    accepts (a number out of double range, 1e400, is Infinity; a lone surrogate escape "\\ud800" is kept) through
    Python's json, and any depth (cut at DEEP_CUT levels, see DEEP_MARKER). Raises orjson.JSONDecodeError when
    JSON.parse would refuse it too; UnicodeDecodeError for bytes that are not UTF-8; MemoryError for a text too big
    for the memory this process may use."""
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as error:
        if str(error).startswith("Not enough memory"):  # (orjson's words when it cannot allocate: not a JSON error)
            raise MemoryError(str(error)) from None
        text = raw if isinstance(raw, str) else bytes(raw).decode("utf-8")
        scanner = _Scanner(text, DEEP_CUT)
        if _checked(scanner):
            raise
        if scanner.cut:
            return js_loads(cut_deep(text, scanner.cut))

        return json.loads(text)


def cut_deep(text: str, spans: list[tuple[int, int]]) -> str:
    """`text` with each span (a value, in order) replaced by DEEP_MARKER as a JSON string."""
    marker = orjson.dumps(DEEP_MARKER).decode()
    parts: list[str] = []
    done = 0
    for start, end in spans:
        parts += (text[done:start], marker)
        done = end
    parts.append(text[done:])
    return "".join(parts)


def js_loads_bounded(raw: str | bytes | memoryview) -> Any:
    """js_loads, with what lies deeper than DEEP_CUT levels replaced by DEEP_MARKER whatever the depth: a value
    orjson reads (up to 1,024 levels) is cut as a deeper one is. For what is walked in full (a record shown or
    exported, a trace): orjson's writer stops at 255 levels, pickle and repr near 500 and 1,000. A text with fewer
    than DEEP_CUT brackets cannot be that deep: it is not walked (a C-speed count, not a Python loop)."""
    value = js_loads(raw)
    if isinstance(raw, str):
        brackets = raw.count("[") + raw.count("{")
    else:
        data = bytes(raw) if isinstance(raw, memoryview) else raw
        brackets = data.count(b"[") + data.count(b"{")
    if brackets <= DEEP_CUT:
        return value
    return cut_deep_value(value) if deeper_than(value, DEEP_CUT) else value


def deeper_than(value: Any, levels: int) -> bool:
    """Whether `value` holds a list or object nested more than `levels` levels deep (`value` itself is level 1);
    iterative, so any depth is looked at."""
    stack = [(value, 1)] if isinstance(value, (dict, list)) else []
    while stack:
        container, level = stack.pop()
        if level > levels:
            return True
        items = container.values() if isinstance(container, dict) else container
        stack.extend((item, level + 1) for item in items if isinstance(item, (dict, list)))
    return False


def cut_deep_value(value: Any) -> Any:
    """A copy of `value` whose lists and objects nested more than DEEP_CUT levels deep (`value` is level 1) are
    DEEP_MARKER, as js_loads cuts a text nested deeper than orjson reads; iterative."""
    if not isinstance(value, (dict, list)):
        return value
    top: dict[Any, Any] | list[Any] = {} if isinstance(value, dict) else []
    stack: list[tuple[dict[Any, Any] | list[Any], dict[Any, Any] | list[Any], int]] = [(value, top, 1)]
    while stack:
        source, copy, level = stack.pop()
        pairs = source.items() if isinstance(source, dict) else enumerate(source)
        for key, item in pairs:
            if isinstance(item, (dict, list)):
                if level >= DEEP_CUT:
                    item_copy: Any = DEEP_MARKER
                else:
                    item_copy = {} if isinstance(item, dict) else []
                    stack.append((item, item_copy, level + 1))
            else:
                item_copy = item
            if isinstance(copy, dict):
                copy[key] = item_copy
            else:
                copy.append(item_copy)
    return top
