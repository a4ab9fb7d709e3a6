"""The result detail's tabs as rich Text: the title, input, verdict, grader prompt, timing, raw record and drift of
one result, and the sides of a pair compared. Pure functions of a record (called in the detail screens' worker
threads: a 10 MB line must not freeze the UI); every displayed text is cut at `DISPLAY_LIMIT` characters. Requests
are drawn with the eval view's renderers (tui.render): markers and `<file …>` tags highlighted, chat prompts as
message cards. All untrusted text goes through `sanitize` into Text; colours are the theme's (tui/theme.py).
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any

import orjson
from rich.style import Style
from rich.text import Text

from turnlens.formatting.model import Rendered
from turnlens.formatting.results.agentv4 import Assertion, GraderScore
from turnlens.formatting.results.agentv4 import assertions as read_assertions
from turnlens.formatting.results.artifacts import Artifacts
from turnlens.formatting.results.fields import RecordedRequest
from turnlens.formatting.results.queries import DEFAULT_THRESHOLD
from turnlens.formatting.results.record import EvaluatorResult, ResultRecord, truncate_text
from turnlens.formatting.results.threshold import RunThreshold, explain

from ..render import chat_text, fit, highlighted
from ..theme import palette
from ..untrusted import sanitize, sanitize_label
from .widgets import (
    FAIL,
    PASS,
    WARN,
    append_fitting,
    format_cost,
    format_duration,
    format_tokens,
    ink,
    score_bar,
    score_style,
)

if TYPE_CHECKING:  # (drift is computed in a worker, its module imported there)
    from turnlens.formatting.results.drift import DriftReport

DISPLAY_LIMIT = 100_000  # characters of one text shown; the rest is summarised
DIM = Style(dim=True)


def _cut(text: str, limit: int = DISPLAY_LIMIT) -> tuple[str, int]:
    return truncate_text(text, limit)


def _more(out: Text, cut: int) -> None:
    if cut:
        out.append(f"\n… {cut:,} more characters not shown", style=ink(WARN, italic=True))


def literal(text: str, style: Style | str = "") -> Text:
    shown, cut = _cut(text)
    out = Text(sanitize(shown), style=style, end="")
    _more(out, cut)
    return out


def _prompt(text: str) -> Text:
    shown, cut = _cut(text)
    out = highlighted(shown)
    _more(out, cut)
    return out


def _heading(out: Text, title: str, note: str = "") -> None:
    if out.plain:
        out.append("\n\n")
    out.append(title, style=ink("heading", bold=True))
    if note:
        out.append("  " + note, style=DIM)
    out.append("\n")


STATUS_BADGES = {
    "ok": (" OK ", PASS),
    "quality_failure": (" QUALITY FAILURE ", FAIL),
    "execution_error": (" EXECUTION ERROR ", FAIL),
}


def title_text(record: ResultRecord, threshold: float, position: str = "", width: int = 0) -> Text:
    """A result's two header rows: its id, verdict, score, target, suite and time; where it is recorded
    (file:line), its measures and its place in the list. `width` (cells, 0: any) fits them: the labels after the
    score that do not fit are left out whole, the path loses its start (its file:line is what finds the row)."""
    out = Text(end="")
    out.append(sanitize_label(record.label), style="bold")
    out.append("  ")
    v4 = record.v4
    status = v4.execution_status if v4 is not None else None
    if status in STATUS_BADGES:
        badge, meaning = STATUS_BADGES[status]
        out.append(badge, style=palette().badge(meaning))
    elif record.error is not None:
        out.append(" ERROR ", style=palette().badge(FAIL))
    elif record.score is not None:
        judged = record.score >= threshold
        out.append(" PASS " if judged else " FAIL ", style=palette().badge(PASS if judged else FAIL))
    out.append(" ")
    # an execution error has no verdict: its recorded 0 is not shown as a score
    score = None if record.error is not None and status in (None, "execution_error") else record.score
    passed = {"ok": True, "quality_failure": False}.get(status or "")  # AgentV's recorded verdict colours it
    out.append_text(score_bar(score, threshold, passed=passed))
    out.append(" " + ("—" if score is None else f"{score:.2f}"), style=score_style(score, threshold, passed=passed))
    suite_label = "suite" if v4 is not None else "dataset"
    labels: list[tuple[int, Text]] = []
    for label, value in (("target", record.target), (suite_label, record.dataset), ("at", record.timestamp)):
        if value:
            part = Text(end="")
            part.append(f"  {label} ", style=DIM)
            part.append(sanitize(value)[:80])
            labels.append((len(labels), part))
    append_fitting(out, labels, width)
    after = Text(end="")
    if v4 is not None:
        for value in (
            format_duration(v4.duration_ms) if v4.duration_ms is not None else "",
            format_tokens(v4.tokens) + " tokens" if v4.tokens is not None else "",
            format_cost(v4.cost_usd) if v4.cost_usd is not None else "",
        ):
            if value:
                after.append(f"  {value}", style=ink("measure"))
    if position:
        after.append(f"  {position}", style=DIM)
    where = f"{sanitize(record.file)}:{record.line}"
    if width > 0:
        where = fit(where, max(24, width - after.cell_len), keep_end=True)
    out.append("\n" + where, style=DIM)
    out.append_text(after)
    out.no_wrap = True  # two lines, always
    out.overflow = "ellipsis"
    return out


def request_text(record: ResultRecord, artifacts: Artifacts | None = None) -> Text:
    """The recorded requests, drawn the way the eval view draws engine output; for an AgentV 4 result also the
    recorded `input` messages and the run folder's `input.md`."""
    out = Text(end="")
    v4 = record.v4
    if v4 is not None and v4.input_messages is not None:
        _heading(out, "Input", f"input · {len(v4.input_messages)} messages")
        shown = [type(m)(m.role, _cut(m.content)[0]) for m in v4.input_messages]
        out.append_text(chat_text(Rendered("", "", shown), "agentv"))
    elif v4 is not None and v4.input_text is not None:
        _heading(out, "Input", "input")
        out.append_text(_prompt(v4.input_text))
    for label, request in (("LM request", record.lm_request), ("Agent request", record.agent_request)):
        if request is None:
            continue
        _request_into(out, label, request)
    if artifacts is not None and artifacts.input_md is not None:
        _heading(out, "input.md", _shown_path(artifacts.files.get("input_md")))
        out.append_text(_prompt(artifacts.input_md))
    if not out.plain:
        if v4 is not None:
            out.append(
                "This result recorded no input (AgentV 4 index rows keep it in the run folder's input.md, "
                "which was not found).",
                style=Style(italic=True, dim=True),
            )
        else:
            out.append("This result recorded no provider request.", style=Style(italic=True, dim=True))
    for problem in record.diagnostics:
        out.append("\n⚠ " + sanitize(str(problem)), style=ink(WARN))
    return out


