"""Comparing two runs: pairing by eval id, deltas, regressions first, only-in-A/B."""

from __future__ import annotations

import os

import orjson

from turnlens.formatting.results.compare import compare_runs, filter_rows
from turnlens.formatting.results.reader import ResultsFile

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures", "results")


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
        ("greet-flat", "regressed"),
        ("bare-minimum", "only in A"),
        ("new-case", "only in B"),
        ("timeout-case", "fixed"),
        ("sum-markers", "improved"),
        ("chat-history", "unchanged"),
        ("markup-injection", "unchanged"),
    ]
    assert comparison.rows[0].delta == -0.5
    assert comparison.counts["regressed"] == 1 and comparison.counts["only in B"] == 1


def test_regressions_biggest_drop_first(tmp_path):
    a = write(tmp_path, "a.jsonl", [{"eval_id": x, "score": 1.0} for x in "pqr"])
    b = write(
        tmp_path,
        "b.jsonl",
        [{"eval_id": "p", "score": 0.9}, {"eval_id": "q", "score": 0.1}, {"eval_id": "r", "score": 0.5}],
    )
    comparison = compare_runs(a, b)
    assert [row.eval_id for row in comparison.rows] == ["q", "r", "p"]
    assert comparison.mean_a == 1.0 and abs(comparison.mean_b - 0.5) < 1e-9


def test_new_error_first_and_duplicates_last_wins(tmp_path):
    a = write(
        tmp_path,
        "a.jsonl",
        [{"eval_id": "x", "score": 0.2}, {"eval_id": "x", "score": 0.9}, {"eval_id": "y", "score": 1}],
    )
    b = write(tmp_path, "b.jsonl", [{"eval_id": "x", "score": 0.9}, {"eval_id": "y", "score": 0, "error": "boom"}])
    comparison = compare_runs(a, b)
    assert [(r.eval_id, r.status) for r in comparison.rows] == [("y", "new error"), ("x", "unchanged")]
    assert comparison.duplicates_a == 1


def test_same_id_in_two_datasets_pairs_by_dataset(tmp_path):
    a = write(
        tmp_path,
        "a.jsonl",
        [{"eval_id": "x", "dataset": "d1", "score": 1}, {"eval_id": "x", "dataset": "d2", "score": 1}],
    )
    b = write(
        tmp_path,
        "b.jsonl",
        [{"eval_id": "x", "dataset": "d1", "score": 1}, {"eval_id": "x", "dataset": "d2", "score": 0}],
    )
    comparison = compare_runs(a, b)
    assert [(r.key, r.status) for r in comparison.rows] == [("d2/x", "regressed"), ("d1/x", "unchanged")]


def test_missing_scores_and_filter(tmp_path):
    a = write(tmp_path, "a.jsonl", [{"eval_id": "x"}, {"eval_id": "y", "score": 1}])
    b = write(tmp_path, "b.jsonl", [{"eval_id": "x"}, {"eval_id": "y"}])
    comparison = compare_runs(a, b)
    assert {r.eval_id: r.status for r in comparison.rows} == {"x": "unchanged", "y": "regressed"}
    assert [r.eval_id for r in filter_rows(comparison.rows, changed_only=True)] == ["y"]
    assert [r.eval_id for r in filter_rows(comparison.rows, query="X")] == ["x"]
