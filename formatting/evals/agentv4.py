"""Loading AgentV 4 eval files (dialect `agentv-4`): YAML suites with `tests`, JSONL datasets, Agent Skills
`evals.json`, into the same EvalCase/Message/Segment model the 0.15 loader fills.

What changes what the model receives is read here; the formatting itself is shared (prompts/engine.py, the 4.x
rules beside the 0.15 ones). Problems are Diagnostics with file and line, never exceptions; a refused file has
`EvalFile.error`; a test the reference skips stays in `cases` with `skipped` and the reference's reason.
Warnings keep the reference's wording (without its "Warning: "/"Error: " prefix).
"""

from __future__ import annotations

import base64
import json
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import orjson

from turnlens.formatting.evals.agentv4_graders import (
    UNDEFINED,
    GraderError,
    GraderRefusal,
    GraderSource,
    merge_metadata,
    parse_graders,
    reads_criteria,
    suite_metadata,
)
from turnlens.formatting.evals.envfile import load_env
from turnlens.formatting.evals.files import (
    YAML_SUFFIXES,
    FileReadError,
    outside_root_message,
    read_bytes,
    relative_path,
)
from turnlens.formatting.evals.interpolate import has_vars, interpolate_env, interpolate_vars
from turnlens.formatting.evals.loader import parse_eval_yaml, refuse
from turnlens.formatting.evals.references import Resolver, decode_eval_bytes, read_error_text, read_text
from turnlens.formatting.evals.targets import (
    TargetMode,
    find_targets_file,
    may_name_target,
    mode_for,
    read_targets,
    target_name,
)
from turnlens.formatting.evals.yaml12 import YamlDoc, YamlError, has_alias, parse_yaml, refusal_text
from turnlens.formatting.jsjson import js_json_error, js_loads
from turnlens.formatting.jsstr import (
    JS_WHITESPACE,
    js_blank,
    js_json,
    js_json_indent,
    js_key_order,
    js_string_of,
    js_trim,
    may_need_key_order,
)
from turnlens.formatting.model import Diagnostic, EvalCase, EvalFile, Message, Segment
from turnlens.formatting.patterns import LazyPattern
from turnlens.formatting.records import JsonArray, JsonObject
from turnlens.formatting.walk import TreeWalk
from turnlens.formatting.wording import plural

ROLES = ("system", "user", "assistant", "tool")
INCOMPLETE = "Missing required fields: id, input, and at least one of criteria/expected_output/assertions/turns"
INCOMPLETE_JSONL = "Missing required fields: id, input, and at least one of criteria/expected_output/assert"
IMAGE_TYPES = {
    "png": "image/png",
    "jpg": "image/jpeg",
    "jpeg": "image/jpeg",
    "gif": "image/gif",
    "webp": "image/webp",
    "svg": "image/svg+xml",
    "bmp": "image/bmp",
}
REMOVED_GRADERS = {"llm-judge": "llm-grader", "code-judge": "code-grader"}
KNOWN_GRADERS = {
    "llm-grader",
    "code-grader",
    "rubrics",
    "rubric",
    "contains",
    "contains-any",
    "contains-all",
    "icontains",
    "icontains-any",
    "icontains-all",
    "starts-with",
    "ends-with",
    "regex",
    "is-json",
    "equals",
    "composite",
    "tool-trajectory",
    "field-accuracy",
    "latency",
    "cost",
    "token-usage",
    "execution-metrics",
    "skill-trigger",
    "agent-grader",
    "script",
    "inline-assert",
}
SUITE_NAME = LazyPattern(r"[a-z0-9-]+")
_GLOB_CHARS = LazyPattern(r"[*?{]")


class Refused(Exception):
    """The reference refuses the whole file: the message, and the line when known."""

    def __init__(self, message: str, line: int | None = None, file: str | None = None):
        super().__init__(message)
        self.message, self.line, self.file = message, line, file


def _line(doc: YamlDoc | None, obj: Any, key: Any = None) -> int | None:
    if doc is None:
        return None
    try:
        return doc.line(obj, key)
    except Exception:
        return None


class _Ctx:
    """One load: where the eval file is, the environment, file references resolved and read (cached)."""

    def __init__(self, result: EvalFile, cwd: str, environ: Mapping[str, str] | None):
        self.result = result
        self.path = result.path
        self.abs_path = result.abs_path
        self.eval_dir = os.path.dirname(result.abs_path)
        self.repo_root = result.repo_root
        self.cwd = cwd
        self.resolver = Resolver(self.eval_dir, self.repo_root, cwd)
        self.env, env_files, env_problems = load_env(self.eval_dir, self.repo_root, cwd, environ)
        self.env_files = env_files
        for folder in [*self.resolver.roots]:
            result.watched_paths.add(os.path.join(folder, ".env"))
        self.texts: dict[str, tuple[str | None, str | None]] = {}
        # a file reference as written -> (resolved path, display path, text, outside the root) once read
        self.files_read: dict[str, tuple[str, str | None, str | None, bool]] = {}
        self.diags = result.diagnostics
        self.first_index = 0
        for problem in env_problems:  # what the agentv command ignores silently in a .env (never its text)
            self.warn(problem.message, problem.line, relative_path(problem.path, cwd))
        self.test_env_notes: dict[int, tuple[Any, list[str]]] = {}
        self.grader_texts: dict[str, tuple[str | None, str | None]] = {}  # grader templates and prompt files read
        self.custom_types: dict[tuple[str, str], str | None] = {}  # custom assertion types looked up
        self.lines: list[str] | None = None  # the suite's lines, when it has `${{ VAR }}`
        # the targets file, its definitions, the file as shown
        self.targets: tuple[str | None, dict[str, JsonObject], str] | None = None
        self.target_modes: dict[tuple[str, str], TargetMode] = {}  # (target, where named) -> its mode

    def warn(self, message: str, line: int | None = None, file: str | None = None, severity: str = "warning") -> None:
        self.diags.append(Diagnostic(file or self.path, line, message, severity))  # type: ignore[arg-type]

    def env_interpolate(self, data: Any, notes: list[str] | None = None) -> Any:
        return interpolate_env(data, self.env, notes)

    def env_test(self, test: Any) -> Any:
        """One test's `${{ VAR }}` replaced, what was replaced kept for that test (`test_env`)."""
        notes: list[str] = []
        out = interpolate_env(test, self.env, notes)
        self.note_test_env(out, notes)
        return out

    def note_test_env(self, test: Any, notes: list[str]) -> None:
        if notes:
            self.test_env_notes[id(test)] = (test, notes)  # (the test kept alive: its id stays its own)

    def test_env(self, test: Any) -> list[str]:
        hit = self.test_env_notes.get(id(test))
        return hit[1] if hit is not None and hit[0] is test else []

    def read(self, path: str) -> tuple[str | None, str | None]:
        """(text, None), or (None, why it could not be read in Node's words)."""
        hit = self.texts.get(path)
        if hit is None:
            try:
                text, _valid = read_text(path)
                hit = (text, None)
            except FileReadError as exc:
                hit = (None, read_error_text(exc, path))
            self.texts[path] = hit
        return hit


# --- messages ---------------------------------------------------------------------------------------------------


def _input_messages(value: Any) -> list[JsonObject] | None:
    """The `input` shorthands as messages, or None when AgentV leaves the input undefined."""
    if isinstance(value, str):
        return [{"role": "user", "content": value}]
    if isinstance(value, dict):
        if "role" in value:
            return [value] if _valid_message(value) else []
        return [{"role": "user", "content": value}]
    if isinstance(value, list):
        return [m for m in value if _valid_message(m)]
    return None


def _valid_content(content: Any) -> bool:
    """Text, an object, or a list of strings and objects (any other item makes AgentV drop the whole message)."""
    if isinstance(content, (str, dict)):
        return True
    return isinstance(content, list) and all(isinstance(item, (str, dict)) for item in content)


def _valid_message(m: Any, expected: bool = False) -> bool:
    if not isinstance(m, dict) or m.get("role") not in ROLES:
        return False
    if expected and m.get("tool_calls") is not None:  # an expected message may hold only tool calls
        return True
    calls = m.get("tool_calls")
    if isinstance(calls, list) and calls:
        # with tool calls a message is valid whatever its content: a content list is kept whatever its items (those
        # that are not parts unused); with no text, list or object content it only makes the input present
        return True
    return _valid_content(m.get("content"))


