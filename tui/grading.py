"""The grading screen, one key (`e`) away from the inspector: what grades a case beside the grader prompt.

agentv-4: `criteria`, `expected_output`, `assertions` (graders with type and weight; a test with graders does not run
the default grader) and the default grader prompt. agentv-0.15: `outcome`, the expected messages, the case's own
`evaluators` with each one's prompt (else the default evaluator prompt).
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Static

from turnlens.formatting.model import EvalCase, FormattedCase
from turnlens.formatting.sanitize import sanitize

from . import authoring, render
from .actions import Action, bindings, table_commands
from .commands import TableCommands
from .theme import use_theme
from .widgets.footer import FittingFooter
from .widgets.pane import Pane, PaneText

STACK_BELOW = 120  # columns: narrower, the two panes are stacked


GRADING_ACTIONS = (
    Action("escape,e,q", "app.pop_screen", "Back to the case.", footer="Back", title="Back to the case"),
    Action("c", "copy", "Copy the focused pane.", footer="Copy", title="Copy the focused pane"),
    Action("1", "focus_pane('grading')", "Focus what grades the case.", title="Focus what grades it"),
    Action("2", "focus_pane('evaluator')", "Focus the grader prompt.", title="Focus the grader prompt"),
)


class GradingScreen(Screen):
    ACTIONS = GRADING_ACTIONS  # bindings and palette entries are made from it
    BINDINGS = bindings(GRADING_ACTIONS)
    COMMANDS = {TableCommands}

    def __init__(self, case: EvalCase, formatted: FormattedCase, dialect: str) -> None:
        super().__init__()
        self.case = case
        self.formatted = formatted
        self.dialect = dialect

    def compose(self) -> ComposeResult:
        yield Static(self._title(), id="screen-title", markup=False)
        with Horizontal(id="grading-panes"):
            yield Pane("what grades it", key="1", id="grading")
            yield Pane(self._prompt_title(), key="2", id="evaluator")
        yield FittingFooter()

    def _title(self) -> Text:
        title = Text(end="", no_wrap=True, overflow="ellipsis")
        title.append(" grading ", style="bold reverse")
        title.append("  " + render.sanitize(render.case_label(self.case)), style="bold")
        if self.dialect == "agentv-4":
            if self.case.assertions:
                graders = render.plural(len(self.case.assertions), "grader")
                title.append(f"  {graders} of its own: the default grader does not run", style="dim")
            else:
                title.append("  no graders of its own: the default grader runs", style="dim")
        elif self.formatted.evaluator_prompts:
            title.append(
                f"  {render.plural(len(self.formatted.evaluator_prompts), 'evaluator')} of its own", style="dim"
            )
        else:
            title.append("  default evaluator template, lm question, empty candidate answer", style="dim")
        return title

    def _prompt_title(self) -> str:
        if self.formatted.evaluator_prompts:
            return "evaluator prompts"
        if self.dialect == "agentv-4":
            return "default grader prompt" + (" (not run)" if self.case.assertions else "")
        return "evaluator user prompt"

    def on_mount(self) -> None:
        self.set_class(self.size.width < STACK_BELOW, "-stacked")
        self.app.theme_changed_signal.subscribe(self, self._theme_changed)
        self._show()
        self.query_one("#evaluator", Pane).focus()

    def _theme_changed(self, theme) -> None:
        use_theme(theme)
        self._show()

    def _show(self) -> None:
        grading = authoring.grading_text(self.case, self.formatted, self.dialect)
        self.query_one("#grading", Pane).show(PaneText(grading, grading.plain))
        text, copy = authoring.grader_prompt_text(self.formatted)
        pane = self.query_one("#evaluator", Pane)
        pane.show(PaneText(text, copy), subtitle=f"lm · {len(copy)} chars")

    def on_resize(self, event) -> None:
        self.set_class(event.size.width < STACK_BELOW, "-stacked")

    def palette_commands(self) -> list[tuple[str, str, str]]:
        return table_commands(self, GRADING_ACTIONS)

    def action_focus_pane(self, pane_id: str) -> None:
        self.query_one(f"#{pane_id}", Pane).focus()

    def action_copy(self) -> None:
        focused = self.focused
        pane = focused if isinstance(focused, Pane) else self.query_one("#evaluator", Pane)
        text = sanitize(pane.copy_text)
        self.app.copy_to_clipboard(text)
        self.notify(f"Copied the {pane.title_name} ({len(text)} characters)", markup=False)
