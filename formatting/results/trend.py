"""Score history across the runs of an experiment, and the trend as `agentv trend` reports it.

The runs are put in time order by their first row's timestamp (else the run folder's name). By default only the
tests every run ran count (AgentV's matched-tests mode); each run's mean score over them is a point, and a least
squares line through the points (x = 0, 1, 2, … in run order) gives the slope, intercept and r²; the trend is
improving at a slope of at least +0.01, degrading at -0.01 or below, stable between. Each test's scores across the
runs make its sparkline. Works on indexed results files (their summaries only). Pure Python.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from turnlens.formatting.results.columns import FLAG_NO_SCORE
from turnlens.formatting.results.index import ResultsFile
from turnlens.formatting.results.stats import to_fixed
from turnlens.formatting.sanitize import sanitize

SLOPE_THRESHOLD = 0.01
BLOCKS = "▁▂▃▄▅▆▇█"


@dataclass
class RunPoint:
    label: str  # the run's first timestamp, as recorded, else its folder's name
    tests: int
    mean: float


@dataclass
class Trend:
    runs: list[RunPoint]
    matched: int
    slope: float
    intercept: float
    r_squared: float
    direction: str  # improving, degrading, stable
    history: dict[str, list[float | None]]  # test id -> its score in each run, oldest first


def _rows(results: ResultsFile) -> list[tuple[str, float]]:
    """(test id, score) of every scored row: a test run twice (two suites, two targets) counts twice, as in
    AgentV's means."""
    return [
        (results.eval_ids[i] or "unknown", results.scores[i])
        for i in range(results.count)
        if not results.flags[i] & FLAG_NO_SCORE
    ]


def _label(results: ResultsFile) -> str:
    for i in range(results.count):
        stamp = results.record(i).timestamp
        if stamp:
            return str(stamp)
    folder = os.path.dirname(results.path) if os.path.basename(results.path) == "index.jsonl" else results.path
    return os.path.basename(folder)


def regression(values: list[float]) -> tuple[float, float, float]:
    n = len(values)
    mean_x = (n - 1) / 2
    mean_y = sum(values) / n
    numerator = denominator = 0.0
    for i, value in enumerate(values):
        dx = i - mean_x
        numerator += dx * (value - mean_y)
        denominator += dx * dx
    slope = 0.0 if denominator == 0 else numerator / denominator
    intercept = mean_y - slope * mean_x
    total = sum((v - mean_y) ** 2 for v in values)
    residual = sum((v - (intercept + slope * i)) ** 2 for i, v in enumerate(values))
    return slope, intercept, 1.0 if total == 0 else 1 - residual / total


def trend(runs: list[ResultsFile], slope_threshold: float = SLOPE_THRESHOLD) -> Trend | None:
    """The trend over `runs` (any order); None with fewer than two runs or no test they all ran."""
    if len(runs) < 2:
        return None
    ordered = sorted(((_label(r), _rows(r)) for r in runs), key=lambda item: item[0])
    matched = {t for t, _ in ordered[0][1]}
    for _, rows in ordered[1:]:
        matched &= {t for t, _ in rows}
    every = sorted({t for _, rows in ordered for t, _ in rows})
    last_scores = [dict(rows) for _, rows in ordered]  # a test's last row in each run
    history = {t: [scores.get(t) for scores in last_scores] for t in every}
    if not matched:  # agentv trend refuses: "No shared test IDs remain across the selected runs"
        return Trend([RunPoint(label, 0, 0.0) for label, _ in ordered], 0, 0.0, 0.0, 0.0, "none", history)
    points = []
    for label, rows in ordered:
        values = [score for t, score in rows if t in matched]
        total = 0.0
        for value in values:
            total += value
        points.append(RunPoint(label, len(values), round(total / len(values), 6)))
    slope, intercept, r_squared = regression([p.mean for p in points])
    direction = "degrading" if slope <= -slope_threshold else "improving" if slope >= slope_threshold else "stable"
    return Trend(points, len(matched), round(slope, 6), round(intercept, 6), round(r_squared, 6), direction, history)


def sparkline(scores: list[float | None]) -> str:
    """One block per run, its height the score (0 to 1); a space where the test did not run."""
    return "".join(" " if s is None else BLOCKS[min(7, max(0, int(s * 8)))] for s in scores)


def trend_lines(found: Trend | None) -> list[str]:
    if found is None:
        return ["A trend needs at least two runs of the experiment."]
    out: list[str] = []
    if not found.matched:
        out += [
            f"Runs: {len(found.runs)} | no test ran in every run, so no trend "
            "(agentv trend: No shared test IDs remain across the selected runs)",
            "",
            "Score history, oldest run first (a space: not run)",
        ]
        return out + _history_lines(found)
    out += [
        f"Runs: {len(found.runs)} | Range: {found.runs[0].label} → {found.runs[-1].label}",
        f"Matched tests: {found.matched} | Verdict: {found.direction}",
        f"slope={'+' if found.slope >= 0 else ''}{to_fixed(found.slope, 3)} intercept={to_fixed(found.intercept, 3)}"
        f" r²={to_fixed(found.r_squared, 3)}"
        f" (improving or degrading at |slope| ≥ {SLOPE_THRESHOLD})",
        "",
        f"  {'Run'.ljust(max(3, *(len(p.label) for p in found.runs)))}  {'Tests':>7}  {'Mean Score':>10}",
    ]
    width = max(3, *(len(p.label) for p in found.runs))
    out += [f"  {p.label.ljust(width)}  {p.tests:>7}  {to_fixed(p.mean, 3):>10}" for p in found.runs]
    out += ["", "Score history, oldest run first (a space: not run)"]
    return out + _history_lines(found)


def _history_lines(found: Trend) -> list[str]:
    id_width = min(40, max(7, *(len(t) for t in found.history))) if found.history else 7
    out = []
    for test_id, scores in found.history.items():
        last = next((s for s in reversed(scores) if s is not None), None)
        shown = "" if last is None else to_fixed(last, 2)
        out.append(f"  {sanitize(test_id)[:id_width].ljust(id_width)}  {sparkline(scores)}  {shown}")
    return out
