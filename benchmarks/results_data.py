"""Synthetic AgentV results files for benchmarks: realistic record shapes, any size, deterministic."""

from __future__ import annotations

import random

import orjson

WORDS = (
    "the retry helper calls loop attempts invoice customer refund policy order review blocker major minor "
    "parameterised query decimal float exception context backoff timeout guideline assistant user system"
).split()


def _sentence(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + "."


def _paragraphs(rng: random.Random, count: int, words: int) -> str:
    return "\n\n".join(_sentence(rng, words) for _ in range(count))


def make_record(i: int, rng: random.Random, run: str = "bench") -> dict:
    question = "@[System]:\n" + _paragraphs(rng, 2, 30) + "\n\n@[User]:\n" + _paragraphs(rng, 3, 40)
    answer = _paragraphs(rng, 4, 50) + "\n\n```python\nfor attempt in range(3):\n    call()\n```\n"
    score = round(rng.random(), 3)
    record = {
        "timestamp": f"2025-01-{1 + i % 28:02d}T{i % 24:02d}:{i % 60:02d}:{(i * 7) % 60:02d}.000Z",
        "eval_id": f"case-{i:07d}",
        "dataset": f"suite-{i % 7}",
        "conversation_id": None,
        "score": score,
        "hits": [_sentence(rng, 8) for _ in range(2)],
        "misses": [_sentence(rng, 8) for _ in range(1 if score < 0.8 else 0)],
        "candidate_answer": answer,
        "target": ("gpt-4o", "claude-sonnet", "local-llama")[i % 3],
        "reasoning": _paragraphs(rng, 1, 40),
        "raw_aspects": [],
        "lm_provider_request": {
            "question": question,
            "guidelines": _paragraphs(rng, 2, 30),
            "guideline_paths": ["prompts/x.instructions.md"],
        },
        "evaluator_provider_request": {
            "userPrompt": "[[ ## expected_outcome ## ]]\n"
            + _sentence(rng, 20)
            + "\n\n[[ ## question ## ]]\n"
            + question
            + "\n\n[[ ## reference_answer ## ]]\n\n\n[[ ## candidate_answer ## ]]\n"
            + answer,
            "systemPrompt": "You are an expert evaluator. " + _sentence(rng, 30),
            "target": "judge",
        },
        "evaluator_results": [
            {
                "name": "judge",
                "type": "llm_judge",
                "score": score,
                "hits": [],
                "misses": [],
                "reasoning": _sentence(rng, 20),
            }
        ],
    }
    if i % 97 == 13:
        record["error"] = "Provider timed out after 60000 ms"
    return record


def write_results(path: str, size_bytes: int, seed: int = 7) -> int:
    """Write records until the file reaches `size_bytes`; a few templates are reused so generation stays fast."""
    rng = random.Random(seed)
    templates = [make_record(i, rng) for i in range(64)]
    written = 0
    count = 0
    with open(path, "wb") as handle:
        while written < size_bytes:
            record = dict(templates[count % len(templates)])
            record["eval_id"] = f"case-{count:07d}"
            record["score"] = round((count * 7919 % 1000) / 1000, 3)
            record["timestamp"] = f"2025-01-{1 + count % 28:02d}T{count % 24:02d}:{count % 60:02d}:00.000Z"
            if count % 97 == 13:
                record["error"] = "Provider timed out after 60000 ms"
            else:
                record.pop("error", None)
            line = orjson.dumps(record) + b"\n"
            handle.write(line)
            written += len(line)
            count += 1
    return count
