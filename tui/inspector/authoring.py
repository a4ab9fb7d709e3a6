"""A test as its author thinks of it: which dialect its file was read in and why, what the suite and interpolation
put into it, and what grades it (criteria, expected output, graders, the grader prompt).

Engine data -> rich Text, like render.py (every string from a file goes through `render.sanitize` and is appended as
plain text, never parsed as markup). Kept apart from render.py so the two dialects' extra views stay in one place.
"""

from __future__ import annotations

import os

from rich.style import Style
from rich.text import Text

from turnlens.formatting.model import Diagnostic, EvalCase, EvalFile, FormattedCase, Grader, Message, Rendered

from .. import render

HEADING = Style(bold=True, underline=True)
NOTE = Style(dim=True, italic=True)
TAG = Style(reverse=True, bold=True)


def _warn() -> Style:
    return render.warn_style()


def _empty(note: str) -> Text:
    return Text(note, style=NOTE, end="")


# ----------------------------------------------------------------------------------------------- dialect


def dialect_text(eval_file: EvalFile, case: EvalCase | None = None, *, notes: bool = False) -> Text:
    """The rule panel's "read as" section: the dialect, why, where the test came from, and what `${{ VAR }}`
    replaced in the suite. With `notes`, the test's notes too (the marker rule's evidence has them otherwise)."""
    out = Text(end="")
    out.append("Read as", style=HEADING)
    out.append("\n")
    out.append(f" {eval_file.dialect} ", style=TAG)
    out.append(" " + eval_file.labels.title, style=render.BOLD)
    if eval_file.suite_name:
        out.append(" · suite ", style=render.DIM)
        out.append(render.sanitize(eval_file.suite_name), style=render.BOLD)
    if eval_file.dialect_reason:
        out.append("\nbecause " + render.sanitize(eval_file.dialect_reason), style=render.DIM)
    if eval_file.description:
        out.append("\n" + render.sanitize(eval_file.description.strip()), style=NOTE)
    if case is not None:
        if case.agentv_mode:
            out.append("\nAgentV formats it in ", style=render.DIM)
            out.append(f"{case.agentv_mode} mode", style=render.BOLD)
            out.append(": " + render.sanitize(case.agentv_mode_reason) + " (m switches the view)", style=render.DIM)
        if case.source:
            out.append("\ntest from " + render.sanitize(case.source), style=render.DIM)
        if case.skip_defaults:
            out.append(
                "\nskip_defaults: the suite's input, input_files and assertions are not applied to this test",
                style=render.DIM,
            )
        if notes:
            for note in case.notes:
                out.append("\n• " + render.sanitize(note))
    replaced = file_notes(eval_file)
    if replaced:
        out.append("\nin the file:", style=render.DIM)
        for d in replaced:
            out.append("\n• " + render.sanitize(d.message) + (f" (line {d.line})" if d.line else ""))
    return out


def file_notes(eval_file: EvalFile) -> list[Diagnostic]:
    """The file's informational diagnostics (what interpolation replaced in the suite), each once: not warnings,
    so they are said in the rule panel rather than in the banner."""
    seen: set[tuple[int | None, str]] = set()
    out = []
    for d in eval_file.diagnostics:
        if d.severity == "info" and (d.line, d.message) not in seen:
            seen.add((d.line, d.message))
            out.append(d)
    return out


# ----------------------------------------------------------------------------------------------- messages


def messages_preamble(case: EvalCase) -> Text | None:
    """Above the messages: how many came from the suite (agentv-4), or that the suite's defaults were skipped."""
    parts: list[str] = []
    if case.suite_input_count == 1:
        parts.append("Message 1 comes from the suite's `input` (marked SUITE).")
    elif case.suite_input_count:
        parts.append(f"Messages 1–{case.suite_input_count} come from the suite's `input` (marked SUITE).")
    if case.skip_defaults:
        parts.append("skip_defaults: the suite's input and input_files are not prepended.")
    if not parts:
        return None
    return Text("\n".join(parts), style=NOTE, end="")


def interpolations_text(case: EvalCase) -> Text | None:
    """Below the messages: what `${{ VAR }}` / `{{ var }}` replaced."""
    if not case.interpolations:
        return None
    out = Text(end="")
    out.append("Interpolated", style=HEADING)
    for line in dict.fromkeys(case.interpolations):  # the same replacement in several places is said once
        out.append("\n• " + render.sanitize(line))
    return out


# ----------------------------------------------------------------------------------------------- systemMessage


def system_message_text(rendered: Rendered) -> Text:
    if rendered.system_message is None:
        return _empty("(no systemMessage: the test has no leading system message)")
    if not rendered.system_message:
        return _empty("(empty systemMessage)")
    return render.highlighted(rendered.system_message)


