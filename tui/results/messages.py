"""What the results views' workers report. A worker never writes the view's state: it computes in its thread and
posts one of these; the screen's handler, in the UI thread, stores the result in the model and draws."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from textual.message import Message

from turnlens.formatting.results.index import ScanProgress

from .model import Run, Selection


class IndexProgressed(Message):
    """A run's index grew: `progress` says how far the scan got."""

    def __init__(self, run: Run, progress: ScanProgress) -> None:
        super().__init__()
        self.run = run
        self.progress = progress


class Followed(Message):
    """The current run's file was looked at again: it grew (`added` records) or was truncated / replaced."""

    def __init__(self, run: Run, outcome: str, added: int) -> None:
        super().__init__()
        self.run = run
        self.outcome = outcome
        self.added = added


class RowsSelected(Message):
    """The rows computed for a selection (sort, filter, search)."""

    def __init__(self, selection: Selection, rows: Sequence[int]) -> None:
        super().__init__()
        self.selection = selection
        self.rows = rows


class TextFound(Message):
    """A full-text search finished: `mask` has one byte per record, set where the text is."""

    def __init__(self, run: Run, needle: str, mask: bytearray) -> None:
        super().__init__()
        self.run = run
        self.needle = needle
        self.mask = mask


class DriftChecked(Message):
    """Drift codes of records `start` onwards (`codes`) for the check that fills `marks`, the counts so far, and
    whether the check is done. `note` says why nothing could be checked."""

    def __init__(
        self,
        run: Run,
        marks: bytearray,
        start: int,
        codes: bytes,
        counts: dict[str, int],
        done: bool,
        note: str = "",
    ) -> None:
        super().__init__()
        self.run = run
        self.marks = marks
        self.start = start
        self.codes = codes
        self.counts = counts
        self.done = done
        self.note = note


class RecordLoaded(Message):
    """A result read and drawn for the detail screen: the record, its artifacts, the tabs' texts, the answer."""

    def __init__(self, index: int, record: Any, artifacts: Any, texts: dict[str, Any], answer: str) -> None:
        super().__init__()
        self.index = index
        self.record = record
        self.artifacts = artifacts
        self.texts = texts
        self.answer = answer


class DriftReported(Message):
    """The drift of the result at `index` (a DriftReport, or None when drift is not checked here)."""

    def __init__(self, index: int, report: Any) -> None:
        super().__init__()
        self.index = index
        self.report = report


class PairLoaded(Message):
    """Both results of a compared pair read: the records (None where a run lacks the id) and their answers."""

    def __init__(self, position: int, row: Any, record_a: Any, record_b: Any, answers: list[str]) -> None:
        super().__init__()
        self.position = position
        self.row = row
        self.record_a = record_a
        self.record_b = record_b
        self.answers = answers


class Compared(Message):
    """Both runs are indexed and paired."""

    def __init__(self, comparison: Any) -> None:
        super().__init__()
        self.comparison = comparison


class RunsAppeared(Message):
    """New runs in the folder of runs on screen (RunSource each, newest first)."""

    def __init__(self, sources: Sequence[Any]) -> None:
        super().__init__()
        self.sources = sources
