"""AgentV 4.42.4's reading of a test's graders: `assertions` (and the deprecated `assert`, `execution.evaluators`,
`evaluators`), `include:` templates from `.agentv/templates/`, the suite's assertions appended, the test's `rubrics`
prepended. Each rule was checked against the 4.42.4 reference (tests/fixtures/graders/).

What AgentV warns about and leaves out is a warning here, in its words; what makes AgentV skip the whole test is a
`GraderError` with its message. Plain data out: `Grader` objects in the order AgentV runs them.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeGuard

from turnlens.formatting.evals.files import FileReadError
from turnlens.formatting.evals.interpolate import interpolate_env
from turnlens.formatting.evals.references import read_error_text, read_text
from turnlens.formatting.evals.yaml12 import YamlError, parse_yaml
from turnlens.formatting.jsstr import js_blank, js_json, js_trim
from turnlens.formatting.model import Grader, GraderPrompt
from turnlens.formatting.patterns import LazyPattern
from turnlens.formatting.records import JsonArray, JsonObject

# The grader types AgentV 4.42.4 knows; any other string type is a custom assertion (`.agentv/assertions/`).
KNOWN_TYPES = frozenset(
    (
        "code-grader llm-grader rubric composite tool-trajectory field-accuracy latency cost token-usage "
        "execution-metrics skill-trigger contains contains-any contains-all icontains icontains-any icontains-all "
        "starts-with ends-with regex is-json equals rubrics inline-assert"
    ).split()
)
DEPRECATED_TYPES = {"code-judge": "code-grader", "llm-judge": "llm-grader"}
TEMPLATE_VARIABLES = (
    "expected_output",
    "criteria",
    "metadata",
    "metadata_json",
    "rubrics",
    "rubrics_json",
    "input",
    "output",
    "file_changes",
    "tool_calls",
)
# `{{ name }}` in a grader's prompt: what makes a prompt a whole template (graders/prompts.py fills it the same way)
TEMPLATE_VARIABLE = LazyPattern(r"\{\{\s*([a-zA-Z0-9_]+)\s*\}\}")
INCLUDE_DEPTH = 3  # AgentV's limit on nested `include:` templates
FILE_PREFIX = "file://"
TRAJECTORY_MODES = ("any_order", "in_order", "exact", "subset", "superset")
ARGS_MATCH = ("exact", "superset", "subset", "ignore")
RUBRIC_OPERATORS = ("correctness", "contradiction")
FIELD_MATCHES = ("exact", "numeric_tolerance", "date")
FIELD_AGGREGATIONS = ("weighted_average", "all_or_nothing")
AGGREGATORS = ("weighted_average", "code-grader", "llm-grader", "threshold")
SCRIPT_SUFFIXES = (
    ".js",
    ".ts",
    ".jsx",
    ".tsx",
    ".cjs",
    ".mjs",
    ".cts",
    ".mts",
    ".py",
    ".sh",
    ".bash",
    ".rb",
    ".go",
    ".rs",
)
# Where AgentV registers custom types from, in its order: every folder's `.agentv/assertions/` first, then every
# folder's `.agentv/graders/` and `.agentv/judges/`; in a folder the files in name order (the first name wins).
CUSTOM_FOLDERS = ((".agentv/assertions",), (".agentv/graders", ".agentv/judges"))
CUSTOM_SUFFIXES = (".js", ".mjs", ".mts", ".ts")  # (name order: a.js before a.mjs, a.mts, a.ts)

UNDEFINED: Any = object()  # a key that is not there (JavaScript's undefined), unlike a null value


class GraderError(Exception):
    """AgentV cannot parse a grader: it skips the whole test with this message."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message
        self.warnings: list[tuple[str, int | None]] = []  # what AgentV warned about before it gave up


class GraderRefusal(Exception):
    """AgentV cannot read a test's own `rubrics`: it refuses the whole file with this message (a bad score-range
    shorthand there is not a skip of the test, as it is in `assertions`)."""

    def __init__(self, message: str, line: int | None, warnings: list[tuple[str, int | None]]):
        super().__init__(message)
        self.message, self.line, self.warnings = message, line, warnings


@dataclass
class GraderSource:
    """Where the graders are read: the search folders of file references, the environment for templates."""

    roots: list[str]  # eval file's folder up to the repo root, the repo root, the working folder
    env: Mapping[str, str]
    eval_dir: str
    repo_root: str
    # the line in the eval file of a container, or of one of its items/keys: line_of(obj) or line_of(obj, key)
    line_of: Callable[..., int | None] = lambda _obj, _key=None: None
    # template file (absolute) -> its text, or why it could not be read
    texts: dict[str, tuple[str | None, str | None]] = field(default_factory=dict)
    # (eval folder, custom type) -> the file that defines it, or None
    custom_types: dict[tuple[str, str], str | None] = field(default_factory=dict)


@dataclass
class Parsed:
    """A test's graders as read, with AgentV's warnings about them and what it does without a word."""

    graders: list[Grader]
    warnings: list[tuple[str, int | None]]  # in AgentV's words, without its "Warning: "
    traps: list[tuple[str, int | None]] = field(default_factory=list)  # what AgentV does without a word


class _Parse:
    def __init__(self, source: GraderSource, test_id: str, from_suite: bool):
        self.source = source
        self.test_id = test_id
        self.from_suite = from_suite
        self.warnings: list[tuple[str, int | None]] = []
        self.traps: list[tuple[str, int | None]] = []  # turnlens's own: what AgentV does silently
        self.line: int | None = None  # the eval-file line of the definition being read

    def warn(self, message: str) -> None:
        self.warnings.append((message, self.line))


def js_text(value: Any) -> str:
    """`${value}` in JavaScript for YAML data."""
    if value is UNDEFINED:
        return "undefined"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
    if isinstance(value, (int, float)):
        return js_json(value)
    if isinstance(value, list):
        return ",".join("" if v is None else js_text(v) for v in value)
    if isinstance(value, dict):
        return "[object Object]"
    return str(value)


