"""A YAML text before and after libyaml reads it: characters libyaml refuses or takes as line breaks (which YAML
1.2 reads as text) stood in for and given back, surrogate escapes, directives the reference ignores, `:` that YAML
1.2 allows, and which texts take the careful (pure-Python composing) path."""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from typing import Any, NamedTuple

from turnlens.formatting.evals.yaml_binding import YamlLoader, YamlNode
from turnlens.formatting.evals.yaml_errors import YamlError, YamlWarning
from turnlens.formatting.patterns import LazyPattern

# --- characters libyaml refuses or reads as line breaks, which YAML 1.2 takes as ordinary text ----------------

# C0 (but tab, LF, CR), DEL, C1 (NEL included), U+2028/U+2029, lone surrogates, U+FFFE/U+FFFF.
ODD_CHARS = LazyPattern("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufffe\uffff]")
_ASCII_ORDINARY = bytes(range(0x20, 0x7F)) + b"\t\n\r"


def has_odd_chars(text: str) -> bool:
    if text.isascii():  # the usual case: one bytes.translate, ten times faster than the regex over every character
        return bool(text.encode("ascii").translate(None, _ASCII_ORDINARY))
    return ODD_CHARS.search(text) is not None


# A CR not followed by LF is not a line break for the reference (the line goes on): here too, an ordinary character.
LONE_CR = LazyPattern("\r(?!\n)")
_STAND_IN_BASE = 0xF0000  # Supplementary Private Use Area-A: printable for libyaml
STAND_INS = LazyPattern("[\U000f0000-\U000fffff]")


def stand_in(match: re.Match[str]) -> str:
    return chr(_STAND_IN_BASE + ord(match.group()))


def restore_stand_ins(text: str) -> str:
    restored: str = STAND_INS.sub(lambda m: chr(ord(m.group()) - _STAND_IN_BASE), text)
    return restored


