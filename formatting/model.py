"""Plain data the engine hands out: no behaviour beyond small conveniences.

Everything here is a frozen-ish dataclass of strings, ints and lists so that the
TUI, the exporter and the tests can consume it without knowing how it was made.
Each has a docstring: without one @dataclass writes one with inspect.signature, at every start.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal, TypedDict

# Defined apart (records.py) so that reading a results file does not build this module's dataclasses; the same
# classes, named here too.
from turnlens.formatting.records import ChatMessage as ChatMessage
from turnlens.formatting.records import Diagnostic as Diagnostic
from turnlens.formatting.records import JsonObject

Mode = Literal["lm", "agent"]
Profile = Literal["agentv", "design"]
MODES: tuple[Mode, ...] = ("lm", "agent")
PROFILES: tuple[Profile, ...] = ("agentv", "design")


@dataclass(frozen=True, slots=True)
class DialectLabels:
    """A dialect's name and what the UI says about it and which of its views apply, read off the data
    (EvalFile.labels, Rendered.labels, FormattedCase.labels) so that nothing outside formatting/dialects/ compares
    dialect names. Each dialect's are in its module there (formatting/dialects/registry.py lists them)."""

    name: str  # as --dialect takes it and export rows give it: `agentv-0.15`, `agentv-4`
    tag: str  # short, for a file's heading in the case list
    title: str  # the format as people name it
    system_field: str  # what the provider receives beside `question` (and `chatPrompt`)
    # files matching the guideline patterns are sent as `guidelines` (the config explains them); a Rendered then has
    # `question`, `guidelines`, `chatPrompt`, else `question`, `chatPrompt`, `systemMessage`
    guidelines: bool
    default_prompt: str  # the name of the prompt that grades a case without graders or evaluators of its own
    # graded by AgentV 4 graders (`criteria`, `expected_output`, `assertions`; prompts in lm and in agent mode); else
    # by 0.15 evaluators (`outcome`, `expected_messages`, `evaluators`; the lm question)
    graders: bool


# The labels of what no dialect read: a refused file, a chatPrompt shown from a results file's recorded request.
UNREAD = DialectLabels("", "", "", "guidelines", True, "", False)


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
    # agentv-4
    "blank kept",  # a whitespace-only text inside a visible message or the leading system messages is sent as is
    "image not rendered",  # an image segment goes to the provider as data, never into the question
]


@dataclass(slots=True)
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
    tried: Sequence[str] = ()  # absolute paths tried, when missing (a tuple by default: no list made per segment)
    outside_root: bool = False  # resolved (symbolic links followed) outside the repository root: read all the same
    raw: object = None  # the entry's `value` when it is not a string (for the explanation)
    # agentv-4 only: where the segment came from when it was not written in the message itself:
    # "input_files" (the test's own list), "suite input_files" (the suite default), "string item" (a bare string in
    # a content array), "object content" (a mapping written as `content`, sent as its JSON). None otherwise.
    origin: str | None = None


@dataclass(slots=True)
class Message:
    """One input or expected message, as written, with its segments."""

    index: int
    role: str
    line: int | None
    content_is_string: bool
    segments: list[Segment]
    dropped: str | None = None  # why the reference drops this message entirely, else None
    # agentv-4: the message comes from the suite's `input` (prepended to every test without skip_defaults)
    from_suite: bool = False


@dataclass
class GraderPrompt:
    """agentv-4: where an llm-grader's prompt comes from, as AgentV reads its `prompt:`.

    kind: "default" (no `prompt:`: the default template with the test's criteria), "criteria" (a string without
    template variables: AgentV uses it as the criteria), "template" (a string with template variables: the whole
    user prompt), "file" (`file://…`: the file's text is the template), "script" (`prompt: {command: […]}`: a script
    prints it at run time)."""

    kind: str
    text: str | None = None  # the string as written, or the file's text
    path: str | None = None  # the file or script, absolute


