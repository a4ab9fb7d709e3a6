"""Formatting: loaded eval cases -> question, guidelines, chatPrompt, evaluator prompt, and the explanation.

Two stages, as in the reference (docs/rules.md):
- load time (loader.py): every kept message's files are resolved; a file whose path *relative to the repo root*
  matches a guideline pattern goes to `guidelines` and leaves the segments; the rest form the flat segment list;
- format time (here): each message is scanned again from its content *as written*: a file whose written path
  matches a pattern becomes `<Attached: path>`; any other file is looked up by its written path among the files
  loaded (by display path), and silently lost when the two differ (e.g. `/x.py` is loaded as `x.py`).
The marker rule then decides between the flat question (built from the load-time segments) and the marked one
(built from the format-time segments).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from operator import attrgetter
from typing import cast

from turnlens.formatting.evals.globs import is_guideline, matching_pattern
from turnlens.formatting.jsstr import js_blank, js_json, js_json_indent, js_trim
from turnlens.formatting.model import (
    ChatMessage,
    EvalCase,
    EvalFile,
    EvaluatorPrompt,
    Explanation,
    FormattedCase,
    Message,
    MessageFate,
    Mode,
    Profile,
    Rendered,
    RuleKind,
    SegmentFate,
    SegmentFateKind,
)
from turnlens.formatting.patterns import LazyPattern
from turnlens.formatting.wording import plural

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


GRADER_TEMPLATE_HEAD_V4 = (
    "You are an expert grader. Your goal is to grade the answer based on how well it achieves the criteria for the "
    "original task.\n\n"
    "Use the reference_answer as a gold standard for a high-quality response (if provided). The reference_answer may "
    "be a simple text response, or it may contain a sequence of expected agent messages including tool calls. When "
    "it contains multiple messages, the last message represents the final expected answer. The answer does not need "
    "to match it verbatim, but should capture the key points and follow the same spirit.\n\n"
    "Be concise and focused in your evaluation. Provide succinct, specific feedback rather than verbose "
    "explanations.\n\n"
)


def grader_prompt_v4(criteria: str, question: str, reference_answer: str, answer: str = "") -> str:
    """AgentV 4's default grader user prompt (each value trimmed, substituted once, never re-scanned)."""
    return (
        f"{GRADER_TEMPLATE_HEAD_V4}[[ ## criteria ## ]]\n{js_trim(criteria)}\n\n"
        f"[[ ## question ## ]]\n{js_trim(question)}\n\n"
        f"[[ ## reference_answer ## ]]\n{js_trim(reference_answer)}\n\n"
        f"[[ ## answer ## ]]\n{js_trim(answer)}"
    )


def role_marker(role: str) -> str:
    marker = _ROLE_MARKERS.get(role)
    if marker is None:
        marker = f"@[{role[:1].upper()}{role[1:]}]:"
        if len(_ROLE_MARKERS) < 64:
            _ROLE_MARKERS[role] = marker
    return marker


_ROLE_MARKERS: dict[str, str] = {}


# --- format-time segments -----------------------------------------------------------------------------------


@dataclass(slots=True)
class _Part:
    """A segment as the format stage sees it."""

    kind: str  # "text" | "file" | "ref"
    value: str  # text, or the path as written
    text: str | None  # file contents for "file"
    segment_index: int
    agent_path: str = ""  # the path agent mode names: as written (0.15), the resolved absolute path (4.x)


def _chat_parts(parts: list[_Part], mode: Mode) -> list[str]:
    """Rendered parts of one turn as chatPrompt has them: guideline references left out. In lm mode an empty file
    renders as nothing and leaves no line behind."""
    out = []
    for p in parts:
        kind = p.kind
        if kind == "text":
            out.append(p.value)
        elif kind == "ref":
            continue
        elif mode == "agent":
            out.append(f'<file: path="{p.agent_path or p.value}">')
        elif p.text:
            out.append(f'<file path="{p.value}">\n{js_trim(p.text)}\n</file>')
    return out


def _render_part(part: _Part, mode: Mode, design: bool = False) -> str:
    """One part as text; `design` embeds a file as `=== path ===` instead of a <file> block (docs/rules.md)."""
    if part.kind == "text":
        return part.value
    if part.kind == "ref":
        return f"<Attached: {part.value}>"
    if mode == "agent":
        return f'<file: path="{part.agent_path or part.value}">'
    text = cast(str, part.text)  # a file part always holds the file's text
    if design:
        return f"=== {part.value} ===\n{js_trim(text)}"
    return f'<file path="{part.value}">\n{js_trim(text)}\n</file>'