def _formatted(m: JsonObject) -> bool:
    """Whether a valid input message takes part in the prompt (one kept only for its tool calls does not)."""
    return isinstance(m.get("content"), (str, dict, list))


def _expected_messages(value: Any) -> list[JsonObject]:
    if value is None:
        return []
    if isinstance(value, str):
        return [{"role": "assistant", "content": value}]
    if isinstance(value, dict):
        if "role" in value:
            return [value] if _valid_message(value, expected=True) else []
        return [{"role": "assistant", "content": value}]
    if isinstance(value, list):
        if value and isinstance(value[0], dict) and "role" in value[0]:
            return [m for m in value if _valid_message(m, expected=True)]
        return [{"role": "assistant", "content": value}]  # items that are neither text nor objects are left out
    return []


def _build_message(
    ctx: _Ctx,
    raw: JsonObject,
    index: int,
    line: int | None,
    doc: YamlDoc | None,
    *,
    expected: bool = False,
    from_suite: bool = False,
    origin_files: str | None = None,
    written: JsonObject | None = None,
) -> tuple[Message, Any]:
    """A loaded message and its content as AgentV resolves it, for the reference answer (a content list is resolved
    only for an expected message, the only kind whose content is used: an input message's is None). `written`: the
    message as written in `doc`, when `raw` is a copy of it with `{{ var }}` replaced (its entries' lines are there)."""
    role = raw.get("role")
    content = raw.get("content")
    if not isinstance(role, str):
        role = ""
    if isinstance(content, str):
        return Message(index, role, line, True, [Segment(0, "text", content, line)], from_suite=from_suite), content
    if isinstance(content, dict):
        text = js_json_indent(content)
        segment = Segment(0, "text", text, line, origin="object content", raw=content)
        return Message(index, role, line, True, [segment], from_suite=from_suite), content
    segments: list[Segment] = []
    msg = Message(index, role, line, False, segments, from_suite=from_suite)
    if not isinstance(content, list):
        return msg, content
    resolved: JsonArray = []
    lines: Sequence[int] | dict[Any, int] | None = (
        doc.child_lines(content if written is None else written.get("content")) if doc is not None else None
    )
    if not isinstance(lines, list):
        lines = ()
    for i, entry in enumerate(content):
        e_line = lines[i] if i < len(lines) else line
        if isinstance(entry, str):
            if entry:
                segments.append(Segment(i, "text", entry, e_line, origin="string item"))
                if expected:
                    resolved.append({"type": "text", "value": entry})
            continue
        if not isinstance(entry, dict):
            continue
        seg_type = entry.get("type")
        value = entry.get("value")
        if not isinstance(seg_type, str):
            seg_type = ""
        if isinstance(value, str) or value is None:
            seg = Segment(i, seg_type, value, e_line)
        else:
            seg = Segment(i, seg_type, None, e_line, raw=value)
        if seg_type != "file" and seg_type != "image":
            if expected:
                resolved.append(entry)
            segments.append(seg)
            continue
        if origin_files and seg_type == "file":
            seg.origin = origin_files
        if value == "":
            segments.append(seg)  # AgentV skips an empty path without a word
            continue
        if isinstance(value, str):
            found = _resolve_file(ctx, seg, value, e_line, expected, image=seg_type == "image")
            if not found:
                segments.append(seg)  # kept for the explanation (missing: no resolved_path), never rendered
                continue
            if seg_type == "file":
                if expected:
                    rest = {k: v for k, v in entry.items() if k != "value"}
                    resolved.append(
                        {**rest, "path": seg.display_path, "text": seg.text, "resolvedPath": seg.resolved_path}
                    )
            else:
                if expected:
                    resolved.append({"type": "image", "media_type": seg.raw, "source": seg.text})
                seg.raw, seg.text = None, None
        # (a file or image part without a string value is left out of the reference answer)
        segments.append(seg)
    return msg, resolved if expected else None


def _resolve_file(ctx: _Ctx, seg: Segment, value: str, line: int | None, expected: bool, image: bool) -> bool:
    if not image:
        hit = ctx.files_read.get(value)
        if hit is not None:  # a file this load read before (a suite refers to the same few thousands of times)
            seg.resolved_path, seg.display_path, seg.text, outside = hit
            if outside:
                seg.outside_root = True
                ctx.warn(outside_root_message(value, hit[0]), line)
            return True
    resolved, tried = ctx.resolver.resolve(value)
    seg.display_path = ctx.resolver.display_path(value)
    if resolved is None:
        seg.tried = tried
        attempts = "\n".join(f"    {t}" for t in tried)
        what = "Image file" if image else "File"
        where = " in expected_output" if expected else ""
        ctx.warn(f"{what} not found{where}: {seg.display_path}\n  Tried:\n{attempts}", line)
        return False
    seg.resolved_path = resolved
    ctx.result.watched_paths.add(resolved)
    if ctx.resolver.outside_root(resolved):
        seg.outside_root = True
        ctx.warn(outside_root_message(value, resolved), line)
    if image:
        ext = resolved.rsplit(".", 1)[-1].lower() if "." in os.path.basename(resolved) else ""
        if ext not in IMAGE_TYPES:
            supported = ", ".join("." + e for e in IMAGE_TYPES)
            ctx.warn(f"Unsupported image extension for {seg.display_path}. Supported: {supported}", line)
            return False
        try:  # the data URL the provider (and a reference answer) receives
            data = read_bytes(resolved)
        except FileReadError as exc:
            what = "expected output image" if expected else "image"
            ctx.warn(f"Could not read {what} {resolved}: {read_error_text(exc, resolved)}", line)
            return False

        seg.raw = IMAGE_TYPES[ext]
        seg.text = f"data:{seg.raw};base64,{base64.b64encode(data).decode('ascii')}"
        return True
    text, error = ctx.read(resolved)
    if error is not None:
        what = "expected output file" if expected else "file"
        ctx.warn(f"Could not read {what} {resolved}: {error}", line)
        return False
    seg.text = text
    ctx.files_read[value] = (resolved, seg.display_path, text, seg.outside_root)
    return True


def _reference_answer(content: Any, raw: JsonObject) -> str:
    """The last expected message as the grader's reference answer: its text, else its content as JSON (files
    resolved), else its tool calls as JSON."""
    if isinstance(content, str):
        return content
    if isinstance(raw.get("content"), (dict, list)):
        return js_json_indent(content)
    calls = raw.get("tool_calls")
    return js_json_indent(calls) if calls is not None else ""


# --- graders ----------------------------------------------------------------------------------------------------


def _check_evaluator(name: Any, where: str, ctx: _Ctx, line: int | None) -> None:
    if not isinstance(name, str):
        return
    norm = name.replace("_", "-")
    if norm in REMOVED_GRADERS:
        raise Refused(f"Unsupported grader '{name}' in {where}. Use '{REMOVED_GRADERS[norm]}' instead.", line)
    if norm not in KNOWN_GRADERS:
        ctx.warn(f"Unknown grader '{name}' in {where}, falling back to default", line)


# The fields `agentv validate` (4.42.4) knows; any other key is flagged, in its words (AgentV's loader ignores it).
KNOWN_TOP_LEVEL_FIELDS = frozenset(
    "$schema name description category version author tags license requires input input_files tests target "
    "execution assertions evaluators preprocessors workspace metadata governance".split()
)
KNOWN_TEST_FIELDS = frozenset(
    "id vars criteria input input_files expected_output assertions evaluators rubrics execution workspace metadata "
    "conversation_id suite depends_on on_dependency_failure mode turns aggregation on_turn_failure window_size".split()
)
VALIDATE_DEPRECATED = frozenset(("evaluator", "assert", "expected_outcome", "eval_cases", "evalcases"))


def _unknown_test_fields(
    case: EvalCase, raw: JsonObject, doc: YamlDoc | None, home: tuple[str, int | None], checked_as: str | None
) -> None:
    """Fields AgentV ignores, in `agentv validate`'s words, for every test AgentV reads. `checked_as` is where the
    validator names the test (`tests[2]`); it reads only a suite's own tests, not those of a case file, a case
    folder or a JSONL dataset (tests/fixtures/validate/), and those are flagged all the same."""
    for key in raw:
        if key in KNOWN_TEST_FIELDS or key in VALIDATE_DEPRECATED:
            continue
        line = _line(doc, raw, key)
        if line is None and doc is not None and isinstance(doc.data, dict):  # (a case folder's test, id added)
            line = _line(doc, doc.data, key)
        where = (
            f"agentv validate: {checked_as}.{key}"
            if checked_as
            else "not flagged by agentv validate, which checks only a suite's own tests"
        )
        case.diagnostics.append(
            Diagnostic(home[0], line or home[1], f"Unknown field '{key}'. This field will be ignored. ({where})")
        )


