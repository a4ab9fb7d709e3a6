"""Screens one key away from the inspector: profile diff, help (the grading screen is in inspector/grading.py)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.theme import Theme
from textual.widgets import Static

from turnlens.formatting.model import EvalCase, FormattedCase
from turnlens.formatting.sanitize import sanitize

from . import render
from .actions import Action, bindings, help_sections, quit_action, table_commands
from .commands import TableCommands
from .theme import palette, use_theme
from .widgets.footer import FittingFooter
from .widgets.pane import Pane, PaneText

CONTEXT_LINES = 3  # lines shown above the first difference

LEGEND = [
    (" MARK ", "markers", "role markers: a non-user turn, or several visible turns"),
    (" FLAT ", "flat", "flat question: a single visible turn (or none)"),
    (" SKIP ", "skip", "AgentV skips the case (the reason is shown)"),
    ("⚠ 2", None, "warnings (missing files, dropped messages…)"),
]


def help_text(
    sections: list[tuple[str, list[tuple[str, str]]]], legend: Sequence[tuple[Text, str]] | None = None
) -> Group:
    """The help: the screen's action table by section, then the legend of badges and colours (the inspector's,
    unless the screen gives its own `legend`; an empty one: none). Each section's title is a line of its own, above
    a grid whose key column is as wide as the widest key of every section: a long title ('Two runs compared
    (turnlens A B, or v)') in the key column made it 40 cells wide, and the descriptions wrapped at 80 columns."""
    p = palette()
    blocks: list[tuple[Text | None, list[tuple[Text | str, Text | str]]]] = [
        (Text(section, style="bold underline") if section else None, list(rows)) for section, rows in sections
    ]
    if legend is None:
        badges: list[tuple[Text | str, Text | str]] = [
            (Text(badge, style=p.badge(name) if name else p.text("warning")), what) for badge, name, what in LEGEND
        ]
        marks: list[tuple[Text | str, Text | str]] = [
            (Text(f"@[{role.capitalize()}]:", style=render.style_for(f"marker:{role}")), f"{role} turn marker")
            for role in ("system", "user", "assistant", "tool")
        ]
        marks += [
            (Text("◆ rule", style=p.text("key", bold=True)), "this message made the marker rule fire"),
            (Text("<Attached: path>", style=render.style_for("attached")), "guideline reference kept in its turn"),
            (
                Text('<file path="…">', style=render.style_for("file-tag")),
                "embedded file (lm) / file reference (agent)",
            ),
            (Text("[[ ## … ## ]]", style=render.style_for("section")), "section of a prompt template"),
        ]
        blocks += [(Text("Legend", style="bold underline"), badges), (None, marks)]
    elif legend:
        blocks.append((Text("Legend", style="bold underline"), list(legend)))
    key_width = max(
        (Text(key).cell_len if isinstance(key, str) else key.cell_len for _, rows in blocks for key, _ in rows),
        default=1,
    )
    parts: list[Text | Table] = []
    for n, (title, rows) in enumerate(blocks):
        if n:
            parts.append(Text(""))
        if title is not None:
            parts.append(title)
        grid = Table.grid(padding=(0, 2))
        grid.add_column(style=p.text("key", bold=True), no_wrap=True, width=key_width)
        grid.add_column()
        for key, what in rows:
            grid.add_row(key, what)
        parts.append(grid)
    return Group(*parts)


class HelpScreen(ModalScreen[None]):
    """Keys and legend, made from the calling screen's action table."""

    BINDINGS = [
        Binding("escape,question_mark,f1", "dismiss", "Close"),
        Binding("q", "app.quit", "Quit"),  # q quits from every screen, this one too
    ]

    def __init__(
        self, sections: list[tuple[str, list[tuple[str, str]]]], legend: Sequence[tuple[Text, str]] | None = None
    ) -> None:
        super().__init__()
        self.sections = sections
        self.legend = legend

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-box") as box:
            box.border_title = "turnlens — keys"
            box.border_subtitle = "esc closes · q quits"
            yield Static(help_text(self.sections, self.legend), id="help-text")


class PanesScreen(Screen[str | None]):  # (dismissed with the mode chosen on it, if one was)
    """A sub-screen of panes (grading, profile diff) with the inspector's pane keys: `z` maximises the focused pane
    (else MAIN_PANE), esc restores it, `?` shows help made from the screen's ACTIONS table."""

    ACTIONS: tuple[Action, ...] = ()
    MAIN_PANE = ""  # the id of the pane `z` maximises when no pane has the focus

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "maximize_pane":
            return self.maximized is None
        if action == "restore_pane":
            return self.maximized is not None
        return True

    def watch_maximized(self) -> None:
        self.refresh_bindings()

    def action_maximize_pane(self) -> None:
        focused = self.focused
        pane = focused if isinstance(focused, Pane) else self.query_one(f"#{self.MAIN_PANE}", Pane)
        pane.focus()
        self.maximize(pane)
        self.refresh_bindings()

    def action_restore_pane(self) -> None:
        self.minimize()
        self.refresh_bindings()

    def action_focus_pane(self, pane_id: str) -> None:
        self.query_one(f"#{pane_id}", Pane).focus()

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen(help_sections(self.ACTIONS), legend=[]))


