"""Comparing two runs as agentv compare does: wins, losses and ties at |Δ| ≥ 0.1, losses first, only-in-A/B."""

from __future__ import annotations

import os

import orjson

from turnlens.formatting.results.compare import compare_runs, filter_rows, targets_of
from turnlens.formatting.results.index import ResultsFile

FIXTURES = os.path.join(os.path.dirname(os.path.dirname(__file__)), "fixtures", "results")


def scanned(path: str) -> ResultsFile:
    results = ResultsFile(path)
    for _ in results.scan():
        pass
    return results


def write(tmp_path, name, rows):
    path = tmp_path / name
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in rows))
    return scanned(str(path))


def test_fixture_runs():
    comparison = compare_runs(
        scanned(os.path.join(FIXTURES, "run-a.jsonl")), scanned(os.path.join(FIXTURES, "run-b.jsonl"))
    )
    statuses = [(row.eval_id, row.status) for row in comparison.rows]
    assert statuses == [
        ("greet-flat", "loss"),
        ("bare-minimum", "only in A"),
        ("new-case", "only in B"),
        ("timeout-case", "win"),
        ("sum-markers", "win"),
        ("chat-history", "tie"),
        ("markup-injection", "tie"),
    ]
    assert comparison.rows[0].delta == -0.5 and comparison.by.startswith("eval id")
    assert comparison.counts["loss"] == 1 and comparison.counts["only in B"] == 1


def test_losses_biggest_drop_first_and_small_changes_tie(tmp_path):
    a = write(tmp_path, "a.jsonl", [{"eval_id": x, "score": 1.0} for x in "pqr"])
    b = write(
        tmp_path,
        "b.jsonl",
        [{"eval_id": "p", "score": 0.95}, {"eval_id": "q", "score": 0.1}, {"eval_id": "r", "score": 0.5}],
    )
    comparison = compare_runs(a, b)
    assert [(row.eval_id, row.status) for row in comparison.rows] == [("q", "loss"), ("r", "loss"), ("p", "tie")]
    assert comparison.mean_a == 1.0 and abs(comparison.mean_b - 0.5166666) < 1e-6
    assert comparison.mean_gain is None  # every baseline was perfect
    assert [row.status for row in compare_runs(a, b, delta=0.6).rows] == ["loss", "tie", "tie"]


def test_duplicates_last_row_counts_and_unscored_rows_are_left_out(tmp_path):
    a = write(
        tmp_path,
        "a.jsonl",
        [
            {"eval_id": "x", "score": 0.2},
            {"eval_id": "x", "score": 0.9},
            {"eval_id": "y", "score": 1},
            {"eval_id": "z"},
        ],
    )
    b = write(tmp_path, "b.jsonl", [{"eval_id": "x", "score": 0.9}, {"eval_id": "y", "score": 0, "error": "boom"}])
    comparison = compare_runs(a, b)
    assert [(r.eval_id, r.status, r.error_b) for r in comparison.rows] == [("y", "loss", True), ("x", "tie", False)]
    assert comparison.duplicates_a == 1 and comparison.unscored_a == 1
    assert [r.eval_id for r in filter_rows(comparison.rows, changed_only=True)] == ["y"]
    assert [r.eval_id for r in filter_rows(comparison.rows, query="X")] == ["x"]


REAL = os.path.join(FIXTURES, "real")
REAL_RUNS = os.path.join(REAL, "project", ".agentv", "results", "runs", "default")


def test_real_runs_give_agentv_compares_numbers():
    import json

    first, second, matrix = (
        scanned(os.path.join(REAL_RUNS, f"2026-06-2{n}T09-00-00-000Z", "index.jsonl")) for n in range(3)
    )
    for a, b, name, targets in (
        (first, second, "pairwise", (None, None)),
        (matrix, matrix, "matrix-targets", ("baseline-dry-run", "candidate-dry-run")),
    ):
        recorded = json.loads(open(os.path.join(REAL, "compare", f"{name}.json")).read())
        comparison = compare_runs(a, b, None, *targets)
        summary = recorded["summary"]
        assert (comparison.counts["win"], comparison.counts["loss"], comparison.counts["tie"]) == (
            summary["wins"],
            summary["losses"],
            summary["ties"],
        )
        assert comparison.mean_delta == summary["mean_delta"]
        assert comparison.mean_gain == summary["mean_normalized_gain"]
        assert (comparison.unmatched_a, comparison.unmatched_b) == tuple(recorded["unmatched"].values())
    assert targets_of(matrix) == ["baseline-dry-run", "candidate-dry-run"]


RUNS4 = os.path.join(FIXTURES, "v4", ".agentv", "results", "runs", "default")


def test_agentv4_runs_pair_by_test_id():
    first, second = (scanned(os.path.join(RUNS4, stamp, "index.jsonl")) for stamp in sorted(os.listdir(RUNS4))[:2])
    comparison = compare_runs(first, second)
    assert comparison.paired == 4 and comparison.by == "test id" and not comparison.nothing_pairs
    assert {row.key: row.status for row in comparison.rows}["added-later"] == "only in B"