def _format_parts(message: Message, file_texts: dict[str, str], patterns: tuple[str, ...]) -> list[_Part]:
    parts: list[_Part] = []
    if message.content_is_string:
        value = cast(str, message.segments[0].value)  # string content: one text segment
        if not js_blank(value):
            parts.append(_Part("text", value, None, 0))
        return parts
    for seg in message.segments:
        if seg.type == "file":
            if not seg.value:
                continue
            if is_guideline(seg.value, patterns):
                parts.append(_Part("ref", seg.value, None, seg.index))
                continue
            text = file_texts.get(seg.value)
            if text is not None:
                parts.append(_Part("file", seg.value, text, seg.index))
        elif seg.type == "text":
            if seg.value is not None and not js_blank(seg.value):
                parts.append(_Part("text", seg.value, None, seg.index))
    return parts


def _has_kind(parts: list[_Part], kind: str) -> bool:
    # (loops rather than any() over a generator: asked for every message of every case)
    for p in parts:
        if p.kind == kind:
            return True
    return False


def _has_other_than_refs(parts: list[_Part]) -> bool:
    for p in parts:
        if p.kind != "ref":
            return True
    return False


def _visible(parts: list[_Part]) -> bool:
    """Visible content: a non-blank text, or a file whose text is not blank (a guideline reference is not)."""
    for p in parts:
        kind = p.kind
        if kind == "ref":
            continue
        if not js_blank(p.value if kind == "text" else cast(str, p.text)):  # (0.15's parts hold no blank text)
            return True
    return False


# --- the case -----------------------------------------------------------------------------------------------


@dataclass(slots=True)
class _Analysis:
    kept: list[Message]  # messages the reference keeps, in order
    # format-time parts, per kept message (4.x: made only for the design profile, which renders them again; the agentv
    # profile renders from `texts`)
    parts: list[list[_Part]]
    flat_segments: list  # load-time (text | non-guideline file) segments, in order
    code_snippets: list[str]
    guideline_segments: list  # load-time guideline segments, in order
    uses_markers: bool
    non_user: list[int]  # message indexes (as written) of assistant/tool turns
    visible: list[int]  # message indexes (as written) with visible content at format time
    visible_flags: list[bool]  # per kept message
    lead: int = 0  # how many kept messages lead with the system role
    # agentv-4, made by _analyse_v4 with the parts: what _texts_by_mode and _bodies give for each kept message in lm
    # and in agent mode (an agent list is the lm one where no file makes them differ), and whether a file does
    lm_texts: Sequence[list[str]] = ()
    agent_texts: Sequence[list[str]] = ()
    with_files: bool = False
    lm_bodies: Sequence[str] = ()
    agent_bodies: Sequence[str] = ()


def _parts_v4(message: Message, with_parts: bool = True) -> tuple[list[_Part], bool, list[str], list[str]]:
    """AgentV 4's segments of one message: every text (blank ones too, except a blank string content) and every file
    that was read; images and unknown types render as nothing. Also whether they are visible content (_visible), and
    the parts rendered in lm and in agent mode (_message_texts), made in the same walk; the parts themselves only
    `with_parts`."""
    parts: list[_Part] = []
    lm: list[str] = []
    agent = lm
    visible = False
    for seg in message.segments:
        kind = seg.type
        if kind == "text":
            value = seg.value
            # an empty text formats to nothing and leaves no line; a blank one is kept inside a content list
            if not value:
                continue
            blank = js_blank(value)
            if blank and message.content_is_string:
                continue
            if with_parts:
                parts.append(_Part("text", value, None, seg.index))
            lm.append(value)
            if agent is not lm:
                agent.append(value)
        elif kind == "file" and seg.text is not None:
            text = seg.text
            blank = js_blank(text)
            path = seg.display_path or ""
            agent_path = seg.resolved_path or ""
            if with_parts:
                parts.append(_Part("file", path, text, seg.index, agent_path))
            if agent is lm:  # the two modes part here
                agent = lm.copy()
            agent.append(_agent_file(agent_path or path))
            if text:
                lm.append(_lm_file(path, text))
        else:
            continue
        visible = visible or not blank
    return parts, visible, lm, agent


def _analyse_v4(case: EvalCase, with_parts: bool = True) -> _Analysis:
    """`with_parts`: keep each message's parts (_Analysis.parts), which only the design profile needs."""
    kept = [m for m in case.messages if m.dropped is None]
    parts = []
    flags = []
    lm_all = []
    agent_all = []
    lm_bodies = []
    agent_bodies = []
    with_files = False
    # _marker_rule's evidence and _leading_system_count, gathered in the same walk
    non_user = []
    visible = []
    lead = 0
    for m in kept:
        message_parts, flag, lm, agent = _parts_v4(m, with_parts)
        if with_parts:
            parts.append(message_parts)
        flags.append(flag)
        lm_all.append(lm)
        agent_all.append(agent)
        body = "\n".join(lm)
        lm_bodies.append(body)
        if agent is not lm:
            with_files = True
            body = "\n".join(agent)
        agent_bodies.append(body)
        if flag:
            visible.append(m.index)
        role = m.role
        if role == "assistant" or role == "tool":
            non_user.append(m.index)
        elif role == "system" and lead == len(lm_all) - 1:  # still in the leading run of system messages
            lead += 1
    uses_markers = _uses_markers(non_user, visible)
    return _Analysis(
        kept,
        parts,
        [],
        [],
        [],
        uses_markers,
        non_user,
        visible,
        flags,
        lead,
        lm_all,
        agent_all,
        with_files,
        lm_bodies,
        agent_bodies,
    )