class ProfileDiffScreen(PanesScreen):
    """The agentv and design chatPrompts side by side, lines that differ marked in the gutter."""

    ACTIONS = (
        Action("escape,d", "back", "Back to the case, in the mode chosen here.", footer="Back", title="Back"),
        Action("m", "toggle_mode", "Switch between lm and agent mode.", footer="Mode", title="Switch mode"),
        Action("right_square_bracket", "step(1)", "The next case's profile diff.", footer="Next", title="Next case"),
        Action("left_square_bracket", "step(-1)", "The previous case's profile diff.", title="Previous case"),
        Action("c", "copy", "Copy the focused side.", footer="Copy", title="Copy the focused side"),
        Action(
            "z", "maximize_pane", "Maximise the focused side; z or esc restores it.", footer="Max", title="Maximise"
        ),
        Action("z", "restore_pane", "Restore the maximised side.", footer="Restore", title="Restore", help=False),
        Action("1", "focus_pane('diff-agentv')", "Focus the agentv side.", title="Focus the agentv side"),
        Action("2", "focus_pane('diff-design')", "Focus the design side.", title="Focus the design side"),
        Action("question_mark,f1", "help", "Show this help.", footer="Help", title="Help"),
        quit_action(),
    )  # bindings and palette entries are made from it
    BINDINGS = bindings(ACTIONS)
    MAIN_PANE = "diff-agentv"
    COMMANDS = {TableCommands}

    def __init__(
        self,
        case: EvalCase,
        agentv: FormattedCase,
        design: FormattedCase,
        mode: str,
        step: Callable[[int], tuple[EvalCase, FormattedCase, FormattedCase, str] | None] | None = None,
    ) -> None:
        super().__init__()
        self.case = case
        self.agentv = agentv
        self.design = design
        self.mode = mode
        self.mode_chosen = False  # m here: the inspector takes the mode back as the user's choice
        self.stepper = step

    def compose(self) -> ComposeResult:
        yield Static("", id="screen-title", markup=False)
        with Horizontal(id="diff-panes"):
            yield Pane("agentv chatPrompt", key="1", id="diff-agentv")  # (numbered as the grading screen's panes)
            yield Pane("design chatPrompt", key="2", id="diff-design")
        yield FittingFooter()

    def on_mount(self) -> None:
        self._syncing = False
        self.app.theme_changed_signal.subscribe(self, self._theme_changed)
        self._show()
        left = self.query_one("#diff-agentv", Pane)
        right = self.query_one("#diff-design", Pane)
        self.watch(left, "scroll_y", lambda _y: self._follow(left, right, self._diff.left_to_right), init=False)
        self.watch(right, "scroll_y", lambda _y: self._follow(right, left, self._diff.right_to_left), init=False)
        left.focus()

    def _show(self) -> None:
        left = self.agentv.rendered(self.mode)
        right = self.design.rendered(self.mode)
        diff = render.diff_chat_texts(left, right, "agentv", "design")
        differences = diff.differences
        head = Text(end="", no_wrap=True, overflow="ellipsis")
        head.append(" profile diff ", style="bold reverse")
        head.append("  " + render.sanitize(render.case_label(self.case)), style="bold")
        head.append(f"  {self.mode} mode  ", style="dim")  # as the grading screen says it
        legend = Text(end="", no_wrap=True, overflow="ellipsis")
        if differences:
            head.append(render.plural(differences, "difference"), style=palette().text("warning", bold=True))
            legend.append("~ changed  - only agentv  + only design", style="dim")
        else:
            head.append("the two chatPrompts are identical", style=palette().text("success", bold=True))
        self._title = (head, legend)
        self._show_title()
        left_pane = self.query_one("#diff-agentv", Pane)
        right_pane = self.query_one("#diff-design", Pane)
        left_pane.show(PaneText(diff.left, render.chat_copy_text(left), hang=2), subtitle=self.mode, keep_scroll=False)
        right_pane.show(
            PaneText(diff.right, render.chat_copy_text(right), hang=2), subtitle=self.mode, keep_scroll=False
        )
        self._diff = diff
        # Bring the first difference into view, with a little context above it.
        left_pane.scroll_to_line(max(0, diff.first_left - CONTEXT_LINES))
        right_pane.scroll_to_line(max(0, diff.first_right - CONTEXT_LINES))

    def _show_title(self) -> None:
        head, legend = self._title
        self.query_one("#screen-title", Static).update(render.header_with_legend(head, legend, self.size.width - 2))

    def on_resize(self) -> None:
        if hasattr(self, "_title"):
            self._show_title()

    def _theme_changed(self, theme: Theme) -> None:
        use_theme(theme)
        self._show()

    def _follow(self, source: Pane, target: Pane, mapping: list[int]) -> None:
        """Scrolling one side scrolls the other to the matching line."""
        if self._syncing or not mapping or source is not self.focused:
            return
        line = mapping[min(source.top_line(), len(mapping) - 1)]
        self._syncing = True
        try:
            target.scroll_to_line(line)
        finally:
            self._syncing = False

    def palette_commands(self) -> list[tuple[str, str, str]]:
        return table_commands(self, self.ACTIONS)

    def action_toggle_mode(self) -> None:
        self.mode = "agent" if self.mode == "lm" else "lm"
        self.mode_chosen = True
        self._show()

    def action_step(self, direction: int) -> None:
        """The previous (-1) or next (1) case's diff, in the mode chosen here (else in the inspector's for it)."""
        shown = self.stepper(direction) if self.stepper is not None else None
        if shown is None:
            self.notify("No other case to compare.", markup=False)
            return
        self.case, self.agentv, self.design, mode = shown
        if not self.mode_chosen:
            self.mode = mode
        self._show()

    def action_back(self) -> None:
        """Back to the inspector, which takes the mode chosen here (if one was)."""
        self.dismiss(self.mode if self.mode_chosen else None)

    def action_copy(self) -> None:
        focused = self.focused
        pane = focused if isinstance(focused, Pane) else self.query_one("#diff-agentv", Pane)
        text = sanitize(pane.copy_text)
        self.app.copy_to_clipboard(text)
        self.notify(f"Copied the {pane.title_name} ({len(text)} characters)", markup=False)
