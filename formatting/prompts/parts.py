"""What both dialects' formatting is made of (prompts/engine.py runs the pipeline, prompts/agentv015.py and
prompts/agentv4.py hold each dialect's rules): the format-time parts of a message, a case's analysis, the marker
rule, the marked question with the agentv chatPrompt, the design profile's chatPrompt, the evaluator's fallback
question, and the pieces of a segment's fate. `DialectFormatting` is what the engine asks of a dialect.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import NamedTuple, Protocol, cast

from turnlens.formatting.jsstr import JS_WHITESPACE, js_blank, js_json, js_trim
from turnlens.formatting.model import (
    ChatMessage,
    DialectLabels,
    EvalCase,
    EvalFile,
    EvaluatorPrompt,
    Message,
    Mode,
    Rendered,
    Segment,
    SegmentFate,
    SegmentFateKind,
)


def role_marker(role: str) -> str:
    marker = _ROLE_MARKERS.get(role)
    if marker is None:
        marker = f"@[{role[:1].upper()}{role[1:]}]:"
        if len(_ROLE_MARKERS) < 64:
            _ROLE_MARKERS[role] = marker
    return marker


_ROLE_MARKERS: dict[str, str] = {}


@dataclass(slots=True)
class Part:
    """A segment as the format stage sees it."""

    kind: str  # "text" | "file" | "ref"
    value: str  # text, or the path as written
    text: str | None  # file contents for "file"
    segment_index: int
    agent_path: str = ""  # the path agent mode names: as written (0.15), the resolved absolute path (4.x)


def _chat_parts(parts: list[Part], mode: Mode) -> list[str]:
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


def _render_part(part: Part, mode: Mode, design: bool = False) -> str:
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


def _has_kind(parts: list[Part], kind: str) -> bool:
    # (loops rather than any() over a generator: asked for every message of every case)
    for p in parts:
        if p.kind == kind:
            return True
    return False


def has_other_than_refs(parts: list[Part]) -> bool:
    for p in parts:
        if p.kind != "ref":
            return True
    return False


@dataclass(slots=True)
class Analysis:
    """A case's messages taken apart once for formatting: what the reference keeps, and their pieces."""

    kept: list[Message]  # messages the reference keeps, in order
    # format-time parts, per kept message (4.x: made only for the design profile, which renders them again; the agentv
    # profile renders from `texts`)
    parts: list[list[Part]]
    flat_segments: list[Segment]  # load-time (text | non-guideline file) segments, in order
    code_snippets: list[str]
    guideline_segments: list[Segment]  # load-time guideline segments, in order
    uses_markers: bool
    non_user: list[int]  # message indexes (as written) of assistant/tool turns
    visible: list[int]  # message indexes (as written) with visible content at format time
    visible_flags: list[bool]  # per kept message
    lead: int = 0  # how many kept messages lead with the system role
    # agentv-4, made by agentv4.py's analysis with the parts: each kept message's parts rendered in lm and in agent
    # mode and joined into its body (an agent list is the lm one where no file makes them differ), and whether a
    # file does
    lm_texts: Sequence[Sequence[str | LmFile]] = ()
    agent_texts: Sequence[Sequence[str | LmFile]] = ()
    with_files: bool = False
    lm_bodies: Sequence[str] = ()
    agent_bodies: Sequence[str] = ()
    # agentv-0.15: the `guidelines` text, the guideline patterns and the repository root the case was read with
    guidelines: str = ""
    patterns: tuple[str, ...] = ()
    repo_root: str = "/"


def marker_rule(kept: list[Message], flags: list[bool]) -> tuple[bool, list[int], list[int]]:
    """Whether the question carries role markers (a non-user turn, or more than one turn with visible content), with
    the evidence: the non-user turns and the visible ones. `flags`: each kept message's visibility. The one statement
    of which turns are non-user turns: both dialects' analyses and a list row's evidence (Formatting.turns) ask it."""
    non_user = []
    visible = []
    for m, flag in zip(kept, flags):
        if flag:
            visible.append(m.index)
        if m.role == "assistant" or m.role == "tool":
            non_user.append(m.index)
    return uses_markers(non_user, visible), non_user, visible


