"""YAML 1.2 (core schema) loading on PyYAML, giving the data the reference's JavaScript `yaml` parser gives.

PyYAML types plain scalars by YAML 1.1 (`yes` is a bool, `0755` octal, `2024-01-01` a date); the reference reads
eval files with YAML 1.2 core-schema semantics. So libyaml (the C parser where present) only builds the node tree;
this module types the scalars, records line numbers, and turns every refusal into one `YamlError`: one sentence,
with the line.

    doc = parse_yaml(text)      # -> YamlDoc; raises YamlError for anything the reference refuses
    doc.data                    # plain dict / list / str / int / float / bool / None
    doc.line(obj)               # line (1-based) of a dict or list
    doc.line(obj, key)          # line of key `key` of dict obj, or of item number `key` of list obj
    doc.warnings                # YamlWarning(line, column, message): what the reference only warns about

Behaviour of the reference, observed on the oracle (tests/fixtures/yaml12/ records each probe):
- plain scalars typed by the core schema only: `yes`/`on`/`y`, `1_000`, `0b101`, dates and timestamps are strings;
  `0755` is the decimal 755; `0o17`, `0x1F`, `+12`, `1e3`, `.5`, `1.`, `.inf`, `.nan` are numbers (JavaScript
  doubles: integers past 2**53 lose precision the same way);
- explicit tags: `!!str`, `!!int`, `!!float`, `!!bool`, `!!null` apply only when the text fits (`!!float 1` stays the
  string "1", with a warning); `!!binary` gives bytes, `!!timestamp` a UTC datetime; `!!set`/`!!omap`/`!!pairs`
  give JavaScript Set/Map objects, which behave like an empty mapping (JSON `{}`), so they become `{}`; unknown tags
  leave the string or the plain collection (with a warning); `! x` is a string;
- mapping keys become strings as JavaScript's String() makes them (`1.0` -> "1", `null` -> "", `.inf` ->
  "Infinity", `[1, 2]` -> "[ 1, 2 ]"), and integer-like keys come first in ascending order, as in a JavaScript object;
- duplicate keys refuse the file; keys are compared by value (`null`/`~`, `1`/`1.0`, `a`/`'a'` clash; `'1'`/`1`
  and `.nan`/`.nan` do not: the later value wins);
- no merge keys: `<<` is an ordinary key; anchors may be redefined (an alias takes the latest);
- more than one document (even an empty one after a trailing `---`) refuses the file;
- more than 100 alias expansions (counted as the reference counts them), or an alias inside its own anchor, refuse
  the file;
- control characters, NEL, U+2028/U+2029 are ordinary characters (YAML 1.2), not errors or line breaks; so is a CR
  not followed by LF (a CR-only file is one long line, and refused);
- the continuation lines of a multi-line flow collection or quoted value must be indented past the enclosing block
  collection (a closing bracket may stand at its column), else the file is refused;
- a `%YAML 1.1` directive switches the document to YAML 1.1 typing (`yes` a bool, `0755` octal, dates) and merge
  keys; other unknown directives are ignored with a warning.

When a text is refused, the refusal reported is the one the reference meets first while reading (a duplicate key, a
badly indented line, a syntax error), before what it finds in the data afterwards (an undefined alias, alias counts).

Known difference: a block mapping entry with no key text (`: value`) is refused here (libyaml), read as key "" there.
Line numbers of some malformed-structure refusals differ by a line or two (each side names a nearby line).
"""

from __future__ import annotations

import builtins
import datetime
import math
import re
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from turnlens.formatting import gcpause
from turnlens.formatting.evals.files import MAX_FILE_SIZE_ENV, format_size, max_file_size
from turnlens.formatting.evals.yaml_block import parse_block
from turnlens.formatting.jsstr import js_number
from turnlens.formatting.patterns import LazyPattern

__all__ = [
    "YamlError",
    "YamlWarning",
    "refusal_text",
    "YamlDoc",
    "parse_yaml",
    "parse_yaml_bytes",
    "first_invalid_utf8",
    "js_string",
    "MAX_DEPTH",
]

# Nesting deeper than this is refused. The reference overflows its call stack somewhere between 806 (flow) and
# 965 (block sequences) levels; a single limit just below both disagrees only on files 801-965 levels deep.
MAX_DEPTH = 800
MAX_ALIAS_COUNT = 100  # the reference's guard against alias bombs ("billion laughs")


class YamlError(Exception):
    """A YAML text the reference refuses. `message` is one human sentence; `line`/`column` are 1-based or None."""

    def __init__(self, message: str, line: int | None = None, column: int | None = None):
        self.message = message
        self.line = line
        self.column = column
        super().__init__(str(self))

    def __str__(self) -> str:
        if self.line is None:
            return self.message
        if self.column is None:
            return f"line {self.line}: {self.message}"
        return f"line {self.line}, column {self.column}: {self.message}"


# The headline the reference's `yaml` parser gives for the refusals where it and this reader agree on the cause
# (checked against both oracles' recordings); elsewhere the two parsers describe the same bad text differently.
_REFERENCE_HEADLINES: tuple[tuple[LazyPattern, str], ...] = (
    (LazyPattern(r"duplicate key "), "Map keys must be unique"),
    (
        LazyPattern(r"the file holds more than one YAML document"),
        "Source contains multiple documents; please use YAML.parseAllDocuments()",
    ),
    (
        LazyPattern(r"the alias \*(?P<name>\S+) refers to no anchor"),
        "Unresolved alias (the anchor must be set before the alias): {name}",
    ),
    (LazyPattern(r"a tab character is used for indentation"), "Tabs are not allowed as indentation"),
    (
        LazyPattern(r"this line is indented past its list's '-' but does not start"),
        "Sequence item without - indicator",
    ),
    (
        LazyPattern(r"the '\[' list opened at line \d+ is not closed with '\]'(, or this line| before the end)"),
        "Flow sequence in block collection must be sufficiently indented and end with a ]",
    ),
    (LazyPattern(r"a ': ' appears where no key can start"), "Nested mappings are not allowed in compact mappings"),
    (
        LazyPattern(r"this value runs on into line \d+, where a ': '"),
        "Nested mappings are not allowed in compact mappings",
    ),
    (LazyPattern(r"the double-quoted value opened at line \d+ continues"), 'Missing closing "quote'),
    (LazyPattern(r"the single-quoted value opened at line \d+ continues"), "Missing closing 'quote"),
)


def refusal_text(exc: YamlError) -> str:
    """The refusal as shown: the reference parser's own headline where it is known, then ours after a dash."""
    for pattern, headline in _REFERENCE_HEADLINES:
        m = pattern.match(exc.message)
        if m:
            return f"{headline.format(**m.groupdict())} — {exc.message}"
    return exc.message


class _NestingError(YamlError):
    """Too deep: reported as is (re-reading such a text for an earlier refusal would take long)."""


@dataclass(frozen=True)
class YamlWarning:
    line: int | None
    column: int | None
    message: str