def _request_into(out: Text, label: str, request: RecordedRequest) -> None:
    if request.chat_prompt is not None:
        _heading(out, label, f"chat_prompt · {len(request.chat_prompt)} messages")
        shown = [type(m)(m.role, _cut(m.content)[0]) for m in request.chat_prompt]
        out.append_text(chat_text(Rendered(request.question or "", request.guidelines or "", shown), "agentv"))
    if request.question is not None:
        _heading(out, label if request.chat_prompt is None else f"{label}: question", "question")
        out.append_text(_prompt(request.question) if request.question else Text("(empty)", style=DIM))
    if request.guidelines is not None or request.guideline_paths:
        _heading(out, f"{label}: guidelines", ", ".join(sanitize(p) for p in request.guideline_paths))
        out.append_text(_prompt(request.guidelines) if request.guidelines else Text("(none)", style=DIM))


def _marks(out: Text, items: list[str], mark: str, meaning: str) -> None:
    for item in items:
        if out.plain and not out.plain.endswith("\n"):
            out.append("\n")
        out.append(f" {mark} ", style=ink(meaning, bold=True))
        out.append_text(literal(item))


def verdict_text(
    record: ResultRecord,
    threshold: float,
    source: str = "",
    own_threshold: float | None = None,
    grading: Any = None,
) -> Text:
    """The verdict as AgentV gives it (the recorded execution_status where there is one), why, and the graders."""
    out = Text(end="")
    _heading(out, "Score")
    v4 = record.v4
    status = v4.execution_status if v4 is not None else None
    explained = explain(
        status,
        record.score,
        record.error is not None,
        RunThreshold(threshold, source or "AgentV's default"),
        own_threshold,
    )
    if explained.verdict == "error":
        # an execution error has no verdict: its recorded 0 is not a score that failed the threshold
        out.append("—", style=ink(FAIL, bold=True))
        recorded = "" if record.score is None else f" (recorded {record.score:.2f})"
        out.append(f"  not judged: the run failed{recorded}", style=DIM)
    else:
        passed = explained.verdict == "pass"
        out.append(
            "—" if record.score is None else f"{record.score:.2f}",
            style=score_style(record.score, threshold, bold=True, passed=passed),
        )
        out.append("  ")
        out.append("PASS" if passed else "FAIL", style=ink(PASS if passed else FAIL, bold=True))
        out.append("  " + explained.reason, style=DIM)
    if v4 is not None and v4.execution_status:
        for label, value in (("stage", v4.failure_stage), ("reason", v4.failure_reason_code)):
            if value:
                out.append(f"  {label} ", style=DIM)
                out.append(sanitize(value))
    if record.error is not None:
        _heading(out, "Error")
        out.append_text(literal(record.error, ink(FAIL, bold=True)))
    if v4 is not None:
        _v4_verdict_into(out, record, threshold, grading)
        return out
    _heading(out, "Hits", str(len(record.hits)))
    _marks(out, record.hits, "✓", PASS)
    _heading(out, "Misses", str(len(record.misses)))
    _marks(out, record.misses, "✗", FAIL)
    _heading(out, "Reasoning")
    out.append_text(literal(record.reasoning) if record.reasoning else Text("(none)", style=DIM))
    if record.evaluator_results:
        _heading(out, "Evaluators", str(len(record.evaluator_results)))
        for evaluator in record.evaluator_results:
            _evaluator_into(out, evaluator, threshold)
    if record.raw_aspects:
        _heading(out, "Raw aspects")
        aspects = record.raw_aspects if isinstance(record.raw_aspects, list) else [record.raw_aspects]
        _marks(out, [a if isinstance(a, str) else str(a) for a in aspects], "•", "neutral")
    return out


