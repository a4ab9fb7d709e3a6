"""AgentV 4 result rows: the fields 0.15-era rows do not have, read into plain data.

AgentV 4 writes two row shapes (both snake_case): the slim `index.jsonl` row of a finished run (`test_id`, `suite`,
`score`, `scores[]` per grader with `assertions[]` and `verdict`, `execution_status`, tokens, cost, duration, and
paths to per-test artifacts) and the full `EvaluationResult` row (streamed while a run goes on, `*.baseline.jsonl`),
which also carries `assertions`, `requests`, `input` and `output` inline. AgentV itself accepts the camelCase
spellings of the top-level keys too, so both are read here.

`fill_v4` maps such a row onto a `ResultRecord`: `test_id` → eval_id, `suite` → dataset, `output` → candidate
answer, `requests.lm/agent/evaluator` → the recorded requests, `execution_error` → error; everything else goes into
`record.v4`. Pure Python.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from turnlens.formatting.records import ChatMessage, JsonObject
from turnlens.formatting.results.fields import as_error_text, as_evaluator_request, as_number, as_request, as_text

# 4.x row keys that a 0.15-era row never has: one of them makes a row a 4.x row.
V4_KEYS = frozenset(
    {
        "test_id",
        "testId",
        "suite",
        "scores",
        "assertions",
        "execution_status",
        "executionStatus",
        "output",
        "requests",
        "cost_usd",
        "duration_ms",
        "token_usage",
        "artifact_dir",
        "grading_path",
    }
)
# top-level camelCase aliases AgentV's own reader accepts
ALIASES = {
    "testId": "test_id",
    "conversationId": "conversation_id",
    "executionStatus": "execution_status",
    "failureStage": "failure_stage",
    "failureReasonCode": "failure_reason_code",
    "executionError": "execution_error",
    "tokenUsage": "token_usage",
    "costUsd": "cost_usd",
    "durationMs": "duration_ms",
    "startTime": "start_time",
    "endTime": "end_time",
    "targetUsed": "target_used",
    "workspacePath": "workspace_path",
    "artifactDir": "artifact_dir",
    "gradingPath": "grading_path",
    "timingPath": "timing_path",
    "outputPath": "output_path",
    "answerPath": "answer_path",
    "inputPath": "input_path",
    "transcriptPath": "transcript_path",
    "responsePath": "response_path",
    "taskDir": "task_dir",
    "evalPath": "eval_path",
}
ARTIFACT_KEYS = (
    "artifact_dir",
    "grading_path",
    "timing_path",
    "output_path",
    "answer_path",
    "transcript_path",
    "input_path",
    "response_path",
    "task_dir",
    "eval_path",
    "targets_path",
    "files_path",
    "graders_path",
)

STATUS_OK = 0
STATUS_QUALITY_FAILURE = 1
STATUS_EXECUTION_ERROR = 2
STATUS_UNKNOWN = 3
_STATUS_CODES = {
    "ok": STATUS_OK,
    "quality_failure": STATUS_QUALITY_FAILURE,
    "execution_error": STATUS_EXECUTION_ERROR,
}


def is_v4_row(data: JsonObject) -> bool:
    return not ("eval_id" in data and "test_id" not in data) and any(key in data for key in V4_KEYS)


def get(data: JsonObject, key: str) -> Any:
    """`data[key]`, or its camelCase alias."""
    if key in data:
        return data[key]
    for alias, name in ALIASES.items():
        if name == key and alias in data:
            return data[alias]
    return None


def status_code(data: JsonObject) -> int:
    value = get(data, "execution_status")
    if isinstance(value, str):
        return _STATUS_CODES.get(value.strip().lower(), STATUS_UNKNOWN)
    return STATUS_UNKNOWN


def total_tokens(value: Any) -> float | None:
    """`token_usage` as one number: its total, else input + output (+ cached)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if not isinstance(value, dict):
        return None
    for key in ("total", "total_tokens", "totalTokens"):
        total = as_number(value.get(key))
        if total is not None:
            return total
    parts = [
        as_number(value.get(key))
        for key in ("input", "output", "input_tokens", "output_tokens", "inputTokens", "outputTokens")
    ]
    known = [p for p in parts if p is not None]
    return sum(known) if known else None


def failing_grader_names(data: JsonObject) -> list[str]:
    """Names of the graders whose verdict is `fail` (nested graders of a composite included)."""
    names: list[str] = []

    def walk(scores: Any, depth: int) -> None:
        if not isinstance(scores, list) or depth > 8:
            return
        for entry in scores:
            if not isinstance(entry, dict):
                continue
            if entry.get("verdict") == "fail":
                name = entry.get("name") or entry.get("type")
                if isinstance(name, str) and name not in names:
                    names.append(name)
            walk(entry.get("scores"), depth + 1)

    walk(data.get("scores"), 0)
    return names


@dataclass
class Assertion:
    text: str
    passed: bool | None  # None: not recorded
    evidence: str | None = None


@dataclass
class GraderScore:
    """One entry of `scores[]`: a grader's verdict, its assertions, its request, a composite's children."""

    name: str
    type: str
    score: float | None
    weight: float | None
    verdict: str | None  # pass | fail | skip
    assertions: list[Assertion] = field(default_factory=list)
    user_prompt: str | None = None  # scores[].input.userPrompt: the grader's recorded prompt
    system_prompt: str | None = None
    target: str | None = None
    children: list[GraderScore] = field(default_factory=list)
    details: Any = None
    duration_ms: float | None = None
    token_usage: Any = None
    raw: JsonObject = field(default_factory=dict)