@dataclass
class YamlDoc:
    data: Any
    warnings: list = field(default_factory=list)
    # id(container) -> line of the container; id(container) -> {key: line} or [item line, ...], or one line for
    # children all on that line (a one-line flow collection). A container missing from _node_lines is on the line
    # of its first child: the block reader (yaml_block.py) leaves out what it can, as it makes thousands of them.
    # `data` keeps every container alive, so the ids stay valid as long as this object lives.
    _node_lines: dict = field(default_factory=dict, repr=False)
    _child_lines: dict = field(default_factory=dict, repr=False)

    def child_lines(self, obj: Any) -> Any:
        """The lines of all of `obj`'s children at once: {key: line} for a dict, [line, …] for a list, or None."""
        children = self._child_lines.get(id(obj))
        if children.__class__ is int:
            return dict.fromkeys(obj, children) if isinstance(obj, dict) else [children] * len(obj)
        return children

    def line(self, obj: Any, key: Any = None) -> int | None:
        """Line (1-based) of container `obj`, or of key `key` in dict `obj` / item `key` in list `obj`."""
        children = self._child_lines.get(id(obj))
        if key is None:
            line = self._node_lines.get(id(obj))
            if line is not None or not children:
                return line
            if children.__class__ is int:
                return children
            return children[0] if isinstance(children, list) else next(iter(children.values()))
        if children is None:
            return None
        if children.__class__ is int:
            children = self.child_lines(obj)
        if isinstance(children, dict):
            return children.get(key)
        if isinstance(key, int) and not isinstance(key, bool) and -len(children) <= key < len(children):
            return children[key]
        return None


# --- node tree from libyaml, with plain scalars left untyped -------------------------------------------------

_PLAIN = "?plain"  # tag given to untagged plain scalars: typed later by the schema
_STR = "tag:yaml.org,2002:str"
_SEQ = "tag:yaml.org,2002:seq"
_MAP = "tag:yaml.org,2002:map"
_INT = "tag:yaml.org,2002:int"
_FLOAT = "tag:yaml.org,2002:float"
_BOOL = "tag:yaml.org,2002:bool"
_NULL = "tag:yaml.org,2002:null"
_BINARY = "tag:yaml.org,2002:binary"
_TIMESTAMP = "tag:yaml.org,2002:timestamp"
_SET = "tag:yaml.org,2002:set"
_OMAP = "tag:yaml.org,2002:omap"
_PAIRS = "tag:yaml.org,2002:pairs"


# PyYAML (libyaml) and what is made from it are set by _import_libyaml() on first use: plain block YAML is read
# without it (yaml_block.py), so `turnlens export` on such files never pays for importing it.
yaml: Any = None
AliasEvent: Any = None
MappingEndEvent: Any = None
MappingStartEvent: Any = None
ScalarEvent: Any = None
SequenceEndEvent: Any = None
SequenceStartEvent: Any = None
StreamEndEvent: Any = None
MappingNode: Any = None
ScalarNode: Any = None
SequenceNode: Any = None
_Loader: Any = None
HAVE_LIBYAML: bool | None = None  # known once PyYAML is imported


def _new_loader(text: str) -> Any:
    if _Loader is None:
        _import_libyaml()
    return _Loader(text)


def _import_libyaml() -> None:
    global yaml, AliasEvent, MappingEndEvent, MappingStartEvent, ScalarEvent, SequenceEndEvent, SequenceStartEvent
    global StreamEndEvent, MappingNode, ScalarNode, SequenceNode, _Loader, HAVE_LIBYAML
    import yaml
    from yaml.events import (
        AliasEvent,
        MappingEndEvent,
        MappingStartEvent,
        ScalarEvent,
        SequenceEndEvent,
        SequenceStartEvent,
        StreamEndEvent,
    )
    from yaml.nodes import MappingNode, ScalarNode, SequenceNode
    from yaml.resolver import BaseResolver

    class _TagOnlyResolver(BaseResolver):
        """Leaves plain scalars for the schema to type; quoted scalars are strings."""

        def resolve(self, kind, value, implicit):
            if kind is ScalarNode:
                return _PLAIN if implicit[0] else _STR
            return _SEQ if kind is SequenceNode else _MAP

        def descend_resolver(self, current_node, current_index):
            pass

        def ascend_resolver(self):
            pass

    def make_loader_class(parser_class):
        class Loader(parser_class, yaml.constructor.BaseConstructor, _TagOnlyResolver):
            def __init__(self, stream):
                parser_class.__init__(self, stream)
                yaml.constructor.BaseConstructor.__init__(self)
                _TagOnlyResolver.__init__(self)

        return Loader

    HAVE_LIBYAML = bool(getattr(yaml, "__with_libyaml__", False))
    if HAVE_LIBYAML:
        from yaml._yaml import CParser

        _Loader = make_loader_class(CParser)
    else:  # PyYAML built without libyaml: same results, slower
        from yaml.composer import Composer
        from yaml.parser import Parser
        from yaml.reader import Reader
        from yaml.scanner import Scanner

        class PyParser(Reader, Scanner, Parser, Composer):
            def __init__(self, stream):
                Reader.__init__(self, stream)
                Scanner.__init__(self)
                Parser.__init__(self)
                Composer.__init__(self)

        _Loader = make_loader_class(PyParser)


# --- YAML 1.2 core schema --------------------------------------------------------------------------------------

_INT_DEC = re.compile(r"[-+]?[0-9]+\Z")
_INT_OCT = re.compile(r"0o[0-7]+\Z")
_INT_HEX = re.compile(r"0x[0-9a-fA-F]+\Z")
_FLOAT_RE = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?\Z")
_FLOAT_EXP = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+\Z")
_FLOAT_DOT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)\Z")
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
_SPECIAL_START = frozenset("0123456789+-.~nNtTfF")
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


def _core_plain(value: str) -> Any:
    """Type a plain (unquoted, untagged) scalar the way the YAML 1.2 core schema does."""
    if value and value[0] not in _SPECIAL_START:
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


def _y11_plain(value: str) -> Any:
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

_UNRESOLVED = object()


def _tagged_scalar(tag: str, value: str) -> Any:
    """A scalar with an explicit tag; _UNRESOLVED when the tag does not apply (the text stays a string)."""
    if tag == _STR:
        return value
    if tag == _INT:
        number = _core_int(value)
        return _UNRESOLVED if number is None else number
    if tag == _FLOAT:
        number = _core_float(value)
        return _UNRESOLVED if number is None else number
    if tag == _BOOL:
        return True if value in _TRUES else False if value in _FALSES else _UNRESOLVED
    if tag == _NULL:
        return None if value in _NULLS else _UNRESOLVED
    if tag == _BINARY:
        return _node_base64(value)
    if tag == _TIMESTAMP:
        stamp = _timestamp(value)
        if stamp is None:
            raise ValueError("a !!timestamp value must be a date, starting with yyyy-mm-dd")
        return stamp
    return _UNRESOLVED


_BASE64_KEEP = LazyPattern(r"[^A-Za-z0-9+/\-_]")


def _node_base64(text: str) -> bytes:
    """Base64 decoded as Node's Buffer.from(text, "base64"): other characters skipped, stops at "=", a lone
    trailing character ignored."""
    clean = _BASE64_KEEP.sub("", text.split("=", 1)[0]).replace("-", "+").replace("_", "/")
    clean = clean[: len(clean) - (len(clean) % 4 == 1)]
    import base64  # here, not at the top: only !!binary needs it (startup time of `turnlens export`)

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
        import base64  # (only !!binary values need it)

        return base64.b64encode(value).decode()
    if isinstance(value, datetime.datetime):
        return value.strftime("%Y-%m-%dT%H:%M:%S.") + f"{value.microsecond // 1000:03d}Z"
    return js_string(value)


def _is_array_index(key: str) -> bool:
    return key.isdigit() and key.isascii() and (key == "0" or key[0] != "0") and int(key) < 4294967295


# --- characters libyaml refuses or reads as line breaks, which YAML 1.2 takes as ordinary text ----------------

# C0 (but tab, LF, CR), DEL, C1 (NEL included), U+2028/U+2029, lone surrogates, U+FFFE/U+FFFF.
_ODD_CHARS = LazyPattern("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufffe\uffff]")
_ASCII_ORDINARY = bytes(range(0x20, 0x7F)) + b"\t\n\r"


def _has_odd_chars(text: str) -> bool:
    if text.isascii():  # the usual case: one bytes.translate, ten times faster than the regex over every character
        return bool(text.encode("ascii").translate(None, _ASCII_ORDINARY))
    return _ODD_CHARS.search(text) is not None