def _written_in(ctx: _Ctx, source: str | None, line: int | None) -> tuple[str, int | None]:
    """The file (named as the eval file is) and line a test is written at: for a test from a case file, a case
    folder or a JSONL dataset (`source` "cases/x.yaml" or "data.jsonl line 3") that file."""
    if source is None:
        return ctx.path, line
    name, _, at = source.partition(" line ")
    return os.path.normpath(os.path.join(os.path.dirname(ctx.path), name)), int(at) if at.isdigit() else line


def _unknown_suite_fields(ctx: _Ctx, data: JsonObject, doc: YamlDoc) -> None:
    for key in data:
        if key in KNOWN_TOP_LEVEL_FIELDS or key in VALIDATE_DEPRECATED:
            continue
        ctx.warn(f"Unknown field '{key}'. This field will be ignored. (agentv validate: {key})", _line(doc, data, key))


_UNSET = LazyPattern(r"\$\{\{ (\w+) \}\} is not set")


def _blank_message(message: Message) -> bool:
    for seg in message.segments:
        if seg.type == "text" and seg.value is not None and not js_blank(seg.value):
            return False
        if seg.type == "file" and seg.text is not None and not js_blank(seg.text):
            return False
    return True


def _unset_variable_trap(ctx: _Ctx, case: EvalCase) -> None:
    """An unset `${{ VAR }}` that empties a message decides the marker rule when, with any value, that message
    would be a second visible turn: the question is flat only because the variable is not set."""
    unset = {m.group(1) for n in case.interpolations for m in [_UNSET.match(n)] if m}
    kept = [m for m in case.messages if m.dropped is None]
    if any(m.role in ("assistant", "tool") for m in kept):
        return  # markers whatever the variable holds
    visible = [m for m in kept if not _blank_message(m)]
    if len(visible) != 1:
        return
    lines = ctx.lines or []
    for message in kept:
        if not _blank_message(message) or message.line is None or not 0 < message.line <= len(lines):
            continue
        written = "\n".join(lines[message.line - 1 : message.line + 2])
        names = sorted(n for n in unset if re.search(r"\$\{\{\s*" + re.escape(n) + r"\s*\}\}", written))
        if names:
            shown = ", ".join(f"${{{{ {n} }}}}" for n in names)
            case.diagnostics.append(
                Diagnostic(
                    ctx.path,
                    message.line,
                    f"{shown} is not set, so message {message.index + 1} ({message.role}) is empty and the question "
                    "is flat; with a value it would be a second visible turn and the question would use role markers",
                )
            )
            return


_ATTACHMENT_PROBLEMS = ("File not found", "Could not read", "Image file not found", "Unsupported image extension")


def _attachment_warnings_on_case(ctx: _Ctx, case: EvalCase, since: int) -> None:
    """A missing or unreadable attachment, found while making the test's messages, is a warning of the test (the
    row's ⚠, `n`, the warn filter), not only of the file."""
    moved = [d for d in ctx.diags[since:] if d.message.startswith(_ATTACHMENT_PROBLEMS)]
    if not moved:
        return
    ctx.diags[since:] = [d for d in ctx.diags[since:] if not d.message.startswith(_ATTACHMENT_PROBLEMS)]
    case.diagnostics.extend(moved)


def _read_graders(
    ctx: _Ctx,
    case: EvalCase,
    raw: JsonObject,
    suite: _Suite,
    label: str,
    doc: YamlDoc | None,
    jsonl_line: int | None,
    home: tuple[str, int | None],
    *,
    criteria_as_written: bool = True,
) -> str | None:
    """The test's graders as AgentV parses them (formatting/graders/), their warnings on the file; the message
    AgentV skips the test with when one cannot be parsed, else None."""
    if jsonl_line is not None:  # a dataset line's `execution` (or the sidecar's) stands for the suite's defaults
        execution = raw.get("execution")
        defaults = execution if isinstance(execution, dict) else None
    else:
        defaults = suite.grader_defaults
    case.run_settings = _run_settings(raw, suite.execution if jsonl_line is None else None) or None
    _agentv_mode(ctx, case, raw, suite)
    if not _may_have_graders(raw, defaults):
        return None

    suite_lines: set[int] = set()  # lines found in the suite, not in the test's own file (when that is another)

    def line_of(obj: Any, key: Any = None) -> int | None:
        found = _line(doc, obj, key)
        if found is None:
            found = _line(suite.doc, obj, key)
            if found is not None and doc is not suite.doc:
                suite_lines.add(found)
        return found

    def at(line: int | None, message: str) -> Diagnostic:
        if line is not None and line in suite_lines:
            return Diagnostic(ctx.path, line, message)
        return Diagnostic(home[0], line or home[1], message)

    source = GraderSource(
        ctx.resolver.roots,
        ctx.env,
        ctx.eval_dir,
        ctx.repo_root,
        line_of=line_of,
        texts=ctx.grader_texts,
        custom_types=ctx.custom_types,
    )
    metadata = raw.get("metadata")
    case.metadata = merge_metadata(suite.metadata, metadata if isinstance(metadata, dict) else None)
    try:
        parsed = parse_graders(raw, defaults, source, label, skip_defaults=case.skip_defaults)
    except GraderError as exc:
        case.diagnostics.extend(at(line, message) for message, line in exc.warnings)
        return exc.message
    except GraderRefusal as exc:  # what AgentV warned about first stays on the file
        ctx.diags.extend(at(line, message) for message, line in exc.warnings)
        refused = at(exc.line, exc.message)
        raise Refused(refused.message, refused.line, refused.file) from None
    case.diagnostics.extend(at(line, message) for message, line in [*parsed.warnings, *parsed.traps])
    case.assertions = parsed.graders
    # (an Agent Skills evals.json writes no criteria: its expected_output becomes both the criteria and the reference
    # answer, which its graders (llm-graders all) read as the reference answer: nothing its author wrote goes unread)
    unread = criteria_as_written and not js_blank(case.criteria or "")
    if parsed.graders and unread and not reads_criteria(parsed.graders):
        case.diagnostics.append(
            Diagnostic(
                home[0],
                _line(doc, raw, "criteria") or home[1],
                "criteria is read by no grader: the test has assertions, so AgentV runs them instead of the "
                "default grader, and none of them is an llm-grader that reads the criteria",
            )
        )
    for g in parsed.graders:
        if g.included_from:
            ctx.result.watched_paths.add(g.included_from)
        if g.prompt is not None and g.prompt.path:
            ctx.result.watched_paths.add(g.prompt.path)
    return None


def _agentv_mode(ctx: _Ctx, case: EvalCase, raw: JsonObject, suite: _Suite) -> None:
    if ctx.targets is None:
        path = find_targets_file(ctx.eval_dir, ctx.repo_root, ctx.cwd)
        definitions, _problem = read_targets(path) if path else ({}, None)
        shown = os.path.relpath(path, ctx.repo_root).replace(os.sep, "/") if path else ""
        ctx.targets = (path, definitions, shown)
        if path:
            ctx.result.watched_paths.add(path)
    path, definitions, shown = ctx.targets
    if may_name_target(raw):
        name, named_by = target_name(raw, {"execution": suite.execution, "target": suite.target})
    else:  # (the test names none: the suite's, found once for its thousands of tests)
        if suite.target_named is None:
            suite.target_named = target_name(None, {"execution": suite.execution, "target": suite.target})
        name, named_by = suite.target_named
    chosen = ctx.target_modes.get((name, named_by))
    if chosen is None:  # (the same few targets for thousands of tests)
        chosen = ctx.target_modes[name, named_by] = mode_for(name, named_by, path, definitions, ctx.env, shown)
    case.agentv_mode, case.agentv_mode_reason = chosen.mode, chosen.reason


def _run_settings(raw: JsonObject, suite_execution: JsonObject | None) -> JsonObject:
    """What besides the graders decides a test's verdict, as written: depends_on, trials, threshold."""
    out: JsonObject = {}
    for key in ("depends_on", "on_dependency_failure"):
        if raw.get(key) is not None:
            out[key] = raw[key]
    execution = raw.get("execution")
    for key in ("trials", "threshold"):
        for where in (execution, suite_execution):
            if isinstance(where, dict) and where.get(key) is not None:
                out[key] = where[key]
                break
    return out