@dataclass
class Grader:
    """agentv-4: one grader of a test as AgentV parses it (`assertions`, deprecated `assert`/`evaluators`/`rubrics`,
    suite assertions, `include:` templates expanded), in AgentV's order.

    A test with graders does not run the default grader.
    """

    name: str  # as written, or AgentV's default name (e.g. "rubrics", "contains-4", the type)
    type: str  # as written, "-" for "_" (e.g. "llm-grader", "contains", "rubrics" for string assertions grouped)
    weight: float | None  # as written; string assertions grouped into rubrics weigh their count
    line: int | None
    from_suite: bool = False  # appended from the suite's `assertions`
    detail: str = ""  # one line: the value, the rubric items, the prompt file…
    raw: object = None  # the definition as written (plain data)
    kind: str = ""  # the type AgentV records in a run's scores[] ("llm-grader" for rubrics); "" when unknown
    required: object = None  # True, or a deprecated number (0, 1]; None when not required
    min_score: float | None = None
    negate: bool = False
    # what else AgentV keeps of the definition and that decides a verdict (value, mode, expected, command, aggregator,
    # rubrics, threshold, config…), plain data with AgentV's keys
    settings: JsonObject = field(default_factory=dict)
    members: list[Grader] = field(default_factory=list)  # a composite's graders
    prompt: GraderPrompt | None = None  # an llm-grader's prompt
    script_path: str | None = None  # a code grader's script, or the file defining a custom assertion type (absolute)
    included_from: str | None = None  # the `include:` template file it came from (absolute)

    @property
    def recorded_type(self) -> str:
        return self.kind or self.type


@dataclass
class EvaluatorPrompt:
    """agentv-0.15: the user prompt one of a case's own `evaluators` sends (None for a `code` evaluator)."""

    name: str
    type: str
    prompt: str | None

    def to_json(self) -> JsonObject:
        return {"name": self.name, "type": self.type, "prompt": self.prompt}


class CaseEvaluator(TypedDict):
    """agentv-0.15: one of a case's own `evaluators`, as 0.15.1 keeps it."""

    name: str
    type: Literal["llm_judge", "code"]
    template: str | None  # an llm_judge's prompt template (None: the default one)
    source: str | None  # the file the template was read from


@dataclass(slots=True)
class EvalCase:
    """One case (0.15) or test (4.x) as loaded: its messages, what the grader gets, and why it is skipped."""

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
    # the mapping's `id` as parsed, whatever its type (1042, true; None when missing or not a mapping): names a case
    # whose id is not a string. Not the whole mapping: kept for every case of a loaded file, it was a third of it.
    raw_id: object = None
    # --- agentv-0.15: the case's own `evaluators`, as 0.15.1 keeps them (None when it declares none)
    evaluators: list[CaseEvaluator] | None = None
    # --- agentv-4 (see formatting/evals/agentv4.py); defaults for agentv-0.15 cases
    # `criteria` (or deprecated `expected_outcome`) after interpolation; for agentv-0.15, `outcome` is used instead
    criteria: str | None = None
    # `expected_output` as messages (the grader's reference answer is the last one); shown as written
    expected_output: list[Message] = field(default_factory=list)
    # graders with type and weight; non-empty means the default grader does not run for this test
    assertions: list[Grader] = field(default_factory=list)
    # how many of `messages` were prepended from the suite's `input` (they come first, with from_suite=True)
    suite_input_count: int = 0
    # one sentence per `${{ VAR }}` / `{{ var }}` replacement that changed what the test sends or is graded on
    interpolations: list[str] = field(default_factory=list)
    # where the test came from when not written inline: "cases.yaml", "dataset.jsonl line 3", "evals.json"...
    source: str | None = None
    skip_defaults: bool = False  # `execution.skip_defaults: true`: suite input, input_files and assertions ignored
    # agentv-4: the test's metadata merged with the suite's (graders' {{ metadata }})
    metadata: JsonObject | None = None
    # agentv-4: run settings that decide the verdict besides the graders: depends_on, on_dependency_failure, trials,
    # threshold (the test's, else the suite's execution), as written
    run_settings: JsonObject | None = None
    # agentv-4: the mode AgentV formats the test in (its target's provider decides), and why
    agentv_mode: str | None = None
    agentv_mode_reason: str = ""
    # further lines for the explanation: suite input_files used, file references resolved, deprecated names read…
    notes: list[str] = field(default_factory=list)

    @property
    def default_grader_runs(self) -> bool:
        """AgentV runs the default grader only for a test without graders of its own."""
        return not self.assertions

    @property
    def source_file(self) -> str | None:
        """The file the test was written in when not the eval file itself ("cases.yaml" of "cases.yaml line 3"): the
        file its own graders' lines count in."""
        return self.source.split(" line ", 1)[0] if self.source else None


@dataclass
class GuidelineConfig:
    """agentv-0.15: the `.agentv/config.yaml` in force and its guideline patterns."""

    path: str | None  # the config file used, None when none found
    patterns: list[str]
    diagnostics: list[Diagnostic] = field(default_factory=list)


