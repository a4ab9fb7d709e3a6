"""Statistics of a run as `agentv inspect stats` gives them: mean, P50, P90, P95 and P99 of score, latency, cost,
tokens, tool calls and LLM calls, for the whole run, by target or by suite.

The figures come as AgentV 4.42.4 takes them for a run folder: score, cost and latency from the index row (latency
from the test's timing.json first), tokens as input + output of timing.json's token_usage (else the row's), tool
calls and LLM calls from the test's transcript.jsonl (tool calls, assistant messages; none without one). A
percentile interpolates between the two nearest sorted values (index p/100 × (n − 1)); numbers are shown as AgentV
shows them (toFixed, thousands separators). Per-test files are read only inside the run folder (artifacts.RunFolder),
each once. Pure Python.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from turnlens.formatting.results.columns import FLAG_NO_SCORE
from turnlens.formatting.results.index import ResultsFile

PERCENTILES = (50, 90, 95, 99)
ARTIFACT_LIMIT = 5000  # tests whose per-test files are read for tokens, tool and LLM calls; past it, the index only


def percentile(ordered: list[float], p: float) -> float:
    if not ordered:
        return 0.0
    index = p / 100 * (len(ordered) - 1)
    lower, upper = math.floor(index), math.ceil(index)
    if lower == upper:
        return ordered[lower]
    return ordered[lower] + (ordered[upper] - ordered[lower]) * (index - lower)


def to_fixed(value: float, digits: int) -> str:
    """Number.prototype.toFixed: the exact binary value rounded, halves away from zero."""
    if value == 0:
        value = 0.0  # -0 prints as 0
    return str(Decimal(value).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP))


def js_round(value: float) -> int:
    floor = math.floor(value)
    return floor + 1 if value - floor >= 0.5 else floor


def _cost(value: float) -> str:
    return f"${to_fixed(value, 4)}" if value < 0.01 else f"${to_fixed(value, 3)}"


def _grouped(value: float) -> str:
    return f"{js_round(value):,}"


@dataclass
class Metric:
    name: str
    values: list[float]
    shown: Callable[[float], str]

    def figures(self) -> list[str]:
        ordered = sorted(self.values)
        mean = sum(ordered) / len(ordered) if ordered else 0.0
        return [self.shown(mean)] + [self.shown(percentile(ordered, p)) for p in PERCENTILES]


@dataclass
class Group:
    label: str
    count: int
    metrics: list[Metric]


@dataclass
class TestFigures:
    """What one test adds: each None when it recorded none."""

    score: float
    target: str
    suite: str
    latency_s: float | None = None
    cost_usd: float | None = None
    tokens: float | None = None
    tool_calls: int | None = None
    llm_calls: int | None = None


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def figures_of(results: ResultsFile, run_folder: str | None, read_artifacts: bool = True) -> list[TestFigures]:
    """One entry per scored row (AgentV's stats need a score), with what its artifacts add."""
    figures = []
    for i in range(results.count):
        if results.flags[i] & FLAG_NO_SCORE:
            continue
        entry = TestFigures(results.scores[i], results.target_of(i) or "unknown", results.dataset_of(i) or "unknown")
        duration, cost, tokens = results.durations[i], results.costs[i], results.tokens[i]
        entry.latency_s = duration / 1e3 if duration == duration else None
        entry.cost_usd = cost if cost == cost else None
        entry.tokens = tokens if tokens == tokens else None
        figures.append((i, entry))
    if run_folder is not None and read_artifacts and len(figures) <= ARTIFACT_LIMIT:
        for i, entry in figures:
            _add_artifacts(results, i, run_folder, entry)
    return [entry for _, entry in figures]


def _add_artifacts(results: ResultsFile, index: int, run_folder: str, entry: TestFigures) -> None:
    from turnlens.formatting.results.artifacts import load_artifacts

    artifacts = load_artifacts(results.record(index), run_folder)
    timing = artifacts.timing if isinstance(artifacts.timing, dict) else {}
    duration = _number(timing.get("duration_ms"))
    if duration is not None:
        entry.latency_s = duration / 1e3
    usage = timing.get("token_usage")
    if isinstance(usage, dict):
        first, second = _number(usage.get("input")), _number(usage.get("output"))
        if first is not None and second is not None:
            entry.tokens = first + second
    # a test of a run without a transcript counts as none of either, as AgentV counts it
    turns = artifacts.transcript.turns if artifacts.transcript is not None else []
    entry.tool_calls = sum(len(turn.tool_calls) for turn in turns)
    entry.llm_calls = sum(1 for turn in turns if turn.role == "assistant")


def _metrics(entries: list[TestFigures]) -> list[Metric]:
    columns: list[tuple[str, Callable[[TestFigures], float | None], Callable[[float], str]]] = [
        ("score", lambda e: e.score, lambda n: to_fixed(n, 2)),
        ("latency_s", lambda e: e.latency_s, lambda n: to_fixed(n, 1)),
        ("cost_usd", lambda e: e.cost_usd, _cost),
        ("tokens_total", lambda e: e.tokens, _grouped),
        ("tool_calls", lambda e: e.tool_calls, lambda n: str(js_round(n))),
        ("llm_calls", lambda e: e.llm_calls, lambda n: str(js_round(n))),
    ]
    out = []
    for name, take, shown in columns:
        values = [v for v in (take(e) for e in entries) if v is not None]
        if values:
            out.append(Metric(name, [float(v) for v in values], shown))
    return out


def group_stats(entries: list[TestFigures], by: str | None = None) -> list[Group]:
    """All tests as one group, or one per target / suite, sorted by label."""
    if by is None:
        return [Group("all", len(entries), _metrics(entries))]
    groups: dict[str, list[TestFigures]] = {}
    for entry in entries:
        groups.setdefault(entry.target if by == "target" else entry.suite, []).append(entry)
    ordered = sorted(groups.items(), key=lambda item: (item[0].casefold(), item[0]))  # as localeCompare, near enough
    return [Group(label, len(members), _metrics(members)) for label, members in ordered]


def stats_lines(groups: list[Group]) -> list[str]:
    """The groups as `agentv inspect stats` prints its table (without colours)."""
    lines: list[str] = []
    for group in groups:
        if len(groups) > 1 or group.label != "all":
            lines += ["", f"Group: {group.label} ({group.count} tests)"]
        else:
            lines.append(f"{group.count} tests")
        lines.append("")
        if not group.metrics:
            lines.append("No trace metrics available")
            continue
        width = max(12, *(len(m.name) for m in group.metrics))
        lines.append(
            f"  {'Metric'.ljust(width)}  " + "  ".join(h.rjust(10) for h in ("Mean", "P50", "P90", "P95", "P99"))
        )
        lines.append(f"  {'─' * width}  " + "  ".join("─" * 10 for _ in range(5)))
        for metric in group.metrics:
            lines.append(f"  {metric.name.ljust(width)}  " + "  ".join(f.rjust(10) for f in metric.figures()))
    return lines


def run_stats_lines(results: ResultsFile, run_folder: str | None) -> list[str]:
    """The whole run, then by target and by suite when there are several."""
    entries = figures_of(results, run_folder)
    lines = stats_lines(group_stats(entries))
    for by in ("target", "suite"):
        groups = group_stats(entries, by)
        if len(groups) > 1:
            lines += ["", f"By {by}"] + stats_lines(groups)
    if run_folder is not None and len(entries) > ARTIFACT_LIMIT:
        lines += ["", f"(over {ARTIFACT_LIMIT:,} tests: tokens, tool and LLM calls from the index rows only)"]
    return lines


def stats_markdown(groups: list[Group], title: str) -> str:
    """The same figures as Markdown tables, one per group."""
    out = [f"## Statistics: {title}", ""]
    for group in groups:
        out.append(f"### {group.label} ({group.count} tests)" if group.label != "all" else f"{group.count} tests")
        out.append("")
        if not group.metrics:
            out += ["No trace metrics available", ""]
            continue
        out.append("| Metric | Mean | P50 | P90 | P95 | P99 |")
        out.append("|---|---:|---:|---:|---:|---:|")
        for metric in group.metrics:
            out.append(f"| {metric.name} | " + " | ".join(metric.figures()) + " |")
        out.append("")
    return "\n".join(out)