def _marker_rule(kept: list[Message], flags: list[bool]) -> tuple[bool, list[int], list[int]]:
    """Whether the question carries role markers (a non-user turn, or more than one turn with visible content), with
    the evidence: the non-user turns and the visible ones. `flags`: each kept message's visibility. (_analyse_v4
    gathers the same evidence in the walk that makes the parts.)"""
    non_user = []
    visible = []
    for m, flag in zip(kept, flags):
        if flag:
            visible.append(m.index)
        if m.role == "assistant" or m.role == "tool":
            non_user.append(m.index)
    return _uses_markers(non_user, visible), non_user, visible


def _uses_markers(non_user: list[int], visible: list[int]) -> bool:
    """The marker rule itself, given its evidence (_marker_rule)."""
    return bool(non_user) or len(visible) > 1


def _analyse(case: EvalCase, patterns: tuple[str, ...]) -> _Analysis:
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
    uses_markers, non_user, visible = _marker_rule(kept, flags)
    lead = _leading_system_count(kept)
    return _Analysis(
        kept, parts, flat_segments, snippets, guideline_segments, uses_markers, non_user, visible, flags, lead
    )


def _guidelines(an: _Analysis) -> str:
    blocks = []
    for seg in an.guideline_segments:
        name = seg.resolved_path.replace("\\", "/").rsplit("/", 1)[-1]
        blocks.append(f'<file path="{name}">\n{js_trim(seg.text)}\n</file>')
    return "\n\n".join(blocks)


def _flat_question(an: _Analysis, mode: Mode, patterns: tuple[str, ...]) -> str:
    chunks = []
    for seg in an.flat_segments:
        if seg.type == "text":
            chunk = seg.value
        elif is_guideline(seg.display_path, patterns):
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


def _flat_question_v4(rendered: Sequence[list[str]]) -> str:
    """AgentV 4: every segment of every message, formatted, trimmed, the empty ones dropped; no code appendix."""
    chunks = []
    for texts in rendered:
        for chunk in texts:
            chunk = js_trim(chunk)
            if chunk:
                chunks.append(chunk)
    return "\n\n".join(chunks)


def _bodies(rendered: list[list[str]]) -> list[str]:
    """Each message's rendered parts as one text, one line each: its body in the marked question, in chatPrompt and
    in systemMessage alike (joined once, not once for each)."""
    return ["\n".join(texts) for texts in rendered]


def _system_text(an: _Analysis, bodies: Sequence[str]) -> str:
    """The leading system messages' bodies, the empty ones left out (no visibility check): AgentV 4's
    systemMessage (None when empty), and the leading system message of the agentv chatPrompt (after the guidelines)
    in both dialects."""
    return "\n\n".join([body for body in bodies[: an.lead] if body])


def _leading_system_count(kept: list[Message]) -> int:
    n = 0
    while n < len(kept) and kept[n].role == "system":
        n += 1
    return n


def _marked(
    an: _Analysis, guidelines: str, mode: Mode, bodies: Sequence[str], refs: bool = True
) -> tuple[str, list[ChatMessage], str]:
    """The marked question, the agentv chatPrompt and _system_text, in one walk over the kept messages. `refs`: the
    parts may hold guideline references (0.15; a 4.x file has none)."""
    lead = an.lead
    turns = []
    chat: list[ChatMessage] = []
    system_bodies = []
    parts_all, flags = an.parts, an.visible_flags
    markers = _ROLE_MARKERS  # (role_marker's cache, asked here without a call)
    for n, message in enumerate(an.kept):
        role, body = message.role, bodies[n]
        if flags[n]:
            turns.append(f"{markers.get(role) or role_marker(role)}\n{body}")
        if n < lead:  # merged into chatPrompt's leading system message
            if body:
                system_bodies.append(body)
            continue
        # a guideline reference shows in the question but not in chatPrompt: only then is the turn rendered again
        if refs and _has_kind(parts_all[n], "ref"):
            body = "\n".join(_chat_parts(parts_all[n], mode))
        # (no rendered part is empty: a body is empty only when the turn has no part)
        if role == "system" or role == "tool":
            marker = role_marker(role)
            chat.append(ChatMessage("assistant", f"{marker}\n{body}" if body else marker))
        elif body:
            chat.append(ChatMessage(role, body))
    system = "\n\n".join(system_bodies)
    chat_system = system
    if guidelines:
        block = f"[[ ## Guidelines ## ]]\n\n{guidelines}"
        chat_system = f"{block}\n\n{system}" if system else block
    if chat_system:
        chat.insert(0, ChatMessage("system", chat_system))
    return "\n\n".join(turns), chat, system


