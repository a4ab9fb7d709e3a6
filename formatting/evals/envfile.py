"""`.env` files as the `agentv` command reads them: npm dotenv 16 (16.6.1 in AgentV 4.42.4's CLI).

Why not python-dotenv: its grammar is not dotenv's. It expands `${VAR}` (so `LEAK=${MY_SECRET}` showed the secret's
value where AgentV sends the literal text), it unescapes single-quoted values, it rejects `KEY: value` and prints its
own message for a line it cannot read. A `${{ VAR }}` that turnlens resolves must hold exactly what `agentv eval`
would put in the process environment, nothing more, so this module reads the file the way dotenv does:

- `KEY=value`, `export KEY=value` and `KEY: value` (a colon needs white space after it); a key is ASCII letters,
  digits, `_`, `.` and `-`;
- a value is trimmed (JavaScript's white space, a BOM and U+2028 included); an unquoted `#` starts a comment;
- a value quoted with `'`, `"` or a backtick keeps its inner white space and may span lines; the surrounding quotes
  are removed and nothing else is unescaped, except `\\n` and `\\r` in a value that starts with `"`;
- no `${VAR}` expansion, ever; the last duplicate key of a file wins;
- a line dotenv does not match is ignored (here it is also reported, by line number, never by content).

The behaviour was established by running dotenv 16.6.1 on generated files and on its documented examples (the
recordings are tests/fixtures/dotenv/); it includes dotenv's corner cases, e.g. a key's value may start on the next
line when it is quoted (`KEY=` then `'value'`), and U+2028/U+2029 also start a line.

Which files: `envfiles_for` lists the `.env` files the command loads for an eval file (its folder and each parent up
to the repository root, then the root and the working directory), nearest first. dotenv never overrides a variable
that is already set, so the nearest file wins, and a variable exported before the command ran wins over all files.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from turnlens.formatting.evals.files import FileReadError, read_text_file
from turnlens.formatting.evals.paths import dirs_up
from turnlens.formatting.jsstr import JS_WHITESPACE, js_trim

_WS = frozenset(JS_WHITESPACE)
# Where JavaScript's multiline `^`/`$` see a line break (\r is gone by then: dotenv turns \r\n and \r into \n).
_BREAKS = frozenset("\n\u2028\u2029")
_KEY_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")
_QUOTES = frozenset("'\"`")


@dataclass(frozen=True)
class EnvFileProblem:
    """Something a `.env` file holds that the `agentv` command silently ignores (or a file it could not read)."""

    path: str
    line: int | None
    message: str


def parse_env(text: str, problems: list[int] | None = None) -> dict[str, str]:
    """The variables dotenv 16 reads from `text`, in file order (a later duplicate replaces the value).

    `problems` receives the (1-based) number of every line that holds something other than white space or a
    comment and that dotenv ignores."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    out: dict[str, str] = {}
    n = len(text)
    pos = 0
    while pos < n:
        match = _match_at(text, pos)
        if match is None:
            if problems is not None:
                first = _skip_ws_on_line(text, pos)
                if first < n and text[first] not in _BREAKS and text[first] != "#":
                    problems.append(text.count("\n", 0, pos) + 1)
            pos = _next_line_start(text, pos)
            continue
        key, value, end = match
        if key != "__proto__":  # an assignment JavaScript ignores on a plain object
            out.pop(key, None)
            out[key] = value
        # the next try is at the first line start from the match's end (a line's end, or an empty line's start)
        pos = end if end < n and (end == 0 or text[end - 1] in _BREAKS) else _next_line_start(text, end)
    return out


def _skip_ws_on_line(text: str, pos: int) -> int:
    n = len(text)
    while pos < n and text[pos] in _WS and text[pos] not in _BREAKS:
        pos += 1
    return pos


def _next_line_start(text: str, pos: int) -> int:
    n = len(text)
    while pos < n and text[pos] not in _BREAKS:
        pos += 1
    return pos + 1 if pos < n else n


def _skip_ws(text: str, pos: int) -> int:
    n = len(text)
    while pos < n and text[pos] in _WS:
        pos += 1
    return pos


def _line_end(text: str, pos: int) -> int:
    n = len(text)
    while pos < n and text[pos] not in _BREAKS:
        pos += 1
    return pos


def _at_line_end(text: str, pos: int) -> bool:
    return pos >= len(text) or text[pos] in _BREAKS


def _match_at(text: str, pos: int) -> tuple[str, str, int] | None:
    """A `KEY=value` read from the line starting at `pos` (blank lines before it skipped): (key, value, end)."""
    start = _skip_ws(text, pos)
    if text.startswith("export", start):
        after = start + 6
        if after < len(text) and text[after] in _WS:
            found = _key_value(text, _skip_ws(text, after))
            if found is not None:
                return found
    return _key_value(text, start)


