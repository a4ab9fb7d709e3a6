"""AgentV 4.42.4's formatting rules, the pipeline's strategy for `agentv-4` files (prompts/engine.py): every text
and read file of a message is a part (no guidelines, no code appendix, blank texts kept inside a content list), the
agent-mode file tag names the resolved absolute path, `systemMessage` is the leading system messages' text flat or
not, and the default grader's prompt is 4.42.4's. The loading side is evals/agentv4.py.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import cast, overload

from turnlens.formatting.jsstr import js_blank, js_trim
from turnlens.formatting.model import (
    DialectLabels,
    EvalCase,
    EvalFile,
    EvaluatorPrompt,
    Message,
    Rendered,
    Segment,
    SegmentFate,
)
from turnlens.formatting.prompts.parts import (
    Analysis,
    LmFile,
    Part,
    agent_file,
    dropped_fates,
    file_line_count,
    leading_system_count,
    line_count,
    lm_file_format,
    made,
    marked,
    marker_rule,
    not_a_string,
    outside_root,
    same_rendered,
    system_text,
)
from turnlens.formatting.wording import plural


class Formatting:
    """AgentV 4.42.4's side of the formatting pipeline (parts.DialectFormatting)."""

    def __init__(self, labels: DialectLabels):
        self.labels = labels

    skips_images = True

    def analyse(self, case: EvalCase, eval_file: EvalFile, design: bool) -> Analysis:
        return _analyse(case, design)

    def turns(self, case: EvalCase, eval_file: EvalFile) -> tuple[list[int], list[int]]:
        # (_analyse's evidence without the rendered parts: a quarter of its time, for each row of a 50,000-test list)
        kept = [m for m in case.messages if m.dropped is None]
        _markers, non_user, visible = marker_rule(kept, [_visible(m) for m in kept])
        return non_user, visible

    def render(self, an: Analysis) -> tuple[Rendered, Rendered]:
        return _render(an, self.labels)

    def default_prompt(self, case: EvalCase, question: str) -> str:
        return grader_prompt(case.criteria or "", question, case.reference_answer)

    def own_prompts(
        self, case: EvalCase, an: Analysis, question: str, default_prompt: Callable[[], str]
    ) -> list[EvaluatorPrompt] | None:
        return None

    def chat_content(self, an: Analysis) -> tuple[bool, ...]:
        # (a 4.x message has no guideline references, and renders one agent-mode text per part)
        return tuple(map(bool, an.agent_texts))

    def flat_evidence(self, an: Analysis) -> list[str]:
        return [
            "The flat question is every segment of every message, each trimmed, joined by a blank line (AgentV 4 "
            "appends no code blocks and has no guidelines)."
        ]

    def rule_wording(self, evidence: list[str]) -> list[str]:
        return [e.replace(" after guideline extraction", "") for e in evidence]

    def closing_evidence(self, case: EvalCase, an: Analysis) -> list[str]:
        lead = leading_system_count(an.kept)
        evidence = [
            (
                "systemMessage: the leading system message, computed flat or not."
                if lead == 1
                else f"systemMessage: the leading {lead} system messages, computed flat or not."
            )
            if lead
            else "systemMessage is null: the messages do not start with a system message."
        ]
        if case.suite_input_count:
            which = "Message 1 comes" if case.suite_input_count == 1 else f"Messages 1–{case.suite_input_count} come"
            evidence.append(
                f"{which} from the suite's `input` (prepended to every test without execution.skip_defaults)."
            )
        return evidence

    def case_evidence(self, case: EvalCase) -> list[str]:
        evidence = [f"Interpolation: {n}" for n in case.interpolations] if case.interpolations else []
        if case.assertions:
            evidence.append(
                f"The test has {plural(len(case.assertions), 'grader')} of its own, so AgentV does not run the default "
                "grader: its prompt is shown for reference."
            )
        return evidence

    def segment_fates(self, case: EvalCase, an: Analysis) -> list[SegmentFate]:
        return _segment_fates(case, an)


GRADER_TEMPLATE_HEAD = (
    "You are an expert grader. Your goal is to grade the answer based on how well it achieves the criteria for the "
    "original task.\n\n"
    "Use the reference_answer as a gold standard for a high-quality response (if provided). The reference_answer may "
    "be a simple text response, or it may contain a sequence of expected agent messages including tool calls. When "
    "it contains multiple messages, the last message represents the final expected answer. The answer does not need "
    "to match it verbatim, but should capture the key points and follow the same spirit.\n\n"
    "Be concise and focused in your evaluation. Provide succinct, specific feedback rather than verbose "
    "explanations.\n\n"
)


