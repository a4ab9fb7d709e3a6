"""AgentV 4 results: recognised by content, run folders and folders of runs, 4.x rows, per-test artifacts.

The run folders under tests/fixtures/results/v4/ are made by tests/fixtures/make_sample_runs.py (inputs from the
4.42.4 reference on the suite beside them; no Node.js needed here).
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import orjson
import pytest

from turnlens.formatting.inputs import PathKind, path_kind
from turnlens.formatting.results.agentv4 import STATUS_EXECUTION_ERROR, STATUS_OK, STATUS_QUALITY_FAILURE
from turnlens.formatting.results.artifacts import load_artifacts
from turnlens.formatting.results.discover import expand_results_paths, find_runs, time_in_name
from turnlens.formatting.results.index import ResultsFile, read_all
from turnlens.formatting.results.queries import select
from turnlens.formatting.results.record import record_from_mapping
from turnlens.formatting.results.sniff import is_results_file, is_run_folder

V4 = Path(__file__).parents[1] / "fixtures" / "results" / "v4"
RESULTS = V4 / ".agentv" / "results"
RUNS = RESULTS / "runs" / "default"
RUN1, RUN2, RUN3 = (RUNS / stamp for stamp in sorted(os.listdir(RUNS)))
OLD = Path(__file__).parents[1] / "fixtures" / "results"


def scanned(path) -> ResultsFile:
    results = ResultsFile(str(path))
    for _ in results.scan():
        pass
    return results


class TestRecognisedByContent:
    def test_each_shape(self):
        assert is_results_file(str(RUN2 / "index.jsonl"))  # slim index rows
        assert is_results_file(str(RUN3 / "index.jsonl"))  # streamed full rows
        assert is_results_file(str(RESULTS / "greeting.baseline.jsonl"))  # trimmed baseline
        assert is_results_file(str(OLD / "run-a.jsonl"))  # 0.15-era
        assert is_results_file(str(OLD / "run.yaml"))
        assert not is_results_file(str(RUN2 / "benchmark.json"))
        assert not is_results_file(str(RUN2 / "greeting" / "hello-flat" / "grading.json"))

    def test_a_row_without_eval_id_is_never_refused(self, tmp_path):
        path = tmp_path / "x.jsonl"
        path.write_text('{"score": 0.5, "target": "t"}\n')
        assert is_results_file(str(path))
        results, records = read_all(str(path))
        assert records[0].label == "(no id, line 1)"

    def test_eval_datasets_are_not_results(self, tmp_path):
        dataset = tmp_path / "cases.jsonl"
        dataset.write_text('{"id": "a", "input": "Q", "criteria": "c"}\n')
        assert not is_results_file(str(dataset))
        yaml_suite = tmp_path / "s.eval.yaml"
        yaml_suite.write_text("tests:\n  - id: a\n    input: Q\n")
        assert not path_kind(str(yaml_suite)).is_results

    def test_yaml_4x_rows(self, tmp_path):
        path = tmp_path / "r.yaml"
        path.write_text("test_id: a\nscore: 1\n---\ntest_id: b\nscore: 0\n")
        assert is_results_file(str(path))

    def test_first_row_longer_than_the_sniff(self, tmp_path):
        path = tmp_path / "big.jsonl"
        path.write_bytes(orjson.dumps({"test_id": "a", "output": "x" * 200_000, "score": 1}) + b"\n")
        assert is_results_file(str(path))

    def test_folders(self):
        assert is_run_folder(str(RUN1))
        assert path_kind(str(RUN1)).is_results
        assert path_kind(str(RESULTS)).is_results
        assert path_kind(str(RESULTS / "runs")).is_results
        assert not path_kind(str(V4 / "evals")).is_results

    def test_kinds(self):
        for path in (RUN1 / "index.jsonl", RESULTS / "greeting.baseline.jsonl", OLD / "run-a.jsonl"):
            assert path_kind(str(path)) is PathKind.RESULTS_FILE, path
        assert path_kind(str(RUN1)) is PathKind.RUN_FOLDER
        assert path_kind(str(RESULTS)) is PathKind.RESULTS_FOLDER
        suite = V4 / "evals" / "greeting" / "greeting.eval.yaml"
        assert path_kind(str(suite)) is PathKind.EVAL_FILE


class TestRuns:
    def test_folder_of_runs_newest_first_then_baselines(self):
        runs = find_runs(str(RESULTS))
        assert [r.name for r in runs] == [
            "default/2026-06-22T09-00-00-000Z",
            "default/2026-06-21T09-00-00-000Z",
            "default/2026-06-20T09-00-00-000Z",
            "greeting.baseline.jsonl",
        ]
        assert runs[0].folder is not None and runs[0].path.endswith("index.jsonl")
        assert runs[-1].folder is None

    def test_mixed_with_015_files(self, tmp_path):
        import shutil

        shutil.copytree(RESULTS, tmp_path / "results")
        shutil.copy(OLD / "project" / ".agentv" / "results" / "mini-run.jsonl", tmp_path / "results" / "m.jsonl")
        shutil.copy(OLD / "run-a.jsonl", tmp_path / "results" / "code-review_2026-06-21T12-00-00-000Z.jsonl")
        names = [r.name for r in find_runs(str(tmp_path / "results"))]
        assert names[:3] == [
            "default/2026-06-22T09-00-00-000Z",
            "code-review_2026-06-21T12-00-00-000Z.jsonl",
            "default/2026-06-21T09-00-00-000Z",
        ]
        assert set(names[4:]) == {"greeting.baseline.jsonl", "m.jsonl"}

    def test_index_jsonl_named_directly_is_its_run(self):
        (source,), problems = expand_results_paths([str(RUN2 / "index.jsonl")])
        assert source.folder == str(RUN2) and not problems

    def test_time_in_name(self):
        assert time_in_name("2026-06-20T09-00-00-000Z") == time_in_name("x_2026-06-20T09:00:00.000Z.jsonl")
        assert math.isnan(time_in_name("baseline.jsonl"))

    def test_empty_folder_is_reported(self, tmp_path):
        sources, problems = expand_results_paths([str(tmp_path)])
        assert not sources and "no results files" in problems[0].message


class TestRows:
    def test_slim_index_rows(self):
        results, records = read_all(str(RUN2 / "index.jsonl"))
        by_id = {r.eval_id: r for r in records}
        failed = by_id["hello-flat"]
        assert failed.v4.execution_status == "quality_failure" and failed.dataset == "greeting"
        assert [(g.name, g.verdict) for g in failed.v4.graders] == [("helpful", "fail"), ("mentions-trip", "pass")]
        assert failed.v4.graders[0].assertions[0].passed is False
        assert "never states" in (failed.v4.graders[0].assertions[0].evidence or "")
        assert failed.v4.graders[0].user_prompt.startswith("[[ ## criteria ## ]]")
        assert failed.candidate_answer == ""  # slim rows keep the answer in outputs/answer.md
        errored = by_id["multi-turn"]
        assert errored.error == "Agent timed out after 120000 ms" and errored.v4.failure_reason_code == "timeout"
        composite = next(g for g in by_id["no-assertions"].v4.graders if g.type == "composite")
        assert [c.name for c in composite.children] == ["tone", "format"]
        assert composite.children[1].assertions[1].passed is False

    def test_summaries(self):
        results = scanned(RUN2 / "index.jsonl")
        ids = results.eval_ids
        status = {ids[i]: results.statuses[i] for i in range(results.count)}
        assert status["hello-flat"] == STATUS_QUALITY_FAILURE
        assert status["multi-turn"] == STATUS_EXECUTION_ERROR and results.is_error(ids.index("multi-turn"))
        assert status["system-and-user"] == STATUS_OK
        assert results.dataset_of(0) == "greeting"
        assert results.recorded == {"duration", "cost", "tokens"}
        assert results.grader_names == ["format", "helpful"]

    def test_filters_and_sorts(self):
        results = scanned(RUN2 / "index.jsonl")
        ids = results.eval_ids

        def shown(**options) -> list[str]:
            return [ids[i] for i in select(results, **options)]

        assert shown(filter="errors") == ["multi-turn"]
        assert shown(filter="quality failures") == ["hello-flat"]
        assert shown(filter="grader:helpful") == ["hello-flat"]
        assert shown(filter="grader:format") == ["no-assertions"]
        assert "multi-turn" not in shown(filter="ok") and "hello-flat" not in shown(filter="ok")
        durations = [results.durations[i] for i in select(results, sort="duration")]
        assert durations == sorted(durations, reverse=True)
        costs = [results.costs[i] for i in select(results, sort="cost")]
        assert costs == sorted(costs, reverse=True)

    def test_streamed_full_rows(self):
        _, records = read_all(str(RUN3 / "index.jsonl"))
        record = records[0]
        assert record.candidate_answer.startswith("Here is my answer")
        assert record.v4.input_messages[0].role == "user" and record.v4.assertions
        assert record.lm_request is not None and record.lm_request.question is not None

    def test_baseline_rows(self):
        _, records = read_all(str(RESULTS / "greeting.baseline.jsonl"))
        assert all(r.v4 is not None and r.v4.graders for r in records if r.eval_id != "no-assertions")
        assert all(g.user_prompt is None for r in records for g in r.v4.graders)  # trimmed

    @pytest.mark.parametrize(
        "row",
        [
            {"testId": "a", "score": 1, "executionStatus": "execution_error", "costUsd": 0.5},
            {"test_id": "a", "score": "high", "scores": "not a list", "input": 3, "output": {"x": 1}},
            {"test_id": "a", "score": 1, "scores": [1, {"assertions": [None, "text"]}], "token_usage": 7},
            {
                "test_id": "a",
                "score": 1,
                "output": [{"role": "assistant", "content": [{"type": "text", "text": "hi"}]}],
            },
        ],
    )
    def test_odd_rows_never_crash(self, row):
        record = record_from_mapping(row, "f.jsonl", 1)
        assert record.v4 is not None and record.eval_id == "a"

    def test_camel_case_aliases(self):
        record = record_from_mapping({"testId": "a", "score": 0, "executionStatus": "execution_error"}, "f", 1)
        assert record.error == "execution error" and record.v4.execution_status == "execution_error"

    def test_answer_from_a_message_list(self):
        row = {
            "test_id": "a",
            "score": 1,
            "output": [{"role": "assistant", "content": [{"type": "text", "text": "hi"}]}],
        }
        assert record_from_mapping(row, "f", 1).candidate_answer == "hi"


class TestArtifacts:
    def test_loaded_for_one_result(self):
        _, records = read_all(str(RUN2 / "index.jsonl"))
        record = next(r for r in records if r.eval_id == "hello-flat")
        artifacts = load_artifacts(record, str(RUN2))
        assert artifacts.answer.startswith("Here is my answer for **hello-flat**")
        assert artifacts.input_md.startswith("@[user]:\nMy name is Ada")
        assert artifacts.grading["summary"]["failed"] == 1
        assert artifacts.timing["duration_ms"] == record.v4.duration_ms
        assert artifacts.trace.schema == "agentv.trace.v1" and artifacts.trace.tool_calls == {
            "read_file": 2,
            "search": 1,
        }

    def test_conventional_place_when_the_row_names_none(self):
        record = record_from_mapping({"test_id": "hello-flat", "suite": "greeting", "score": 1}, "f", 1)
        assert load_artifacts(record, str(RUN2)).answer is not None

    def test_missing_and_hostile_paths(self, tmp_path):
        record = record_from_mapping({"test_id": "../../etc", "suite": "..", "score": 1}, "f", 1)
        assert not load_artifacts(record, str(tmp_path)).found
        (tmp_path / "s" / "t").mkdir(parents=True)
        (tmp_path / "s" / "t" / "grading.json").write_text("{broken")
        record = record_from_mapping({"test_id": "t", "suite": "s", "score": 1}, "f", 1)
        artifacts = load_artifacts(record, str(tmp_path))
        assert artifacts.grading is None and "not valid JSON" in artifacts.problems[0].message


class TestFollow:
    def test_growth_partial_lines_and_rewrites(self, tmp_path):
        path = tmp_path / "index.jsonl"
        path.write_bytes(b'{"test_id": "a", "score": 1}\n{"test_id": "b", "sc')
        results = scanned(path)
        assert results.count == 1 and results.problem_count == 1  # the half-written last line
        assert results.follow() == "same"
        with path.open("ab") as handle:
            handle.write(b'ore": 0.5}\n{"test_id": "c", "score": 0}\n{"test_id": "d"')
        assert results.follow() == "grown"
        assert results.eval_ids == ["a", "b", "c"] and results.problem_count == 0
        assert [results.lines[i] for i in range(3)] == [1, 2, 3]
        assert results.record(2).eval_id == "c"
        with path.open("ab") as handle:
            handle.write(b', "score": 1}\n\nnot json\n')
        assert results.follow() == "grown"
        assert results.eval_ids[-1] == "d" and results.lines[3] == 4 and results.problem_count == 1
        assert results.diagnostics[-1].line == 6
        path.write_bytes(b'{"test_id": "z", "score": 1}\n')
        assert results.follow() == "replaced"

    def test_a_complete_unterminated_record_gaining_its_newline(self, tmp_path):
        path = tmp_path / "index.jsonl"
        path.write_bytes(b'{"test_id": "a", "score": 1}')
        results = scanned(path)
        assert results.count == 1
        with path.open("ab") as handle:
            handle.write(b'\n{"test_id": "b", "score": 0}\n')
        assert results.follow() == "grown" and results.eval_ids == ["a", "b"]
        with path.open("ab") as handle:
            handle.write(b"\n")
        assert results.follow() == "same" or results.count == 2