def _design_chat(an: _Analysis, guidelines: str, mode: Mode) -> list[ChatMessage]:
    """Design 004: every system message merged up front; assistant/tool keep their roles."""
    chat: list[ChatMessage] = []
    system_parts = []
    if guidelines:
        system_parts.append(f"[[ ## Guidelines ## ]]\n\n{guidelines}")
    for message, parts in zip(an.kept, an.parts):
        if message.role != "system":
            continue
        # a blank file contributes nothing; a system message left with nothing is dropped, not sent empty
        texts = [p.value if p.kind == "text" else js_trim(cast(str, p.text)) for p in parts if p.kind != "ref"]
        content = "\n".join(t for t in texts if t)
        if content:
            system_parts.append(content)
    if system_parts:
        chat.append(ChatMessage("system", "\n\n".join(system_parts)))
    for message, parts in zip(an.kept, an.parts):
        if message.role == "system":
            continue
        rendered = [_render_part(p, mode, design=True) for p in parts]
        if rendered:
            chat.append(ChatMessage(message.role, "\n".join(rendered)))
    return chat


def _texts_by_mode(parts_all: list[list[_Part]]) -> tuple[list[list[str]], list[list[str]], bool]:
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


def _message_texts(parts: list[_Part]) -> tuple[list[str], list[str]]:
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
        agent.append(_agent_file(p.agent_path or p.value))
        if p.text:  # in lm mode an empty file renders as nothing
            lm.append(_lm_file(p.value, p.text))
    return lm, agent


def _agent_file(path: str) -> str:
    return f'<file: path="{path}">'


def _lm_file(path: str, text: str) -> str:
    return f'<file path="{path}">\n{js_trim(text)}\n</file>'


def _same_rendered(rendered: Rendered) -> Rendered:
    """Agent mode's Rendered when it equals lm mode's (no file in the case)."""
    chat = rendered.chat_prompt
    return Rendered(
        rendered.question,
        rendered.guidelines,
        None if chat is None else list(chat),
        rendered.system_message,
        rendered.dialect,
    )


def _render_v4(an: _Analysis) -> tuple[Rendered, Rendered]:
    """AgentV 4 in the agentv profile, lm and agent mode at once."""
    lm = _rendered_v4(an, an.lm_texts, an.lm_bodies)
    if not an.with_files:
        return lm, _same_rendered(lm)
    return lm, _rendered_v4(an, an.agent_texts, an.agent_bodies)


def _agent_bodies(lm_all: list[list[str]], agent_all: list[list[str]], lm_bodies: list[str]) -> list[str]:
    """Agent mode's bodies: lm mode's where a message renders the same in both (_texts_by_mode shares its list)."""
    return [body if agent is lm else "\n".join(agent) for lm, agent, body in zip(lm_all, agent_all, lm_bodies)]


def _render_015(an: _Analysis, guidelines: str, patterns: tuple[str, ...]) -> tuple[Rendered, Rendered]:
    """0.15 in the agentv profile, lm and agent mode at once."""
    if not an.uses_markers:
        lm_flat = Rendered(_flat_question(an, "lm", patterns), guidelines, None)
        return lm_flat, Rendered(_flat_question(an, "agent", patterns), guidelines, None)
    lm_all, agent_all, with_files = _texts_by_mode(an.parts)
    bodies = _bodies(lm_all)
    question, chat, _ = _marked(an, guidelines, "lm", bodies)
    lm = Rendered(question, guidelines, chat or None)
    if not with_files:
        return lm, _same_rendered(lm)
    question, chat, _ = _marked(an, guidelines, "agent", _agent_bodies(lm_all, agent_all, bodies))
    return lm, Rendered(question, guidelines, chat or None)


def _with_profile(
    rendered: tuple[Rendered, Rendered], an: _Analysis, profile: Profile, guidelines: str
) -> tuple[Rendered, Rendered]:
    """The agentv profile's lm and agent mode as they are; the design profile changes only their chatPrompt."""
    if profile != "design":
        return rendered
    lm, agent = rendered
    return (
        replace(lm, chat_prompt=_design_chat(an, guidelines, "lm")),
        replace(agent, chat_prompt=_design_chat(an, guidelines, "agent")),
    )