@dataclass
class EvalFile:
    """One loaded eval file: its cases, its warnings, or why it was refused."""

    path: str  # as given
    abs_path: str
    repo_root: str
    config: GuidelineConfig
    cases: list[EvalCase] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)  # file-level warnings
    error: Diagnostic | None = None  # the file was refused: no cases
    watched_paths: set[str] = field(default_factory=set)  # eval file, config, every referenced file (absolute)
    # the dialect the file was read in (UNREAD when refused before one was decided), and one sentence saying why (its
    # shape, or --dialect)
    labels: DialectLabels = UNREAD
    dialect_reason: str = ""
    # agentv-4: the suite's name (`name`, the sidecar's, or the file name) and description
    suite_name: str | None = None
    description: str | None = None

    @property
    def dialect(self) -> str:
        return self.labels.name


@dataclass
class Rendered:
    """What one mode/profile produces for a case.

    A dialect that sends guidelines (`labels.guidelines`, 0.15): question, guidelines, chatPrompt. Otherwise (4.x):
    question, chatPrompt and `system_message` (AgentV 4's systemMessage: the leading system messages' text, computed
    flat or not, None when there is none); `guidelines` is then always "" and is left out of `to_json`.
    """

    question: str
    guidelines: str
    chat_prompt: list[ChatMessage] | None
    system_message: str | None = None
    labels: DialectLabels = UNREAD  # the dialect that rendered it

    @property
    def dialect(self) -> str:
        return self.labels.name

    def to_json(self) -> JsonObject:
        chat = None if self.chat_prompt is None else [m.to_json() for m in self.chat_prompt]
        if self.labels.guidelines:
            return {"question": self.question, "guidelines": self.guidelines, "chatPrompt": chat}
        return {"question": self.question, "chatPrompt": chat, "systemMessage": self.system_message}


RuleKind = Literal["non-user turn", "several visible turns", "single visible turn", "no visible content"]


@dataclass
class SegmentFate:
    """What became of one segment, for the explanation."""

    message_index: int
    segment_index: int
    fate: SegmentFateKind
    detail: str  # one human sentence, e.g. "embedded as <file path=\"a.py\"> (12 lines)"
    path: str | None = None


@dataclass
class MessageFate:
    """What became of one message, for the explanation."""

    message_index: int
    role: str
    visible: bool  # counts as a visible turn for the marker rule
    in_question: bool  # contributes a turn to the marked question (or text to the flat one)
    chat_role: str | None  # role it gets in the agentv chatPrompt, None when absent
    note: str  # e.g. "merged into the leading system message", "dropped: no content left"


@dataclass
class Explanation:
    """Which marker rule fired and why, with the fate of every message and segment."""

    rule: RuleKind
    uses_markers: bool
    summary: str  # one line: "Markers: message 3 (assistant) is a non-user turn"
    evidence: list[str]  # further lines backing the summary
    trigger_messages: list[int]  # message indexes that made the rule fire
    visible_messages: list[int]
    messages: list[MessageFate]
    segments: list[SegmentFate]

    def to_json(self) -> JsonObject:
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
    """Everything the model and the grader receive for one case, in both modes, and why."""

    case: EvalCase
    profile: Profile
    lm: Rendered
    agent: Rendered
    # Makes the default evaluator's user prompt (for the lm question, an empty candidate answer) when first asked for
    # (evaluator_prompt): it copies the question, and the inspector shows it only when asked (a 20 MB attachment's
    # was a whole copy before the first case was drawn).
    make_evaluator_prompt: Callable[[], str]
    explanation: Explanation
    # agentv-0.15: the prompt of each of the case's own `evaluators` (None when it declares none)
    evaluator_prompts: list[EvaluatorPrompt] | None = None

    @property
    def evaluator_prompt(self) -> str:
        """The default evaluator's user prompt for the lm question and an empty candidate answer."""
        return self.make_evaluator_prompt()

    @property
    def dialect(self) -> str:
        return self.lm.dialect

    @property
    def labels(self) -> DialectLabels:
        return self.lm.labels

    @property
    def system_message(self) -> str | None:
        """agentv-4's systemMessage (lm mode; the same in agent mode but for file paths)."""
        return self.lm.system_message

    def rendered(self, mode: Mode | str) -> Rendered:
        return self.lm if mode == "lm" else self.agent
