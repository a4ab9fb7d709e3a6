"""Loading the inspector's eval files in steps, first case first, so the first frame never waits for the rest.

Plain Python (no Textual): `load_steps` runs in a worker thread and yields `LoadStep`s, which the screen receives
as messages and applies on the event loop; nothing here writes to the session. The order is:

1. the first eval file, and when it is big, only its first cases: the engine can cut a big file at case
   boundaries (formatting/evals/slices.py), and a JSONL dataset is cut after a line; its first slice is loaded
   alone, with every line and case index as in the whole file, so the first case shows while the rest is still
   being read (the parts after it are found as they are loaded);
2. then the rest of that file: a big file that can be cut is loaded slice after slice, each step extending the
   previous one (the same case objects, the next cases appended), so that the parse tree of only one slice is
   alive at a time (a whole 2 MB file's tree is ~90 MB; what is kept of it ~30 MB); a file that cannot be cut is
   loaded whole (replacing its first slice), and so is one whose slice was refused: the final state is that of a
   full load whatever was shown meanwhile;
3. every other file in order.

The case list's rows (which need every case formatted, for its rule) come with each step, in batches for a big
file, so the list fills in as loading goes on.
"""

from __future__ import annotations

import dataclasses
import os
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass

from turnlens.formatting.cancel import Cancelled, check, never
from turnlens.formatting.dialects.format import case_summary
from turnlens.formatting.dialects.load import load_eval_file
from turnlens.formatting.dialects.registry import cut_at
from turnlens.formatting.evals.files import FileReadError, read_bytes, read_head, wide_encoding
from turnlens.formatting.evals.loader import OUT_OF_MEMORY
from turnlens.formatting.evals.references import NOT_UTF8, decode_eval_bytes
from turnlens.formatting.evals.slices import CutRefused, Slice, drop_borrowed, sized_slices, slice_piece
from turnlens.formatting.memlimit import limit_hit
from turnlens.formatting.model import Diagnostic, EvalFile, Profile

from .rows import RULE_SHORT, CaseRow, case_label

FIRST_SLICE_BYTES = 8 * 1024  # what the first frame loads of a big file (about 20 cases: a screenful of rows)
# and at most this many cases (a suite of one-line tests holds 150 in 8 KB, each parsed and made a row before the
# first frame, which lists a screenful)
FIRST_SLICE_CASES = 64
# A file from this size on is big: its first slice is loaded alone for the first frame. Loaded whole before it, a
# file of 100 KB (300 cases) delayed the first frame by ~70 ms, one of 240 KB by ~160 ms.
CUT_FROM_BYTES = 32 * 1024
# The slices after the first: a parse tree of ~6 MB at a time, a step per ~300 cases; small enough that the worker,
# which stops between parts when the app quits, lets it quit within a second on a busy machine.
SLICE_BYTES = 128 * 1024
JSONL_PART_BYTES = 64 * 1024  # a JSONL dataset's parts: ~1,000 short tests
# A big file is cut before the first frame (its first cases drawn in it) up to this size; a bigger one is cut by the
# loading worker after the first frame (cutting a 35 MB file took seconds of the event loop on a busy machine).
QUICK_CUT_MAX_BYTES = 8 << 20
ROW_BATCH_SECONDS = 0.1  # a big file's rows are sent at least this often while they are being made


@dataclass(frozen=True)
class LoadStep:
    """One file's load (or the first slice of it) and the rows of its first `len(rows)` cases."""

    number: int  # the file's number in the session
    path: str
    eval_file: EvalFile
    rows: tuple[CaseRow, ...]
    partial: bool  # eval_file is the first part of the file, more of it (or a whole load) follows
    rows_done: bool  # every case of eval_file has its row
    files_done: int  # files whole and with all their rows, this one included when it is
    files_total: int
    extends: bool = False  # eval_file is the one last sent for this file with more cases: same objects, appended
    note: str | None = None  # loading stopped here (the memory limit): what was left out, for the banner
    # What applying it makes the file depend on, with the mtimes (Session.dependencies), when the loading worker found
    # it already: all of it, or for `extends`, what its new cases add (None: found when it is applied)
    dependencies: Mapping[str, int | None] | None = None


