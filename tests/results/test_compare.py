"""Comparing two runs: pairing by eval id, deltas, regressions first, only-in-A/B."""

from __future__ import annotations

import os

import orjson

from turnlens.formatting.results.compare import compare_runs, filter_rows
from turnlens.formatting.results.reader import ResultsFile

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


RUNS4 = os.path.join(FIXTURES, "v4", ".agentv", "results", "runs", "default")


def test_agentv4_runs_pair_by_test_id():
    first, second = (scanned(os.path.join(RUNS4, stamp, "index.jsonl")) for stamp in sorted(os.listdir(RUNS4))[:2])
    comparison = compare_runs(first, second)
    status = {row.key: row.status for row in comparison.rows}
    assert status == {
        "multi-turn": "new error",
        "hello-flat": "regressed",
        "no-assertions": "regressed",
        "added-later": "only in B",
        "system-and-user": "unchanged",
    }
    assert comparison.paired == 4 and comparison.by == "test id" and not comparison.nothing_pairs


def test_agentv4_pairs_by_test_id_and_target(tmp_path):
    rows = [
        {"test_id": "t1", "target": "gpt", "score": 1.0, "execution_status": "ok"},
        {"test_id": "t1", "target": "claude", "score": 0.5, "execution_status": "ok"},
    ]
    a = write(tmp_path, "a.jsonl", rows)
    b = write(tmp_path, "b.jsonl", [dict(rows[0], score=0.2), dict(rows[1], score=0.9)])
    comparison = compare_runs(a, b)
    assert {row.key: row.status for row in comparison.rows} == {"t1 @ gpt": "regressed", "t1 @ claude": "improved"}
    assert comparison.by == "test id + target"


def test_two_single_target_runs_compare_the_targets(tmp_path):
    a = write(tmp_path, "a.jsonl", [{"test_id": "t1", "target": "gpt", "score": 1.0}])
    b = write(tmp_path, "b.jsonl", [{"test_id": "t1", "target": "claude", "score": 0.5}])
    comparison = compare_runs(a, b)
    assert [(row.key, row.status) for row in comparison.rows] == [("t1", "regressed")]


def test_runs_of_either_era_and_unrelated_suites(tmp_path):
    old = scanned(os.path.join(FIXTURES, "run-a.jsonl"))
    new = scanned(os.path.join(RUNS4, sorted(os.listdir(RUNS4))[1], "index.jsonl"))
    comparison = compare_runs(old, new)
    assert comparison.paired == 0 and comparison.nothing_pairs
    mixed = write(tmp_path, "m.jsonl", [{"test_id": "greet-flat", "score": 0.1, "target": "gpt-4o"}])
    assert compare_runs(old, mixed).paired == 1