@dataclass
class V4Fields:
    """What a 4.x row adds to the 0.15 fields of `ResultRecord`."""

    suite: str | None = None
    category: str | None = None
    execution_status: str | None = None
    failure_stage: str | None = None
    failure_reason_code: str | None = None
    duration_ms: float | None = None
    cost_usd: float | None = None
    tokens: float | None = None
    token_usage: Any = None
    start_time: str | None = None
    end_time: str | None = None
    assertions: list[Assertion] = field(default_factory=list)
    graders: list[GraderScore] = field(default_factory=list)
    input_messages: list[ChatMessage] | None = None  # `input`: [{role, content}]
    input_text: str | None = None  # `input` as a plain string
    has_output: bool = False  # the row carries `output` inline (a full row), even an empty one
    artifacts: dict[str, str] = field(default_factory=dict)  # artifact path fields as recorded
    experiment: str | None = None
    metadata: Any = None


def _message_content(value: Any) -> str:
    """A message's content: a string, or content parts (text parts joined, others as JSON)."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        parts = []
        for part in value:
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                parts.append(part["text"])
            elif isinstance(part, str):
                parts.append(part)
            else:
                parts.append(as_text(part) or "")
        return "\n".join(parts)
    return as_text(value) or ""


def messages(value: Any) -> list[ChatMessage] | None:
    if not isinstance(value, list):
        return None
    out = []
    for entry in value:
        if isinstance(entry, dict):
            out.append(ChatMessage(as_text(entry.get("role")) or "?", _message_content(entry.get("content"))))
        else:
            out.append(ChatMessage("?", as_text(entry) or ""))
    return out


def output_text(value: Any) -> str:
    """`output`: the final answer string; a list of messages gives its last assistant message's content."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    found = messages(value)
    if found:
        for message in reversed(found):
            if message.role == "assistant":
                return message.content
        return found[-1].content
    return as_text(value) or ""


def assertions(value: Any) -> list[Assertion]:
    out: list[Assertion] = []
    if not isinstance(value, list):
        return out
    for entry in value:
        if isinstance(entry, dict):
            passed = entry.get("passed")
            out.append(
                Assertion(
                    as_text(entry.get("text")) or "",
                    passed if isinstance(passed, bool) else None,
                    as_text(entry.get("evidence")),
                )
            )
        else:
            out.append(Assertion(as_text(entry) or "", None))
    return out


def grader_scores(value: Any, depth: int = 0) -> list[GraderScore]:
    out: list[GraderScore] = []
    if not isinstance(value, list) or depth > 8:
        return out
    for entry in value:
        if not isinstance(entry, dict):
            continue
        request: JsonObject = entry["input"] if isinstance(entry.get("input"), dict) else {}
        if not request and isinstance(entry.get("raw_request"), dict):
            request = entry["raw_request"]
        out.append(
            GraderScore(
                name=as_text(entry.get("name")) or "",
                type=as_text(entry.get("type")) or "",
                score=as_number(entry.get("score")),
                weight=as_number(entry.get("weight")),
                verdict=as_text(entry.get("verdict")),
                assertions=assertions(entry.get("assertions")),
                user_prompt=as_text(request.get("userPrompt", request.get("user_prompt"))),
                system_prompt=as_text(request.get("systemPrompt", request.get("system_prompt"))),
                target=as_text(entry.get("target")),
                children=grader_scores(entry.get("scores"), depth + 1),
                details=entry.get("details"),
                duration_ms=as_number(entry.get("duration_ms")),
                token_usage=entry.get("token_usage"),
                raw=entry,
            )
        )
    return out


def fill_v4(record: Any, data: JsonObject) -> None:
    """Map a 4.x row onto `record` (a ResultRecord): shared fields in place, the rest in `record.v4`."""
    v4 = V4Fields(
        suite=as_text(data.get("suite")),
        category=as_text(data.get("category")),
        execution_status=as_text(get(data, "execution_status")),
        failure_stage=as_text(get(data, "failure_stage")),
        failure_reason_code=as_text(get(data, "failure_reason_code")),
        duration_ms=as_number(get(data, "duration_ms")),
        cost_usd=as_number(get(data, "cost_usd")),
        tokens=total_tokens(get(data, "token_usage")),
        token_usage=get(data, "token_usage"),
        start_time=as_text(get(data, "start_time")),
        end_time=as_text(get(data, "end_time")),
        assertions=assertions(data.get("assertions")),
        graders=grader_scores(data.get("scores")),
        has_output="output" in data or "answer" in data,
        experiment=as_text(data.get("experiment")),
        metadata=data.get("metadata"),
    )
    raw_input = data.get("input")
    if isinstance(raw_input, str):
        v4.input_text = raw_input
    else:
        v4.input_messages = messages(raw_input)
    for key in ARTIFACT_KEYS:
        value = get(data, key)
        if isinstance(value, str) and value:
            v4.artifacts[key] = value
    record.v4 = v4
    if record.eval_id is None:
        record.eval_id = as_text(get(data, "test_id"))
    if record.dataset is None:
        record.dataset = v4.suite
    if record.conversation_id is None:
        record.conversation_id = as_text(get(data, "conversation_id"))
    if not record.candidate_answer:
        record.candidate_answer = output_text(data.get("output", data.get("answer")))
    requests = data.get("requests")
    if isinstance(requests, dict):
        record.lm_request = record.lm_request or as_request(requests.get("lm"))
        record.agent_request = record.agent_request or as_request(requests.get("agent"))
        record.evaluator_request = record.evaluator_request or as_evaluator_request(requests.get("evaluator"))
    if record.error is None:
        record.error = as_error_text(get(data, "execution_error"))
    if record.error is None and status_code(data) == STATUS_EXECUTION_ERROR:
        reason = v4.failure_reason_code or v4.failure_stage
        record.error = f"execution error{f' ({reason})' if reason else ''}"