# A CR not followed by LF is not a line break for the reference (the line goes on): here too, an ordinary character.
_LONE_CR = LazyPattern("\r(?!\n)")
_STAND_IN_BASE = 0xF0000  # Supplementary Private Use Area-A: printable for libyaml
_STAND_INS = LazyPattern("[\U000f0000-\U000fffff]")


def _stand_in(match: re.Match) -> str:
    return chr(_STAND_IN_BASE + ord(match.group()))


def _restore(text: str) -> str:
    return _STAND_INS.sub(lambda m: chr(ord(m.group()) - _STAND_IN_BASE), text)


# `"\ud83d\ude00"`: JSON-style surrogate escapes in double quotes. JavaScript strings are UTF-16, so the reference
# reads a pair as the one character (and keeps a lone one); libyaml refuses them. Before parsing, each such escape
# becomes the `\U0010xxxx` escape of a private-use character that encodes it (value and letter case), which stays
# text where it is not in double quotes; afterwards both forms are turned back, and pairs joined. (Only the columns
# of that line shift, by 4 per escape.)
_SURROGATE_ESCAPE = LazyPattern(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_SURROGATE_STAND_IN_ESCAPE = LazyPattern(r"\\U0010[0-7][0-9A-F]{3}")
_SURROGATE_STAND_INS = LazyPattern("[\U00100000-\U00107fff]")
_SURROGATE_CLASH = LazyPattern("[\U00100000-\U00107fff]|\\\\[uU]0010[0-7]")


def _surrogate_stand_in(match: re.Match) -> str:
    digits = match.group()[2:]
    lower_case = sum(1 << i for i, char in enumerate(digits) if char.islower())
    return f"\\U{0x100000 + (lower_case << 11) + int(digits, 16) - 0xD800:08X}"


def _surrogate_written(match: re.Match) -> str:
    code = int(match.group()[2:], 16) - 0x100000
    digits = f"{0xD800 + (code & 0x7FF):04X}"
    return "\\u" + "".join(char.lower() if code >> (11 + i) & 1 else char for i, char in enumerate(digits))


def _give_back_surrogates(value: str) -> str:
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


def _needs_careful_path(text: str, flow_openers: int) -> bool:
    if flow_openers > _MAX_THREAD_FLOW:
        return True
    if _DEEP_INDENT in text or text.startswith(" " * 160) or _has_compact_chain(text):
        return True
    if text.startswith("%") or ("%" in text and "\n%" in text):  # directives: %YAML 1.1 changes the typing
        return True
    return "!" in text and _has_token(_BARE_TAG, text)


# Flow nesting is at most the number of `[` and `{`. Up to _SAFE_FLOW, libyaml's composer runs on the calling
# thread's stack; up to _MAX_THREAD_FLOW, on a thread whose stack is sized for that depth (a few hundred bytes of C
# stack per level); past that, the iterative composer here.
_SAFE_FLOW = 400
_MAX_THREAD_FLOW = 20_000
# A `{{ name }}` / `${{ NAME }}` template reference opens two flow levels and closes them itself: it adds at most two
# to the nesting wherever it stands, so its openers need not count (AgentV 4 suites are full of them).
_TEMPLATE_REF = LazyPattern(r"\{\{\s*[A-Za-z_][A-Za-z0-9_.]*\s*\}\}")
_STACK_PER_LEVEL = 1024
_MIN_THREAD_STACK = 16 * 1024 * 1024


def _compose_with_big_stack(loader, flow_openers: int):
    """loader.get_single_node() on a thread with a stack deep enough for `flow_openers` levels of nesting."""
    outcome: list = [None, None]

    def run():
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


# --- construction -----------------------------------------------------------------------------------------------


class _Builder:
    """Turns the node tree into plain data, recording lines; optionally counts aliases like the reference."""

    def __init__(self, yaml11: bool = False, count_aliases: bool = False, restore: Any = None, merge: bool = False):
        self.merge = merge or yaml11  # `<<` merge keys: YAML 1.1, or asked for (AgentV 4 reads them)
        self.node_lines: dict = {}
        self.child_lines: dict = {}
        self.warnings: list = []
        self.built: dict = {}  # id(node) -> value, so an alias gives the same object
        self.plain = _y11_plain if yaml11 else _core_plain
        self.restore = restore  # None, or a function giving back the characters stood in for before parsing
        self.count_aliases = count_aliases
        # Alias accounting, as the reference does it: id(node) -> (count, alias_count); where each node is defined.
        self.anchor_data: dict = {}
        self.defined_at: dict = {}
        self.open: set = set()  # collections being built: an alias to one of them is a recursive structure
        # What the aliases add to the data, in characters: each alias stands for a whole copy of its anchor's text
        # once formatted (10 MB aliased 99 times is 1 GB of prompt), so the total is bounded, not only the count.
        self.expanded = 0
        self.expand_limit = max_file_size()
        self.sizes: dict = {}  # id(node) -> characters of text under it, aliases expanded
        # The reference wants the continuation lines of a flow collection or quoted value in block context indented
        # past the enclosing block collection (libyaml does not check): its column, and whether we are in a flow.
        self.indent = -1
        self.in_flow = False
        self.text_lines: list | None = None
        self.text = ""

    def warn(self, node, message: str) -> None:
        self.warnings.append(YamlWarning(node.start_mark.line + 1, node.start_mark.column + 1, message))

    def scalar(self, node) -> Any:
        value = node.value
        if self.restore:
            value = self.restore(value)
        tag = node.tag
        if tag == _PLAIN:
            return self.plain(value)
        if node.style and node.style in "\"'" and node.end_mark.line != node.start_mark.line:
            self.check_quoted_lines(node)
        if tag == _STR:
            return value
        try:
            result = _tagged_scalar(tag, value)
        except ValueError as exc:
            raise YamlError(str(exc), node.start_mark.line + 1, node.start_mark.column + 1) from None
        if result is _UNRESOLVED:
            self.warn(node, f"unresolved tag {_short_tag(tag)}: the value stays the text {value!r}")
            return value
        return result

    def build(self, node, depth: int = 0, parent: Any = None, position: Any = None) -> Any:
        cls = node.__class__
        if self.count_aliases:
            key = id(node)
            place = self.defined_at.get(key)
            if place is None:
                self.defined_at[key] = (parent, position)
            elif place != (parent, position):
                return self.alias(node)
        if cls is ScalarNode:
            tag = node.tag
            if tag == _PLAIN and not self.restore and self.plain is _core_plain:
                return _core_plain(node.value)
            return self.scalar(node)
        done = self.built.get(id(node))
        if done is not None:
            return done
        if depth >= MAX_DEPTH:
            raise _NestingError(
                f"the data is nested more than {MAX_DEPTH} levels deep",
                node.start_mark.line + 1,
                node.start_mark.column + 1,
            )
        saved = self.indent, self.in_flow
        if node.flow_style:
            self.in_flow = True
        else:
            self.indent = node.start_mark.column
        result = self.collection(node, depth)
        self.indent, self.in_flow = saved  # (an error ends the whole parse: nothing to restore then)
        if node.flow_style and not self.in_flow and node.end_mark.line != node.start_mark.line:
            self.check_flow_lines(node)
        return result

    def collection(self, node, depth: int) -> Any:
        tag = node.tag
        if node.__class__ is SequenceNode:
            if tag == _OMAP or tag == _PAIRS:
                return self.pairs(node, depth)
            if tag != _SEQ:
                self.warn(node, f"the tag {_short_tag(tag)} does not apply to a sequence: it stays a plain sequence")
            return self.sequence(node, depth)
        if tag == _SET:
            return self.set(node, depth)
        if tag != _MAP:
            self.warn(node, f"the tag {_short_tag(tag)} does not apply to a mapping: it stays a plain mapping")
        return self.mapping(node, depth)

    def lines_of_text(self) -> list:
        if self.text_lines is None:
            self.text_lines = self.text.split("\n")
        return self.text_lines

    def check_flow_lines(self, node) -> None:
        """Each line of a multi-line flow collection must be indented past the enclosing block collection (its
        closing bracket may stand at that column)."""
        error = _flow_indent_error(
            node.__class__ is MappingNode,
            node.start_mark,
            node.start_mark.line + 1,
            node.end_mark.line,
            self.indent,
            self.lines_of_text(),
        )
        if error:
            raise error

    def check_quoted_lines(self, node) -> None:
        """Each continuation line of a multi-line quoted value must be indented past the enclosing block
        collection. The reference then reports the quote unclosed at the end of the line before."""
        error = _quoted_indent_error(node, self.indent, self.lines_of_text())
        if error:
            raise error

    def sequence(self, node, depth: int) -> list:
        result: list = []
        me = id(node)
        self.built[me] = result
        self.open.add(me)
        self.node_lines[id(result)] = node.start_mark.line + 1
        lines = []
        build = self.build
        depth += 1
        for index, item in enumerate(node.value):
            result.append(build(item, depth, me, index))
            lines.append(item.start_mark.line + 1)
        self.child_lines[id(result)] = lines
        self.open.discard(me)
        return result

    def pairs(self, node, depth: int) -> Any:
        """!!pairs: a list of one-pair mappings. !!omap: a JavaScript Map, which has no own properties (JSON `{}`)."""
        is_omap = node.tag == _OMAP
        me = id(node)
        result: Any = {} if is_omap else []
        self.built[me] = result
        self.open.add(me)
        self.node_lines[id(result)] = node.start_mark.line + 1
        self.child_lines[id(result)] = {} if is_omap else []
        seen: dict = {}
        depth += 1
        for index, item in enumerate(node.value):
            line = item.start_mark.line + 1
            if item.__class__ is MappingNode:
                if len(item.value) != 1:
                    raise YamlError(
                        f"each item of a {_short_tag(node.tag)} sequence must be a single key: value pair",
                        line,
                        item.start_mark.column + 1,
                    )
                self.defined_at.setdefault(id(item), (me, index))
                key_node, value_node = item.value[0]
                raw_key = self.build(key_node, depth + 1, id(item), (0, 0))
                value = self.build(value_node, depth + 1, id(item), (0, 1))
            elif item.__class__ is ScalarNode:
                key_node, raw_key, value = item, self.build(item, depth, me, index), None
            else:
                raise YamlError(
                    f"each item of a {_short_tag(node.tag)} sequence must be a single key: value pair",
                    line,
                    item.start_mark.column + 1,
                )
            key, identity = (raw_key, raw_key) if raw_key.__class__ is str else self.odd_key(raw_key, key_node)
            if is_omap:
                if identity in seen:
                    raise YamlError(
                        f"the ordered map (!!omap) has the key {key!r} twice (first at line {seen[identity]})",
                        key_node.start_mark.line + 1,
                        key_node.start_mark.column + 1,
                    )
                seen[identity] = line
            else:
                pair = {key: value}
                self.node_lines[id(pair)] = line
                self.child_lines[id(pair)] = {key: key_node.start_mark.line + 1}
                result.append(pair)
                self.child_lines[id(result)].append(line)
        self.open.discard(me)
        return result

    def set(self, node, depth: int) -> dict:
        """!!set: a JavaScript Set, which has no own properties (JSON `{}`); every key must have a null value."""
        me = id(node)
        result: dict = {}
        self.built[me] = result
        self.open.add(me)
        self.node_lines[id(result)] = node.start_mark.line + 1
        self.child_lines[id(result)] = {}
        depth += 1
        for index, (key_node, value_node) in enumerate(node.value):
            self.build(key_node, depth, me, (index, 0))
            if self.build(value_node, depth, me, (index, 1)) is not None:
                raise YamlError(
                    "every item of a !!set must have no value (or null)",
                    key_node.start_mark.line + 1,
                    key_node.start_mark.column + 1,
                )
        self.open.discard(me)
        return result

    def mapping(self, node, depth: int, result: dict | None = None, key_lines: dict | None = None) -> dict:
        """Build a mapping; or finish one the fast builder began with plain string keys (`result`, `key_lines`)."""
        start = 0
        if result is None or key_lines is None:
            result, key_lines = {}, {}
        else:
            start = len(result)
        self.built[id(node)] = result
        self.open.add(id(node))
        self.node_lines[id(result)] = node.start_mark.line + 1
        seen: dict = dict(key_lines)
        needs_reorder = any(_is_array_index(k) for k in result)
        build = self.build
        me = id(node)
        depth += 1
        merge = self.merge  # YAML 1.1 (a `%YAML 1.1` directive), or AgentV 4: `<<` merges mappings in
        for index in range(start, len(node.value)):
            key_node, value_node = node.value[index]
            if merge and key_node.__class__ is ScalarNode and key_node.tag == _PLAIN and key_node.value == "<<":
                self.merge_into(result, key_lines, build(value_node, depth, me, (index, 1)), key_node)
                continue
            if key_node.__class__ is ScalarNode and key_node.tag == _STR and not self.count_aliases:
                raw_key = self.restore(key_node.value) if self.restore else key_node.value
            else:
                raw_key = build(key_node, depth, me, (index, 0))
            line = key_node.start_mark.line + 1
            if raw_key.__class__ is str:
                key = identity = raw_key
            else:
                key, identity = self.odd_key(raw_key, key_node)
            first = seen.get(identity)
            if first is not None:
                shown = key_node.value if key_node.__class__ is ScalarNode else key
                raise YamlError(
                    f"duplicate key {shown!r} (first at line {first})", line, key_node.start_mark.column + 1
                )
            seen[identity] = line
            if not needs_reorder and key[:1].isdigit():
                needs_reorder = _is_array_index(key)
            result[key] = build(value_node, depth, me, (index, 1))
            key_lines[key] = line
        if needs_reorder:
            # A JavaScript object lists integer-like keys first, ascending, then the others in insertion order.
            index_keys = sorted((k for k in result if _is_array_index(k)), key=int)
            ordered = {k: result[k] for k in index_keys}
            for k, v in result.items():
                if k not in ordered:
                    ordered[k] = v
            result.clear()
            result.update(ordered)
        self.child_lines[id(result)] = key_lines
        self.open.discard(id(node))
        return result

    def merge_into(self, result: dict, key_lines: dict, sources: Any, key_node) -> None:
        # Keys already present win, then earlier sources over later ones; keys written later still override.
        line = key_node.start_mark.line + 1
        for source in sources if isinstance(sources, list) else [sources]:
            if not isinstance(source, dict):
                raise YamlError(
                    "the value of a merge key '<<' must be a mapping or a list of mappings",
                    line,
                    key_node.start_mark.column + 1,
                )
            for key, value in source.items():
                if key not in result:
                    result[key] = value
                    key_lines[key] = line

    def odd_key(self, raw_key: Any, key_node) -> tuple[str, Any]:
        """The string key and the duplicate-check identity of a non-string key (compared like JavaScript ===)."""
        if raw_key is None:
            return "", ("null",)
        if isinstance(raw_key, bool):
            return js_string(raw_key), ("bool", raw_key)
        if isinstance(raw_key, (int, float)):
            if isinstance(raw_key, float) and math.isnan(raw_key):
                return "NaN", object()  # NaN never equals itself: never a duplicate
            return js_string(raw_key), ("num", float(raw_key))
        if isinstance(raw_key, (dict, list)):
            text = js_string(raw_key)
            self.warn(key_node, f"a collection used as a key becomes the string key {text!r}")
            return text, object()  # collections are only ever equal to themselves, and an alias is another node
        return js_string(raw_key), object()

    def alias(self, node) -> Any:
        """A second (or later) reference to a node: count it as the reference does, refuse past the limit."""
        if id(node) in self.open:
            raise YamlError(
                "an alias refers to the collection that contains it (a recursive structure), which the "
                f"reference cannot read; the anchor is at line {node.start_mark.line + 1}",
                node.start_mark.line + 1,
                node.start_mark.column + 1,
            )
        data = self.anchor_data.get(id(node))
        count, alias_count = data if data else (1, 0)
        count += 1
        if alias_count == 0:
            alias_count = self.alias_weight(node, None, None, set())
        self.anchor_data[id(node)] = (count, alias_count)
        if count * alias_count > MAX_ALIAS_COUNT:
            raise YamlError(
                f"too many alias expansions: the anchor at line {node.start_mark.line + 1} is expanded past the "
                f"reference's limit ({MAX_ALIAS_COUNT}, a guard against alias bombs)",
                node.start_mark.line + 1,
                node.start_mark.column + 1,
            )
        self.expanded += self.node_size(node)
        if self.expanded > self.expand_limit:
            raise YamlError(
                f"aliases expand the data past {format_size(self.expand_limit)} (the anchor at line "
                f"{node.start_mark.line + 1} is repeated {count - 1} times; --max-file-size or {MAX_FILE_SIZE_ENV} "
                "raise the limit)",
                node.start_mark.line + 1,
                node.start_mark.column + 1,
            )
        if node.__class__ is ScalarNode:
            return self.scalar(node)
        return self.built[id(node)]

    def node_size(self, node) -> int:
        """Characters of scalar text in `node`, every alias inside counted as a full copy (memoised)."""
        size = self.sizes.get(id(node))
        if size is not None:
            return size
        if node.__class__ is ScalarNode:
            size = len(node.value)
        elif node.__class__ is SequenceNode:
            size = sum(self.node_size(item) for item in node.value)
        else:
            size = sum(self.node_size(key) + self.node_size(value) for key, value in node.value)
        self.sizes[id(node)] = size
        return size

    def alias_weight(self, node, parent: Any, position: Any, visiting: builtins.set[int]) -> int:
        if parent is not None and self.defined_at.get(id(node)) != (parent, position):
            count, alias_count = self.anchor_data.get(id(node), (1, 0))
            return count * alias_count
        if node.__class__ is ScalarNode:
            return 1
        if id(node) in visiting:
            return 0
        visiting.add(id(node))
        weight = 0
        me = id(node)
        if node.__class__ is SequenceNode:
            for index, item in enumerate(node.value):
                weight = max(weight, self.alias_weight(item, me, index, visiting))
        else:
            for index, (key_node, value_node) in enumerate(node.value):
                weight = max(
                    weight,
                    self.alias_weight(key_node, me, (index, 0), visiting),
                    self.alias_weight(value_node, me, (index, 1), visiting),
                )
        visiting.discard(id(node))
        return weight


class _FastBuilder(_Builder):
    """The common case, specialised for speed: core schema, no aliases to count, no stand-in characters.

    Scalars are typed inline (no call for text that cannot be anything but a string); mappings whose keys are not
    all plain strings, and tagged collections, go through the general _Builder methods.
    """

    def build(self, node, depth: int = 0, parent: Any = None, position: Any = None) -> Any:
        cls = node.__class__
        if cls is ScalarNode:
            tag = node.tag
            if tag == _PLAIN:
                return _core_plain(node.value)
            if tag == _STR and node.end_mark.line == node.start_mark.line:
                return node.value
            return self.scalar(node)
        # No alias in the text (else the general builder runs): every node is built once, no memo needed.
        if depth >= MAX_DEPTH or node.tag != (_SEQ if cls is SequenceNode else _MAP):
            return _Builder.build(self, node, depth, parent, position)
        # (No try/finally to restore the context: an error ends the whole parse.)
        if node.flow_style:
            if self.in_flow:
                return self.mapping(node, depth) if cls is MappingNode else self.sequence(node, depth)
            if node.end_mark.line != node.start_mark.line:
                return _Builder.build(self, node, depth)  # checks the continuation lines' indentation
            self.in_flow = True
            result = self.mapping(node, depth) if cls is MappingNode else self.sequence(node, depth)
            self.in_flow = False
            return result
        saved = self.indent
        self.indent = node.start_mark.column
        result = self.mapping(node, depth) if cls is MappingNode else self.sequence(node, depth)
        self.indent = saved
        return result

    def sequence(self, node, depth: int) -> list:
        result: list = []
        self.node_lines[id(result)] = node.start_mark.line + 1
        lines: list[int] = []
        append = result.append
        add_line = lines.append
        build = self.build
        special = _SPECIAL_START
        depth += 1
        for item in node.value:
            if item.__class__ is ScalarNode:
                tag = item.tag
                value = item.value
                if tag == _PLAIN and value and value[0] not in special:
                    append(value)
                elif tag == _STR and (
                    not item.style or item.style in "|>" or item.end_mark.line == item.start_mark.line
                ):
                    append(value)
                elif tag == _PLAIN:
                    append(_core_plain(value))
                else:
                    append(self.scalar(item))
            else:
                append(build(item, depth))
            add_line(item.start_mark.line + 1)
        self.child_lines[id(result)] = lines
        return result

    def mapping(self, node, depth: int, result: dict | None = None, key_lines: dict | None = None) -> dict:
        result = {}
        key_lines = {}
        build = self.build
        special = _SPECIAL_START
        plain_keys = _PLAIN_STRING_KEYS
        depth += 1
        for key_node, value_node in node.value:
            if key_node.__class__ is not ScalarNode:
                break
            key = key_node.value
            tag = key_node.tag
            if tag == _PLAIN:
                if key in plain_keys:
                    pass
                elif key and key[0] not in special or _core_plain(key).__class__ is str:
                    if len(plain_keys) < 10_000:
                        plain_keys.add(key)
                else:
                    break  # null, a number, a bool: a JavaScript key string, and duplicates compared by value
            elif tag != _STR or key[:1].isdigit():  # a tag, or a key JavaScript would put first ("1")
                break
            if key in key_lines:
                raise YamlError(
                    f"duplicate key {key!r} (first at line {key_lines[key]})",
                    key_node.start_mark.line + 1,
                    key_node.start_mark.column + 1,
                )
            key_lines[key] = key_node.start_mark.line + 1
            if value_node.__class__ is ScalarNode:
                tag = value_node.tag
                value = value_node.value
                if tag == _PLAIN and value and value[0] not in special:
                    result[key] = value
                elif tag == _STR and (
                    not value_node.style
                    or value_node.style in "|>"
                    or value_node.end_mark.line == value_node.start_mark.line
                ):
                    result[key] = value
                elif tag == _PLAIN:
                    result[key] = _core_plain(value)
                else:
                    result[key] = self.scalar(value_node)
            else:
                result[key] = build(value_node, depth)
        else:
            self.node_lines[id(result)] = node.start_mark.line + 1
            self.child_lines[id(result)] = key_lines
            return result
        # A key that is not a plain string: finish the general way, keeping what is built.
        return _Builder.mapping(self, node, depth - 1, result, key_lines)


# Plain scalars seen as keys that the core schema leaves strings ("type", "name"...): saves typing them again.
_PLAIN_STRING_KEYS: set = set()


def _short_tag(tag: str) -> str:
    return "!!" + tag[len("tag:yaml.org,2002:") :] if tag.startswith("tag:yaml.org,2002:") else tag


# --- composing from events, for the texts libyaml's own composer gets wrong or could crash on ------------------


def _compose_events(loader) -> tuple[Any, Any]:
    """Compose the single document from parser events, iteratively. Returns (root node or None, YAML version)."""
    loader.get_event()  # stream start
    if loader.check_event(StreamEndEvent):
        return None, None
    start = loader.get_event()
    version = start.version
    anchors: dict = {}
    stack: list = []  # [node, pending key node or None]
    root = None
    node: Any
    while root is None:
        event = loader.get_event()
        cls = event.__class__
        if cls is ScalarEvent:
            tag = event.tag
            if tag is None:
                tag = _PLAIN if event.implicit[0] else _STR
            elif tag == "!":
                tag = _STR
            node = ScalarNode(tag, event.value, event.start_mark, event.end_mark, event.style)
            if event.anchor is not None:
                anchors[event.anchor] = node
        elif cls is AliasEvent:
            node = anchors.get(event.anchor)
            if node is None:
                raise YamlError(
                    f"the alias *{event.anchor} refers to no anchor defined before it",
                    event.start_mark.line + 1,
                    event.start_mark.column + 1,
                )
        elif cls is SequenceStartEvent or cls is MappingStartEvent:
            is_seq = cls is SequenceStartEvent
            tag = event.tag
            if tag is None or tag == "!":
                tag = _SEQ if is_seq else _MAP
            node = (SequenceNode if is_seq else MappingNode)(tag, [], event.start_mark, None, event.flow_style)
            if event.anchor is not None:
                anchors[event.anchor] = node
            if len(stack) >= MAX_DEPTH:
                raise _NestingError(
                    f"the data is nested more than {MAX_DEPTH} levels deep",
                    event.start_mark.line + 1,
                    event.start_mark.column + 1,
                )
            _attach(stack, node)
            stack.append([node, None])
            continue
        else:  # a collection ends
            node = stack.pop()[0]
            node.end_mark = event.end_mark
            if not stack:
                root = node
            continue
        if stack:
            _attach(stack, node)
        else:
            root = node
    loader.get_event()  # document end
    if not loader.check_event(StreamEndEvent):
        extra = loader.peek_event()
        raise _multiple_documents(extra.start_mark)
    return root, version


def _attach(stack: list, node) -> None:
    if not stack:
        return
    top = stack[-1]
    parent = top[0]
    if parent.__class__ is SequenceNode:
        parent.value.append(node)
    elif top[1] is None:
        top[1] = node
    else:
        parent.value.append((top[1], node))
        top[1] = None


def _multiple_documents(mark) -> YamlError:
    return YamlError(
        "the file holds more than one YAML document ('---' starts another one)",
        mark.line + 1 if mark else None,
        mark.column + 1 if mark else None,
    )


# --- the first refusal in document order, for texts that fail ----------------------------------------------------


def _first_refusal(text: str, lines: list) -> YamlError | None:
    """Re-read a failing text event by event and return the refusal the reference reports: the first by position
    among syntax errors, duplicate keys and badly indented continuation lines; failing those, an undefined alias
    (the reference resolves aliases only after reading the whole document). None if none is found here."""
    loader = _new_loader(text)
    undefined_alias: YamlError | None = None
    anchors: dict = {}  # anchor -> key identity of the anchored node (a scalar's value), or a unique object
    try:
        loader.get_event()  # stream start
        if loader.check_event(StreamEndEvent):
            return None
        typing = _y11_plain if loader.get_event().version == (1, 1) else _core_plain
        # frames: [is_mapping, is_flow, column, start_mark, {key identity: line}, line of the key awaiting its value]
        stack: list = []
        empty_before = None
        flow = None  # the outermost flow collection inside block context: [frame, lines checked up to]
        while True:
            try:
                event = loader.get_event()
            except yaml.YAMLError as exc:
                mark = getattr(exc, "problem_mark", None)
                if flow is not None and mark is not None:  # its lines up to the failure come first
                    error = _flow_indent_error(
                        flow[0][0],
                        flow[0][3],
                        flow[1] + 1,
                        mark.line,
                        _block_indent(stack[: stack.index(flow[0])]),
                        lines,
                    )
                    if error:
                        return error
                raise
            cls = event.__class__
            if flow is not None and event.start_mark.line > flow[1]:
                error = _flow_indent_error(
                    flow[0][0],
                    flow[0][3],
                    flow[1] + 1,
                    event.start_mark.line,
                    _block_indent(stack[: stack.index(flow[0])]),
                    lines,
                )
                if error:
                    return error
                flow[1] = event.start_mark.line
            if cls is ScalarEvent or cls is AliasEvent:
                if cls is AliasEvent:
                    identity = anchors.get(event.anchor)
                    if identity is None:
                        identity = object()
                        if undefined_alias is None:
                            undefined_alias = YamlError(
                                f"the alias *{event.anchor} refers to no anchor defined before it",
                                event.start_mark.line + 1,
                                event.start_mark.column + 1,
                            )
                    empty = False
                else:
                    identity = _scalar_identity(event, typing)
                    if event.anchor is not None:
                        anchors[event.anchor] = identity
                    empty = event.value == "" and event.implicit[0] and event.tag is None
                    if event.style in ("'", '"') and event.end_mark.line != event.start_mark.line:
                        error = _quoted_indent_error(event, _block_indent(stack), lines)
                        if error:
                            return error
                empty_before = _take_node(stack, event, identity, empty, empty_before)
            elif cls is SequenceStartEvent or cls is MappingStartEvent:
                if event.anchor is not None:
                    anchors[event.anchor] = object()
                empty_before = _take_node(stack, event, object(), False, empty_before)
                stack.append(
                    [
                        cls is MappingStartEvent,
                        bool(event.flow_style),
                        event.start_mark.column,
                        event.start_mark,
                        {},
                        None,
                    ]
                )
                if flow is None and event.flow_style and len(stack) > 1:
                    flow = [stack[-1], event.start_mark.line]
            elif cls is SequenceEndEvent or cls is MappingEndEvent:
                frame = stack.pop()
                if flow is not None and flow[0] is frame:
                    flow = None
                if not stack:
                    loader.get_event()  # document end
                    if not loader.check_event(StreamEndEvent):
                        return _multiple_documents(loader.peek_event().start_mark)
                    return undefined_alias
            elif not stack:  # the document end, after a root scalar or alias
                if not loader.check_event(StreamEndEvent):
                    return _multiple_documents(loader.peek_event().start_mark)
                return undefined_alias
    except _Duplicate as duplicate:
        return duplicate.error
    except yaml.YAMLError as exc:
        return _error_from_yaml(exc, text)
    finally:
        loader.dispose()


class _Duplicate(Exception):
    def __init__(self, error: YamlError):
        self.error = error


def _scalar_identity(event, typing) -> Any:
    """How the reference compares a scalar key: by its value (null with ~, 1 with 1.0; NaN with nothing)."""
    if event.tag is None and event.implicit[0]:
        value = typing(event.value)
    elif event.tag in (None, "!", _STR):
        value = event.value
    else:
        try:
            value = _tagged_scalar(event.tag, event.value)
        except ValueError:
            value = event.value
        if value is _UNRESOLVED:
            value = event.value
    if value.__class__ is str:
        return value
    if value is None:
        return ("null",)
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, (int, float)):
        return object() if isinstance(value, float) and math.isnan(value) else ("num", float(value))
    return object()


