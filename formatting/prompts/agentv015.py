"""AgentV 0.15.1's formatting rules, the pipeline's strategy for `agentv-0.15` files (prompts/engine.py): files
whose repository path matches a guideline pattern go to `guidelines`, a file whose path as written matches one is
`<Attached: path>` in its turn, the flat question is built from the loaded segments with fenced code appended
again, the agent-mode file tag names the path as written, and the default and custom evaluators' prompts are
0.15.1's. The loading side is evals/agentv015.py.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from functools import lru_cache
from typing import cast

from turnlens.formatting.evals.globs import is_guideline, matching_pattern
from turnlens.formatting.jsstr import js_blank, js_json_indent, js_trim
from turnlens.formatting.model import (
    DialectLabels,
    EvalCase,
    EvalFile,
    EvaluatorPrompt,
    Message,
    Mode,
    Rendered,
    Segment,
    SegmentFate,
)
from turnlens.formatting.patterns import LazyPattern
from turnlens.formatting.prompts.parts import (
    Analysis,
    Part,
    agent_file,
    dropped_fates,
    file_line_count,
    has_other_than_refs,
    leading_system_count,
    line_count,
    lm_file,
    marked,
    marker_rule,
    not_a_string,
    outside_root,
    same_rendered,
)
from turnlens.formatting.records import JsonObject
from turnlens.formatting.wording import plural


class Formatting:
    """AgentV 0.15.1's side of the formatting pipeline (parts.DialectFormatting)."""

    def __init__(self, labels: DialectLabels):
        self.labels = labels

    skips_images = False

    def analyse(self, case: EvalCase, eval_file: EvalFile, design: bool) -> Analysis:
        an = _analyse(case, tuple(eval_file.config.patterns))
        an.guidelines = _guidelines(an)
        an.repo_root = eval_file.repo_root
        return an

    def turns(self, case: EvalCase, eval_file: EvalFile) -> tuple[list[int], list[int]]:
        an = _analyse(case, tuple(eval_file.config.patterns))  # (without the guidelines text)
        return an.non_user, an.visible

    def render(self, an: Analysis) -> tuple[Rendered, Rendered]:
        return _render(an, self.labels)

    def default_prompt(self, case: EvalCase, question: str) -> str:
        return evaluator_prompt(case.outcome or "", question, case.reference_answer)

    def own_prompts(
        self, case: EvalCase, an: Analysis, question: str, default_prompt: Callable[[], str]
    ) -> list[EvaluatorPrompt] | None:
        return None if case.evaluators is None else _evaluator_prompts(case, an, question, default_prompt)

    def chat_content(self, an: Analysis) -> tuple[bool, ...]:
        return tuple([has_other_than_refs(p) for p in an.parts])

    def flat_evidence(self, an: Analysis) -> list[str]:
        evidence = [
            "The flat question is built from the loaded segments of every kept message, joined by a "
            "blank line; guideline files are left out."
        ]
        if an.code_snippets:
            evidence.append(
                f"{plural(len(an.code_snippets), 'fenced code block')} from the text "
                f"{'is' if len(an.code_snippets) == 1 else 'are'} appended again at the end of the flat question."
            )
        return evidence

    def rule_wording(self, evidence: list[str]) -> list[str]:
        return evidence

    def closing_evidence(self, case: EvalCase, an: Analysis) -> list[str]:
        return []

    def case_evidence(self, case: EvalCase) -> list[str]:
        return []

    def segment_fates(self, case: EvalCase, an: Analysis) -> list[SegmentFate]:
        return _segment_fates(case, an, an.patterns, an.repo_root)


_CODE_BLOCK = re.compile(r"```[\s\S]*?```")


EVALUATOR_TEMPLATE_HEAD = (
    "You are an expert evaluator. Your goal is to grade the candidate_answer based on how well it achieves the "
    "expected_outcome for the original task.\n\n"
    "Use the reference_answer as a gold standard for a high-quality response (if provided). The candidate_answer "
    "does not need to match it verbatim, but should capture the key points and follow the same spirit.\n\n"
    "Be concise and focused in your evaluation. Provide succinct, specific feedback rather than verbose "
    "explanations.\n\n"
)


def evaluator_prompt(outcome: str, question: str, reference_answer: str, candidate_answer: str = "") -> str:
    """The default evaluator user prompt: the candidate's exact question under `[[ ## question ## ]]`."""
    return (
        f"{EVALUATOR_TEMPLATE_HEAD}[[ ## expected_outcome ## ]]\n{js_trim(outcome)}\n\n"
        f"[[ ## question ## ]]\n{js_trim(question)}\n\n"
        f"[[ ## reference_answer ## ]]\n{js_trim(reference_answer)}\n\n"
        f"[[ ## candidate_answer ## ]]\n{candidate_answer}"
    )


