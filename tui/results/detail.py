"""Detail of one result (request, answer, verdict, evaluator prompt, drift) and of a pair of results compared.

A record is parsed in a thread worker (a 10 MB line must not freeze the UI) and every displayed text is cut at
`DISPLAY_LIMIT` characters. Requests are drawn with the eval view's renderers (tui.render): markers and
`<file …>` tags highlighted, chat prompts as message cards. All untrusted text goes through `sanitize` into Text.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.style import Style
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Markdown, Static, TabbedContent, TabPane

from turnlens.formatting.model import Rendered
from turnlens.formatting.results.compare import CompareRow
from turnlens.formatting.results.reader import (
    EvaluatorResult,
    RecordedRequest,
    ResultRecord,
    ResultsFile,
    truncate_text,
)

from ..render import chat_text, highlighted, sanitize
from .screen import ResultsCommands, _action
from .widgets import FAIL, PASS, STATUS_STYLES, WARN, score_bar, score_colour

DISPLAY_LIMIT = 100_000  # characters of one text shown; the rest is summarised
MARKDOWN_LIMIT = 40_000  # longer answers are shown as plain text: the Markdown widget builds a widget per block
HEADING = Style(bold=True, color="#56b6c2")
DIM = Style(dim=True)


def _cut(text: str, limit: int = DISPLAY_LIMIT) -> tuple[str, int]:
    return truncate_text(text, limit)


def _more(out: Text, cut: int) -> None:
    if cut:
        out.append(f"\n… {cut:,} more characters not shown", style=Style(italic=True, color=WARN))


def _literal(text: str, style: Style | str = "") -> Text:
    shown, cut = _cut(text)
    out = Text(sanitize(shown), style=style, end="")
    _more(out, cut)
    return out


def _prompt(text: str) -> Text:
    shown, cut = _cut(text)
    out = highlighted(shown)
    _more(out, cut)
    return out


def _heading(out: Text, title: str, note: str = "") -> None:
    if out.plain:
        out.append("\n\n")
    out.append(title, style=HEADING)
    if note:
        out.append("  " + note, style=DIM)
    out.append("\n")


def title_text(record: ResultRecord, threshold: float, position: str = "") -> Text:
    out = Text(end="")
    out.append(sanitize(record.label), style="bold")
    out.append("  ")
    if record.error is not None:
        out.append(" ERROR ", style=Style(color="black", bgcolor=FAIL, bold=True))
    elif record.score is not None:
        passed = record.score >= threshold
        out.append(
            " PASS " if passed else " FAIL ", style=Style(color="black", bgcolor=PASS if passed else FAIL, bold=True)
        )
    out.append(" ")
    out.append_text(score_bar(record.score, threshold))
    out.append(
        " " + ("—" if record.score is None else f"{record.score:.2f}"), style=score_colour(record.score, threshold)
    )
    for label, value in (("target", record.target), ("dataset", record.dataset), ("at", record.timestamp)):
        if value:
            out.append(f"  {label} ", style=DIM)
            out.append(sanitize(value)[:80])
    out.append(f"\n{sanitize(record.file)}:{record.line}", style=DIM)
    if position:
        out.append(f"  {position}", style=DIM)
    out.no_wrap = True  # two lines, always
    out.overflow = "ellipsis"
    return out


def request_text(record: ResultRecord) -> Text:
    """The recorded requests, drawn the way the eval view draws engine output."""
    out = Text(end="")
    for label, request in (("LM request", record.lm_request), ("Agent request", record.agent_request)):
        if request is None:
            continue
        _request_into(out, label, request)
    if not out.plain:
        out.append("This result recorded no provider request.", style=Style(italic=True, dim=True))
    for problem in record.diagnostics:
        out.append("\n⚠ " + sanitize(str(problem)), style=WARN)
    return out


def _request_into(out: Text, label: str, request: RecordedRequest) -> None:
    if request.chat_prompt is not None:
        _heading(out, label, f"chat_prompt · {len(request.chat_prompt)} messages")
        shown = [type(m)(m.role, _cut(m.content)[0]) for m in request.chat_prompt]
        out.append_text(chat_text(Rendered(request.question or "", request.guidelines or "", shown), "agentv"))
    if request.question is not None:
        _heading(out, label if request.chat_prompt is None else f"{label}: question", "question")
        out.append_text(_prompt(request.question) if request.question else Text("(empty)", style=DIM))
    if request.guidelines is not None or request.guideline_paths:
        _heading(out, f"{label}: guidelines", ", ".join(sanitize(p) for p in request.guideline_paths))
        out.append_text(_prompt(request.guidelines) if request.guidelines else Text("(none)", style=DIM))


def _marks(out: Text, items: list[str], mark: str, colour: str) -> None:
    for item in items:
        if out.plain and not out.plain.endswith("\n"):
            out.append("\n")
        out.append(f" {mark} ", style=f"bold {colour}")
        out.append_text(_literal(item))


def _tab_title(key: str, label: str):
    """A tab's title with the key that opens it, set apart (the tab bar reads markup: built as Content)."""
    from textual.content import Content

    return Content.assemble((key, "bold $accent"), " ", label)