def _take_node(stack: list, event, identity: Any, empty: bool, empty_before: int | None) -> int | None:
    """Place a node in its parent; a mapping key is checked against the keys before it. `empty_before`: the line
    of the node just before, if it was an empty value (the reference then places a duplicate key at the end of that
    line). Returns the same for this node."""
    if not stack:
        return None
    frame = stack[-1]
    if not frame[0]:  # a sequence item
        return event.start_mark.line + 1 if empty else None
    if frame[5] is None:  # a key
        line = event.start_mark.line + 1
        first = frame[4].get(identity)
        if first is not None:
            where = empty_before if empty_before is not None else line
            shown = event.value if event.__class__ is ScalarEvent else f"*{event.anchor}"
            raise _Duplicate(
                YamlError(
                    f"duplicate key {shown!r}"
                    + (f" on line {line}" if where != line else "")
                    + f" (first at line {first})",
                    where,
                    event.start_mark.column + 1 if where == line else None,
                )
            )
        frame[4][identity] = line
        frame[5] = line
        return None
    key_line, frame[5] = frame[5], None  # its value
    return key_line if empty else None


def _block_indent(stack: list) -> int:
    for frame in reversed(stack):
        if not frame[1]:
            return frame[2]
    return -1


def _flow_indent_error(is_mapping: bool, start, first: int, last: int, indent: int, lines: list) -> YamlError | None:
    """The first of lines first..last (0-based) of a flow collection that is not indented past its parent."""
    for number in range(max(first, start.line + 1), min(last, len(lines) - 1) + 1):  # a mark may sit past the end
        line = lines[number].rstrip("\r")
        body = line.lstrip(" ")
        if not body.strip() or body[0] == "#":
            continue
        column = len(line) - len(body)
        if column > indent or (column == indent and body[0] in "]}"):
            continue
        what, close = ("'{' mapping", "}") if is_mapping else ("'[' list", "]")
        return YamlError(
            f"the {what} opened at line {start.line + 1} is not closed with '{close}', or this line of "
            "it is not indented past its parent",
            number + 1,
            column + 1,
        )
    return None


