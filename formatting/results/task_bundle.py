"""The test as it was run: a run folder's task bundle (`<suite>/<test>/task/EVAL.yaml`) against the test now.

AgentV 4 writes, per test, a one-test suite of the test as it ran: its own input (file references rewritten to
`files/…`, the files copied there), criteria, expected output, and its graders with the suite's appended and every
grader named. It leaves out the suite's `input` and `execution.threshold`. So the two are compared as loaded, part by
part (input, criteria, expected output, graders), each written out as plain text; where the bundle leaves the
suite's part out, the test now is compared with and without it. A file is compared by its name and contents, not
its path: where a checkout or a bundle keeps a file is not drift.

A run folder is untrusted: the bundle is loaded only when everything it names stays inside the run folder (no
absolute path, no `..`, no link out of the folder); else it is not read, and a note says why. Pure Python.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any

from turnlens.formatting.evals.files import FileReadError, read_head, real_outside
from turnlens.formatting.model import EvalCase, EvalFile, Grader, Message
from turnlens.formatting.results.artifacts import RunFolder, test_folder

BUNDLE_NAME = os.path.join("task", "EVAL.yaml")
READ_LIMIT = 1024 * 1024  # a task bundle holds one test
MAX_BUNDLE_ENTRIES = 2000  # files and folders of one task folder looked at for links out of the run folder
AS_RUN = "as run"  # prefix of the compared parts' names: "as run: graders"


@dataclass
class TaskBundle:
    """The run's copy of one test, loaded; `problem` says why it was not (None: loaded, or there is none)."""

    path: str | None = None  # the bundle's EVAL.yaml, inside the run folder
    eval_file: EvalFile | None = None
    case: EvalCase | None = None
    problem: str | None = None

    @property
    def files_dir(self) -> str | None:
        return os.path.join(os.path.dirname(self.path), "files") if self.path else None


@dataclass
class Part:
    """One part of a test written out as text, as run and now."""

    name: str
    as_run: str
    now: str
    alternatives: list[str] = field(default_factory=list)  # other readings of now that also count as equal


def bundle_path(record: Any, run_folder: str) -> str | None:
    """The test's task bundle: the row's `eval_path` when it names a file inside the run folder, else
    `<the test's folder>/task/EVAL.yaml`; None when there is none."""
    folder = RunFolder(run_folder)
    v4 = getattr(record, "v4", None)
    recorded = v4.artifacts.get("eval_path") if v4 is not None else None
    if isinstance(recorded, str) and recorded.endswith("EVAL.yaml"):
        found, _why = folder.resolve(recorded)
        if found is not None and os.path.isfile(found):
            return found
    test = test_folder(record, run_folder)
    if test is None:
        return None
    candidate = os.path.join(test, BUNDLE_NAME)
    return candidate if os.path.isfile(candidate) and folder.inside(candidate) else None


def _escapes(value: str) -> bool:
    """A string that, read as a path, could lead out of the bundle's folder."""
    text = value.strip()
    if text.startswith("file://"):
        text = text[len("file://") :]
    if not text or "\n" in text:
        return False
    return (
        text.startswith(("/", "\\", "~"))
        or "${{" in text
        or ".." in text.replace("\\", "/").split("/")
        or (len(text) > 1 and text[1] == ":")
    )


def _named_outside(data: Any, depth: int = 0) -> str | None:
    """The first string of the bundle that could name a path outside it, else None."""
    if depth > 64:
        return "(nested too deep)"
    if isinstance(data, str):
        return data if _escapes(data) else None
    if isinstance(data, dict):
        items: Any = list(data.keys()) + list(data.values())
    elif isinstance(data, list):
        items = data
    else:
        return None
    for item in items:
        found = _named_outside(item, depth + 1)
        if found is not None:
            return found
    return None


def _link_out(task_dir: str, run_real: str) -> str | None:
    """A link in the task folder that leads out of the run folder (or an unreadably big folder), else None."""
    seen = 0
    for folder, dirs, files in os.walk(task_dir):
        for name in dirs + files:
            seen += 1
            if seen > MAX_BUNDLE_ENTRIES:
                return f"more than {MAX_BUNDLE_ENTRIES} entries"
            path = os.path.join(folder, name)
            if os.path.islink(path) and real_outside(os.path.realpath(path), run_real):
                return os.path.relpath(path, task_dir)
    return None


def load_bundle(path: str, run_folder: str) -> TaskBundle:
    """The bundle at `path` loaded as AgentV 4 reads it, its files looked for in its own folder only."""
    from turnlens.formatting.dialects.load import load_eval_file
    from turnlens.formatting.evals.yaml12 import YamlError, parse_yaml_bytes

    bundle = TaskBundle(path)
    task_dir = os.path.dirname(path)
    try:
        raw = read_head(path, READ_LIMIT + 1)
    except FileReadError as exc:
        bundle.problem = f"the run's task bundle could not be read: {exc}"
        return bundle
    if len(raw) > READ_LIMIT:
        bundle.problem = "the run's task bundle is bigger than a one-test suite should be: not read"
        return bundle
    try:
        data = parse_yaml_bytes(raw).data
    except (YamlError, RecursionError, ValueError) as exc:
        bundle.problem = f"the run's task bundle is not valid YAML: {exc}"
        return bundle
    outside = _named_outside(data)
    if outside is None:
        link = _link_out(task_dir, os.path.realpath(run_folder))
        outside = link
    if outside is not None:
        shown = outside if len(outside) <= 80 else outside[:80] + "…"
        bundle.problem = f"the run's task bundle names {shown!r}, which may lead outside the run folder: not read"
        return bundle
    text = raw.decode("utf-8", errors="replace")
    eval_file = load_eval_file(path, repo_root=task_dir, cwd=task_dir, text=text, dialect="agentv-4")
    bundle.eval_file = eval_file
    if eval_file.error is not None:
        bundle.problem = f"the run's task bundle was refused: {eval_file.error.message}"
    elif len(eval_file.cases) != 1:
        bundle.problem = f"the run's task bundle holds {len(eval_file.cases)} tests, not one"
    else:
        bundle.case = eval_file.cases[0]
    return bundle


