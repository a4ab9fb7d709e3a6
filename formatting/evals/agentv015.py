"""Loading AgentV 0.15 eval files (dialect `agentv-0.15`: `$schema: agentv-eval-v2`, `evalcases` with
`input_messages`), their `.agentv/config.yaml` and every file they reference (docs/rules.md); the peer of
agentv4.py. The dispatcher (dialects/load.py) parses the YAML and hands a 0.15 document to `load_suite`.

Nothing here prints or raises for bad input: problems come back as `Diagnostic`s with file and line. Warnings
carry the reference's wording (without its "Warning: " prefix) so authors can match them to an `agentv` run.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any, cast

from turnlens.formatting.evals.files import FileReadError, outside_root_message, read_bytes, wide_encoding
from turnlens.formatting.evals.globs import MAX_MAGIC_PATTERNS, is_guideline, slow_patterns, unused_patterns
from turnlens.formatting.evals.paths import dirs_up, posix_rel
from turnlens.formatting.evals.references import Resolver, read_error_text, read_text
from turnlens.formatting.evals.yaml12 import YamlDoc, YamlError, parse_yaml_bytes
from turnlens.formatting.jsstr import js_json, js_string_of, js_trim
from turnlens.formatting.model import (
    CaseEvaluator,
    Diagnostic,
    EvalCase,
    EvalFile,
    GuidelineConfig,
    Message,
    Segment,
)
from turnlens.formatting.records import JsonArray, JsonObject

EVAL_SCHEMA = "agentv-eval-v2"
CONFIG_SCHEMA = "agentv-config-v2"
ROLES = ("system", "user", "assistant", "tool")
# Past this size a referenced file is still embedded (the reference does), but the author is told.
LARGE_FILE_BYTES = 1 << 20


# --- config -------------------------------------------------------------------------------------------------


def load_config(eval_dir: str, repo_root: str) -> GuidelineConfig:
    """The first valid `.agentv/config.yaml` from the eval file's folder up to the repo root."""
    diags: list[Diagnostic] = []
    for folder in dirs_up(eval_dir, repo_root):
        cfg_path = os.path.join(folder, ".agentv", "config.yaml")
        if not os.path.exists(cfg_path) or os.path.isdir(cfg_path):
            continue
        try:
            raw = read_bytes(cfg_path)
            encoding = wide_encoding(raw)
            if encoding is not None:
                raise YamlError(f"the file is {encoding} encoded; AgentV reads it as UTF-8 (save it as UTF-8)", 1)
            doc = parse_yaml_bytes(raw)
        except YamlError as exc:
            diags.append(Diagnostic(cfg_path, exc.line, f"Could not read .agentv/config.yaml: {exc.message}"))
            continue
        except FileReadError as exc:
            diags.append(Diagnostic(cfg_path, None, f"Could not read .agentv/config.yaml: {exc.reason}"))
            continue
        data = doc.data
        if not isinstance(data, dict):
            diags.append(Diagnostic(cfg_path, 1, "Invalid .agentv/config.yaml: expected a mapping"))
            continue
        schema = data.get("$schema")
        if schema != CONFIG_SCHEMA:
            if schema is None:
                msg = f"Missing required field '$schema' in {cfg_path}. Expected '{CONFIG_SCHEMA}'"
            else:
                msg = f"Invalid $schema value '{schema}' in {cfg_path}. Expected '{CONFIG_SCHEMA}'"
            diags.append(Diagnostic(cfg_path, doc.line(data, "$schema") or 1, msg))
            continue
        if "guideline_patterns" not in data:
            return GuidelineConfig(cfg_path, [], diags)
        patterns = data["guideline_patterns"]
        if not isinstance(patterns, list) or not all(isinstance(p, str) for p in patterns):
            line = doc.line(data, "guideline_patterns")
            if isinstance(patterns, list):
                msg = f"Invalid guideline_patterns in {cfg_path}, all entries must be strings"
            else:
                msg = f"Invalid guideline_patterns in {cfg_path}, expected array"
            diags.append(Diagnostic(cfg_path, line, msg))
            continue
        return GuidelineConfig(cfg_path, list(patterns), diags)
    return GuidelineConfig(None, [], diags)


