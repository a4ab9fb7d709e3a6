"""The inspector's view model: what it shows, as plain Python (no Textual, no Rich; an import contract checks).

The screen reads it to draw and drives it with what happens (a load step, a reload, a key); the model decides
which case is selected, the mode and profile, the rows listed so far and the loading progress, the filter's count,
the warnings navigation, the maximised pane, and the words of the subtitle, the jump palette and the editor target.
It can be driven and checked without an app (tests/inspector/test_inspector_model.py).
"""

from __future__ import annotations

import posixpath
from bisect import bisect_left
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from turnlens.formatting.model import EvalCase, EvalFile, FormattedCase

from ..loading import LoadStep
from ..rows import CaseRow, FileEntry, case_label, plural, relativize
from ..session import LoadedFile, Scan, Session

MODES = ("lm", "agent")
PROFILES = ("agentv", "design")


NO_CASE = "No case is shown."  # `e` and `d` with nothing to open: said, not silent


@dataclass(frozen=True)
class StepsApplied:
    """What applying load steps changed, for the screen to redraw."""

    replaced: tuple[str, ...]  # paths of files whose load was replaced (their views are out of date)
    current_replaced: bool  # the selected case's file was among them: draw it again
    errors: bool  # a step brought a refused file or a note: the banner changes
    complete: bool  # every file is loaded and listed


@dataclass(frozen=True)
class WarningJump:
    """Where n / N go: the case to show (None: no case has warnings) and what to say about it."""

    key: str | None
    note: str = ""


