"""Two runs compared: each result of A beside the result of B with the same id, changes first.

`CompareScreen(paths, evals, repo_root)` is what `turnlens A B` opens, and what `v` pushes over a run list
(`closable`: esc goes back). It drives a `CompareModel` (model.py); one thread worker indexes both runs and pairs
them, reporting by message.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.widgets import Static

from turnlens.formatting.records import Diagnostic
from turnlens.formatting.results.compare import CompareRow
from turnlens.formatting.results.queries import DEFAULT_THRESHOLD
from turnlens.formatting.results.record import visible_text
from turnlens.formatting.sanitize import sanitize

from ..actions import bindings, table_commands, text_box_keys
from ..commands import TableCommands
from ..widgets.footer import FittingFooter
from .commands import show_help
from .keys import COMPARE_ACTIONS, PAIR_ACTIONS, marks_legend
from .loading import RunLoader
from .messages import Compared, IndexProgressed
from .model import CompareModel, Run, open_runs
from .theming import ThemedScreen
from .widgets import CompareHeader, CompareList, ProblemsBar, SearchBox, VirtualList


class CompareScreen(ThemedScreen):
    """Results of two runs paired by id (AgentV 4: test id and target)."""

    COMMANDS = {TableCommands}
    BINDINGS = bindings(COMPARE_ACTIONS)
    TEXT_BOX_KEYS = text_box_keys(COMPARE_ACTIONS)

    def __init__(
        self,
        paths: Sequence[str],
        evals: str | None = None,
        repo_root: str | None = None,
        *,
        threshold: float | None = None,
        delta: float | None = None,
        targets: tuple[str, str] | None = None,
        closable: bool = False,
        name: str | None = None,
        opened: tuple[list[Run], list[Diagnostic]] | None = None,
    ) -> None:
        super().__init__(name=name)
        self.paths = [os.fspath(p) for p in paths]
        self.evals = evals
        self.repo_root = repo_root
        self.closable = closable
        runs, self.path_problems = opened or open_runs(self.paths)
        if len(runs) != 2:
            raise ValueError(f"two runs are compared, {len(runs)} given")
        self.model = CompareModel(
            runs[0],
            runs[1],
            threshold=DEFAULT_THRESHOLD if threshold is None else threshold,
            delta=delta,
            targets=targets,
        )
        self.loader = RunLoader(self)
        self._highlighted: CompareRow | None = None

    # -- layout ----------------------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield CompareHeader(id="compare-header")
        yield SearchBox(
            "search ids", focus_list=lambda: self.set_focus(self.query_one(CompareList)), id="results-search"
        )
        yield ProblemsBar(id="results-problems")
        yield Static(self._columns("id"), id="results-columns")  # (test id or eval id: said once compared)
        yield CompareList(threshold=self.model.threshold, id="compare-list")
        yield FittingFooter()

    @staticmethod
    def _columns(id_title: str) -> Text:
        return Text(f"{'outcome':<11}{'A':<16}{'B':<16}{'Δ':<7}{id_title}", end="")  # the Static pads one cell

    def on_mount(self) -> None:
        self.follow_theme()
        self._show_problems()
        targets = self.model.targets or (None, None)
        self.loader.index_pair(self.model.a, self.model.b, self.model.delta, *targets)
        self.query_one(CompareList).focus()

    def on_unmount(self) -> None:
        self.loader.close()

    # -- indexing and pairing --------------------------------------------------------------------------------

    @on(IndexProgressed)
    def _indexed(self, message: IndexProgressed) -> None:
        message.run.progress = message.progress
        if self.model.comparison is None:
            self.query_one(CompareHeader).show(self.model.header_state())

    @on(Compared)
    def _compared(self, message: Compared) -> None:
        self.model.comparison = message.comparison
        self.query_one("#results-columns", Static).update(self._columns(message.comparison.id_title))
        self._show_problems()
        self._show_comparison()

    def _show_comparison(self) -> None:
        if self.model.comparison is None:
            return
        self.query_one(CompareList).set_rows(self.model.refilter())
        self.query_one(CompareHeader).show(self.model.header_state())

    def redraw(self) -> None:
        self.query_one(CompareHeader).refresh()
        self.query_one(CompareList).refresh()

    def _show_problems(self) -> None:
        problems = list(self.path_problems) + self.model.problems()
        total = len(self.path_problems) + self.model.problem_total()
        self.query_one(ProblemsBar).show_problems(problems, total)

    @on(VirtualList.Highlighted, "#compare-list")
    def _highlighted_row(self, event: VirtualList.Highlighted) -> None:
        self._highlighted = event.row if isinstance(event.row, CompareRow) else None

    # -- actions ---------------------------------------------------------------------------------------------

    def action_cycle_filter(self) -> None:
        self.model.toggle_changed()
        self._show_comparison()

    def action_search(self) -> None:
        self.query_one("#results-search", SearchBox).open()

    @on(SearchBox.Changed, "#results-search")
    def _search_changed(self, event: SearchBox.Changed) -> None:
        self.model.search_text = event.value
        self._show_comparison()

    @on(SearchBox.Submitted, "#results-search")
    def _search_submitted(self, event: SearchBox.Submitted) -> None:
        self.query_one(CompareList).focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # esc is `back` (shown in the footer) when this screen was pushed over a run list, else `clear`
        if action == "back":
            return self.closable
        if action == "clear":
            return not self.closable
        return True

    def action_clear(self) -> None:
        self.action_back()

    def action_back(self) -> None:
        """esc: close the search, else go back (when pushed over a run list)."""
        search = self.query_one("#results-search", SearchBox)
        if search.is_open or self.model.search_text:
            search.close()
            self.model.search_text = ""
            self._show_comparison()
            self.query_one(CompareList).focus()
            return
        if self.closable:
            self.dismiss()

    def action_copy(self) -> None:
        """Copy the highlighted pair's id."""
        row = self._highlighted
        if row is None or not row.key:
            return
        text = sanitize(row.key)  # ids come from the results file: its escapes stay visible when pasted
        self.app.copy_to_clipboard(text)
        self.notify(f"Copied {visible_text(text)[:80]}", timeout=2)

    def action_help(self) -> None:
        show_help(self, (COMPARE_ACTIONS, PAIR_ACTIONS), marks_legend())

    def action_open_current(self) -> None:
        list_ = self.query_one(CompareList)
        list_.focus()
        list_.action_select()

    @on(CompareList.Selected, "#compare-list")
    def _open_pair(self, event: CompareList.Selected) -> None:
        from .detail import CompareDetailScreen

        a, b = self.model.runs
        self.app.push_screen(
            CompareDetailScreen(
                a.results,
                b.results,
                self.model.rows,
                event.position,
                threshold=self.model.threshold,
                names=(a.name, b.name),
                run_folders=(a.folder, b.folder),
            )
        )

    # -- command palette -------------------------------------------------------------------------------------

    def palette_commands(self) -> list[tuple[str, str, str]]:
        return table_commands(self, COMPARE_ACTIONS)