def _quoted_indent_error(event, indent: int, lines: list) -> YamlError | None:
    for number in range(event.start_mark.line + 1, min(event.end_mark.line, len(lines) - 1) + 1):
        line = lines[number].rstrip("\r")
        body = line.lstrip(" ")
        if not body.strip(" \t") or len(line) - len(body) > indent:
            continue
        before = lines[number - 1].rstrip("\r")
        kind = "single" if event.style == "'" else "double"
        return YamlError(
            f"the {kind}-quoted value opened at line "
            f"{event.start_mark.line + 1} continues on line "
            f"{number + 1} without being indented past its parent; indent it, or close the quote",
            number,
            len(before) + 1,
        )
    return None


# --- errors -----------------------------------------------------------------------------------------------------


def _line_at(text: str, mark) -> str:
    lines = text.split("\n", mark.line + 1)
    return lines[mark.line] if mark.line < len(lines) else ""


def _problem_sentence(problem: str, context: str, line: str, column: int, opened: str) -> str:
    """libyaml's terse problem, said in terms of what the author wrote. `opened`: " (opened at line N)" or ""."""
    char = line[column] if column < len(line) else ""
    if problem.startswith(("found character that cannot start any token", "found a tab character")):
        if char == "\t" or problem.startswith("found a tab"):
            return "a tab character is used for indentation; YAML indents with spaces only"
        if char in ("@", "`", "%"):
            return f"a value cannot start with '{char}' unless it is quoted"
        return f"the character {char!r} cannot start a value here; quote the value"
    if problem.startswith("mapping values are not allowed"):
        if column > 1024:
            return "a key is longer than 1024 characters, YAML's limit for a key written without '? '"
        return "a ': ' appears where no key can start; quote a value that contains ': ', or fix the indentation"
    if problem.startswith("block sequence entries are not allowed"):
        return "a '- ' list item cannot start on the same line as its key; start the list on the next line"
    if problem == "did not find expected key":
        return (
            "this line does not line up with the keys of its mapping (check the indentation, or text after a "
            "closing quote or bracket)"
        )
    if problem == "did not find expected '-' indicator":
        return "this line does not line up with the items of its list (check the indentation)"
    if problem.startswith("did not find expected ',' or ']'"):
        return f"a '[' list{opened} is not closed with ']' (or its items are not separated by commas)"
    if problem.startswith("did not find expected ',' or '}'"):
        return f"a '{{' mapping{opened} is not closed with '}}' (or its entries are not separated by commas)"
    if problem == "found unexpected end of stream" and "quoted" in context:
        return f"a quoted value{opened} is not closed"
    if problem == "found unknown escape character":
        return f"unknown escape sequence {line[column : column + 2]!r} in a double-quoted value"
    if problem == "could not find expected ':'":
        if len(line) > 1024:
            return "a key is longer than 1024 characters, YAML's limit for a key written without '? '"
        return "this line is not a 'key: value' entry, nor indented as the continuation of the value above"
    if "anchor" in context:
        return "an anchor '&' must be followed by a name"
    if "alias" in context:
        return "an alias '*' must be followed by a name"
    if "block scalar" in context:
        return "only an indentation or chomping indicator, or a comment, may follow '|' or '>' on its line"
    return f"{problem} ({context})" if context else problem