# `"\ud83d\ude00"`: JSON-style surrogate escapes in double quotes. JavaScript strings are UTF-16, so the reference
# reads a pair as the one character (and keeps a lone one); libyaml refuses them. Before parsing, each such escape
# becomes the `\U0010xxxx` escape of a private-use character that encodes it (value and letter case), which stays
# text where it is not in double quotes; afterwards both forms are turned back, and pairs joined. (Only the columns
# of that line shift, by 4 per escape.)
SURROGATE_ESCAPE = LazyPattern(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_SURROGATE_STAND_IN_ESCAPE = LazyPattern(r"\\U0010[0-7][0-9A-F]{3}")
_SURROGATE_STAND_INS = LazyPattern("[\U00100000-\U00107fff]")
SURROGATE_CLASH = LazyPattern("[\U00100000-\U00107fff]|\\\\[uU]0010[0-7]")


def surrogate_stand_in(match: re.Match[str]) -> str:
    digits = match.group()[2:]
    lower_case = sum(1 << i for i, char in enumerate(digits) if char.islower())
    return f"\\U{0x100000 + (lower_case << 11) + int(digits, 16) - 0xD800:08X}"


def _surrogate_written(match: re.Match[str]) -> str:
    code = int(match.group()[2:], 16) - 0x100000
    digits = f"{0xD800 + (code & 0x7FF):04X}"
    return "\\u" + "".join(char.lower() if code >> (11 + i) & 1 else char for i, char in enumerate(digits))


def give_back_surrogates(value: str) -> str:
    # Where the escape was not in double quotes it is still text: the escape as written.
    value = _SURROGATE_STAND_IN_ESCAPE.sub(_surrogate_written, value)
    if _SURROGATE_STAND_INS.search(value) is None:
        return value
    value = _SURROGATE_STAND_INS.sub(lambda m: chr(0xD800 + ((ord(m.group()) - 0x100000) & 0x7FF)), value)
    # Join each high + low pair into its character; a lone half stays, as in a JavaScript string.
    return value.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


# --- what sends a text to the careful (slower, pure-Python composing) path -------------------------------------

# Possible deep nesting: libyaml's composer recurses in C and would overflow the stack (a crash, not an error).
# Block nesting needs one more column of indentation, or one more compact indicator (`- `, `? `, `: `) on a line,
# per one or two levels; flow nesting needs one bracket per level. Spelled so the regex engine can skip ahead fast.
_DEEP_INDENT = "\n" + " " * 160
_COMPACT_CHAIN = LazyPattern(r"[-?:] +[-?:] +[-?:] +[-?:] +(?:[-?:] +){36}")
# Such a chain is a run of 80 or more characters from "-?: ": on ASCII text, two C-level passes rule it out before
# the regex (which tries every indicator in the text) has to run.
_CHAIN_CHARS = bytes(1 if c in b"-?: " else 0 for c in range(256))
_CHAIN_RUN = b"\x01" * 80


def _has_compact_chain(text: str) -> bool:
    if text.isascii() and text.encode("ascii").translate(_CHAIN_CHARS).find(_CHAIN_RUN) == -1:
        return False
    return _COMPACT_CHAIN.search(text) is not None


# A bare `!` tag (non-specific): libyaml types `! 12` as if untagged; YAML (and the reference) make it a string.
_BARE_TAG = LazyPattern(r"!(?=[\s\]},]|\Z)")
# An alias token `*name`: only then are aliases counted.
_ALIAS = LazyPattern(r"\*[^\s,\[\]{}*]")
_TOKEN_BEFORE = frozenset(" \t\r\n[{,")


def has_alias(text: str) -> bool:
    """Whether the text uses an alias (`*name`, which a merge key `<<` needs too): one parsed value can then stand
    in several places of the data."""
    return "*" in text and _has_token(_ALIAS, text)


def _has_token(pattern: LazyPattern, text: str) -> bool:
    """Whether `pattern` matches where a YAML token can start (line start, after a space, `[`, `{` or `,`)."""
    for match in pattern.finditer(text):
        start = match.start()
        if start == 0 or text[start - 1] in _TOKEN_BEFORE:
            return True
    return False


def needs_careful_path(text: str, flow_openers: int) -> bool:
    if flow_openers > _MAX_THREAD_FLOW:
        return True
    if _DEEP_INDENT in text or text.startswith(" " * 160) or _has_compact_chain(text):
        return True
    if text.startswith("%") or ("%" in text and "\n%" in text):  # directives: %YAML 1.1 changes the typing
        return True
    return "!" in text and _has_token(_BARE_TAG, text)


# Flow nesting is at most the number of `[` and `{`. Up to SAFE_FLOW, libyaml's composer runs on the calling
# thread's stack; up to _MAX_THREAD_FLOW, on a thread whose stack is sized for that depth (a few hundred bytes of C
# stack per level); past that, the iterative composer here.
SAFE_FLOW = 400
_MAX_THREAD_FLOW = 20_000
# A `{{ name }}` / `${{ NAME }}` template reference opens two flow levels and closes them itself: it adds at most two
# to the nesting wherever it stands, so its openers need not count (AgentV 4 suites are full of them).
TEMPLATE_REF = LazyPattern(r"\{\{\s*[A-Za-z_][A-Za-z0-9_.]*\s*\}\}")
_STACK_PER_LEVEL = 1024
_MIN_THREAD_STACK = 16 * 1024 * 1024


def compose_with_big_stack(loader: YamlLoader, flow_openers: int) -> YamlNode | None:
    """loader.get_single_node() on a thread with a stack deep enough for `flow_openers` levels of nesting."""
    outcome: list[Any] = [None, None]  # the node, or the exception

    def run() -> None:
        try:
            outcome[0] = loader.get_single_node()
        except BaseException as exc:  # re-raised on the calling thread
            outcome[1] = exc

    with _STACK_SIZE_LOCK:
        previous = threading.stack_size(_MIN_THREAD_STACK + flow_openers * _STACK_PER_LEVEL)
        try:
            worker = threading.Thread(target=run, name="yaml12-compose", daemon=True)
            worker.start()
        finally:
            threading.stack_size(previous)
    worker.join()
    if outcome[1] is not None:
        raise outcome[1]
    return outcome[0]


_STACK_SIZE_LOCK = threading.Lock()


def colon_patch(text: str, exc: Any) -> tuple[str, Any] | None:
    """Where libyaml stopped at a ':' that YAML 1.2 accepts: the text with `~` written before a ':' that starts a
    mapping entry with no key, or with a flow value starting with ':' quoted; else None. (Only the columns of the
    rest of that line shift.)"""
    mark = getattr(exc, "problem_mark", None)
    if mark is None or getattr(exc, "problem", None) not in (
        "did not find expected key",
        "did not find expected node content",
    ):
        return None
    lines = text.split("\n")
    line = lines[mark.line] if mark.line < len(lines) else ""
    if line[mark.column : mark.column + 1] != ":":
        return None
    if line[mark.column + 1 : mark.column + 2] not in ("", " ", "\t", "\r", ",", "]", "}"):
        if getattr(exc, "problem", None) != "did not find expected node content":
            return None
        # `{type: :text}`: YAML 1.2 lets a plain value in a flow start with ':', libyaml does not. Such a value can
        # only be a string, so quoting it keeps its meaning.
        end = mark.column
        while (
            end < len(line)
            and line[end] not in ",[]{}"
            and line[end : end + 2] not in (": ", " #")
            and line[end:] not in (":", ":\r")
        ):
            end += 1
        value = line[mark.column : end].rstrip(" \t\r")
        quoted = "'" + value.replace("'", "''") + "'"
        lines[mark.line] = line[: mark.column] + quoted + line[mark.column + len(value) :]
        return "\n".join(lines), mark
    before = line[: mark.column].rstrip(" \t")
    if before and before[-1] not in "[{,-?" and before.strip(" -"):
        return None
    lines[mark.line] = line[: mark.column] + "~" + line[mark.column :]
    return "\n".join(lines), mark


def drop_unknown_directives(text: str) -> tuple[str, list[YamlWarning]]:
    """Comment out directives other than %YAML and %TAG before the first document, and all but the last %YAML: the
    reference ignores them (with a warning), libyaml refuses them. Line numbers are kept."""
    lines = text.split("\n")
    warnings = []
    version_lines = []
    changed = False
    for number, line in enumerate(lines):
        if line.startswith("%"):
            name = line.split()[0]
            if name == "%YAML":
                version_lines.append(number)
            elif name != "%TAG":
                warnings.append(YamlWarning(number + 1, 1, f"unknown directive {name} is ignored"))
                lines[number] = "#" + line[1:]
                changed = True
        elif line.strip() and not line.startswith("#"):
            break
    for number in version_lines[:-1]:  # the reference takes the last %YAML directive; libyaml refuses a second
        warnings.append(YamlWarning(number + 1, 1, "a later %YAML directive overrides this one"))
        lines[number] = "#" + lines[number][1:]
        changed = True
    return ("\n".join(lines) if changed else text), warnings


def first_invalid_utf8(raw: bytes) -> tuple[int, int, int] | None:
    """(line, column, byte offset) of the first byte that is not valid UTF-8, or None: for a warning."""
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        good = raw[: exc.start]
        line_start = good.rfind(b"\n") + 1
        return good.count(b"\n") + 1, len(good[line_start:].decode("utf-8", errors="replace")) + 1, exc.start
    return None


class Prepared(NamedTuple):
    """A text as libyaml can read it, and what to undo after: `restore` gives back what was stood in for in a
    value (None: nothing was); `lone_cr`: the file ends lines with a bare CR; `warnings`: about directives."""

    text: str
    restore: Callable[[str], str] | None
    lone_cr: bool
    warnings: list[YamlWarning]


def prepare(text: str) -> Prepared:
    """A BOM dropped; characters libyaml refuses or reads as line breaks, and surrogate escapes, stood in for;
    directives the reference ignores commented out. Raises YamlError for a text whose stand-ins would clash."""
    if text.startswith("\ufeff"):
        text = text[1:]
    odd = has_odd_chars(text)
    lone_cr = "\r" in text and LONE_CR.search(text) is not None
    restore = odd or lone_cr
    if restore:
        if STAND_INS.search(text):
            raise YamlError(
                "the file mixes control characters with private-use characters U+F0000-U+FFFFF, "
                "which this reader cannot tell apart"
            )
        if odd:
            text = ODD_CHARS.sub(stand_in, text)
        if lone_cr:
            text = LONE_CR.sub(stand_in, text)
    restore_text: Callable[[str], str] | None = restore_stand_ins if restore else None
    # (a one-character test first: memchr, ~50x faster over a big text than looking for the pair)
    if "\\" in text and "\\u" in text and SURROGATE_ESCAPE.search(text):
        if SURROGATE_CLASH.search(text):
            raise YamlError(
                "the file mixes surrogate escapes (\\ud800-\\udfff) with private-use characters "
                "U+100000-U+107FFF, which this reader cannot tell apart"
            )
        text = SURROGATE_ESCAPE.sub(surrogate_stand_in, text)
        restore_text = (
            give_back_surrogates
            if restore_text is None
            else (lambda value: give_back_surrogates(restore_stand_ins(value)))
        )
    directive_warnings: list[YamlWarning] = []
    if text.startswith("%") or ("%" in text and "\n%" in text):
        text, directive_warnings = drop_unknown_directives(text)
    return Prepared(text, restore_text, lone_cr, directive_warnings)
