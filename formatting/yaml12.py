"""YAML 1.2 (core schema) loading on PyYAML, matching the JavaScript `yaml` parser bundled in the reference.

PyYAML resolves plain scalars with YAML 1.1 rules (`yes` is a bool, `0755` is octal, `2024-01-01` a date). The
reference reads eval files with YAML 1.2 core-schema semantics, so here libyaml (via the C loader where present)
only builds the node tree and this module types the scalars itself, records line numbers, and turns every failure
into one `YamlError` with a clear sentence and a line.

    doc = parse_yaml(text)      # -> YamlDoc; raises YamlError for anything the reference refuses
    doc.data                    # plain dict / list / str / int / float / bool / None
    doc.line(obj)               # line (1-based) of a dict or list
    doc.line(obj, key)          # line of key `key` of dict obj, or of item number `key` of list obj

What the reference does, and this module therefore does (each observed on the oracle; see tests/fixtures/yaml12/):
- plain scalars typed by the 1.2 core schema only (`yes`, `on`, `y`, `0755`-as-octal, `1_000`, dates: not special);
  `0755` is the decimal integer 755; `0o17`, `0x1F`, `.inf`, `.nan`, `1e3`, `.5` are numbers;
- numbers are JavaScript doubles: integers beyond 2**53 lose precision the same way;
- mapping keys become strings as JavaScript's String() makes them (`1.0` -> "1", `null` -> "", `.inf` ->
  "Infinity"), and integer-like keys come first in ascending order, as in a JavaScript object;
- duplicate keys (compared by value: `null` and `~` are the same key) refuse the file;
- no merge keys: `<<` is an ordinary key; tags outside the core schema leave the value a string / plain collection;
- a stream with more than one document is refused.
"""

from __future__ import annotations

import gc
import math
import re
from dataclasses import dataclass, field
from typing import Any

import yaml
from yaml.nodes import MappingNode, ScalarNode, SequenceNode
from yaml.resolver import BaseResolver

__all__ = ["YamlError", "YamlDoc", "parse_yaml", "parse_yaml_bytes", "js_string"]


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


@dataclass
class YamlDoc:
    data: Any
    # id(container) -> line of the container; id(container) -> {key: line} or [item line, ...].
    # `data` keeps every container alive, so the ids stay valid as long as this object lives.
    _node_lines: dict = field(default_factory=dict, repr=False)
    _child_lines: dict = field(default_factory=dict, repr=False)

    def line(self, obj: Any, key: Any = None) -> int | None:
        """Line (1-based) of container `obj`, or of key `key` in dict `obj` / item `key` in list `obj`."""
        if key is None:
            return self._node_lines.get(id(obj))
        children = self._child_lines.get(id(obj))
        if children is None:
            return None
        if isinstance(children, dict):
            return children.get(key)
        if isinstance(key, int) and not isinstance(key, bool) and -len(children) <= key < len(children):
            return children[key]
        return None


# --- node tree from libyaml, with plain scalars left untyped -------------------------------------------------

_PLAIN = "?plain"  # tag given to untagged plain scalars: typed later by the core schema
_STR = "tag:yaml.org,2002:str"
_SEQ = "tag:yaml.org,2002:seq"
_MAP = "tag:yaml.org,2002:map"
_INT = "tag:yaml.org,2002:int"
_FLOAT = "tag:yaml.org,2002:float"
_BOOL = "tag:yaml.org,2002:bool"
_NULL = "tag:yaml.org,2002:null"


class _TagOnlyResolver(BaseResolver):
    """Leaves plain scalars for the core schema to type; quoted scalars and `!` are strings."""

    def resolve(self, kind, value, implicit):
        if kind is ScalarNode:
            return _PLAIN if implicit[0] else _STR
        return _SEQ if kind is SequenceNode else _MAP

    def descend_resolver(self, current_node, current_index):
        pass

    def ascend_resolver(self):
        pass


def _make_loader_class(parser_class):
    class _Loader(parser_class, yaml.constructor.BaseConstructor, _TagOnlyResolver):
        def __init__(self, stream):
            parser_class.__init__(self, stream)
            yaml.constructor.BaseConstructor.__init__(self)
            _TagOnlyResolver.__init__(self)

    return _Loader


try:
    from yaml._yaml import CParser as _CParser

    _Loader = _make_loader_class(_CParser)
    HAVE_LIBYAML = True
except ImportError:  # PyYAML built without libyaml
    from yaml.composer import Composer
    from yaml.parser import Parser
    from yaml.reader import Reader
    from yaml.scanner import Scanner

    class _PyParser(Reader, Scanner, Parser, Composer):
        def __init__(self, stream):
            Reader.__init__(self, stream)
            Scanner.__init__(self)
            Parser.__init__(self)
            Composer.__init__(self)

    _Loader = _make_loader_class(_PyParser)
    HAVE_LIBYAML = False


# --- YAML 1.2 core schema --------------------------------------------------------------------------------------