def _implicit_key_start(text: str):
    """Where the scalar that a stray ': ' would make a key starts (the reference reports that place)."""
    loader = _new_loader(text)
    last = None
    try:
        while loader.check_token():
            token = loader.get_token()
            if token.__class__ is yaml.ScalarToken:
                last = token
    except yaml.YAMLError:
        return last.start_mark if last is not None else None
    finally:
        loader.dispose()
    return None


def _error_from_yaml(exc: yaml.YAMLError, text: str) -> YamlError:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    problem = getattr(exc, "problem", None) or str(exc)
    context = getattr(exc, "context", None) or ""
    if mark is None:
        return YamlError(f"invalid YAML: {problem}")
    if problem.startswith("mapping values are not allowed"):
        key_start = _implicit_key_start(text)
        if key_start is not None and key_start.line < mark.line:
            return YamlError(
                f"this value runs on into line {mark.line + 1}, where a ': ' makes it a key; indent that "
                "line like the keys above it, or quote the value",
                key_start.line + 1,
                key_start.column + 1,
            )
        mark = key_start or mark
    start = getattr(exc, "context_mark", None)
    if (
        problem == "found unexpected end of stream"
        and "quoted" in context
        and start is not None
        and not _line_at(text, start)[: start.column].strip()
    ):
        # A quote that opens a line is a stray key or continuation for the reference, refused where it stands.
        return YamlError(
            "a quoted value at the start of a line is not closed (or not indented as its neighbours)",
            start.line + 1,
            start.column + 1,
        )
    if problem == "did not find expected '-' indicator" and start is not None:
        line = _line_at(text, mark)
        indent = len(line) - len(line.lstrip(" "))
        if indent > start.column and not line.lstrip(" ").startswith("-"):
            # between a list's '-' and its items' keys: the reference reads it as an item that lacks its '-'
            return YamlError(
                "this line is indented past its list's '-' but does not start a new item with '- ' (check the "
                "indentation)",
                mark.line + 1,
                mark.column + 1,
            )
    if problem.startswith("did not find expected ',' or ']'") and start is not None and not text[mark.index :].strip():
        return YamlError(
            f"the '[' list opened at line {start.line + 1} is not closed with ']' before the end of the text",
            mark.line + 1,
            mark.column + 1,
        )
    if problem == "could not find expected ':'" and start is not None:
        mark = start  # libyaml looks for the ':' until the end of the text; the line that lacks it is the news
    opened = f" (opened at line {start.line + 1})" if start is not None and start.line != mark.line else ""
    message = _problem_sentence(problem, context, _line_at(text, mark), mark.column, opened)
    return YamlError(message, mark.line + 1, mark.column + 1)