def _rendered_v4(an: _Analysis, rendered: Sequence[list[str]], bodies: Sequence[str]) -> Rendered:
    if an.uses_markers:
        question, chat, system = _marked(an, "", "lm", bodies, refs=False)
        return Rendered(question, "", chat or None, system or None, "agentv-4")
    return Rendered(_flat_question_v4(rendered), "", None, _system_text(an, bodies) or None, "agentv-4")


def evaluator_question(question: str, kept: list[Message], v4: bool = False) -> str:
    """The question the evaluator sees: the candidate's, or, when that is empty, the messages' loose text.

    The reference falls back to the non-blank string `value`s of every non-file entry, joined by a space; AgentV 4
    leaves image parts (`type: image`) out too.
    """
    if question:
        return question
    texts = []
    for message in kept:
        if message.content_is_string:
            value = cast(str, message.segments[0].value)
            if not js_blank(value):
                texts.append(value)
            continue
        for seg in message.segments:
            if (
                seg.type != "file"
                and seg.value is not None
                and not js_blank(seg.value)
                and not (v4 and seg.type == "image")
            ):
                texts.append(seg.value)
    return " ".join(texts)


def format_case(case: EvalCase, eval_file: EvalFile, profile: Profile = "agentv") -> FormattedCase:
    """Everything the model and the evaluator receive for one case, and why."""
    if case.skipped is not None:
        raise ValueError(f"case {case.index} is skipped: {case.skipped}")
    if eval_file.dialect == "agentv-4":
        design = profile == "design"
        an = _analyse_v4(case, design)
        lm, agent = _with_profile(_render_v4(an), an, profile, "") if design else _render_v4(an)
        prompt = grader_prompt_v4(
            case.criteria or "", evaluator_question(lm.question, an.kept, v4=True), case.reference_answer
        )
        return FormattedCase(case, profile, lm, agent, prompt, explain(case, an, (), eval_file.repo_root, v4=True))
    patterns = tuple(eval_file.config.patterns)
    an = _analyse(case, patterns)
    guidelines = _guidelines(an)
    lm, agent = _with_profile(_render_015(an, guidelines, patterns), an, profile, guidelines)
    question = evaluator_question(lm.question, an.kept)
    prompt = evaluator_prompt(case.outcome or "", question, case.reference_answer)
    explanation = explain(case, an, patterns, eval_file.repo_root)
    own = None if case.evaluators is None else _evaluator_prompts(case, an, question, prompt)
    return FormattedCase(case, profile, lm, agent, prompt, explanation, own)


_TEMPLATE_VAR_015 = LazyPattern(r"\{\{([a-zA-Z0-9_]+)\}\}")


def _evaluator_prompts(case: EvalCase, an: _Analysis, question: str, default_prompt: str) -> list[EvaluatorPrompt]:
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
            out.append(EvaluatorPrompt(ev["name"], "llm_judge", default_prompt))
            continue
        if values is None:
            values = {
                "question": js_trim(question),
                "expected_outcome": js_trim(case.outcome or ""),
                "reference_answer": js_trim(case.reference_answer),
                "candidate_answer": "",
                "input_messages": js_json_indent(_input_segments(an)),
            }
        prompt = _fill_015(template, values)
        out.append(EvaluatorPrompt(ev["name"], "llm_judge", prompt))
    return out


def _input_segments(an: _Analysis) -> list[dict]:
    """The loaded input segments as 0.15.1 hands them to a template (`{{input_messages}}`)."""
    out: list[dict] = []
    for seg in an.flat_segments:
        if seg.type == "text":
            out.append({"type": "text", "value": seg.value})
        else:
            out.append({"type": "file", "path": seg.display_path, "text": seg.text, "resolvedPath": seg.resolved_path})
    return out


# --- the explanation (docs/rules.md, "The marker rule") ---------------------------------------------------------------


def _msg_label(message: Message) -> str:
    return f"message {message.index + 1} ({message.role or 'no role'})"


def _lines(text: str) -> str:
    if "\n" not in text:  # (most texts: one line)
        return "1 line" if text else "0 lines"
    n = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
    return _LINE_COUNTS[n] if n < 64 else f"{n} lines"


# (_lines is asked for every text segment of every case: the usual counts are made once)
_LINE_COUNTS = [f"{n} line{'s' if n != 1 else ''}" for n in range(64)]


def _fill_015(template: str, values: dict[str, str]) -> str:
    """0.15.1's template substitution: `{{name}}` (no spaces) replaced by its value, unknown names left as written."""
    return _TEMPLATE_VAR_015.sub(lambda m: values.get(m.group(1), m.group(0)), template)