VERDICT_MEANINGS = {"pass": PASS, "fail": FAIL}


def _verdict_style(verdict: str) -> Style | str:
    if verdict == "skip":
        return "dim"
    meaning = VERDICT_MEANINGS.get(verdict)
    return ink(meaning, bold=True) if meaning else "bold"


def _v4_verdict_into(out: Text, record: ResultRecord, threshold: float, grading: Any = None) -> None:
    """Each grader of `scores[]` (nested ones indented) with its assertions; else the row's own assertions; else
    what the run folder's grading.json records."""
    v4 = record.v4
    if v4.graders:
        failing = sum(1 for g in v4.graders if g.verdict == "fail")
        _heading(out, "Graders", f"{len(v4.graders)}" + (f", {failing} failing" if failing else ""))
        for grader in v4.graders:
            _grader_into(out, grader, threshold, 0)
    if v4.assertions and not v4.graders:
        passed = sum(1 for a in v4.assertions if a.passed)
        _heading(out, "Assertions", f"{passed} of {len(v4.assertions)} passed")
        _assertions_into(out, v4.assertions, "")
    if not v4.graders and not v4.assertions:
        recorded = read_assertions(grading.get("assertions")) if isinstance(grading, dict) else []
        if recorded:
            passed = sum(1 for a in recorded if a.passed)
            _heading(out, "Assertions", f"{passed} of {len(recorded)} passed, from grading.json")
            _assertions_into(out, recorded, "")
            return
        _heading(out, "Graders")
        out.append(
            "No grader entries: the test has no `assertions`, so AgentV's default grader judged it against its "
            "criteria, and AgentV records no scores[] entry for that grader"
            + (" (grading.json lists no assertions either)." if isinstance(grading, dict) else "."),
            style=Style(italic=True, dim=True),
        )