def _may_have_graders(raw: JsonObject, defaults: JsonObject | None) -> bool:
    keys = ("assertions", "assert", "evaluators", "rubrics", "execution")
    return any(k in raw for k in keys) or (
        defaults is not None and any(k in defaults for k in ("assertions", "assert", "evaluators"))
    )


# --- tests ------------------------------------------------------------------------------------------------------


class _Suite:
    """What a YAML suite gives every test (empty for a standalone JSONL dataset)."""

    def __init__(self) -> None:
        self.input: Any = None
        self.input_line: int | None = None
        self.input_files: Any = None
        self.has_input_files = False
        self.assertions: Any = None
        # what AgentV appends each test's graders from: `execution` with the suite's `assertions` (or `assert`)
        self.grader_defaults: JsonObject | None = None
        self.metadata: JsonObject | None = None  # the suite's metadata (with `governance`), merged into each test's
        self.execution: JsonObject | None = None  # the suite's `execution` (trials, threshold…)
        self.target: Any = None  # the suite's legacy top-level `target`
        self.target_named: tuple[str, str] | None = None  # what target_name says of the suite alone, once asked
        self.doc: YamlDoc | None = None
        # Whether `{{ var }}` can change `input` / `input_files` (a test's vars apply to the suite's as well)
        self.input_has_vars = False
        self.input_files_have_vars = False
        # The messages made from `input`, shared by the tests that get them unchanged (_shared_suite_messages)
        self.messages: tuple[Message, ...] | None = None


def _build_test(
    ctx: _Ctx,
    raw: Any,
    index: int,
    line: int | None,
    doc: YamlDoc | None,
    suite: _Suite,
    *,
    jsonl_line: int | None = None,
    source: str | None = None,
    position: int | None = None,
    use_vars: bool = True,
    require_spec: bool = True,
    require_id: bool = True,
) -> EvalCase:
    if not isinstance(raw, dict):
        ctx.warn("Skipping invalid test entry (expected object)", line)
        return EvalCase(index, None, line, ctx.path, skipped="not a mapping (expected object)", source=source)
    raw_id = raw.get("id")
    test_id = raw_id if isinstance(raw_id, str) else None
    case = EvalCase(index, test_id, line, ctx.path, raw_id=raw_id, source=source)
    home = _written_in(ctx, source, line)  # where the test's own warnings point
    if require_spec:  # (not an Agent Skills evals.json: its evals are not AgentV tests as written)
        checked_as = f"tests[{position}]" if position is not None else None
        _unknown_test_fields(case, raw, doc, home, checked_as)
    label = test_id if test_id is not None else "unknown"  # an empty id is named as written: ''
    notes = case.interpolations
    notes.extend(ctx.test_env(raw))  # what `${{ VAR }}` replaced in this test's own text

    execution = raw.get("execution")
    skip_defaults = isinstance(execution, dict) and execution.get("skip_defaults") is True
    case.skip_defaults = skip_defaults
    evaluator = raw.get("evaluator")
    if evaluator is not None:  # (most tests name none: spares looking up a line)
        _check_evaluator(evaluator, label, ctx, _line(doc, raw, "evaluator"))

    get = raw.get
    fields = {
        "criteria": get("criteria"),
        "expected_outcome": get("expected_outcome"),
        "input": get("input"),
        "input_files": get("input_files"),
        "expected_output": get("expected_output"),
    }
    vars_ = raw.get("vars") if use_vars else None
    if isinstance(vars_, dict) and vars_:
        for key, value in list(fields.items()):
            if value is not None:
                fields[key] = interpolate_vars(value, vars_, notes, f"{key}: ")
    criteria = fields["criteria"]
    outcome = fields["expected_outcome"]
    # an empty or non-string `criteria` gives way to a non-empty string `expected_outcome`
    if not (isinstance(criteria, str) and criteria) and isinstance(outcome, str) and outcome:
        criteria = outcome
        case.diagnostics.append(
            Diagnostic(
                home[0],
                _line(doc, raw, "expected_outcome") or home[1],
                f"Test '{label}': 'expected_outcome' is deprecated. Use 'criteria' instead.",
            )
        )
        case.notes.append("`expected_outcome` (deprecated) is read as `criteria`.")
    case.criteria = criteria if isinstance(criteria, str) else None

    # test messages: input_files + string input, or the input shorthands
    test_input = fields["input"]
    if "input_files" in raw and raw.get("input_files") is not None:
        files, files_origin = fields["input_files"], "input_files"
    elif suite.has_input_files and not skip_defaults:
        files = suite.input_files
        if isinstance(vars_, dict) and vars_ and suite.input_files_have_vars:
            files = interpolate_vars(files, vars_, notes, "suite input_files: ")
        files_origin = "suite input_files"
    else:
        files, files_origin = None, None
    raw_messages: list[JsonObject] | None
    origin_files = None
    no_input = "`input` is undefined"  # why a test has no input messages at all (the skip reason)
    if files is not None:
        if isinstance(files, list) and files and isinstance(test_input, str):
            content: JsonArray = [{"type": "file", "value": f} for f in files if isinstance(f, str)]
            content.append({"type": "text", "value": test_input})
            raw_messages = [{"role": "user", "content": content}]
            origin_files = files_origin
            case.notes.append(
                f"`{files_origin}` ({len(content) - 1} file{'s' if len(content) != 2 else ''}) and the string "
                "`input` form one user message: the files first, then the text."
            )
        else:
            raw_messages = None
            if isinstance(files, list) and files:
                shape = "a message list" if isinstance(test_input, list) else "not a string"
                no_input = f"`{files_origin}` needs a string `input`, not {shape}: AgentV reads no input"
                if shape == "not a string":
                    no_input = f"`{files_origin}` needs a string `input`: AgentV reads no input"
                why = f"`input` is {shape}"
            else:
                why = f"`{files_origin}` is {'empty' if files == [] else 'not a list'}"
                no_input = f"{why}: AgentV reads no input"
            case.notes.append(
                f"With `{files_origin}`, AgentV needs a string `input` (it becomes the text after the files); {why}, "
                "so AgentV reads no input at all and skips the test as missing `input`."
            )
    else:
        raw_messages = _input_messages(test_input)

    expected_raw = _expected_messages(fields["expected_output"])
    # (`execution.evaluators` and `evaluators` still define graders, but do not make a test complete)
    has_graders = "assertions" in raw or "assert" in raw  # present, even empty (null): as AgentV's `!== undefined`
    turns = raw.get("turns")
    if jsonl_line is not None:
        has_spec = (
            (isinstance(criteria, str) and criteria != "")  # a criteria that is not a string is none (a skip)
            or bool(expected_raw)
            or "assert" in raw
        )
    else:
        has_spec = (
            (isinstance(criteria, str) and criteria != "")
            or bool(expected_raw)
            or has_graders
            or (isinstance(turns, list) and bool(turns))
        )
    missing = []
    if not test_id and (require_id or test_id is None):
        missing.append("no `id`" if "id" not in raw else "`id` is empty" if raw_id == "" else "`id` is not a string")
    if not raw_messages:
        missing.append("no input messages" if raw_messages is not None else no_input)
    if not has_spec and require_spec:
        missing.append("none of criteria, expected_output, " + ("assert" if jsonl_line else "assertions, turns"))
    if missing:
        case.skipped = "; ".join(missing)
        if jsonl_line is not None:
            msg = f"Skipping incomplete test at line {jsonl_line}: {label}. {INCOMPLETE_JSONL}"
        else:
            msg = f"Skipping incomplete test: {label}. {INCOMPLETE}"
        case.diagnostics.append(Diagnostic(home[0], home[1], msg))
        return case
    assert raw_messages is not None
    if "workspace" in raw:  # a test's own workspace is checked once the test is complete, before its graders
        _check_workspace(ctx, raw["workspace"], _line(doc, raw, "workspace") or line)

    # suite input goes first
    attachments_from = len(ctx.diags)
    messages: list[Message] = []
    if suite.input is not None and not skip_defaults:
        if isinstance(vars_, dict) and vars_ and suite.input_has_vars:
            messages = _suite_messages(ctx, suite, interpolate_vars(suite.input, vars_, notes, "suite input: "))
        else:
            messages = _shared_suite_messages(ctx, suite)
        case.suite_input_count = len(messages)
        if messages:
            case.notes.append(f"The suite's `input` prepends {plural(len(messages), 'message')} to this test's.")
    own_from = len(ctx.diags)  # what making the test's own messages warns about is in its file
    for m in raw_messages:
        if not _formatted(m):
            case.notes.append("A message with tool calls and no text, list or object content is not sent.")
            continue
        m_line = _line(doc, m) or _line(doc, raw, "input") or line
        test_msg, _ = _build_message(ctx, m, len(messages), m_line, doc, origin_files=origin_files)
        messages.append(test_msg)
    case.messages = messages

    last_content: Any = None
    last_raw: JsonObject = {}
    for i, m in enumerate(expected_raw):
        expected_msg, resolved = _build_message(
            ctx, m, i, _line(doc, m) or _line(doc, raw, "expected_output"), doc, expected=True
        )
        case.expected_output.append(expected_msg)
        last_content, last_raw = resolved, m
    case.expected_messages = list(case.expected_output)
    case.reference_answer = _reference_answer(last_content, last_raw) if expected_raw else ""
    case.outcome = case.criteria or ""
    if home[0] != ctx.path:
        ctx.diags[own_from:] = [replace(d, file=home[0]) if d.file == ctx.path else d for d in ctx.diags[own_from:]]
    _attachment_warnings_on_case(ctx, case, attachments_from)
    if ctx.lines is not None and any(n.endswith("is not set: replaced by ''") for n in case.interpolations):
        _unset_variable_trap(ctx, case)

    _conversation_note(case, raw, turns)
    problem = _read_graders(ctx, case, raw, suite, label, doc, jsonl_line, home, criteria_as_written=require_spec)
    if problem is not None:
        case.skipped = problem
        where = f" at line {jsonl_line}" if jsonl_line is not None else ""
        case.diagnostics.append(Diagnostic(home[0], home[1], f"Skipping test '{label}'{where}: {problem}"))
        return case
    return case


