"""The results view model (tui/results/model.py) without an app: sort, filter, threshold, searches and selection."""

from __future__ import annotations

from pathlib import Path

import pytest

from turnlens.formatting.results.queries import FILTERS
from turnlens.tui.results.model import (
    DRIFT_DRIFTED,
    CompareModel,
    ResultsModel,
    Run,
    is_comparison,
    open_runs,
    select_rows,
)

RESULTS = Path(__file__).parents[1] / "fixtures" / "results"
RUN2 = "v4/.agentv/results/runs/default/2026-06-21T09-00-00-000Z"


@pytest.fixture(autouse=True)
def _in_results_fixtures(monkeypatch):
    monkeypatch.chdir(RESULTS)


def indexed(*paths: str) -> ResultsModel:
    runs, problems = open_runs(list(paths))
    assert not problems
    for run in runs:
        index(run)
    return ResultsModel(runs)


def index(run: Run) -> None:
    for progress in run.results.scan():
        run.progress = progress


def listed(model: ResultsModel) -> list[str]:
    selection = model.request()
    assert selection is not None
    assert model.accept(selection, select_rows(selection))
    results = model.run.results
    return [results.eval_ids[i] for i in model.rows]


def test_failures_first_then_every_sort_key_and_reverse():
    model = indexed("run-a.jsonl")
    assert listed(model)[:2] == ["timeout-case", "sum-markers"]
    model.cycle_sort()
    assert model.sort == "id" and listed(model) == sorted(listed(model))
    model.toggle_reverse()
    assert listed(model) == sorted(listed(model), reverse=True)


def test_file_order_with_nothing_hidden_needs_no_work():
    model = indexed("run-a.jsonl")
    model.sort = "file"
    assert model.identity_rows() == range(6)
    model.search_text = "x"
    assert model.identity_rows() is None


def test_the_filter_cycles_through_failing_graders_and_drifted_once_checked():
    model = indexed(RUN2)
    choices = model.filter_choices()
    assert choices[: len(FILTERS)] == FILTERS and "grader:format" in choices and "drifted" not in choices
    model.run.drift = bytearray([DRIFT_DRIFTED, 0, 0, 0])
    assert model.filter_choices()[-1] == "drifted"
    for _ in model.filter_choices():
        model.cycle_filter()
    assert model.filter == "all"


def test_threshold_stays_between_zero_and_one():
    model = indexed("run-a.jsonl")
    for _ in range(30):
        model.change_threshold(0.05)
    assert model.threshold == 1.0
    model.change_threshold(-2)
    assert model.threshold == 0.0


def test_a_stale_selection_is_dropped():
    model = indexed("run-a.jsonl")
    old = model.request()
    new = model.request()
    assert old is not None and new is not None
    assert not model.accept(old, select_rows(old))
    assert model.accept(new, select_rows(new))


def test_an_empty_list_says_what_hides_the_results_and_showing_everything_clears_it():
    model = indexed("run-a.jsonl")
    model.search_text = "no-such-id"
    assert listed(model) == []
    assert "search 'no-such-id'" in model.empty_note()
    assert model.position_of(0) is None
    model.show_everything()
    assert model.identity_rows() == range(6) and not model.empty_note()


def test_header_state_counts_what_is_shown():
    model = indexed("run-a.jsonl")
    model.filter = "failures"
    listed(model)
    state = model.header_state()
    assert state is not None and state.shown == 4 and state.filter == "failures" and state.stats.count == 6  # at 0.8


def test_two_runs_named_are_compared_and_a_folder_of_runs_is_browsed():
    runs, _ = open_runs(["run-a.jsonl", "run-b.jsonl"])
    assert is_comparison(["run-a.jsonl", "run-b.jsonl"], runs)
    folder = "v4/.agentv/results"
    runs, _ = open_runs([folder])
    assert len(runs) > 2 and not is_comparison([folder], runs)
    model = ResultsModel(runs)
    pair = model.comparison_with_previous()
    assert isinstance(pair, tuple) and pair[1] == runs[0].argument  # the newest run is B