_INT_DEC = re.compile(r"[-+]?[0-9]+\Z")
_INT_OCT = re.compile(r"0o[0-7]+\Z")
_INT_HEX = re.compile(r"0x[0-9a-fA-F]+\Z")
_FLOAT_RE = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?\Z")
_NULLS = frozenset(("", "~", "null", "Null", "NULL"))
_TRUES = frozenset(("true", "True", "TRUE"))
_FALSES = frozenset(("false", "False", "FALSE"))
_INFS = {".inf": math.inf, ".Inf": math.inf, ".INF": math.inf, "+.inf": math.inf, "+.Inf": math.inf,
         "+.INF": math.inf, "-.inf": -math.inf, "-.Inf": -math.inf, "-.INF": -math.inf,
         ".nan": math.nan, ".NaN": math.nan, ".NAN": math.nan}
# A plain scalar starting with anything else is a string: checked first, as most scalars are text.
_SPECIAL_START = frozenset("0123456789+-.~nNtTfF")
_MAX_SAFE = 2**53


def _js_int(value: int) -> int | float:
    # JavaScript numbers are doubles: past 2**53 an integer keeps only the double's precision.
    if -_MAX_SAFE <= value <= _MAX_SAFE:
        return value
    as_float = float(value)
    return int(as_float) if math.isfinite(as_float) else as_float


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
    if _INT_DEC.match(value):
        return _js_int(int(value))
    if value.startswith("0o") and _INT_OCT.match(value):
        return _js_int(int(value[2:], 8))
    if value.startswith("0x") and _INT_HEX.match(value):
        return _js_int(int(value[2:], 16))
    if _FLOAT_RE.match(value):
        return float(value)
    special = _INFS.get(value)
    if special is not None:
        return special
    return value


def _tagged_scalar(tag: str, value: str, node) -> Any:
    """A scalar with an explicit tag. Core-schema tags type it; any other tag leaves the string."""
    if tag == _STR:
        return value
    if tag in (_INT, _FLOAT, _BOOL, _NULL):
        typed = _core_plain(value)
        if tag == _NULL and typed is None:
            return None
        if tag == _BOOL and isinstance(typed, bool):
            return typed
        if tag in (_INT, _FLOAT) and isinstance(typed, (int, float)) and not isinstance(typed, bool):
            return float(typed) if tag == _FLOAT else typed
        return value
    return value


# --- JavaScript String() of a value, for mapping keys -----------------------------------------------------------

def _js_number(value: float | int) -> str:
    if isinstance(value, int):
        if -_MAX_SAFE <= value <= _MAX_SAFE:
            return str(value)
        value = float(value)
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "0"
    if value.is_integer() and abs(value) <= _MAX_SAFE:
        return str(int(value))
    # Shortest round-trip digits (as JavaScript), laid out by JavaScript's Number::toString rules.
    sign = "-" if value < 0 else ""
    digits_repr = repr(abs(value))  # shortest round-trip digits, like JavaScript
    if "e" in digits_repr:
        mant, _, e = digits_repr.partition("e")
        exponent = int(e)
    else:
        mant, exponent = digits_repr, 0
    int_part, _, frac_part = mant.partition(".")
    digits = (int_part + frac_part).lstrip("0")
    lead_zeros = len(int_part + frac_part) - len((int_part + frac_part).lstrip("0"))
    point = len(int_part) + exponent - lead_zeros  # decimal point position relative to `digits`
    digits = digits.rstrip("0") or "0"
    k = len(digits)
    n = point
    if k <= n <= 21:
        return sign + digits + "0" * (n - k)
    if 0 < n <= 21:
        return sign + digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return sign + "0." + "0" * (-n) + digits
    exp = n - 1
    exp_str = f"e+{exp}" if exp >= 0 else f"e-{-exp}"
    if k == 1:
        return sign + digits + exp_str
    return sign + digits[0] + "." + digits[1:] + exp_str


def js_string(value: Any) -> str:
    """String(value) as JavaScript gives it, for the scalar values this module produces."""
    if value is None:
        return ""  # the reference's YAML parser turns a null key into ""
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, (int, float)):
        return _js_number(value)
    if isinstance(value, str):
        return value
    return _flow_text(value)


def _flow_text(value: Any) -> str:
    # How the reference's parser names a collection used as a key: its flow-style YAML text.
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
    return js_string(value)


def _key_identity(value: Any, node) -> Any:
    # Duplicate keys are compared by value like JavaScript's ===: 1 and 1.0 are the same key, "1" and 1 are not,
    # NaN is never equal to itself, collections only to themselves (an alias).
    if isinstance(value, str):
        return value
    if value is None:
        return ("null",)
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, (int, float)):
        if isinstance(value, float) and math.isnan(value):
            return ("nan", id(node))
        return ("num", float(value))
    return ("node", id(node))


def _is_array_index(key: str) -> bool:
    return key.isdigit() and key.isascii() and (key == "0" or key[0] != "0") and int(key) < 4294967295


# --- construction -----------------------------------------------------------------------------------------------