def _grader_into(out: Text, grader: GraderScore, threshold: float, depth: int) -> None:
    indent = "    " * depth
    out.append("\n" + indent)
    passed = {"pass": True, "fail": False}.get(grader.verdict or "")  # the grader's recorded verdict colours it
    out.append_text(score_bar(grader.score, threshold, 8, passed=passed))
    out.append(
        " " + ("—" if grader.score is None else f"{grader.score:.2f}") + " ",
        style=score_style(grader.score, threshold, passed=passed),
    )
    if grader.verdict:
        out.append(f"{grader.verdict.upper():<5}", style=_verdict_style(grader.verdict))
        out.append(" ")
    out.append(sanitize(grader.name) or "(unnamed)", style="bold")
    facts = [sanitize(grader.type)] if grader.type else []
    if grader.weight is not None:
        facts.append(f"weight {grader.weight:g}")
    if grader.target:
        facts.append(f"target {sanitize(grader.target)}")
    if grader.duration_ms is not None:
        facts.append(format_duration(grader.duration_ms))
    if facts:
        out.append("  " + " · ".join(facts), style=DIM)
    _assertions_into(out, grader.assertions, indent + "  ")
    for child in grader.children:
        _grader_into(out, child, threshold, depth + 1)


def _assertions_into(out: Text, assertions: list[Assertion], indent: str) -> None:
    for assertion in assertions:
        out.append("\n" + indent)
        if assertion.passed is None:
            out.append(" ? ", style="bold dim")
        else:
            out.append(" ✓ " if assertion.passed else " ✗ ", style=ink(PASS if assertion.passed else FAIL, bold=True))
        out.append_text(literal(assertion.text))
        if assertion.evidence:
            out.append("\n" + indent + "     ")
            out.append_text(literal(assertion.evidence, ink("muted", italic=True)))


def _evaluator_into(out: Text, evaluator: EvaluatorResult, threshold: float) -> None:
    out.append("\n")
    out.append_text(score_bar(evaluator.score, threshold, 8))
    out.append(
        " " + ("—" if evaluator.score is None else f"{evaluator.score:.2f}") + " ",
        style=score_style(evaluator.score, threshold),
    )
    out.append(sanitize(evaluator.name) or "(unnamed)", style="bold")
    if evaluator.type:
        out.append(f"  {sanitize(evaluator.type)}", style=DIM)
    _marks(out, evaluator.hits, "✓", PASS)
    _marks(out, evaluator.misses, "✗", FAIL)
    if evaluator.reasoning:
        out.append("\n   ")
        out.append_text(literal(evaluator.reasoning, "italic"))


def _grader_prompts(graders: list[GraderScore]) -> list[GraderScore]:
    found = []
    for grader in graders:
        if grader.user_prompt is not None or grader.system_prompt is not None:
            found.append(grader)
        found.extend(_grader_prompts(grader.children))
    return found


def evaluator_text(record: ResultRecord) -> Text:
    out = Text(end="")
    request = record.evaluator_request
    prompts = _grader_prompts(record.v4.graders) if record.v4 is not None else []
    for grader in prompts:
        _heading(out, f"Grader {sanitize(grader.name) or '(unnamed)'}", sanitize(grader.type))
        if grader.target:
            out.append("target ", style=DIM)
            out.append(sanitize(grader.target) + "\n")
        out.append("System prompt\n", style=DIM)
        out.append_text(_prompt(grader.system_prompt) if grader.system_prompt else Text("(none)", style=DIM))
        out.append("\nUser prompt\n", style=DIM)
        out.append_text(_prompt(grader.user_prompt) if grader.user_prompt else Text("(none)", style=DIM))
    if request is None:
        if not prompts:
            note = "This result recorded no evaluator request."
            if record.v4 is not None:
                note = (
                    "This result recorded no grader prompt (AgentV 4 keeps an llm-grader's prompt in scores[].input; "
                    "the default grader's prompt is stored nowhere)."
                )
            out.append(note, style=Style(italic=True, dim=True))
        return out
    if request.target:
        _heading(out, "Evaluator target")
        out.append(sanitize(request.target))
    _heading(out, "System prompt")
    out.append_text(_prompt(request.system_prompt) if request.system_prompt else Text("(none)", style=DIM))
    _heading(out, "User prompt")
    out.append_text(_prompt(request.user_prompt) if request.user_prompt else Text("(none)", style=DIM))
    return out


def _shown_path(path: str | None) -> str:
    """An artifact's path relative to the working directory when under it (stable on screen), else absolute."""
    if not path:
        return ""

    absolute = os.path.abspath(path)
    relative = os.path.relpath(absolute)
    return sanitize(relative if not relative.startswith("..") else absolute)