def verdict_text(record: ResultRecord, threshold: float) -> Text:
    out = Text(end="")
    _heading(out, "Score")
    out.append(
        "—" if record.score is None else f"{record.score:.2f}", style=f"bold {score_colour(record.score, threshold)}"
    )
    out.append(f"  (pass at ≥{threshold:.2f})", style=DIM)
    if record.error is not None:
        _heading(out, "Error")
        out.append_text(_literal(record.error, f"bold {FAIL}"))
    _heading(out, "Hits", str(len(record.hits)))
    _marks(out, record.hits, "✓", PASS)
    _heading(out, "Misses", str(len(record.misses)))
    _marks(out, record.misses, "✗", FAIL)
    _heading(out, "Reasoning")
    out.append_text(_literal(record.reasoning) if record.reasoning else Text("(none)", style=DIM))
    if record.evaluator_results:
        _heading(out, "Evaluators", str(len(record.evaluator_results)))
        for evaluator in record.evaluator_results:
            _evaluator_into(out, evaluator, threshold)
    if record.raw_aspects:
        _heading(out, "Raw aspects")
        aspects = record.raw_aspects if isinstance(record.raw_aspects, list) else [record.raw_aspects]
        _marks(out, [a if isinstance(a, str) else str(a) for a in aspects], "•", "#abb2bf")
    return out


def _evaluator_into(out: Text, evaluator: EvaluatorResult, threshold: float) -> None:
    out.append("\n")
    out.append_text(score_bar(evaluator.score, threshold, 8))
    out.append(
        " " + ("—" if evaluator.score is None else f"{evaluator.score:.2f}") + " ",
        style=score_colour(evaluator.score, threshold),
    )
    out.append(sanitize(evaluator.name) or "(unnamed)", style="bold")
    if evaluator.type:
        out.append(f"  {sanitize(evaluator.type)}", style=DIM)
    _marks(out, evaluator.hits, "✓", PASS)
    _marks(out, evaluator.misses, "✗", FAIL)
    if evaluator.reasoning:
        out.append("\n   ")
        out.append_text(_literal(evaluator.reasoning, "italic"))


def evaluator_text(record: ResultRecord) -> Text:
    out = Text(end="")
    request = record.evaluator_request
    if request is None:
        out.append("This result recorded no evaluator request.", style=Style(italic=True, dim=True))
        return out
    if request.target:
        _heading(out, "Evaluator target")
        out.append(sanitize(request.target))
    _heading(out, "System prompt")
    out.append_text(_prompt(request.system_prompt) if request.system_prompt else Text("(none)", style=DIM))
    _heading(out, "User prompt")
    out.append_text(_prompt(request.user_prompt) if request.user_prompt else Text("(none)", style=DIM))
    return out


DRIFT_BADGES = {
    "equal": ("EQUAL", PASS),
    "drifted": ("DRIFTED", WARN),
    "eval not found": ("EVAL NOT FOUND", "#7f848e"),
    "nothing recorded": ("NOTHING RECORDED", "#7f848e"),
    "eval refused": ("EVAL REFUSED", FAIL),
    "case skipped": ("CASE SKIPPED", "#7f848e"),
}


def drift_text(report) -> Text:
    """A DriftReport: badge, one-line reason, then each compared field (equal, or its unified diff coloured)."""
    out = Text(end="")
    if report is None:
        out.append("Drift is not checked here.", style=Style(italic=True, dim=True))
        return out
    badge, colour = DRIFT_BADGES.get(report.status, (report.status.upper(), WARN))
    out.append(f" {badge} ", style=Style(color="black", bgcolor=colour, bold=True))
    out.append("  " + sanitize(report.message))
    for field in report.fields:
        out.append("\n\n")
        if field.equal:
            out.append("= ", style=f"bold {PASS}")
            out.append(field.field, style="bold")
            out.append("  unchanged", style=DIM)
            continue
        out.append("≠ ", style=f"bold {WARN}")
        out.append(field.field, style="bold")
        out.append("  recorded → current eval file", style=DIM)
        diff, cut = _cut(field.diff)
        for line in diff.splitlines():
            out.append("\n")
            if line.startswith(("+++", "---")):
                style: Style | str = "bold"
            elif line.startswith("+"):
                style = Style(color=PASS, bgcolor="#1e3a1e")
            elif line.startswith("-"):
                style = Style(color=FAIL, bgcolor="#3a1e1e")
            elif line.startswith("@@"):
                style = Style(color="#56b6c2")
            else:
                style = DIM
            out.append(sanitize(line) or " ", style=style)
        _more(out, cut)
    return out