def test_runs_of_either_era_and_unrelated_suites(tmp_path):
    old = scanned(os.path.join(FIXTURES, "run-a.jsonl"))
    new = scanned(os.path.join(RUNS4, sorted(os.listdir(RUNS4))[1], "index.jsonl"))
    comparison = compare_runs(old, new)
    assert comparison.paired == 0 and comparison.nothing_pairs
    mixed = write(tmp_path, "m.jsonl", [{"test_id": "greet-flat", "score": 0.1, "target": "gpt-4o"}])
    assert compare_runs(old, mixed).paired == 1


def test_two_run_names_are_shortened_where_they_are_the_same():
    from turnlens.formatting.wording import shorten_apart

    a, b = "with-skills-experiment/2026-06-24T09-00-00-000Z", "with-skills-experiment/2026-06-25T09-00-00-000Z"
    assert shorten_apart(a, b, 200) == (a, b)  # room for both: whole
    short_a, short_b = shorten_apart(a, b, 69)  # the header's room at 80 columns
    assert len(short_a) + len(short_b) <= 69
    assert "24T09" in short_a and "25T09" in short_b  # what tells them apart stays, with its neighbours
    assert short_a.startswith("with-") and "…" in short_a  # the shared experiment name loses its middle

    a, b = "gpt-4.1-with-tools/2026-06-24T09-00-00-000Z", "gpt-4.1-without-tools/2026-06-24T10-15-00-000Z"
    short_a, short_b = shorten_apart(a, b, 69)
    assert len(short_a) + len(short_b) <= 69
    assert "with-t" in short_a and "without-t" in short_b and "T09-00" in short_a and "T10-15" in short_b

    # a short name leaves its share to the other; names that share nothing are cut in their middle
    assert shorten_apart("a.jsonl", "x" * 80, 40) == ("a.jsonl", "x" * 10 + "…" + "x" * 22)
    assert [len(name) for name in shorten_apart("x" * 50, "y" * 50, 10)] == [5, 5]


async def test_the_compare_header_fits_two_long_run_names_at_80_columns(tmp_path, monkeypatch):
    """Issue 24 (second walk): two runs of experiments with long names cut the second name at 80 columns."""
    import shutil

    from tui_helpers import wait_for_idle

    from turnlens.tui.app import make_app

    runs = os.path.join(FIXTURES, "real", "project", ".agentv", "results", "runs", "default")
    a = tmp_path / "runs" / "gpt-4.1-with-tools" / "2026-06-24T09-00-00-000Z"
    b = tmp_path / "runs" / "gpt-4.1-without-tools" / "2026-06-24T10-15-00-000Z"
    shutil.copytree(os.path.join(runs, "2026-06-24T09-00-00-000Z"), a)
    shutil.copytree(os.path.join(runs, "2026-06-25T09-00-00-000Z"), b)
    monkeypatch.chdir(tmp_path)
    app = make_app([str(a.relative_to(tmp_path)), str(b.relative_to(tmp_path))], watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_idle(pilot)
        first_row = app.screen.query_one("CompareHeader").render().plain.split("\n")[0]
        assert len(first_row) <= 78  # the header's width less its padding
        name_a, name_b = first_row.split("  →  ")
        assert name_a.startswith("A gpt-4.1-with-t") and "T09-00" in name_a
        assert name_b.startswith("B gpt-4.1-without-t") and "T10-15" in name_b


def test_the_id_column_says_what_the_rows_are_paired_by(tmp_path):
    """AgentV 4 rows pair by test id, and `agentv compare` titles that column "Test ID" (its table, recorded from
    the real CLI, tests/fixtures/results/real/compare/tables/); 0.15-era rows pair by eval id; runs mixing the two
    list both kinds of id (as the results list titles such a run's id column)."""
    with open(os.path.join(REAL, "compare", "tables", "example.txt"), encoding="utf-8") as recorded:
        table = recorded.read()
    assert "  Test ID " in table
    v4 = scanned(os.path.join(REAL, "compare", "example", "baseline", "index.jsonl"))
    assert compare_runs(v4, v4).id_title == "test id"
    old = scanned(os.path.join(FIXTURES, "run-a.jsonl"))
    assert compare_runs(old, scanned(os.path.join(FIXTURES, "run-b.jsonl"))).id_title == "eval id"
    assert compare_runs(old, v4).id_title == "id"


async def test_the_compare_view_titles_its_id_column_by_what_it_pairs(monkeypatch):
    from textual.widgets import Static
    from tui_helpers import wait_for_idle

    from turnlens.tui.app import make_app

    monkeypatch.chdir(FIXTURES)
    for paths, title in (
        (["run-a.jsonl", "run-b.jsonl"], "eval id"),
        ([os.path.join(RUNS4, stamp, "index.jsonl") for stamp in sorted(os.listdir(RUNS4))[:2]], "test id"),
    ):
        app = make_app(paths, watch=False)
        async with app.run_test(size=(120, 30)) as pilot:
            await wait_for_idle(pilot)
            columns = str(app.screen.query_one("#results-columns", Static).content)
            assert columns.endswith(f"Δ      {title}"), columns