def case_row(key: str, eval_file: EvalFile, index: int, profile: str) -> CaseRow:
    """The case list's row of case `index` of `eval_file`: its rule and badge as formatting it says, its prompts
    not rendered (they wait until the case is shown: rendering every case's made listing a folder of 3,000 files
    cost half again what its loading did)."""
    case = eval_file.cases[index]
    label = case_label(case)
    if case.skipped:
        # The skip is the case's status (shown with its reason), not a warning: no ⚠, not found by `warn` or n/N.
        return CaseRow(key, label, None, "", 0, skipped=case.skipped)
    warnings = sum(1 for d in case.diagnostics if d.severity != "info")
    try:
        rule, markers = case_summary(case, eval_file, _profile(profile))
    except ValueError:
        return CaseRow(key, label, None, "", warnings, skipped="could not be formatted")
    return CaseRow(key, label, markers, RULE_SHORT.get(rule, rule), warnings)


def _profile(profile: str) -> Profile:
    return "design" if profile == "design" else "agentv"


class Parts:
    """A big file's parts, in order, made as they are first taken (cutting a 50 MB suite whole took a second before
    its first case could show) and kept: they can be gone through again."""

    def __init__(self, parts: Iterable[Slice]) -> None:
        self._source = iter(parts)
        self._made: list[Slice] = []

    def __iter__(self) -> Iterator[Slice]:
        n = 0
        while True:
            if n == len(self._made):
                part = next(self._source, None)
                if part is None:
                    return
                self._made.append(part)
            yield self._made[n]
            n += 1


@dataclass(frozen=True)
class Cut:
    """A big eval file cut at case boundaries: its text and its parts, the first one small."""

    text: str
    first: Slice  # the first part: where the header ends (each part's text starts with it)
    parts: Parts  # what is loaded, in order: the first part, then parts of about SLICE_BYTES
    bad_line: int | None  # the first line with bytes that are not UTF-8
    jsonl: bool = False  # a JSONL dataset: each part is (lines before it, 0, 0, start, end) of the text

    def part_text(self, part: Slice) -> str:
        """A part's text, at its own line numbers in the file."""
        if self.jsonl:
            return "\n" * part.start_line + self.text[part.start_offset : part.end_offset]
        return slice_piece(self.text, self.first, part)

    def is_last(self, part: Slice) -> bool:
        """Whether `part` runs to the end of the file (a YAML file's last slice ends one past it)."""
        return part.end_offset >= len(self.text)


def jsonl_parts(text: str, size: int = 0) -> Iterator[Slice]:
    """A JSONL dataset cut after a line every `size` characters (JSONL_PART_BYTES): the lines before each part and
    its offsets, each found as it is taken."""
    size = size or JSONL_PART_BYTES
    start = lines = 0
    while start < len(text):
        end = text.find("\n", start + size)
        end = len(text) if end < 0 else end + 1
        yield Slice(lines, lines, 0, start, end)  # (its line count and first case are not needed)
        lines += text.count("\n", start, end)
        start = end


def cut_file(path: str, dialect: str = "auto", cancelled: Callable[[], bool] = never) -> Cut | None:
    """A big eval file cut where the exporter would, or None when it is small, a JSONL dataset, or cannot be cut
    safely (it is then loaded whole). Its parts are found as they are loaded. Raises Cancelled once `cancelled()`
    says so (the file is read, decoded and searched in steps)."""
    try:
        if os.stat(path).st_size < CUT_FROM_BYTES:
            return None  # (not read twice: most files of a folder are small)
        raw = read_bytes(path)
    except (OSError, FileReadError):
        return None  # the whole load words the refusal
    if len(raw) < CUT_FROM_BYTES or wide_encoding(raw) is not None or path.lower().endswith(".json"):
        return None
    check(cancelled)
    text, bad_line = decode_eval_bytes(raw, cancelled)
    del raw
    if path.lower().endswith(".jsonl"):
        parts = Parts(jsonl_parts(text))
        return Cut(text, next(iter(parts)), parts, bad_line, jsonl=True)
    cut = cut_at(path, text, dialect)
    if cut is None:
        return None
    check(cancelled)
    sized = sized_slices(
        text,
        cut[0],
        FIRST_SLICE_BYTES,
        SLICE_BYTES,
        min_bytes=CUT_FROM_BYTES,
        cancelled=cancelled,
        first_items=FIRST_SLICE_CASES,
    )
    if sized is None:
        return None
    parts = Parts(sized)
    try:
        return Cut(text, next(iter(parts)), parts, bad_line)
    except CutRefused:
        return None  # (its first slice's lines are not all nested in the list)


