"""A run folder's `benchmark.json`: what AgentV 4 summarises about the run, read for the results header.

AgentV 4 writes `benchmark.json` at the end of a run, beside `index.jsonl`, with four keys: `metadata` (the eval
files, the time, the targets…), `run_summary` (per target: pass rate, time, tokens…, each a number or a statistic
such as `{mean, stddev, min, max}`), `per_grader_summary` (per grader, the same kind of figures) and `notes` (text).
Only those four keys are fixed, so the values are read by their shape, never by a fixed list of fields: a figure
turnlens does not know is still shown, under its own name. The file is untrusted text: read with a size cap, every
string passed through `sanitize`. A run still being written has no benchmark.json yet (None). Pure Python.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from typing import Any

import orjson

from turnlens.formatting.evals.files import FileReadError, read_head
from turnlens.formatting.records import Diagnostic
from turnlens.formatting.sanitize import sanitize

BENCHMARK_NAME = "benchmark.json"
READ_LIMIT = 1024 * 1024  # a benchmark of a few hundred targets and graders is a few kB
MAX_ENTRIES = 200  # targets, graders, metadata items or notes kept of each kind
TEXT_LIMIT = 300  # characters of one value shown


@dataclass
class Figure:
    """One named figure: a number, a statistic (`mean ± stddev (min–max)`) or, for any other shape, its text."""

    name: str
    value: float | None = None  # a plain number, or the statistic's mean
    stddev: float | None = None
    low: float | None = None
    high: float | None = None
    text: str | None = None  # not a number nor a statistic

    def describe(self) -> str:
        if self.text is not None:
            return self.text
        parts = [_number_text(self.name, self.value)]
        if self.stddev is not None:
            parts.append(f"± {_number_text(self.name, self.stddev)}")
        if self.low is not None and self.high is not None:
            parts.append(f"({_number_text(self.name, self.low)}–{_number_text(self.name, self.high)})")
        return " ".join(parts)


@dataclass
class Group:
    """A target of `run_summary` or a grader of `per_grader_summary`, with its figures."""

    name: str
    figures: list[Figure] = field(default_factory=list)

    def figure(self, *names: str) -> Figure | None:
        for figure in self.figures:
            if figure.name in names:
                return figure
        return None


@dataclass
class Benchmark:
    path: str
    metadata: list[Figure] = field(default_factory=list)
    targets: list[Group] = field(default_factory=list)  # run_summary
    graders: list[Group] = field(default_factory=list)  # per_grader_summary
    notes: list[str] = field(default_factory=list)
    other: list[Figure] = field(default_factory=list)  # top-level keys besides the four
    problems: list[Diagnostic] = field(default_factory=list)

    def headline(self) -> str:
        """One line for the header: each target's pass rate, time and tokens (the means), as recorded."""
        parts = []
        for group in self.targets[:4]:
            figures = []
            for names, label in (
                # AgentV's pass_rate is the mean of the graders' pass rates (the mean score), not the share of
                # tests passed: named as AgentV names it, beside the header's own pass figure
                (("pass_rate", "passRate"), "pass_rate"),
                (("time_seconds", "timeSeconds", "duration_seconds"), ""),
                (("tokens", "total_tokens"), "tokens"),
                (("cost_usd", "costUsd", "cost"), ""),
            ):
                figure = group.figure(*names)
                if figure is None or figure.value is None and not figure.text:
                    continue
                shown = _number_text(figure.name, figure.value) if figure.value is not None else figure.text or ""
                figures.append(f"{label} {shown}" if label == "pass_rate" else f"{shown} {label}".rstrip())
            parts.append(f"{group.name}: {', '.join(figures)}" if figures else group.name)
        if len(self.targets) > 4:
            parts.append(f"+{len(self.targets) - 4} more")
        if not parts and self.problems:
            return self.problems[0].message
        return " · ".join(parts)

    def lines(self) -> list[str]:
        """The whole benchmark as plain lines (a run summary screen)."""
        out = [f"benchmark.json ({self.path})"]
        for problem in self.problems:
            out.append(f"⚠ {problem.message}")
        if self.metadata:
            out.append("")
            out.append("metadata")
            out.extend(f"  {figure.name}: {figure.describe()}" for figure in self.metadata)
        for title, groups in (("run summary (per target)", self.targets), ("per grader", self.graders)):
            if not groups:
                continue
            out.append("")
            out.append(title)
            for group in groups:
                out.append(f"  {group.name}")
                out.extend(f"    {figure.name}: {figure.describe()}" for figure in group.figures)
        if self.notes:
            out.append("")
            out.append("notes")
            out.extend(f"  • {note}" for note in self.notes)
        if self.other:
            out.append("")
            out.extend(f"{figure.name}: {figure.describe()}" for figure in self.other)
        return out


