"""The results reader: sniffing, the offset index, broken lines, YAML documents, missing fields."""

from __future__ import annotations

import math
import os

import orjson

from turnlens.formatting.inputs import path_kind
from turnlens.formatting.results.discover import expand_results_paths
from turnlens.formatting.results.index import ResultsFile, read_all
from turnlens.formatting.results.queries import compute_stats, select
from turnlens.formatting.results.record import record_from_mapping, visible_text

FIXTURES = os.path.join(os.path.dirname(os.path.dirname(__file__)), "fixtures", "results")


def fixture(name: str) -> str:
    return os.path.join(FIXTURES, name)


def scanned(path: str) -> ResultsFile:
    results = ResultsFile(path)
    progress = list(results.scan())
    assert progress[-1].done
    return results


class TestSniff:
    def test_jsonl_results(self):
        assert path_kind(fixture("run-a.jsonl")).is_results

    def test_yaml_results(self):
        assert path_kind(fixture("run.yaml")).is_results

    def test_eval_file_is_not_results(self, tmp_path):
        path = tmp_path / "evals.yaml"
        path.write_text("$schema: agentv-eval-v2\nevalcases:\n  - id: a\n    eval_id: x\n")
        assert not path_kind(str(path)).is_results

    def test_other_json(self, tmp_path):
        path = tmp_path / "x.jsonl"
        path.write_text('{"name": 1}\n')
        assert not path_kind(str(path)).is_results
        assert not path_kind(str(tmp_path / "missing.jsonl")).is_results

    def test_folder(self):
        folder = fixture("project/.agentv/results")
        assert path_kind(folder).is_results
        files, problems = expand_results_paths([folder])
        assert [os.path.basename(f.path) for f in files] == ["mini-run.jsonl"] and not problems


class TestIndex:
    def test_jsonl_summaries(self):
        results = scanned(fixture("run-a.jsonl"))
        assert results.count == 6 and not results.diagnostics
        assert results.eval_ids[:3] == ["greet-flat", "sum-markers", "chat-history"]
        assert results.summary(3).error and results.summary(3).target == "claude"
        assert results.summary(5).target == "" and results.score_of(5) == 0.9
        assert list(results.lines) == [1, 2, 3, 4, 5, 6]
        assert not math.isnan(results.timestamps[0]) and math.isnan(results.timestamps[5])

    def test_offsets_are_exact(self):
        results = scanned(fixture("run-a.jsonl"))
        for i in range(results.count):
            assert orjson.loads(results.raw(i))["eval_id"] == results.eval_ids[i]

    def test_broken_lines_reported_rest_usable(self):
        results = scanned(fixture("broken.jsonl"))
        assert results.count == 2
        assert [results.lines[i] for i in range(2)] == [1, 5]
        lines = [(d.line, d.message.split(":")[0]) for d in results.diagnostics]
        assert lines == [
            (2, "not valid JSON"),
            (4, "not a JSON object but list"),
            (6, "truncated record (no final newline)"),
        ]
        assert all(d.file.endswith("broken.jsonl") for d in results.diagnostics)
        assert results.record(1).eval_id == "sum-markers"

    def test_yaml_documents(self):
        results = scanned(fixture("run.yaml"))
        assert results.eval_ids == ["greet-flat", "sum-markers", "chat-history"]
        assert len(results.diagnostics) == 1
        broken = results.diagnostics[0]
        text = open(fixture("run.yaml")).read().splitlines()
        assert text[broken.line - 1].startswith(("eval_id: [unclosed", "score: 1")), broken
        record = results.record(2)
        assert record.lm_request.chat_prompt[0].role == "system"
        assert text[results.lines[1] - 1].startswith("timestamp:")

    def test_empty_and_missing_file(self, tmp_path):
        empty = tmp_path / "empty.jsonl"
        empty.write_bytes(b"")
        assert scanned(str(empty)).count == 0
        missing = ResultsFile(str(tmp_path / "nope.jsonl"))
        assert list(missing.scan())[-1].done and missing.error and "cannot read" in missing.error.message

    def test_byte_order_mark(self, tmp_path):
        path = tmp_path / "bom.jsonl"
        path.write_bytes(b'\xef\xbb\xbf{"eval_id": "a", "score": 1}\n{"eval_id": "b", "score": 0}\n')
        assert path_kind(str(path)).is_results
        results = scanned(str(path))
        assert results.eval_ids == ["a", "b"] and not results.diagnostics and results.record(0).eval_id == "a"

    def test_crlf_and_blank_lines(self, tmp_path):
        path = tmp_path / "crlf.jsonl"
        path.write_bytes(b'{"eval_id": "a", "score": 1}\r\n\r\n   \r\n{"eval_id": "b", "score": 0}\r\n')
        results = scanned(str(path))
        assert results.eval_ids == ["a", "b"] and list(results.lines) == [1, 4] and not results.diagnostics

    def test_huge_single_line_is_indexed_not_summarised_in_full(self, tmp_path):
        path = tmp_path / "huge.jsonl"
        big = "x" * (10 * 1024 * 1024)
        path.write_bytes(orjson.dumps({"eval_id": "big" + big, "score": 0.5, "candidate_answer": big}) + b"\n")
        results = scanned(str(path))
        assert results.count == 1 and len(results.eval_ids[0]) <= 200
        assert len(results.record(0).candidate_answer) == len(big)

    def test_progress_is_reported(self, tmp_path):
        path = tmp_path / "many.jsonl"
        path.write_bytes(b"".join(orjson.dumps({"eval_id": f"c{i}", "score": i % 2}) + b"\n" for i in range(2000)))
        progress = list(ResultsFile(str(path)).scan(batch_seconds=0))
        assert progress[0].count >= 1 and progress[-1].done and progress[-1].count == 2000
        assert progress[-1].fraction == 1.0