def grader_prompt(criteria: str, question: str, reference_answer: str, answer: str = "") -> str:
    """AgentV 4's default grader user prompt (each value trimmed, substituted once, never re-scanned)."""
    return (
        f"{GRADER_TEMPLATE_HEAD}[[ ## criteria ## ]]\n{js_trim(criteria)}\n\n"
        f"[[ ## question ## ]]\n{js_trim(question)}\n\n"
        f"[[ ## reference_answer ## ]]\n{js_trim(reference_answer)}\n\n"
        f"[[ ## answer ## ]]\n{js_trim(answer)}"
    )


def _visible(message: Message) -> bool:
    """Whether the message has visible content (the marker rule's evidence): a text or a read file that is not blank.
    The one statement of the rule: the case list's rows (Formatting.turns) and the analysis (_analyse) both ask it."""
    for seg in message.segments:
        kind = seg.type
        if kind == "text":
            if seg.value and not js_blank(seg.value):
                return True
        elif kind == "file" and seg.text is not None and not js_blank(seg.text):
            return True
    return False


def _parts(message: Message, with_parts: bool = True) -> tuple[list[Part], list[str | LmFile], list[str | LmFile]]:
    """AgentV 4's segments of one message: every text (blank ones too, except a blank string content) and every file
    that was read; images and unknown types render as nothing. Also the parts rendered in lm and in agent mode, made
    in the same walk; the parts themselves only `with_parts`."""
    parts: list[Part] = []
    lm: list[str | LmFile] = []
    agent = lm
    for seg in message.segments:
        kind = seg.type
        if kind == "text":
            value = seg.value
            # an empty text formats to nothing and leaves no line; a blank one is kept inside a content list
            if not value:
                continue
            if message.content_is_string and js_blank(value):
                continue
            if with_parts:
                parts.append(Part("text", value, None, seg.index))
            lm.append(value)
            if agent is not lm:
                agent.append(value)
        elif kind == "file" and seg.text is not None:
            text = seg.text
            path = seg.display_path or ""
            agent_path = seg.resolved_path or ""
            if with_parts:
                parts.append(Part("file", path, text, seg.index, agent_path))
            if agent is lm:  # the two modes part here
                agent = lm.copy()
            agent.append(agent_file(agent_path or path))
            if text:
                lm.append(LmFile(path, text))
    return parts, lm, agent


def _analyse(case: EvalCase, with_parts: bool = True) -> Analysis:
    """`with_parts`: keep each message's parts (Analysis.parts), which only the design profile needs."""
    kept = [m for m in case.messages if m.dropped is None]
    parts = []
    flags = []
    lm_all: list[list[str | LmFile]] = []
    agent_all: list[list[str | LmFile]] = []
    with_files = False
    lead = 0  # leading_system_count, found in the same walk
    for m in kept:
        message_parts, lm, agent = _parts(m, with_parts)
        flag = _visible(m)
        if with_parts:
            parts.append(message_parts)
        flags.append(flag)
        lm_all.append(lm)
        agent_all.append(agent)
        if agent is not lm:
            with_files = True
        if m.role == "system" and lead == len(lm_all) - 1:  # still in the leading run of system messages
            lead += 1
    markers, non_user, visible = marker_rule(kept, flags)
    return Analysis(
        kept,
        parts,
        [],
        [],
        [],
        markers,
        non_user,
        visible,
        flags,
        lead,
        lm_all,
        agent_all,
        with_files,
        *_Bodies.of(lm_all, agent_all),
    )


class _Bodies(Sequence[str]):
    """Each kept message's rendered parts joined by a line feed into its body, joined when first asked for: the flat
    question is made from the parts, so only role markers and the systemMessage want bodies (a 20 MB attachment's
    was a copy made for nothing)."""

    def __init__(self, texts: list[list[str | LmFile]], joined: dict[int, str]) -> None:
        self._texts = texts
        self._joined = joined  # by id of a message's parts: lm and agent mode share the body of a message without files

    @staticmethod
    def of(lm_all: list[list[str | LmFile]], agent_all: list[list[str | LmFile]]) -> tuple[_Bodies, _Bodies]:
        joined: dict[int, str] = {}
        return _Bodies(lm_all, joined), _Bodies(agent_all, joined)

    def __len__(self) -> int:
        return len(self._texts)

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> list[str]: ...

    def __getitem__(self, index: int | slice) -> str | list[str]:
        if isinstance(index, slice):
            return [self[n] for n in range(*index.indices(len(self._texts)))]
        texts = self._texts[index]
        body = self._joined.get(id(texts))
        if body is None:
            body = self._joined[id(texts)] = "\n".join(map(made, texts))
        return body