class _Builder:
    __slots__ = ("node_lines", "child_lines", "built")

    def __init__(self):
        self.node_lines: dict = {}
        self.child_lines: dict = {}
        self.built: dict = {}  # id(node) -> value, so aliases give the same object

    def build(self, node) -> Any:
        if node.__class__ is ScalarNode:
            tag = node.tag
            if tag == _PLAIN:
                return _core_plain(node.value)
            if tag == _STR:
                return node.value
            return _tagged_scalar(tag, node.value, node)
        done = self.built.get(id(node))
        if done is not None:
            return done
        if node.__class__ is SequenceNode:
            result: list = []
            self.built[id(node)] = result
            self.node_lines[id(result)] = node.start_mark.line + 1
            lines = []
            build = self.build
            for item in node.value:
                result.append(build(item))
                lines.append(item.start_mark.line + 1)
            self.child_lines[id(result)] = lines
            return result
        return self.build_mapping(node)

    def build_mapping(self, node) -> dict:
        result: dict = {}
        self.built[id(node)] = result
        self.node_lines[id(result)] = node.start_mark.line + 1
        key_lines: dict = {}
        seen: dict = {}
        needs_reorder = False
        build = self.build
        for key_node, value_node in node.value:
            if key_node.__class__ is ScalarNode and key_node.tag == _STR:
                raw_key = key_node.value
            else:
                raw_key = build(key_node)
            identity = raw_key if raw_key.__class__ is str else _key_identity(raw_key, key_node)
            first = seen.get(identity)
            if first is not None:
                shown = raw_key if isinstance(raw_key, str) else js_string(raw_key)
                raise YamlError(
                    f"duplicate key {shown!r} (first at line {first})",
                    key_node.start_mark.line + 1,
                    key_node.start_mark.column + 1,
                )
            line = key_node.start_mark.line + 1
            seen[identity] = line
            key = raw_key if raw_key.__class__ is str else js_string(raw_key)
            if not needs_reorder and key[:1].isdigit():
                needs_reorder = _is_array_index(key)
            result[key] = build(value_node)
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
        return result


# --- errors -----------------------------------------------------------------------------------------------------

_FRIENDLY_PROBLEMS = (
    ("found character '\\t' that cannot start any token", "a tab character is used for indentation (use spaces)"),
    ("found a tab character that violates indentation", "a tab character is used for indentation (use spaces)"),
    ("mapping values are not allowed here", "a ': ' appears where a mapping value is not allowed "
                                            "(quote the text, or fix the indentation)"),
    ("found undefined alias", "an alias refers to an anchor that is not defined"),
)


def _error_from_yaml(exc: yaml.YAMLError) -> YamlError:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    problem = getattr(exc, "problem", None) or str(exc)
    context = getattr(exc, "context", None)
    message = problem
    for needle, friendly in _FRIENDLY_PROBLEMS:
        if problem.startswith(needle):
            message = friendly
            break
    else:
        if context and problem.startswith(("expected", "did not find", "found unexpected", "could not find")):
            message = f"{problem} ({context})"
    message = message[0].upper() + message[1:] if message else "invalid YAML"
    if mark is None:
        return YamlError(f"invalid YAML: {message}")
    return YamlError(message, mark.line + 1, mark.column + 1)


# --- entry points -----------------------------------------------------------------------------------------------

def parse_yaml(text: str) -> YamlDoc:
    """Parse one YAML document with YAML 1.2 core-schema typing. Raises YamlError for anything refused."""
    # The node tree is hundreds of thousands of acyclic objects: cyclic GC passes over it would cost 4x the parse.
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _parse(text)
    finally:
        if gc_was_enabled:
            gc.enable()


def _parse(text: str) -> YamlDoc:
    loader = _Loader(text)
    try:
        try:
            root = loader.get_single_node()
        except yaml.composer.ComposerError as exc:
            if exc.problem and "another document" in exc.problem or (exc.context and "single document" in exc.context):
                mark = exc.problem_mark
                raise YamlError(
                    "the file holds more than one YAML document ('---' starts another one)",
                    mark.line + 1 if mark else None, mark.column + 1 if mark else None,
                ) from None
            raise
    except yaml.YAMLError as exc:
        raise _error_from_yaml(exc) from None
    finally:
        loader.dispose()
    builder = _Builder()
    if root is None:
        return YamlDoc(None)
    try:
        data = builder.build(root)
    except RecursionError:
        raise YamlError("the YAML nesting is too deep", root.start_mark.line + 1) from None
    return YamlDoc(data, builder.node_lines, builder.child_lines)


def parse_yaml_bytes(raw: bytes) -> YamlDoc:
    """Decode UTF-8 (a BOM is allowed) and parse; undecodable bytes raise YamlError naming line and column."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        good = raw[: exc.start]
        line = good.count(b"\n") + 1
        column = len(good[good.rfind(b"\n") + 1:].decode("utf-8", errors="replace")) + 1
        raise YamlError(
            f"the file is not valid UTF-8 (byte 0x{raw[exc.start]:02x} at offset {exc.start})", line, column
        ) from None
    if text.startswith("\ufeff"):
        text = text[1:]
    return parse_yaml(text)
