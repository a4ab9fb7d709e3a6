"""Drift's search for the eval files behind a results file stops when asked: a results file in a big folder (/tmp)
had q wait seconds for the walk of everything under it."""

from __future__ import annotations

import pytest

from turnlens.formatting.cancel import Cancelled
from turnlens.formatting.results.drift import DriftChecker


def folders_with_an_eval_file(root, count: int = 30):
    results = root / "run.jsonl"
    results.write_text('{"test_id": "t", "score": 1}\n')
    for n in range(count):
        (root / f"f{n:02d}").mkdir()
    (root / "f29" / "suite.eval.yaml").write_text("tests:\n  - id: t\n    criteria: ok\n    input: hi\n")
    return results


def test_the_search_stops_at_the_next_folder_once_cancelled_and_searches_again_later(tmp_path):
    checker = DriftChecker(str(folders_with_an_eval_file(tmp_path)))
    asked = 0

    def cancelled() -> bool:
        nonlocal asked
        asked += 1
        return asked > 3  # three folders listed, then stop

    with pytest.raises(Cancelled):
        checker.find_eval_paths(cancelled)
    assert asked == 4  # it stopped at once, not after the other 28 folders
    assert checker.find_eval_paths() == [str(tmp_path / "f29" / "suite.eval.yaml")]  # not kept half-found
    assert checker.eval_paths == checker.find_eval_paths(lambda: True)  # found once: nothing more to stop