# --- eval file ----------------------------------------------------------------------------------------------


class _Context:
    def __init__(self, eval_path: str, abs_path: str, repo_root: str, cwd: str, patterns: list[str]):
        self.eval_path = eval_path
        self.repo_root = repo_root
        self.patterns = tuple(patterns)
        self.resolver = Resolver(os.path.dirname(abs_path), repo_root, cwd)
        self.texts: dict[str, tuple[str | None, str | None, bool]] = {}  # abs path -> (text, error, utf8)
        self.watched: set[str] = set()
        self._guideline: dict[str, bool] = {}
        self.suite_evaluators: Any = None  # the suite's `execution.evaluators`

    def is_guideline_path(self, resolved: str) -> bool:
        """Load-time guideline check: the path relative to the repo root against the patterns (cached)."""
        hit = self._guideline.get(resolved)
        if hit is None:
            hit = self._guideline[resolved] = is_guideline(posix_rel(resolved, self.repo_root), self.patterns)
        return hit

    def read(self, path: str) -> tuple[str | None, str | None, bool]:
        hit = self.texts.get(path)
        if hit is None:
            try:
                text, valid = read_text(path)
                hit = (text, None, valid)
            except FileReadError as exc:
                hit = (None, f"Could not read file {path}: {read_error_text(exc, path)}", True)
            self.texts[path] = hit
        return hit


def _line(doc: YamlDoc, obj: Any, key: Any = None) -> int | None:
    try:
        return doc.line(obj, key)
    except Exception:
        return None


def _message_problem(raw: Any) -> str | None:
    """Why the reference drops this input message entirely, or None when it keeps it."""
    if not isinstance(raw, dict):
        return "not a mapping"
    role = raw.get("role")
    if role not in ROLES:
        if role is None:
            return "no role"
        return f"role {role!r} is not one of system, user, assistant, tool"
    content = raw.get("content")
    if isinstance(content, str):
        return None
    if isinstance(content, list):
        for i, entry in enumerate(content):
            if not isinstance(entry, dict):
                return f"content entry {i + 1} is not a mapping"
        return None
    if content is None:
        return "no content"
    return f"content is a {_type_name(content)}, not text or a list"


def _type_name(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, dict):
        return "mapping"
    if isinstance(value, list):
        return "list"
    if value is None:
        return "null"
    return type(value).__name__


def _load_segments(
    ctx: _Context,
    doc: YamlDoc,
    raw_msg: JsonObject,
    diags: list[Diagnostic],
    guideline_paths: list[str] | None,
    expected: bool = False,
) -> list[Segment]:
    """Segments of one kept message, files resolved and read (load time)."""
    content = raw_msg.get("content")
    if isinstance(content, str):
        return [Segment(0, "text", content, _line(doc, raw_msg, "content"))]
    segments: list[Segment] = []
    entries = cast(JsonArray, content)  # the caller kept only messages whose content is a string or a list
    lines = doc.child_lines(entries) or ()
    for i, entry in enumerate(entries):
        line = lines[i] if i < len(lines) else None
        seg_type = entry.get("type")
        value = entry.get("value")
        seg = Segment(i, seg_type if isinstance(seg_type, str) else "", value if isinstance(value, str) else None, line)
        if value is not None and not isinstance(value, str):
            seg.raw = value
        segments.append(seg)
        if seg_type != "file" or not isinstance(value, str) or not value:
            continue
        resolved, tried = ctx.resolver.resolve(value)
        seg.display_path = ctx.resolver.display_path(value)
        if resolved is None:
            seg.tried = tried
            attempts = "\n".join(f"    {t}" for t in tried)
            where = " in expected_messages" if expected else ""
            diags.append(
                Diagnostic(ctx.eval_path, line, f"File not found{where}: {seg.display_path}\n  Tried:\n{attempts}")
            )
            continue
        seg.resolved_path = resolved
        ctx.watched.add(resolved)
        if ctx.resolver.outside_root(resolved):
            seg.outside_root = True
            diags.append(Diagnostic(ctx.eval_path, line, outside_root_message(value, resolved)))
        text, error, valid_utf8 = ctx.read(resolved)
        if error is not None or text is None:
            diags.append(Diagnostic(ctx.eval_path, line, error or f"cannot read {seg.display_path}"))
            continue
        seg.text = text
        if not valid_utf8:
            diags.append(
                Diagnostic(
                    ctx.eval_path,
                    line,
                    f"File is not valid UTF-8: {seg.display_path} (invalid "
                    "bytes are sent as U+FFFD, as AgentV reads it)",
                    "info",
                )
            )
        if len(text) > LARGE_FILE_BYTES:
            diags.append(
                Diagnostic(
                    ctx.eval_path,
                    line,
                    f"Large file embedded: {seg.display_path} ({len(text) / (1 << 20):.1f} MB)",
                    "info",
                )
            )
        if "\x00" in text:
            diags.append(Diagnostic(ctx.eval_path, line, f"File looks binary (NUL bytes): {seg.display_path}", "info"))
        if not expected and ctx.is_guideline_path(resolved):
            seg.is_guideline = True
            if guideline_paths is not None:
                guideline_paths.append(resolved)
    return segments