def _json_lines(out: Text, value: object, indent: str = "", depth: int = 0) -> None:
    """A small JSON value as indented `key: value` lines (scalars literal, deep values as compact JSON)."""
    if isinstance(value, dict) and depth < 3:
        for key, item in list(value.items())[:200]:
            out.append("\n" + indent)
            out.append(sanitize(str(key)) + ":", style=ink("label"))
            if isinstance(item, (dict, list)) and item and depth < 2:
                _json_lines(out, item, indent + "  ", depth + 1)
            else:
                out.append(" ")
                out.append_text(literal(_scalar(item)))
    elif isinstance(value, list) and depth < 3:
        for item in value[:200]:
            out.append("\n" + indent + "- ")
            if isinstance(item, (dict, list)):
                out.append_text(literal(orjson.dumps(item, default=str).decode()[:400]))
            else:
                out.append_text(literal(_scalar(item)))
    else:
        out.append(" ")
        out.append_text(literal(_scalar(value)))


def _scalar(value: object) -> str:
    if isinstance(value, str):
        return value
    try:
        return orjson.dumps(value, default=str).decode()
    except TypeError:
        return str(value)


def timing_text(record: ResultRecord, artifacts: Artifacts | None) -> Text:
    """Duration, tokens and cost as recorded in the row, the per-test timing.json, the trace's shape, and which
    artifact files were found."""
    out = Text(end="")
    v4 = record.v4
    if v4 is not None:
        _heading(out, "Recorded in the row")
        facts = [
            ("duration", format_duration(v4.duration_ms) if v4.duration_ms is not None else None),
            ("tokens", v4.token_usage),
            ("cost", format_cost(v4.cost_usd) if v4.cost_usd is not None else None),
            ("started", v4.start_time),
            ("ended", v4.end_time),
        ]
        for label, value in facts:
            if value is None:
                continue
            out.append(f"\n{label}:", style=ink("label"))
            if isinstance(value, dict):
                out.append(" " + ", ".join(f"{sanitize(str(k))} {_scalar(v)}" for k, v in value.items()))
            else:
                out.append(" " + sanitize(str(value)))
    if artifacts is None or not artifacts.found:
        if not out.plain:
            out.append("No timing recorded", style=Style(italic=True, dim=True))
        _heading(out, "Artifacts")
        out.append(
            "no per-test artifacts found" + (" for this result" if v4 is not None else " (not an AgentV 4 run)"),
            style=Style(italic=True, dim=True),
        )
        for problem in artifacts.problems if artifacts is not None else ():
            out.append("\n⚠ " + sanitize(str(problem)), style=ink(WARN))  # a path refused: which row named it
        return out
    if artifacts.timing is not None:
        _heading(out, "timing.json", _shown_path(artifacts.files.get("timing")))
        _json_lines(out, artifacts.timing)
    trace = artifacts.trace
    if trace is not None:
        _heading(out, "Trace", _shown_path(artifacts.files.get("trace")))
        out.append(f"\nschema: {sanitize(trace.schema or '(none)')}  entries: {trace.events:,}")
        if trace.tool_calls:
            calls = sorted(trace.tool_calls.items(), key=lambda item: (-item[1], item[0]))
            out.append(f"\ntool calls: {sum(trace.tool_calls.values()):,}  ")
            out.append(", ".join(f"{sanitize(name)} ×{count}" for name, count in calls[:20]))
    grading = artifacts.grading
    if isinstance(grading, dict):
        for key in ("summary", "execution_metrics"):
            if key in grading:
                _heading(out, f"grading.json {key}", _shown_path(artifacts.files.get("grading")))
                _json_lines(out, grading[key])
    _heading(out, "Artifacts", _shown_path(artifacts.folder))
    for name, path in artifacts.files.items():
        out.append(f"\n{name}: ", style=ink("label"))
        out.append(_shown_path(path))
    for problem in artifacts.problems:
        out.append("\n⚠ " + sanitize(str(problem)), style=ink(WARN))
    return out