def _number(value: Any) -> TypeGuard[float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _string(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _get(d: JsonObject, key: str) -> Any:
    return d.get(key, UNDEFINED)


def _coalesce(*values: Any) -> Any:
    """JavaScript's `a ?? b ?? …`."""
    for v in values:
        if v is not UNDEFINED and v is not None:
            return v
    return values[-1]


def resolve_in(raw: str, roots: Iterable[str]) -> tuple[str | None, str, list[str]]:
    """A file reference as AgentV resolves it: (absolute path or None, display path, places tried)."""
    display = raw.lstrip("/\\")
    tried: list[str] = []
    if os.path.isabs(raw):
        tried.append(os.path.normpath(raw))
    for root in roots:
        cand = os.path.normpath(os.path.join(root, display))
        if cand not in tried:
            tried.append(cand)
    found = next((p for p in tried if os.path.exists(p)), None)
    return found, display, tried


def parse_graders(
    test: JsonObject, suite: JsonObject | None, source: GraderSource, test_id: str, *, skip_defaults: bool = False
) -> Parsed:
    """The graders AgentV runs for one test, in its order; raises GraderError when AgentV skips the test."""
    execution = test.get("execution")
    execution = execution if isinstance(execution, dict) else None
    own = _coalesce(
        _get(test, "assertions"),
        _get(test, "assert"),
        _get(execution, "evaluators") if execution is not None else UNDEFINED,
        _get(test, "evaluators"),
    )
    suite_defs: Any = UNDEFINED
    if suite is not None and not skip_defaults:
        suite_defs = _coalesce(_get(suite, "assertions"), _get(suite, "assert"), _get(suite, "evaluators"))
    warnings: list[tuple[str, int | None]] = []
    traps: list[tuple[str, int | None]] = []
    graders: list[Grader] = []
    for defs, from_suite in ((own, False), (suite_defs, True)):
        p = _Parse(source, test_id, from_suite)
        try:
            graders.extend(_parse_list(p, defs, list(source.roots), test_id) or [])
        except GraderError as exc:
            exc.warnings = [*warnings, *p.warnings]
            raise
        warnings.extend(p.warnings)
        traps.extend(p.traps)
    rubrics = test.get("rubrics")
    if isinstance(rubrics, list):
        p = _Parse(source, test_id, False)
        p.line = source.line_of(rubrics)
        try:
            inline = _inline_rubrics(p, rubrics)
        except GraderError as exc:
            raise GraderRefusal(exc.message, p.line, [*warnings, *p.warnings]) from None
        warnings.extend(p.warnings)
        if inline is not None:
            graders.insert(0, inline)
    return Parsed(graders, warnings, traps)


# --- include: templates -----------------------------------------------------------------------------------------


# An assertion after includes are expanded: (its definition, the template file it came from or None, the position of
# the item that brought it in the test's list).
_Expanded = tuple[Any, str | None, int]


def _expand(p: _Parse, defs: Any, roots: list[str], where: str, depth: int, chain: list[str]) -> list[_Expanded] | None:
    """`defs` with every `{include: NAME}` replaced by its template's assertions (each marked with its file)."""
    if defs is UNDEFINED:
        return None
    if not isinstance(defs, list):
        p.warn(f"Skipping evaluators for '{where}': expected array")
        return None
    out: list[_Expanded] = []
    for position, item in enumerate(defs):
        if isinstance(item, dict) and len(item) == 1 and isinstance(item.get("include"), str):
            included = _include(p, item["include"], roots, where, depth, chain)
            out.extend((entry, origin, position) for entry, origin, _ in included)
        else:
            out.append((item, None, position))
    return out


def _include(p: _Parse, name: str, roots: list[str], where: str, depth: int, chain: list[str]) -> list[_Expanded]:
    depth += 1
    if depth > INCLUDE_DEPTH:
        raise GraderError(
            f"Assertion template include depth exceeded {INCLUDE_DEPTH} in '{where}'. "
            f"Include chain: {' -> '.join([*chain, name])}"
        )
    bare = not name.startswith(".") and "/" not in name and "\\" not in name
    candidates = [f".agentv/templates/{name}.yaml", f".agentv/templates/{name}.yml"] if bare else [name]
    tried: list[str] = []
    found = None
    for cand in candidates:
        found, _display, attempted = resolve_in(cand, roots)
        tried.extend(attempted)
        if found:
            break
    if not found:
        shown = candidates[0].lstrip("/\\")
        lines = "".join(f"\n  Tried: {t}" for t in tried)
        raise GraderError(f"Assertion template not found in '{where}': {shown}{lines}")
    found = os.path.abspath(found)
    if found in chain:
        raise GraderError(f"Assertion template cycle detected in '{where}': {' -> '.join([*chain, found])}")
    text, problem = _read(p.source, found)
    if text is None:
        raise GraderError(f"Could not read assertion template in '{where}': {found}: {problem}")
    try:
        data = interpolate_env(parse_yaml(text, merge=True).data, p.source.env)
    except YamlError as exc:
        raise GraderError(f"Invalid assertion template file in '{where}': {found}: {exc.message}") from None
    if not isinstance(data, dict):
        raise GraderError(
            f"Invalid assertion template file in '{where}': {found} (expected a YAML object with an assertions array)"
        )
    entries = data.get("assertions")
    if not isinstance(entries, list):
        raise GraderError(
            f"Invalid assertion template file in '{where}': {found} is missing a top-level assertions array"
        )
    folder = os.path.dirname(found)
    inner_roots = [folder, *(r for r in roots if os.path.abspath(r) != folder)]
    expanded = _expand(p, entries, inner_roots, where, depth, [*chain, found]) or []
    return [(item, origin or found, position) for item, origin, position in expanded]


def _read(source: GraderSource, path: str) -> tuple[str | None, str | None]:
    hit = source.texts.get(path)
    if hit is None:
        try:
            hit = (read_text(path)[0], None)
        except FileReadError as exc:
            hit = (None, read_error_text(exc, path))
        source.texts[path] = hit
    return hit


# --- one list of definitions ------------------------------------------------------------------------------------


def _parse_list(p: _Parse, defs: Any, roots: list[str], where: str, member_of: str | None = None) -> list[Grader]:
    lines = _item_lines(p, defs)
    expanded = _expand(p, defs, roots, where, 0, [])
    if expanded is None:
        return []
    # string assertions are grouped into one rubrics grader, where the first string stands
    items: list[tuple[Any, str | None, int | None]] = []
    strings: list[str] = []
    placed = False
    for item, origin, position in expanded:
        line = lines.get(position)
        if line is None:
            line = p.line  # (a composite's member: its line was found by the composite)
        if isinstance(item, str):
            text = js_trim(item)
            if not text:
                p.line = line
                p.warn(f"Skipping empty string criterion in assert array for '{where}'")
            else:
                strings.append(text)
            if not placed:
                items.append((_RUBRIC_PLACE, origin, line))
                placed = True
            continue
        items.append((item, origin, line))
    graders: list[Grader] = []
    for item, origin, line in items:
        if item is _RUBRIC_PLACE:
            if not strings:
                continue
            item = {"type": "rubrics", "criteria": strings, "weight": len(strings)}
        p.line = line
        grader = _parse_one(p, item, roots, where)
        if grader is not None:
            grader.line = line
            grader.included_from = origin
            graders.append(grader)
    return graders


_RUBRIC_PLACE = object()


def _item_lines(p: _Parse, defs: Any) -> dict[int, int | None]:
    """position -> the line of the item (or of the `include:` that brought it) in the eval file."""
    out: dict[int, int | None] = {}
    if isinstance(defs, list):
        for index in range(len(defs)):
            out[index] = p.source.line_of(defs, index)
    return out


def _default_name(kind: str, d: JsonObject) -> str:
    value = _string(d.get("value"))
    values = d.get("value") if isinstance(d.get("value"), list) else None
    if kind == "skill-trigger":
        skill = _string(d.get("skill"))
        return f"skill-trigger-{skill}" if skill else "skill-trigger"
    if kind in ("contains", "icontains", "starts-with", "ends-with", "equals"):
        return f"{kind}-{value}" if value else kind
    if kind in ("contains-any", "contains-all", "icontains-any", "icontains-all"):
        return f"{kind}-{len(values)}" if values is not None else kind
    if kind == "regex":
        return f"regex-{value[:30]}" if value else "regex"
    return kind


def _weight(d: JsonObject, name: str, where: str) -> float | None:
    w = d.get("weight", UNDEFINED)
    if w is UNDEFINED:
        return None
    if not _number(w):
        raise GraderError(f"Invalid weight for evaluator '{name}' in '{where}': must be a number")
    if math.isnan(w) or math.isinf(w):
        raise GraderError(f"Invalid weight for evaluator '{name}' in '{where}': must be finite (got {js_text(w)})")
    if w < 0:
        raise GraderError(
            f"Invalid weight for evaluator '{name}' in '{where}': must be non-negative (got {js_text(w)})"
        )
    return w


def _required(p: _Parse, d: JsonObject, g: Grader, where: str) -> None:
    required, min_score = d.get("required"), d.get("min_score")
    if _number(min_score) and 0 < min_score <= 1:
        g.min_score = min_score
    if required is True:
        g.required = True
    elif _number(required) and 0 < required <= 1:
        if g.min_score is None:
            g.min_score = required
        g.required = required
        p.warn(
            f"Grader '{g.name}' in '{where}': 'required: {js_text(required)}' is deprecated. "
            f"Use 'required: true' + 'min_score: {js_text(required)}' instead."
        )


def _argv(value: Any, label: str) -> list[str] | None:
    if value is UNDEFINED:
        return None
    if not isinstance(value, list):
        raise GraderError(f"{label} must be an array of strings (argv tokens)")
    if not value:
        raise GraderError(f"{label} cannot be empty")
    for i, token in enumerate(value):
        if not isinstance(token, str):
            raise GraderError(f"{label}[{i}] must be a string")
        if js_blank(token):
            raise GraderError(f"{label}[{i}] cannot be empty")
    return list(value)


def _looks_like_script(token: str) -> bool:
    return (
        os.path.isabs(token)
        or token.startswith(".")
        or "/" in token
        or "\\" in token
        or token.lower().endswith(SCRIPT_SUFFIXES)
    )


def _parse_one(p: _Parse, d: Any, roots: list[str], where: str) -> Grader | None:
    if not isinstance(d, dict):
        p.warn(f"Skipping invalid evaluator entry for '{where}' (expected object)")
        return None
    written_name = _string(d.get("name"))
    written_type = d.get("type", UNDEFINED)
    kind = written_type.replace("_", "-") if isinstance(written_type, str) else written_type
    if isinstance(kind, str) and kind in DEPRECATED_TYPES:
        p.warn(
            f"Skipping evaluator '{written_name if written_name is not None else '<unnamed>'}' in '{where}': "
            f"'{written_type}' is deprecated. Use '{DEPRECATED_TYPES[kind]}' instead"
        )
        return None
    if not isinstance(kind, str):
        p.warn(f"Skipping evaluator with invalid type in '{where}'")
        return None
    custom = kind not in KNOWN_TYPES
    name = written_name if written_name is not None else (kind if custom else _default_name(kind, d))
    if not name:
        p.warn(f"Skipping evaluator with missing name in '{where}'")
        return None
    g = Grader(name, kind, None, p.line, p.from_suite, raw=d, kind=kind)
    g.negate = d.get("negate") is True
    _preprocessors(p, d, roots, name, where, g)
    if custom:
        g.weight = _weight(d, name, where)
        _required(p, d, g, where)
        skip = {"name", "type", "weight", "required", "min_score", "negate"}
        config = {k: v for k, v in d.items() if k not in skip}
        if config:
            g.settings["config"] = config
        g.script_path = _custom_definition(p.source, kind)
        return g
    handler = _HANDLERS.get(kind)
    if handler is not None:
        return handler(p, d, g, roots, where)
    return _llm_grader(p, d, g, roots, where)


def _preprocessors(p: _Parse, d: JsonObject, roots: list[str], name: str, where: str, g: Grader) -> None:
    value = d.get("preprocessors", UNDEFINED)
    if value is UNDEFINED:
        return
    if not isinstance(value, list):
        raise GraderError(f"Grader '{name}' in '{where}': preprocessors must be an array")
    out = []
    for item in value:
        if not isinstance(item, dict):
            raise GraderError(f"Grader '{name}' in '{where}': each preprocessor must be an object")
        ptype = _string(item.get("type"))
        ptype = js_trim(ptype) if ptype is not None else None
        if not ptype:
            raise GraderError(f"Grader '{name}' in '{where}': preprocessor.type is required")
        command = _argv(item.get("command", UNDEFINED), f"preprocessor command for evaluator '{name}' in '{where}'")
        if not command:
            raise GraderError(f"Grader '{name}' in '{where}': preprocessor '{ptype}' requires command")
        found, display, _tried = resolve_in(command[-1], roots)
        if not found:
            raise GraderError(f"Grader '{name}' in '{where}': preprocessor command file not found: {display}")
        out.append({"type": ptype, "command": command})
    if out:
        g.settings["preprocessors"] = out


def _custom_definition(source: GraderSource, kind: str) -> str | None:
    """The file AgentV registers a custom assertion type from (checked with the 4.42.4 CLI's dry runs,
    tests/fixtures/custom_types/): `TYPE.js`, `.mjs`, `.mts` or `.ts` (exactly: case and suffix) in
    `.agentv/assertions/` of the eval file's folder or of any folder above it, up to the filesystem root (past the
    repository's; the working folder is not searched), nearest first; failing that, in `.agentv/graders/` then
    `.agentv/judges/` the same way. Only looked up, never read."""
    if "/" in kind or "\\" in kind or kind.strip(".") == "":  # (no file is named so: never a path to follow)
        return None
    key = (source.eval_dir, kind)
    if key in source.custom_types:
        return source.custom_types[key]
    folders = []
    folder = os.path.abspath(source.eval_dir)
    while True:
        folders.append(folder)
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    found = next(
        (
            cand
            for subs in CUSTOM_FOLDERS
            for folder in folders
            for sub in subs
            for suffix in CUSTOM_SUFFIXES
            if os.path.isfile(cand := os.path.join(folder, sub, kind + suffix))
        ),
        None,
    )
    source.custom_types[key] = found
    return found


# --- the types --------------------------------------------------------------------------------------------------


def _finish(p: _Parse, d: JsonObject, g: Grader, where: str) -> Grader:
    g.weight = _weight(d, g.name, where)
    _required(p, d, g, where)
    return g


def _value_grader(p: _Parse, d: JsonObject, g: Grader, roots: list[str], where: str) -> Grader | None:
    value = _string(d.get("value"))
    if not value:
        p.warn(f"Skipping {g.type} evaluator '{g.name}' in '{where}': missing value")
        return None
    g.settings["value"] = value
    if g.type == "regex":
        flags = _string(d.get("flags"))
        if flags is not None:
            g.settings["flags"] = flags
    return _finish(p, d, g, where)


def _values_grader(p: _Parse, d: JsonObject, g: Grader, roots: list[str], where: str) -> Grader | None:
    raw = d.get("value")
    values = [v for v in raw if isinstance(v, str)] if isinstance(raw, list) else []
    if not values:
        p.warn(f"Skipping {g.type} evaluator '{g.name}' in '{where}': value must be a non-empty string array")
        return None
    g.settings["value"] = values
    return _finish(p, d, g, where)


def _is_json(p: _Parse, d: JsonObject, g: Grader, roots: list[str], where: str) -> Grader | None:
    return _finish(p, d, g, where)


def _code_grader(p: _Parse, d: JsonObject, g: Grader, roots: list[str], where: str) -> Grader | None:
    name = g.name
    if "script" in d and "command" not in d:
        p.warn(f"'script' is deprecated in evaluator '{name}' in '{where}'. Use 'command' instead.")
    raw = _coalesce(d.get("command", UNDEFINED), d.get("script", UNDEFINED))
    command: list[str] | None
    if isinstance(raw, str):
        text = js_trim(raw)
        if not text:
            raise GraderError(
                f"Invalid code-grader command for evaluator '{name}' in '{where}': command cannot be empty"
            )
        command = ["sh", "-lc", text]
    else:
        command = _argv(raw, f"code-grader command for evaluator '{name}' in '{where}'")
    if not command:
        p.warn(f"Skipping code-grader evaluator '{name}' in '{where}': missing command")
        return None
    g.weight = _weight(d, name, where)
    g.settings["command"] = command
    last = command[-1]
    if last and _looks_like_script(last):
        found, _display, _tried = resolve_in(last, roots)
        g.script_path = os.path.abspath(found) if found else None
    cwd = _string(d.get("cwd"))
    if cwd:
        found, display, tried = resolve_in(cwd, roots)
        if found:
            g.settings["cwd"] = os.path.abspath(found)
        else:
            lines = "".join(f"\n  Tried: {t}" for t in tried)
            p.warn(f"Code-grader evaluator '{name}' in '{where}': cwd not found ({display}){lines}")
    target = d.get("target", UNDEFINED)
    if target is not UNDEFINED:
        if isinstance(target, dict):
            calls = target.get("max_calls", UNDEFINED)
            if calls is not UNDEFINED and (not _number(calls) or calls < 0):
                p.warn(f"Invalid target.max_calls for evaluator '{name}' in '{where}': must be a non-negative number")
            else:
                g.settings["target"] = {"max_calls": calls} if _number(calls) else {}
        elif target is True:
            g.settings["target"] = {}
        else:
            p.warn(f"Invalid target config for evaluator '{name}' in '{where}': expected object or true")
    _required(p, d, g, where)
    skip = {"name", "type", "command", "script", "cwd", "weight", "target", "config", "preprocessors"}
    skip |= {"required", "min_score", "negate"}
    config = {k: v for k, v in d.items() if k not in skip}
    if isinstance(d.get("config"), dict):
        config.update(d["config"])
    if config:
        g.settings["config"] = config
    return g


def _composite(p: _Parse, d: JsonObject, g: Grader, roots: list[str], where: str) -> Grader | None:
    name = g.name
    members = _coalesce(d.get("assertions", UNDEFINED), d.get("assert", UNDEFINED), d.get("evaluators", UNDEFINED))
    if not isinstance(members, list):
        p.warn(f"Skipping composite evaluator '{name}' in '{where}': missing assertions (or evaluators) array")
        return None
    aggregator = d.get("aggregator")
    if not isinstance(aggregator, dict):
        p.warn(f"Skipping composite evaluator '{name}' in '{where}': missing aggregator")
        return None
    written = aggregator.get("type", UNDEFINED)
    agg = written
    if isinstance(written, str) and written not in ("weighted_average", "threshold"):
        agg = written.replace("_", "-")
    if isinstance(agg, str) and agg in DEPRECATED_TYPES:
        p.warn(
            f"Skipping composite evaluator '{name}' in '{where}': aggregator type '{written}' is deprecated. "
            f"Use '{DEPRECATED_TYPES[agg]}' instead"
        )
        return None
    if agg not in AGGREGATORS:
        shown = js_text(written) if isinstance(written, str) or written is UNDEFINED else js_text(written)
        p.warn(f"Skipping composite evaluator '{name}' in '{where}': invalid aggregator type '{shown}'")
        return None
    inner_where = f"{where}:{name}"
    expanded = _expand(p, members, roots, inner_where, 0, [])
    if expanded is None:
        return None
    outer_line = p.line
    for member, origin, _position in expanded:
        if not isinstance(member, dict):
            p.warn(f"Skipping invalid member evaluator in composite '{name}' (expected object)")
            continue
        member_name = _string(member.get("name"))
        if not member_name or member.get("type") not in KNOWN_TYPES:
            p.warn(f"Skipping member evaluator with invalid name/type in composite '{name}'")
            continue
        inner = _Parse(p.source, p.test_id, p.from_suite)
        inner.line = p.source.line_of(member) or outer_line
        try:
            parsed = _parse_list(inner, [member], roots, f"{inner_where}:{member_name}")
        finally:
            p.warnings.extend(inner.warnings)
        if parsed:
            parsed[0].included_from = origin
            g.members.append(parsed[0])
    p.line = outer_line
    if not g.members:
        p.warn(f"Skipping composite evaluator '{name}' in '{where}': no valid member evaluators")
        return None
    settings: dict[str, Any] = {"type": agg}
    if agg == "weighted_average":
        weights = aggregator.get("weights")
        kept = {k: v for k, v in weights.items() if _number(v)} if isinstance(weights, dict) else {}
        if kept:
            settings["weights"] = kept
    elif agg == "code-grader":
        path = _string(aggregator.get("path"))
        if not path:
            p.warn(f"Skipping composite evaluator '{name}' in '{where}': code-grader aggregator missing path")
            return None
        settings["path"] = path
    elif agg == "threshold":
        threshold = aggregator.get("threshold")
        if not _number(threshold) or threshold < 0 or threshold > 1:
            p.warn(
                f"Skipping composite evaluator '{name}' in '{where}': threshold must be a number between 0.0 and 1.0"
            )
            return None
        settings["threshold"] = threshold
    else:
        prompt = _string(aggregator.get("prompt"))
        if prompt and prompt.startswith(FILE_PREFIX):
            found, display, _tried = resolve_in(prompt[len(FILE_PREFIX) :], roots)
            if not found:
                raise GraderError(f"Composite aggregator in '{where}': prompt file not found: {display}")
            settings["prompt"] = prompt[len(FILE_PREFIX) :]
            settings["promptPath"] = os.path.abspath(found)
        elif prompt:
            settings["prompt"] = prompt
    g.settings["aggregator"] = settings
    return _finish(p, d, g, where)


def _trajectory(p: _Parse, d: JsonObject, g: Grader, roots: list[str], where: str) -> Grader | None:
    name = g.name
    mode = d.get("mode", UNDEFINED)
    if mode not in TRAJECTORY_MODES:
        p.warn(
            f"Skipping tool-trajectory evaluator '{name}' in '{where}': invalid mode "
            f"'{js_text(mode if isinstance(mode, str) else UNDEFINED)}' "
            "(must be any_order, in_order, exact, subset, or superset)"
        )
        return None
    settings: dict[str, Any] = {"mode": mode}
    minimums = d.get("minimums", UNDEFINED)
    kept_minimums = None
    if minimums is not UNDEFINED:
        if not isinstance(minimums, dict):
            p.warn(f"Skipping tool-trajectory evaluator '{name}' in '{where}': minimums must be an object")
            return None
        kept_minimums = {k: v for k, v in minimums.items() if _number(v) and v >= 0}
    args_match = _coalesce(d.get("args_match", UNDEFINED), d.get("argsMatch", UNDEFINED))
    match: Any = None
    if isinstance(args_match, list):
        match = [a for a in args_match if isinstance(a, str) and a] or None
    elif isinstance(args_match, str):
        if args_match in ARGS_MATCH:
            match = args_match
        else:
            p.warn(
                f"Invalid args_match '{args_match}' for tool-trajectory evaluator '{name}' in '{where}': "
                "must be exact, superset, subset, ignore, or a string array"
            )
    expected = d.get("expected", UNDEFINED)
    kept_expected = None
    if expected is not UNDEFINED:
        if not isinstance(expected, list):
            p.warn(f"Skipping tool-trajectory evaluator '{name}' in '{where}': expected must be an array")
            return None
        kept_expected = []
        for item in expected:
            if not (isinstance(item, dict) and isinstance(item.get("tool"), str)):
                continue
            call: dict[str, Any] = {"tool": item["tool"]}
            args = item.get("args")
            if args == "any" or isinstance(args, dict):
                call["args"] = args
            duration = _coalesce(item.get("max_duration_ms", UNDEFINED), item.get("maxDurationMs", UNDEFINED))
            if _number(duration) and duration >= 0:
                call["maxDurationMs"] = duration
            item_match = _coalesce(item.get("args_match", UNDEFINED), item.get("argsMatch", UNDEFINED))
            if isinstance(item_match, list):
                kept = [a for a in item_match if isinstance(a, str) and a]
                if kept:
                    call["argsMatch"] = kept
            elif isinstance(item_match, str):
                if item_match in ARGS_MATCH:
                    call["argsMatch"] = item_match
                else:
                    p.warn(
                        f"Invalid args_match '{item_match}' for expected item '{item['tool']}' in evaluator "
                        f"'{name}' in '{where}'"
                    )
            kept_expected.append(call)
    if mode == "any_order" and kept_minimums is None:
        p.warn(f"Skipping tool-trajectory evaluator '{name}' in '{where}': any_order mode requires minimums")
        return None
    if mode != "any_order" and kept_expected is None:
        p.warn(f"Skipping tool-trajectory evaluator '{name}' in '{where}': {mode} mode requires expected")
        return None
    if kept_minimums is not None:
        settings["minimums"] = kept_minimums
    if kept_expected is not None:
        settings["expected"] = kept_expected
    if match is not None:
        settings["argsMatch"] = match
    g.settings.update(settings)
    return _finish(p, d, g, where)


def _field_accuracy(p: _Parse, d: JsonObject, g: Grader, roots: list[str], where: str) -> Grader | None:
    name = g.name
    fields = d.get("fields")
    if not isinstance(fields, list):
        p.warn(f"Skipping field-accuracy evaluator '{name}' in '{where}': missing fields array")
        return None
    if not fields:
        p.warn(f"Skipping field-accuracy evaluator '{name}' in '{where}': fields array is empty")
        return None
    kept = []
    for f in fields:
        if not isinstance(f, dict):
            p.warn(f"Skipping invalid field entry in field-accuracy evaluator '{name}' (expected object)")
            continue
        path, match = _string(f.get("path")), _string(f.get("match"))
        if not path:
            p.warn(f"Skipping field without path in field-accuracy evaluator '{name}' in '{where}'")
            continue
        if not match or match not in FIELD_MATCHES:
            shown = js_text(match if match is not None else UNDEFINED)
            p.warn(
                f"Skipping field '{path}' with invalid match type '{shown}'"
                f" in evaluator '{name}' (must be exact, numeric_tolerance, or date). "
                "For fuzzy matching, use a code-grader evaluator."
            )
            continue
        kept.append({"path": path, "match": match})
    if not kept:
        p.warn(f"Skipping field-accuracy evaluator '{name}' in '{where}': no valid fields found")
        return None
    g.settings["fields"] = kept
    aggregation = _string(d.get("aggregation"))
    if aggregation in FIELD_AGGREGATIONS:
        g.settings["aggregation"] = aggregation
    return _finish(p, d, g, where)


def _threshold_grader(key: str, what: str) -> Callable[..., Grader | None]:
    def parse(p: _Parse, d: JsonObject, g: Grader, roots: list[str], where: str) -> Grader | None:
        value = d.get(key)
        if not _number(value) or value < 0:
            p.warn(f"Skipping {g.type} evaluator '{g.name}' in '{where}': {key} must be {what}")
            return None
        g.settings[key] = value
        return _finish(p, d, g, where)

    return parse


def _limits(keys: tuple[tuple[str, str], ...], needed: str, stop_at_first: bool) -> Callable[..., Grader | None]:
    def parse(p: _Parse, d: JsonObject, g: Grader, roots: list[str], where: str) -> Grader | None:
        kept: dict[str, Any] = {}
        for key, camel in keys:
            value = _coalesce(d.get(key, UNDEFINED), d.get(camel, UNDEFINED))
            if value is UNDEFINED:
                continue
            if not _number(value) or math.isnan(value) or math.isinf(value) or value < 0:
                p.warn(
                    f"Skipping {g.type} evaluator '{g.name}' in '{where}': {key} must be a non-negative finite number"
                )
                if stop_at_first:
                    return None
                continue
            kept[key] = value
        if not any(k in kept for k, _ in keys if k != "exploration_tolerance"):
            p.warn(f"Skipping {g.type} evaluator '{g.name}' in '{where}': {needed}")
            return None
        g.settings.update(kept)
        return _finish(p, d, g, where)

    return parse


def _skill_trigger(p: _Parse, d: JsonObject, g: Grader, roots: list[str], where: str) -> Grader | None:
    skill = _string(d.get("skill"))
    if not skill:
        p.warn(f"Skipping skill-trigger evaluator '{g.name}' in '{where}': missing skill")
        return None
    g.settings["skill"] = skill
    if isinstance(d.get("should_trigger"), bool):
        g.settings["should_trigger"] = d["should_trigger"]
    return _finish(p, d, g, where)


_HANDLERS: dict[str, Callable[..., Grader | None]] = {
    "code-grader": _code_grader,
    "composite": _composite,
    "tool-trajectory": _trajectory,
    "field-accuracy": _field_accuracy,
    "latency": _threshold_grader("threshold", "a non-negative number"),
    "cost": _threshold_grader("budget", "a non-negative number"),
    "token-usage": _limits(
        (("max_total", "maxTotal"), ("max_input", "maxInput"), ("max_output", "maxOutput")),
        "must set at least one of max_total, max_input, max_output",
        False,
    ),
    "execution-metrics": _limits(
        (
            ("max_tool_calls", "maxToolCalls"),
            ("max_llm_calls", "maxLlmCalls"),
            ("max_tokens", "maxTokens"),
            ("max_cost_usd", "maxCostUsd"),
            ("max_duration_ms", "maxDurationMs"),
            ("target_exploration_ratio", "targetExplorationRatio"),
            ("exploration_tolerance", "explorationTolerance"),
        ),
        "must set at least one threshold (max_tool_calls, max_llm_calls, max_tokens, max_cost_usd, "
        "max_duration_ms, or target_exploration_ratio)",
        True,
    ),
    "skill-trigger": _skill_trigger,
    "contains": _value_grader,
    "icontains": _value_grader,
    "starts-with": _value_grader,
    "ends-with": _value_grader,
    "regex": _value_grader,
    "equals": _value_grader,
    "contains-any": _values_grader,
    "contains-all": _values_grader,
    "icontains-any": _values_grader,
    "icontains-all": _values_grader,
    "is-json": _is_json,
}


# --- llm-grader, rubrics, rubric --------------------------------------------------------------------------------


def _llm_grader(p: _Parse, d: JsonObject, g: Grader, roots: list[str], where: str) -> Grader | None:
    name = g.name
    g.kind = "llm-grader"
    target = d.get("target", UNDEFINED)
    if target is not UNDEFINED:
        if isinstance(target, str) and not js_blank(target):
            g.settings["target"] = target
        else:
            p.warn(
                f"Skipping target override for llm-grader evaluator '{name}' in '{where}': "
                "target must be a non-empty string"
            )
    if g.type == "rubrics":
        criteria = d.get("criteria")
        if not isinstance(criteria, list) or not criteria:
            p.warn(f"Skipping rubrics evaluator '{name}' in '{where}': criteria must be a non-empty array")
            return None
        items = [
            {"id": f"rubric-{i + 1}", "outcome": c, "weight": 1, "required": True} if isinstance(c, str) else c
            for i, c in enumerate(criteria)
        ]
        rubrics = _rubric_items(p, items, name, where)
        if not rubrics:
            p.warn(f"Skipping rubrics evaluator '{name}' in '{where}': no valid criteria found")
            return None
        g.settings["rubrics"] = rubrics
        g.prompt = GraderPrompt("default")
        return _finish(p, d, g, where)
    prompt = d.get("prompt", UNDEFINED)
    if isinstance(prompt, dict):
        if "script" in prompt and "command" not in prompt:
            p.warn(f"'prompt.script' is deprecated in evaluator '{name}' in '{where}'. Use 'prompt.command' instead.")
        command = _argv(
            _coalesce(prompt.get("command", UNDEFINED), prompt.get("script", UNDEFINED)),
            f"prompt.command for evaluator '{name}' in '{where}'",
        )
        if not command:
            raise GraderError(f"Grader '{name}' in '{where}': prompt object requires command array")
        found, display, _tried = resolve_in(command[-1], roots)
        if not found:
            raise GraderError(f"Grader '{name}' in '{where}': prompt command file not found: {display}")
        g.prompt = GraderPrompt("script", None, os.path.abspath(found))
        g.settings["prompt"] = {"command": [*command[:-1], os.path.abspath(found)]}
    elif isinstance(prompt, str) and prompt.startswith(FILE_PREFIX):
        written = prompt[len(FILE_PREFIX) :]
        found, display, _tried = resolve_in(written, roots)
        if not found:
            raise GraderError(f"Grader '{name}' in '{where}': prompt file not found: {display}")
        found = os.path.abspath(found)
        text, problem = _read(p.source, found)
        if text is None:
            raise GraderError(f"Grader '{name}' template ({found}): {problem}")
        _check_template(p, text, found, name)
        g.prompt = GraderPrompt("file", text, found)
    elif isinstance(prompt, str):
        if prompt and _uses_template_variables(prompt):
            g.prompt = GraderPrompt("template", prompt)
        elif prompt:
            g.prompt = GraderPrompt("criteria", prompt)
            _bare_path_trap(p, prompt, roots, name)
        else:
            g.prompt = GraderPrompt("default")
    else:
        g.prompt = GraderPrompt("default")
    model = _string(d.get("model"))
    if model is not None:
        g.settings["model"] = model
    raw_rubrics = d.get("rubrics")
    rubrics = _rubric_items(p, raw_rubrics, name, where) if isinstance(raw_rubrics, list) else None
    if g.type == "rubric":
        if rubrics is None and not isinstance(raw_rubrics, list):
            p.warn(f"Skipping rubric evaluator '{name}' in '{where}': missing rubrics array")
            return None
        if not rubrics:
            p.warn(f"Skipping rubric evaluator '{name}' in '{where}': no valid rubrics found")
            return None
        g.settings["rubrics"] = rubrics
        g.prompt = GraderPrompt("default")
        return _finish(p, d, g, where)
    if rubrics:
        g.settings["rubrics"] = rubrics
    _finish(p, d, g, where)
    steps = _coalesce(d.get("max_steps", UNDEFINED), d.get("maxSteps", UNDEFINED))
    if _number(steps) and float(steps).is_integer() and 1 <= steps <= 50:
        g.settings["max_steps"] = steps
    temperature = d.get("temperature")
    if _number(temperature) and 0 <= temperature <= 2:
        g.settings["temperature"] = temperature
    return g


def _bare_path_trap(p: _Parse, prompt: str, roots: list[str], name: str) -> None:
    """Since AgentV 4 a bare `prompt:` is text: a path to an existing file is sent as the criteria, not the file."""
    text = js_trim(prompt)
    if not text or "\n" in text or len(text) > 300:
        return
    found, _display, _tried = resolve_in(text, roots)
    if found and os.path.isfile(found):
        p.traps.append(
            (
                f"grader '{name}': prompt: {text} is sent as text (the criteria), not the file's content; "
                f"write prompt: file://{text} to send the file",
                p.line,
            )
        )


def _uses_template_variables(text: str) -> bool:
    return any(m.group(1) in TEMPLATE_VARIABLES for m in TEMPLATE_VARIABLE.finditer(text))


def _check_template(p: _Parse, text: str, path: str, name: str) -> None:
    used = [m.group(1) for m in TEMPLATE_VARIABLE.finditer(text)]
    if "output" not in used and "expected_output" not in used:
        raise GraderError(
            f"Grader '{name}' template ({path}): Missing required fields. Must include at least one of:\n"
            "  - {{ output }}\n  - {{ expected_output }}"
        )
    unknown = [v for v in used if v not in TEMPLATE_VARIABLES]
    if unknown:
        p.warn(
            f"Custom grader template at {path}\n"
            f"  Contains invalid variables: {', '.join('{{ ' + v + ' }}' for v in unknown)}\n"
            f"  Valid variables: {', '.join('{{ ' + v + ' }}' for v in TEMPLATE_VARIABLES)}"
        )


def _rubric_items(p: _Parse, items: JsonArray, name: str, where: str) -> list[JsonObject] | None:
    out: list[JsonObject] = []
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            p.warn(f"Skipping invalid rubric entry at index {index} in evaluator '{name}' (expected object)")
            continue
        rid = _string(item.get("id"))
        rid = rid if rid is not None else f"rubric-{index + 1}"
        outcome = _string(item.get("outcome"))
        if outcome is None:
            outcome = _string(item.get("criteria"))
        outcome = outcome or ""
        operator = _operator(p, item.get("operator", UNDEFINED), rid, name, where)
        weight = item.get("weight") if _number(item.get("weight")) else 1
        min_score = required_min = None
        if _number(item.get("min_score")):
            m = item["min_score"]
            if m <= 0 or m > 1:
                raise GraderError(
                    f"Invalid min_score for rubric '{rid}' in evaluator '{name}' in '{where}': "
                    f"must be in (0, 1] (got {js_text(m)})"
                )
            min_score, required_min = m, _js_round(m * 10)
        elif _number(item.get("required_min_score")):
            m = item["required_min_score"]
            if not float(m).is_integer() or m < 0 or m > 10:
                raise GraderError(
                    f"Invalid required_min_score for rubric '{rid}' in evaluator '{name}' in '{where}': "
                    f"must be an integer 0-10 (got {js_text(m)})"
                )
            required_min, min_score = m, m / 10
            p.warn(
                f"Rubric '{rid}' in evaluator '{name}' in '{where}': 'required_min_score: {js_text(m)}' is "
                f"deprecated. Use 'min_score: {js_text(m / 10)}' (0-1 scale) instead."
            )
        required = item.get("required") if isinstance(item.get("required"), bool) else None
        ranges = item.get("score_ranges", UNDEFINED)
        if ranges is not UNDEFINED:
            ranges = _ranges_shorthand(ranges)
            if not isinstance(ranges, list):
                raise GraderError(
                    f"Invalid score_ranges for rubric '{rid}' in evaluator '{name}' in '{where}': "
                    "must be an array or shorthand map"
                )
            rubric: dict[str, Any] = {"id": rid, "weight": weight}
            if outcome:
                rubric["outcome"] = outcome
            if operator is not None:
                rubric["operator"] = operator
            if required is not None:
                rubric["required"] = required
            if min_score is not None:
                rubric["min_score"] = min_score
            if required_min is not None:
                rubric["required_min_score"] = required_min
            rubric["score_ranges"] = _score_ranges(ranges, rid, name, where)
            out.append(rubric)
            continue
        if not outcome:
            p.warn(f"Skipping rubric '{rid}' in evaluator '{name}' in '{where}': missing outcome")
            continue
        rubric = {"id": rid, "outcome": outcome}
        if operator is not None:
            rubric["operator"] = operator
        rubric["weight"] = weight
        rubric["required"] = required if required is not None else True
        if min_score is not None:
            rubric["min_score"] = min_score
        if required_min is not None:
            rubric["required_min_score"] = required_min
        out.append(rubric)
    return out or None


def _js_round(x: float) -> int:
    return math.floor(x + 0.5)


def _operator(p: _Parse, value: Any, rid: str, name: str, where: str) -> str | None:
    if value is UNDEFINED:
        return None
    if isinstance(value, str) and value in RUBRIC_OPERATORS:
        return value
    p.warn(
        f"Ignoring invalid operator for rubric '{rid}' in evaluator '{name}' in '{where}': "
        f"must be one of {', '.join(RUBRIC_OPERATORS)}"
    )
    return None


def _js_number_of(key: Any) -> float:
    """JavaScript's Number(String(key)) for a mapping key."""
    if isinstance(key, bool):
        return math.nan
    if _number(key):
        return float(key)
    text = js_trim(str(key))
    if not text:
        return 0.0
    try:
        if text.lower().startswith(("0x", "0o", "0b")):
            return float(int(text, 0))
        if text.lower().endswith(("inf", "infinity", "nan")) and text not in ("Infinity", "+Infinity", "-Infinity"):
            return math.nan
        return float(text)
    except ValueError:
        return math.nan


def _ranges_shorthand(value: Any) -> Any:
    if isinstance(value, list) or not isinstance(value, dict) or not value:
        return value
    starts = []
    for key, outcome in value.items():
        n = _js_number_of(key)
        if not (math.isfinite(n) and n.is_integer()) or n < 0 or n > 10 or not isinstance(outcome, str) or not outcome:
            return value
        starts.append((int(n), outcome))
    starts.sort(key=lambda pair: pair[0])
    if starts[0][0] != 0:
        raise GraderError(f"score_ranges shorthand map must start at 0 (got {starts[0][0]})")
    out = []
    for i, (start, outcome) in enumerate(starts):
        end = starts[i + 1][0] - 1 if i < len(starts) - 1 else 10
        out.append({"score_range": [start, end], "outcome": outcome})
    return out


def _score_ranges(ranges: JsonArray, rid: str, name: str, where: str) -> list[JsonObject]:
    at = f"for rubric '{rid}' in evaluator '{name}' in '{where}'"
    out = []
    for index, entry in enumerate(ranges):
        if not isinstance(entry, dict):
            raise GraderError(f"Invalid score_range entry at index {index} {at}: expected object")
        pair = entry.get("score_range")
        if not (isinstance(pair, list) and len(pair) == 2 and all(_number(v) for v in pair)):
            raise GraderError(f"Invalid score_range at index {index} {at}: must be [min, max] array of two numbers")
        low, high = pair
        shown = f"[{js_text(low)}, {js_text(high)}]"
        if not (float(low).is_integer() and float(high).is_integer()):
            raise GraderError(f"Invalid score_range at index {index} {at}: values must be integers (got {shown})")
        if low < 0 or low > 10 or high < 0 or high > 10:
            raise GraderError(f"Invalid score_range at index {index} {at}: values must be 0-10 (got {shown})")
        if low > high:
            raise GraderError(f"Invalid score_range at index {index} {at}: min must be <= max (got {shown})")
        outcome = _string(entry.get("outcome")) or ""
        if not outcome:
            raise GraderError(
                f"Missing outcome for score_range {shown} in rubric '{rid}' in evaluator '{name}' in '{where}'"
            )
        out.append({"score_range": [low, high], "outcome": outcome})
    ordered = sorted(out, key=lambda r: r["score_range"][0])
    for before, after in zip(ordered, ordered[1:]):
        if after["score_range"][0] <= before["score_range"][1]:
            b, a = before["score_range"], after["score_range"]
            raise GraderError(
                f"Overlapping score_ranges in rubric '{rid}' in evaluator '{name}' in '{where}': "
                f"[{js_text(b[0])}, {js_text(b[1])}] overlaps with [{js_text(a[0])}, {js_text(a[1])}]"
            )
    covered = {s for r in out for s in range(int(r["score_range"][0]), int(r["score_range"][1]) + 1)}
    missing = [str(s) for s in range(11) if s not in covered]
    if missing:
        raise GraderError(
            f"Incomplete score_ranges coverage in rubric '{rid}' in evaluator '{name}' in '{where}': missing "
            f"coverage for scores: {', '.join(missing)}. Ranges must cover all integers 0-10."
        )
    return out


def _inline_rubrics(p: _Parse, items: JsonArray) -> Grader | None:
    """A test's own `rubrics:` (deprecated): one checklist grader put before the others, read more loosely."""
    kept = [r for r in items if isinstance(r, (dict, str))]
    out = []
    for n, r in enumerate(kept):
        if isinstance(r, str):
            out.append({"id": f"rubric-{n + 1}", "outcome": r, "weight": 1, "required": True})
            continue
        outcome = _string(r.get("outcome")) or ""
        rid = _string(r.get("id"))
        rid = rid if rid is not None else f"rubric-{n + 1}"
        operator = _operator(p, r.get("operator", UNDEFINED), rid, "rubrics", "<inline>")
        ranges_raw = r.get("score_ranges", UNDEFINED)
        ranges = _ranges_shorthand(ranges_raw) if ranges_raw is not UNDEFINED else None
        kept_ranges = None
        if isinstance(ranges, list) and ranges:
            kept_ranges = [
                {
                    "score_range": e["score_range"] if isinstance(e.get("score_range"), list) else [0, 10],
                    "outcome": _string(e.get("outcome")) or "",
                }
                for e in ranges
                if isinstance(e, dict)
            ]
            kept_ranges = [e for e in kept_ranges if e["outcome"]]
        rubric: dict[str, Any] = {"id": rid}
        if operator is not None:
            rubric["operator"] = operator
        rubric["weight"] = r.get("weight") if _number(r.get("weight")) else 1
        min_score = required_min = None
        if _number(r.get("min_score")):
            min_score = r["min_score"]
            required_min = _js_round(min_score * 10)
        elif _number(r.get("required_min_score")):
            required_min = r["required_min_score"]
            min_score = required_min / 10
        if kept_ranges:
            if outcome:
                rubric["outcome"] = outcome
            if isinstance(r.get("required"), bool):
                rubric["required"] = r["required"]
            if min_score is not None:
                rubric["min_score"] = min_score
            if required_min is not None:
                rubric["required_min_score"] = required_min
            rubric["score_ranges"] = kept_ranges
            out.append(rubric)
            continue
        rubric["outcome"] = outcome
        rubric["required"] = r.get("required") if isinstance(r.get("required"), bool) else True
        if min_score is not None:
            rubric["min_score"] = min_score
        if required_min is not None:
            rubric["required_min_score"] = required_min
        if outcome:
            out.append(rubric)
    if not out:
        return None
    g = Grader("rubrics", "rubrics", None, p.line, False, raw=items, kind="llm-grader")
    g.settings["rubrics"] = out
    g.prompt = GraderPrompt("default")
    return g


# --- metadata ---------------------------------------------------------------------------------------------------


def suite_metadata(data: JsonObject) -> JsonObject | None:
    """The suite's `metadata`, its top-level `governance` put over `metadata.governance`."""
    metadata = data.get("metadata")
    governance = data.get("governance")
    out = dict(metadata) if isinstance(metadata, dict) else None
    if isinstance(governance, dict):
        out = {**(out or {}), "governance": governance}
    return out


def merge_metadata(suite: JsonObject | None, test: JsonObject | None) -> JsonObject | None:
    """A test's metadata over the suite's: objects merged recursively, arrays joined suite-first without repeats,
    the test's other values win."""
    if suite is None:
        return test
    if test is None:
        return suite
    out: JsonObject = {}
    for key, value in test.items():  # (the test's keys first, then the suite's others: AgentV's order)
        before = suite.get(key, UNDEFINED)
        if isinstance(before, dict) and isinstance(value, dict):
            out[key] = merge_metadata(before, value)
        elif isinstance(before, list) and isinstance(value, list):
            seen = set()
            joined = []
            for item in [*before, *value]:
                mark = js_json(item)
                if mark not in seen:
                    seen.add(mark)
                    joined.append(item)
            out[key] = joined
        else:
            out[key] = value
    for key, value in suite.items():
        if key not in out:
            out[key] = value
    return out


def reads_criteria(graders: list[Grader]) -> bool:
    """Whether any of these graders (or a composite's members) puts the test's criteria in its prompt."""
    for g in graders:
        if g.members and reads_criteria(g.members):
            return True
        prompt = g.prompt
        if g.kind != "llm-grader" or prompt is None:
            continue
        if prompt.kind == "default" or prompt.kind == "script":
            return True
        if prompt.kind in ("template", "file") and "criteria" in (prompt.text or ""):
            return True
    return False
