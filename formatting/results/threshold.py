"""The pass threshold of a run as AgentV 4 gives it, and a row's verdict explained by it.

AgentV 4.42.4 judges a test `ok` when its score reaches the test's own `execution.threshold`, else the threshold of
`agentv eval --threshold`, else DEFAULT_THRESHOLD (0.8), and records the verdict as the row's `execution_status`.
A suite's `execution.threshold` is what its summary line says ("1/3 scored >= 50%") but not what the rows were
judged at: the recorded status stays the verdict, and the threshold only explains it. The task bundle of a test
(`task/EVAL.yaml`) keeps the test's own `execution.threshold`, not the suite's.

The threshold shown is `--threshold` when given, else the suite's `execution.threshold` found in the eval file the
run's first row names (`projection_identity.dimensions.eval_path`, relative to the project the run folder lives
in; never read outside it), else 0.8. In a run of several eval files every row names the first file, whose
threshold is the one AgentV's own summary uses. Pure Python.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import orjson

from turnlens.formatting.evals.files import FileReadError, read_head
from turnlens.formatting.jsjson import js_loads
from turnlens.formatting.records import JsonObject
from turnlens.formatting.results.queries import DEFAULT_THRESHOLD

SOURCE_DEFAULT = "AgentV's default"
SOURCE_FLAG = "--threshold"
SOURCE_KEYS = "set with + and -"
READ_LIMIT = 1024 * 1024  # an eval file's head, enough for its `execution:` block; a row's first line


@dataclass(frozen=True)
class RunThreshold:
    value: float
    source: str = SOURCE_DEFAULT  # where it comes from, said beside it: "suite NAME", "--threshold", …

    def changed(self, delta: float) -> RunThreshold:
        return RunThreshold(round(min(1.0, max(0.0, self.value + delta)), 2), SOURCE_KEYS)


def valid_threshold(value: Any) -> float | None:
    """A threshold as AgentV accepts one: a number in [0, 1]."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if 0 <= value <= 1 else None


def _inside(path: str, root: str) -> bool:
    try:
        return os.path.commonpath([os.path.realpath(path), os.path.realpath(root)]) == os.path.realpath(root)
    except ValueError:
        return False


def _first_row(index_path: str) -> JsonObject | None:
    try:
        head = read_head(index_path, READ_LIMIT)
    except FileReadError:
        return None
    line = head.split(b"\n", 1)[0].strip()
    try:
        row = js_loads(line)  # (as JSON.parse reads it: a row nested past orjson's 1,024 levels too)
    except (orjson.JSONDecodeError, UnicodeDecodeError):
        return None
    return row if isinstance(row, dict) else None


def _execution_threshold(data: Any) -> float | None:
    execution = data.get("execution") if isinstance(data, dict) else None
    return valid_threshold(execution.get("threshold")) if isinstance(execution, dict) else None


def read_yaml_head(path: str) -> Any:
    """A small YAML file's data, or None when it cannot be read or parsed."""
    from turnlens.formatting.evals.yaml12 import YamlError, parse_yaml_bytes

    try:
        return parse_yaml_bytes(read_head(path, READ_LIMIT)).data
    except (FileReadError, YamlError, RecursionError):
        return None


def suite_threshold(results_path: str) -> RunThreshold | None:
    """The `execution.threshold` of the suite the run's first row belongs to, or None."""
    from turnlens.formatting.results.drift import project_root_of

    index = os.path.join(results_path, "index.jsonl") if os.path.isdir(results_path) else results_path
    row = _first_row(index)
    if row is None:
        return None
    identity = row.get("projection_identity")
    dimensions = identity.get("dimensions") if isinstance(identity, dict) else None
    eval_path = dimensions.get("eval_path") if isinstance(dimensions, dict) else None
    if not isinstance(eval_path, str) or not eval_path or os.path.isabs(eval_path):
        return None
    root = project_root_of(results_path)
    path = os.path.join(root, eval_path)
    if not _inside(path, root) or not os.path.isfile(path):
        return None
    data = read_yaml_head(path)
    value = _execution_threshold(data)
    if value is None:
        return None
    name = data.get("name") if isinstance(data, dict) else None
    return RunThreshold(value, f"suite {name}" if isinstance(name, str) and name else f"{eval_path}")


def run_threshold(results_path: str, flag: float | None = None) -> RunThreshold:
    """--threshold when given, else the suite's execution.threshold, else AgentV's default."""
    if flag is not None:
        return RunThreshold(flag, SOURCE_FLAG)
    return suite_threshold(results_path) or RunThreshold(DEFAULT_THRESHOLD)


def own_threshold(task_eval_path: str | None) -> float | None:
    """A test's own `execution.threshold`, as its task bundle (`task/EVAL.yaml`, one test) keeps it."""
    if not task_eval_path or not os.path.isfile(task_eval_path):
        return None
    data = read_yaml_head(task_eval_path)
    tests = data.get("tests") if isinstance(data, dict) else None
    if isinstance(tests, list) and len(tests) == 1:
        return _execution_threshold(tests[0])
    return None


@dataclass(frozen=True)
class Explained:
    verdict: str  # "pass", "fail", "error"
    reason: str  # why, in one sentence


def explain(
    status: str | None, score: float | None, error: bool, threshold: RunThreshold, own: float | None = None
) -> Explained:
    """A row's verdict and why: AgentV's recorded status where there is one, the score at the threshold else."""
    shown = f"{threshold.value:.2f} ({threshold.source})"
    if status == "execution_error" or (status is None and error):
        return Explained("error", "not judged: the run failed")
    if score is None:
        return Explained("fail", "no score recorded")
    if status in ("ok", "quality_failure"):
        passed = status == "ok"
        recorded = f"AgentV recorded {status}"
        if own is not None:
            side = "≥" if score >= own else "<"
            return Explained(
                "pass" if passed else "fail",
                f"{recorded}: {score:.2f} {side} {own:.2f}, the test's own execution.threshold",
            )
        if passed == (score >= threshold.value):
            side = "≥" if passed else "<"
            return Explained("pass" if passed else "fail", f"{recorded}: {score:.2f} {side} {shown}")
        if threshold.value != DEFAULT_THRESHOLD and passed == (score >= DEFAULT_THRESHOLD):
            side = "≥" if passed else "<"
            return Explained(
                "pass" if passed else "fail",
                f"{recorded}: {score:.2f} {side} {DEFAULT_THRESHOLD:.2f}, AgentV's default, which it judged the test "
                "at (a suite's execution.threshold sets only the run's summary line)",
            )
        return Explained(
            "pass" if passed else "fail",
            f"{recorded}, judged at another threshold than {shown} (`agentv eval --threshold`?)",
        )
    passed = score >= threshold.value
    return Explained("pass" if passed else "fail", f"{score:.2f} {'≥' if passed else '<'} {shown}")