def _suite_messages(ctx: _Ctx, suite: _Suite, suite_input: Any) -> list[Message]:
    """The suite's `input` (`suite_input`: after a test's `{{ var }}` replacements) as the first messages of a test.
    A message's line is its line in the suite, whatever replaced its text or wherever the test is written."""
    as_written: dict[int, Any] = {}
    if suite_input is not suite.input:  # interpolated: a copy, whose messages are where the suite's are
        if isinstance(suite_input, list) and isinstance(suite.input, list):
            as_written = {id(copy): written for copy, written in zip(suite_input, suite.input)}
        elif isinstance(suite_input, dict):
            as_written = {id(suite_input): suite.input}
    messages: list[Message] = []
    for m in _input_messages(suite_input) or []:
        if not _formatted(m):
            continue
        written = as_written.get(id(m))
        if not isinstance(written, dict):
            written = None
        line = _line(suite.doc, m if written is None else written) or suite.input_line
        suite_msg, _ = _build_message(ctx, m, len(messages), line, suite.doc, from_suite=True, written=written)
        messages.append(suite_msg)
    return messages


def _shared_suite_messages(ctx: _Ctx, suite: _Suite) -> list[Message]:
    """The suite's `input` as messages, made once and shared by the tests that get it unchanged, unless making them
    warns (a missing file: said for each test)."""
    if suite.messages is not None:
        return list(suite.messages)
    warned = len(ctx.diags)
    messages = _suite_messages(ctx, suite, suite.input)
    if len(ctx.diags) == warned:
        suite.messages = tuple(messages)
    return messages


def _conversation_note(case: EvalCase, raw: JsonObject, turns: Any) -> None:
    """Conversation mode changes what the model receives at run time, turn by turn, with the model's own answers in
    between: no prompt can be computed before the run. Said, with the turns, rather than modelled."""
    if not isinstance(turns, list) or not turns:
        return
    inputs = [t.get("input") for t in turns if isinstance(t, dict)]
    shown = "; ".join(
        f"{i}. {js_trim(v)[:60] if isinstance(v, str) else js_json(v)[:60]}" for i, v in enumerate(inputs, 1)
    )
    mode = raw.get("mode")
    window = raw.get("window_size")
    case.notes.append(
        f"Conversation{' mode' if mode == 'conversation' else ''}: {plural(len(turns), 'turn')} ({shown}). "
        "At run time AgentV sends one request per turn: the `input` messages as a history (content that is not "
        "text as compact JSON), then each earlier turn's `input` as a user message followed by the model's real "
        "answer, then this turn's "
        "`input` as the user message and the question"
        + (
            f"; `window_size: {window}` keeps the system messages and the last {2 * window} others"
            if isinstance(window, int) and not isinstance(window, bool) and window > 0
            else ""
        )
        + ". Each turn is graded on its own. The question, chatPrompt and systemMessage shown are AgentV's for the "
        "test as a whole: `input` alone."
    )


# --- external case files ------------------------------------------------------------------------------------------


def _read_case_file(ctx: _Ctx, abs_path: str, shown: str) -> str:
    ctx.result.watched_paths.add(abs_path)
    try:
        raw = read_bytes(abs_path)
    except FileReadError as exc:
        raise Refused(f"Cannot read external test file: {abs_path}\n  {read_error_text(exc, abs_path)}") from None
    return decode_eval_bytes(raw)[0].replace("\r\n", "\n")


def _external_cases(ctx: _Ctx, abs_path: str) -> list[tuple[Any, int | None, YamlDoc | None, str]]:
    """(test, line, doc, source) for each test of an external `.yaml`/`.yml`/`.jsonl` case file."""
    name = os.path.relpath(abs_path, ctx.eval_dir).replace(os.sep, "/")
    base = os.path.basename(abs_path)
    ext = os.path.splitext(base)[1] if not base.startswith(".") or base.count(".") > 1 else ""  # Node's extname
    if ext.lower() not in (".yaml", ".yml", ".jsonl"):
        raise Refused(f"Unsupported external test file format '{ext}': {abs_path}. Supported: .yaml, .yml, .jsonl")
    text = _read_case_file(ctx, abs_path, name)
    if abs_path.lower().endswith(".jsonl"):
        out: list[tuple[Any, int | None, YamlDoc | None, str]] = []
        for n, obj in _jsonl_objects(text, abs_path, name):
            out.append((ctx.env_test(obj), None, None, f"{name} line {n}"))
        return out
    if text.startswith("\ufeff") and text.lstrip("\ufeff").lstrip().startswith("-"):
        raise Refused(f"Unexpected scalar at node end (a byte order mark before the list) in {abs_path}", 1, abs_path)
    try:
        doc = parse_yaml(text, merge=True)
    except YamlError as exc:
        raise Refused(f"{refusal_text(exc)} (in {name})", exc.line, abs_path) from None
    data = doc.data
    if data is None:
        ctx.warn(f"External test file is empty, skipping: {abs_path}")
        return []
    if not isinstance(data, list):
        got = "object" if isinstance(data, dict) else type(data).__name__
        raise Refused(f"External test file must contain a YAML array, got {got}: {abs_path}", 1, abs_path)
    if any(not isinstance(t, dict) for t in data):
        raise Refused(f"External test file contains non-object entry: {abs_path}", 1, abs_path)
    lines = doc.child_lines(data) or []
    if "${{" in text:
        data = [ctx.env_test(t) for t in data]
    return [(t, lines[i] if i < len(lines) else None, doc, name) for i, t in enumerate(data)]


def _case_folder(ctx: _Ctx, folder: str) -> list[tuple[Any, int | None, YamlDoc | None, str]]:
    out: list[tuple[Any, int | None, YamlDoc | None, str]] = []
    for sub in sorted(os.listdir(folder)):
        path = os.path.join(folder, sub)
        if not os.path.isdir(path):
            continue
        case_file = next(
            (os.path.join(path, n) for n in ("case.yaml", "case.yml") if os.path.isfile(os.path.join(path, n))), None
        )
        if case_file is None:
            ctx.warn(f"Skipping directory '{sub}' — no case.yaml found")
            continue
        text = _read_case_file(ctx, case_file, sub)
        try:
            doc = parse_yaml(text, merge=True)
        except YamlError as exc:
            raise Refused(f"{refusal_text(exc)} (in {case_file})", exc.line, case_file) from None
        data = doc.data
        if not isinstance(data, dict):  # (the reference's wording: typeof [] and typeof null are both "object")
            raise Refused(f"Case file must contain a YAML object, got object: {case_file}", 1, case_file)
        if "${{" in text:
            notes: list[str] = []
            data = ctx.env_interpolate(data, notes)
        if data.get("id") is None:  # missing or null (not an empty string): the folder's name
            data = {"id": sub, **data} if "id" not in data else {**data, "id": sub}
        if "${{" in text:
            ctx.note_test_env(data, notes)
        out.append((data, 1, doc, os.path.relpath(case_file, ctx.eval_dir).replace(os.sep, "/")))
    return out