def task_bundle(record: Any, run_folder: str | None) -> TaskBundle:
    """The task bundle of the test `record` ran, loaded; an empty TaskBundle when the run keeps none."""
    if run_folder is None:
        return TaskBundle()
    path = bundle_path(record, run_folder)
    return load_bundle(path, run_folder) if path is not None else TaskBundle()


# --- the parts, written out ----------------------------------------------------------------------------------------


def _bundle_file_text(bundle: TaskBundle, written: str) -> str | None:
    """A file the bundle names but keeps under `files/` (an `input_files` entry is not rewritten)."""
    files = bundle.files_dir
    if files is None or _escapes(written):
        return None
    candidate = os.path.join(files, written.lstrip("/"))
    if not os.path.isfile(candidate) or real_outside(os.path.realpath(candidate), os.path.realpath(files)):
        return None
    try:
        return read_head(candidate, READ_LIMIT).decode("utf-8", errors="replace").replace("\r\n", "\n")
    except FileReadError:
        return None


def _messages_text(messages: list[Message], bundle: TaskBundle | None) -> str:
    out = []
    for message in messages:
        lines = [f"── {message.role} ──"]
        for seg in message.segments:
            if seg.type in ("file", "image"):
                written = seg.value or ""
                name = os.path.basename(written.replace("\\", "/")) or "(no path)"
                text = seg.text
                if text is None and seg.resolved_path is None and bundle is not None and written:
                    text = _bundle_file_text(bundle, written)
                if seg.type == "image":
                    lines.append(f"<image {name}>")
                elif text is None:
                    lines.append(f"<file {name}: not found>")
                else:
                    lines.append(f"<file {name}>\n{text.rstrip(chr(10))}\n</file>")
            elif seg.value is not None:
                lines.append(seg.value)
            else:
                lines.append(json.dumps(seg.raw, ensure_ascii=False, sort_keys=True))
        out.append("\n".join(lines))
    return "\n\n".join(out) if out else "(none)"


def _grader_line(grader: Grader, depth: int = 0) -> str:
    """One grader as a line: name, type, then what decides its verdict (weight, required, settings, prompt)."""
    bits = [f"{'  ' * depth}- {grader.name} ({grader.recorded_type})"]
    if grader.weight is not None:
        bits.append(f"weight {grader.weight:g}")
    if grader.required is not None:
        bits.append(f"required {json.dumps(grader.required)}")
    if grader.min_score is not None:
        bits.append(f"min_score {grader.min_score:g}")
    if grader.negate:
        bits.append("negated")
    if grader.settings:
        bits.append(json.dumps(grader.settings, ensure_ascii=False, sort_keys=True, default=str))
    if grader.prompt is not None:
        bits.append(f"prompt {grader.prompt.kind}" + (f": {grader.prompt.text}" if grader.prompt.text else ""))
    return " ".join(bits) + "".join("\n" + _grader_line(member, depth + 1) for member in grader.members[:50])


def _graders_text(graders: list[Grader]) -> str:
    if not graders:
        return "(none: the default grader)"
    return "\n".join(_grader_line(g) for g in graders)


def parts(bundle: TaskBundle, case: EvalCase) -> list[Part]:
    """The test's parts as run (the bundle) and now (`case`)."""
    run = bundle.case
    assert run is not None
    own = [m for m in case.messages if not m.from_suite]
    own_segments = [
        Message(
            m.index, m.role, m.line, m.content_is_string, [s for s in m.segments if s.origin != "suite input_files"]
        )
        for m in own
    ]
    own_graders = [g for g in case.assertions if not g.from_suite]
    return [
        Part(
            "input",
            _messages_text(run.messages, bundle),
            _messages_text(own, None),
            [_messages_text(case.messages, None), _messages_text(own_segments, None)],
        ),
        Part("criteria", run.criteria or "(none)", case.criteria or "(none)"),
        Part(
            "expected output", _messages_text(run.expected_output, bundle), _messages_text(case.expected_output, None)
        ),
        Part("graders", _graders_text(run.assertions), _graders_text(case.assertions), [_graders_text(own_graders)]),
    ]


def not_this_test(record: Any, bundle: TaskBundle) -> str | None:
    """Why the bundle is not the test the row ran, else None. AgentV 4.42.4 writes one bundle per test id: where
    two suites of a run hold a test of the same id, both folders get one of them. The row's graders tell."""
    v4 = getattr(record, "v4", None)
    recorded = sorted(g.name or "" for g in v4.graders) if v4 is not None else []
    if not recorded or bundle.case is None:
        return None
    bundled = sorted(g.name for g in bundle.case.assertions)
    if bundled == recorded:
        return None
    return (
        f"the run's task bundle is not the test this row ran (its graders are {', '.join(bundled) or 'none'}; the "
        f"row recorded {', '.join(recorded)}): another suite of the run has a test of this id, and AgentV keeps one "
        "bundle per id. Not compared"
    )
