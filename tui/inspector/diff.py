"""`turnlens diff` as a view: the changed tests first, then the added and removed ones; for the chosen test its
causes, marker rule and segment fates, and one field at a time old and new side by side, the profile diff's
rendering marking the lines that differ. The comparison runs in a worker (git read, both versions formatted)."""

from __future__ import annotations

import os
from collections.abc import Sequence

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import Screen
from textual.theme import Theme
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from turnlens.formatting.diff.compare import TestChange, TestRef, TreeDiff
from turnlens.formatting.evals.files import max_file_size
from turnlens.formatting.sanitize import sanitize, sanitize_line

from .. import render
from ..actions import Action, bindings, help_sections, quit_action, table_commands
from ..commands import TableCommands
from ..screens import CONTEXT_LINES, HelpScreen
from ..theme import palette, use_theme
from ..widgets.footer import FittingFooter
from ..widgets.pane import Pane, PaneText


class _Cancelled(Exception):
    """The screen was left while the comparison ran."""


class ChangesScreen(Screen[None]):
    """What a change does to every test: `operands` as `turnlens diff` takes them, read from `cwd`."""

    ACTIONS = (
        Action("", "", "Choose a test in the list (or click it): changed tests first.", display="↑ ↓", section="Tests"),
        Action(
            "f", "next_field(1)", "Show the next changed field.", footer="Field", title="Next field", section="Tests"
        ),
        Action("F", "next_field(-1)", "Show the previous changed field.", title="Previous field", section="Tests"),
        Action("c", "copy", "Copy the focused side.", footer="Copy", title="Copy the focused side", section="Tests"),
        Action("r", "reload", "Compare again (after an edit).", footer="Again", title="Compare again", section="Tests"),
        Action("question_mark,f1", "help", "Show this help.", footer="Help", rank=0, title="Help", section="Screen"),
        Action(
            "escape",
            "back",
            "Back to the inspector (opened from it with D).",
            footer="Back",
            title="Back",
            section="Screen",
        ),
        quit_action("Screen"),
    )
    BINDINGS = bindings(ACTIONS)
    COMMANDS = {TableCommands}

    def __init__(self, operands: Sequence[str], cwd: str | None = None, dialect: str = "auto") -> None:
        super().__init__()
        self.operands = list(operands)
        self.cwd = cwd or os.getcwd()
        self.dialect = dialect
        self.diff: TreeDiff | None = None
        self.entries: list[TestChange | tuple[str, TestRef]] = []
        self.field_index = 0
        self._shown_field = ""  # the field the panes show ("": none)
        self._status = "comparing…"

    def compose(self) -> ComposeResult:
        yield Static("", id="screen-title", markup=False)
        with Horizontal(id="changes-body"):
            yield OptionList(id="changes-list")
            with Vertical(id="changes-detail"):
                yield Static("", id="changes-causes", markup=False)
                with Horizontal(id="diff-panes"):
                    yield Pane("before", id="changes-before")
                    yield Pane("after", id="changes-after")
        yield FittingFooter()

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, self._theme_changed)
        self._title()
        self.compare()

    def _theme_changed(self, theme: Theme) -> None:
        use_theme(theme)
        self._show()

    # ----------------------------------------------------------------------------------------------- the worker

    @work(thread=True, exclusive=True, group="diff")
    def compare(self) -> None:
        from turnlens.formatting.diff.trees import DiffInputError
        from turnlens.formatting.diff.versions import plan_diff, run_diff

        worker = get_current_worker()

        def progress(name: str) -> None:
            if worker.is_cancelled:
                raise _Cancelled
            self.app.call_from_thread(self._progress, name)

        try:
            plan = plan_diff(self.operands, self.cwd, max_file_size())
        except DiffInputError as exc:
            self.app.call_from_thread(self._failed, str(exc))
            return
        try:
            diff = run_diff(plan, dialect=self.dialect, progress=progress)
        except _Cancelled:
            return
        finally:
            plan.close()
        if not worker.is_cancelled:
            self.app.call_from_thread(self._loaded, diff)

    def _progress(self, name: str) -> None:
        self._status = f"comparing… {sanitize_line(name)}"
        self._title()

    def _failed(self, message: str) -> None:
        self._status = message
        self._title()
        self.notify(message, markup=False, severity="error", timeout=8)

    def _loaded(self, diff: TreeDiff) -> None:
        from turnlens.formatting.diff.report import summary_line

        self.diff = diff
        self._status = summary_line(diff)
        self.entries = [*diff.changed, *(("added", r) for r in diff.added), *(("removed", r) for r in diff.removed)]
        options = self.query_one("#changes-list", OptionList)
        options.clear_options()
        p = palette()
        for entry in self.entries:
            line = Text(no_wrap=True, overflow="ellipsis", end="")
            if isinstance(entry, TestChange):
                line.append("~ ", style=p.text("warning", bold=True))
                line.append(sanitize_line(entry.id), style="bold")
                if entry.rule:
                    line.append(f"  {entry.rule[0]}→{entry.rule[1]}", style=p.text("warning"))
                line.append(f"\n  {_short(entry.file)}", style="dim")
            else:
                kind, ref = entry
                line.append("+ " if kind == "added" else "- ", style=p.text("success" if kind == "added" else "error"))
                line.append(sanitize_line(ref.id), style="bold")
                line.append(f"  {kind}\n  {_short(ref.file)}", style="dim")
            options.add_option(Option(line))
        self._title()
        if self.entries:
            options.highlighted = 0
            options.focus()
        self._show()

    # ----------------------------------------------------------------------------------------------- drawing

    def _title(self) -> None:
        head = Text(" turnlens diff ", style="bold reverse", end="")
        status = Text(self._status, style="dim" if self.diff is None else "", end="")
        # the status on a second row when the first is too narrow for it (at 80 columns it was cut)
        title = render.header_with_legend(head, status, self.size.width - 2, gap="  ")
        self.query_one("#screen-title", Static).update(title)

    def on_resize(self) -> None:
        self._title()
        self.call_after_refresh(self._fit_subtitles)  # (once the panes have their new width)

    def _fit_subtitles(self) -> None:
        """Each pane's subtitle: the field and its side's version (`lm.question · HEAD`), the field alone when both
        do not fit (at 80 columns they were cut to `lm.question · …`; the header names both versions)."""
        if self.diff is None:
            return
        for pane_id, version in (("#changes-before", self.diff.before), ("#changes-after", self.diff.after)):
            pane = self.query_one(pane_id, Pane)
            subtitle = f"{self._shown_field} · {version}" if self._shown_field else ""
            if len(subtitle) > pane.size.width - SUBTITLE_CHROME:
                subtitle = self._shown_field
            pane.border_subtitle = Content(subtitle)

    def _entry(self) -> TestChange | tuple[str, TestRef] | None:
        index = self.query_one("#changes-list", OptionList).highlighted
        return self.entries[index] if index is not None and 0 <= index < len(self.entries) else None

    def on_option_list_option_highlighted(self, _event: OptionList.OptionHighlighted) -> None:
        self.field_index = 0
        self._show()

    def _show(self) -> None:
        diff, entry = self.diff, self._entry()
        causes = self.query_one("#changes-causes", Static)
        before = self.query_one("#changes-before", Pane)
        after = self.query_one("#changes-after", Pane)
        self._shown_field = ""
        if diff is None or entry is None:
            causes.update(Text("No test changed." if diff is not None else "", style="dim"))
            for pane in (before, after):
                pane.show(PaneText(Text(""), ""), keep_scroll=False)
            return
        p = palette()
        if not isinstance(entry, TestChange):
            kind, ref = entry
            causes.update(Text(f"{sanitize_line(ref.id)} ({sanitize_line(ref.file)}) is only in "
                               f"{diff.after if kind == 'added' else diff.before}: {kind}."))  # fmt: skip
            for pane in (before, after):
                pane.show(PaneText(Text("(no field to compare)", style="dim"), ""), keep_scroll=False)
            return
        head = Text(end="")
        head.append(sanitize_line(entry.id), style="bold")
        head.append(f"  {sanitize_line(entry.file)}", style="dim")
        head.append("\nbecause: ", style=p.text("key", bold=True))
        if entry.causes:
            head.append(", ".join(f"{sanitize_line(c.file)} ({c.kind}, {c.change})" for c in entry.causes))
        else:
            head.append("no file it uses changed (the environment or the engine)")
        if entry.rule:
            head.append("\nmarker rule: ", style=p.text("key", bold=True))
            head.append(f"{entry.rule[0]} → {entry.rule[1]}", style=p.text("warning", bold=True))
            head.append(f"  {sanitize_line(entry.rule_after)}", style="dim")
        for old, new in entry.fates[:3]:
            head.append("\nsegment: ", style=p.text("key", bold=True))
            head.append(f"{sanitize_line(old or '(none)')} → {sanitize_line(new or '(none)')}")
        if len(entry.fates) > 3:
            head.append(f"\n… and {len(entry.fates) - 3} more segment fates", style="dim")
        names = [f.name for f in entry.fields]
        if names:
            self.field_index %= len(names)
            head.append("\nfields: ", style=p.text("key", bold=True))
            for n, name in enumerate(names):
                head.append(("  " if n else "") + name, style="reverse" if n == self.field_index else "")
        causes.update(head)
        if not entry.fields:
            for pane in (before, after):
                pane.show(PaneText(Text("(only the segment fates changed)", style="dim"), ""), keep_scroll=False)
            return
        change = entry.fields[self.field_index]
        a_text, b_text = change.before or "", change.after or ""
        shown = render.diff_text_lines(
            _lines(a_text if change.before is not None else f"(no {change.name} in {diff.before})"),
            _lines(b_text if change.after is not None else f"(no {change.name} in {diff.after})"),
            change.before is not None,
            change.after is not None,
        )
        before.show(PaneText(shown.left, a_text, hang=2), keep_scroll=False)
        after.show(PaneText(shown.right, b_text, hang=2), keep_scroll=False)
        self._shown_field = change.name
        self._fit_subtitles()
        before.scroll_to_line(max(0, shown.first_left - CONTEXT_LINES))
        after.scroll_to_line(max(0, shown.first_right - CONTEXT_LINES))

    # ----------------------------------------------------------------------------------------------- actions

    def palette_commands(self) -> list[tuple[str, str, str]]:
        return table_commands(self, self.ACTIONS)

    def action_next_field(self, step: int) -> None:
        self.field_index += step
        self._show()

    def action_reload(self) -> None:
        self.diff = None
        self._status = "comparing…"
        self._title()
        self.compare()

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen(help_sections(self.ACTIONS), legend=_LEGEND))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # esc goes back, and only when there is a screen to go back to (the inspector's D): as the first screen
        # (turnlens diff --view) it has none, and q quits
        if action == "back":
            return len(self.app.screen_stack) > 2
        return True

    def action_back(self) -> None:
        self.workers.cancel_group(self, "diff")
        self.dismiss()

    def action_copy(self) -> None:
        focused = self.focused
        pane = focused if isinstance(focused, Pane) else self.query_one("#changes-after", Pane)
        text = sanitize(pane.copy_text)
        self.app.copy_to_clipboard(text)
        self.notify(f"Copied the {pane.title_name} side ({len(text)} characters)", markup=False)


_LEGEND = [
    (Text("~ id"), "a test whose prompts, marker rule or segment fates changed"),
    (Text("+ id"), "a test only the new version has (a renamed test is a removal and an addition)"),
    (Text("- id"), "a test only the old version has"),
    (Text("~ / - / +"), "in the panes: a changed line, a line only before, a line only after"),
]


SUBTITLE_CHROME = 6  # a pane's corners, the rule before its subtitle and the spaces around it
LIST_TEXT_WIDTH = 33  # the list is 38 columns: its indent, padding and scroll bar take the rest


def _short(path: str) -> str:
    """A path that fits the list: its end, where the file name is."""
    path = sanitize_line(path)
    return path if len(path) <= LIST_TEXT_WIDTH else "…" + path[-(LIST_TEXT_WIDTH - 1) :]


def _lines(text: str) -> list[Text]:
    return [Text(render.sanitize(line), end="") for line in text.split("\n")]