def _jsonl_objects(
    text: str, abs_path: str, shown: str, env_lines: set[int] | None = None
) -> list[tuple[int, JsonObject]]:
    """(line, test) of each line with content. `env_lines` receives the lines that may hold `${{` once decoded (as
    written, or with a `\\u` escape): no other line's test has anything for `${{ VAR }}` to replace."""
    out = []
    # Leading empty lines are skipped at once: a part of a big dataset is given at its own line numbers that way.
    body = text.lstrip("\n")
    ordered = may_need_key_order(body)  # (one search for the whole text: a key such as "2" is rare)
    for n, line in enumerate(body.split("\n"), len(text) - len(body) + 1):
        if line and (line[0] in JS_WHITESPACE or line[-1] in JS_WHITESPACE):
            line = js_trim(line)  # JavaScript's trim(): a BOM, NBSP, U+3000 or U+2028 too, not \x1c or \x85
        if not line:
            continue
        try:
            obj = orjson.loads(line)
        except orjson.JSONDecodeError:
            why = js_json_error(line)
            if why:
                raise Refused(f"Line {n}: Invalid JSON - {why}\n  File: {shown}", n, abs_path) from None
            try:
                obj = json.loads(line)  # JSON that orjson refuses and JavaScript reads (a lone surrogate escape, 1e400)
            except RecursionError:  # nested past 1,000 levels: AgentV's dataset loader overflows on it too
                why = "Maximum call stack size exceeded"
                raise Refused(f"Line {n}: Invalid JSON - {why}\n  File: {shown}", n, abs_path) from None
        if not isinstance(obj, dict):
            raise Refused(f"Line {n}: Invalid JSON - Expected JSON object\n  File: {shown}", n, abs_path)
        if env_lines is not None and ("${{" in line or "\\u" in line):
            env_lines.add(n)
        out.append((n, js_key_order(obj, line) if ordered else obj))
    return out


def _tests_list(
    ctx: _Ctx, tests: Any, doc: YamlDoc
) -> list[tuple[Any, int | None, YamlDoc | None, str | None, int | None]]:
    """(test, line, doc, source, position): `position` is a suite's own test's place in its `tests` list, as
    `agentv validate` counts it (file:// entries count one each); None for a test from another file."""
    if isinstance(tests, str):
        target = os.path.normpath(os.path.join(ctx.eval_dir, tests))
        if os.path.isdir(target):
            ctx.result.watched_paths.add(target)
            return [(*entry, None) for entry in _case_folder(ctx, target)]
        return [(*entry, None) for entry in _external_cases(ctx, target)]
    out: list[tuple[Any, int | None, YamlDoc | None, str | None, int | None]] = []
    lines = doc.child_lines(tests) or []
    for i, entry in enumerate(tests):
        line = lines[i] if i < len(lines) else None
        if isinstance(entry, str) and entry.startswith("file://"):
            ref = entry[len("file://") :]
            target = os.path.normpath(os.path.join(ctx.eval_dir, ref))
            if _GLOB_CHARS.search(ref):
                from wcmatch import glob as wglob  # here, not at the top: few suites use globs (startup time)

                from turnlens.formatting.evals.globs import expands_too_far, too_far_message

                if expands_too_far(target):  # the other tests still load
                    ctx.warn(too_far_message(entry), line)
                    continue
                _watch_glob_folders(ctx, target)
                # files only: a folder the pattern matches is not a case file (AgentV's glob lists files)
                matches = sorted(
                    m for m in wglob.glob(target, flags=wglob.BRACE | wglob.GLOBSTAR, limit=0) if os.path.isfile(m)
                )  # (no limit of wcmatch's own: expands_too_far applied it)
                if not matches:
                    ctx.warn(f"Glob pattern matched no files: {entry} (resolved to {target})", line)
                for m in matches:
                    out.extend((*e, None) for e in _external_cases(ctx, m))
            else:
                out.extend((*e, None) for e in _external_cases(ctx, target))
            continue
        out.append((entry, line, doc, None, ctx.first_index + i))
    return out


def _watch_glob_folders(ctx: _Ctx, pattern: str, limit: int = 256) -> None:
    """The folders a `file://` glob reads, so that a case file appearing there while the inspector is open is
    picked up: the folder before the first wildcard, and with `**` the existing folders under it (up to `limit`)."""
    parts = pattern.split(os.sep)
    first = next(i for i, part in enumerate(parts) if _GLOB_CHARS.search(part))
    base = os.sep.join(parts[:first]) or os.sep
    watched = ctx.result.watched_paths
    watched.add(base)
    if "**" not in parts[first:] or not os.path.isdir(base):
        return

    for folder, _subfolders, _files in TreeWalk(base, skip=("node_modules", ".git"), max_folders=limit):
        watched.add(folder)


# --- entry points -------------------------------------------------------------------------------------------------


def _refuse(result: EvalFile, message: str, line: int | None = None, file: str | None = None) -> EvalFile:
    result.cases = []
    result.error = Diagnostic(file or result.path, line, message, "error")
    return result


def load_yaml_suite(
    result: EvalFile,
    doc: YamlDoc,
    text: str,
    cwd: str,
    environ: Mapping[str, str] | None = None,
    first_case_index: int = 0,
) -> EvalFile:
    """A YAML file read as an AgentV 4 suite: only a `.yaml`/`.yml` file (AgentV 4 refuses another name), its `<<`
    merge keys merged in (0.15.1 did not read them: parsed again with them), the parser's warnings kept."""
    if not result.path.lower().endswith(YAML_SUFFIXES):
        ext = os.path.splitext(result.path)[1]
        return refuse(result, f"Unsupported file format: '{ext}'. Supported formats: .yaml, .yml, .jsonl, .json, .ts")
    if "<<" in text:
        merged = parse_eval_yaml(result, text, merge=True)
        if merged is None:
            return result
        doc = merged
    for w in getattr(doc, "warnings", ()):
        result.diagnostics.append(Diagnostic(result.path, w.line, w.message, "info"))
    return load_suite(result, doc, text, cwd, environ, first_case_index)


def load_suite(
    result: EvalFile,
    doc: YamlDoc,
    text: str,
    cwd: str,
    environ: Mapping[str, str] | None = None,
    first_case_index: int = 0,
) -> EvalFile:
    """Fill `result` from a parsed AgentV 4 YAML suite (`first_case_index`: a slice of a big suite starts there)."""
    ctx = _Ctx(result, cwd, environ)
    ctx.first_index = first_case_index
    try:
        return _load_suite(ctx, result, doc, text)
    except Refused as exc:
        return _refuse(result, exc.message, exc.line, exc.file)