def _entry_text(entry: JsonObject) -> str:
    value, text = entry.get("value"), entry.get("text")
    if isinstance(value, str):
        return value
    if isinstance(text, str):
        return text
    return js_json(entry)


def _reference_answer(segments: list[Segment], content: Any) -> str:
    """The first valid expected message as the reference reads it (the evaluator prompt trims the whole).

    With a loaded file among the entries every entry is rendered and joined by a blank line; without one the
    entries' texts are joined by a space and file entries are left out.
    """
    if isinstance(content, str):
        return content
    loaded = [seg.type == "file" and seg.text is not None for seg in segments]
    if any(loaded):
        parts = []
        for entry, seg, is_loaded in zip(content, segments, loaded):
            if is_loaded:
                parts.append(f'<file path="{seg.display_path}">\n{js_trim(cast(str, seg.text))}\n</file>')
            elif seg.type != "file":
                parts.append(_entry_text(entry))
        return "\n\n".join(parts)
    return " ".join(_entry_text(e) for e in content if e.get("type") != "file")


def _id_as_written(raw: JsonObject, index: int) -> str:
    """A case's `id` as the YAML wrote it (`1042`, `true`, `""`), or its position when it has none."""
    if "id" not in raw or raw["id"] is None:
        return f"#{index + 1} (no id)"
    value = raw["id"]
    if isinstance(value, str):
        return value if value else '""'
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return js_string_of(value)  # as JavaScript writes the number (`1e400`: Infinity)
    return json.dumps(value, ensure_ascii=False, default=str)


