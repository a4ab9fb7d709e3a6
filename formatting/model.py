"""Plain data the engine hands out: no behaviour beyond small conveniences.

Everything here is a frozen-ish dataclass of strings, ints and lists so that the
TUI, the exporter and the tests can consume it without knowing how it was made.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Mode = Literal["lm", "agent"]
Profile = Literal["agentv", "design"]
MODES: tuple[Mode, ...] = ("lm", "agent")
PROFILES: tuple[Profile, ...] = ("agentv", "design")

Severity = Literal["error", "warning", "info"]


@dataclass(frozen=True)
class Diagnostic:
    """A problem found in an input file, always with the file and, where known, the line (1-based)."""

    file: str
    line: int | None
    message: str
    severity: Severity = "warning"

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{where}: {self.message}"


# What became of one content segment of one message, for the explanation.
SegmentFateKind = Literal[
    "text kept",
    "blank dropped",
    "file embedded",
    "file missing",
    "file unreadable",
    "guideline extracted",  # load time: went to `guidelines`, left the segments
    "guideline marked",  # format time: became <Attached: path> in its turn
    "reference not matched",  # format time: path as written did not match a loaded file, so the turn lost it
    "unknown type dropped",
    "not a mapping",  # a non-mapping entry: the reference drops the whole message
]


@dataclass
class Segment:
    """One entry of a message's content, as written, with what loading made of it."""

    index: int  # position in the message's content list (0 for a plain string content)
    type: str  # "text", "file", or whatever the author wrote ("image", "", ...)
    value: str | None  # the text, or the file path as written; None when not a string
    line: int | None = None
    # files only
    resolved_path: str | None = None  # absolute path found, None when missing
    display_path: str | None = None  # path relative to the repo root as the reference shows it
    text: str | None = None  # file contents, CRLF -> LF
    is_guideline: bool = False  # matched guideline_patterns at load time (relative to repo root)
    tried: list[str] = field(default_factory=list)  # absolute paths tried, when missing
    raw: object = None  # the entry's `value` when it is not a string (for the explanation)


@dataclass
class Message:
    index: int
    role: str
    line: int | None
    content_is_string: bool
    segments: list[Segment]
    dropped: str | None = None  # why the reference drops this message entirely, else None


@dataclass
class EvalCase:
    index: int  # position in `evalcases`
    id: str | None  # as written (None when missing or not a string)
    line: int | None
    file: str  # eval file path (as given)
    outcome: str | None = None
    messages: list[Message] = field(default_factory=list)
    expected_messages: list[Message] = field(default_factory=list)
    reference_answer: str = ""
    guideline_paths: list[str] = field(default_factory=list)  # absolute, in load order (export makes them relative)
    skipped: str | None = None  # reason the reference skips the case
    diagnostics: list[Diagnostic] = field(default_factory=list)
    raw: object = None  # the case mapping as parsed (plain dict/list/str)


@dataclass
class GuidelineConfig:
    path: str | None  # the config file used, None when none found
    patterns: list[str]
    diagnostics: list[Diagnostic] = field(default_factory=list)


@dataclass
class EvalFile:
    path: str  # as given
    abs_path: str
    repo_root: str
    config: GuidelineConfig
    cases: list[EvalCase] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)  # file-level warnings
    error: Diagnostic | None = None  # the file was refused: no cases
    watched_paths: set[str] = field(default_factory=set)  # eval file, config, every referenced file (absolute)


@dataclass(frozen=True)
class ChatMessage:
    role: str
    content: str

    def to_json(self) -> dict:
        return {"role": self.role, "content": self.content}


@dataclass
class Rendered:
    """What one mode/profile produces for a case."""

    question: str
    guidelines: str
    chat_prompt: list[ChatMessage] | None

    def to_json(self) -> dict:
        return {
            "question": self.question,
            "guidelines": self.guidelines,
            "chatPrompt": None if self.chat_prompt is None else [m.to_json() for m in self.chat_prompt],
        }


RuleKind = Literal["non-user turn", "several visible turns", "single visible turn", "no visible content"]


@dataclass
class SegmentFate:
    message_index: int
    segment_index: int
    fate: SegmentFateKind
    detail: str  # one human sentence, e.g. "embedded as <file path=\"a.py\"> (12 lines)"
    path: str | None = None


@dataclass
class MessageFate:
    message_index: int
    role: str
    visible: bool  # counts as a visible turn for the marker rule
    in_question: bool  # contributes a turn to the marked question (or text to the flat one)
    chat_role: str | None  # role it gets in the agentv chatPrompt, None when absent
    note: str  # e.g. "merged into the leading system message", "dropped: no content left"


@dataclass
class Explanation:
    rule: RuleKind
    uses_markers: bool
    summary: str  # one line: "Markers: message 3 (assistant) is a non-user turn"
    evidence: list[str]  # further lines backing the summary
    trigger_messages: list[int]  # message indexes that made the rule fire
    visible_messages: list[int]
    messages: list[MessageFate]
    segments: list[SegmentFate]

    def to_json(self) -> dict:
        return {
            "rule": self.rule,
            "uses_markers": self.uses_markers,
            "summary": self.summary,
            "evidence": list(self.evidence),
            "trigger_messages": list(self.trigger_messages),
            "visible_messages": list(self.visible_messages),
            "messages": [vars(m).copy() for m in self.messages],
            "segments": [vars(s).copy() for s in self.segments],
        }


@dataclass
class FormattedCase:
    case: EvalCase
    profile: Profile
    lm: Rendered
    agent: Rendered
    evaluator_prompt: str  # default evaluator user prompt for the lm question, empty candidate answer
    explanation: Explanation

    def rendered(self, mode: Mode | str) -> Rendered:
        return self.lm if mode == "lm" else self.agent