def _flat_question(rendered: Sequence[Sequence[str | LmFile]]) -> str:
    """AgentV 4: every segment of every message, formatted, trimmed, the empty ones dropped, joined by a blank line;
    no code appendix. Made by one format, a file's block in place (one copy of a 20 MB attachment)."""
    forms: list[str] = []
    values: list[object] = []
    for texts in rendered:
        for chunk in texts:
            if isinstance(chunk, LmFile):  # (never blank at its ends: `<file …>` … `</file>`)
                form, file_values = lm_file_format(chunk.path, chunk.text)
                forms.append(form)
                values += file_values
                continue
            chunk = js_trim(chunk)
            if chunk:
                forms.append("{}")
                values.append(chunk)
    return "\n\n".join(forms).format(*values)


def _render(an: Analysis, labels: DialectLabels) -> tuple[Rendered, Rendered]:
    """AgentV 4 in the agentv profile, lm and agent mode at once."""
    lm = _rendered(an, an.lm_texts, an.lm_bodies, labels)
    if not an.with_files:
        return lm, same_rendered(lm)
    return lm, _rendered(an, an.agent_texts, an.agent_bodies, labels)


def _rendered(
    an: Analysis, rendered: Sequence[Sequence[str | LmFile]], bodies: Sequence[str], labels: DialectLabels
) -> Rendered:
    if an.uses_markers:
        question, chat, system = marked(an, "", "lm", bodies, refs=False)
        return Rendered(question, "", chat or None, system or None, labels)
    return Rendered(_flat_question(rendered), "", None, system_text(an, bodies) or None, labels)


def _segment_fates(case: EvalCase, an: Analysis) -> list[SegmentFate]:
    fates: list[SegmentFate] = []
    lead, flags = an.lead, an.visible_flags
    pos = 0  # the message's position among the kept ones
    for message in case.messages:
        if message.dropped is not None:
            fates += dropped_fates(message)
            continue
        sent = flags[pos] or pos < lead
        pos += 1
        for seg in message.segments:
            fate = _segment_fate(message, seg, sent)
            if seg.outside_root:
                fate = outside_root(fate, seg)
            fates.append(fate)
    return fates


def _segment_fate(message: Message, seg: Segment, sent: bool) -> SegmentFate:
    """What AgentV 4 made of one segment (`sent`: its message is visible or a leading system message)."""
    m, i = message.index, seg.index
    if seg.type == "text":
        value = seg.value
        if value is None:
            return SegmentFate(m, i, "unknown type dropped", not_a_string(seg))
        if not js_blank(value):
            return SegmentFate(
                m, i, "text kept", f"{line_count(value)} ({seg.origin})" if seg.origin else line_count(value)
            )
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
    detail = _embedded_detail(cast(str, seg.display_path), seg.resolved_path, seg.text, origin)  # (set with it)
    return SegmentFate(m, i, "file embedded", detail, path)


def file_tags(display_path: str, resolved_path: str) -> tuple[str, str]:
    """How AgentV 4 names an embedded file in the lm question and in the agent question (an absolute path)."""
    return f'<file path="{display_path}">', f'<file: path="{resolved_path}">'


def file_tags_where(display_path: str, resolved_path: str) -> str:
    """Both tags as an embedded file's detail names them (the UI shows the one of the mode on screen instead)."""
    lm_tag, agent_tag = file_tags(display_path, resolved_path)
    return f"lm: {lm_tag}, agent: {agent_tag}"


def _embedded_detail(display_path: str, resolved_path: str, text: str, origin: str) -> str:
    """The detail of an embedded file (its line count cached: a suite embeds the same few files in thousands of
    tests)."""
    where = file_tags_where(display_path, resolved_path)
    if not text:
        return f"{display_path} is empty: nothing in lm mode; {where}{origin}"
    if js_blank(text):
        return f"{display_path} is blank: not visible; {where}{origin}"
    return f"{file_line_count(text)}; {where}{origin}"
