"""What each AgentV 4.42.4 grader sends: the user and system prompt of every LLM grader of a test, for an empty
answer, as a run records them in `scores[].input` (checked against the reference's `--graders`, in lm and agent
mode: tests/fixtures/graders/).

The question is the target mode's question (lm or agent), or, when that is blank, the loose text of the input. A
grader's `prompt:` without template variables replaces the test's criteria; with them, or read from a `file://`
file, it is the whole user prompt. Rubrics make a checklist prompt, score ranges a score-range prompt.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from turnlens.formatting.evals.agentv4_graders import TEMPLATE_VARIABLE
from turnlens.formatting.jsstr import js_blank, js_json, js_json_indent, js_trim
from turnlens.formatting.model import EvalCase, FormattedCase, Grader
from turnlens.formatting.prompts.agentv4 import GRADER_TEMPLATE_HEAD
from turnlens.formatting.prompts.parts import evaluator_question
from turnlens.formatting.records import JsonArray, JsonObject

DEFAULT_TEMPLATE = (
    GRADER_TEMPLATE_HEAD + "[[ ## criteria ## ]]\n{{criteria}}\n\n[[ ## question ## ]]\n{{input}}\n\n"
    "[[ ## reference_answer ## ]]\n{{expected_output}}\n\n[[ ## answer ## ]]\n{{output}}"
)
FREEFORM_SYSTEM = "\n".join(
    [
        "You must respond with a single JSON object matching this schema:",
        "",
        "{",
        '  "score": <number between 0.0 and 1.0>,',
        '  "assertions": [',
        "    {",
        '      "text": "<brief description of what was checked>",',
        '      "passed": <boolean>,',
        '      "evidence": "<concise evidence, 1-2 sentences, optional>"',
        "    }",
        "  ],",
        '  "details": {<optional object with domain-specific structured metrics>}',
        "}",
    ]
)
CHECKLIST_SYSTEM = """You are an expert grader. Evaluate the candidate answer against each rubric item.
You must return a valid JSON object matching this schema:
{
  "checks": [
    {
      "id": "string (rubric id)",
      "satisfied": boolean,
      "reasoning": "string (brief explanation)"
    }
  ],
  "overall_reasoning": "string (summary)"
}"""
SCORE_RANGE_SYSTEM = """You are an expert grader. Score the candidate answer on each criterion.
You must return a valid JSON object matching this schema:
{
  "checks": [
    {
      "id": "string (criterion id)",
      "score": integer (0-10),
      "reasoning": "string (brief explanation for score)"
    }
  ],
  "overall_reasoning": "string (summary, optional)"
}

Important: The "score" must be an integer from 0 to 10 that falls within one of the defined score ranges for \
that criterion."""
# A composite's llm-grader aggregator: AgentV puts the members' results in for this placeholder only during a run,
# once they are known; its recorded input (and so ours, byte for byte) holds it as written.
RESULTS_PLACEHOLDER = "{{EVALUATOR_RESULTS_JSON}}"
PLACEHOLDERS = {
    RESULTS_PLACEHOLDER: "a placeholder, left as written here: during a run AgentV replaces it with the members' "
    "results (JSON) before it sends the prompt"
}
COMPOSITE_AGGREGATOR_PROMPT = """Review the following evaluation results:
{{EVALUATOR_RESULTS_JSON}}