def _load_case(
    ctx: _Context,
    doc: YamlDoc,
    index: int,
    raw: Any,
    file_diags: list[Diagnostic],
    position: int,
    alias_outcome: bool = False,
) -> EvalCase:
    line = _line(doc, raw) if isinstance(raw, (dict, list)) else _line(doc, doc.data.get("evalcases"), position)
    if not isinstance(raw, dict):
        file_diags.append(Diagnostic(ctx.eval_path, line, "Skipping invalid eval case entry (expected object)"))
        return EvalCase(index, None, line, ctx.eval_path, skipped="not a mapping (expected object)")
    case_id = raw.get("id")
    case = EvalCase(index, case_id if isinstance(case_id, str) else None, line, ctx.eval_path, raw_id=case_id)
    outcome = raw.get("outcome")
    if alias_outcome and outcome is None and "expected_outcome" in raw:
        outcome = raw.get("expected_outcome")
        case.notes.append("`expected_outcome` (AgentV 1.x–3.x) is read as `outcome`; no reference pins those bytes.")
    messages = raw.get("input_messages")
    execution = raw.get("execution")
    evaluators = execution.get("evaluators") if isinstance(execution, dict) else None
    if evaluators is None:
        evaluators = raw.get("evaluators")
    inherited = evaluators is None and not isinstance(execution, dict) and ctx.suite_evaluators is not None
    if inherited:  # no evaluators of its own and no execution mapping (`execution: fast` neither): the suite's
        evaluators = ctx.suite_evaluators
    missing = []
    if not isinstance(case_id, str) or not case_id:
        missing.append(("`id` is empty" if case_id == "" else "`id` is not a string") if "id" in raw else "no `id`")
    if not isinstance(outcome, str) or not outcome:
        missing.append(
            ("`outcome` is empty" if outcome == "" else "`outcome` is not a string")
            if "outcome" in raw
            else "no `outcome`"
        )
    if not isinstance(messages, list):
        missing.append("`input_messages` is not a list" if "input_messages" in raw else "no `input_messages`")
    if missing:
        case.skipped = "; ".join(missing)
        # One warning that names the case as written (the reference says "unknown" for an id that is not a string,
        # which leaves the reader to find `id: 1042` by line) and why it is skipped.
        label = _id_as_written(raw, index)
        case.diagnostics.append(
            Diagnostic(ctx.eval_path, line, f"Skipping incomplete eval case {label}: {case.skipped}")
        )
        return case
    case.outcome = outcome

    diags = case.diagnostics
    messages = cast(JsonArray, messages)  # a case without a message list was skipped above
    message_lines = doc.child_lines(messages) or ()
    for m_index, raw_msg in enumerate(messages):
        m_line = message_lines[m_index] if m_index < len(message_lines) else None
        problem = _message_problem(raw_msg)
        role = raw_msg.get("role") if isinstance(raw_msg, dict) else None
        role_text = role if isinstance(role, str) else ""
        if problem is not None:
            segs = []
            content = raw_msg.get("content") if isinstance(raw_msg, dict) else None
            if isinstance(content, list):
                for i, entry in enumerate(content):
                    e = entry if isinstance(entry, dict) else {}
                    t, v = e.get("type"), e.get("value")
                    segs.append(
                        Segment(
                            i,
                            t if isinstance(t, str) else "",
                            v if isinstance(v, str) else (entry if isinstance(entry, str) else None),
                            _line(doc, content, i),
                        )
                    )
            elif isinstance(content, str):
                segs.append(Segment(0, "text", content, _line(doc, raw_msg, "content")))
            case.messages.append(Message(m_index, role_text, m_line, isinstance(content, str), segs, dropped=problem))
            diags.append(Diagnostic(ctx.eval_path, m_line, f"Input message {m_index + 1} dropped: {problem}"))
            continue
        segs = _load_segments(ctx, doc, raw_msg, diags, case.guideline_paths)
        case.messages.append(Message(m_index, role_text, m_line, isinstance(raw_msg["content"], str), segs))

    if evaluators is not None and not isinstance(evaluators, list):
        e_line = _line(doc, raw, "evaluators") or _line(doc, execution, "evaluators") or line
        diags.append(Diagnostic(ctx.eval_path, e_line, f"Skipping evaluators for '{case_id}': expected array"))
    elif isinstance(evaluators, list) and evaluators:
        parsed = _case_evaluators(ctx, doc, evaluators, cast(str, case_id), diags)
        if parsed:
            case.evaluators = parsed
            if inherited:
                case.notes.append("Its evaluators are the suite's `execution.evaluators` (it has none of its own).")

    expected = raw.get("expected_messages")
    if isinstance(expected, list) and expected:
        e_line = _line(doc, raw, "expected_messages")
        valid = [(i, m) for i, m in enumerate(expected) if _message_problem(m) is None]
        if not valid:
            case.skipped = "no valid expected message"
            case.diagnostics.append(
                Diagnostic(ctx.eval_path, e_line, f"No valid expected message found for eval case: {case_id}")
            )
            return case
        if len(valid) > 1:
            diags.append(
                Diagnostic(
                    ctx.eval_path, e_line, f"Multiple expected messages found for eval case: {case_id}, using first"
                )
            )
        first_index, first = valid[0]
        segs = _load_segments(ctx, doc, first, diags, None, expected=True)
        case.expected_messages.append(
            Message(
                first_index, first["role"], _line(doc, expected, first_index), isinstance(first["content"], str), segs
            )
        )
        case.reference_answer = _reference_answer(segs, first["content"])
    return case