def system_message_copy(rendered: Rendered) -> str:
    return rendered.system_message or ""


# ----------------------------------------------------------------------------------------------- grading


def _weight(value: float | None) -> str:
    if value is None:
        return "weight 1 (default)"
    return f"weight {int(value) if float(value).is_integer() else value}"


_PROMPT_SOURCES = {
    "default": "no prompt: the default template with the test's criteria",
    "criteria": "prompt: used as the criteria in the default template (text, not a file)",
    "template": "prompt: a template (it names template variables): the whole user prompt",
    "file": "prompt: file://… read as the template",
    "script": "prompt: made by a script when the grader runs",
}


def _shown_path(path: str) -> str:
    """A file AgentV found, relative to the working folder when it is inside it (as the user named it)."""
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel.replace(os.sep, "/")


def _settings_lines(grader: Grader) -> list[str]:
    """The settings that decide a grader's verdict, one line each (plain text: sanitised by the caller)."""
    s = grader.settings
    lines: list[str] = []
    rubrics = s.get("rubrics") or []
    if grader.kind == "llm-grader" and grader.prompt is not None:
        if grader.prompt.kind == "default" and rubrics:
            ranges = any(r.get("score_ranges") for r in rubrics)
            lines.append("a score-range prompt from its rubrics" if ranges else "a checklist prompt from its rubrics")
        else:
            lines.append(_PROMPT_SOURCES.get(grader.prompt.kind, grader.prompt.kind))
        if grader.prompt.kind == "criteria":
            lines.append(f"criteria sent: {grader.prompt.text}")
        if grader.prompt.path:
            lines.append(f"prompt file: {_shown_path(grader.prompt.path)}")
    for rubric in rubrics:
        flags = []
        if rubric.get("required"):
            flags.append("required")
        if rubric.get("weight", 1) != 1:
            flags.append(f"weight {rubric['weight']}")
        if rubric.get("min_score") is not None:
            flags.append(f"min score {rubric['min_score']}")
        if rubric.get("operator"):
            flags.append(f"operator {rubric['operator']}")
        extra = f" ({', '.join(flags)})" if flags else ""
        lines.append(f"[{rubric['id']}]{extra}: {rubric.get('outcome', '')}")
        for band in rubric.get("score_ranges") or []:
            low, high = band["score_range"]
            lines.append(f"    {low}-{high}: {band['outcome']}")
    if "value" in s:
        lines.append(f"value: {s['value'] if isinstance(s['value'], str) else ', '.join(s['value'])}")
    if "flags" in s:
        lines.append(f"flags: {s['flags']}")
    if "mode" in s:
        lines.append(f"mode: {s['mode']}")
    for call in s.get("expected") or []:
        args = f" args {call['args']}" if "args" in call else ""
        lines.append(f"expects tool call: {call['tool']}{args}")
    if "minimums" in s:
        lines.append("minimums: " + ", ".join(f"{k} ≥ {v}" for k, v in s["minimums"].items()))
    if "command" in s:
        lines.append("command: " + " ".join(s["command"]))
        if grader.type == "code-grader":
            lines.append(
                f"script: {_shown_path(grader.script_path)}"
                if grader.script_path
                else "script: (no file found for its last word)"
            )
    if grader.type not in _BUILTIN_SHOWN:
        lines.append(
            f"defined by: {_shown_path(grader.script_path)}"
            if grader.script_path
            else f"custom type: no {grader.type}.ts (.js, .mjs, .mts) in any .agentv/assertions/ (graders/, judges/) "
            "from the eval file's folder up; AgentV fails it"
        )
    aggregator = s.get("aggregator")
    if aggregator:
        detail = ", ".join(f"{k} {v}" for k, v in aggregator.items() if k != "type")
        lines.append(f"aggregator: {aggregator.get('type')}" + (f" ({detail})" if detail else ""))
        if aggregator.get("type") == "llm-grader":
            from turnlens.formatting.graders.prompts import COMPOSITE_AGGREGATOR_PROMPT, RESULTS_PLACEHOLDER

            prompt = aggregator.get("prompt", COMPOSITE_AGGREGATOR_PROMPT)
            if isinstance(prompt, str) and RESULTS_PLACEHOLDER in prompt:
                lines.append(
                    f"its prompt's {RESULTS_PLACEHOLDER} is filled with the members' results during a run "
                    "(shown as written)"
                )
    for key in ("threshold", "budget", "max_total", "max_input", "max_output", "skill", "model", "target"):
        if key in s:
            lines.append(f"{key}: {s[key]}")
    if "config" in s:
        lines.append("config: " + ", ".join(f"{k}: {v}" for k, v in s["config"].items()))
    if grader.included_from:
        lines.append(f"from include: {_shown_path(grader.included_from)}")
    return lines


