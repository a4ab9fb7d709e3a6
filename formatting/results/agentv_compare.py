"""`agentv compare` as AgentV 4.42.4 does it: wins, losses and ties, mean Δ, Hake's normalised gain.

Two runs are paired by test id (a test run twice in one run counts with its last score, at the place of its first
row); a pair is a win when the candidate's score is higher by at least the delta (`-t`, default 0.1), a loss when
lower by at least it, a tie otherwise. The gain of a pair is (candidate − baseline) / (1 − baseline), none when the
baseline scored 1 or more. Mean Δ and mean gain are rounded to three decimals as `Math.round(x * 1e3) / 1e3` does.
One run of several targets is compared target against target (`--baseline/--candidate`), or as the N-way matrix of
every pair of targets.

`compare_json` is `agentv compare … --json`: the same keys in the same order, JavaScript's number text, the same
`Error: …` on stderr and exit status (1 when the mean Δ is negative). tests/fixtures/results/real/compare/ records
what the real CLI printed. Pure Python.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from typing import Any

import orjson

from turnlens.formatting.evals.files import FileReadError, read_head
from turnlens.formatting.jsstr import js_json, js_json_indent, js_trim
from turnlens.formatting.records import JsonObject
from turnlens.formatting.results.agentv4 import ALIASES

DEFAULT_DELTA = 0.1
INDEX = "index.jsonl"
READ_LIMIT = 1 << 31  # AgentV reads the whole manifest; so does this, but a FIFO or device is refused first
MIGRATION_GUIDANCE = (
    "Expected an AgentV result row with a numeric score. Eval-case JSONL is input data, not a results artifact. "
    "Run `agentv eval <eval-file> --output <run-dir>` and pass the run workspace or its index.jsonl manifest."
)


class CompareError(Exception):
    """What `agentv compare` says after `Error: `."""


@dataclass
class Row:
    test_id: Any
    score: float
    target: Any


@dataclass
class Pair:
    test_id: Any
    score1: float
    score2: float
    delta: float
    gain: float | None
    outcome: str  # win, loss, tie


@dataclass
class Comparison:
    matched: list[Pair]
    unmatched1: int
    unmatched2: int
    total: int
    wins: int
    losses: int
    ties: int
    mean_delta: float
    mean_gain: float | None
    baseline: str | None = None  # the targets, in a matrix or a --baseline/--candidate comparison
    candidate: str | None = None

    def as_json_value(self) -> JsonObject:
        value: dict[str, Any] = {
            "matched": [
                {
                    "test_id": p.test_id,
                    "score1": p.score1,
                    "score2": p.score2,
                    "delta": p.delta,
                    "normalized_gain": p.gain,
                    "outcome": p.outcome,
                }
                for p in self.matched
            ],
            "unmatched": {"file1": self.unmatched1, "file2": self.unmatched2},
            "summary": {
                "total": self.total,
                "matched": len(self.matched),
                "wins": self.wins,
                "losses": self.losses,
                "ties": self.ties,
                "mean_delta": self.mean_delta,
                "mean_normalized_gain": self.mean_gain,
            },
        }
        if self.baseline is not None:
            value["baseline"] = self.baseline
            value["candidate"] = self.candidate
        return value


@dataclass
class Matrix:
    targets: list[str]
    rows: list[tuple[Any, dict[str, float]]]  # test id -> score per target (the targets that ran it)
    pairwise: list[Comparison] = field(default_factory=list)


# -- numbers as JavaScript computes them ---------------------------------------------------------------------


def js_round(value: float) -> float:
    """Math.round: the nearest integer, halves up (toward +∞)."""
    floor = math.floor(value)
    return floor + 1 if value - floor >= 0.5 else floor


def _rounded3(value: float) -> float:
    return js_round(value * 1e3) / 1e3


def _key(value: Any) -> Any:
    """A Map key as JavaScript compares them: by type and value; an object by identity."""
    if isinstance(value, (dict, list)):
        return ("object", id(value))
    if isinstance(value, bool):
        return ("boolean", value)
    if isinstance(value, (int, float)):
        return ("number", float(value))
    return ("string", value)


def _js_string(value: Any) -> str:
    """String(value), as Array.prototype.sort compares values."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return js_json(value)
    if isinstance(value, list):
        return ",".join("" if v is None else _js_string(v) for v in value)
    return "[object Object]"


def js_sort_key(value: Any) -> bytes:
    """Array.prototype.sort's default order: the strings' UTF-16 code units."""
    return _js_string(value).encode("utf-16-be", "surrogatepass")


def _outcome(delta: float, threshold: float) -> str:
    if delta >= threshold:
        return "win"
    if delta <= -threshold:
        return "loss"
    return "tie"


