"""What the paths named on the command line are: eval files, AgentV results, or both. The one decision the app
(tui/app.py) and `turnlens export` share, made from the files' contents before either reads anything else.

- A file is results when its head holds results rows (results/sniff.py), or when it is JSON lines by its name and
  blank or `{}`-only (read as results, which then says there is no usable record; as an eval file it would only
  get a YAML error). Any other file is an eval file: naming a run's `task/EVAL.yaml` itself opens it as one.
- A folder is a run folder when its `index.jsonl` holds results rows, decided at once (a run of 50,000 tests is not
  walked for eval files; its per-test `task/EVAL.yaml` bundles are never eval files).
- A folder under `.agentv/` is results when it holds runs: AgentV never looks for eval files there.
- Any other folder holds eval files when discovery finds one (dialects/discover.py), else results when it holds runs.
"""

from __future__ import annotations

import enum
import os
from collections.abc import Iterable
from dataclasses import dataclass

from turnlens.formatting.dialects.discover import has_eval_files
from turnlens.formatting.results.sniff import is_blank_json_lines, is_results_file, is_run_folder


class PathKind(enum.Enum):
    EVAL_FILE = "eval file"
    EVAL_FOLDER = "folder of eval files"  # (or a folder with neither: the export then says it found none)
    RESULTS_FILE = "results file"
    RUN_FOLDER = "run folder"
    RESULTS_FOLDER = "folder of runs"

    @property
    def is_results(self) -> bool:
        return self in (PathKind.RESULTS_FILE, PathKind.RUN_FOLDER, PathKind.RESULTS_FOLDER)


@dataclass(frozen=True)
class Classified:
    """Each path named, in order, with its kind."""

    kinds: tuple[tuple[str, PathKind], ...]

    @property
    def evals(self) -> list[str]:
        return [path for path, kind in self.kinds if not kind.is_results]

    @property
    def results(self) -> list[str]:
        return [path for path, kind in self.kinds if kind.is_results]

    @property
    def both(self) -> bool:
        """Eval files and results named together."""
        return bool(self.evals) and bool(self.results)


def classify(paths: Iterable[str]) -> Classified:
    return Classified(tuple((path, path_kind(path)) for path in paths))


def path_kind(path: str) -> PathKind:
    if os.path.isdir(path):
        if is_run_folder(path):
            return PathKind.RUN_FOLDER
        if ".agentv" not in os.path.abspath(path).split(os.sep):
            # A run folder holds each test as AgentV ran it (`task/EVAL.yaml`): those bundles are results, not eval
            # files, so a copied results folder (CI artifacts, outside .agentv) is results too. Eval files first:
            # that search stops at the first one, where looking for results first read every file of a folder of
            # 3,000 eval files before the inspector's first frame.
            if has_eval_files(path, skip_folder=is_run_folder):
                return PathKind.EVAL_FOLDER
        # (A folder of runs in .agentv holds one artifact folder per test: walking them for eval files took minutes.)
        from turnlens.formatting.results.discover import holds_results  # (only now: a folder of eval files has none)

        return PathKind.RESULTS_FOLDER if holds_results(path) else PathKind.EVAL_FOLDER
    if os.path.isfile(path) and (is_results_file(path) or is_blank_json_lines(path)):
        return PathKind.RESULTS_FILE
    return PathKind.EVAL_FILE
