"""How yaml12 refuses a text: `YamlError` (one sentence, with the line), what kind of refusal it is, and the
headline AgentV's own parser gives for that kind; libyaml's terse problems said in terms of what the author wrote;
and the limits past which a text is refused."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from turnlens.formatting.evals.yaml_binding import lib, new_loader

# Nesting deeper than this is refused. The reference overflows its call stack somewhere between 806 (flow) and
# 965 (block sequences) levels; a single limit just below both disagrees only on files 801-965 levels deep.
MAX_DEPTH = 800
MAX_ALIAS_COUNT = 100  # the reference's guard against alias bombs ("billion laughs")


class Refusal(enum.Enum):
    """What kind of refusal a YamlError is, where AgentV's own parser names the same cause (REFUSALS)."""

    DUPLICATE_KEY = enum.auto()
    DUPLICATE_KEY_AFTER_EMPTY = enum.auto()  # placed, as the reference does, at the end of an empty value before
    MULTIPLE_DOCUMENTS = enum.auto()
    UNDEFINED_ALIAS = enum.auto()
    TAB_INDENT = enum.auto()
    ITEM_WITHOUT_DASH = enum.auto()
    FLOW_SEQUENCE_NOT_INDENTED = enum.auto()
    FLOW_SEQUENCE_UNCLOSED = enum.auto()
    NO_KEY_HERE = enum.auto()
    VALUE_RUNS_INTO_KEY = enum.auto()
    DOUBLE_QUOTE_NOT_INDENTED = enum.auto()
    SINGLE_QUOTE_NOT_INDENTED = enum.auto()
    OTHER = enum.auto()  # any other: its sentence is made where it is found, and AgentV words it differently


_UNCLOSED_FLOW = "Flow sequence in block collection must be sufficiently indented and end with a ]"
_NESTED_MAPPING = "Nested mappings are not allowed in compact mappings"
_QUOTE_NOT_INDENTED = (
    "the {quote}-quoted value opened at line {opened} continues on line {at_line} without being indented past its "
    "parent; indent it, or close the quote"
)

# Per kind: turnlens's sentence ({names} filled from YamlError.fields), and the headline the reference's `yaml`
# parser gives for it (checked against both oracles' recordings), shown first.
REFUSALS: dict[Refusal, tuple[str, str]] = {
    Refusal.DUPLICATE_KEY: ("duplicate key {key!r} (first at line {first})", "Map keys must be unique"),
    Refusal.DUPLICATE_KEY_AFTER_EMPTY: (
        "duplicate key {key!r} on line {at_line} (first at line {first})",
        "Map keys must be unique",
    ),
    Refusal.MULTIPLE_DOCUMENTS: (
        "the file holds more than one YAML document ('---' starts another one)",
        "Source contains multiple documents; please use YAML.parseAllDocuments()",
    ),
    Refusal.UNDEFINED_ALIAS: (
        "the alias *{name} refers to no anchor defined before it",
        "Unresolved alias (the anchor must be set before the alias): {name}",
    ),
    Refusal.TAB_INDENT: (
        "a tab character is used for indentation; YAML indents with spaces only",
        "Tabs are not allowed as indentation",
    ),
    Refusal.ITEM_WITHOUT_DASH: (
        "this line is indented past its list's '-' but does not start a new item with '- ' (check the indentation)",
        "Sequence item without - indicator",
    ),
    Refusal.FLOW_SEQUENCE_NOT_INDENTED: (
        "the '[' list opened at line {opened} is not closed with ']', or this line of it is not indented past its "
        "parent",
        _UNCLOSED_FLOW,
    ),
    Refusal.FLOW_SEQUENCE_UNCLOSED: (
        "the '[' list opened at line {opened} is not closed with ']' before the end of the text",
        _UNCLOSED_FLOW,
    ),
    Refusal.NO_KEY_HERE: (
        "a ': ' appears where no key can start; quote a value that contains ': ', or fix the indentation",
        _NESTED_MAPPING,
    ),
    Refusal.VALUE_RUNS_INTO_KEY: (
        "this value runs on into line {at_line}, where a ': ' makes it a key; indent that line like the keys above it, "
        "or quote the value",
        _NESTED_MAPPING,
    ),
    Refusal.DOUBLE_QUOTE_NOT_INDENTED: (_QUOTE_NOT_INDENTED, 'Missing closing "quote'),
    Refusal.SINGLE_QUOTE_NOT_INDENTED: (_QUOTE_NOT_INDENTED, "Missing closing 'quote"),
}