def uses_markers(non_user: list[int], visible: list[int]) -> bool:
    """The marker rule itself, given its evidence (marker_rule)."""
    return bool(non_user) or len(visible) > 1


def system_text(an: Analysis, bodies: Sequence[str]) -> str:
    """The leading system messages' bodies, the empty ones left out (no visibility check): AgentV 4's
    systemMessage (None when empty), and the leading system message of the agentv chatPrompt (after the guidelines)
    in both dialects."""
    return "\n\n".join([body for body in bodies[: an.lead] if body])


def leading_system_count(kept: list[Message]) -> int:
    n = 0
    while n < len(kept) and kept[n].role == "system":
        n += 1
    return n


def marked(
    an: Analysis, guidelines: str, mode: Mode, bodies: Sequence[str], refs: bool = True
) -> tuple[str, list[ChatMessage], str]:
    """The marked question, the agentv chatPrompt and system_text, in one walk over the kept messages. `refs`: the
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


def design_chat(an: Analysis, guidelines: str, mode: Mode) -> list[ChatMessage]:
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


def agent_file(path: str) -> str:
    return f'<file: path="{path}">'


_TRIM_SCAN = 64  # white space characters looked at one by one at a file's end before js_trim does it


def lm_file(path: str, text: str) -> str:
    """`<file path="…">`, the file's text trimmed, `</file>`."""
    form, values = lm_file_format(path, text)
    return form.format(*values)


def lm_file_format(path: str, text: str) -> tuple[str, tuple[object, ...]]:
    """lm_file as a format string and its values: made in one copy of the text when it starts with no white space
    (str.format's precision leaves the end off; js_trim first copied the text once more for a file that ends with a
    line feed, as most do: tens of ms for a 20 MB attachment), and in the same copy as what it is formatted into."""
    end, floor = len(text), max(0, len(text) - _TRIM_SCAN)
    while end > floor and text[end - 1] in JS_WHITESPACE:
        end -= 1
    if end and (text[0] in JS_WHITESPACE or text[end - 1] in JS_WHITESPACE):  # at its start, or a long run at its end
        return "{}", (f'<file path="{path}">\n{js_trim(text)}\n</file>',)
    return '<file path="{}">\n{:.{}}\n</file>', (path, text, end)


class LmFile(NamedTuple):
    """A read file in a message's parts rendered in lm mode, left for whoever joins them to make (lm_file): the flat
    question formats it in place (lm_file_format), one copy of a 20 MB attachment where making it first was two."""

    path: str
    text: str


def made(part: str | LmFile) -> str:
    """A rendered part as a string."""
    return part if isinstance(part, str) else lm_file(part.path, part.text)


def same_rendered(rendered: Rendered) -> Rendered:
    """Agent mode's Rendered when it equals lm mode's (no file in the case)."""
    chat = rendered.chat_prompt
    return Rendered(
        rendered.question,
        rendered.guidelines,
        None if chat is None else list(chat),
        rendered.system_message,
        rendered.labels,
    )