def _case_evaluators(
    ctx: _Context, doc: YamlDoc, evaluators: JsonArray, case_id: str, diags: list[Diagnostic]
) -> list[CaseEvaluator]:
    """A case's own evaluators as 0.15.1 keeps them: {name, type, template (None: the default one)}.

    An `llm_judge` `prompt:` names a file whose text is the template; when no such file exists the text itself is
    the template. A `code` evaluator needs a `script`; other types are skipped."""
    out: list[CaseEvaluator] = []
    lines = doc.child_lines(evaluators) or ()
    for i, ev in enumerate(evaluators):
        line = lines[i] if isinstance(lines, list) and i < len(lines) else None
        if not isinstance(ev, dict):
            diags.append(
                Diagnostic(ctx.eval_path, line, f"Skipping invalid evaluator entry for '{case_id}' (expected object)")
            )
            continue
        name = ev.get("name")
        etype = ev.get("type")
        if not isinstance(name, str) or not name or etype not in ("llm_judge", "code"):
            diags.append(Diagnostic(ctx.eval_path, line, f"Skipping evaluator with invalid name/type in '{case_id}'"))
            continue
        assert isinstance(ev, dict)
        if etype == "code":
            if not isinstance(ev.get("script"), str) or not ev.get("script"):
                diags.append(
                    Diagnostic(ctx.eval_path, line, f"Skipping code evaluator '{name}' in '{case_id}': missing script")
                )
                continue
            out.append({"name": name, "type": "code", "template": None, "source": None})
            continue
        prompt = ev.get("prompt")
        template, source = None, None
        if isinstance(prompt, str) and prompt:
            resolved, tried = ctx.resolver.resolve(prompt)
            text = ctx.read(resolved)[0] if resolved is not None and os.path.isfile(resolved) else None
            if text is not None and resolved is not None:
                template, source = text, resolved
                ctx.watched.add(resolved)
            else:
                template = prompt
                diags.append(
                    Diagnostic(
                        ctx.eval_path,
                        line,
                        f"Inline prompt used for evaluator '{name}' in '{case_id}' (file not found: {prompt})"
                        + "".join(f"\n  Tried: {path}" for path in tried),
                    )
                )
        out.append({"name": name, "type": "llm_judge", "template": template, "source": source})
    return out


def _agentv4_note(result: EvalFile, doc: YamlDoc, cwd: str, text: str | None, environ: Mapping[str, str] | None) -> str:
    """What AgentV 4.42.4 does with a 0.15-era file that has no `$schema` (an AgentV 1.x-3.x file): it reads it as
    its own format, where `input_messages`, `outcome` and guidelines no longer exist, so it skips the tests. Worked
    out by loading the file as AgentV 4 does, so the count is AgentV's."""
    if text is None or not isinstance(doc.data, dict):
        return ""
    from turnlens.formatting.evals import agentv4

    as_v4 = agentv4.load_suite(
        EvalFile(result.path, result.abs_path, result.repo_root, GuidelineConfig(None, [])), doc, text, cwd, environ
    )
    if as_v4.error is not None:
        return f" AgentV 4.42.4 refuses it too: {as_v4.error.message}"
    total = len(as_v4.cases)
    skipped = sum(1 for c in as_v4.cases if c.skipped is not None)
    which = "every test in it" if skipped == total else f"{skipped} of its {total} tests"
    return (
        f" AgentV 4.42.4 reads it but skips {which}: `input_messages`, `outcome` and `expected_outcome` are no "
        "longer read; a test needs `input` and one of `criteria`, `expected_output` or `assertions`."
    )