_BUILTIN_SHOWN = frozenset(
    "code-grader llm-grader rubric rubrics composite tool-trajectory field-accuracy latency cost token-usage "
    "execution-metrics skill-trigger contains contains-any contains-all icontains icontains-any icontains-all "
    "starts-with ends-with regex is-json equals inline-assert".split()
)


def mode_note(case: EvalCase, mode: str) -> str:
    """In short, whether the grading is shown in the mode AgentV would use for the test (for a header)."""
    if not case.agentv_mode:
        return ""
    if case.agentv_mode == mode:
        return "as AgentV would"
    return f"AgentV would use {case.agentv_mode}"


def mode_text(case: EvalCase, mode: str) -> Text | None:
    """The grading screen's first section: the mode its prompts are made in and why: AgentV's own choice for the
    test, or that the view differs from it; in full (the header has room for its short form only)."""
    if not case.agentv_mode:
        return None
    out = Text(end="")
    out.append("mode", style=HEADING)
    out.append("\n")
    out.append(f"{mode} mode", style=render.BOLD)
    if case.agentv_mode == mode:
        why = f", as AgentV would: {case.agentv_mode_reason}"
    else:
        why = f" here; AgentV would use {case.agentv_mode} mode: {case.agentv_mode_reason}"
    out.append(render.sanitize(why), style=render.DIM)
    out.append(" (m switches)", style=NOTE)
    return out


def grader_line(n: int | str, grader: Grader, indent: str = "", source_file: str | None = None) -> Text:
    """One grader as AgentV runs it: type, name, what decides its verdict, its settings; a composite's members
    below it. `source_file`: the file the test was written in when not the eval file (its own graders' lines count
    there; the suite's count in the eval file)."""
    out = Text(end="")
    out.append(f"{indent}{n:>2} ", style=render.DIM)
    out.append(f" {render.sanitize(grader.recorded_type or '?')} ", style=TAG)
    if grader.type != grader.recorded_type:
        out.append(f" ({render.sanitize(grader.type)})", style=render.DIM)
    if grader.name and grader.name != grader.recorded_type:
        out.append(" " + render.sanitize(grader.name), style=render.BOLD)
    out.append("  " + _weight(grader.weight), style=render.DIM)
    if grader.required is True:
        out.append("  required", style=_warn())
    elif grader.required is not None:
        out.append(f"  required {grader.required}", style=_warn())
    if grader.min_score is not None:
        out.append(f"  min score {grader.min_score}", style=render.DIM)
    if grader.negate:
        out.append("  negated", style=_warn())
    if grader.line:
        where = f"{source_file} " if source_file and not grader.from_suite else ""
        out.append(f"  {render.sanitize(where)}line {grader.line}", style=render.DIM)
    if grader.from_suite:
        out.append("  from the suite", style=NOTE)
    for line in _settings_lines(grader):
        out.append(f"\n{indent}    " + render.sanitize(line))
    for m, member in enumerate(grader.members, 1):
        out.append("\n")
        members_file = None if grader.from_suite else source_file
        out.append_text(grader_line(f"{n}.{m}", member, indent + "    ", members_file))
    return out


def run_settings_text(case: EvalCase) -> Text | None:
    settings = case.run_settings
    if not settings:
        return None
    out = Text(end="")
    out.append("run settings", style=HEADING)
    for key, value in settings.items():
        shown = ", ".join(str(v) for v in value) if isinstance(value, list) else str(value)
        out.append(f"\n{key}: ", style=render.DIM)
        out.append(render.sanitize(shown))
    return out


def _expected_messages(messages: list[Message]) -> Text:
    out = Text(end="")
    for n, msg in enumerate(messages):
        if n:
            out.append("\n")
        out.append(f" {render.sanitize(msg.role or '?')} ", style=TAG)
        if msg.line:
            out.append(f"  line {msg.line}", style=render.DIM)
        if n == len(messages) - 1:
            out.append("  the grader's reference answer", style=NOTE)
        for seg in msg.segments:
            out.append("\n")
            if isinstance(seg.value, str) and seg.type == "text":
                out.append_text(render.highlighted(seg.value) if seg.value.strip() else _empty("(blank text)"))
            elif isinstance(seg.value, str):
                out.append(f"⎘ {render.sanitize(seg.value)}", style=render.DIM)
            else:
                out.append(render.sanitize(str(seg.raw if seg.raw is not None else seg.value)), style=render.DIM)
    return out


def _text_block(out: Text, heading: str, value: str | None, empty: str) -> None:
    out.append(heading, style=HEADING)
    out.append("\n")
    if value:
        out.append_text(render.highlighted(value))
    else:
        out.append_text(_empty(empty))


