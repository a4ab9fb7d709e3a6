"""Loading the inspector's eval files in steps, first case first, so the first frame never waits for the rest.

Plain Python (no Textual): `load_steps` runs in a worker thread and yields `LoadStep`s, which the screen receives
as messages and applies on the event loop; nothing here writes to the session. The order is:

1. the first eval file, and when it is big, only its first cases: the engine's exporter can cut a big file at
   case boundaries (formatting/export/parallel.py), and a JSONL dataset is cut after a line; its first slice is
   loaded alone, with every line and case index as in the whole file, so the first case shows while the rest is
   still being read;
2. then that file whole (replacing the slice: the final state is a full load, whatever was shown meanwhile), and
   every other file in order.

The case list's rows (which need every case formatted, for its rule) come with each step, in batches for a big
file, so the list fills in as loading goes on.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from turnlens.formatting.evals.files import FileReadError, read_bytes, wide_encoding
from turnlens.formatting.evals.loader import decode_eval_bytes, load_eval_file
from turnlens.formatting.export.parallel import MIN_PARALLEL_BYTES, split_slices
from turnlens.formatting.model import EvalFile, FormattedCase, Profile
from turnlens.formatting.prompts.engine import format_case

from .rows import RULE_SHORT, CaseRow, case_label

FIRST_SLICE_BYTES = 32 * 1024  # roughly what the first frame may load of a big file (about 80 cases)
ROW_BATCH_SECONDS = 0.1  # a big file's rows are sent at least this often while they are being made


@dataclass(frozen=True)
class LoadStep:
    """One file's load (or the first slice of it) and the rows of its first `len(rows)` cases."""

    number: int  # the file's number in the session
    path: str
    eval_file: EvalFile
    rows: tuple[CaseRow, ...]
    partial: bool  # eval_file is the first slice of the file, a whole load follows
    rows_done: bool  # every case of eval_file has its row
    files_done: int  # files whole and with all their rows, this one included when it is
    files_total: int


def case_row(key: str, eval_file: EvalFile, index: int, profile: str) -> tuple[CaseRow, FormattedCase | None]:
    """The case list's row of case `index` of `eval_file` (formatted for its rule), and the formatting."""
    case = eval_file.cases[index]
    label = case_label(case)
    if case.skipped:
        # The skip is the case's status (shown with its reason), not a warning: no ⚠, not found by `warn` or n/N.
        return CaseRow(key, label, None, "", 0, skipped=case.skipped), None
    warnings = sum(1 for d in case.diagnostics if d.severity != "info")
    try:
        formatted = format_case(case, eval_file, _profile(profile))
    except ValueError:
        return CaseRow(key, label, None, "", warnings, skipped="could not be formatted"), None
    ex = formatted.explanation
    return CaseRow(key, label, ex.uses_markers, RULE_SHORT.get(ex.rule, ex.rule), warnings), formatted


def _profile(profile: str) -> Profile:
    return "design" if profile == "design" else "agentv"


def first_slice(path: str) -> tuple[str, int] | None:
    """(text, bytes) of the first cases of a big eval file, cut where the exporter would, or None when the file is
    small or cannot be cut safely (it is then loaded whole)."""
    try:
        raw = read_bytes(path)
    except FileReadError:
        return None  # the whole load words the refusal
    if len(raw) < MIN_PARALLEL_BYTES or wide_encoding(raw) is not None:
        return None
    text, _bad_line = decode_eval_bytes(raw)
    if path.lower().endswith(".jsonl"):
        # A JSONL dataset is a test a line: its first lines are its first tests, at their own line numbers.
        end = text.rfind("\n", 0, FIRST_SLICE_BYTES)
        return (text[: end + 1], len(raw)) if end > 0 else None
    slices = split_slices(text, max(2, min(256, len(text) // FIRST_SLICE_BYTES)))
    if slices is None:
        slices = split_slices(text, 2)  # few, big cases
    if slices is None:
        return None
    return text[: slices[0][4] - 1], len(raw)


def load_steps(
    paths: list[str],
    *,
    repo_root: str,
    cwd: str | None,
    profile: str,
    dialect: str = "auto",
    cancelled: Callable[[], bool] = lambda: False,
) -> Iterator[LoadStep]:
    """Load `paths` (the session's files, in order) step by step; see the module's docstring."""
    total = len(paths)
    for number, path in enumerate(paths):
        if cancelled():
            return
        if number == 0:
            cut = first_slice(path)
            if cut is not None:
                part = load_eval_file(path, repo_root=repo_root, cwd=cwd, text=cut[0], dialect=dialect)
                if part.error is None and part.cases:
                    rows = tuple(case_row(f"0:{c.index}", part, c.index, profile)[0] for c in part.cases)
                    yield LoadStep(0, path, part, rows, True, True, 0, total)
        eval_file = load_eval_file(path, repo_root=repo_root, cwd=cwd, dialect=dialect)
        yield from _rows_in_batches(number, path, eval_file, profile, number + 1, total, cancelled)


def _rows_in_batches(
    number: int,
    path: str,
    eval_file: EvalFile,
    profile: str,
    files_done: int,
    total: int,
    cancelled: Callable[[], bool],
) -> Iterator[LoadStep]:
    """The file with its rows: one step when that is quick, else a step every ROW_BATCH_SECONDS."""
    rows: list[CaseRow] = []
    cases = eval_file.cases if eval_file.error is None else []
    sent = time.perf_counter()
    for case in cases:
        rows.append(case_row(f"{number}:{case.index}", eval_file, case.index, profile)[0])
        if time.perf_counter() - sent > ROW_BATCH_SECONDS and len(rows) < len(cases):
            if cancelled():
                return
            yield LoadStep(number, path, eval_file, tuple(rows), False, False, files_done - 1, total)
            sent = time.perf_counter()
    yield LoadStep(number, path, eval_file, tuple(rows), False, True, files_done, total)


def row_steps(
    number: int, path: str, eval_file: EvalFile, profile: str, cancelled: Callable[[], bool] = lambda: False
) -> Iterator[LoadStep]:
    """The rows of an already loaded file again (for another profile), in batches like a load."""
    yield from _rows_in_batches(number, path, eval_file, profile, number + 1, number + 1, cancelled)
