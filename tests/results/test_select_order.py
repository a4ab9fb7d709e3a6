"""The list's order (queries.select) against its rules written plainly, on many random runs: errors first (those
without a score, then by score), then rows without a score, then by ascending score; the slowest and dearest first;
the oldest first; rows that recorded none last; ties in file order; reverse is the same order backwards."""

from __future__ import annotations

import math
import random

import pytest

from turnlens.formatting.results.columns import FLAG_ERROR, FLAG_NO_SCORE, RecordColumns
from turnlens.formatting.results.queries import FILTERS, select

SORTS = ("score", "id", "time", "duration", "cost", "file")


def random_run(rng: random.Random, rows: int) -> RecordColumns:
    columns = RecordColumns()
    for line in range(1, rows + 1):
        row: dict[str, object] = {"eval_id": rng.choice(["a", "b", f"case-{line}"])}
        roll = rng.random()
        if roll < 0.3:
            row["score"] = rng.choice([0.0, 0.5, 0.8, 1.0])  # ties
        elif roll < 0.8:
            row["score"] = rng.random()
        elif roll < 0.9:
            row["score"] = "not a number"
        if rng.random() < 0.2:
            row["error"] = "boom"
        if rng.random() < 0.5:  # an AgentV 4 row
            row["test_id"] = row.pop("eval_id")
            row["execution_status"] = rng.choice(["ok", "quality_failure", "execution_error", None])
            if rng.random() < 0.6:
                row["duration_ms"] = rng.choice([10, 20, rng.random() * 100])
            if rng.random() < 0.6:
                row["cost_usd"] = rng.choice([0.1, rng.random()])
        if rng.random() < 0.7:
            row["timestamp"] = rng.choice(["2025-01-01T00:00:00Z", f"2025-01-01T00:00:{line % 60:02d}Z", "bad"])
        columns.add(row, line, line + 1, line)
    return columns


def plain_order(columns: RecordColumns, indexes: list[int], sort: str) -> list[int]:
    flags, scores = columns.flags, columns.scores

    def recorded_first(values, descending: bool) -> list[int]:
        known = [i for i in indexes if not math.isnan(values[i])]
        known.sort(key=lambda i: -values[i] if descending else values[i])
        return known + [i for i in indexes if math.isnan(values[i])]

    if sort == "score":
        errors = [i for i in indexes if flags[i] & FLAG_ERROR]
        errors.sort(key=lambda i: (0, 0.0) if flags[i] & FLAG_NO_SCORE else (1, scores[i]))
        unscored = [i for i in indexes if not flags[i] & FLAG_ERROR and flags[i] & FLAG_NO_SCORE]
        scored = sorted((i for i in indexes if not flags[i] & (FLAG_ERROR | FLAG_NO_SCORE)), key=lambda i: scores[i])
        return errors + unscored + scored
    if sort == "id":
        return sorted(indexes, key=lambda i: columns.eval_ids[i])
    if sort == "time":
        return recorded_first(columns.timestamps, descending=False)
    if sort in ("duration", "cost"):
        return recorded_first(columns.durations if sort == "duration" else columns.costs, descending=True)
    return list(indexes)


@pytest.mark.parametrize("seed", range(40))
def test_every_sort_lists_rows_as_its_rules_say(seed):
    rng = random.Random(seed)
    columns = random_run(rng, rng.choice([0, 1, 5, 60, 300]))
    for sort in SORTS:
        for start in (0, columns.count // 3):
            everything = list(range(start, columns.count))
            expected = plain_order(columns, everything, sort)
            assert list(select(columns, sort=sort, start=start)) == expected, (sort, start)
            assert list(select(columns, sort=sort, start=start, reverse=True)) == expected[::-1]
            errors = [i for i in everything if columns.flags[i] & FLAG_ERROR]
            assert list(select(columns, sort=sort, filter="errors", start=start)) == plain_order(columns, errors, sort)
            for filter in FILTERS:  # (a filter picks rows; the order of those it keeps is the sort's)
                kept = set(select(columns, filter=filter, start=start, sort="file"))
                assert list(select(columns, sort=sort, filter=filter, start=start)) == [
                    i for i in expected if i in kept
                ]


def test_a_run_of_only_errors_or_only_scored_rows():
    only_errors = RecordColumns()
    only_scored = RecordColumns()
    for line, score in enumerate([0.5, 0.1, 0.5, 0.9], start=1):
        only_errors.add({"eval_id": str(line), "score": score, "error": "x"}, line, line + 1, line)
        only_scored.add({"eval_id": str(line), "score": score}, line, line + 1, line)
    assert list(select(only_errors, sort="score")) == [1, 0, 2, 3]
    assert list(select(only_scored, sort="score")) == [1, 0, 2, 3]
    assert list(select(only_scored, sort="score", filter="errors")) == []


@pytest.mark.parametrize("seed", range(12))
def test_rows_appended_in_bulk_are_merged_into_the_order_as_a_new_selection_would_list_them(seed, monkeypatch):
    """insert_selected with more new rows than it inserts one by one: they are sorted and merged into the rows
    listed before, which must give select()'s order for every sort, filter and direction."""
    from turnlens.formatting.results import queries

    monkeypatch.setattr(queries, "MAX_INSERTED", 0)  # (every appended batch merged)
    rng = random.Random(seed)
    columns = random_run(rng, rng.choice([1, 40, 300]))
    for sort in SORTS:
        for reverse in (False, True):
            for filter in ("all", "failures", "errors"):
                choices = {"sort": sort, "reverse": reverse, "filter": filter}
                for listed_upto in sorted({0, columns.count // 2, columns.count - 1}):
                    listed = select(columns, upto=listed_upto, **choices)
                    merged = queries.insert_selected(columns, listed, listed_upto, **choices)
                    assert list(merged) == list(select(columns, **choices)), (choices, listed_upto)