def grading_text(case: EvalCase, formatted: FormattedCase) -> Text:
    """What grades the test: criteria (0.15: outcome), expected output, its graders (or that the default one runs)."""
    out = Text(end="")
    if formatted.labels.graders:
        _text_block(out, "criteria", case.criteria, "(no criteria)")
        out.append("\n\n")
        out.append("expected_output", style=HEADING)
        out.append("\n")
        if case.expected_output:
            out.append_text(_expected_messages(case.expected_output))
        else:
            out.append_text(_empty("(none: the grader gets an empty reference answer)"))
        out.append("\n\n")
        out.append("graders", style=HEADING)
        if case.assertions:
            out.append(
                f"  {render.plural(len(case.assertions), 'grader')}, in the order AgentV runs them", style=render.DIM
            )
            for n, grader in enumerate(case.assertions, 1):
                out.append("\n")
                out.append_text(grader_line(n, grader, source_file=case.source_file))
            out.append("\n")
            out.append("The default grader does not run: this test has graders of its own.", style=NOTE)
        else:
            out.append("\n")
            out.append_text(_empty("(none: the default grader runs; its prompt is in pane [2])"))
        settings = run_settings_text(case)
        if settings is not None:
            out.append("\n\n")
            out.append_text(settings)
        return out
    # agentv-0.15: outcome, the expected messages, and the case's own evaluators.
    _text_block(out, "outcome", case.outcome, "(no outcome)")
    out.append("\n\n")
    out.append("expected_messages", style=HEADING)
    out.append("\n")
    if case.expected_messages:
        out.append_text(_expected_messages(case.expected_messages))
    else:
        out.append_text(_empty("(none: the evaluator gets an empty reference answer)"))
    out.append("\n\n")
    out.append("evaluators", style=HEADING)
    prompts = formatted.evaluator_prompts
    if prompts:
        for n, ev in enumerate(prompts, 1):
            out.append("\n")
            out.append(f"{n:>2} ", style=render.DIM)
            out.append(f" {render.sanitize(ev.type or '?')} ", style=TAG)
            out.append(" " + render.sanitize(ev.name), style=render.BOLD)
            if ev.prompt is None:
                out.append("  runs code: no prompt", style=render.DIM)
    else:
        out.append("\n")
        out.append_text(_empty("(none declared: the default evaluator runs; its prompt is in pane [2])"))
    return out


def grader_prompts(formatted: FormattedCase) -> list[tuple[str, str | None]]:
    """(title, prompt) of every prompt that grades the case: each 0.15 evaluator's, else the default one."""
    if formatted.evaluator_prompts:
        return [(f"{ev.name} ({ev.type})", ev.prompt) for ev in formatted.evaluator_prompts]
    return [(formatted.labels.default_prompt, formatted.evaluator_prompt)]


def grader_prompt_text(case: EvalCase, formatted: FormattedCase, mode: str) -> tuple[Text, str]:
    """The grader prompt(s) as shown, and as copied. AgentV 4: every prompt the test's grading sends in `mode`
    (user, then system prompt); 0.15: each evaluator's (else the default one), made from the lm question."""
    if formatted.labels.graders:
        from turnlens.formatting.graders.prompts import sent_prompts

        sent_list = sent_prompts(case, formatted, mode)
        out = Text(end="")
        copies = []
        if not sent_list:
            return _empty("(no grader of this test sends a prompt)"), ""
        for n, sent in enumerate(sent_list):
            if n:
                out.append("\n\n")
            out.append(render.sanitize(sent.title), style=HEADING)
            out.append("  user prompt", style=render.DIM)
            if sent.note:
                out.append("\n" + render.sanitize(sent.note), style=NOTE)
            out.append("\n")
            out.append_text(render.prompt_text(sent.user, "(empty)"))
            out.append("\n\n")
            out.append(render.sanitize(sent.title), style=HEADING)
            out.append("  system prompt", style=render.DIM)
            out.append("\n")
            out.append_text(render.prompt_text(sent.system, "(empty)"))
            copies.append(sent.user)
        return out, "\n\n".join(copies)
    prompts = grader_prompts(formatted)
    only = prompts[0][1] if len(prompts) == 1 else None
    if only is not None:
        return render.prompt_text(only, "(empty)"), only
    out = Text(end="")
    copies = []
    for n, (title, each) in enumerate(prompts):
        if n:
            out.append("\n\n")
        out.append(render.sanitize(title), style=HEADING)
        out.append("\n")
        if each is None:
            out.append_text(_empty("(a code evaluator: no prompt)"))
        else:
            out.append_text(render.prompt_text(each, "(empty)"))
            copies.append(each)
    return out, "\n\n".join(copies)
