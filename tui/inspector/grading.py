"""The grading screen, one key (`e`) away from the inspector: what grades a case beside the prompts its grading sends.

agentv-4: `criteria`, `expected_output`, every grader AgentV runs for the test, in its order, with the settings that
decide its verdict (formatting/graders/), and the user and system prompt of every grader that sends one, in the mode
chosen (`m`); the default grader's prompt only for a test without graders of its own, the only one AgentV runs it
for. agentv-0.15: `outcome`, the expected messages, the case's own `evaluators` with each one's prompt (else the
default evaluator prompt), made from the lm question.

The inspector's usual keys work here: `[`/`]` the previous/next case, `z` maximises, `?`/F1 help, `c` copies,
`q` quits (esc goes back).
"""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.theme import Theme
from textual.widgets import Static

from turnlens.formatting.model import EvalCase, FormattedCase
from turnlens.formatting.sanitize import sanitize

from .. import render
from ..actions import Action, bindings, quit_action, table_commands
from ..commands import TableCommands
from ..screens import PanesScreen
from ..theme import use_theme
from ..widgets.footer import FittingFooter
from ..widgets.pane import Pane, PaneText
from . import authoring

STACK_BELOW = 120  # columns: narrower, the two panes are stacked

# (case, formatted) of the previous (-1) or next (1) case, or None when there is none
Stepper = Callable[[int], "tuple[EvalCase, FormattedCase] | None"]

GRADING_ACTIONS = (
    Action("escape,e", "back", "Back to the case, in the mode chosen here.", footer="Back", title="Back to the case"),
    Action(
        "m", "toggle_mode", "Switch the mode the prompts are made in: lm or agent.", footer="Mode", title="Switch mode"
    ),
    Action("right_square_bracket", "step(1)", "The next case's grading.", footer="Next", title="Next case"),
    Action("left_square_bracket", "step(-1)", "The previous case's grading.", title="Previous case"),
    Action("c", "copy", "Copy the focused pane (the prompts: their user prompts).", footer="Copy", title="Copy"),
    Action(
        "z", "maximize_pane", "Maximise the focused pane; z or esc restores it.", footer="Max", title="Maximise pane"
    ),
    Action("z", "restore_pane", "Restore the maximised pane.", footer="Restore", title="Restore pane", help=False),
    Action("1", "focus_pane('grading')", "Focus what grades the case.", title="Focus what grades it"),
    Action("2", "focus_pane('evaluator')", "Focus the grader prompts.", title="Focus the grader prompts"),
    Action("question_mark,f1", "help", "Show this help.", footer="Help", title="Help"),
    quit_action(),
)