def _number_text(name: str, value: float | None) -> str:
    if value is None:
        return "—"
    lowered = name.lower()
    if "rate" in lowered and 0.0 <= value <= 1.0:
        return f"{value:.0%}"
    if "second" in lowered or lowered.endswith("_s"):
        return f"{value:.1f} s" if value >= 10 else f"{value:.2f} s"
    if lowered.endswith("_ms"):
        return f"{value:,.0f} ms"
    if "cost" in lowered or "usd" in lowered:
        return f"${value:.4f}" if value < 1 else f"${value:,.2f}"
    if "token" in lowered or value == int(value):
        return f"{value:,.0f}"
    return f"{value:.4g}"


def _finite(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def _short(value: Any) -> str:
    if isinstance(value, str):
        text = value
    else:
        try:
            text = orjson.dumps(value).decode()
        except TypeError:
            text = str(value)
    text = sanitize(text)
    return text if len(text) <= TEXT_LIMIT else text[: TEXT_LIMIT - 1] + "…"


def figure_of(name: Any, value: Any) -> Figure:
    """A value by its shape: a number; a statistic (a mapping with a numeric `mean`); a list of short items;
    anything else as compact text."""
    label = _short(name)
    number = _finite(value)
    if number is not None:
        return Figure(label, number)
    if isinstance(value, dict):
        mean = _finite(value.get("mean"))
        if mean is not None:
            return Figure(
                label, mean, _finite(value.get("stddev")), _finite(value.get("min")), _finite(value.get("max"))
            )
    if isinstance(value, list) and all(isinstance(v, (str, int, float)) for v in value):
        return Figure(label, text=_short(", ".join(str(v) for v in value)))
    return Figure(label, text=_short(value))


def _groups(value: Any, problems: list[Diagnostic], path: str, key: str) -> list[Group]:
    if value is None:
        return []
    if not isinstance(value, dict):
        problems.append(Diagnostic(path, None, f"`{key}` is not a mapping but {type(value).__name__}", "warning"))
        return []
    groups = []
    for name, figures in list(value.items())[:MAX_ENTRIES]:
        group = Group(_short(name))
        if isinstance(figures, dict):
            group.figures = [figure_of(k, v) for k, v in list(figures.items())[:MAX_ENTRIES]]
        else:
            group.figures = [figure_of("value", figures)]
        groups.append(group)
    return groups


def read_benchmark(run_folder: str) -> Benchmark | None:
    """The run folder's benchmark.json, or None when it has none (a run still going, a results file). Never
    raises: a file that cannot be read or parsed gives a Benchmark whose `problems` say why."""
    path = os.path.join(run_folder, BENCHMARK_NAME)
    if not os.path.isfile(path):
        return None
    out = Benchmark(path)
    try:
        data = read_head(path, READ_LIMIT + 1)
    except (OSError, FileReadError) as error:
        out.problems.append(Diagnostic(path, None, f"cannot read: {getattr(error, 'reason', error)}", "warning"))
        return out
    if len(data) > READ_LIMIT:
        out.problems.append(Diagnostic(path, None, f"larger than {READ_LIMIT:,} bytes: not read", "warning"))
        return out
    try:
        parsed = orjson.loads(data)
    except orjson.JSONDecodeError as error:
        out.problems.append(Diagnostic(path, None, f"not valid JSON: {error}", "warning"))
        return out
    if not isinstance(parsed, dict):
        out.problems.append(Diagnostic(path, None, f"not a JSON object but {type(parsed).__name__}", "warning"))
        return out
    metadata = parsed.get("metadata")
    if isinstance(metadata, dict):
        out.metadata = [figure_of(k, v) for k, v in list(metadata.items())[:MAX_ENTRIES]]
    elif metadata is not None:
        out.metadata = [figure_of("metadata", metadata)]
    out.targets = _groups(parsed.get("run_summary"), out.problems, path, "run_summary")
    out.graders = _groups(parsed.get("per_grader_summary"), out.problems, path, "per_grader_summary")
    notes = parsed.get("notes")
    if isinstance(notes, list):
        out.notes = [_short(note) for note in notes[:MAX_ENTRIES]]
    elif notes not in (None, ""):
        out.notes = [_short(notes)]
    known = {"metadata", "run_summary", "per_grader_summary", "notes"}
    out.other = [figure_of(k, v) for k, v in list(parsed.items())[:MAX_ENTRIES] if k not in known]
    return out
