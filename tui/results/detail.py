"""The detail screens: one result in full (tabs: input, answer, verdict, grader prompt, drift, timing, raw) and the
two results of a pair side by side. A record is read and its tabs drawn (texts.py) in a worker thread, which posts
them (messages.py); the screen shows what arrives for the result still on screen."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.style import Style
from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.widgets import Markdown, Static, TabbedContent, TabPane, Tree
from textual.worker import get_current_worker

from turnlens.formatting.cancel import Cancelled
from turnlens.formatting.results.artifacts import Artifacts, load_artifacts, test_folder
from turnlens.formatting.results.compare import CompareRow
from turnlens.formatting.results.index import ResultsFile
from turnlens.formatting.results.queries import DEFAULT_THRESHOLD
from turnlens.formatting.results.record import ResultRecord
from turnlens.formatting.results.threshold import own_threshold
from turnlens.formatting.sanitize import sanitize as sanitize_copy

from ..actions import bindings, table_commands
from ..commands import TableCommands
from ..untrusted import sanitize
from ..widgets.footer import FittingFooter
from .commands import show_help
from .keys import DETAIL_ACTIONS, PAIR_ACTIONS
from .messages import DriftReported, PairLoaded, RecordLoaded
from .model import Walk, is_failing
from .texts import (
    DIM,
    TABS,
    drift_text,
    evaluator_text,
    literal,
    mark_hits,
    raw_text,
    request_text,
    side_title,
    side_verdict,
    timing_text,
    title_text,
    verdict_text,
)
from .theming import ThemedScreen
from .transcript import fill, transcript_tree
from .widgets import (
    status_style,
)

if TYPE_CHECKING:  # (imported where used)
    from turnlens.formatting.results.drift import DriftChecker

MARKDOWN_LIMIT = 40_000  # longer answers are shown as plain text: the Markdown widget builds a widget per block


def _own_threshold(record: ResultRecord, run_folder: str | None) -> float | None:
    """The test's own execution.threshold, as its task bundle in the run folder keeps it."""
    if run_folder is None or record.v4 is None:
        return None

    folder = test_folder(record, run_folder)
    return own_threshold(os.path.join(folder, "task", "EVAL.yaml")) if folder is not None else None


def _tab_title(key: str, label: str) -> Content:
    """A tab's title with the key that opens it, set apart (the tab bar reads markup: built as Content). The key is
    bold and underlined in the tab's own colour: in the accent colour it was unreadable on the highlighted tab of most
    themes (the tab bar's cursor is close to the accent) and on the light ones' background."""
    return Content.assemble((key, "bold underline"), " ", label)


def answer_widget(answer: str, classes: str) -> Markdown | Static:
    """The candidate answer as Markdown (code highlighted), or as literal text when it is too long."""
    if not answer:
        return Static(Text("(no candidate answer)", style=Style(italic=True, dim=True)), classes=classes)
    if len(answer) > MARKDOWN_LIMIT:
        return Static(literal(answer), classes=classes, markup=False)
    return Markdown(sanitize(answer), classes=classes)