class TestRecord:
    def test_missing_fields(self):
        record = record_from_mapping({"eval_id": "x"}, "f.jsonl", 3)
        assert record.score is None and record.hits == [] and record.lm_request is None and record.error is None

    def test_wrong_types_are_coerced_and_reported(self):
        record = record_from_mapping(
            {"eval_id": 12, "score": "high", "hits": "one", "error": {"message": "boom"}}, "f", 1
        )
        assert record.eval_id == "12" and record.score is None and record.hits == ["one"] and record.error == "boom"
        assert record.diagnostics and "score is not a number" in record.diagnostics[0].message

    def test_not_a_mapping(self):
        record = record_from_mapping([1], "f", 1)
        assert record.diagnostics[0].severity == "error"

    def test_full_record(self):
        _, records = read_all(fixture("run-a.jsonl"))
        record = records[1]
        assert record.lm_request.question.startswith("@[System]:")
        assert [e.name for e in record.evaluator_results] == ["judge", "has-code"]
        assert record.evaluator_request.system_prompt.startswith("You are an expert")


class TestSelect:
    def test_stats(self):
        results = scanned(fixture("run-a.jsonl"))
        stats = compute_stats(results, 0.5)
        # an execution error is not judged: 4 pass and 1 fails of the 5 judged
        assert (stats.count, stats.errors, stats.passed, stats.failed) == (6, 1, 4, 1)
        assert sum(stats.histogram) == 6 and stats.histogram[9] == 2
        assert compute_stats(results, 0.95).passed == 1

    def test_sort_and_filter(self):
        results = scanned(fixture("run-a.jsonl"))
        ids = lambda order: [results.eval_ids[i] for i in order]  # noqa: E731
        assert ids(select(results, sort="score"))[:2] == ["timeout-case", "sum-markers"]
        assert ids(select(results, sort="id"))[0] == "bare-minimum"
        assert ids(select(results, filter="errors")) == ["timeout-case"]
        assert ids(select(results, filter="failures", threshold=0.6)) == [
            "sum-markers",
            "timeout-case",
            "markup-injection",
        ]
        assert ids(select(results, query="CHAT")) == ["chat-history"]
        assert ids(select(results, query="claude")) == ["timeout-case"]
        assert ids(select(results, sort="time"))[-1] == "bare-minimum"


def test_visible_text():
    assert visible_text("a\x1b[31mb\x07\tc\n\x9b") == "a␛[31mb␇\tc\n\\x9b"
    assert visible_text("plain [bold]") == "plain [bold]"


