"""The results view: AgentV results files, failures first, runs compared, drift against the eval file.

`results_screen(paths, …)` is the entry point `tui.app.make_app` uses: the list of a run (or of a folder of runs,
screen.py), or, given two runs, the two compared (compare.py); enter opens a result or a pair (detail.py).

model.py       the views' state in plain Python (sort, filter, searches, threshold, selected rows; two runs paired)
loading.py     reading runs in worker threads (index, follow, new runs, sorts, full-text search, drift)
messages.py    what those workers report; the screens apply it on the event loop
keys.py        one action table per screen: its bindings, palette entries and help
widgets.py     the header, the virtual lists, the search boxes; texts.py the detail's tabs as rich Text
theming.py     the screens redraw when the theme changes (colours by meaning, tui/theme.py)
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from textual.screen import Screen


def results_screen(
    paths: Sequence[str],
    *,
    evals: str | None = None,
    repo_root: str | None = None,
    watch: bool = True,
    threshold: float | None = None,
    delta: float | None = None,
    targets: tuple[str, str] | None = None,
    remembered: float | None = None,
) -> Screen[None]:
    """The screen for `paths`: two runs named are compared; anything else is listed."""
    from .model import is_comparison, open_runs

    paths = [os.fspath(p) for p in paths]
    opened = open_runs(paths)
    if targets is not None and len(opened[0]) == 1:
        # one run, two of its targets compared test by test (agentv compare RUN --baseline A --candidate B)
        from .compare import CompareScreen

        twice = (open_runs(paths + paths)[0], opened[1])
        return CompareScreen(
            paths + paths, evals, repo_root, opened=twice, threshold=threshold, delta=delta, targets=targets
        )
    if is_comparison(paths, opened[0]):
        from .compare import CompareScreen

        return CompareScreen(paths, evals, repo_root, opened=opened, threshold=threshold, delta=delta)
    from .screen import ResultsScreen

    screen = ResultsScreen(paths, evals, repo_root, watch=watch, opened=opened, threshold=threshold, delta=delta)
    if remembered is not None and threshold is None:
        screen.model.remember(remembered)
    return screen