def evaluator_question(question: str, kept: list[Message], skip_images: bool = False) -> str:
    """The question the evaluator sees: the candidate's, or, when that is empty, the messages' loose text.

    The reference falls back to the non-blank string `value`s of every non-file entry, joined by a space; AgentV 4
    leaves image parts (`type: image`) out too (`skip_images`).
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
                and not (skip_images and seg.type == "image")
            ):
                texts.append(seg.value)
    return " ".join(texts)


def line_count(text: str) -> str:
    if "\n" not in text:  # (most texts: one line)
        return "1 line" if text else "0 lines"
    n = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
    return _LINE_COUNTS[n] if n < 64 else f"{n} lines"


# (line_count is asked for every text segment of every case: the usual counts are made once)
_LINE_COUNTS = [f"{n} line{'s' if n != 1 else ''}" for n in range(64)]


# id(text) -> (text, its line_count): the text is held, so its id is not another's while it is here
_file_line_counts: dict[int, tuple[str, str]] = {}


def file_line_count(text: str) -> str:
    """line_count of a file's text, counted once per text read: an eval file embeds the same few files in thousands
    of cases, each given the same string. Cached by identity: hashing a 20 MB attachment to look it up in an
    lru_cache cost as much as counting its lines."""
    hit = _file_line_counts.get(id(text))
    if hit is not None and hit[0] is text:
        return hit[1]
    if len(_file_line_counts) >= 1024:
        _file_line_counts.clear()
    count = line_count(text)
    _file_line_counts[id(text)] = (text, count)
    return count


def not_a_string(seg: Segment) -> str:
    shown = js_json(seg.raw) if seg.raw is not None else "null"
    return f"the value is not a string (YAML reads {shown}); AgentV ignores it — quote it to send it as text"


def dropped_fates(message: Message) -> list[SegmentFate]:
    dropped = cast(str, message.dropped)
    fate: SegmentFateKind = "not a mapping" if "not a mapping" in dropped else "unknown type dropped"
    return [
        SegmentFate(message.index, seg.index, fate, f"lost with its message ({dropped})", seg.value)
        for seg in message.segments
    ]


def outside_root(fate: SegmentFate, seg: Segment) -> SegmentFate:
    return replace(fate, detail=f"{fate.detail}; outside the repository root ({seg.resolved_path})")


class DialectFormatting(Protocol):
    """One dialect's side of the formatting pipeline (prompts/engine.py): what it keeps of a case, how it renders
    the agentv profile, the default grader's or evaluator's prompt, and its words in the explanation."""

    labels: DialectLabels  # the dialect's, given to every Rendered it makes
    # the loose-text fallback of the evaluator's question leaves image parts out (evaluator_question)
    skips_images: bool

    def analyse(self, case: EvalCase, eval_file: EvalFile, design: bool) -> Analysis:
        """The case's kept messages, parts and marker-rule evidence; `design`: the design profile will render the
        parts again."""
        ...

    def turns(self, case: EvalCase, eval_file: EvalFile) -> tuple[list[int], list[int]]:
        """The marker rule's evidence alone, as `analyse` finds it: the indexes of the kept messages that are
        non-user turns, and of those with visible content (a list's row shows the rule; the texts the prompts are
        rendered from are left out: a 20 MB attachment copied three times for a row's badge)."""
        ...

    def render(self, an: Analysis) -> tuple[Rendered, Rendered]:
        """The agentv profile's lm and agent mode."""
        ...

    def default_prompt(self, case: EvalCase, question: str) -> str:
        """The default grader's (4.x) or evaluator's (0.15) user prompt for `question` and an empty answer."""
        ...

    def own_prompts(
        self, case: EvalCase, an: Analysis, question: str, default_prompt: Callable[[], str]
    ) -> list[EvaluatorPrompt] | None:
        """The prompts of the case's own evaluators, when the engine makes them (0.15; None when it declares
        none; `default_prompt` makes the default one). A 4.x test's graders are graders/prompts.py's."""
        ...

    def chat_content(self, an: Analysis) -> tuple[bool, ...]:
        """Per kept message: whether it has content for chatPrompt (besides guideline references)."""
        ...

    def flat_evidence(self, an: Analysis) -> list[str]:
        """How the flat question is built, for the explanation (before the shared chatPrompt line)."""
        ...

    def rule_wording(self, evidence: list[str]) -> list[str]:
        """The marker rule's evidence in this dialect's words."""
        ...

    def closing_evidence(self, case: EvalCase, an: Analysis) -> list[str]:
        """The explanation's last lines of evidence shared by cases of a shape (after dropped messages)."""
        ...

    def case_evidence(self, case: EvalCase) -> list[str]:
        """The explanation's lines that are this case's own, after its notes."""
        ...

    def segment_fates(self, case: EvalCase, an: Analysis) -> list[SegmentFate]:
        """What became of every segment of every message."""
        ...