class ResultDetailScreen(ThemedScreen):
    """One result in full. ] / [ walk the list in its current order, n / N jump to the next / previous failing
    result (as n / N go to the next case with warnings in the eval view); 1–7 pick a tab; esc goes back."""

    COMMANDS = {TableCommands}
    BINDINGS = bindings(DETAIL_ACTIONS)

    def __init__(
        self,
        results: ResultsFile,
        rows: Sequence[int],
        position: int,
        *,
        threshold: float = DEFAULT_THRESHOLD,
        threshold_source: str = "",
        drift: DriftChecker | None = None,
        tab: str = "request",
        run_folder: str | None = None,
        highlight: str = "",
    ) -> None:
        super().__init__()
        self.results = results
        self.walk = Walk(rows, position)
        self.threshold = threshold
        self.threshold_source = threshold_source
        self.drift = drift
        self.initial_tab = tab
        self.run_folder = run_folder
        self.highlight = highlight
        self.record: ResultRecord | None = None
        self.artifacts: Artifacts | None = None

    def compose(self) -> ComposeResult:
        yield Static(Text("loading…", style="dim"), id="detail-title")
        with TabbedContent(initial=self.initial_tab):
            with TabPane(_tab_title("1", "Input"), id="request"):
                with VerticalScroll(id="request-scroll"):
                    yield Static(id="request-text", markup=False)
            with TabPane(_tab_title("2", "Answer"), id="answer-tab"):
                yield VerticalScroll(id="answer-scroll")
            with TabPane(_tab_title("3", "Verdict"), id="verdict"):
                with VerticalScroll(id="verdict-scroll"):
                    yield Static(id="verdict-text", markup=False)
            with TabPane(_tab_title("4", "Grader"), id="evaluator"):
                with VerticalScroll(id="evaluator-scroll"):
                    yield Static(id="evaluator-text", markup=False)
            with TabPane(_tab_title("5", "Drift"), id="drift"):
                with VerticalScroll(id="drift-scroll"):
                    yield Static(Text("checking…", style="dim"), id="drift-text", markup=False)
            with TabPane(_tab_title("6", "Timing"), id="timing"):
                with VerticalScroll(id="timing-scroll"):
                    yield Static(id="timing-text", markup=False)
            with TabPane(_tab_title("7", "Raw"), id="raw"):
                with VerticalScroll(id="raw-scroll"):
                    yield Static(id="raw-text", markup=False)
            with TabPane(_tab_title("8", "Transcript"), id="transcript"):
                yield transcript_tree()
        yield FittingFooter()

    def on_mount(self) -> None:
        self.follow_theme()
        self._load(self.walk.current)

    def redraw(self) -> None:
        self._load(self.walk.current)

    def _show_title(self) -> None:
        """The result's header, fitted to the screen's width (on the UI thread: it is small and follows resizes)."""
        if self.record is not None:
            width = self.query_one("#detail-title", Static).content_size.width or self.size.width - 2
            title = title_text(self.record, self.threshold, self.walk.label, width)
            self.query_one("#detail-title", Static).update(title)

    def on_resize(self, event: events.Resize) -> None:
        self.call_after_refresh(self._show_title)  # (once the title's row has its new width)

    @work(thread=True, exclusive=True, group="record")
    def _load(self, index: int) -> None:
        record = self.results.record(index)
        # artifacts of this one result only, read here: a run folder of 50 000 tests is never read as a whole
        artifacts = load_artifacts(record, self.run_folder) if self.run_folder and record.v4 is not None else None
        # the Text objects are built here too: highlighting 100 000 characters must not stall the UI thread
        texts = {
            "request": request_text(record, artifacts),
            "verdict": verdict_text(
                record,
                self.threshold,
                self.threshold_source,
                _own_threshold(record, self.run_folder),
                artifacts.grading if artifacts is not None else None,
            ),
            "evaluator": evaluator_text(record),
            "timing": timing_text(record, artifacts),
            "raw": raw_text(record),
        }
        answer = record.candidate_answer
        if not answer and artifacts is not None and artifacts.answer is not None:
            answer = artifacts.answer
        self.post_message(RecordLoaded(index, record, artifacts, texts, answer))
        report = None
        if self.drift is not None:
            worker = get_current_worker()
            try:  # (the eval files under the results file's folder, found once: a walk q stops)
                self.drift.find_eval_paths(lambda: worker.is_cancelled)
            except Cancelled:
                return
            try:
                report = self.drift.check(record)
            except Exception as error:  # the engine failing on one case is shown, not raised
                from turnlens.formatting.results.drift import DriftReport

                report = DriftReport("eval refused", f"the engine failed: {error}")
        self.post_message(DriftReported(index, report))

    def _current_index(self) -> int:
        index: int = self.walk.current  # (the rows are indexes here)
        return index

    @on(RecordLoaded)
    def _show(self, message: RecordLoaded) -> None:
        index, texts, answer = message.index, message.texts, message.answer
        if index != self._current_index():
            return
        self.record = message.record
        self.artifacts = message.artifacts
        artifacts = message.artifacts
        fill(
            self.query_one("#transcript-tree", Tree),
            artifacts.transcript if artifacts is not None else None,
            artifacts.spans if artifacts is not None else None,
        )
        self._show_title()
        found: dict[str, int] = {}
        for name in ("request", "verdict", "evaluator", "timing", "raw"):
            first = mark_hits(texts[name], self.highlight)
            if first is not None:
                found[name] = first
            self.query_one(f"#{name}-text", Static).update(texts[name])
        scroll = self.query_one("#answer-scroll", VerticalScroll)
        scroll.remove_children()
        if self.highlight and self.highlight.lower() in answer.lower():
            shown = literal(answer)
            first = mark_hits(shown, self.highlight)
            if first is not None:
                found["answer"] = first
                texts["answer"] = shown
            scroll.mount(Static(shown, classes="answer", markup=False))
        else:
            scroll.mount(answer_widget(answer, "answer"))
        if found:
            # after a full-text search: the first tab holding the text, scrolled to its first occurrence
            tab = next(name for name in TABS if name in found)
            self.action_tab(tab)
            self.call_after_refresh(self._scroll_to_match, tab, texts.get(tab), found[tab])

    def _scroll_to_match(self, tab: str, text: Text | None, offset: int) -> None:
        scroll = self.query_one(f"#{tab}-scroll", VerticalScroll)
        width = max(10, scroll.scrollable_content_region.width)
        if text is None:
            return
        before = text[:offset]
        line = 0
        console = self.app.console
        for part in before.split("\n", allow_blank=True):
            line += max(1, len(part.wrap(console, width)))
        scroll.scroll_to(y=max(0, line - 3), animate=False)

    @on(DriftReported)
    def _show_drift(self, message: DriftReported) -> None:
        if message.index != self._current_index():
            return
        self.query_one("#drift-text", Static).update(drift_text(message.report))

    def action_back(self) -> None:
        self.dismiss()

    def action_step(self, step: int) -> None:
        if self.walk.step(step):
            self._moved()

    def _moved(self) -> None:
        self.query_one("#drift-text", Static).update(Text("checking…", style="dim"))
        self._load(self.walk.current)

    def action_failing(self, step: int) -> None:
        """The next (or previous) result that errored or scored under the threshold, in list order."""
        if self.walk.next_where(step, lambda index: is_failing(self.results, index, self.threshold)):
            self._moved()
        else:
            self.notify("No further failing result in this direction.", timeout=2)

    def action_tab(self, tab: str) -> None:
        self.query_one(TabbedContent).active = "answer-tab" if tab == "answer" else tab
        if tab == "transcript":
            self.query_one("#transcript-tree", Tree).focus()  # the arrows walk the turns at once

    def action_copy(self) -> None:
        """Copy the selected text, else the text of the tab on screen (the answer as recorded)."""
        selected = self.get_selected_text() if hasattr(self, "get_selected_text") else None
        text = selected
        if not text:
            active = self.query_one(TabbedContent).active
            if active == "answer-tab":
                text = self.record.candidate_answer if self.record is not None else ""
                if not text and self.artifacts is not None:
                    text = self.artifacts.answer or ""
            else:
                rendered = self.query_one(f"#{active}-text", Static).render()
                text = rendered.plain if isinstance(rendered, Text) else str(rendered)
        if text:
            text = sanitize_copy(text)  # the recorded answer is untrusted: its escapes stay visible when pasted
            self.app.copy_to_clipboard(text)
            self.notify(f"Copied {len(text):,} characters", timeout=2)

    def palette_commands(self) -> list[tuple[str, str, str]]:
        return table_commands(self, DETAIL_ACTIONS)

    def action_help(self) -> None:
        show_help(self, (DETAIL_ACTIONS,))