def first_slice(path: str) -> tuple[str, int] | None:
    """(text, bytes) of the first cases of a big eval file (as `cut_file` cuts it; for a JSONL dataset, its first
    lines), or None when it is loaded whole."""
    if path.lower().endswith(".jsonl"):
        # A JSONL dataset is a test a line: its first lines are its first tests, at their own line numbers; only
        # they are read (the whole load reads the rest).
        try:
            size = os.stat(path).st_size
            head = read_head(path, FIRST_SLICE_BYTES)
        except (OSError, FileReadError):
            return None
        end = head.rfind(b"\n")
        if size < CUT_FROM_BYTES or wide_encoding(head) is not None or end <= 0:
            return None
        return decode_eval_bytes(head[: end + 1])[0], size
    cut = cut_file(path)
    if cut is None:
        return None
    return cut.part_text(cut.first), len(cut.text)


class SliceRefused(Exception):
    """A slice was refused, or read otherwise than the first: the file is loaded whole instead."""


def load_in_slices(
    path: str,
    cut: Cut,
    *,
    repo_root: str,
    cwd: str | None,
    dialect: str,
    kept: int = 0,
    baseline: int = 0,
    cancelled: Callable[[], bool] = never,
) -> Iterator[tuple[EvalFile, str | None, bool]]:
    """The file loaded part after part: each EvalFile yielded is the previous one with the next part's cases
    appended (the same case objects), the last one (done: True) the whole file, or as much of it as the memory
    limit lets the inspector keep (`kept`: cases kept of other files already); then its note says what was left
    out. Raises SliceRefused for a part the loader refused (the whole load then says why, as it would have), and
    Cancelled before a part once `cancelled()` says so."""
    merged: EvalFile | None = None
    for part in _refusing(cut.parts):
        check(cancelled)
        loaded = load_eval_file(
            path,
            repo_root=repo_root,
            cwd=cwd,
            text=cut.part_text(part),
            first_case_index=len(merged.cases) if cut.jsonl and merged is not None else part.load_first_case,
            dialect=dialect,
        )
        if part.borrowed and loaded.error is None:  # the cases of earlier items read for their anchors
            loaded.cases, loaded.diagnostics = drop_borrowed(loaded.cases, loaded.diagnostics, part)
        if loaded.error is not None and loaded.error.message.startswith(OUT_OF_MEMORY) and merged is not None:
            raise MemoryError  # (the loader refused the part for it): stop here, not load the whole file again
        if loaded.error is not None or (merged is not None and loaded.dialect != merged.dialect):
            raise SliceRefused
        merged = _merged(merged, loaded, cut.bad_line)
        last = cut.is_last(part)
        note = None if last else memory_note(path, kept + len(merged.cases), baseline)
        yield merged, note, last or note is not None
        if note is not None:
            return


def _refusing(parts: Iterable[Slice]) -> Iterator[Slice]:
    """`parts`, a SliceRefused raised where the text past the parts taken cannot be cut after all (CutRefused: the
    lines of a big file's parts after the first are checked as the second is made, not before the first frame)."""
    try:
        yield from parts
    except CutRefused:
        raise SliceRefused from None


# The inspector keeps every case it lists (and its parse); once a load has added this much memory in use it stops
# loading, says so, and lists what it has: a dataset of a million tests would take gigabytes. `turnlens export`
# streams and has no such limit. (What the load adds, not the process's total: the limit must not depend on what
# else the process holds, such as a results view or, in the tests, every app run before.) Below 300 MiB with room to
# spare: the app's own ~40 MiB, and the part being loaded when the limit is passed, come on top.
MEMORY_LIMIT = 224 << 20
MAX_CASES = 400_000  # the limit where resident memory cannot be read