class TestFullText:
    def test_finds_records_by_any_text(self):
        results = scanned(fixture("run-a.jsonl"))
        mask = results.find_text("ARITHMETIC")  # in sum-markers' reasoning, case-insensitive
        assert [results.eval_ids[i] for i, hit in enumerate(mask) if hit] == ["sum-markers"]
        mask = results.find_text("order")
        assert [results.eval_ids[i] for i, hit in enumerate(mask) if hit] == ["chat-history"]

    def test_needle_is_matched_as_written_in_json(self):
        results = scanned(fixture("run-a.jsonl"))
        mask = results.find_text("2+2 is **5**.\n\n```python")  # newline escaped as \\n in the file
        assert [results.eval_ids[i] for i, hit in enumerate(mask) if hit] == ["sum-markers"]

    def test_small_windows_and_yaml(self):
        results = scanned(fixture("run-a.jsonl"))
        whole = results.find_text("gpt-4o")
        assert results.find_text("gpt-4o", window=7) == whole and sum(whole) == 4
        yaml_results = scanned(fixture("run.yaml"))
        assert list(yaml_results.find_text("support agent")) == [0, 0, 1]


def test_stats_counter_goes_on_where_it_stopped(tmp_path):
    from turnlens.formatting.results.queries import StatsCounter

    path = tmp_path / "grow.jsonl"
    rows = [{"eval_id": f"c{i}", "score": i / 10, **({"error": "x"} if i == 3 else {})} for i in range(10)]
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in rows))
    results = ResultsFile(str(path))
    counter = StatsCounter()
    for _ in results.scan(batch_seconds=0):
        counter.update(results, 0.5)
    assert counter.stats == compute_stats(results, 0.5)
    assert counter.update(results, 0.7) == compute_stats(results, 0.7)


def test_problems_are_capped_but_counted(tmp_path):
    from turnlens.formatting.results.index import MAX_DIAGNOSTICS

    path = tmp_path / "binary.jsonl"
    path.write_bytes(b"\x00garbage\n" * (MAX_DIAGNOSTICS + 50) + b'{"eval_id": "ok", "score": 1}\n')
    results = scanned(str(path))
    assert results.count == 1 and results.problem_count == MAX_DIAGNOSTICS + 50
    assert len(results.diagnostics) == MAX_DIAGNOSTICS


def test_lines_across_the_small_first_window(tmp_path):
    # the first read is small (the first record shows before 16 MB are read), the next ones full size: a line that
    # straddles them, or is longer than the first window, comes whole
    from turnlens.formatting.results.source import FIRST_WINDOW, Source

    path = tmp_path / "lines.jsonl"
    lines = [b"a" * (FIRST_WINDOW - 10), b"b" * (3 * FIRST_WINDOW), b"c", b"", b"d" * 5]
    path.write_bytes(b"\n".join(lines))
    source = Source(str(path))
    try:
        assert [bytes(text) for _, _, text in source.lines()] == lines
        assert [bytes(text) for _, _, text in source.lines(window=FIRST_WINDOW // 4)] == lines
    finally:
        source.close()


def test_windows_cut_after_line_feeds_and_lines_come_whole(tmp_path):
    # the buffer is reused from window to window and grows for a line longer than a window: every line comes whole
    # and at its offset, whatever the window, with or without a final line feed
    import random

    from turnlens.formatting.results.source import Source

    rng = random.Random(5)
    for trial in range(40):
        lines = [b"x" * rng.choice((0, 1, 3, 9, 40, 200)) for _ in range(rng.randint(1, 30))]
        data = b"\n".join(lines) + (b"\n" if trial % 2 else b"")
        path = tmp_path / f"w{trial}.jsonl"
        path.write_bytes(data)
        source = Source(str(path))
        try:
            for window in (1, 2, 7, 64, 1 << 20):
                got = [(start, end, bytes(text)) for start, end, text in source.lines(window=window)]
                expected, offset = [], 0
                for line in data.split(b"\n")[: -1 if data.endswith(b"\n") else None]:
                    expected.append((offset, offset + len(line), line))
                    offset += len(line) + 1
                assert got == expected, (trial, window)
                for base, buffer, length in source.windows(window=window):
                    assert buffer[:length] == data[base : base + length]
                    assert base + length == len(data) or buffer[length - 1 : length] == b"\n"
        finally:
            source.close()