class CompareDetailScreen(ThemedScreen):
    """The two answers (and verdicts) of one id side by side. ] / [ walk the compared pairs, n / N jump to the
    next / previous pair that changed."""

    COMMANDS = {TableCommands}
    BINDINGS = bindings(PAIR_ACTIONS)

    def __init__(
        self,
        a: ResultsFile,
        b: ResultsFile,
        rows: Sequence[CompareRow],
        position: int,
        *,
        threshold: float = DEFAULT_THRESHOLD,
        names: tuple[str, str] | None = None,
        run_folders: tuple[str | None, str | None] = (None, None),
    ) -> None:
        super().__init__()
        self.a = a
        self.b = b
        self.walk = Walk(rows, position)
        self.threshold = threshold
        self.names = names or (a.name, b.name)
        self.run_folders = run_folders
        self.side: str | None = None  # "a" / "b" once chosen (tab, click): `c` copies that side, else the pair
        # (row, record A, record B, answers) on screen
        self._shown: tuple[CompareRow, ResultRecord | None, ResultRecord | None, list[str]] | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="pair-title", markup=False)
        with Horizontal(id="sides"):
            for side in ("a", "b"):
                with VerticalScroll(classes="side", id=f"side-{side}"):
                    yield Static(classes="side-title", id=f"title-{side}", markup=False)
                    yield Static(classes="side-verdict", id=f"verdict-{side}", markup=False)
        yield FittingFooter()

    def on_mount(self) -> None:
        self.follow_theme()
        self._load(self.walk.position)

    def redraw(self) -> None:
        self._load(self.walk.position)

    @work(thread=True, exclusive=True, group="pair")
    def _load(self, position: int) -> None:
        row = self.walk.rows[position]
        record_a = self.a.record(row.a) if row.a is not None else None
        record_b = self.b.record(row.b) if row.b is not None else None
        answers = []
        for record, folder in ((record_a, self.run_folders[0]), (record_b, self.run_folders[1])):
            answer = record.candidate_answer if record is not None else ""
            if record is not None and not answer and folder and record.v4 is not None:
                answer = load_artifacts(record, folder).answer or ""  # slim index rows keep it in answer.md
            answers.append(answer)
        self.post_message(PairLoaded(position, row, record_a, record_b, answers))

    @on(PairLoaded)
    def _show(self, message: PairLoaded) -> None:
        position, row, record_a, record_b, answers = (
            message.position,
            message.row,
            message.record_a,
            message.record_b,
            message.answers,
        )
        if position != self.walk.position:
            return
        self._shown = (row, record_a, record_b, answers)
        title = Text(end="")
        title.append(sanitize(row.key), style="bold")
        title.append(f"  {row.status}", style=status_style(row.status))
        if row.delta is not None:
            title.append(f"  Δ {row.delta:+.2f}", style=DIM)
        title.append(f"  {self.walk.label}", style=DIM)
        self.query_one("#pair-title", Static).update(title)
        sides = (("a", "A  " + self.names[0], record_a, answers[0]), ("b", "B  " + self.names[1], record_b, answers[1]))
        for side, name, record, answer_text in sides:
            self.query_one(f"#title-{side}", Static).update(side_title(name, record, self.threshold))
            self.query_one(f"#verdict-{side}", Static).update(side_verdict(record, self.threshold))
            scroll = self.query_one(f"#side-{side}", VerticalScroll)
            for old in scroll.query(".side-answer"):
                old.remove()
            answer = answer_widget(answer_text, "side-answer")
            scroll.mount(answer, after=f"#title-{side}")

    def action_back(self) -> None:
        self.dismiss()

    def action_side(self, step: int) -> None:
        """tab / shift+tab: the other side (from none: A forwards, B backwards)."""
        if self.side is None:
            self.side = "a" if step > 0 else "b"
        else:
            self.side = "b" if self.side == "a" else "a"
        self.query_one(f"#side-{self.side}", VerticalScroll).focus()

    def on_click(self, event: events.Click) -> None:
        widget = getattr(event, "widget", None)
        for node in widget.ancestors_with_self if widget is not None else ():
            if node.id in ("side-a", "side-b"):
                self.side = node.id[-1]
                return

    def side_text(self, side: str) -> str:
        """One side as plain text: run name, score, error; the answer; the verdict."""
        if self._shown is None:
            return ""
        _row, record_a, record_b, answers = self._shown
        number = 0 if side == "a" else 1
        record = record_a if number == 0 else record_b
        name = f"{side.upper()}  {self.names[number]}"
        parts = [
            side_title(name, record, self.threshold).plain,
            answers[number],
            side_verdict(record, self.threshold).plain,
        ]
        return "\n\n".join(part.strip("\n") for part in parts if part and part.strip())

    def pair_text(self) -> str:
        """The pair as plain text: id, status and Δ, then side A and side B."""
        if self._shown is None:
            return ""
        row = self._shown[0]
        head = f"{row.key}  {row.status}" + (f"  Δ {row.delta:+.2f}" if row.delta is not None else "")
        return f"{head}\n\n{self.side_text('a')}\n\n{self.side_text('b')}\n"

    def action_copy(self) -> None:
        """Copy the selected text, else the side chosen (tab, click), else the whole pair."""
        selected = self.get_selected_text() if hasattr(self, "get_selected_text") else None
        what = "the selection"
        text = selected
        if not text:
            if self.side is not None:
                text, what = self.side_text(self.side), f"side {self.side.upper()}"
            else:
                text, what = self.pair_text(), "the pair"
        if text:
            text = sanitize_copy(text)  # recorded answers are untrusted: their escapes stay visible when pasted
            self.app.copy_to_clipboard(text)
            self.notify(f"Copied {what} ({len(text):,} characters)", timeout=2)

    def action_step(self, step: int) -> None:
        if self.walk.step(step):
            self._load(self.walk.position)

    def action_changed(self, step: int) -> None:
        if self.walk.next_where(step, lambda row: row.changed):
            self._load(self.walk.position)
        else:
            self.notify("No further changed pair in this direction.", timeout=2)

    def palette_commands(self) -> list[tuple[str, str, str]]:
        return table_commands(self, PAIR_ACTIONS)

    def action_help(self) -> None:
        show_help(self, (PAIR_ACTIONS,))