def _format_parts(message: Message, file_texts: dict[str, str], patterns: tuple[str, ...]) -> list[Part]:
    parts: list[Part] = []
    if message.content_is_string:
        value = cast(str, message.segments[0].value)  # string content: one text segment
        if not js_blank(value):
            parts.append(Part("text", value, None, 0))
        return parts
    for seg in message.segments:
        if seg.type == "file":
            if not seg.value:
                continue
            if is_guideline(seg.value, patterns):
                parts.append(Part("ref", seg.value, None, seg.index))
                continue
            text = file_texts.get(seg.value)
            if text is not None:
                parts.append(Part("file", seg.value, text, seg.index))
        elif seg.type == "text":
            if seg.value is not None and not js_blank(seg.value):
                parts.append(Part("text", seg.value, None, seg.index))
    return parts


def _visible(parts: list[Part]) -> bool:
    """Visible content: a non-blank text, or a file whose text is not blank (a guideline reference is not)."""
    for p in parts:
        kind = p.kind
        if kind == "ref":
            continue
        if not js_blank(p.value if kind == "text" else cast(str, p.text)):  # (0.15's parts hold no blank text)
            return True
    return False


def _analyse(case: EvalCase, patterns: tuple[str, ...]) -> Analysis:
    kept = [m for m in case.messages if m.dropped is None]
    flat_segments = []
    guideline_segments = []
    snippets: list[str] = []
    file_texts: dict[str, str] = {}
    for message in kept:
        for seg in message.segments:
            if seg.type == "text" and seg.value is not None:
                flat_segments.append(seg)
                if "```" in seg.value:
                    snippets.extend(_CODE_BLOCK.findall(seg.value))
            elif seg.type == "file" and seg.text is not None:
                if seg.is_guideline:
                    guideline_segments.append(seg)
                else:
                    flat_segments.append(seg)
                    file_texts[cast(str, seg.display_path)] = seg.text
    parts = [_format_parts(m, file_texts, patterns) for m in kept]
    flags = [_visible(message_parts) for message_parts in parts]
    uses_markers, non_user, visible = marker_rule(kept, flags)
    lead = leading_system_count(kept)
    return Analysis(
        kept,
        parts,
        flat_segments,
        snippets,
        guideline_segments,
        uses_markers,
        non_user,
        visible,
        flags,
        lead,
        patterns=patterns,
    )


def _guidelines(an: Analysis) -> str:
    blocks = []
    for seg in an.guideline_segments:  # (files found and read: their path and text are set)
        name = cast(str, seg.resolved_path).replace("\\", "/").rsplit("/", 1)[-1]
        blocks.append(f'<file path="{name}">\n{js_trim(cast(str, seg.text))}\n</file>')
    return "\n\n".join(blocks)


def _flat_question(an: Analysis, mode: Mode, patterns: tuple[str, ...]) -> str:
    chunks = []
    for seg in an.flat_segments:
        if seg.type == "text":
            chunk = cast(str, seg.value)  # (a text segment's value is its text; a file's display path is set)
        elif is_guideline(cast(str, seg.display_path), patterns):
            # a guideline only by its display path (its repo path matched nothing at load time)
            chunk = f"<Attached: {seg.display_path}>"
        elif mode == "agent":
            chunk = f'<file: path="{seg.display_path}">'
        elif not seg.text:
            continue
        else:
            chunk = f'<file path="{seg.display_path}">\n{js_trim(seg.text)}\n</file>'
        chunk = js_trim(chunk)
        if chunk:
            chunks.append(chunk)
    if an.code_snippets:
        chunks.append("\n".join(an.code_snippets))
    return "\n\n".join(chunks)


def _bodies(rendered: list[list[str]]) -> list[str]:
    """Each message's rendered parts as one text, one line each: its body in the marked question, in chatPrompt and
    in systemMessage alike (joined once, not once for each)."""
    return ["\n".join(texts) for texts in rendered]