# --- entry points -----------------------------------------------------------------------------------------------


def parse_yaml(text: str, merge: bool = False) -> YamlDoc:
    """Parse one YAML document with YAML 1.2 core-schema typing. Raises YamlError for anything refused.

    `merge`: `<<` merge keys merge mappings in (AgentV 4's parser does so; 0.15.1's did not)."""
    # The node tree is hundreds of thousands of acyclic objects: cyclic GC passes over it would cost 4x the parse.
    with gcpause.paused():
        # Building recurses in Python, up to two frames per level: make room for MAX_DEPTH levels above the caller.
        recursion_limit = sys.getrecursionlimit()
        if recursion_limit < _RECURSION_ROOM:
            sys.setrecursionlimit(_RECURSION_ROOM)
        try:
            doc = _parse(text, merge)
            # (freeing it, a dict of lines per mapping, took ~4% of loading a big suite: an export keeps it to its exit)
            gcpause.keep_to_exit(doc)
            return doc
        except RecursionError:
            raise YamlError(f"the data is nested too deeply (the limit is {MAX_DEPTH} levels)") from None
        finally:
            if sys.getrecursionlimit() == _RECURSION_ROOM and recursion_limit < _RECURSION_ROOM:
                sys.setrecursionlimit(recursion_limit)