def load_suite(
    result: EvalFile,
    doc: YamlDoc,
    cwd: str,
    first_case_index: int = 0,
    *,
    text: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> EvalFile:
    """Fill `result` (path, root and dialect set by the dispatcher) from a parsed 0.15 document: its config, its
    cases with their files read. A file the reference refuses comes back with `.error`."""
    path, abs_path, repo_root = result.path, result.abs_path, result.repo_root
    eval_dir = os.path.dirname(abs_path)

    def refuse(message: str, line: int | None = None) -> EvalFile:
        result.error = Diagnostic(path, line, message, "error")
        return result

    config = load_config(eval_dir, repo_root)
    result.config = config
    result.diagnostics[:0] = config.diagnostics
    if config.path:
        result.watched_paths.add(config.path)
    for folder in dirs_up(eval_dir, repo_root):  # a config that appears later must trigger a reload too
        result.watched_paths.add(os.path.join(folder, ".agentv", "config.yaml"))
    for w in getattr(doc, "warnings", ()):
        result.diagnostics.append(Diagnostic(path, w.line, w.message, "info"))
    data = doc.data
    name = os.path.basename(path)
    if not isinstance(data, dict):
        return refuse(f"Invalid test file format: {name} (the top level must be a mapping)", 1)
    if "$schema" not in data:
        return refuse(
            f"Missing required field '$schema' in {name}. Please add '$schema: {EVAL_SCHEMA}' at the top of the file."
            + _agentv4_note(result, doc, cwd, text, environ),
            1,
        )
    if data["$schema"] != EVAL_SCHEMA:
        return refuse(
            f"Invalid $schema value '{data['$schema']}' in {name}. Expected '{EVAL_SCHEMA}'", doc.line(data, "$schema")
        )
    cases = data.get("evalcases")
    if not isinstance(cases, list):
        return refuse(
            f"Invalid test file format: {name} - missing 'evalcases' field"
            + ("" if "evalcases" not in data else " (it must be a list)"),
            doc.line(data, "evalcases") or 1,
        )
    # AgentV 1.x-3.x renamed `outcome` to `expected_outcome`: a file that only ever uses the new name is read with
    # it as the outcome (0.15.1 itself skips such cases, so a 0.15 file that mixes both keeps 0.15.1's behaviour).
    alias_outcome = not any(isinstance(c, dict) and "outcome" in c for c in cases) and any(
        isinstance(c, dict) and "expected_outcome" in c for c in cases
    )
    if alias_outcome:
        result.dialect_reason += "; its cases use `expected_outcome` (AgentV 1.x–3.x), read as `outcome`"
    ctx = _Context(path, abs_path, repo_root, cwd, config.patterns)
    suite_execution = data.get("execution")
    if isinstance(suite_execution, dict):
        ctx.suite_evaluators = suite_execution.get("evaluators")
    for position, raw_case in enumerate(cases):
        result.cases.append(
            _load_case(ctx, doc, first_case_index + position, raw_case, result.diagnostics, position, alias_outcome)
        )
    result.watched_paths |= ctx.watched
    _pattern_warnings(result, config)
    if "" in config.patterns and _has_file_reference(result.cases):
        # AgentV's glob matcher throws on an empty pattern as soon as it checks a file: the whole run fails.
        result.cases = []
        result.error = Diagnostic(
            config.path or path,
            None,
            "a guideline pattern is the empty string; AgentV fails on "
            "it ('Expected pattern to be a non-empty string') as soon as it checks a file "
            f"referenced by {name}",
            "error",
        )
    return result


def _pattern_warnings(result: EvalFile, config: GuidelineConfig) -> None:
    """Guideline patterns that are not used in full: too many, or too slow to match (see globs.py)."""
    unused = unused_patterns(config.patterns)
    if unused:
        message = (
            f"{len(config.patterns):,} guideline patterns: the {unused:,} with wildcards after the first "
            f"{MAX_MAGIC_PATTERNS:,} are not used"
        )
        result.diagnostics.append(Diagnostic(config.path or result.path, None, message))
    for pattern, where in slow_patterns().items():
        if pattern in config.patterns:
            message = (
                f"guideline pattern {pattern!r} takes too long to match {where!r} (nested extglob alternatives "
                "backtrack exponentially): it matches nothing here"
            )
            result.diagnostics.append(Diagnostic(config.path or result.path, None, message))


NOT_UTF8 = "the file is not valid UTF-8: invalid bytes read as U+FFFD, as AgentV reads them"


def _has_file_reference(cases: list[EvalCase]) -> bool:
    return any(
        seg.type == "file" and seg.value
        for case in cases
        for m in case.messages
        if m.dropped is None
        for seg in m.segments
    )