def explain(
    case: EvalCase, an: _Analysis, patterns: tuple[str, ...], repo_root: str = "/", v4: bool = False
) -> Explanation:
    rule, summary, head_evidence, trigger, msg_fates = _explanation_head(case, an, v4)
    evidence = list(head_evidence)
    if v4:
        evidence += case.notes
        if case.interpolations:
            evidence += [f"Interpolation: {n}" for n in case.interpolations]
        if case.assertions:
            evidence.append(
                f"The test has {plural(len(case.assertions), 'grader')} of its own, so AgentV does not run the default "
                "grader: its prompt is shown for reference."
            )
        fates = _segment_fates_v4(case, an)
    else:
        evidence += case.notes
        fates = _segment_fates(case, an, patterns, repo_root)
    # (an.visible is this case's own list)
    return Explanation(rule, an.uses_markers, summary, evidence, list(trigger), an.visible, list(msg_fates), fates)


def _segment_fates_v4(case: EvalCase, an: _Analysis) -> list[SegmentFate]:
    fates: list[SegmentFate] = []
    lead, flags = an.lead, an.visible_flags
    pos = 0  # the message's position among the kept ones
    for message in case.messages:
        if message.dropped is not None:
            fates += _dropped_fates(message)
            continue
        sent = flags[pos] or pos < lead
        pos += 1
        for seg in message.segments:
            fate = _segment_fate_v4(message, seg, sent)
            if seg.outside_root:
                fate = _outside_root(fate, seg)
            fates.append(fate)
    return fates


def _segment_fates(case: EvalCase, an: _Analysis, patterns: tuple[str, ...], repo_root: str) -> list[SegmentFate]:
    fates: list[SegmentFate] = []
    pos = 0  # the message's position among the kept ones
    for message in case.messages:
        if message.dropped is not None:
            fates += _dropped_fates(message)
            continue
        parts = an.parts[pos]
        pos += 1
        part_by_seg: dict[int, _Part] | None = None if an.uses_markers and parts else {}
        for seg in message.segments:
            part = None
            if seg.type == "file":  # only a file's fate depends on its part
                if part_by_seg is None:
                    part_by_seg = {p.segment_index: p for p in parts}
                part = part_by_seg.get(seg.index)
            fate = _segment_fate(message, seg, part, an.uses_markers, patterns, repo_root)
            if seg.outside_root:
                fate = _outside_root(fate, seg)
            fates.append(fate)
    return fates


def _dropped_fates(message: Message) -> list[SegmentFate]:
    dropped = cast(str, message.dropped)
    fate: SegmentFateKind = "not a mapping" if "not a mapping" in dropped else "unknown type dropped"
    return [
        SegmentFate(message.index, seg.index, fate, f"lost with its message ({dropped})", seg.value)
        for seg in message.segments
    ]


def _outside_root(fate: SegmentFate, seg) -> SegmentFate:
    return replace(fate, detail=f"{fate.detail}; outside the repository root ({seg.resolved_path})")


_message_shape = attrgetter("index", "role", "dropped")  # (a message's part of a case's shape, made in C)

# Explanation heads by the shape of the case they explain: thousands of tests of a suite share a few shapes.
_heads: dict[tuple, tuple] = {}


def _explanation_head(case: EvalCase, an: _Analysis, v4: bool) -> tuple:
    """(rule, summary, evidence up to the case's own notes, trigger messages, message fates): what depends only on
    each message's index, role, fate and visibility, so it is made once per shape and shared (it is never changed)."""
    key = (
        v4,
        bool(an.guideline_segments),
        len(an.code_snippets),
        case.suite_input_count if v4 else 0,
        tuple(map(_message_shape, case.messages)),
        tuple(an.visible),
        # per kept message: content besides guideline references (a 4.x message has none of those, and renders one
        # agent-mode text per part)
        tuple(map(bool, an.agent_texts)) if v4 else tuple([_has_other_than_refs(p) for p in an.parts]),
    )
    head = _heads.get(key)
    if head is None:
        if len(_heads) >= 4096:
            _heads.clear()
        head = _heads[key] = _make_explanation_head(case, an, v4)
    return head


