"""AgentV 4 interpolation: `${{ VAR }}` from the environment and `{{ var }}` from a test's `vars`.

Both work on parsed data (every string value, recursively), as AgentV does after parsing:
- `${{ NAME }}` anywhere in a string becomes the variable's value ('' when unset). A string that is *only* one
  reference takes a type from the value: `true`/`false` a boolean, an integer or decimal a number — so
  `input: "${{ N }}"` with N=42 is the number 42, not text.
- `{{ name }}` / `{{ a.b }}` with the test's vars: a string that is only one reference takes the value as it is (a
  list of messages can become `input`); inside a longer string a non-string value is written as compact JSON. An
  unknown name is left as written. "Only one reference" means the whole string, as JavaScript's regex `$` does it
  (a trailing newline makes it inline), hence `fullmatch`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from turnlens.formatting.jsstr import js_json
from turnlens.formatting.patterns import LazyPattern

_ENV = LazyPattern(r"\$\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")
_NUMBER = LazyPattern(r"-?(?:0|[1-9]\d*)(?:\.\d+)?")
_VAR = LazyPattern(r"\{\{\s*([A-Za-z_][A-Za-z0-9_.]*)\s*\}\}")

_MISSING = object()


def _coerce(value: str) -> Any:
    if value == "true":
        return True
    if value == "false":
        return False
    if _NUMBER.fullmatch(value):
        number = float(value)
        return int(number) if number.is_integer() and abs(number) < 2**53 else number
    return value


def interpolate_env(data: Any, env: Mapping[str, str], notes: list[str] | None = None) -> Any:
    """`data` with every `${{ VAR }}` replaced; `notes` receives one line per distinct variable used."""
    used: dict[str, str | None] = {}

    def sub_string(text: str) -> Any:
        if "${{" not in text:
            return text
        whole = _ENV.fullmatch(text)
        if whole:
            name = whole.group(1)
            value = env.get(name)
            used.setdefault(name, value)
            return _coerce(value if value is not None else "")

        def one(match: re.Match[str]) -> str:
            name = match.group(1)
            value = env.get(name)
            used.setdefault(name, value)
            return value if value is not None else ""

        return _ENV.sub(one, text)

    def walk(value: Any) -> Any:
        if isinstance(value, str):
            return sub_string(value)
        if isinstance(value, list):
            return [walk(v) for v in value]
        if isinstance(value, dict):
            return {k: walk(v) for k, v in value.items()}
        return value

    out = walk(data)
    if notes is not None:
        for name, value in used.items():
            if value is None:
                notes.append(f"${{{{ {name} }}}} is not set: replaced by ''")
            else:
                shown = value if len(value) <= 60 else value[:57] + "…"
                notes.append(f"${{{{ {name} }}}} replaced by {shown!r}")
    return out


def _lookup(vars_: Mapping[str, Any], path: str) -> Any:
    value: Any = vars_
    for part in path.split("."):
        if not isinstance(value, dict) or part not in value:
            return _MISSING
        value = value[part]
    return value


def has_vars(data: Any) -> bool:
    """Whether any string of `data` holds `{{` (else interpolate_vars can change nothing in it)."""
    if isinstance(data, str):
        return "{{" in data
    if isinstance(data, list):
        return any(has_vars(v) for v in data)
    if isinstance(data, dict):
        return any(has_vars(v) for v in data.values())
    return False


def interpolate_vars(data: Any, vars_: Mapping[str, Any], notes: list[str] | None = None, where: str = "") -> Any:
    """`data` with `{{ var }}` references to `vars_` replaced (unknown names left as written)."""
    if not vars_:
        return data
    return _vars_walk(data, vars_, notes, where)


def _vars_walk(value: Any, vars_: Mapping[str, Any], notes: list[str] | None, where: str) -> Any:
    if isinstance(value, str):
        return _vars_in_string(value, vars_, notes, where) if "{{" in value else value
    if isinstance(value, list):
        return [_vars_walk(v, vars_, notes, where) for v in value]
    if isinstance(value, dict):
        return {k: _vars_walk(v, vars_, notes, where) for k, v in value.items()}
    return value


def _vars_in_string(text: str, vars_: Mapping[str, Any], notes: list[str] | None, where: str) -> Any:
    whole = _VAR.fullmatch(text)
    if whole:
        value = _lookup(vars_, whole.group(1))
        if value is _MISSING:
            return text
        if notes is not None:
            notes.append(f"{where}{{{{ {whole.group(1)} }}}} is the whole value: replaced by {js_json(value)[:80]}")
        return value

    replaced: set[str] = set()

    def one(match: re.Match[str]) -> str:
        name = match.group(1)
        value = _lookup(vars_, name)
        if value is _MISSING:
            return match.group(0)
        replaced.add(name)
        return value if isinstance(value, str) else js_json(value)

    out = _VAR.sub(one, text)
    if notes is not None and out != text:
        notes.append(f"{where}{', '.join('{{ ' + n + ' }}' for n in sorted(replaced))} replaced from vars")
    return out


def is_env_note(message: str) -> bool:
    """A note saying what `${{ VAR }}` replaced (an info diagnostic: shown by the inspector, not a warning)."""
    return message.startswith("${{ ") and ("}} replaced by " in message or "}} is not set" in message)