def answer_widget(answer: str, classes: str) -> Markdown | Static:
    """The candidate answer as Markdown (code highlighted), or as literal text when it is too long."""
    if not answer:
        return Static(Text("(no candidate answer)", style=Style(italic=True, dim=True)), classes=classes)
    if len(answer) > MARKDOWN_LIMIT:
        return Static(_literal(answer), classes=classes, markup=False)
    return Markdown(sanitize(answer), classes=classes)


class ResultDetailScreen(Screen):
    """One result in full. n/p walk the list in its current order; 1–5 pick a tab; esc goes back."""

    COMMANDS = {ResultsCommands}
    BINDINGS = [
        Binding("escape,q", "back", "Back"),
        Binding("n", "step(1)", "Next"),
        Binding("p", "step(-1)", "Previous"),
        Binding("1", "tab('request')", "Request", show=False),
        Binding("2", "tab('answer')", "Answer", show=False),
        Binding("3", "tab('verdict')", "Verdict", show=False),
        Binding("4", "tab('evaluator')", "Evaluator", show=False),
        Binding("5", "tab('drift')", "Drift", show=False),
    ]

    def __init__(
        self,
        results: ResultsFile,
        rows: Sequence[int],
        position: int,
        *,
        threshold: float = 0.5,
        drift=None,
        tab: str = "request",
    ) -> None:
        super().__init__()
        self.results = results
        self.rows = rows
        self.position = position
        self.threshold = threshold
        self.drift = drift
        self.initial_tab = tab
        self.record: ResultRecord | None = None

    def compose(self) -> ComposeResult:
        yield Static(Text("loading…", style="dim"), id="detail-title")
        with TabbedContent(initial=self.initial_tab):
            with TabPane(_tab_title("1", "Request"), id="request"):
                with VerticalScroll():
                    yield Static(id="request-text", markup=False)
            with TabPane(_tab_title("2", "Answer"), id="answer-tab"):
                yield VerticalScroll(id="answer-scroll")
            with TabPane(_tab_title("3", "Verdict"), id="verdict"):
                with VerticalScroll():
                    yield Static(id="verdict-text", markup=False)
            with TabPane(_tab_title("4", "Evaluator prompt"), id="evaluator"):
                with VerticalScroll():
                    yield Static(id="evaluator-text", markup=False)
            with TabPane(_tab_title("5", "Drift"), id="drift"):
                with VerticalScroll():
                    yield Static(Text("checking…", style="dim"), id="drift-text", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        self._load(self.rows[self.position])

    @work(thread=True, exclusive=True, group="record")
    def _load(self, index: int) -> None:
        record = self.results.record(index)
        # the Text objects are built here too: highlighting 100 000 characters must not stall the UI thread
        position = f"{self.position + 1} of {len(self.rows)}"
        texts = (
            title_text(record, self.threshold, position),
            request_text(record),
            verdict_text(record, self.threshold),
            evaluator_text(record),
        )
        self.app.call_from_thread(self._show, index, record, texts)
        report = None
        if self.drift is not None:
            try:
                report = self.drift.check(record)
            except Exception as error:  # the engine failing on one case is shown, not raised
                from turnlens.formatting.results.drift import DriftReport

                report = DriftReport("eval refused", f"the engine failed: {error}")
        self.app.call_from_thread(self._show_drift, index, report)

    def _current_index(self) -> int:
        return self.rows[self.position]

    def _show(self, index: int, record: ResultRecord, texts: tuple[Text, Text, Text, Text]) -> None:
        if index != self._current_index():
            return
        self.record = record
        title, request, verdict, evaluator = texts
        self.query_one("#detail-title", Static).update(title)
        self.query_one("#request-text", Static).update(request)
        self.query_one("#verdict-text", Static).update(verdict)
        self.query_one("#evaluator-text", Static).update(evaluator)
        scroll = self.query_one("#answer-scroll", VerticalScroll)
        scroll.remove_children()
        scroll.mount(answer_widget(record.candidate_answer, "answer"))

    def _show_drift(self, index: int, report) -> None:
        if index != self._current_index():
            return
        self.query_one("#drift-text", Static).update(drift_text(report))

    def action_back(self) -> None:
        self.dismiss()

    def action_step(self, step: int) -> None:
        position = self.position + step
        if 0 <= position < len(self.rows):
            self.position = position
            self.query_one("#drift-text", Static).update(Text("checking…", style="dim"))
            self._load(self.rows[position])

    def action_tab(self, tab: str) -> None:
        self.query_one(TabbedContent).active = "answer-tab" if tab == "answer" else tab

    def palette_commands(self):
        commands = [
            ("Result: next", "n", "step(1)"),
            ("Result: previous", "p", "step(-1)"),
            ("Result: show request", "1", "tab('request')"),
            ("Result: show candidate answer", "2", "tab('answer')"),
            ("Result: show verdict (hits, misses, evaluators)", "3", "tab('verdict')"),
            ("Result: show evaluator prompt", "4", "tab('evaluator')"),
            ("Result: show drift against the eval file", "5", "tab('drift')"),
            ("Result: back to the list", "esc", "back"),
        ]
        return [(title, help_text, _action(self, action)) for title, help_text, action in commands]


def _side_title(name: str, record: ResultRecord | None, threshold: float) -> Text:
    out = Text(end="")
    out.append(sanitize(name), style="bold")
    if record is None:
        out.append("\nnot in this run", style=Style(italic=True, dim=True))
        return out
    out.append("\n")
    out.append_text(score_bar(record.score, threshold))
    out.append(
        " " + ("—" if record.score is None else f"{record.score:.2f}"), style=score_colour(record.score, threshold)
    )
    if record.error is not None:
        out.append("  ERROR ", style=f"bold {FAIL}")
        out.append(sanitize(record.error)[:200])
    return out


def _side_verdict(record: ResultRecord | None) -> Text:
    out = Text(end="")
    if record is None:
        return out
    _marks(out, record.hits, "✓", PASS)
    _marks(out, record.misses, "✗", FAIL)
    if record.reasoning:
        out.append("\n")
        out.append_text(_literal(record.reasoning, "italic"))
    return out


class CompareDetailScreen(Screen):
    """The two answers (and verdicts) of one eval id side by side. n/p walk the compared pairs."""

    COMMANDS = {ResultsCommands}
    BINDINGS = [
        Binding("escape,q", "back", "Back"),
        Binding("n", "step(1)", "Next"),
        Binding("p", "step(-1)", "Previous"),
    ]

    def __init__(
        self, a: ResultsFile, b: ResultsFile, rows: Sequence[CompareRow], position: int, *, threshold: float = 0.5
    ) -> None:
        super().__init__()
        self.a = a
        self.b = b
        self.rows = rows
        self.position = position
        self.threshold = threshold

    def compose(self) -> ComposeResult:
        yield Static(id="pair-title", markup=False)
        with Horizontal(id="sides"):
            for side in ("a", "b"):
                with VerticalScroll(classes="side", id=f"side-{side}"):
                    yield Static(classes="side-title", id=f"title-{side}", markup=False)
                    yield Static(classes="side-verdict", id=f"verdict-{side}", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        self._load(self.position)

    @work(thread=True, exclusive=True, group="pair")
    def _load(self, position: int) -> None:
        row = self.rows[position]
        record_a = self.a.record(row.a) if row.a is not None else None
        record_b = self.b.record(row.b) if row.b is not None else None
        self.app.call_from_thread(self._show, position, row, record_a, record_b)

    def _show(self, position: int, row: CompareRow, record_a, record_b) -> None:
        if position != self.position:
            return
        title = Text(end="")
        title.append(sanitize(row.key), style="bold")
        title.append(f"  {row.status}", style=STATUS_STYLES.get(row.status, ""))
        if row.delta is not None:
            title.append(f"  Δ {row.delta:+.2f}", style=DIM)
        title.append(f"  {position + 1} of {len(self.rows)}", style=DIM)
        self.query_one("#pair-title", Static).update(title)
        for side, name, record in (("a", "A  " + self.a.name, record_a), ("b", "B  " + self.b.name, record_b)):
            self.query_one(f"#title-{side}", Static).update(_side_title(name, record, self.threshold))
            self.query_one(f"#verdict-{side}", Static).update(_side_verdict(record))
            scroll = self.query_one(f"#side-{side}", VerticalScroll)
            for old in scroll.query(".side-answer"):
                old.remove()
            answer = answer_widget(record.candidate_answer if record else "", "side-answer")
            scroll.mount(answer, after=f"#title-{side}")

    def action_back(self) -> None:
        self.dismiss()

    def action_step(self, step: int) -> None:
        position = self.position + step
        if 0 <= position < len(self.rows):
            self.position = position
            self._load(position)

    def palette_commands(self):
        commands = [("Pair: next", "n", "step(1)"), ("Pair: previous", "p", "step(-1)"), ("Pair: back", "esc", "back")]
        return [(title, help_text, _action(self, action)) for title, help_text, action in commands]