class YamlError(Exception):
    """A YAML text the reference refuses. `message` is one human sentence; `line`/`column` are 1-based or None;
    `kind` says which refusal it is, `fields` what its sentence and headline were filled with."""

    def __init__(
        self,
        message: str,
        line: int | None = None,
        column: int | None = None,
        kind: Refusal = Refusal.OTHER,
        fields: dict[str, Any] | None = None,
    ):
        self.message = message
        self.line = line
        self.column = column
        self.kind = kind
        self.fields = fields or {}
        super().__init__(str(self))

    @classmethod
    def of(cls, kind: Refusal, line: int | None = None, column: int | None = None, **fields: Any) -> YamlError:
        """The refusal of `kind`, worded from its sentence in REFUSALS."""
        return cls(REFUSALS[kind][0].format(**fields), line, column, kind, fields)

    def __str__(self) -> str:
        if self.line is None:
            return self.message
        if self.column is None:
            return f"line {self.line}: {self.message}"
        return f"line {self.line}, column {self.column}: {self.message}"


def refusal_text(exc: YamlError) -> str:
    """The refusal as shown: the reference parser's own headline where it is known, then ours after a dash."""
    known = REFUSALS.get(exc.kind)
    if known is None:
        return exc.message
    return f"{known[1].format(**exc.fields)} — {exc.message}"


class NestingError(YamlError):
    """Too deep: reported as is (re-reading such a text for an earlier refusal would take long)."""


@dataclass(frozen=True)
class YamlWarning:
    """A warning the YAML reader gives and reads on (1-based line and column, when known)."""

    line: int | None
    column: int | None
    message: str


# --- errors -----------------------------------------------------------------------------------------------------


def _line_at(text: str, mark: Any) -> str:
    lines = text.split("\n", mark.line + 1)
    return lines[mark.line] if mark.line < len(lines) else ""


def _problem_sentence(problem: str, context: str, line: str, column: int, opened: str) -> str | Refusal:
    """libyaml's terse problem, said in terms of what the author wrote (a Refusal: its sentence in REFUSALS).
    `opened`: " (opened at line N)" or ""."""
    char = line[column] if column < len(line) else ""
    if problem.startswith(("found character that cannot start any token", "found a tab character")):
        if char == "\t" or problem.startswith("found a tab"):
            return Refusal.TAB_INDENT
        if char in ("@", "`", "%"):
            return f"a value cannot start with '{char}' unless it is quoted"
        return f"the character {char!r} cannot start a value here; quote the value"
    if problem.startswith("mapping values are not allowed"):
        if column > 1024:
            return "a key is longer than 1024 characters, YAML's limit for a key written without '? '"
        return Refusal.NO_KEY_HERE
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


def _implicit_key_start(text: str) -> Any:
    """Where the scalar that a stray ': ' would make a key starts (the reference reports that place)."""
    loader = new_loader(text)
    last = None
    try:
        while loader.check_token():
            token = loader.get_token()
            if token.__class__ is lib.yaml.ScalarToken:
                last = token
    except lib.yaml.YAMLError:
        return last.start_mark if last is not None else None
    finally:
        loader.dispose()
    return None


def error_from_yaml(exc: Any, text: str) -> YamlError:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    problem = getattr(exc, "problem", None) or str(exc)
    context = getattr(exc, "context", None) or ""
    if mark is None:
        return YamlError(f"invalid YAML: {problem}")
    if problem.startswith("mapping values are not allowed"):
        key_start = _implicit_key_start(text)
        if key_start is not None and key_start.line < mark.line:
            return YamlError.of(
                Refusal.VALUE_RUNS_INTO_KEY, key_start.line + 1, key_start.column + 1, at_line=mark.line + 1
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
            return YamlError.of(Refusal.ITEM_WITHOUT_DASH, mark.line + 1, mark.column + 1)
    if problem.startswith("did not find expected ',' or ']'") and start is not None and not text[mark.index :].strip():
        return YamlError.of(Refusal.FLOW_SEQUENCE_UNCLOSED, mark.line + 1, mark.column + 1, opened=start.line + 1)
    if problem == "could not find expected ':'" and start is not None:
        mark = start  # libyaml looks for the ':' until the end of the text; the line that lacks it is the news
    opened = f" (opened at line {start.line + 1})" if start is not None and start.line != mark.line else ""
    message = _problem_sentence(problem, context, _line_at(text, mark), mark.column, opened)
    if isinstance(message, Refusal):
        return YamlError.of(message, mark.line + 1, mark.column + 1)
    return YamlError(message, mark.line + 1, mark.column + 1)


# libyaml 0.2.6 (PyYAML 6.0.4's wheels) stops at its own nesting limit, 1,000 levels, with this `problem`; earlier
# libyaml versions and the pure-Python parser have none, and MAX_DEPTH stops the text. Either way it is one refusal.
_LIBRARY_NESTING_PROBLEM = "exceeded maximum nesting depth"


def nesting_refusal(exc: Any) -> NestingError | None:
    """The library's own nesting refusal as turnlens words it (MAX_DEPTH's), or None for any other error."""
    if getattr(exc, "problem", None) != _LIBRARY_NESTING_PROBLEM:
        return None
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    line, column = (mark.line + 1, mark.column + 1) if mark is not None else (None, None)
    return NestingError(f"the data is nested more than {MAX_DEPTH} levels deep", line, column)