def compare_results(rows1: list[Row], rows2: list[Row], threshold: float = DEFAULT_DELTA) -> Comparison:
    latest1: dict[Any, tuple[Any, float]] = {}
    for row in rows1:
        key = _key(row.test_id)
        first = latest1.get(key)
        latest1[key] = (first[0] if first else row.test_id, row.score)
    latest2 = {_key(row.test_id): row.score for row in rows2}
    matched = []
    for key, (test_id, score1) in latest1.items():
        score2 = latest2.get(key)
        if score2 is None:
            continue
        delta = score2 - score1
        gain = None if score1 >= 1 else (score2 - score1) / (1 - score1)
        matched.append(Pair(test_id, score1, score2, delta, gain, _outcome(delta, threshold)))
    matched_keys = {_key(p.test_id) for p in matched}
    total_delta: float = 0
    for pair in matched:
        total_delta = total_delta + pair.delta
    mean_delta = total_delta / len(matched) if matched else 0
    gains = [p.gain for p in matched if p.gain is not None]
    total_gain: float = 0
    for gain in gains:
        total_gain = total_gain + gain
    return Comparison(
        matched=matched,
        unmatched1=sum(1 for row in rows1 if _key(row.test_id) not in matched_keys),
        unmatched2=sum(1 for row in rows2 if _key(row.test_id) not in latest1),
        total=len(rows1) + len(rows2),
        wins=sum(1 for p in matched if p.outcome == "win"),
        losses=sum(1 for p in matched if p.outcome == "loss"),
        ties=sum(1 for p in matched if p.outcome == "tie"),
        mean_delta=_rounded3(mean_delta),
        mean_gain=_rounded3(total_gain / len(gains)) if gains else None,
    )


def group_by_target(rows: list[Row]) -> dict[str, list[Row]]:
    groups: dict[str, list[Row]] = {}
    for row in rows:
        groups.setdefault(row.target, []).append(row)
    return groups


def compare_matrix(groups: dict[str, list[Row]], threshold: float = DEFAULT_DELTA) -> Matrix:
    targets = sorted(groups, key=js_sort_key)
    test_ids: dict[Any, Any] = {}
    for rows in groups.values():
        for row in rows:
            test_ids.setdefault(_key(row.test_id), row.test_id)
    lookup = {target: {_key(row.test_id): row.score for row in rows} for target, rows in groups.items()}
    matrix = []
    for test_id in sorted(test_ids.values(), key=js_sort_key):
        scores = {t: lookup[t][_key(test_id)] for t in targets if _key(test_id) in lookup[t]}
        matrix.append((test_id, scores))
    pairwise = []
    for i, first in enumerate(targets):
        for second in targets[i + 1 :]:
            comparison = compare_results(groups[first], groups[second], threshold)
            comparison.baseline, comparison.candidate = first, second
            pairwise.append(comparison)
    return Matrix(targets, matrix, pairwise)


# -- reading a run as `agentv compare` does ------------------------------------------------------------------


def manifest_path(source: str) -> str:
    """The index.jsonl a source names: a run folder's, or the file itself when it is one; else CompareError."""
    resolved = os.path.abspath(source)
    if os.path.isdir(resolved):
        index = os.path.join(resolved, INDEX)
        if not os.path.exists(index):
            raise CompareError(f"Result workspace is missing {INDEX}: {resolved}")
        return index
    if os.path.basename(resolved) != INDEX:
        raise CompareError(f"Expected a run workspace directory or {INDEX} manifest: {resolved}")
    return resolved


def _parse(line: str) -> Any:
    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError:
        pass
    # what orjson refuses and JSON.parse reads: a lone surrogate escaped in a string, 1e400, any depth
    from turnlens.formatting.jsjson import js_json_error, js_loads

    try:
        return js_loads(line)
    except orjson.JSONDecodeError:
        raise CompareError(js_json_error(line)) from None


def _looks_like_result(row: JsonObject) -> bool:
    return isinstance(row.get("test_id"), str) or any(
        key in row for key in ("score", "trace", "spans", "target", "grading_path", "timing_path")
    )