_RECURSION_ROOM = 3 * MAX_DEPTH + 1000


def _parse(text: str, merge: bool = False) -> YamlDoc:
    if text.startswith("\ufeff"):
        text = text[1:]
    odd = _has_odd_chars(text)
    lone_cr = "\r" in text and _LONE_CR.search(text) is not None
    restore = odd or lone_cr
    if restore:
        if _STAND_INS.search(text):
            raise YamlError(
                "the file mixes control characters with private-use characters U+F0000-U+FFFFF, "
                "which this reader cannot tell apart"
            )
        if odd:
            text = _ODD_CHARS.sub(_stand_in, text)
        if lone_cr:
            text = _LONE_CR.sub(_stand_in, text)
    restore_text: Callable[[str], str] | None = _restore if restore else None
    # (a one-character test first: memchr, ~50x faster over a big text than looking for the pair)
    if "\\" in text and "\\u" in text and _SURROGATE_ESCAPE.search(text):
        if _SURROGATE_CLASH.search(text):
            raise YamlError(
                "the file mixes surrogate escapes (\\ud800-\\udfff) with private-use characters "
                "U+100000-U+107FFF, which this reader cannot tell apart"
            )
        text = _SURROGATE_ESCAPE.sub(_surrogate_stand_in, text)
        restore_text = (
            _give_back_surrogates if restore_text is None else (lambda value: _give_back_surrogates(_restore(value)))
        )
    directive_warnings: list[str] = []
    if text.startswith("%") or ("%" in text and "\n%" in text):
        text, directive_warnings = _drop_unknown_directives(text)
    if restore_text is None and not directive_warnings:
        # Plain block YAML (most eval files) is read without a libyaml node per value, in a third of the time
        # (yaml_block.py, benchmarks/bench_yaml.py; it declines deep nesting and everything the careful path below
        # is for).
        block = parse_block(text, _core_plain, _SPECIAL_START)
        if block is not None:
            return YamlDoc(block[0], [], block[1], block[2])
    flow_openers = text.count("[") + text.count("{")
    if "{{" in text:
        flow_openers -= 2 * len(_TEMPLATE_REF.findall(text)) - 2
    careful = _needs_careful_path(text, flow_openers)
    patches: list = []
    while True:
        try:
            root, version = _compose(text, careful, flow_openers)
            break
        except _NestingError:
            raise
        except yaml.YAMLError as exc:
            # Two things YAML 1.2 (and the reference) allow and libyaml refuses: `: value` with no key text (an empty,
            # null key) and a plain value in a flow that starts with ':'. Written out for libyaml, then read again.
            patched = _colon_patch(text, exc) if len(patches) < _MAX_PATCHES else None
            if patched is not None:
                text, where = patched
                patches.append(where)
                continue
            error = _first_refusal(text, text.split("\n")) or _error_from_yaml(exc, text)
        except YamlError as exc:
            error = _first_refusal(text, text.split("\n")) or exc
        if lone_cr:
            error = YamlError(
                error.message + " (the file ends lines with a bare CR, which the reference does not "
                "take as a line break)",
                error.line,
                error.column,
            )
        raise error from None
    if root is None:
        return YamlDoc(None)
    count_aliases = has_alias(text)
    builder: _Builder
    merge = merge and "<<" in text
    if version is None and not count_aliases and restore_text is None and not merge:
        builder = _FastBuilder()
    else:
        builder = _Builder(yaml11=version == (1, 1), count_aliases=count_aliases, restore=restore_text, merge=merge)
    builder.text = text
    try:
        data = builder.build(root)
    except _NestingError:
        raise
    except YamlError as error:
        # The reference reports what it meets first while reading (a duplicate key, a badly indented line) before
        # what it finds in the data afterwards (alias counts...).
        raise _first_refusal(text, builder.lines_of_text()) or error from None
    gcpause.keep_to_exit(root)
    return YamlDoc(data, directive_warnings + builder.warnings, builder.node_lines, builder.child_lines)


_MAX_PATCHES = 100


# libyaml 0.2.6 (PyYAML 6.0.4's wheels) stops at its own nesting limit, 1,000 levels, with this `problem`; earlier
# libyaml versions and the pure-Python parser have none, and MAX_DEPTH stops the text. Either way it is one refusal.
_LIBRARY_NESTING_PROBLEM = "exceeded maximum nesting depth"


def _nesting_refusal(exc: Any) -> _NestingError | None:
    """The library's own nesting refusal as turnlens words it (MAX_DEPTH's), or None for any other error."""
    if getattr(exc, "problem", None) != _LIBRARY_NESTING_PROBLEM:
        return None
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    line, column = (mark.line + 1, mark.column + 1) if mark is not None else (None, None)
    return _NestingError(f"the data is nested more than {MAX_DEPTH} levels deep", line, column)


def _compose(text: str, careful: bool, flow_openers: int) -> tuple[Any, Any]:
    """The node tree (or None for an empty stream) and the %YAML version (None when not known to be given)."""
    loader = _new_loader(text)
    try:
        try:
            if careful:
                return _compose_events(loader)
            if flow_openers > _SAFE_FLOW:
                return _compose_with_big_stack(loader, flow_openers), None
            return loader.get_single_node(), None
        except yaml.YAMLError as exc:
            nesting = _nesting_refusal(exc)
            if nesting is not None:
                raise nesting from None
            if (
                not isinstance(exc, yaml.composer.ComposerError)
                or "duplicate anchor" not in f"{exc.context} {exc.problem}"
            ):
                raise
        # YAML 1.2 lets an anchor be redefined; libyaml's composer does not: compose it ourselves.
        loader.dispose()
        loader = _new_loader(text)
        return _compose_events(loader)
    finally:
        loader.dispose()


def _colon_patch(text: str, exc: yaml.YAMLError) -> tuple[str, Any] | None:
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


def _drop_unknown_directives(text: str) -> tuple[str, list]:
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


def parse_yaml_bytes(raw: bytes) -> YamlDoc:
    """Decode UTF-8 as the reference does (undecodable bytes become U+FFFD; a BOM is dropped) and parse."""
    return parse_yaml(raw.decode("utf-8", errors="replace"))


def first_invalid_utf8(raw: bytes) -> tuple[int, int, int] | None:
    """(line, column, byte offset) of the first byte that is not valid UTF-8, or None: for a warning."""
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        good = raw[: exc.start]
        line_start = good.rfind(b"\n") + 1
        return good.count(b"\n") + 1, len(good[line_start:].decode("utf-8", errors="replace")) + 1, exc.start
    return None
