"""Per-test artifacts of an AgentV 4 run folder, read on demand for one result at a time.

A run folder holds, per test, `<suite>/<test_id>/` with `grading.json`, `timing.json`, `input.md` (the messages
sent, as `@[role]:` blocks) and `outputs/answer.md` (the final answer), `outputs/trace.json`. The index row names
them (`artifact_dir`, `grading_path`, `answer_path`, …); a path is read relative to the run folder, or at the
conventional place when the row names none. A run folder is untrusted (people receive them from colleagues and CI):
nothing outside it is ever read, whatever a row names (RunFolder). Every file is read with a size cap and decoded
leniently: artifacts are untrusted text. Pure Python.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

import orjson

from turnlens.formatting.evals.files import FileReadError, read_head, real_outside
from turnlens.formatting.jsjson import js_loads_bounded
from turnlens.formatting.records import Diagnostic
from turnlens.formatting.results.sniff import INDEX_NAME
from turnlens.formatting.walk import forbidden

READ_LIMIT = 4 * 1024 * 1024  # bytes of one artifact read; the rest is said to be cut


@dataclass
class TraceSummary:
    schema: str | None = None
    events: int = 0  # entries of the trace's main list (spans / events / messages)
    tool_calls: dict[str, int] = field(default_factory=dict)  # tool name -> calls
    keys: list[str] = field(default_factory=list)


@dataclass
class Artifacts:
    """What the per-test artifacts add to a result; each field None when the file is absent."""

    folder: str | None = None  # the test's artifact folder, when found
    answer: str | None = None
    input_md: str | None = None
    grading: Any = None
    timing: Any = None
    trace: TraceSummary | None = None
    spans: Any = None  # traces.Trace: the trace's span tree and tool calls (agentv.trace.v1)
    transcript: Any = None  # traces.Transcript: outputs/transcript.jsonl's turns
    files: dict[str, str] = field(default_factory=dict)  # which file each came from
    problems: list[Diagnostic] = field(default_factory=list)

    @property
    def found(self) -> bool:
        return bool(self.files)


# row field -> (artifact name, path under the test folder when the row names none)
_PATHS = {
    "answer": ("answer_path", "outputs/answer.md"),
    "input_md": ("input_path", "input.md"),
    "grading": ("grading_path", "grading.json"),
    "timing": ("timing_path", "timing.json"),
    "trace": ("", "outputs/trace.json"),
    "transcript": ("transcript_path", "outputs/transcript.jsonl"),
}


_SHOWN = 160  # characters of a refused path quoted in its warning


class RunFolder:
    """A run folder as the untrusted input it is: a path a row names is resolved only inside it (its real path,
    links followed, must stay under the folder's real path); an absolute path, a way out (`../`, a link to `/`) or
    anything under /proc or /sys is refused with a warning naming the row, and the working folder is never asked."""

    def __init__(self, run_folder: str):
        self.path = run_folder
        self.real = os.path.realpath(run_folder)
        self.index = os.path.join(run_folder, INDEX_NAME)

    def inside(self, path: str) -> str | None:
        """The real path of `path` (a path in the run folder) when it lies inside the folder, else None."""
        try:
            real = os.path.realpath(path)
        except (OSError, ValueError):
            return None
        if real_outside(real, self.real) or forbidden(real):
            return None
        return real

    def resolve(self, recorded: str) -> tuple[str | None, str | None]:
        """A path a row names: (the real path inside the run folder, None), (None, why it was refused), or
        (None, None) when it names nothing there."""
        if "\0" in recorded or os.path.isabs(recorded) or os.path.splitdrive(recorded)[0]:
            return None, "is not a path inside the run folder"
        if real_outside(os.path.normpath(os.path.join(self.real, recorded)), self.real):
            return None, "leads outside the run folder"
        candidates = [os.path.join(self.path, recorded)]
        # a path recorded from the project root (`.agentv/results/runs/…/x`): the part under the run folder
        marker = os.path.basename(self.real) + "/"
        if marker in recorded:
            candidates.append(os.path.join(self.path, recorded.split(marker, 1)[1]))
        refused = None
        for candidate in candidates:
            if not os.path.lexists(candidate):
                continue
            real = self.inside(candidate)
            if real is None:
                refused = "leads outside the run folder"
            elif os.path.exists(real):
                return real, None
        return None, refused


def _refusal(folder: RunFolder, record: Any, key: str, recorded: str, why: str) -> Diagnostic:
    shown = recorded if len(recorded) <= _SHOWN else recorded[:_SHOWN] + "…"
    test = f"test {record.eval_id!r}: " if getattr(record, "eval_id", None) else ""
    line = getattr(record, "line", None)
    return Diagnostic(folder.index, line if isinstance(line, int) else None, f"{test}{key} {shown!r} {why}: not read")


def test_folder(record: Any, run_folder: str, problems: list[Diagnostic] | None = None) -> str | None:
    """The test's artifact folder: the row's `artifact_dir`, else `<suite>/<test_id>/` in the run folder; only
    ever inside the run folder (see RunFolder). A refused `artifact_dir` is added to `problems`."""
    folder = RunFolder(run_folder)
    v4 = getattr(record, "v4", None)
    recorded = v4.artifacts.get("artifact_dir") if v4 is not None else None
    if isinstance(recorded, str) and recorded:
        found, why = folder.resolve(recorded)
        if found and os.path.isdir(found):
            return found
        if why is not None and problems is not None:
            problems.append(_refusal(folder, record, "artifact_dir", recorded, why))
    test_id = record.eval_id
    if not test_id or "/" in test_id or test_id in (".", ".."):
        return None
    for suite in (record.dataset, v4.suite if v4 is not None else None, ""):
        if suite is None or "/" in suite or suite in (".", ".."):
            continue
        candidate = os.path.join(run_folder, suite, test_id) if suite else os.path.join(run_folder, test_id)
        if os.path.isdir(candidate):
            real = folder.inside(candidate)
            if real is not None:
                return real
            if problems is not None:
                shown = os.path.relpath(candidate, run_folder)
                problems.append(_refusal(folder, record, "the test's folder", shown, "leads outside the run folder"))
            return None
    return None


def _read(path: str) -> tuple[str, bool]:
    """Raises FileReadError (a FIFO swapped in after the isfile check is never read)."""
    data = read_head(path, READ_LIMIT + 1)
    cut = len(data) > READ_LIMIT
    return data[:READ_LIMIT].decode("utf-8", errors="replace"), cut


def summarise_trace(data: Any, spans: Any = None) -> TraceSummary:
    """A trace's shape: an agentv.trace.v1 trace's spans and execute_tool calls (`spans`, traces.Trace); any other
    shape, the main list's length and the tool calls anywhere in it."""
    summary = TraceSummary()
    if spans is not None:
        summary.schema = spans.schema
        summary.events = spans.total_spans
        summary.keys = [str(k) for k in list(data)[:20]] if isinstance(data, dict) else []
        for call in spans.tool_calls:
            summary.tool_calls[call.name] = summary.tool_calls.get(call.name, 0) + 1
        return summary
    if isinstance(data, dict):
        schema = data.get("schema", data.get("$schema", data.get("schema_version", data.get("version"))))
        summary.schema = schema if isinstance(schema, str) else None
        summary.keys = [str(k) for k in list(data)[:20]]
        lists = [v for v in data.values() if isinstance(v, list)]
        summary.events = max((len(v) for v in lists), default=0)
    elif isinstance(data, list):
        summary.events = len(data)
    seen = 0

    def walk(value: Any, depth: int) -> None:
        nonlocal seen
        seen += 1
        if depth > 12 or seen > 200_000:
            return
        if isinstance(value, dict):
            kind = value.get("type", value.get("kind"))
            name = value.get("tool_name", value.get("toolName", value.get("tool")))
            if isinstance(kind, str) and "tool" in kind.lower() and not isinstance(name, str):
                name = value.get("name")
            if isinstance(name, str) and name:
                summary.tool_calls[name] = summary.tool_calls.get(name, 0) + 1
            for key, item in value.items():
                if key in ("tool_calls", "toolCalls") and isinstance(item, list):
                    for call in item:
                        if isinstance(call, dict):
                            call_name = call.get("name", call.get("tool"))
                            if isinstance(call_name, str):
                                summary.tool_calls[call_name] = summary.tool_calls.get(call_name, 0) + 1
                    continue
                walk(item, depth + 1)
        elif isinstance(value, list):
            for item in value:
                walk(item, depth + 1)

    walk(data, 0)
    return summary


def load_artifacts(record: Any, run_folder: str | None) -> Artifacts:
    """Read the artifacts of one result (never raises; what cannot be read is in `problems`). Only files inside the
    run folder are read (see RunFolder)."""
    out = Artifacts()
    if run_folder is None:
        return out
    run = RunFolder(run_folder)
    folder = test_folder(record, run_folder, out.problems)
    out.folder = folder
    v4 = getattr(record, "v4", None)
    for name, (row_key, default) in _PATHS.items():
        recorded = v4.artifacts.get(row_key) if v4 is not None and row_key else None
        path = None
        if isinstance(recorded, str) and recorded:
            path, why = run.resolve(recorded)
            if why is not None:
                out.problems.append(_refusal(run, record, row_key, recorded, why))
        if path is None and folder is not None:
            candidate = os.path.join(folder, default)
            path = run.inside(candidate) if os.path.isfile(candidate) else None
            if path is None and os.path.isfile(candidate):
                shown = os.path.relpath(candidate, run.real)
                out.problems.append(_refusal(run, record, name, shown, "leads outside the run folder"))
        if path is None or not os.path.isfile(path):
            continue
        try:
            text, cut = _read(path)
        except FileReadError as error:
            out.problems.append(Diagnostic(path, None, f"cannot read: {error.reason}", "warning"))
            continue
        out.files[name] = path
        if cut:
            out.problems.append(Diagnostic(path, None, f"only the first {READ_LIMIT:,} bytes are shown", "warning"))
        if name in ("answer", "input_md"):
            setattr(out, name, text)
            continue
        if name == "transcript":
            from turnlens.formatting.results.traces import read_transcript

            out.transcript = read_transcript(text)
            continue
        try:
            data = js_loads_bounded(text) if not cut else None
        except orjson.JSONDecodeError as error:
            out.problems.append(Diagnostic(path, None, f"not valid JSON: {error}", "warning"))
            continue
        if name == "trace":
            from turnlens.formatting.results.traces import read_trace

            out.spans = read_trace(data)
            out.trace = summarise_trace(data, out.spans)
        else:
            setattr(out, name, data)
    return out
