"""A test's trace and transcript as AgentV 4.42.4 writes them, read into a timeline.

`outputs/trace.json` is an `agentv.trace.v1` envelope whose `trace.spans` are OTLP/OpenInference spans: an
`invoke_agent` root, a `chat` span per assistant message (tokens in `gen_ai.usage.*`), and an `execute_tool` span per
tool call (`gen_ai.tool.name`, `gen_ai.tool.call.arguments`, `gen_ai.tool.call.result`, a status, start and end in
Unix nanoseconds); a sub-agent's spans hang under its tool's span. `outputs/transcript.jsonl` (`agentv.transcript.v1`)
holds one line per message: role, content, `tool_calls` (tool, input, output, status, duration), timing and
tokens. Both are untrusted: read with the run folder's size cap, shapes checked, every text sanitised where shown.

`timeline()` gives what the Transcript tab lists: the transcript's turns with their tool calls, or, without a
transcript, the trace's spans as a tree. Pure Python.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson

from turnlens.formatting.jsjson import js_loads_bounded
from turnlens.formatting.records import JsonObject

TRACE_SCHEMA = "agentv.trace.v1"
TRANSCRIPT_SCHEMA = "agentv.transcript.v1"
MAX_SPANS = 20_000  # a trace holds a few hundred; past this the rest is counted, not listed
MAX_DEPTH = 32  # sub-agents nested deeper than this are shown at this depth


@dataclass
class ToolCall:
    name: str
    arguments: Any = None
    result: Any = None
    status: str = ""  # ok, error, timeout, cancelled, unknown ("" when not recorded)
    duration_ms: float | None = None
    call_id: str = ""
    children: list[Span] = field(default_factory=list)  # a sub-agent's spans under this call


@dataclass
class Span:
    name: str
    operation: str  # gen_ai.operation.name: invoke_agent, chat, execute_tool, …
    duration_ms: float | None
    status: str
    tokens: tuple[int, int] | None  # input, output
    tool: ToolCall | None = None
    children: list[Span] = field(default_factory=list)


@dataclass
class Trace:
    schema: str | None
    spans: list[Span]  # the roots, children nested
    tool_calls: list[ToolCall]  # every execute_tool span, in trace order
    total_spans: int = 0
    problems: list[str] = field(default_factory=list)


@dataclass
class Turn:
    index: int
    role: str
    content: str
    tool_calls: list[ToolCall]
    duration_ms: float | None = None
    tokens: tuple[int, int] | None = None


@dataclass
class Transcript:
    turns: list[Turn]
    duration_ms: float | None = None  # the whole session's, as recorded
    tokens: tuple[int, int] | None = None
    problems: list[str] = field(default_factory=list)


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if value == value and abs(value) != float("inf") else None


def _tokens(input_tokens: Any, output_tokens: Any) -> tuple[int, int] | None:
    first, second = _number(input_tokens), _number(output_tokens)
    return None if first is None or second is None else (int(first), int(second))


def _usage(value: Any) -> tuple[int, int] | None:
    return _tokens(value.get("input"), value.get("output")) if isinstance(value, dict) else None


def _nanos(value: Any) -> int | None:
    if isinstance(value, str) and value.isdigit():
        return int(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    return None


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _tool_from_wire(wire: Any) -> ToolCall | None:
    """A transcript's tool call (AgentV keeps one only when `tool` is a string)."""
    if not isinstance(wire, dict) or not isinstance(wire.get("tool"), str):
        return None
    return ToolCall(
        wire["tool"],
        wire.get("input"),
        wire.get("output"),
        _text(wire.get("status")),
        _number(wire.get("duration_ms")),
        _text(wire.get("id")),
    )


