"""Formatting: a loaded case -> question, guidelines or systemMessage, chatPrompt, the default grader's or
evaluator's prompt, and the explanation, in lm and agent mode and in both profiles.

One pipeline for every dialect; what differs is the dialect's strategy (parts.DialectFormatting), which the file's
dialect gives (dialects/format.py): prompts/agentv015.py (AgentV 0.15.1), prompts/agentv4.py (AgentV 4.42.4).
Each analyses the case (which messages are kept, their parts, the marker rule's evidence), renders the agentv
profile, and words its side of the explanation; the design profile, the evaluator's fallback question and the
explanation's shape are shared here and in parts.py. 0.15's two stages (docs/rules.md): at load time a file whose
repo path matches a guideline pattern goes to `guidelines`; at format time each message is scanned again as
written, a file whose written path matches a pattern becoming `<Attached: path>`.
"""

from __future__ import annotations

from dataclasses import replace
from functools import cache, partial
from operator import attrgetter

from turnlens.formatting.model import (
    EvalCase,
    EvalFile,
    Explanation,
    FormattedCase,
    Message,
    MessageFate,
    Profile,
    Rendered,
    RuleKind,
)
from turnlens.formatting.prompts.parts import (
    Analysis,
    DialectFormatting,
    design_chat,
    evaluator_question,
    leading_system_count,
    role_marker,
    uses_markers,
)


def format_case_with(
    dialect: DialectFormatting, case: EvalCase, eval_file: EvalFile, profile: Profile = "agentv"
) -> FormattedCase:
    """Everything the model and the evaluator receive for one case, and why, by `dialect`'s rules (the case's file's
    dialect's: dialects/format.py's format_case gives them)."""
    if case.skipped is not None:
        raise ValueError(f"case {case.index} is skipped: {case.skipped}")
    design = profile == "design"
    an = dialect.analyse(case, eval_file, design)
    lm, agent = dialect.render(an)
    if design:
        lm, agent = _design_profile(lm, agent, an)
    question = evaluator_question(lm.question, an.kept, dialect.skips_images)
    prompt = cache(partial(dialect.default_prompt, case, question))  # made once, when asked for (FormattedCase)
    explanation = explain(case, an, dialect)
    own = dialect.own_prompts(case, an, question, prompt)
    return FormattedCase(case, profile, lm, agent, prompt, explanation, own)


def case_summary_with(
    dialect: DialectFormatting, case: EvalCase, eval_file: EvalFile, profile: Profile = "agentv"
) -> tuple[RuleKind, bool]:
    """(rule, uses_markers) of format_case_with's explanation, without rendering the prompts: what a list of
    cases shows of each (the rest waits until the case is shown)."""
    if case.skipped is not None:
        raise ValueError(f"case {case.index} is skipped: {case.skipped}")
    non_user, visible = dialect.turns(case, eval_file)
    return _rule(non_user, visible), uses_markers(non_user, visible)


def _rule(non_user: list[int], visible: list[int]) -> RuleKind:
    """Which marker rule decides the case (the explanation's head), from its non-user and visible turns alone."""
    if non_user:
        return "non-user turn"
    if len(visible) > 1:
        return "several visible turns"
    return "single visible turn" if visible else "no visible content"


def _design_profile(lm: Rendered, agent: Rendered, an: Analysis) -> tuple[Rendered, Rendered]:
    """The design profile: the agentv profile's lm and agent mode with the design chatPrompt."""
    return (
        replace(lm, chat_prompt=design_chat(an, an.guidelines, "lm")),
        replace(agent, chat_prompt=design_chat(an, an.guidelines, "agent")),
    )


def explain(case: EvalCase, an: Analysis, dialect: DialectFormatting) -> Explanation:
    rule, summary, head_evidence, trigger, msg_fates = _explanation_head(case, an, dialect)
    evidence = list(head_evidence)
    evidence += case.notes
    evidence += dialect.case_evidence(case)
    fates = dialect.segment_fates(case, an)
    # (an.visible is this case's own list)
    return Explanation(rule, an.uses_markers, summary, evidence, list(trigger), an.visible, list(msg_fates), fates)


def _msg_label(message: Message) -> str:
    return f"message {message.index + 1} ({message.role or 'no role'})"


_message_shape = attrgetter("index", "role", "dropped")  # (a message's part of a case's shape, made in C)


# Explanation heads by the shape of the case they explain: thousands of tests of a suite share a few shapes.
# A head: (rule, summary, evidence, trigger messages, message fates); a shape: see _explanation_head's key.
_Head = tuple[RuleKind, str, tuple[str, ...], tuple[int, ...], tuple[MessageFate, ...]]
_heads: dict[tuple[object, ...], _Head] = {}


def _explanation_head(case: EvalCase, an: Analysis, dialect: DialectFormatting) -> _Head:
    """(rule, summary, evidence up to the case's own notes, trigger messages, message fates): what depends only on
    each message's index, role, fate and visibility, so it is made once per shape and shared (it is never changed)."""
    chat_content = dialect.chat_content(an)
    key = (
        dialect.labels.name,
        bool(an.guideline_segments),
        len(an.code_snippets),
        case.suite_input_count,
        tuple(map(_message_shape, case.messages)),
        tuple(an.visible),
        chat_content,
    )
    head = _heads.get(key)
    if head is None:
        if len(_heads) >= 4096:
            _heads.clear()
        head = _heads[key] = _make_explanation_head(case, an, dialect, chat_content)
    return head


def _make_explanation_head(
    case: EvalCase, an: Analysis, dialect: DialectFormatting, chat_content: tuple[bool, ...]
) -> _Head:
    """_explanation_head's tuple; `chat_content`: per kept message, whether it has content for chatPrompt."""
    by_index = {m.index: m for m in case.messages}
    rule = _rule(an.non_user, an.visible)
    if rule == "non-user turn":
        first = by_index[an.non_user[0]]
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
    elif rule == "several visible turns":
        trigger = list(an.visible)
        summary = f"Role markers: {len(an.visible)} messages have visible content"
        evidence = [
            "Markers are used when more than one message has visible content after guideline extraction: "
            + ", ".join(_msg_label(by_index[i]) for i in an.visible)
            + "."
        ]
    elif rule == "single visible turn":
        trigger = list(an.visible)
        summary = f"Flat: only {_msg_label(by_index[an.visible[0]])} has visible content"
        evidence = [
            "No assistant or tool message, and exactly one message has visible content after guideline "
            "extraction, so the question is flat (no role markers)."
        ]
    else:
        trigger = []
        summary = "Flat: no message has visible content"
        evidence = ["No assistant or tool message and no message with visible content: the question is flat."]
    evidence = dialect.rule_wording(evidence)
    if not an.uses_markers:
        evidence += dialect.flat_evidence(an)
        evidence.append("chatPrompt is null in the agentv profile: it exists only when role markers are used.")
    else:
        lead = leading_system_count(an.kept)
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
    evidence += dialect.closing_evidence(case, an)

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
            elif chat_content[pos]:
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