def test_compare_model_filters_changed_pairs_and_searches():
    from turnlens.formatting.results.compare import compare_runs

    runs, _ = open_runs(["run-a.jsonl", "run-b.jsonl"])
    for run in runs:
        index(run)
    model = CompareModel(*runs)
    assert model.header_state().progress.startswith("indexing")
    model.comparison = compare_runs(runs[0].results, runs[1].results)
    every = len(model.refilter())
    model.toggle_changed()
    changed = model.refilter()
    assert 0 < len(changed) < every and all(row.status != "unchanged" for row in changed)
    model.search_text = changed[0].key
    assert [row.key for row in model.refilter()] == [changed[0].key]
    assert model.header_state().shown == 1


def test_a_detail_walks_the_list_and_finds_the_next_failing_result():
    from turnlens.tui.results.model import Walk, is_failing

    model = indexed("run-a.jsonl")
    model.sort = "file"
    rows = model.identity_rows()
    assert rows is not None
    results = model.run.results
    walk = Walk(rows, 0)
    assert walk.label == "1 of 6" and not walk.step(-1) and walk.step(1) and walk.position == 1
    assert walk.next_where(1, lambda index: is_failing(results, index, 0.5))
    assert results.eval_ids[walk.current] == "timeout-case"
    assert not walk.next_where(1, lambda index: is_failing(results, index, 0.5))  # none further: stays
    assert results.eval_ids[walk.current] == "timeout-case"


def _random_rows(count: int, seed: int) -> bytes:
    """JSONL results rows with ties, errors, rows without a score, a duration or a time, and repeated ids."""
    import json
    import random

    rng = random.Random(seed)
    out = []
    for _ in range(count):
        row: dict = {"test_id": f"t{rng.randint(0, count // 3)}", "target": rng.choice(["a", "b"])}
        roll = rng.random()
        if roll < 0.1:
            row["execution_status"] = "execution_error"
            row["error"] = "boom"
            if rng.random() < 0.5:
                row["score"] = rng.choice([0, 0.5])
        elif roll < 0.2:
            pass  # no score
        else:
            row["score"] = rng.choice([0, 0.25, 0.5, 0.75, 1])
        if rng.random() < 0.7:
            row["duration_ms"] = rng.choice([100, 200, 300])
        if rng.random() < 0.7:
            row["timestamp"] = f"2026-01-0{rng.randint(1, 3)}T00:00:00.000Z"
        out.append(json.dumps(row))
    return ("\n".join(out) + "\n").encode()


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("sort", ["score", "id", "time", "duration", "cost", "file"])
def test_appended_rows_are_put_in_their_place_as_a_whole_sort_puts_them(tmp_path, sort, reverse):
    """A run that grows: the rows listed are kept and each new record inserted where the stable sort would put it
    (ties after the rows listed, before them when reversed), for every sort, filter and search."""
    path = tmp_path / "run.jsonl"
    path.write_bytes(_random_rows(300, 1))
    runs, _ = open_runs([str(path)])
    run = runs[0]
    index(run)
    for filter, query in [("all", ""), ("failures", ""), ("errors", ""), ("all", "t1")]:
        model = ResultsModel(runs)
        model.sort, model.reverse, model.filter, model.search_text = sort, reverse, filter, query
        listed(model)
        for step in range(3):
            with path.open("ab") as handle:
                handle.write(_random_rows(20 + step, 10 + step))
            assert run.results.follow() == "grown"
            selection = model.request()
            assert selection is not None and selection.previous is not None
            fresh = ResultsModel(runs)
            fresh.sort, fresh.reverse, fresh.filter, fresh.search_text = sort, reverse, filter, query
            whole = fresh.request()
            assert whole is not None and whole.previous is None
            assert list(select_rows(selection)) == list(select_rows(whole)), (filter, query, step)
            assert model.accept(selection, select_rows(selection))
        path.write_bytes(_random_rows(300, 1))
        run.reopen()
        index(run)
