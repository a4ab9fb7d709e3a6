"""One results row's fields as turnlens keeps them: wrong types coerced to text (or left out) and never a crash,
for both the 0.15 record (record.py) and the 4.x fields (agentv4.py)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

import orjson

from turnlens.formatting.jsjson import DEEP_CUT, cut_deep_value, deeper_than
from turnlens.formatting.records import ChatMessage


@dataclass
class RecordedRequest:
    """A provider request as AgentV recorded it (lm_provider_request / agent_provider_request)."""

    question: str | None = None
    guidelines: str | None = None
    chat_prompt: list[ChatMessage] | None = None
    guideline_paths: list[str] = field(default_factory=list)
    raw: dict[str, Any] = field(default_factory=dict)


@dataclass
class EvaluatorRequest:
    user_prompt: str | None = None
    system_prompt: str | None = None
    target: str | None = None
    raw: dict[str, Any] = field(default_factory=dict)


def as_text(value: Any) -> str | None:
    """A string as is; None as None; anything else as compact JSON (never lost, never a crash)."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    try:
        return orjson.dumps(value, default=str).decode()
    except TypeError:  # nested past orjson's 255 levels (cut as a row is read), or an int past 64 bits
        if deeper_than(value, DEEP_CUT):
            return as_text(cut_deep_value(value))
        return str(value)


def as_number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    number = float(value)
    return None if math.isnan(number) else number


def as_text_list(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, list):
        return [as_text(v) or "" for v in value]
    return [as_text(value) or ""]


def as_chat_prompt(value: Any) -> list[ChatMessage] | None:
    if not isinstance(value, list):
        return None
    messages = []
    for entry in value:
        if isinstance(entry, dict):
            messages.append(ChatMessage(as_text(entry.get("role")) or "?", as_text(entry.get("content")) or ""))
        else:
            messages.append(ChatMessage("?", as_text(entry) or ""))
    return messages


def as_request(value: Any) -> RecordedRequest | None:
    if not isinstance(value, dict):
        return None
    chat = value.get("chat_prompt", value.get("chatPrompt"))
    return RecordedRequest(
        question=as_text(value.get("question")),
        guidelines=as_text(value.get("guidelines")),
        chat_prompt=as_chat_prompt(chat),
        guideline_paths=as_text_list(value.get("guideline_paths")),
        raw=value,
    )


def as_evaluator_request(value: Any) -> EvaluatorRequest | None:
    if not isinstance(value, dict):
        return None
    return EvaluatorRequest(
        user_prompt=as_text(value.get("userPrompt", value.get("user_prompt"))),
        system_prompt=as_text(value.get("systemPrompt", value.get("system_prompt"))),
        target=as_text(value.get("target")),
        raw=value,
    )


def as_error_text(value: Any) -> str | None:
    if value is None or value is False or value == "":
        return None
    message = value.get("message") if isinstance(value, dict) else None
    return message if isinstance(message, str) else as_text(value)