def read_trace(data: Any) -> Trace | None:
    """An agentv.trace.v1 envelope (or a bare `{spans: [...]}`) as a span tree; None for another shape."""
    if not isinstance(data, dict):
        return None
    inner = data.get("trace")
    body: JsonObject = inner if isinstance(inner, dict) else data
    spans = body.get("spans")
    if not isinstance(spans, list):
        return None
    schema = data.get("schema_version")
    trace = Trace(schema if isinstance(schema, str) else None, [], [], len(spans))
    made: dict[str, Span] = {}
    parents: list[tuple[Span, Any]] = []
    for raw in spans[:MAX_SPANS]:
        if not isinstance(raw, dict):
            continue
        found = raw.get("attributes")
        attributes: JsonObject = found if isinstance(found, dict) else {}
        start, end = _nanos(raw.get("start_time_unix_nano")), _nanos(raw.get("end_time_unix_nano"))
        duration = (end - start) / 1e6 if start is not None and end is not None and end >= start else None
        status = raw.get("status")
        code = _text(status.get("code")) if isinstance(status, dict) else ""
        operation = _text(attributes.get("gen_ai.operation.name"))
        name = _text(raw.get("name"))
        span = Span(
            name,
            operation,
            duration,
            code,
            _tokens(attributes.get("gen_ai.usage.input_tokens"), attributes.get("gen_ai.usage.output_tokens")),
        )
        if operation == "execute_tool" or attributes.get("openinference.span.kind") == "TOOL":
            tool_name = attributes.get("gen_ai.tool.name", attributes.get("tool.name"))
            if not isinstance(tool_name, str):
                tool_name = name.removeprefix("execute_tool").strip()
            call_id = attributes.get("gen_ai.tool.call.id", attributes.get("tool.id"))
            span.tool = ToolCall(
                tool_name,
                attributes.get("gen_ai.tool.call.arguments"),
                attributes.get("gen_ai.tool.call.result"),
                code.lower(),
                duration,
                call_id if isinstance(call_id, str) else "",
            )
            trace.tool_calls.append(span.tool)
        span_id = raw.get("span_id")
        if isinstance(span_id, str) and span_id not in made:
            made[span_id] = span
        parents.append((span, raw.get("parent_span_id")))
    parent_of = {id(span): made.get(p) if isinstance(p, str) else None for span, p in parents}
    for span, _ in parents:
        parent = parent_of[id(span)]
        if parent is None or not _attachable(span, parent, parent_of):
            trace.spans.append(span)
            continue
        parent.children.append(span)
        if parent.tool is not None:
            parent.tool.children.append(span)
    if len(spans) > MAX_SPANS:
        trace.problems.append(f"{len(spans) - MAX_SPANS:,} more spans not listed")
    return trace


def _attachable(span: Span, parent: Span, parent_of: dict[int, Span | None]) -> bool:
    """Under its parent unless that makes a cycle (parent ids are untrusted) or nests deeper than MAX_DEPTH."""
    current: Span | None = parent
    for _ in range(MAX_DEPTH):
        if current is None:
            return True
        if current is span:
            return False
        current = parent_of.get(id(current))
    return False


def read_transcript(text: str) -> Transcript:
    """An agentv.transcript.v1 JSONL: one turn per line, in message order; a line that is not one is counted."""
    transcript = Transcript([])
    bad = 0
    for line in text.splitlines():
        if not line.strip():
            continue
        try:
            row = js_loads_bounded(line)
        except orjson.JSONDecodeError:
            bad += 1
            continue
        if not isinstance(row, dict) or not isinstance(row.get("role"), str):
            bad += 1
            continue
        calls = row.get("tool_calls")
        tools = [c for c in (_tool_from_wire(w) for w in calls) if c is not None] if isinstance(calls, list) else []
        index = row.get("message_index")
        transcript.turns.append(
            Turn(
                index if isinstance(index, int) and not isinstance(index, bool) else len(transcript.turns),
                row["role"],
                _content_text(row.get("content")),
                tools,
                _number(row.get("duration_ms")),
                _usage(row.get("token_usage")),
            )
        )
        if transcript.duration_ms is None:
            transcript.duration_ms = _number(row.get("transcript_duration_ms"))
        if transcript.tokens is None:
            transcript.tokens = _usage(row.get("transcript_token_usage"))
    transcript.turns.sort(key=lambda turn: turn.index)
    if bad:
        transcript.problems.append(f"{bad} line{'s' if bad != 1 else ''} of transcript.jsonl not read (not a message)")
    return transcript


def _content_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):  # content parts
        return "\n".join(
            part["text"] if isinstance(part, dict) and isinstance(part.get("text"), str) else _compact(part)
            for part in value
        )
    return "" if value is None else _compact(value)


def _compact(value: Any) -> str:
    if isinstance(value, str):
        return value
    try:
        return orjson.dumps(value, option=orjson.OPT_INDENT_2).decode()
    except TypeError:
        return str(value)


def value_text(value: Any) -> str:
    """A tool call's arguments or result as text: a string as it is, anything else as indented JSON."""
    return "" if value is None else _compact(value)


def duration_text(ms: float | None) -> str:
    if ms is None:
        return ""
    if ms < 1000:
        return f"{ms:.0f} ms"
    return f"{ms / 1000:.1f} s"


def tokens_text(tokens: tuple[int, int] | None) -> str:
    return "" if tokens is None else f"{tokens[0]:,} in / {tokens[1]:,} out tokens"