def raw_text(record: ResultRecord) -> Text:
    """The whole record as recorded, pretty-printed: a field turnlens does not map is never invisible."""
    try:
        pretty = orjson.dumps(record.raw, option=orjson.OPT_INDENT_2, default=str).decode()
    except TypeError:
        pretty = json.dumps(record.raw, indent=2, ensure_ascii=False, default=str)
    out = Text(end="")
    out.append(f"{sanitize(record.file)}:{record.line}", style=DIM)
    out.append("\n")
    out.append_text(literal(pretty))
    return out


DRIFT_BADGES = {
    "equal": ("EQUAL", PASS),
    "drifted": ("DRIFTED", WARN),
    "eval not found": ("EVAL NOT FOUND", "muted"),
    "nothing recorded": ("NOTHING RECORDED", "muted"),
    "eval refused": ("EVAL REFUSED", FAIL),
    "case skipped": ("CASE SKIPPED", "muted"),
}


def drift_text(report: DriftReport) -> Text:
    """A DriftReport: badge, one-line reason, then each compared field (equal, or its unified diff coloured)."""
    out = Text(end="")
    if report is None:
        out.append("Drift is not checked here.", style=Style(italic=True, dim=True))
        return out
    badge, meaning = DRIFT_BADGES.get(report.status, (report.status.upper(), WARN))
    p = palette()
    out.append(f" {badge} ", style=p.badge(meaning))
    out.append("  " + sanitize(report.message))
    for field in report.fields:
        out.append("\n\n")
        if field.equal:
            out.append("= ", style=ink(PASS, bold=True))
            out.append(field.field, style="bold")
            out.append("  unchanged", style=DIM)
            continue
        out.append("≠ ", style=ink(WARN, bold=True))
        out.append(field.field, style="bold")
        as_run = getattr(field, "baseline", "recorded") == "as run"
        out.append("  as run (the run's task bundle) → now" if as_run else "  recorded → current eval file", style=DIM)
        diff, cut = _cut(field.diff)
        for line in diff.splitlines():
            out.append("\n")
            if line.startswith(("+++", "---")):
                style: Style | str = "bold"
            elif line.startswith("+"):
                style = p.text(PASS) + p.tint("diff-added")
            elif line.startswith("-"):
                style = p.text(FAIL) + p.tint("diff-removed")
            elif line.startswith("@@"):
                style = p.text("heading")
            else:
                style = DIM
            out.append(sanitize(line) or " ", style=style)
        _more(out, cut)
    for note in getattr(report, "notes", ()):
        out.append("\n\n")
        out.append("· ", style=DIM)
        out.append(sanitize(note), style=Style(italic=True, dim=True))
    return out


TABS = ("request", "answer", "verdict", "evaluator", "drift", "timing", "raw")  # searched for a text hit


def mark_hits(text: Text, needle: str) -> int | None:
    """Highlight every occurrence of `needle` (any case) in `text`; the offset of the first, or None."""
    if not needle:
        return None
    plain = text.plain.lower()
    wanted = needle.lower()
    highlight = palette().badge(WARN)  # a full-text search's hits
    first = plain.find(wanted)
    position = first
    while position != -1:
        text.stylize(highlight, position, position + len(wanted))
        position = plain.find(wanted, position + len(wanted))
    return None if first == -1 else first


def side_title(name: str, record: ResultRecord | None, threshold: float) -> Text:
    out = Text(end="")
    out.append(sanitize(name), style="bold")
    if record is None:
        out.append("\nnot in this run", style=Style(italic=True, dim=True))
        return out
    out.append("\n")
    out.append_text(score_bar(record.score, threshold))
    out.append(
        " " + ("—" if record.score is None else f"{record.score:.2f}"), style=score_style(record.score, threshold)
    )
    if record.error is not None:
        out.append("  ERROR ", style=ink(FAIL, bold=True))
        out.append(sanitize(record.error)[:200])
    return out


def side_verdict(record: ResultRecord | None, threshold: float = DEFAULT_THRESHOLD) -> Text:
    out = Text(end="")
    if record is None:
        return out
    if record.v4 is not None:
        _v4_verdict_into(out, record, threshold)
        return out
    _marks(out, record.hits, "✓", PASS)
    _marks(out, record.misses, "✗", FAIL)
    if record.reasoning:
        out.append("\n")
        out.append_text(literal(record.reasoning, "italic"))
    return out