def _make_explanation_head(case: EvalCase, an: _Analysis, v4: bool) -> tuple:
    by_index = {m.index: m for m in case.messages}
    rule: RuleKind
    if an.non_user:
        first = by_index[an.non_user[0]]
        rule = "non-user turn"
        trigger = list(an.non_user)
        summary = f"Role markers: {_msg_label(first)} is a non-user turn"
        evidence = [
            "Markers are used whenever an assistant or tool message is present; found "
            + ", ".join(_msg_label(by_index[i]) for i in an.non_user)
            + "."
        ]
        if len(an.visible) > 1:
            evidence.append(
                f"Also {len(an.visible)} messages have visible content: "
                + ", ".join(_msg_label(by_index[i]) for i in an.visible)
                + "."
            )
    elif len(an.visible) > 1:
        rule = "several visible turns"
        trigger = list(an.visible)
        summary = f"Role markers: {len(an.visible)} messages have visible content"
        evidence = [
            "Markers are used when more than one message has visible content after guideline extraction: "
            + ", ".join(_msg_label(by_index[i]) for i in an.visible)
            + "."
        ]
    elif an.visible:
        rule = "single visible turn"
        trigger = list(an.visible)
        summary = f"Flat: only {_msg_label(by_index[an.visible[0]])} has visible content"
        evidence = [
            "No assistant or tool message, and exactly one message has visible content after guideline "
            "extraction, so the question is flat (no role markers)."
        ]
    else:
        rule = "no visible content"
        trigger = []
        summary = "Flat: no message has visible content"
        evidence = ["No assistant or tool message and no message with visible content: the question is flat."]
    if v4:
        evidence = [e.replace(" after guideline extraction", "") for e in evidence]
    if not an.uses_markers and v4:
        evidence.append(
            "The flat question is every segment of every message, each trimmed, joined by a blank line (AgentV 4 "
            "appends no code blocks and has no guidelines)."
        )
        evidence.append("chatPrompt is null in the agentv profile: it exists only when role markers are used.")
    elif not an.uses_markers:
        evidence.append(
            "The flat question is built from the loaded segments of every kept message, joined by a "
            "blank line; guideline files are left out."
        )
        if an.code_snippets:
            evidence.append(
                f"{plural(len(an.code_snippets), 'fenced code block')} from the text "
                f"{'is' if len(an.code_snippets) == 1 else 'are'} appended again at the end of the flat question."
            )
        evidence.append("chatPrompt is null in the agentv profile: it exists only when role markers are used.")
    else:
        lead = _leading_system_count(an.kept)
        if lead:
            evidence.append(
                (
                    "chatPrompt: the leading system message becomes the system message"
                    if lead == 1
                    else f"chatPrompt: the leading {lead} system messages merge into one system message"
                )
                + (" after the [[ ## Guidelines ## ]] block." if an.guideline_segments else ".")
            )
        elif an.guideline_segments:
            evidence.append("chatPrompt starts with a system message holding the [[ ## Guidelines ## ]] block.")
    for m in case.messages:
        if m.dropped is not None:
            evidence.append(f"{_msg_label(m)} is dropped by the reference: {m.dropped}.")
    if v4:
        lead_v4 = _leading_system_count(an.kept)
        evidence.append(
            (
                "systemMessage: the leading system message, computed flat or not."
                if lead_v4 == 1
                else f"systemMessage: the leading {lead_v4} system messages, computed flat or not."
            )
            if lead_v4
            else "systemMessage is null: the messages do not start with a system message."
        )
        if case.suite_input_count:
            which = "Message 1 comes" if case.suite_input_count == 1 else f"Messages 1–{case.suite_input_count} come"
            evidence.append(
                f"{which} from the suite's `input` (prepended to every test without execution.skip_defaults)."
            )

    msg_fates: list[MessageFate] = []
    lead = an.lead
    kept_pos = {m.index: pos for pos, m in enumerate(an.kept)}
    visible_indexes = set(an.visible)
    for message in case.messages:
        if message.dropped is not None:
            msg_fates.append(
                MessageFate(message.index, message.role, False, False, None, f"dropped: {message.dropped}")
            )
            continue
        pos = kept_pos[message.index]
        visible = message.index in visible_indexes
        in_question = visible if an.uses_markers else True
        if an.uses_markers:
            if pos < lead:
                chat_role, note = "system", "merged into the leading system message"
            elif message.role in ("system", "tool"):
                chat_role, note = "assistant", f"sent as an assistant message starting with {role_marker(message.role)}"
            elif bool(an.agent_texts[pos]) if v4 else _has_other_than_refs(an.parts[pos]):
                chat_role, note = (
                    message.role,
                    f"kept as {'an' if message.role == 'assistant' else 'a'} {message.role} message",
                )
            else:
                chat_role, note = None, "left out of chatPrompt: no content besides guideline references"
            if not visible:
                note = "not a turn of the question (no visible content); " + note
        else:
            chat_role, note = None, "part of the flat question" if visible else "contributes nothing visible"
        msg_fates.append(MessageFate(message.index, message.role, visible, in_question, chat_role, note))
    return rule, summary, tuple(evidence), tuple(trigger), tuple(msg_fates)


@lru_cache(maxsize=4096)
def _repo_relative(path: str, repo_root: str) -> str:
    return os.path.relpath(path, repo_root).replace(os.sep, "/")