def _texts_by_mode(parts_all: list[list[Part]]) -> tuple[list[list[str]], list[list[str]], bool]:
    """Every kept message's parts rendered in lm and in agent mode at once (_message_texts), and whether any file made
    the two differ."""
    lm_all: list[list[str]] = []
    agent_all: list[list[str]] = []
    with_files = False
    for parts in parts_all:
        lm, agent = _message_texts(parts)
        if agent is not lm:
            with_files = True
        lm_all.append(lm)
        agent_all.append(agent)
    return lm_all, agent_all, with_files


def _message_texts(parts: list[Part]) -> tuple[list[str], list[str]]:
    """One message's parts rendered in lm and in agent mode (a guideline reference as `<Attached: …>`). They differ
    only in how a file renders: a message without one has one list for both."""
    lm: list[str] = []
    agent = lm
    for p in parts:
        kind = p.kind
        if kind != "file":
            text = p.value if kind == "text" else f"<Attached: {p.value}>"
            lm.append(text)
            if agent is not lm:
                agent.append(text)
            continue
        if agent is lm:  # the two modes part here
            agent = lm.copy()
        agent.append(agent_file(p.agent_path or p.value))
        if p.text:  # in lm mode an empty file renders as nothing
            lm.append(lm_file(p.value, p.text))
    return lm, agent


def _agent_bodies(lm_all: list[list[str]], agent_all: list[list[str]], lm_bodies: list[str]) -> list[str]:
    """Agent mode's bodies: lm mode's where a message renders the same in both (_texts_by_mode shares its list)."""
    return [body if agent is lm else "\n".join(agent) for lm, agent, body in zip(lm_all, agent_all, lm_bodies)]


def _render(an: Analysis, labels: DialectLabels) -> tuple[Rendered, Rendered]:
    """0.15 in the agentv profile, lm and agent mode at once."""
    guidelines, patterns = an.guidelines, an.patterns
    if not an.uses_markers:
        lm_flat = Rendered(_flat_question(an, "lm", patterns), guidelines, None, None, labels)
        return lm_flat, Rendered(_flat_question(an, "agent", patterns), guidelines, None, None, labels)
    lm_all, agent_all, with_files = _texts_by_mode(an.parts)
    bodies = _bodies(lm_all)
    question, chat, _ = marked(an, guidelines, "lm", bodies)
    lm = Rendered(question, guidelines, chat or None, None, labels)
    if not with_files:
        return lm, same_rendered(lm)
    question, chat, _ = marked(an, guidelines, "agent", _agent_bodies(lm_all, agent_all, bodies))
    return lm, Rendered(question, guidelines, chat or None, None, labels)


_TEMPLATE_VARIABLE = LazyPattern(r"\{\{([a-zA-Z0-9_]+)\}\}")


def _evaluator_prompts(
    case: EvalCase, an: Analysis, question: str, default_prompt: Callable[[], str]
) -> list[EvaluatorPrompt]:
    """0.15.1: the user prompt of each of the case's own evaluators; a custom template gets the question, outcome,
    reference answer (trimmed), an empty candidate answer and the input segments as JSON, in one pass."""
    out = []
    values: dict[str, str] | None = None
    for ev in case.evaluators or ():
        if ev["type"] == "code":
            out.append(EvaluatorPrompt(ev["name"], "code", None))
            continue
        template = ev["template"]
        if template is None:
            out.append(EvaluatorPrompt(ev["name"], "llm_judge", default_prompt()))
            continue
        if values is None:
            values = {
                "question": js_trim(question),
                "expected_outcome": js_trim(case.outcome or ""),
                "reference_answer": js_trim(case.reference_answer),
                "candidate_answer": "",
                "input_messages": js_json_indent(_input_segments(an)),
            }
        prompt = _fill_template(template, values)
        out.append(EvaluatorPrompt(ev["name"], "llm_judge", prompt))
    return out


def _input_segments(an: Analysis) -> list[JsonObject]:
    """The loaded input segments as 0.15.1 hands them to a template (`{{input_messages}}`)."""
    out: list[JsonObject] = []
    for seg in an.flat_segments:
        if seg.type == "text":
            out.append({"type": "text", "value": seg.value})
        else:
            out.append({"type": "file", "path": seg.display_path, "text": seg.text, "resolvedPath": seg.resolved_path})
    return out


def _fill_template(template: str, values: dict[str, str]) -> str:
    """0.15.1's template substitution: `{{name}}` (no spaces) replaced by its value, unknown names left as written."""
    filled: str = _TEMPLATE_VARIABLE.sub(lambda m: values.get(m.group(1), m.group(0)), template)
    return filled