def _load_suite(ctx: _Ctx, result: EvalFile, doc: YamlDoc, text: str) -> EvalFile:
    ctx.lines = text.split("\n") if "${{" in text else None  # (for the unset-variable trap: only then)
    data = doc.data
    if not isinstance(data, dict):
        raise Refused(f"Invalid test file format: {result.path}", 1)
    if "${{" in text:
        _env_suite(ctx, data, doc, text)
    name = data.get("name")
    base = os.path.basename(result.path)
    result.suite_name = name if isinstance(name, str) else re.sub(r"(\.eval)?\.ya?ml$", "", base)
    desc = data.get("description")
    result.description = desc if isinstance(desc, str) else None
    _check_evaluator(data.get("evaluator"), "global", ctx, _line(doc, data, "evaluator"))
    _check_workspace(ctx, data.get("workspace"), _line(doc, data, "workspace"))
    _check_preprocessors(ctx, data.get("preprocessors"), _line(doc, data, "preprocessors"))
    key = next((k for k in ("tests", "eval_cases", "evalcases") if k in data and data[k] is not None), None)
    if key is None:
        raise Refused(f"Invalid test file format: {result.path} - missing 'tests' field", 1)
    if key != "tests":
        ctx.warn(f"'{key}' is deprecated. Use 'tests' instead.", _line(doc, data, key))
    tests = data[key]
    if not isinstance(tests, (list, str)):
        raise Refused(f"Invalid test file format: {result.path} - missing 'tests' field", _line(doc, data, key))

    _unknown_suite_fields(ctx, data, doc)
    suite = _Suite()
    suite.doc = doc
    if data.get("input") is not None and data["input"] != "":  # (an empty string gives no suite message)
        suite.input = data["input"]
        suite.input_line = _line(doc, data, "input")
    if "input_files" in data and data["input_files"] is not None:
        suite.has_input_files = True
        suite.input_files = data["input_files"]
    suite.input_has_vars = has_vars(suite.input)
    suite.input_files_have_vars = has_vars(suite.input_files)
    sa = data.get("assertions")
    if sa is None and data.get("assert") is not None:
        sa = data["assert"]
        ctx.warn("'assert' is deprecated at the suite level. Use 'assertions' instead.", _line(doc, data, "assert"))
    if sa is None and isinstance(data.get("execution"), dict):
        sa = data["execution"].get("assertions") or data["execution"].get("evaluators")
    suite.assertions = sa
    execution = data.get("execution")
    own = data["assertions"] if data.get("assertions") is not None else data.get("assert", UNDEFINED)
    if own is not UNDEFINED:
        suite.grader_defaults = {**(execution if isinstance(execution, dict) else {}), "assertions": own}
    else:
        suite.grader_defaults = execution if isinstance(execution, dict) else None
    suite.metadata = suite_metadata(data)
    suite.execution = execution if isinstance(execution, dict) else None
    suite.target = data.get("target")

    entries = _tests_list(ctx, tests, doc)
    for index, (raw, line, tdoc, source, position) in enumerate(entries, ctx.first_index):
        case = _build_test(ctx, raw, index, line, tdoc, suite, source=source, position=position)
        result.cases.append(case)
    # checked once the tests are read, as AgentV does (a test's refusal comes first, its skip warnings stay)
    _check_metadata(data, doc)
    execution = data.get("execution")
    if isinstance(execution, dict) and "total_budget_usd" in execution:
        raise Refused(
            "execution.total_budget_usd has been renamed to execution.budget_usd. Update your eval YAML.",
            _line(doc, execution, "total_budget_usd"),
        )
    _watch_env(ctx)
    return result


def _js_type(value: Any) -> str:
    """The type name AgentV's schema validator reports for a value it did not expect."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "nan" if value != value else "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "date" if hasattr(value, "isoformat") else "object"


def _type_issue(path: list[str | int], expected: str, value: Any) -> JsonObject:
    received = _js_type(value)
    message = f"Expected {expected}, received {received}"
    return {"code": "invalid_type", "expected": expected, "received": received, "path": path, "message": message}


def _too_short(path: list[str | int]) -> JsonObject:
    return {
        "code": "too_small",
        "minimum": 1,
        "type": "string",
        "inclusive": True,
        "exact": False,
        "message": "String must contain at least 1 character(s)",
        "path": path,
    }


def _check_metadata(data: JsonObject, doc: YamlDoc) -> None:
    """A suite with a string `name` has its metadata validated; a problem refuses the file. AgentV's message is
    the validator's list of issues as JSON: it is kept whole, after one line of ours saying what is wrong."""
    name = data.get("name")
    if not isinstance(name, str):
        return
    issues: list[JsonObject] = []
    if name == "":
        issues.append(_too_short(["name"]))
    if not SUITE_NAME.fullmatch(name):
        issues.append({"validation": "regex", "code": "invalid_string", "message": "Invalid", "path": ["name"]})
    for key in ("description", "version", "author", "tags", "license", "requires"):
        if key not in data:
            continue
        value = data[key]
        if key == "tags":
            if not isinstance(value, list):
                issues.append(_type_issue([key], "array", value))
            else:
                issues += [_type_issue([key, i], "string", t) for i, t in enumerate(value) if not isinstance(t, str)]
        elif key == "requires":
            if not isinstance(value, dict):
                issues.append(_type_issue([key], "object", value))
            elif "agentv" in value and not isinstance(value["agentv"], str):
                issues.append(_type_issue([key, "agentv"], "string", value["agentv"]))
        elif not isinstance(value, str):
            issues.append(_type_issue([key], "string", value))
        elif key == "description" and value == "":
            issues.append(_too_short([key]))
    if not issues:
        return
    parts = []
    for issue in issues:
        where = ".".join(str(p) for p in issue["path"])
        why = "must be lower-case letters, digits and '-' (^[a-z0-9-]+$)" if issue["code"] == "invalid_string" else ""
        parts.append(f"{where}: {why or issue['message']}")
    first = issues[0]["path"][0]
    summary = "Invalid suite metadata: " + "; ".join(parts)
    raise Refused(f"{summary}\n{js_json_indent(issues)}", _line(doc, data, first))


def _env_in_place(
    data: Any, env: Mapping[str, str], doc: YamlDoc | None, notes: list[tuple[int | None, str]], skip: Any = None
) -> None:
    """`${{ VAR }}` in every string of parsed data, in place (so line numbers, kept by identity, stay); `notes`
    receives (line, what was replaced) per string. `skip`: a collection left alone (the tests, noted per test)."""
    stack = [data]
    pop, push = stack.pop, stack.append
    while stack:
        node = pop()
        pairs = node.items() if type(node) is dict else enumerate(node)
        hits = None
        for k, v in pairs:
            t = type(v)
            if t is str:
                if "${{" in v:
                    hits = [] if hits is None else hits
                    hits.append(k)
            elif (t is dict or t is list) and v is not skip:
                push(v)
        if hits:
            for k in hits:
                replaced: list[str] = []
                node[k] = interpolate_env(node[k], env, replaced)
                line = _line(doc, node, k)
                notes.extend((line, n) for n in replaced)


def _env_suite(ctx: _Ctx, data: JsonObject, doc: YamlDoc, text: str) -> None:
    """Env interpolation of a whole suite, said where it happened: each inline test's replacements on that test,
    the rest (name, description, suite input, defaults…) once for the file, with its line."""
    key = next((k for k in ("tests", "eval_cases", "evalcases") if isinstance(data.get(k), list)), None)
    tests = data[key] if key is not None else None
    suite_notes: list[tuple[int | None, str]] = []
    _env_in_place(data, ctx.env, doc, suite_notes, skip=tests)
    if tests is not None and _tests_may_hold(text, "${{", doc, data, key):
        for i, entry in enumerate(tests):
            if isinstance(entry, dict):
                test_notes: list[tuple[int | None, str]] = []
                _env_in_place(entry, ctx.env, doc, test_notes)
                ctx.note_test_env(entry, [n for _, n in test_notes])
            elif isinstance(entry, str) and "${{" in entry:
                replaced: list[str] = []
                tests[i] = interpolate_env(entry, ctx.env, replaced)
                suite_notes.extend((_line(doc, tests, i), n) for n in replaced)
    seen = set()
    for line, note in suite_notes:
        if (line, note) not in seen:
            seen.add((line, note))
            ctx.diags.append(Diagnostic(ctx.path, line, note, "info"))


def _tests_may_hold(text: str, needle: str, doc: YamlDoc, data: JsonObject, key: Any) -> bool:
    """Whether a string in the tests may hold `needle`: not when the text has none from the line of the tests' key
    on (their values are written after it) and no string can come from elsewhere (an escape can write one, an
    alias can bring one from before). Spares walking thousands of tests for nothing."""
    if "\\" in text or has_alias(text):
        return True
    line = _line(doc, data, key)
    if line is None:
        return True
    start = 0
    for _ in range(line - 1):
        start = text.find("\n", start) + 1
        if start == 0:
            return True
    return text.find(needle, start) != -1


def _check_preprocessors(ctx: _Ctx, preprocessors: Any, line: int | None) -> None:
    """A suite preprocessor whose command names a script that does not exist refuses the file (relative to the
    eval file, as AgentV resolves it)."""
    if not isinstance(preprocessors, list):
        return
    for pre in preprocessors:
        command = pre.get("command") if isinstance(pre, dict) else None
        if not isinstance(command, list):
            continue
        for arg in command[1:]:
            if isinstance(arg, str) and re.search(r"\.(m?[jt]s|c?js|py|sh)$", arg):
                if not os.path.exists(os.path.join(ctx.eval_dir, arg)):
                    raise Refused(
                        f"Grader '<suite>' in '{ctx.abs_path}': preprocessor command file not found: {arg}", line
                    )