def read_rows(source: str) -> list[Row]:
    """The rows of a run as `agentv compare` loads them: every non-blank line parsed, camelCase aliases read,
    a numeric score and a test id required (CompareError with AgentV's words otherwise)."""
    path = manifest_path(source)
    try:
        text = read_head(path, READ_LIMIT).decode("utf-8", errors="replace")
    except FileReadError as error:
        raise CompareError(
            f"ENOENT: no such file or directory, open '{path}'" if not os.path.exists(path) else error.reason
        ) from None
    rows = []
    for number, raw in enumerate(text.replace("\r\n", "\n").split("\n"), 1):
        line = js_trim(raw)
        if not line:
            continue
        value = _parse(line)
        if not isinstance(value, dict):
            raise CompareError(f"Unsupported result row at line {number}. {MIGRATION_GUIDANCE}")
        row = dict(value)
        for alias, name in ALIASES.items():
            if alias in row:
                if row.get(name) is None:
                    row[name] = row[alias]
                del row[alias]
        score = row.get("score")
        if isinstance(score, bool) or not isinstance(score, (int, float)) or not math.isfinite(score):
            if _looks_like_result(row):
                raise CompareError(f"Missing or invalid score in result row at line {number}.")
            raise CompareError(f"Unsupported result row at line {number}. {MIGRATION_GUIDANCE}")
        rows.append(Row(row.get("test_id"), score, row.get("target")))
    for scored in rows:
        if scored.test_id is None:
            scored.test_id = "unknown"
        if not scored.test_id or scored.test_id == "unknown":
            raise CompareError(f"Missing test_id in result source: {source}")
    return rows


# -- the command ---------------------------------------------------------------------------------------------


def _snake(key: str) -> str:
    """toSnakeCase: keys starting with a capital kept, else each capital becomes `_` and its lower case."""
    if key[:1].isascii() and key[:1].isupper():
        return key
    return "".join(f"_{c.lower()}" if "A" <= c <= "Z" else c for c in key)


def _is_index(key: str) -> bool:
    return key.isdigit() and key.isascii() and (key == "0" or key[0] != "0") and int(key) < 2**32 - 1


def js_object(pairs: list[tuple[str, Any]]) -> JsonObject:
    """An object as JavaScript orders its keys: array indexes first, ascending, then the others as inserted."""
    built: dict[str, Any] = {}
    for key, value in pairs:
        built[key] = value
    indexes = sorted((k for k in built if _is_index(k)), key=int)
    return {**{k: built[k] for k in indexes}, **{k: v for k, v in built.items() if not _is_index(k)}}


def matrix_json_value(matrix: Matrix) -> JsonObject:
    return {
        "matrix": [
            {"test_id": test_id, "scores": js_object([(_snake(str(t)), s) for t, s in scores.items()])}
            for test_id, scores in matrix.rows
        ],
        "pairwise": [c.as_json_value() for c in matrix.pairwise],
        "targets": matrix.targets,
    }


def compare_json(
    sources: list[str],
    delta: float | None = None,
    baseline: str | None = None,
    candidate: str | None = None,
    targets: list[str] | None = None,
) -> tuple[str, str, int]:
    """`agentv compare SOURCES --json [-t DELTA] [--baseline B --candidate C] [--targets T …]`: (stdout,
    stderr, exit status)."""
    threshold = DEFAULT_DELTA if delta is None else delta
    try:
        if not sources:
            raise CompareError("At least one run workspace or index.jsonl manifest is required")
        if len(sources) == 2:
            comparison = compare_results(read_rows(sources[0]), read_rows(sources[1]), threshold)
            return _out(comparison.as_json_value()), "", 0 if comparison.mean_delta >= 0 else 1
        if len(sources) > 2:
            raise CompareError("Expected 1 or 2 run workspaces or index.jsonl manifests")
        rows = read_rows(sources[0])
        for row in rows:
            if not isinstance(row.target, str):
                raise CompareError(f"Missing target field in combined result source: {sources[0]}")
        groups = group_by_target(rows)
        if targets:
            chosen = {t: groups[t] for t in targets if t in groups}
            if not chosen:
                raise CompareError(
                    f"None of the specified targets found in results. Available targets: {', '.join(groups)}"
                )
            groups = chosen
        if baseline and baseline not in groups:
            raise CompareError(
                f'Baseline target "{baseline}" not found in results. Available targets: {", ".join(groups)}'
            )
        if candidate and not baseline:
            raise CompareError("--candidate requires --baseline. Use both flags for pairwise comparison.")
        if baseline and candidate:
            if candidate not in groups:
                raise CompareError(f'Candidate target "{candidate}" not found in results')
            comparison = compare_results(groups[baseline], groups[candidate], threshold)
            return _out(comparison.as_json_value()), "", 0 if comparison.mean_delta >= 0 else 1
        matrix = compare_matrix(groups, threshold)
        failed = (
            any(
                (c.baseline == baseline and c.mean_delta < 0) or (c.candidate == baseline and c.mean_delta > 0)
                for c in matrix.pairwise
            )
            if baseline
            else False
        )
        return _out(matrix_json_value(matrix)), "", 1 if failed else 0
    except CompareError as error:
        return "", f"Error: {error}\n", 1


def _out(value: JsonObject) -> str:
    return js_json_indent(value) + "\n"
