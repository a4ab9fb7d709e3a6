"""The inspector screen: case list on the left, the selected case's panes on the right, live re-render."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Awaitable
from contextlib import contextmanager
from dataclasses import dataclass

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Footer, Header, Static
from textual.worker import get_current_worker

from turnlens.formatting import gcpause
from turnlens.formatting.evals.files import FileReadError, read_text_file
from turnlens.formatting.model import Diagnostic
from turnlens.formatting.sanitize import sanitize

from . import authoring, render
from .actions import Action, bindings
from .cache import BoundedCache
from .case_loader import CaseLoader
from .commands import InspectorCommands
from .editor import editor_command
from .file_watcher import FileWatcher
from .inspector_model import InspectorModel
from .session import Session
from .session import display_path as display_rel
from .theme import generation as theme_generation
from .theme import palette, use_theme
from .widgets.case_list import CaseList, FileEntry
from .widgets.chip import Chip
from .widgets.pane import Pane, PaneText

CASE_LIST_WIDTH = 38  # as in app.tcss
CASE_LIST_CHROME = 6  # the list's border, scrollbar and option padding
MIN_PANE_TEXT = 30  # side by side, each of the three pane columns keeps at least this many cells of text
PANE_CHROME = 4  # a pane's border, padding and scrollbar
GRID_COLUMNS = 3


def is_narrow(width: int, list_width: int = CASE_LIST_WIDTH) -> bool:
    """Stack the panes (and put the case list on top) when three columns beside the list would be too narrow to
    read: 140 columns or more with the standard list are wide."""
    return (width - list_width) // GRID_COLUMNS - PANE_CHROME < MIN_PANE_TEXT


PRERENDER_DELAY = 0.3  # seconds after the first load
VIEW_CACHE_SIZE = 64  # case views kept (each holds its panes' wrapped lines): bounded by what was looked at lately
PRERENDER_AROUND = 12  # cases each side of the one on screen whose views are built ahead of a switch
PRERENDER_AFTER_SWITCH = 0.15  # seconds of rest after a switch before prerendering around the new case


@dataclass
class CaseView:
    """Everything the panes show for one case in one mode/profile (built once, cached, prepared off-thread)."""

    title: Text
    rule_line: Text
    messages: PaneText
    question: PaneText
    guidelines: PaneText
    chat: PaneText
    rule: PaneText
    question_chars: int = 0
    guideline_files: int = 0
    # The fifth pane's slot: `guidelines` for an agentv-0.15 file, AgentV 4's `systemMessage` for an agentv-4 one.
    fifth_title: str = "guidelines"
    system_chars: int = 0

    title_label: str = ""  # the title's parts, to fit it to a narrower toolbar (id cut first, file:line kept)
    title_where: str = ""

    @property
    def title_need(self) -> int:
        """The whole title (id and file:line) in cells: the chips shorten before it is cut."""
        return self.title.cell_len

    def panes(self) -> dict[str, PaneText]:
        return {
            "messages": self.messages,
            "question": self.question,
            "guidelines": self.guidelines,
            "chat": self.chat,
            "rule": self.rule,
        }


def build_case_view(session: Session, key: str, mode: str, profile: str) -> CaseView | None:
    found = session.case(key)
    if found is None:
        return None
    loaded, case = found
    formatted = session.formatted(key, profile)
    label = render.sanitize(render.case_label(case))
    where = render.sanitize(loaded.rel) + (f":{case.line}" if case.line else "")
    if case.source:  # a test from an external case file or a dataset: its line is in that file
        source_path, source_line = session.case_location(key)
        where = render.sanitize(loaded.rel) + " ← " + render.sanitize(display_rel(source_path, session.repo_root))
        where += f":{source_line}" if source_line else ""
    title = render.case_title(label, where)
    messages = _messages_with_context(case, render.messages_text(case, formatted, session.repo_root))
    good = loaded.good
    v4 = authoring.is_v4(good)
    fifth_title = "systemMessage" if v4 else "guidelines"
    config = None
    if formatted is not None and good is not None:
        config = authoring.dialect_text(good, case)
        if not v4:  # AgentV 4 has no guidelines: no guideline patterns to explain
            config.append("\n\n")
            config.append_text(render.config_text(good.config, session.config_searched(loaded.path), session.repo_root))
    rule = render.rule_text(case, formatted, session.repo_root, config)
    if formatted is None and good is not None:
        rule.append("\n\n")
        rule.append_text(authoring.dialect_text(good, case, notes=True))
    if formatted is None:
        skipped = PaneText(Text(f"skipped: {render.sanitize(case.skipped or '')}", style="dim italic", end=""), "")
        if not case.messages:
            first, excerpt = session.case_source(key)
            if excerpt:
                heading = Text("The reference skips this case; as written:\n", style="dim italic", end="")
                messages = heading + render.source_text(excerpt, first, loaded.path)
        rule_line = Text(end="", no_wrap=True, overflow="ellipsis")
        rule_line.append(" SKIPPED ", style=palette().badge("skip"))
        rule_line.append(" " + render.sanitize(case.skipped or ""), style="italic")
        return CaseView(
            title,
            rule_line,
            PaneText(messages, messages.plain),
            skipped,
            skipped,
            skipped,
            PaneText(rule, rule.plain, hang=2),
            title_label=label,
            title_where=where,
            fifth_title=fifth_title,
        )
    rendered = formatted.rendered(mode)
    rule_line = Text(end="", no_wrap=True, overflow="ellipsis")
    rule_line.append_text(render.rule_badge(formatted.explanation.uses_markers))
    rule_line.append(" " + render.sanitize(formatted.explanation.summary))
    warnings = sum(1 for d in case.diagnostics if d.severity != "info")
    if warnings:
        rule_line.append(f"  ⚠ {render.plural(warnings, 'warning')}", style=render.warn_style())
    return CaseView(
        title=title,
        rule_line=rule_line,
        messages=PaneText(messages, messages.plain),
        question=PaneText(render.prompt_text(rendered.question, "(empty question)"), rendered.question),
        guidelines=(
            PaneText(authoring.system_message_text(rendered), authoring.system_message_copy(rendered))
            if v4
            else PaneText(render.prompt_text(rendered.guidelines, "(no guidelines)"), rendered.guidelines)
        ),
        chat=PaneText(render.chat_text(rendered, profile), render.chat_copy_text(rendered)),
        rule=PaneText(rule, rule.plain, hang=2),
        question_chars=len(rendered.question),
        guideline_files=len(case.guideline_paths),
        title_label=label,
        title_where=where,
        fifth_title=fifth_title,
        system_chars=len(rendered.system_message or ""),
    )


def _messages_with_context(case, messages: Text) -> Text:
    """The messages as written, with what the suite prepended said above them and what interpolation replaced
    below them (agentv-4)."""
    preamble = authoring.messages_preamble(case)
    after = authoring.interpolations_text(case)
    if preamble is None and after is None:
        return messages
    out = Text(end="")
    if preamble is not None:
        out.append_text(preamble)
        out.append("\n\n")
    out.append_text(messages)
    if after is not None:
        out.append("\n\n")
        out.append_text(after)
    return out


@contextmanager
def long_lived_allocations():
    """For building what stays cached (a case's view): no cyclic GC pass meanwhile (each would re-scan the heap for
    nothing). Not frozen afterwards: gc.freeze after each view also froze whatever garbage cycles were pending, for
    good (benchmarks/bench_firstframe.py's walk through every case grew by ~0.35 MiB a switch with it)."""
    with gcpause.paused():
        yield


def nearest_first(keys: list[str], current: str | None, remaining: set[str]) -> str:
    """The key in `remaining` nearest to `current` in `keys` (the next one before the previous one)."""
    if current in keys:
        here = keys.index(current)
        for distance in range(len(keys)):
            for index in (here + distance, here - distance):
                if 0 <= index < len(keys) and keys[index] in remaining:
                    return keys[index]
    return next(key for key in keys if key in remaining)


EXCERPT_CONTEXT = 3  # lines of a refused file shown around its error line


def empty_state(session: Session) -> tuple[Text, PaneText]:
    """(header title, messages pane) when there is no case to show."""
    title = Text(end="", no_wrap=True, overflow="ellipsis")
    errors = session.errors()
    if errors:
        loaded, error = errors[0]
        title.append("✗ ", style=render.error_style())
        title.append(render.sanitize(loaded.rel) + (f":{error.line}" if error.line else ""), style="bold")
        title.append("  refused: no case can be shown", style="dim")
        body = Text(end="")
        body.append(render.sanitize(diagnostic_text(error, session.repo_root)), style=render.error_style())
        excerpt = _source_excerpt(loaded.path, error.line) if error.line else None
        if excerpt is not None:
            first, chunk = excerpt
            body.append("\n\n")
            body.append_text(render.source_text(chunk, first, loaded.path))
        body.append("\n\no opens the file at this line in $EDITOR; the view follows your edits.", style="dim italic")
        return title, PaneText(body, body.plain, hang=5)
    if not session.files:
        where = ", ".join(session.roots) or "."
        title.append(f"No eval files in {render.sanitize(where)}", style="bold")
        body = Text(
            "turnlens finds eval files in a folder as AgentV 4 does:\n\n"
            "    **/evals/**/*.eval.yaml   **/evals/**/eval.yaml\n\n"
            "(or the `eval_patterns` of .agentv/config.yaml), and AgentV 0.15 files whose first lines declare\n\n"
            "    $schema: agentv-eval-v2\n\n"
            f"None was found in {render.sanitize(where)} (folders such as .agentv and .git are not searched).\n"
            "Name an eval file to open it whatever its name, or open another folder, e.g. `turnlens sample_evals/`; "
            "a results file opens with `turnlens RESULTS.jsonl`.",
            style="dim italic",
            end="",
        )
        return title, PaneText(body, "")
    title.append("No eval cases to show.", style="dim italic")
    body = Text("The eval files opened have no cases (`tests:` or `evalcases:` is empty).", style="dim italic", end="")
    return title, PaneText(body, "")


def _source_excerpt(path: str, line: int) -> tuple[int, str] | None:
    if not line:
        return None
    try:
        lines = read_text_file(path, utf16_ok=True).split("\n")
    except FileReadError:  # not a regular file any more, or too large
        return None
    first = max(1, line - EXCERPT_CONTEXT)
    return first, "\n".join(lines[first - 1 : line + EXCERPT_CONTEXT])


def diagnostic_text(d: Diagnostic, repo_root: str) -> str:
    """`file:line: message` with paths shown relative to the repo root."""
    return render.diagnostic_line(d, repo_root)


def _toggle_text(label: str, key: str, options: tuple[str, ...], active: str) -> Text:
    text = Text(end="", no_wrap=True)
    text.append(f"{key} ", style=palette().text("key", bold=True))
    text.append(f"{label} ", style="dim")
    for n, option in enumerate(options):
        if n:
            text.append("│", style="dim")
        if option == active:
            text.append(f" {option} ", style="bold reverse")
        else:
            text.append(f" {option} ", style="dim")
    return text


# The panes in reading order (grid: messages, question, chatPrompt on two rows / marker rule, guidelines).
PANES = (
    ("messages", "messages as written"),
    ("question", "question"),
    ("chat", "chatPrompt"),
    ("rule", "marker rule"),
    ("guidelines", "guidelines / systemMessage"),
)

CHIP_CHROME = 3  # a chip's padding (1 each side) and left margin
TITLE_PADDING = 2


def chip_texts(mode: str, profile: str, level: int) -> dict[str, Text | None]:
    """The toolbar chips, full (level 0), short (1), or short with the evaluator/diff chips hidden (2)."""
    if level == 0:
        return {
            "mode-chip": _toggle_text("mode", "m", ("lm", "agent"), mode),
            "profile-chip": _toggle_text("profile", "p", ("agentv", "design"), profile),
            "evaluator-chip": _action_text("e", "grading"),
            "diff-chip": _action_text("d", "profile diff"),
        }
    return {
        "mode-chip": _action_text("m", mode),
        "profile-chip": _action_text("p", profile),
        "evaluator-chip": _action_text("e", "eval") if level == 1 else None,
        "diff-chip": _action_text("d", "diff") if level == 1 else None,
    }


def _action_text(key: str, label: str) -> Text:
    text = Text(end="", no_wrap=True)
    text.append(f"{key} ", style=palette().text("key", bold=True))
    text.append(label)
    return text


_PANE_NAMES = ", ".join(title.replace(" as written", "") for _id, title in PANES)

# The inspector's keys, footer, command palette and help, in one table (tui/actions.py). The footer shows the rows
# with a `footer` label in table order: the ones that must survive 80 columns come first.
INSPECTOR_ACTIONS: tuple[Action, ...] = (
    Action("", "", "Choose a case in the list (or click it).", display="↑ ↓  k j", section="Cases"),
    Action("", "", "First / last case in the list; pgup pgdn a page.", display="home end  g G", section="Cases"),
    Action("right_square_bracket", "next_case", "Show the next case in the list.", title="Next case", section="Cases"),
    Action(
        "left_square_bracket",
        "previous_case",
        "Show the previous case in the list.",
        title="Previous case",
        section="Cases",
    ),
    Action("colon", "jump", "Jump to a case by id.", footer="Jump", rank=2, title="Jump to case…", section="Cases"),
    Action(
        "slash",
        "focus_filter",
        "Filter the case list as you type (id, rule, flat, markers, warn, skipped); esc in the list clears it.",
        footer="Filter",
        rank=1,
        title="Filter cases",
        section="Cases",
    ),
    Action(
        "n",
        "next_warning",
        "Show the next case with ⚠ warnings.",
        footer="⚠",
        rank=3,
        title="Next case with warnings",
        section="Cases",
    ),
    Action(
        "N",
        "previous_warning",
        "Show the previous case with ⚠ warnings.",
        title="Previous case with warnings",
        section="Cases",
    ),
    Action(
        "m",
        "toggle_mode",
        "Switch the mode: lm (referenced files embedded) or agent (files as references).",
        title="Toggle mode (lm / agent)",
        section="What the case becomes",
    ),
    Action(
        "p",
        "toggle_profile",
        "Switch the profile: agentv (what AgentV sends) or design.",
        title="Toggle profile (agentv / design)",
        section="What the case becomes",
    ),
    Action(
        "d",
        "profile_diff",
        "Show both profiles' chatPrompts side by side, differences marked.",
        footer="Diff",
        rank=8,
        title="Profile diff",
        section="What the case becomes",
    ),
    Action(
        "e",
        "evaluator",
        "What grades this case: criteria (0.15: outcome), expected output, graders with type and weight, and the "
        "grader prompt.",
        footer="Eval",
        rank=7,
        title="Grading (criteria, graders, grader prompt)",
        section="What the case becomes",
    ),
    Action("", "", f"Focus a pane: {_PANE_NAMES}.", display="1 … 5", section="Panes"),
    *(
        Action(str(n), f"focus_pane('{pane_id}')", f"Focus the {title} pane.", help=False, section="Panes")
        for n, (pane_id, title) in enumerate(PANES, 1)
    ),
    Action("0", "focus_cases", "Focus the case list.", section="Panes"),
    Action("", "", "Next / previous pane.", display="tab  shift+tab", section="Panes"),
    Action("", "", "Scroll the focused pane; g G top / bottom.", display="↑ ↓  k j  g G", section="Panes"),
    Action(
        "c",
        "copy",
        "Copy the text selected with the mouse, else the focused pane (the chatPrompt as JSON), control characters "
        "and bidi overrides as the visible escapes shown on screen.",
        footer="Copy",
        rank=4,
        title="Copy",
        section="Panes",
    ),
    Action(
        "C",
        "copy_raw",
        "Copy the focused pane's text exactly as the eval file gives it: control characters, escape sequences and "
        "bidi overrides included.",
        title="Copy raw text",
        section="Panes",
    ),
    Action(
        "z",
        "maximize_pane",
        "Maximise the focused pane; z or esc restores it.",
        footer="Max",
        rank=5,
        title="Maximise pane",
        section="Panes",
    ),
    Action(
        "z", "restore_pane", "Restore the maximised pane.", footer="Restore", rank=5, title="Restore pane", help=False
    ),
    Action(
        "o",
        "open_editor",
        "Open the eval file in $EDITOR at the case's line; the view follows your edits.",
        footer="Edit",
        rank=9,
        title="Open in editor",
        section="Panes",
    ),
    Action("", "", "Command palette: every action, then every case by id.", display="ctrl+p", section="App"),
    Action(
        "question_mark,f1",
        "help",
        "Show this help: the keys and what the badges mean.",
        footer="Help",
        rank=0,
        title="Help",
        section="App",
    ),
    Action("q", "app.quit", "Quit turnlens.", footer="Quit", rank=6, title="Quit", section="App"),
)


class InspectorScreen(Screen):
    """Eval cases of one or more files, side by side with what they become."""

    BINDINGS = bindings(INSPECTOR_ACTIONS)
    COMMANDS = {InspectorCommands}

    def __init__(self, session: Session, *, mode: str = "lm", profile: str = "agentv", watch: bool = True) -> None:
        super().__init__()
        self.model = InspectorModel(session, mode=mode, profile=profile)
        self.session = session
        self.watch_enabled = watch
        self._views: BoundedCache[tuple, CaseView] = BoundedCache(VIEW_CACHE_SIZE)
        self._prerender_timer: Timer | None = None
        self.loader = CaseLoader(self, session)
        self.watcher = FileWatcher(self, session)
        self._longest_label = 0  # the longest case id listed, in cells (the list widens for it)
        self._title_need = 0  # cells the header title needs whole (id and file:line): the chips shorten first
        self._title_parts: tuple[str, str] | None = None  # (id, file:line) of the case title shown
        self._drawn_generation = theme_generation()  # the palette the views on screen were built with

    # What tests and benchmarks read, from the view model.
    @property
    def current(self) -> str | None:
        return self.model.current

    @property
    def mode(self) -> str:
        return self.model.mode

    @property
    def profile(self) -> str:
        return self.model.profile

    @property
    def loaded(self) -> bool:
        return self.model.loaded

    @property
    def reloads(self) -> int:
        return self.model.reloads

    @property
    def prerendered(self) -> int:
        return self.model.prerendered

    # ------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        yield Header(icon="◈")
        yield Static("", id="banner", markup=False)
        with Horizontal(id="main"):
            yield CaseList(id="cases")
            with Vertical(id="detail"):
                with Horizontal(id="toolbar"):
                    yield Static("", id="case-title", markup=False)
                    yield Chip("screen.toggle_mode", id="mode-chip")
                    yield Chip("screen.toggle_profile", id="profile-chip")
                    yield Chip("screen.evaluator", id="evaluator-chip")
                    yield Chip("screen.profile_diff", id="diff-chip")
                yield Static("", id="rule-line", markup=False)
                with Vertical(id="panes"):
                    # Grid order (3 columns): messages, question, chat (two rows) / rule, guidelines. Numbered in
                    # reading order, which is also the stacked order.
                    for number, (pane_id, title) in enumerate(PANES, 1):
                        # The fifth slot is titled by the case's dialect when a case is shown.
                        yield Pane(title.split(" / ")[0], key=str(number), id=pane_id)
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, self._theme_changed)
        self._apply_width(self.size.width or self.app.size.width)
        self.query_one("#case-title", Static).update(Text("loading…", style="dim italic"))
        self._update_chips()
        if self.session.files:
            self.loader.load_all(self.profile)
        else:
            self._first_load_done()

    def on_resize(self, event) -> None:
        self._apply_width(event.size.width)
        self.call_after_refresh(self._update_chips)

    def _apply_width(self, width: int) -> None:
        # The list grows (up to a quarter of the screen) to show long ids whole.
        wanted = self._longest_label + CASE_LIST_CHROME if self._longest_label else 0
        list_width = max(CASE_LIST_WIDTH, min(wanted, width // 4))
        narrow = is_narrow(width, list_width)
        self.set_class(narrow, "-narrow")
        cases = self.query_one(CaseList)
        cases.styles.width = None if narrow or not self._longest_label else list_width

    # ------------------------------------------------------------------ loading

    def _forget_views(self, path: str) -> None:
        self._views.discard_where(lambda key: key[0] == path)

    @on(CaseLoader.Loaded)
    def _loaded(self, message: CaseLoader.Loaded) -> None:
        if not self.loader.is_current(message):
            return
        applied = self.model.apply_steps(message.steps)
        for path in applied.replaced:
            self._forget_views(path)
        if applied.current_replaced and self.current is not None:
            self.show_case(self.current, keep_scroll=True)
        self._refresh_list()
        if applied.errors or applied.complete:
            self._update_banner()
        self._update_subtitle()
        if self.current is None:
            first = self.model.first_key()
            if first is not None:
                self.show_case(first)
                self.query_one("#case-options").focus()
        if applied.complete and not self.loaded:
            self._first_load_done()

    def _first_load_done(self) -> None:
        self.model.loaded = True
        self._update_banner()
        self._update_subtitle()
        if self.current is None:
            self._show_nothing()
        self.query_one("#case-options").focus()
        # What is loaded now lives as long as the session: keep the cyclic GC from re-scanning it (a full collection
        # of this heap, triggered by the allocations of a case switch, took ~60 ms of it).
        self.call_after_refresh(gcpause.keep_long_lived)
        # Prerendering competes for the GIL: start it once the first case is on screen.
        self.set_timer(PRERENDER_DELAY, self._prerender)
        if self.watch_enabled:
            self.watcher.start()

    def _update_subtitle(self) -> None:
        self.sub_title = self.model.subtitle()

    @on(CaseList.Filtered)
    def _filtered(self, event: CaseList.Filtered) -> None:
        self.model.set_filtered(event.shown, event.total)
        self._update_subtitle()

    def _refresh_list(self) -> None:
        self._set_entries(self.model.file_entries())

    def _set_entries(self, entries: list[FileEntry]) -> None:
        from rich.cells import cell_len

        self._longest_label = max((cell_len(row.label) for e in entries for row in e.rows), default=0)
        self._apply_width(self.size.width or self.app.size.width)
        self.query_one(CaseList).set_entries(entries, current=self.current)

    def _update_banner(self) -> None:
        """Refused files (✗), file-level warnings such as a broken `.agentv/config.yaml` (⚠), then notes (ℹ)."""
        banner = self.query_one("#banner", Static)
        errors = self.session.errors()
        warnings = self.session.file_warnings()
        notes = self.session.notes
        banner.set_class(not errors and bool(warnings), "-warning")
        banner.set_class(not errors and not warnings and bool(notes), "-note")
        if not errors and not warnings and not notes:
            banner.update("")
            banner.remove_class("-visible")
            return
        lines: list[Text] = []
        for loaded, error in errors:
            line = Text(end="")
            line.append(" ✗ ", style="bold")
            line.append(render.sanitize(diagnostic_text(error, self.session.repo_root)))
            if loaded.stale:
                line.append("  — showing the last good version until it parses again", style="italic")
            lines.append(line)
        for warning in warnings:
            line = Text(end="")
            line.append(" ⚠ ", style="bold")
            line.append(render.sanitize(diagnostic_text(warning, self.session.repo_root)))
            if ".agentv/config.yaml" in warning.file.replace(os.sep, "/"):
                line.append("  — not used; the rule panel says which config is in force", style="italic")
            lines.append(line)
        for note in notes:
            line = Text(end="")
            line.append(" ℹ ", style="bold")
            line.append(render.sanitize(note))
            lines.append(line)
        banner.update(Text("\n", end="").join(lines))
        banner.add_class("-visible")

    def _show_nothing(self) -> None:
        """No case to show: say why (no eval file found, every file refused, files without cases)."""
        self.model.current = None
        title, body = empty_state(self.session)
        self.query_one("#case-title", Static).update(title)
        self._title_need = title.cell_len
        self._title_parts = None
        self._update_chips()
        self.query_one("#rule-line", Static).update("")
        for pane in self.query(Pane):
            pane.show(body if pane.id == "messages" else PaneText(Text(""), ""))

    # ------------------------------------------------------------------ showing a case

    def view(self, key: str, mode: str | None = None, profile: str | None = None) -> CaseView | None:
        mode = mode or self.mode
        profile = profile or self.profile
        found = self.session.case(key)
        if found is None:
            return None
        loaded, case = found
        cache_key = (loaded.path, loaded.generation, case.index, mode, profile, theme_generation())
        view = self._views.get(cache_key)
        if view is None:
            view = build_case_view(self.session, key, mode, profile)
            if view is not None:
                self._views.set(cache_key, view)
        return view

    def show_case(self, key: str, *, keep_scroll: bool = False) -> None:
        with long_lived_allocations():
            view = self.view(key)
        if view is None:
            return
        self.model.current = key
        mode = self.mode.upper() if self.mode == "lm" else self.mode
        subtitles = {
            "question": f"{mode} · {view.question_chars} chars",
            "guidelines": f"{mode} · {view.guideline_files} file{'' if view.guideline_files == 1 else 's'}"
            if view.fifth_title == "guidelines"
            else f"{mode} · {view.system_chars} chars",
            "chat": f"{mode} · {self.profile}",
        }
        with self.app.batch_update():
            # Both are one row of fixed size: no layout pass needed (it would redraw the whole screen).
            self.query_one("#case-title", Static).update(view.title, layout=False)
            self._title_need = view.title_need
            self._title_parts = (view.title_label, view.title_where)
            self._update_chips()
            self.query_one("#rule-line", Static).update(view.rule_line, layout=False)
            fifth = self.query_one("#guidelines", Pane)
            if fifth.title_name != view.fifth_title:
                fifth.set_title(view.fifth_title)
            for pane_id, content in view.panes().items():
                self.query_one(f"#{pane_id}", Pane).show(
                    content, subtitle=subtitles.get(pane_id, ""), keep_scroll=keep_scroll
                )
        self._prerender_soon()

    def _pane_widths(self) -> dict[str, int]:
        return {pane.id or "": pane.content_width for pane in self.query(Pane)}

    @work(thread=True, group="prerender", exclusive=True)
    def _prerender(self) -> None:
        """Build (and wrap, at the current pane widths) the views of the cases around the one on screen, nearest
        first: the likely next switches are then a redraw. Bounded, like the cache they go to."""
        worker = get_current_worker()
        widths = self.app.call_from_thread(self._pane_widths)
        mode, profile = self.mode, self.profile
        keys = self.session.case_keys()
        here = keys.index(self.current) if self.current in keys else 0
        nearby = keys[max(0, here - PRERENDER_AROUND) : here + PRERENDER_AROUND + 1]
        remaining = set(nearby)
        while remaining:
            if worker.is_cancelled:
                return
            key = nearest_first(nearby, self.current, remaining)
            remaining.discard(key)
            view = self.view(key, mode, profile)
            if view is None:
                continue
            for pane_id, content in view.panes().items():
                if widths.get(pane_id, 0) > 0:
                    content.rows(widths[pane_id])
        self.model.prerendered += 1

    def _prerender_soon(self) -> None:
        """Prerender around the case on screen once switching rests a moment (a held key is not slowed)."""
        if not self.loaded:
            return
        if self._prerender_timer is not None:
            self._prerender_timer.stop()
        self._prerender_timer = self.set_timer(PRERENDER_AFTER_SWITCH, self._prerender)

    @on(CaseList.CaseSelected)
    def _case_selected(self, event: CaseList.CaseSelected) -> None:
        if event.key != self.current:
            self.show_case(event.key)

    def select_case(self, key: str) -> None:
        """Move the list highlight (and so the panes) to `key`."""
        if not self.query_one(CaseList).select(key):
            self.show_case(key)

    def _update_chips(self) -> None:
        """The chips at the widest level that leaves the case title (its id first) whole: they shorten first."""
        title_cells = self._title_need
        available = self.query_one("#toolbar").size.width or self.size.width
        narrow = self.has_class("-narrow")  # the evaluator and diff chips are not shown there
        levels = [chip_texts(self.mode, self.profile, level) for level in range(3)]
        chosen = levels[-1]
        for texts in levels:
            chips = sum(
                t.cell_len + CHIP_CHROME
                for chip_id, t in texts.items()
                if t is not None and not (narrow and chip_id in ("evaluator-chip", "diff-chip"))
            )
            if title_cells + TITLE_PADDING + chips <= available:
                chosen = texts
                break
        for chip_id, text in chosen.items():
            chip = self.query_one(f"#{chip_id}", Chip)
            chip.set_class(text is None, "-hidden")
            if text is not None:
                chip.set_state(text)
        if self._title_parts is not None:
            # Even the shortest chips leave too little room: the id is cut, its file:line stays.
            chips = sum(
                t.cell_len + CHIP_CHROME
                for chip_id, t in chosen.items()
                if t is not None and not (narrow and chip_id in ("evaluator-chip", "diff-chip"))
            )
            room = available - chips - TITLE_PADDING
            fitted = render.case_title(*self._title_parts, room if title_cells > room > 0 else 0)
            title = self.query_one("#case-title", Static)
            if title.content != fitted:
                title.update(fitted, layout=False)

    def _theme_changed(self, theme) -> None:
        """Another theme: everything drawn with the old palette is drawn again (the view cache is keyed by it)."""
        use_theme(theme)
        if theme_generation() != self._drawn_generation:
            self._drawn_generation = theme_generation()
            self._views.clear()
            self._rerender(rows=True)

    def _rerender(self, *, rows: bool = False) -> None:
        """Redraw for another mode or profile; with `rows`, the case list's rows are remade too (in a worker: their
        rule depends on the profile)."""
        self._update_chips()
        if rows:
            self.loader.restart(self.profile, loaded=self.loaded)
        if self.current is not None:
            self.show_case(self.current, keep_scroll=True)

    # ------------------------------------------------------------------ live re-render

    @on(FileWatcher.Changed)
    def _files_changed(self, message: FileWatcher.Changed) -> None:
        self.reload_files(message.numbers, rescan=message.rescan)

    def reload_files(self, numbers: list[int], *, rescan: bool = False) -> Awaitable[None]:
        """Reload files (in a thread), then redraw keeping the selected case and the scroll positions; awaitable
        until that is done. With `rescan`, first look for eval files added to or removed from the opened folders."""
        return self.loader.reload(numbers, profile=self.profile, rescan=rescan)

    @on(CaseLoader.Reloaded)
    def _reloaded(self, message: CaseLoader.Reloaded) -> None:
        reload = message.reload
        self.model.apply_reload(reload.scan, reload.files)
        generations = self.model.generations()
        self._views.discard_where(lambda k: generations.get(k[0]) != k[1])
        self._refresh_list()
        self._update_banner()
        self._update_subtitle()
        first = self.model.first_key()
        if self.current is not None:
            self.show_case(self.current, keep_scroll=True)
        elif first is not None:
            self.show_case(first)
        else:
            self._show_nothing()
        self._prerender_soon()
        self.loader.reload_applied(reload)
        self.watcher.follow(rescanned=reload.scan is not None)

    # ------------------------------------------------------------------ actions

    def action_focus_filter(self) -> None:
        self.query_one("#case-filter").focus()

    def action_focus_cases(self) -> None:
        self.query_one("#case-options").focus()

    def action_focus_pane(self, pane_id: str) -> None:
        self.query_one(f"#{pane_id}", Pane).focus()

    def action_toggle_mode(self) -> None:
        self.model.toggle_mode()
        self._rerender()

    def action_toggle_profile(self) -> None:
        self.model.toggle_profile()
        self._rerender(rows=True)

    def action_next_case(self) -> None:
        key = self.model.step(self.query_one(CaseList).visible_keys(), 1)
        if key:
            self.select_case(key)

    def action_previous_case(self) -> None:
        key = self.model.step(self.query_one(CaseList).visible_keys(), -1)
        if key:
            self.select_case(key)

    def action_next_warning(self) -> None:
        self._jump_warning(1)

    def action_previous_warning(self) -> None:
        self._jump_warning(-1)

    def _jump_warning(self, direction: int) -> None:
        jump = self.model.warning_jump(direction)
        if jump.key is None:
            self.notify(jump.note, markup=False)
            return
        if jump.note:
            self.notify(jump.note, markup=False, timeout=2)
        self.select_case(jump.key)

    def action_jump(self) -> None:
        from textual.command import CommandPalette

        from .commands import CaseCommands

        self.app.push_screen(CommandPalette(providers=[CaseCommands], placeholder="Jump to case…"))

    def case_choices(self) -> list[tuple[str, str, str]]:
        """(key, label, summary) for every case listed so far, for the jump palette (sanitised: shown as is)."""
        return [
            (key, render.sanitize(label), render.sanitize(summary)) for key, label, summary in self.model.case_choices()
        ]

    def action_evaluator(self) -> None:
        from .grading import GradingScreen

        if self.current is None:
            return
        found = self.session.case(self.current)
        formatted = self.session.formatted(self.current, self.profile)
        if found is None:
            return
        if formatted is None:
            self.notify("A skipped case has no grader prompt.", markup=False, severity="warning")
            return
        good = found[0].good
        self.app.push_screen(GradingScreen(found[1], formatted, good.dialect if good else "agentv-0.15"))

    def action_profile_diff(self) -> None:
        from .screens import ProfileDiffScreen

        if self.current is None:
            return
        found = self.session.case(self.current)
        agentv = self.session.formatted(self.current, "agentv")
        design = self.session.formatted(self.current, "design")
        if found is None:
            return
        if agentv is None or design is None:
            self.notify("A skipped case has no chatPrompt to compare.", markup=False, severity="warning")
            return
        self.app.push_screen(ProfileDiffScreen(found[1], agentv, design, self.mode), self._diff_closed)

    def _diff_closed(self, mode: str | None) -> None:
        if self.model.set_mode(mode):
            self._rerender()

    def action_open_editor(self) -> None:
        target = self.model.editor_target()
        if target is None:
            self.notify("No eval file to open.", markup=False, severity="warning")
            return
        command = editor_command(*target)
        from textual.app import SuspendNotSupported

        try:
            with self.app.suspend():
                run_editor(command)
        except SuspendNotSupported:
            self.notify("This terminal cannot hand over to an editor.", markup=False, severity="warning")
        except OSError as error:
            self.notify(f"Could not start the editor: {error}", markup=False, severity="error")

    def action_copy(self) -> None:
        selected = self.get_selected_text()
        if selected:
            self.app.copy_to_clipboard(sanitize(selected))
            self.notify(f"Copied the selection ({len(selected)} characters)", markup=False)
            return
        self._copy_pane(raw=False)

    def action_copy_raw(self) -> None:
        self._copy_pane(raw=True)

    def _copy_pane(self, *, raw: bool) -> None:
        # What lands on the clipboard is pasted into terminals too: escapes from the file stay visible unless asked.
        focused = self.focused
        pane = focused if isinstance(focused, Pane) else self.query_one("#question", Pane)
        if self.current is None and not pane.copy_text:
            pane = self.query_one("#messages", Pane)  # the error (or empty state) is shown there
        if not pane.copy_text:
            self.notify("Nothing to copy: no case is shown.", markup=False, severity="warning")
            return
        text = pane.copy_text if raw else sanitize(pane.copy_text)
        self.app.copy_to_clipboard(text)
        what = "the raw text of " if raw else ""
        self.notify(f"Copied {what}{pane.title_name} ({len(text)} characters)", markup=False)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return self.model.allows(action)

    def action_maximize_pane(self) -> None:
        focused = self.focused
        pane = focused if isinstance(focused, Pane) else self.query_one("#question", Pane)
        pane.focus()
        self.maximize(pane)
        self.refresh_bindings()

    def action_restore_pane(self) -> None:
        self.minimize()
        self.refresh_bindings()

    def watch_maximized(self) -> None:
        self.model.maximize(self.maximized.id if self.maximized is not None else None)
        self.refresh_bindings()  # esc restores too (Textual's own binding): the footer follows

    def action_help(self) -> None:
        from .actions import help_sections
        from .screens import HelpScreen

        self.app.push_screen(HelpScreen(help_sections(INSPECTOR_ACTIONS)))

    def palette_commands(self) -> list[tuple[str, str, str]]:
        """(title, description, action) of the command palette's actions, in table order."""
        from .actions import palette_entries

        return [entry for entry in palette_entries(INSPECTOR_ACTIONS) if self.check_action(entry[2], ()) is not False]


def run_editor(command: list[str]) -> int:
    """Run the editor in the foreground (the app is suspended meanwhile)."""
    return subprocess.call(command)
