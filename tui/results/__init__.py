"""The results view: AgentV results files, failures first, runs compared, drift against the eval file.

`results_screen(paths, …)` is the entry point `tui.app.make_app` uses: the list of a run (or of a folder of runs,
screen.py), or, given two runs, the two compared (compare.py). model.py holds their state in plain Python.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from textual.screen import Screen


def results_screen(
    paths: Sequence[str], *, evals: str | None = None, repo_root: str | None = None, watch: bool = True
) -> Screen:
    """The screen for `paths`: two runs named are compared; anything else is listed."""
    from .model import is_comparison, open_runs

    paths = [os.fspath(p) for p in paths]
    opened = open_runs(paths)
    if is_comparison(paths, opened[0]):
        from .compare import CompareScreen

        return CompareScreen(paths, evals, repo_root, opened=opened)
    from .screen import ResultsScreen

    return ResultsScreen(paths, evals, repo_root, watch=watch, opened=opened)