_REMOVED_REPO_KEYS = (
    ("source", "workspace.repos[].source has been removed. Use workspace.repos[].repo."),
    ("checkout", "workspace.repos[].checkout has been removed. Use top-level commit, base_commit, and ancestor."),
    ("clone", "workspace.repos[].clone has been removed. Use top-level sparse if needed."),
)


def _check_workspace(ctx: _Ctx, ws: Any, line: int | None) -> None:
    """A suite's or a test's `workspace` (a mapping, or a YAML file holding one) with keys AgentV 4.42.4 removed, or
    repos whose `commit` and `base_commit` differ: AgentV refuses the whole file."""
    if isinstance(ws, str):
        target = os.path.normpath(os.path.join(ctx.eval_dir, ws))
        ctx.result.watched_paths.add(target)
        if not os.path.isfile(target):
            raise Refused(f"Workspace file not found: {ws} (resolved to {target})", line)
        try:
            ws = parse_yaml(decode_eval_bytes(read_bytes(target))[0], merge=True).data
        except FileReadError as exc:
            raise Refused(f"Cannot read workspace file: {target} ({read_error_text(exc, target)})", line) from None
        except YamlError as exc:
            raise Refused(f"{refusal_text(exc)} (in {target})", exc.line, target) from None
        if not isinstance(ws, dict):
            raise Refused(f"Invalid workspace file format: {target} (expected a YAML object)", 1, target)
    if not isinstance(ws, dict):
        return
    if "static_path" in ws:
        raise Refused("workspace.static_path has been removed. Use workspace.path with workspace.mode=static.", line)
    if "pool" in ws:
        raise Refused("workspace.pool has been removed. Use workspace.mode='pooled' or 'temp'.", line)
    if "static" in ws:
        raise Refused("workspace.static has been removed. Use workspace.mode='static'.", line)
    repos = ws.get("repos")
    if not isinstance(repos, list):
        return
    for repo in repos:
        if not isinstance(repo, dict):
            continue
        for key, message in _REMOVED_REPO_KEYS:
            if key in repo:
                raise Refused(message, line)
        commit, base = repo.get("commit"), repo.get("base_commit")
        if isinstance(commit, str) and commit and isinstance(base, str) and base and commit != base:
            raise Refused("workspace.repos[].commit and workspace.repos[].base_commit must match.", line)


def _watch_env(ctx: _Ctx) -> None:
    if ctx.env_files:
        ctx.result.watched_paths.update(ctx.env_files)


def load_jsonl(
    result: EvalFile, text: str, cwd: str, environ: Mapping[str, str] | None = None, first_case_index: int = 0
) -> EvalFile:
    """A standalone JSONL dataset and its `<name>.yaml` sidecar. `first_case_index`: the index of the first test
    of `text` (a part of the dataset, after as many empty lines as it has lines before it)."""
    ctx = _Ctx(result, cwd, environ)
    env_lines: set[int] = set()
    try:
        objects = _jsonl_objects(text, result.abs_path, result.path, env_lines)
    except Refused as exc:
        return _refuse(result, exc.message, exc.line)
    sidecar = result.abs_path[: -len(".jsonl")] + ".yaml"
    result.watched_paths.add(sidecar)
    base = os.path.basename(result.path)
    result.suite_name = base[: -len(".jsonl")]
    suite_execution = None
    if os.path.isfile(sidecar):
        try:
            side = parse_yaml(decode_eval_bytes(read_bytes(sidecar))[0], merge=True).data
        except YamlError as exc:
            ctx.warn(f"Could not read sidecar metadata from {sidecar}: {refusal_text(exc)}", exc.line, sidecar)
            side = {}
        except FileReadError as exc:
            ctx.warn(f"Could not read sidecar metadata from {sidecar}: {read_error_text(exc, sidecar)}", 1, sidecar)
            side = {}
        if not isinstance(side, dict):
            ctx.warn(f"Invalid sidecar metadata format in {sidecar}", 1, sidecar)
        else:
            side = ctx.env_interpolate(side)
            if isinstance(side.get("name"), str):
                result.suite_name = side["name"]
            if isinstance(side.get("description"), str):
                result.description = side["description"]
            suite_execution = side.get("execution")
            _check_evaluator_safe(ctx, result, side.get("evaluator"))
            if result.error:
                return result
    suite = _Suite()
    for index, (n, obj) in enumerate(objects, first_case_index):
        notes: list[str] = []
        if n in env_lines:
            obj = ctx.env_interpolate(obj, notes)
        if suite_execution is not None and "execution" not in obj:
            obj = {**obj, "execution": suite_execution}
        ctx.note_test_env(obj, notes)
        try:
            case = _build_test(ctx, obj, index, n, None, suite, jsonl_line=n, use_vars=False)
        except Refused as exc:
            return _refuse(result, exc.message, n)
        result.cases.append(case)
    _watch_env(ctx)
    return result


def _check_evaluator_safe(ctx: _Ctx, result: EvalFile, name: Any) -> None:
    try:
        _check_evaluator(name, "global", ctx, None)
    except Refused as exc:
        _refuse(result, exc.message, exc.line)


def load_skill_evals(
    result: EvalFile, text: str, cwd: str, environ: Mapping[str, str] | None = None, first_case_index: int = 0
) -> EvalFile:
    """An Agent Skills `evals.json`: each eval's prompt is one user message; its files are not in the prompt.
    (`first_case_index` is always 0: such a file is never cut in slices.)"""
    ctx = _Ctx(result, cwd, environ)
    try:
        data = js_key_order(js_loads(text), text)  # (1e400 is Infinity, its id "Infinity", as JSON.parse reads it)
    except orjson.JSONDecodeError as exc:
        line = getattr(exc, "lineno", None)
        why = f" ({js_json_error(text)})"
        return _refuse(result, f"Invalid Agent Skills evals.json: failed to parse JSON in '{result.path}'{why}", line)
    # (no `${{ VAR }}` here: AgentV reads an evals.json as written)
    evals = data.get("evals") if isinstance(data, dict) else None
    if not isinstance(evals, list):
        return _refuse(result, f"Invalid Agent Skills evals.json: missing 'evals' array in '{result.path}'", 1)
    if not evals:
        return _refuse(result, f"Invalid Agent Skills evals.json: 'evals' array is empty in '{result.path}'", 1)
    if isinstance(data.get("skill_name"), str):
        result.suite_name = data["skill_name"]
    suite = _Suite()
    for index, ev in enumerate(evals):
        if not isinstance(ev, dict):
            case = EvalCase(index, None, None, result.path, skipped="not an object")
            message = f"Skipping eval case unknown in '{result.path}': missing or empty 'prompt'"
            case.diagnostics.append(Diagnostic(result.path, None, message))
            result.cases.append(case)
            continue
        eid = ev.get("id")
        sid = js_string_of(eid) if "id" in ev else "undefined"  # JavaScript's String(id)
        prompt = ev.get("prompt")
        if not isinstance(prompt, str) or not prompt.strip():
            case = EvalCase(index, sid, None, result.path, raw_id=eid, skipped="`prompt` is empty or not a string")
            named = f"id={sid}" if "id" in ev else "unknown"
            case.diagnostics.append(
                Diagnostic(
                    result.path, None, f"Skipping eval case {named} in '{result.path}': missing or empty 'prompt'"
                )
            )
            result.cases.append(case)
            continue
        expected = ev.get("expected_output")
        test = {"id": sid, "input": [{"role": "user", "content": prompt}]}
        if isinstance(expected, str):
            test["criteria"] = expected
            test["expected_output"] = expected
        assertions = [
            {"name": f"assertion-{i + 1}", "type": "llm-grader", "prompt": a}
            for i, a in enumerate(ev.get("assertions") or [])
            if isinstance(a, str)
        ]
        if assertions:
            test["assertions"] = assertions
        # (an evals.json id is String(id): an empty one is an id)
        case = _build_test(ctx, test, index, None, None, suite, use_vars=False, require_spec=False, require_id=False)
        case.raw_id = eid
        files = ev.get("files")
        if isinstance(files, list) and files:
            case.notes.append(
                f"`files` ({len(files)}) go to the agent as input files and metadata, not into the prompt."
            )
        result.cases.append(case)
    _watch_env(ctx)
    return result