class GradingScreen(PanesScreen):
    ACTIONS = GRADING_ACTIONS  # bindings and palette entries are made from it
    BINDINGS = bindings(GRADING_ACTIONS)
    MAIN_PANE = "evaluator"
    COMMANDS = {TableCommands}

    def __init__(
        self,
        case: EvalCase,
        formatted: FormattedCase,
        mode: str = "lm",
        step: Stepper | None = None,
        mode_chosen: bool = True,
    ) -> None:
        super().__init__()
        self.case = case
        self.formatted = formatted
        self.mode = mode if formatted.labels.graders else "lm"  # 0.15's evaluators see the lm question
        # False: the mode is AgentV's for the case, and [ ] take the next case's; m makes it the user's choice
        self.mode_chosen = mode_chosen
        self.stepper = step

    def compose(self) -> ComposeResult:
        yield Static("", id="screen-title", markup=False)
        with Horizontal(id="grading-panes"):
            yield Pane("what grades it", key="1", id="grading")
            yield Pane(self._prompt_title(), key="2", id="evaluator")
        yield FittingFooter()

    def _title(self) -> Text:
        """The case and its mode (the case's id cut first), then what grades it; the latter on a second row when
        one is too narrow (at 80 columns it was cut off). Why the mode is the one shown is said in full in pane [1]
        (the header has room for its short form only)."""
        width = self.size.width - 2
        mode = Text(end="")
        if self.formatted.labels.graders:
            mode.append(f"  {self.mode} mode", style="bold")
            note = authoring.mode_note(self.case, self.mode)
            if note:
                mode.append(f" ({note})", style="dim")
        name = " grading "
        label = render.sanitize(render.case_label(self.case))
        if width > 0:
            label = render.fit(label, max(8, width - len(name) - 2 - mode.cell_len))
        title = Text(end="", no_wrap=True, overflow="ellipsis")
        title.append(name, style="bold reverse")
        title.append("  " + label, style="bold")
        title.append_text(mode)
        legend = Text(end="", no_wrap=True, overflow="ellipsis")
        if self.formatted.labels.graders:
            if self.case.assertions:
                graders = render.plural(len(self.case.assertions), "grader")
                legend.append(f"{graders} of its own: the default grader does not run", style="dim")
            else:
                legend.append("no graders of its own: the default grader runs", style="dim")
        elif self.formatted.evaluator_prompts:
            legend.append(
                f"{render.plural(len(self.formatted.evaluator_prompts), 'evaluator')} of its own, lm question",
                style="dim",
            )
        else:
            legend.append("default evaluator template, lm question, empty candidate answer", style="dim")
        return render.header_with_legend(title, legend, self.size.width - 2, gap="  ")

    def _prompt_title(self) -> str:
        if self.formatted.labels.graders:
            return "grader prompts" if self.case.assertions else "default grader prompt"
        if self.formatted.evaluator_prompts:
            return "evaluator prompts"
        return "evaluator user prompt"

    def on_mount(self) -> None:
        self.set_class(self.size.width < STACK_BELOW, "-stacked")
        self.app.theme_changed_signal.subscribe(self, self._theme_changed)
        self._show()
        self.query_one("#evaluator", Pane).focus()

    def _theme_changed(self, theme: Theme) -> None:
        use_theme(theme)
        self._show()

    def _show(self, keep_scroll: bool = True) -> None:
        self.query_one("#screen-title", Static).update(self._title())
        grading = authoring.grading_text(self.case, self.formatted)
        mode = authoring.mode_text(self.case, self.mode) if self.formatted.labels.graders else None
        if mode is not None:
            grading = Text.assemble(mode, "\n\n", grading, end="")
        self.query_one("#grading", Pane).show(PaneText(grading, grading.plain), keep_scroll=keep_scroll)
        text, copy = authoring.grader_prompt_text(self.case, self.formatted, self.mode)
        pane = self.query_one("#evaluator", Pane)
        pane.set_title(self._prompt_title())
        pane.show(PaneText(text, copy), subtitle=f"{self.mode} · {len(copy)} chars", keep_scroll=keep_scroll)

    def on_resize(self, event: events.Resize) -> None:
        self.set_class(event.size.width < STACK_BELOW, "-stacked")
        self.query_one("#screen-title", Static).update(self._title())

    def palette_commands(self) -> list[tuple[str, str, str]]:
        return table_commands(self, GRADING_ACTIONS)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "toggle_mode":
            return self.formatted.labels.graders
        return super().check_action(action, parameters)

    def action_back(self) -> None:
        """Back to the inspector, which takes the mode chosen here (if one was)."""
        self.dismiss(self.mode if self.mode_chosen else None)

    def action_toggle_mode(self) -> None:
        self.mode = "agent" if self.mode == "lm" else "lm"
        self.mode_chosen = True
        self._show()

    def action_step(self, direction: int) -> None:
        shown = self.stepper(direction) if self.stepper is not None else None
        if shown is None:
            self.notify("No other case to grade.", markup=False)
            return
        self.case, self.formatted = shown
        if not self.mode_chosen:
            self.mode = (self.case.agentv_mode or "lm") if self.formatted.labels.graders else "lm"
        self._show(keep_scroll=False)

    def action_copy(self) -> None:
        focused = self.focused
        pane = focused if isinstance(focused, Pane) else self.query_one("#evaluator", Pane)
        text = sanitize(pane.copy_text)
        self.app.copy_to_clipboard(text)
        self.notify(f"Copied the {pane.title_name} ({len(text)} characters)", markup=False)