def _key_value(text: str, start: int) -> tuple[str, str, int] | None:
    n = len(text)
    i = start
    while i < n and text[i] in _KEY_CHARS:
        i += 1
    if i == start:
        return None
    key = text[start:i]
    if i < n and text[i] == ":":  # `KEY: value`: one white-space character (any, a line break too) after the colon
        if i + 1 >= n or text[i + 1] not in _WS:
            return None
        value_start = i + 2
    else:
        j = _skip_ws(text, i)  # white space before `=` may even be a line break
        if j >= n or text[j] != "=":
            return None
        value_start = j + 1
    raw, end = _raw_value(text, value_start)
    return key, _unquote(raw), end


def _raw_value(text: str, start: int) -> tuple[str, int]:
    """The value's text as written (before trimming and unquoting) and where the match ends."""
    quote_at = _skip_ws(text, start)  # a quoted value may start after line breaks
    if quote_at < len(text) and text[quote_at] in _QUOTES:
        for close in _closing_quotes(text, quote_at):
            end = _tail_end(text, close + 1)
            if end is not None:
                return text[start : close + 1], end
    i = start
    n = len(text)
    while i < n and text[i] != "#" and text[i] != "\n":
        i += 1
    end = _tail_end(text, i)
    assert end is not None  # '#', '\n' or the end of the text: a comment or the line's end follows
    return text[start:i], end


def _closing_quotes(text: str, open_at: int) -> list[int]:
    """Where a quoted value may close, in the order dotenv tries them: the first quote not escaped by a backslash,
    then each escaped one before it, the last first."""
    quote = text[open_at]
    n = len(text)
    escaped: list[int] = []
    i = open_at + 1
    while i < n:
        c = text[i]
        if c == "\\" and i + 1 < n and text[i + 1] == quote:
            escaped.append(i + 1)
            i += 2
        elif c == quote:
            return [i, *reversed(escaped)]
        else:
            i += 1
    return list(reversed(escaped))


def _tail_end(text: str, pos: int) -> int | None:
    """After a value: white space (line breaks too), an optional `# comment`, then a line's end. Where it ends, the
    longest first; None when something else follows on the line."""
    j = _skip_ws(text, pos)
    while j >= pos:
        if j < len(text) and text[j] == "#":
            return _line_end(text, j)
        if _at_line_end(text, j):
            return j
        j -= 1
    return None


def _unquote(raw: str) -> str:
    value = js_trim(raw)
    first = value[:1]
    if first in _QUOTES or "\u2028" in value or "\u2029" in value:
        value = _strip_quotes(value)
    if first == '"':
        value = value.replace("\\n", "\n").replace("\\r", "\r")
    return value


def _strip_quotes(value: str) -> str:
    """Each quote that starts a line and the last same quote that ends a line after it are removed (dotenv's
    multiline replace: in practice the value's own surrounding quotes; only U+2028/U+2029 make more lines)."""
    out: list[str] = []
    n = len(value)
    pos = 0
    copied = 0
    while pos < n:
        quote = value[pos]
        if quote in _QUOTES and (pos == 0 or value[pos - 1] in _BREAKS):
            close = n - 1
            while close > pos and not (value[close] == quote and _at_line_end(value, close + 1)):
                close -= 1
            if close > pos:
                out.append(value[copied:pos])
                out.append(value[pos + 1 : close])
                copied = close + 1
                pos = close + 1
                continue
        pos = _next_line_start(value, pos)
    out.append(value[copied:])
    return "".join(out)


def envfiles_for(eval_dir: str, repo_root: str, cwd: str) -> list[str]:
    """The `.env` paths the `agentv` command looks for, nearest first: the eval file's folder and each parent up to
    the repository root (or the filesystem root when the file is not under it), the root, the working directory."""
    out: list[str] = []
    for folder in [*dirs_up(eval_dir, repo_root), repo_root, cwd]:
        candidate = os.path.join(os.path.abspath(folder), ".env")
        if candidate not in out:
            out.append(candidate)
    return out


def load_env(
    eval_dir: str, repo_root: str, cwd: str, environ: Mapping[str, str] | None = None
) -> tuple[dict[str, str], list[str], list[EnvFileProblem]]:
    """The environment the `agentv` command gives a suite: every `.env` it loads (nearest first, a variable already
    set wins) under the variables exported (`environ`, else this process's).

    Returns (environment, the `.env` files that exist, nearest first, what was ignored in them). A `.env` that is a
    folder, a FIFO, a device, unreadable or over the size limit is left out with a problem (dotenv silently skips
    one it cannot read and hangs on a FIFO)."""
    merged: dict[str, str] = dict(os.environ if environ is None else environ)
    found: list[str] = []
    problems: list[EnvFileProblem] = []
    for candidate in envfiles_for(eval_dir, repo_root, cwd):
        if not os.path.exists(candidate):  # (a dangling symbolic link is not there for the command either)
            continue
        found.append(candidate)
        try:
            text = read_text_file(candidate, utf16_ok=True)
        except FileReadError as exc:
            problems.append(EnvFileProblem(candidate, None, f"not read ({exc.reason}); the agentv command skips it"))
            continue
        bad_lines: list[int] = []
        for key, value in parse_env(text, bad_lines).items():
            merged.setdefault(key, value)
        problems.extend(
            EnvFileProblem(candidate, line, "not a KEY=value line; the agentv command ignores it") for line in bad_lines
        )
    return merged, found, problems