class InspectorModel:
    def __init__(self, session: Session, *, mode: str | None = None, profile: str = "agentv") -> None:
        self.session = session
        # The mode the user chose (m, --mode, a sub-screen's m), kept from case to case; None: each case is shown in
        # the mode AgentV would format it in (its target's provider), lm where AgentV says none (0.15 files).
        self.chosen_mode: str | None = mode
        self.profile = profile
        self.current: str | None = None  # the case shown (its key, "<file number>:<case index>")
        self.rows: dict[int, tuple[CaseRow, ...]] = {}  # file number -> the case list's rows made so far
        self._applied: dict[int, EvalFile] = {}  # file number -> the EvalFile of the loading step last applied
        # file number -> (file, generation, load, rows) an entry of file_entries was made of, and the entry
        self._entries: dict[int, tuple[LoadedFile, int, EvalFile | None, tuple[CaseRow, ...], FileEntry]] = {}
        self._listed_files: list[LoadedFile] | None = None  # the session's files the entries below are of
        self._entry_numbers: list[int] = []  # the file numbers of the entries listed, in order
        self._entry_list: list[FileEntry] = []
        self._changed: set[int] | None = set()  # files changed since the entries were made (None: any may have)
        self.progress = (0, len(session.files), False)  # (files done, files, last file's rows all made)
        self.filtered_count: int | None = None  # cases listed while a filter hides some
        self.maximized: str | None = None  # the id of the maximised pane
        self.loaded = False  # every file is loaded and listed (tests and benchmarks wait on it)
        self.reloads = 0  # applied reloads, for tests
        self.prerendered = 0  # completed background prerenders, for benchmarks

    # -- the case shown

    def select(self, key: str | None) -> None:
        """Case `key` is shown (None: no case is)."""
        self.current = key

    # -- mode and profile

    @property
    def mode(self) -> str:
        """The mode the case shown is drawn in."""
        return self.mode_for(self.current)

    def mode_for(self, key: str | None) -> str:
        """The mode case `key` is drawn in: the user's choice, else AgentV's for the case."""
        if self.chosen_mode is not None:
            return self.chosen_mode
        found = self.session.case(key) if key is not None else None
        return (found[1].agentv_mode if found is not None else None) or "lm"

    def toggle_mode(self) -> None:
        """The other mode, from now on the user's choice (kept when another case is shown)."""
        self.chosen_mode = "agent" if self.mode == "lm" else "lm"

    def toggle_profile(self) -> None:
        """Another profile: the rows are made again too (their rule may differ)."""
        self.profile = "design" if self.profile == "agentv" else "agentv"

    def set_mode(self, mode: str | None) -> bool:
        """Take `mode` as the user's choice (a sub-screen hands it back where it was switched there, else None);
        True when the case shown changes mode."""
        if mode not in MODES:
            return False
        before = self.mode
        self.chosen_mode = mode
        return mode != before

    # -- loading

    def apply_steps(self, steps: Iterable[LoadStep]) -> StepsApplied:
        """Take load steps (tui/loading.py) into the session and the rows; a step for a file that is no longer at
        its number (a rescan moved it) is dropped."""
        with self.session.applying():
            return self._apply_steps(steps)

    def _apply_steps(self, steps: Iterable[LoadStep]) -> StepsApplied:
        files = self.session.files
        replaced: list[str] = []
        current_replaced = errors = complete = False
        for step in steps:
            errors = errors or step.eval_file.error is not None
            if step.number >= len(files) or files[step.number].path != step.path:
                continue
            if self._applied.get(step.number) is not step.eval_file:
                if step.extends and step.number in self._applied:
                    # More cases of the file: what was made of those shown already stays valid.
                    self.session.extend(
                        step.number, step.eval_file, partial=step.partial, dependencies=step.dependencies
                    )
                else:
                    # (a step that extends a load not applied here found only what its new cases add)
                    found = None if step.extends else step.dependencies
                    self.session.apply(step.number, step.eval_file, partial=step.partial, dependencies=found)
                    replaced.append(step.path)
                    if self.current is not None and self.current.startswith(f"{step.number}:"):
                        current_replaced = True  # the whole file replaced its first slice
                self._applied[step.number] = step.eval_file
            self.rows[step.number] = step.rows
            if self._changed is not None:
                self._changed.add(step.number)
            if step.note is not None and step.note not in self.session.notes:
                self.session.set_stop_note(step.path, step.note)  # the banner says what is not listed
                errors = True
            self.progress = (step.files_done, step.files_total, step.rows_done and not step.partial)
            complete = step.files_done == step.files_total and step.rows_done and not step.partial
        return StepsApplied(tuple(replaced), current_replaced, errors, complete)

    def apply_reload(
        self,
        scan: Scan | None,
        files: Iterable[tuple[int, EvalFile | None, tuple[CaseRow, ...]]],
        notes: Mapping[str, str | None] | None = None,
    ) -> None:
        """Take a reload (loader.py): the files found again, fresh loads and rows, and per file loaded again where
        the memory limit stopped it (None: nowhere); the selected case is found again by file and id (else by
        position)."""
        notes = notes or {}
        current = self.session.case(self.current) if self.current else None
        anchor = (current[0].path, current[1].id, current[1].index) if current else None
        self._changed = None  # (entries made again: the files may have moved)
        if scan is not None:
            self.session.apply_scan(scan)
            self.rows = {}
        for number, eval_file, rows in files:
            if eval_file is not None:
                self.session.apply(number, eval_file)
            self.rows[number] = rows
        for path, note in notes.items():
            self.session.set_stop_note(path, note)
        self.reloads += 1
        self.current = self.session.find_key(*anchor) if anchor is not None else None

    def load_finished(self) -> None:
        self.loaded = True

    def prerender_finished(self) -> None:
        self.prerendered += 1

    def generations(self) -> dict[str, int]:
        """The load generation of every file, by path (views of an older one are out of date)."""
        return {loaded.path: loaded.generation for loaded in self.session.files}

    # -- what the screen says

    def listed(self) -> int:
        """Cases listed so far."""
        return sum(len(rows) for rows in self.rows.values())

    def set_filtered(self, shown: int, total: int) -> None:
        self.filtered_count = shown if shown != total else None

    def subtitle(self) -> str:
        files = self.session.files
        if not files:
            return "no eval files"
        cases = self.listed()
        shown = self.filtered_count if self.filtered_count is not None else cases
        count = plural(cases, "case") if shown == cases else f"{shown} of {plural(cases, 'case')} shown"
        done, _total, _ = self.progress
        if len(files) == 1:
            return f"{files[0].rel}, {count}" + ("" if self.loaded else " · loading…")
        if self.loaded:
            return f"{len(files)} eval files, {count}"
        return f"{done} of {len(files)} eval files, {count} · loading…"

    def file_entries(self) -> list[FileEntry]:
        """One entry per file loaded so far, with the rows made so far (the list fills in as loading goes on). Only
        the entries of files that load steps changed are looked at again (a load asks for them ten times a second:
        making 3,000 entries each time was quadratic in a folder's files), and one is made again only when its file
        or rows changed (the list then finds the others unchanged by identity)."""
        files = self.session.files
        if files is not self._listed_files or self._changed is None:
            # (a reload or rescan: every file looked at again; one not loaded yet has no entry: the first frame of a
            # folder of 3,000 files looked at each)
            numbers: Iterable[int] = [number for number, loaded in enumerate(files) if loaded.generation]
            self._listed_files, self._entry_numbers, self._entry_list = files, [], []
        else:
            numbers = sorted(self._changed)
        self._changed = set()
        for number in numbers:
            self._update_entry(number)
        return list(self._entry_list)

    def _update_entry(self, number: int) -> None:
        loaded = self.session.files[number]
        at = bisect_left(self._entry_numbers, number)
        listed = at < len(self._entry_numbers) and self._entry_numbers[at] == number
        if not loaded.generation:
            if listed:
                del self._entry_numbers[at], self._entry_list[at]
            return
        rows = self.rows.get(number, ())
        known = self._entries.get(number)
        if (
            known is not None
            and known[0] is loaded
            and known[1] == loaded.generation
            and known[2] is loaded.good
            and known[3] is rows
        ):
            entry = known[4]
        else:
            error = None
            if loaded.error is not None:
                message = relativize(loaded.error.message, self.session.repo_root)
                line = loaded.error.line
                # (AgentV's own words for a JSONL dataset's line start with "Line N:": not said twice)
                said = line and message.lower().startswith(f"line {line}:")
                error = (f"line {line}: " if line and not said else "") + message
            dialect = loaded.good.labels.tag if loaded.good is not None else ""
            entry = FileEntry(loaded.rel, error, loaded.stale, rows, number, dialect)
            self._entries[number] = (loaded, loaded.generation, loaded.good, rows, entry)
        if listed:
            self._entry_list[at] = entry
        else:
            self._entry_numbers.insert(at, number)
            self._entry_list.insert(at, entry)

    def case_choices(self) -> list[tuple[str, str, str]]:
        """(key, label, summary) for every case listed so far, for the jump palette (as written: not sanitised)."""
        choices = []
        for number in sorted(self.rows):
            for row in self.rows[number]:
                choice = self._choice(row)
                if choice is not None:
                    choices.append(choice)
        return choices

    def copy_reference(self) -> str:
        """What `c` copies from the case list: the case's id and where it is written (id<TAB>file:line), as the
        results list copies a result's; "" with no case shown."""
        if self.current is None:
            return ""
        found = self.session.case(self.current)
        if found is None:
            return ""
        path, line = self.session.case_location(self.current)
        where = relativize(path, self.session.repo_root) + (f":{line}" if line else "")
        return f"{case_label(found[1])}\t{where}"

    def _choice(self, row: CaseRow) -> tuple[str, str, str] | None:
        found = self.session.case(row.key)
        if found is None:
            return None
        loaded, case = found
        where = f"{loaded.rel}:{case.line}" if case.line else loaded.rel
        if case.source:  # a test from a case file or a dataset: where it is written there, as the toolbar and c say
            name, _, line = case.source.partition(" line ")
            where = posixpath.normpath(posixpath.join(posixpath.dirname(loaded.rel), name))
            where += f":{line}" if line.isdigit() else ""
        if row.skipped:
            summary = f"skipped: {row.skipped}"
        else:
            summary = ("markers" if row.markers else "flat") + f" · {row.rule}"
            if row.warnings:
                summary += f" · {plural(row.warnings, 'warning')}"
        # The location in brackets, one word with them: wrapped at 80 columns, no separator is left dangling.
        return row.key, row.label, f"{summary} ({where})"

    # -- moving between cases

    def step(self, keys: list[str], direction: int, predicate: Callable[[str], bool] | None = None) -> str | None:
        """The next key after the current one in `keys` (`direction` -1: before it), wrapping round, that
        `predicate` accepts."""
        if not keys:
            return None
        start = keys.index(self.current) if self.current in keys else -1
        for offset in range(1, len(keys) + 1):
            key = keys[(start + direction * offset) % len(keys)]
            if predicate is None or predicate(key):
                return key
        return None

    def has_warnings(self, key: str) -> bool:
        """The case shows a ⚠ in the list (a skipped case shows its reason instead)."""
        number, _, index = key.partition(":")
        listed = self.rows.get(int(number), ()) if number.isdigit() and index.isdigit() else ()
        if index.isdigit() and int(index) < len(listed) and listed[int(index)].key == key:
            return bool(listed[int(index)].warnings)  # the row listed: no case formatted again
        row = self.session.row(key, self.profile)
        return bool(row and row.warnings)

    def warning_jump(self, direction: int) -> WarningJump:
        """The next (`direction` 1) or previous (-1) case with warnings, in file order, saying when it wrapped."""
        keys = self.session.case_keys()
        key = self.step(keys, direction, self.has_warnings)
        if key is None:
            return WarningJump(None, "No case has warnings.")
        if self.current in keys and key != self.current:
            here, there = keys.index(self.current), keys.index(key)
            if (there < here) if direction > 0 else (there > here):
                which = "first" if direction > 0 else "last"
                return WarningJump(key, f"Wrapped around to the {which} case with warnings.")
        return WarningJump(key)

    def first_key(self) -> str | None:
        keys = self.session.case_keys()
        return keys[0] if keys else None

    # -- panes

    def maximize(self, pane_id: str | None) -> None:
        self.maximized = pane_id

    def allows(self, action: str) -> bool:
        """`z` is one key with two footer labels: Max while nothing is maximised, Restore while a pane is."""
        if action == "maximize_pane":
            return self.maximized is None
        if action == "restore_pane":
            return self.maximized is not None
        return True

    # -- other screens

    def grading(self) -> tuple[tuple[EvalCase, FormattedCase] | None, str]:
        """What `e` opens: (case, formatted) of the case shown, or None and why not."""
        found = self.session.case(self.current) if self.current is not None else None
        if found is None or self.current is None:
            return None, NO_CASE
        formatted = self.session.formatted(self.current, self.profile)
        if formatted is None:
            return None, "A skipped case has no grader prompt."
        return (found[1], formatted), ""

    def profile_diff(self) -> tuple[tuple[EvalCase, FormattedCase, FormattedCase, str] | None, str]:
        """What `d` opens: (case, agentv, design, mode) for the case shown, or None and why not."""
        found = self.session.case(self.current) if self.current is not None else None
        if found is None or self.current is None:
            return None, NO_CASE
        agentv = self.session.formatted(self.current, "agentv")
        design = self.session.formatted(self.current, "design")
        if agentv is None or design is None:
            return None, "A skipped case has no chatPrompt to compare."
        return (found[1], agentv, design, self.mode), ""

    def editor_target(self) -> tuple[str, int | None] | None:
        """Where `o` opens the editor: the case where it is written, else a refused file at its error."""
        if self.current is not None and self.session.case(self.current) is not None:
            return self.session.case_location(self.current)
        errors = self.session.errors()
        if errors:
            loaded, error = errors[0]
            return loaded.path, error.line
        return None