Decide the final score and verdict based on all grader results.
Return a JSON object with: score (0.0-1.0), verdict (pass/fail), and reasoning."""
OPERATOR_GUIDANCE = {
    "correctness": "Correctness: mark satisfied only when the answer positively supports or fulfills the outcome. "
    "Omission or contradiction should not satisfy it.",
    "contradiction": "Contradiction guard: mark satisfied when the answer does not make a claim that contradicts the "
    "outcome. Do not require the answer to mention the outcome; mark unsatisfied only for incompatible claims.",
}


@dataclass
class GradingInputs:
    """What a test gives its graders: the question in one mode (already fallen back to the loose input text when
    blank), the criteria, the reference answer, the merged metadata (None when the test has none), the answer."""

    question: str
    criteria: str
    reference_answer: str
    metadata: Any = None
    answer: str = ""


def fill(template: str, values: dict[str, str]) -> str:
    """One pass of `{{ name }}` substitution; unknown names stay as written, values are not scanned again."""
    filled: str = TEMPLATE_VARIABLE.sub(lambda m: values.get(m.group(1), m.group(0)), template)
    return filled


def _variables(inputs: GradingInputs, criteria: str, rubrics: JsonArray | None) -> dict[str, str]:
    has_meta = inputs.metadata is not None
    return {
        "input": js_trim(inputs.question),
        "output": js_trim(inputs.answer),
        "expected_output": js_trim(inputs.reference_answer),
        "criteria": js_trim(criteria),
        "metadata": js_json_indent(inputs.metadata) if has_meta else "",
        "metadata_json": js_json(inputs.metadata) if has_meta else "",
        "rubrics": js_json_indent(rubrics) if rubrics is not None else "",
        "rubrics_json": js_json(rubrics) if rubrics is not None else "",
        "file_changes": "",
        "tool_calls": "",
    }


def grader_input(grader: Grader, inputs: GradingInputs) -> JsonObject | None:
    """The `input` AgentV records for one grader with an empty answer: `{"userPrompt", "systemPrompt"}` for an LLM
    grader, `{"aggregator", …}` for a composite, None for a deterministic one, a code grader, a custom assertion
    or a prompt made by a script (their input is not known before a run)."""
    if grader.type == "composite":
        return _aggregator_input(grader.settings.get("aggregator", {}))
    measured = _measured_input(grader)
    if measured is not None:
        return measured
    if grader.kind != "llm-grader" or grader.prompt is None or grader.prompt.kind == "script":
        return None
    prompt = grader.prompt
    criteria = inputs.criteria
    template = None
    if prompt.kind == "criteria":
        criteria = prompt.text or ""
    elif prompt.kind in ("template", "file"):
        template = prompt.text or ""
    rubrics = grader.settings.get("rubrics")
    values = _variables(inputs, criteria, rubrics)
    if rubrics:
        if any(r.get("score_ranges") for r in rubrics):
            user = fill(template, values) if template else _score_range_prompt(inputs, criteria, rubrics)
            return {"userPrompt": user, "systemPrompt": SCORE_RANGE_SYSTEM}
        user = fill(template, values) if template else _checklist_prompt(inputs, criteria, rubrics)
        return {"userPrompt": user, "systemPrompt": CHECKLIST_SYSTEM}
    return {"userPrompt": fill(template if template else DEFAULT_TEMPLATE, values), "systemPrompt": FREEFORM_SYSTEM}


def _aggregator_input(aggregator: JsonObject) -> JsonObject:
    kind = aggregator.get("type")
    out: dict[str, Any] = {"aggregator": kind}
    if kind == "weighted_average" and "weights" in aggregator:
        out["weights"] = aggregator["weights"]
    elif kind == "threshold":
        out["threshold"] = aggregator.get("threshold")
    elif kind == "code-grader":
        out["script"] = aggregator.get("path")
    elif kind == "llm-grader":
        # the members' results are put in for {{EVALUATOR_RESULTS_JSON}} once they are known: left as written here
        out["userPrompt"] = aggregator.get("prompt", COMPOSITE_AGGREGATOR_PROMPT)
        out["systemPrompt"] = FREEFORM_SYSTEM
    return out


def _measured_input(grader: Grader) -> JsonObject | None:
    """What a grader of a run's measurements records before anything is measured (a dry run's null figures)."""
    s = grader.settings
    if grader.type == "latency":
        return {"type": "latency", "threshold": s.get("threshold"), "durationMs": None}
    if grader.type == "cost":
        return {"type": "cost", "budget": s.get("budget"), "costUsd": None}
    if grader.type == "token-usage":
        return {
            "type": "token-usage",
            "max_total": s.get("max_total"),
            "max_input": s.get("max_input"),
            "max_output": s.get("max_output"),
            "tokenUsage": None,
        }
    if grader.type == "execution-metrics":
        keys = ("max_tool_calls", "max_llm_calls", "max_tokens", "max_cost_usd", "max_duration_ms")
        config = {k: s[k] for k in keys if k in s}
        if "target_exploration_ratio" in s:
            config["target_exploration_ratio"] = s["target_exploration_ratio"]
            config["exploration_tolerance"] = s.get("exploration_tolerance", 0.2)
        return {"type": "execution-metrics", "config": config, "actual": None}
    return None


def _head(inputs: GradingInputs, criteria: str) -> list[str]:
    lines = ["[[ ## question ## ]]", inputs.question, "", "[[ ## criteria ## ]]", criteria, ""]
    if not js_blank(inputs.reference_answer):
        lines += ["[[ ## reference_answer ## ]]", inputs.reference_answer, ""]
    lines += ["[[ ## answer ## ]]", inputs.answer, ""]
    return lines


def _guidance(rubrics: list[JsonObject]) -> list[str]:
    seen: list[str] = []
    for r in rubrics:
        op = r.get("operator")
        if op and op not in seen:
            seen.append(op)
    return [OPERATOR_GUIDANCE[op] for op in seen]


def _weight_text(weight: Any) -> str:
    return "" if weight == 1 and not isinstance(weight, bool) else f" (weight: {js_json(weight)})"


def _checklist_prompt(inputs: GradingInputs, criteria: str, rubrics: list[JsonObject]) -> str:
    lines = ["You are an expert grader. Evaluate the candidate answer against each rubric item below.", ""]
    lines += _head(inputs, criteria)
    lines.append("[[ ## rubrics ## ]]")
    guidance = _guidance(rubrics)
    if guidance:
        lines += ["", "Operator guidance:", *(f"- {g}" for g in guidance), ""]
    for r in rubrics:
        required = " (REQUIRED)" if r.get("required") else ""
        operator = f" (operator: {r['operator']})" if r.get("operator") else ""
        lines.append(f"- [{r['id']}]{required}{_weight_text(r.get('weight'))}{operator}: {_text(r.get('outcome'))}")
    lines += ["", "For each rubric, determine if it is satisfied and provide brief reasoning."]
    return "\n".join(lines)


def _score_range_prompt(inputs: GradingInputs, criteria: str, rubrics: list[JsonObject]) -> str:
    lines = [
        "You are an expert grader. Score the candidate answer on each criterion below using the provided score ranges.",
        "For each criterion, output an integer score from 0 to 10 based on which score range best matches the answer.",
        "",
    ]
    lines += _head(inputs, criteria)
    lines.append("[[ ## scoring_criteria ## ]]")
    for r in rubrics:
        if r.get("min_score") is not None:
            required = f" [REQUIRED: min score {js_json(r['min_score'])}]"
        elif r.get("required_min_score") is not None:
            required = f" [REQUIRED: min score {js_json(r['required_min_score'])}]"
        else:
            required = ""
        lines += ["", f"### Criterion: {r['id']}{_weight_text(r.get('weight'))}{required}"]
        if r.get("operator"):
            lines.append(f"Operator: {r['operator']}")
        if r.get("outcome"):
            lines.append(f"Description: {r['outcome']}")
        ranges = r.get("score_ranges")
        if ranges:
            lines.append("Score ranges:")
            for band in ranges:
                low, high = band["score_range"]
                span = js_json(low) if low == high else f"{js_json(low)}-{js_json(high)}"
                lines.append(f"  - Score {span}: {band['outcome']}")
    guidance = _guidance(rubrics)
    if guidance:
        lines += ["", *guidance]
    lines += ["", "For each criterion, provide an integer score 0-10 that matches one of its defined score ranges."]
    return "\n".join(lines)


def _text(value: Any) -> str:
    if value is None:
        return "undefined"
    return value if isinstance(value, str) else js_json(value)


def graders_json(graders: list[Grader], inputs: GradingInputs) -> list[JsonObject]:
    """The export's `graders` for one mode: `[{"name", "type", "input", "scores": [members…]}]`, in AgentV's order
    (`scores` only for a composite), the shape of a run's `scores[]` and of the reference's `--graders`."""
    out = []
    for g in graders:
        data = grader_input(g, inputs)
        row: dict[str, Any] = {"name": g.name, "type": g.recorded_type, "input": data}
        if g.type == "composite":
            unfilled = placeholders_in(data)
            if unfilled:  # (beside `input`, which stays what AgentV records)
                row["placeholders"] = unfilled
            row["scores"] = graders_json(g.members, inputs)
        out.append(row)
    return out


def placeholders_in(data: Any) -> dict[str, str]:
    """The placeholders an aggregator's user prompt holds that only a run fills, each with what it stands for."""
    user = data.get("userPrompt") if isinstance(data, dict) else None
    if not isinstance(user, str):
        return {}
    return {name: meaning for name, meaning in PLACEHOLDERS.items() if name in user}