def _segment_fate(message: Message, seg, part: _Part | None, markers: bool, patterns, repo_root: str) -> SegmentFate:
    """What became of one segment. `detail` completes the fate's name; it does not repeat it."""
    m, i = message.index, seg.index
    if seg.type == "text":
        if seg.value is None:
            return SegmentFate(m, i, "unknown type dropped", _not_a_string(seg))
        if js_blank(seg.value):
            return SegmentFate(m, i, "blank dropped", "only white space")
        return SegmentFate(m, i, "text kept", _lines(seg.value))
    if seg.type != "file":
        what = f"type {seg.type!r} is neither text nor file" if seg.type else "the entry has no `type`"
        return SegmentFate(m, i, "unknown type dropped", f"{what}; AgentV ignores it")
    path = seg.value
    if not path:
        return SegmentFate(
            m,
            i,
            "unknown type dropped",
            _not_a_string(seg) if seg.raw is not None else "a file entry without a path; AgentV ignores it",
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
    if not markers and is_guideline(seg.display_path, patterns):
        return SegmentFate(
            m,
            i,
            "guideline marked",
            f"its repo path matches no pattern, so it is not in `guidelines`, but {seg.display_path} "
            f"matches {matching_pattern(seg.display_path, patterns)!r}: the flat question shows "
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
    return SegmentFate(m, i, "file embedded", f"{seg.display_path}, {_file_lines(seg.text)}", path)


@lru_cache(maxsize=1024)
def _file_lines(text: str) -> str:
    """_lines of a file's text (cached: an eval file embeds the same few files in thousands of cases)."""
    return _lines(text)


def _segment_fate_v4(message: Message, seg, sent: bool) -> SegmentFate:
    """What AgentV 4 made of one segment (`sent`: its message is visible or a leading system message)."""
    m, i = message.index, seg.index
    if seg.type == "text":
        value = seg.value
        if value is None:
            return SegmentFate(m, i, "unknown type dropped", _not_a_string(seg))
        if not js_blank(value):
            return SegmentFate(m, i, "text kept", f"{_lines(value)} ({seg.origin})" if seg.origin else _lines(value))
        origin = f" ({seg.origin})" if seg.origin else ""
        if message.content_is_string or not sent:
            return SegmentFate(m, i, "blank dropped", "only white space" + origin)
        return SegmentFate(m, i, "blank kept", "only white space, sent as is inside its message" + origin)
    origin = f" ({seg.origin})" if seg.origin else ""
    if seg.type in ("file", "image") and seg.value == "":
        return SegmentFate(m, i, "unknown type dropped", "the path is empty: AgentV skips it without a warning")
    if seg.type == "image":
        if seg.resolved_path is None:
            return SegmentFate(m, i, "file missing", f"image {seg.display_path} was not found", seg.value)
        return SegmentFate(
            m, i, "image not rendered", f"{seg.resolved_path}: sent to the model as an image, never as text", seg.value
        )
    if seg.type != "file" or not seg.value:
        what = f"type {seg.type!r} is neither text nor file" if seg.type else "the entry has no `type`"
        return SegmentFate(m, i, "unknown type dropped", f"{what}; AgentV keeps it but renders nothing")
    path = seg.value
    if seg.resolved_path is None:
        return SegmentFate(
            m, i, "file missing", f"{seg.display_path} was not found in {len(seg.tried)} places{origin}", path
        )
    if seg.text is None:
        return SegmentFate(m, i, "file unreadable", f"{seg.resolved_path} could not be read{origin}", path)
    return SegmentFate(
        m, i, "file embedded", _embedded_detail_v4(seg.display_path, seg.resolved_path, seg.text, origin), path
    )


def file_tags_v4(display_path: str, resolved_path: str) -> tuple[str, str]:
    """How AgentV 4 names an embedded file in the lm question and in the agent question (an absolute path)."""
    return f'<file path="{display_path}">', f'<file: path="{resolved_path}">'


def file_tags_where_v4(display_path: str, resolved_path: str) -> str:
    """Both tags as an embedded file's detail names them (the UI shows the one of the mode on screen instead)."""
    lm_tag, agent_tag = file_tags_v4(display_path, resolved_path)
    return f"lm: {lm_tag}, agent: {agent_tag}"


@lru_cache(maxsize=1024)
def _embedded_detail_v4(display_path: str, resolved_path: str, text: str, origin: str) -> str:
    """The detail of an embedded file (cached: a suite embeds the same few files in thousands of tests)."""
    where = file_tags_where_v4(display_path, resolved_path)
    if not text:
        return f"{display_path} is empty: nothing in lm mode; {where}{origin}"
    if js_blank(text):
        return f"{display_path} is blank: not visible; {where}{origin}"
    return f"{_file_lines(text)}; {where}{origin}"


def _not_a_string(seg) -> str:
    shown = js_json(seg.raw) if seg.raw is not None else "null"
    return f"the value is not a string (YAML reads {shown}); AgentV ignores it — quote it to send it as text"