def _segment_fates(case: EvalCase, an: Analysis, patterns: tuple[str, ...], repo_root: str) -> list[SegmentFate]:
    fates: list[SegmentFate] = []
    pos = 0  # the message's position among the kept ones
    for message in case.messages:
        if message.dropped is not None:
            fates += dropped_fates(message)
            continue
        parts = an.parts[pos]
        pos += 1
        part_by_seg: dict[int, Part] | None = None if an.uses_markers and parts else {}
        for seg in message.segments:
            part = None
            if seg.type == "file":  # only a file's fate depends on its part
                if part_by_seg is None:
                    part_by_seg = {p.segment_index: p for p in parts}
                part = part_by_seg.get(seg.index)
            fate = _segment_fate(message, seg, part, an.uses_markers, patterns, repo_root)
            if seg.outside_root:
                fate = outside_root(fate, seg)
            fates.append(fate)
    return fates


@lru_cache(maxsize=4096)
def _repo_relative(path: str, repo_root: str) -> str:
    return os.path.relpath(path, repo_root).replace(os.sep, "/")


def _segment_fate(
    message: Message, seg: Segment, part: Part | None, markers: bool, patterns: tuple[str, ...], repo_root: str
) -> SegmentFate:
    """What became of one segment. `detail` completes the fate's name; it does not repeat it."""
    m, i = message.index, seg.index
    if seg.type == "text":
        if seg.value is None:
            return SegmentFate(m, i, "unknown type dropped", not_a_string(seg))
        if js_blank(seg.value):
            return SegmentFate(m, i, "blank dropped", "only white space")
        return SegmentFate(m, i, "text kept", line_count(seg.value))
    if seg.type != "file":
        what = f"type {seg.type!r} is neither text nor file" if seg.type else "the entry has no `type`"
        return SegmentFate(m, i, "unknown type dropped", f"{what}; AgentV ignores it")
    path = seg.value
    if not path:
        return SegmentFate(
            m,
            i,
            "unknown type dropped",
            not_a_string(seg) if seg.raw is not None else "a file entry without a path; AgentV ignores it",
        )
    if seg.resolved_path is None:
        tried = len(seg.tried)
        where = "1 place" if tried == 1 else f"{tried} places"
        return SegmentFate(m, i, "file missing", f"{seg.display_path} was not found in {where}", path)
    if seg.text is None:
        return SegmentFate(m, i, "file unreadable", f"{seg.resolved_path} could not be read", path)
    if seg.is_guideline:
        rel = _repo_relative(seg.resolved_path, repo_root)
        base = f"its repo path {rel} matches {matching_pattern(rel, patterns)!r}, so its content goes to `guidelines`"
        if markers and part is not None and part.kind == "ref":
            return SegmentFate(m, i, "guideline marked", f"{base}; its turn shows <Attached: {path}>", path)
        if markers:
            return SegmentFate(
                m,
                i,
                "guideline extracted",
                f"{base}; the path as written ({path}) matches no pattern, so its turn does not mention it",
                path,
            )
        return SegmentFate(m, i, "guideline extracted", f"{base}; the flat question leaves it out", path)
    if not markers and is_guideline(cast(str, seg.display_path), patterns):  # (a file's display path is set)
        return SegmentFate(
            m,
            i,
            "guideline marked",
            f"its repo path matches no pattern, so it is not in `guidelines`, but {seg.display_path} "
            f"matches {matching_pattern(cast(str, seg.display_path), patterns)!r}: the flat question shows "
            f"<Attached: {seg.display_path}> and its content is sent nowhere",
            path,
        )
    if markers:
        if part is None:
            return SegmentFate(
                m,
                i,
                "reference not matched",
                f"loaded as {seg.display_path}, but the turn looks it up as written ({path}), finds "
                "nothing, and leaves it out",
                path,
            )
        if part.kind == "ref":
            return SegmentFate(
                m,
                i,
                "guideline marked",
                f"the path as written matches {matching_pattern(path, patterns)!r}: its turn shows "
                f"<Attached: {path}>; "
                "its repo path matches no pattern, so its content is sent nowhere",
                path,
            )
    if not seg.text:
        return SegmentFate(
            m,
            i,
            "file embedded",
            f"{seg.display_path} is empty: a <file: …> reference in agent mode, nothing at all in lm mode",
            path,
        )
    if js_blank(seg.text):
        return SegmentFate(
            m, i, "file embedded", f"{seg.display_path} is blank, so it does not count as visible content", path
        )
    return SegmentFate(m, i, "file embedded", f"{seg.display_path}, {file_line_count(seg.text)}", path)