def resident_bytes() -> int | None:
    """The process's resident memory now, where the system says it cheaply (Linux); else None."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


def memory_note(path: str, cases: int, baseline: int = 0) -> str | None:
    """Why loading stops after `cases` cases, or None while there is room for more. `baseline`: the resident
    memory when the load began."""
    resident = resident_bytes()
    if (max(resident - baseline, 0) < MEMORY_LIMIT) if resident is not None else (cases < MAX_CASES):
        return None
    return stopped_note(path, cases, f"memory in use passed the inspector's limit of {MEMORY_LIMIT >> 20} MiB")


def stopped_note(path: str | None, cases: int, why: str) -> str:
    """What the banner says when loading stopped short (`path`: the file it stopped in, when known)."""
    rest = f"the rest of {os.path.basename(path)} and any later file are" if path else "the cases not loaded yet are"
    return f"Loading stopped after {cases:,} cases ({why}): {rest} not listed; `turnlens export` reads all of it"


def _merged(before: EvalFile | None, part: EvalFile, bad_line: int | None) -> EvalFile:
    """`before` with `part`'s cases appended; the file-level facts (config, dialect, suite) are the first part's,
    as every part reads the same header, and a diagnostic it repeats is said once."""
    if before is None:
        if bad_line is not None:  # a whole load says it; the loader reading text cannot know
            part.diagnostics.insert(0, Diagnostic(part.path, bad_line, NOT_UTF8, "info"))
        return part
    said = {(d.file, d.line, d.message) for d in before.diagnostics}
    more = [d for d in part.diagnostics[len(part.config.diagnostics) :] if (d.file, d.line, d.message) not in said]
    return dataclasses.replace(
        before,
        cases=before.cases + part.cases,
        diagnostics=before.diagnostics + more,
        watched_paths=before.watched_paths | part.watched_paths,
    )


def load_whole(path: str, *, repo_root: str, cwd: str | None, dialect: str) -> EvalFile:
    """A file loaded as `load_steps` loads it (in slices when it is big and can be cut: a lower peak of memory),
    ending as a whole load, or as much of it as the memory limit lets it keep (see load_kept)."""
    return load_kept(path, repo_root=repo_root, cwd=cwd, dialect=dialect)[0]


def load_kept(path: str, *, repo_root: str, cwd: str | None, dialect: str) -> tuple[EvalFile, str | None]:
    """A file loaded again (a reload): as `load_steps` loads it, stopping where what this load adds passes the
    memory limit or memory runs out, with the note that says so (None when the whole file was loaded). The limit
    is measured from the memory in use when the reload begins: the version shown meanwhile is still held."""
    cut = cut_file(path, dialect)
    if cut is not None:
        last: tuple[EvalFile, str | None] | None = None
        try:
            for eval_file, note, _done in load_in_slices(
                path, cut, repo_root=repo_root, cwd=cwd, dialect=dialect, baseline=resident_bytes() or 0
            ):
                last = eval_file, note  # (kept: what to show when memory runs out before the next part)
            if last is not None:
                return last
        except SliceRefused:
            pass
        except MemoryError:
            if last is None:
                raise
            return last[0], stopped_note(path, len(last[0].cases), f"out of memory: {limit_hit()}")
        del cut, last
    return load_eval_file(path, repo_root=repo_root, cwd=cwd, dialect=dialect), None


def quick_first(path: str, dialect: str = "auto") -> tuple[bool, Cut | None]:
    """Whether the first step of `load_steps` for this file is quick enough to make before the first frame (a
    file small enough to load at once, or one whose first part is loaded alone: a big file that can be cut, a JSONL
    dataset's first lines), and the cut made to know it (for `load_steps`, so the file is not cut twice)."""
    try:
        size = os.stat(path).st_size
    except OSError:
        return True, None  # refused at once
    if size < CUT_FROM_BYTES or path.lower().endswith(".jsonl"):
        return True, None
    if size > QUICK_CUT_MAX_BYTES:
        return False, None  # cutting it (reading, decoding, finding its cases) is the worker's
    cut = cut_file(path, dialect)
    return cut is not None, cut


def load_steps(
    paths: list[str],
    *,
    repo_root: str,
    cwd: str | None,
    profile: str,
    dialect: str = "auto",
    cancelled: Callable[[], bool] = never,
    first_cut: Cut | None = None,
) -> Iterator[LoadStep]:
    """Load `paths` (the session's files, in order) step by step; see the module's docstring. `first_cut`: the
    first file's cut, when it was made already (`quick_first`). Loading stops, saying so in the last step's note,
    when memory in use passes MEMORY_LIMIT or runs out. Once `cancelled()` says so (the app quits, the load is
    restarted), it ends at its next look: between a big file's reading, decoding and searches, its parts, and its
    rows, so that no step of more than a few milliseconds is made for nothing."""
    total = len(paths)
    kept = 0  # cases loaded so far
    baseline = resident_bytes() or 0  # the memory limit is on what this load adds
    last: LoadStep | None = None
    try:
        for number, path in enumerate(paths):
            if cancelled():
                return
            if number == 0 and first_cut is None and path.lower().endswith(".jsonl"):
                first = first_slice(path)  # a JSONL dataset's first lines, read alone
                if first is not None:
                    head = load_eval_file(path, repo_root=repo_root, cwd=cwd, text=first[0], dialect=dialect)
                    if head.error is None and head.cases:
                        head_rows = tuple(case_row(f"0:{c.index}", head, c.index, profile) for c in head.cases)
                        yield LoadStep(0, path, head, head_rows, True, True, 0, total)
                    del head, first
            cut = first_cut if number == 0 and first_cut is not None else cut_file(path, dialect, cancelled)
            eval_file: EvalFile | None = None
            note = None
            if cut is not None:
                rows: list[CaseRow] = []
                parts = load_in_slices(
                    path,
                    cut,
                    repo_root=repo_root,
                    cwd=cwd,
                    dialect=dialect,
                    kept=kept,
                    baseline=baseline,
                    cancelled=cancelled,
                )
                try:
                    for n, (part, note, done) in enumerate(parts):
                        for last in _rows_in_batches(
                            number,
                            path,
                            part,
                            profile,
                            total if note is not None else number + 1,
                            total,
                            cancelled,
                            rows=rows,
                            partial=not done,
                            extends=n > 0,
                            note=note,
                        ):
                            yield last
                        if cancelled():
                            return
                        eval_file = part
                except SliceRefused:
                    eval_file = None  # loaded whole below: the refusal worded as for the whole file
                del cut, parts
            if eval_file is None:
                eval_file = load_eval_file(path, repo_root=repo_root, cwd=cwd, dialect=dialect)
                note = memory_note(path, kept + len(eval_file.cases), baseline) if number < total - 1 else None
                for last in _rows_in_batches(
                    number, path, eval_file, profile, total if note else number + 1, total, cancelled, note=note
                ):
                    yield last
            kept += len(eval_file.cases)
            if note is not None:
                return
    except Cancelled:
        return
    except MemoryError:
        if last is not None:
            yield dataclasses.replace(
                last,
                partial=False,
                rows_done=True,
                files_done=total,
                note=stopped_note(last.path, len(last.rows), f"out of memory: {limit_hit()}"),
            )


def _rows_in_batches(
    number: int,
    path: str,
    eval_file: EvalFile,
    profile: str,
    files_done: int,
    total: int,
    cancelled: Callable[[], bool],
    *,
    rows: list[CaseRow] | None = None,
    partial: bool = False,
    extends: bool = False,
    note: str | None = None,
) -> Iterator[LoadStep]:
    """The file with its rows: one step when that is quick, else a step every ROW_BATCH_SECONDS. `rows`: the rows
    made already for the first cases (a file loaded in parts), extended in place. `note`: the last step's."""
    rows = [] if rows is None else rows
    cases = eval_file.cases if eval_file.error is None else []
    sent = time.perf_counter()
    for case in cases[len(rows) :]:
        if cancelled():
            return
        rows.append(case_row(f"{number}:{case.index}", eval_file, case.index, profile))
        if time.perf_counter() - sent > ROW_BATCH_SECONDS and len(rows) < len(cases):
            yield LoadStep(number, path, eval_file, tuple(rows), partial, False, files_done - 1, total, extends)
            extends = True  # the same eval_file again: only rows added
            sent = time.perf_counter()
    yield LoadStep(
        number, path, eval_file, tuple(rows), partial, True, files_done - (1 if partial else 0), total, extends, note
    )


def row_steps(
    number: int, path: str, eval_file: EvalFile, profile: str, cancelled: Callable[[], bool] = lambda: False
) -> Iterator[LoadStep]:
    """The rows of an already loaded file again (for another profile), in batches like a load."""
    yield from _rows_in_batches(number, path, eval_file, profile, number + 1, number + 1, cancelled)