def inputs_for(case: EvalCase, formatted: FormattedCase, mode: str) -> GradingInputs:
    """What the case gives its graders when the target formats it in `mode` (lm or agent)."""
    kept = [m for m in case.messages if m.dropped is None]
    question = evaluator_question(formatted.rendered(mode).question, kept)
    return GradingInputs(question, case.criteria or "", case.reference_answer, case.metadata)


def case_graders(case: EvalCase, formatted: FormattedCase) -> dict[str, list[JsonObject]]:
    """The export's `graders` of both modes ({"lm": […], "agent": […]}); empty lists for a test without graders."""
    if not case.assertions:
        return {"lm": [], "agent": []}
    return {mode: graders_json(case.assertions, inputs_for(case, formatted, mode)) for mode in ("lm", "agent")}


@dataclass
class SentPrompt:
    """One prompt a test's grading sends, for the grading screen: whose it is, and its user and system prompt."""

    title: str  # "polite (llm-grader)", "comp › inner (llm-grader)", "default grader"
    user: str
    system: str
    note: str = ""  # e.g. an aggregator's results placeholder


def sent_prompts(case: EvalCase, formatted: FormattedCase, mode: str) -> list[SentPrompt]:
    """Every prompt the test's grading sends in `mode`, in AgentV's order; the default grader's only for a test
    without graders of its own (AgentV runs it only then)."""
    inputs = inputs_for(case, formatted, mode)
    if not case.assertions:
        values = _variables(inputs, inputs.criteria, None)
        return [SentPrompt("default grader", fill(DEFAULT_TEMPLATE, values), FREEFORM_SYSTEM)]
    out: list[SentPrompt] = []
    _collect(case.assertions, inputs, "", out)
    return out


def _collect(graders: list[Grader], inputs: GradingInputs, prefix: str, out: list[SentPrompt]) -> None:
    for g in graders:
        title = f"{prefix}{g.name} ({g.recorded_type})"
        if g.type == "composite":
            _collect(g.members, inputs, f"{prefix}{g.name} › ", out)
        data = grader_input(g, inputs)
        if isinstance(data, dict) and "userPrompt" in data:
            note = ""
            if g.type == "composite":
                title = f"{prefix}{g.name} (composite aggregator)"
                note = "; ".join(f"{name}: {meaning}" for name, meaning in placeholders_in(data).items())
            out.append(SentPrompt(title, data["userPrompt"], data.get("systemPrompt", ""), note))
