"""One results record read in full: an EvaluationResult (0.15 or 4.x row) as plain data, every field optional.

`record_from_mapping` turns one parsed document (a JSONL line or a YAML document) into a `ResultRecord`; wrong types
are coerced to text and reported as diagnostics, never raised. The offset index (index.py) parses a record only when
it is asked for one. Also here: how a YAML results document is parsed, and the diagnostic for a record too big for
the memory this process may use.

Pure Python: never imports textual or rich.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from turnlens.formatting.evals.files import format_size
from turnlens.formatting.memlimit import limit_hit
from turnlens.formatting.records import Diagnostic, JsonObject
from turnlens.formatting.results import agentv4
from turnlens.formatting.results.fields import (
    EvaluatorRequest,
    RecordedRequest,
    as_error_text,
    as_evaluator_request,
    as_number,
    as_request,
    as_text,
    as_text_list,
)
from turnlens.formatting.sanitize import sanitize

# ---------------------------------------------------------------------------------------------------------------
# Untrusted text


# One neutraliser for the app, the exports and stderr (formatting/sanitize.py); this module's name for it.
visible_text = sanitize


def truncate_text(text: str, limit: int) -> tuple[str, int]:
    """`text` cut to `limit` characters, and how many were cut."""
    if len(text) <= limit:
        return text, 0
    return text[:limit], len(text) - limit


# ---------------------------------------------------------------------------------------------------------------
# Full records


@dataclass
class EvaluatorResult:
    name: str
    type: str
    score: float | None
    hits: list[str]
    misses: list[str]
    reasoning: str
    requests: Any = None  # as recorded (often evaluator_provider_request-shaped)


@dataclass
class ResultRecord:
    """One EvaluationResult, every field optional, wrong types coerced to text and reported."""

    file: str
    line: int
    eval_id: str | None = None
    dataset: str | None = None
    conversation_id: str | None = None
    target: str | None = None
    timestamp: str | None = None
    score: float | None = None
    hits: list[str] = field(default_factory=list)
    misses: list[str] = field(default_factory=list)
    candidate_answer: str = ""
    reasoning: str = ""
    raw_aspects: Any = None
    lm_request: RecordedRequest | None = None
    agent_request: RecordedRequest | None = None
    evaluator_request: EvaluatorRequest | None = None
    evaluator_results: list[EvaluatorResult] = field(default_factory=list)
    error: str | None = None
    raw: JsonObject = field(default_factory=dict)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    v4: Any = None  # agentv4.V4Fields for an AgentV 4 row

    @property
    def label(self) -> str:
        return self.eval_id if self.eval_id is not None else f"(no id, line {self.line})"


def record_from_mapping(data: Any, file: str, line: int) -> ResultRecord:
    """Build a ResultRecord from one parsed document; never raises."""
    if not isinstance(data, dict):
        record = ResultRecord(file=file, line=line, raw={})
        record.diagnostics.append(Diagnostic(file, line, f"not a mapping but {type(data).__name__}", "error"))
        return record
    record = ResultRecord(
        file=file,
        line=line,
        eval_id=as_text(data.get("eval_id")),
        dataset=as_text(data.get("dataset")),
        conversation_id=as_text(data.get("conversation_id")),
        target=as_text(data.get("target")),
        timestamp=as_text(data.get("timestamp")),
        score=as_number(data.get("score")),
        hits=as_text_list(data.get("hits")),
        misses=as_text_list(data.get("misses")),
        candidate_answer=as_text(data.get("candidate_answer")) or "",
        reasoning=as_text(data.get("reasoning")) or "",
        raw_aspects=data.get("raw_aspects"),
        lm_request=as_request(data.get("lm_provider_request")),
        agent_request=as_request(data.get("agent_provider_request")),
        evaluator_request=as_evaluator_request(data.get("evaluator_provider_request")),
        error=as_error_text(data.get("error")),
        raw=data,
    )
    if "score" in data and record.score is None and data.get("score") is not None:
        record.diagnostics.append(
            Diagnostic(file, line, f"score is not a number: {(as_text(data['score']) or '')[:60]}")
        )
    evaluators = data.get("evaluator_results")
    if isinstance(evaluators, list):
        for entry in evaluators:
            if not isinstance(entry, dict):
                continue
            record.evaluator_results.append(
                EvaluatorResult(
                    name=as_text(entry.get("name")) or "",
                    type=as_text(entry.get("type")) or "",
                    score=as_number(entry.get("score")),
                    hits=as_text_list(entry.get("hits")),
                    misses=as_text_list(entry.get("misses")),
                    reasoning=as_text(entry.get("reasoning")) or "",
                    requests=entry.get("evaluator_provider_request", entry.get("requests")),
                )
            )
    _fill_v4_fields(record, data)
    return record


def _fill_v4_fields(record: ResultRecord, data: JsonObject) -> None:
    """AgentV 4 rows (test_id, scores[], output, requests…): see agentv4.fill_v4."""
    if agentv4.is_v4_row(data):
        agentv4.fill_v4(record, data)


def load_yaml_document(chunk: bytes) -> Any:
    """One results document with YAML 1.2 core-schema typing, as AgentV wrote it (`yes` stays text)."""
    from turnlens.formatting.evals.yaml12 import parse_yaml

    return parse_yaml(bytes(chunk).decode("utf-8", errors="replace")).data


def too_big(path: str, line: int, size: int) -> Diagnostic:
    """A record that could not be read in the memory this process may use: the limit hit named (not "not valid
    JSON", which orjson's allocation failure read as)."""
    return Diagnostic(path, line, f"too big for memory: a record of {format_size(size)}; {limit_hit()}", "error")
