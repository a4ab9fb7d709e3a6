"""A run in progress: a YAML results file that grows is read from its last document on (not read whole again),
and a folder of runs picks up the runs that appear under it while it is open (RunWatcher)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from turnlens.formatting.results.discover import RunWatcher, find_runs
from turnlens.formatting.results.index import ResultsFile
from turnlens.formatting.results.queries import StatsCounter

SAMPLE_RUNS = Path(__file__).parents[2] / "sample_evals" / ".agentv" / "results"


def scanned(path) -> ResultsFile:
    results = ResultsFile(str(path))
    for _ in results.scan():
        pass
    return results


def append(path: Path, data: bytes) -> None:
    with path.open("ab") as handle:
        handle.write(data)


class TestYamlFollow:
    def test_documents_arrive_one_by_one(self, tmp_path):
        path = tmp_path / "run.yaml"
        path.write_bytes(b"---\neval_id: a\nscore: 1\n")
        results = scanned(path)
        assert results.count == 1 and results.follow() == "same"
        append(path, b"---\neval_id: b\nscore: 0.5\n---\ntest_id: c\nscore: 0\nexecution_status: execution_error\n")
        assert results.follow() == "grown"
        assert results.eval_ids == ["a", "b", "c"]
        assert [results.lines[i] for i in range(3)] == [2, 5, 8]
        assert results.record(2).eval_id == "c" and results.is_error(2) and results.v4_count == 1
        append(path, b"---\n")
        assert results.follow() == "same"
        append(path, b"eval_id: d\nscore: 1\n")
        assert results.follow() == "grown" and results.eval_ids[-1] == "d" and results.lines[3] == 12

    def test_read_from_the_last_document_only(self, tmp_path, monkeypatch):
        path = tmp_path / "run.yaml"
        path.write_bytes(b"".join(b"---\neval_id: r%d\nscore: 1\nanswer: %s\n" % (i, b"x" * 500) for i in range(200)))
        results = scanned(path)
        parsed = []
        import turnlens.formatting.results.follow as follow

        real = follow.load_yaml_document
        monkeypatch.setattr(follow, "load_yaml_document", lambda chunk: parsed.append(chunk) or real(chunk))
        append(path, b"---\neval_id: new\nscore: 0\n")
        assert results.follow() == "grown" and results.count == 201
        # the last document as it was (unchanged: not parsed again) and the new one: nothing before them
        assert parsed == [b"eval_id: new\nscore: 0\n"]

    def test_a_document_being_written(self, tmp_path):
        path = tmp_path / "run.yaml"
        path.write_bytes(b"---\neval_id: a\nscore: 1\n---\neval_id: b\nhits: [")
        results = scanned(path)
        assert results.count == 1 and results.problem_count == 1  # cut in the middle when opened
        append(path, b"x, y")
        assert results.follow() == "grown"  # its problem is gone: it is being written
        assert results.count == 1 and results.problem_count == 0
        append(path, b"]\nscore: 0.25\n")
        assert results.follow() == "grown" and results.eval_ids == ["a", "b"] and results.score_of(1) == 0.25

    def test_the_last_document_read_again_in_place(self, tmp_path):
        path = tmp_path / "run.yaml"
        path.write_bytes(
            b"---\neval_id: a\nscore: 1\n---\ntest_id: b\nscore: 0.2\nscores: [{name: g, verdict: fail}]\n"
        )
        results = scanned(path)
        stats = StatsCounter()
        assert stats.update(results, 0.5).failed == 1 and results.grader_names == ["g"]
        append(path, b"execution_status: ok\nhits: [late]\n")
        revision = results.revision
        assert results.follow() == "grown" and results.count == 2 and results.revision == revision + 1
        assert results.statuses[1] == 0 and results.record(1).hits == ["late"]
        assert results.grader_names == ["g"] and list(results.failing_rows("g")) == [1]
        assert stats.update(results, 0.5).count == 2  # the counter starts over after a record changed

    def test_broken_documents_and_rewrites(self, tmp_path):
        path = tmp_path / "run.yaml"
        path.write_bytes(b"---\neval_id: a\nscore: 1\n")
        results = scanned(path)
        append(path, b"---\neval_id: b\n  bad: [\n---\neval_id: c\nscore: 1\n")
        assert results.follow() == "grown"
        assert results.eval_ids == ["a", "c"] and results.problem_count == 1 and results.diagnostics[0].line == 5
        path.write_bytes(b"---\neval_id: z\nscore: 1\n")
        assert results.follow() == "replaced"

    def test_an_empty_file_that_starts_to_fill(self, tmp_path):
        path = tmp_path / "run.yaml"
        path.write_bytes(b"")
        results = scanned(path)
        append(path, b"---\neval_id: a\nscore: 1\n")
        assert results.follow() == "grown" and results.eval_ids == ["a"]


class TestJsonlFollow:
    LINES = b'[1, 2]\n{}\n"text"\n{"eval_id": "b", "score": 1}\nnot json\n'

    def test_appended_lines_are_worded_as_lines_present_at_open(self, tmp_path):
        opened = tmp_path / "opened.jsonl"
        opened.write_bytes(b'{"eval_id": "a", "score": 0}\n' + self.LINES)
        grown = tmp_path / "grown.jsonl"
        grown.write_bytes(b'{"eval_id": "a", "score": 0}\n')
        results = scanned(grown)
        append(grown, self.LINES)
        assert results.follow() == "grown"
        whole = scanned(opened)
        assert [(d.line, d.message, d.severity) for d in results.diagnostics] == [
            (d.line, d.message, d.severity) for d in whole.diagnostics
        ]
        assert [d.message for d in results.diagnostics][:3] == [
            "not a JSON object but list",
            "an empty object, not a result",
            "not a JSON object but str",
        ]
        assert results.eval_ids == whole.eval_ids == ["a", "b"] and results.problem_count == whole.problem_count == 4

    def test_appended_lines_count_under_the_same_cap(self, tmp_path, monkeypatch):
        import turnlens.formatting.results.index as index

        monkeypatch.setattr(index, "MAX_DIAGNOSTICS", 3)
        path = tmp_path / "run.jsonl"
        path.write_bytes(b"{}\n{}\n")
        results = scanned(path)
        append(path, b"[]\n[]\n{}\n")
        assert results.follow() == "grown"
        assert results.problem_count == 5 and len(results.diagnostics) == 3


class TestNewRuns:
    def test_a_run_folder_appearing(self, tmp_path):
        folder = tmp_path / "results"
        shutil.copytree(SAMPLE_RUNS, folder)
        runs = find_runs(str(folder))
        watcher = RunWatcher(str(folder), [r.path for r in runs])
        assert watcher.poll() == []
        new = folder / "runs" / "default" / "2026-06-23T09-00-00-000Z"
        new.mkdir()
        assert watcher.poll() == []
        (new / "index.jsonl").write_bytes(b"")  # created empty, then written: sniffed again once it changed
        assert watcher.poll() == []
        (new / "index.jsonl").write_bytes(b'{"test_id": "x", "suite": "s", "score": 1}\n')
        found = watcher.poll()
        assert [(r.folder, r.name) for r in found] == [(str(new), "default/2026-06-23T09-00-00-000Z")]
        assert watcher.poll() == []

    def test_new_experiments_and_results_files(self, tmp_path):
        folder = tmp_path / "results"
        folder.mkdir()
        (folder / "old.jsonl").write_bytes(b'{"eval_id": "a", "score": 1}\n')
        watcher = RunWatcher(str(folder), [str(folder / "old.jsonl")])
        assert watcher.poll() == []
        run = folder / "runs" / "nightly" / "2026-07-01T00-00-00-000Z"
        run.mkdir(parents=True)
        (run / "index.jsonl").write_bytes(b'{"test_id": "x", "score": 1}\n')
        (folder / "later_2026-07-02T00-00-00-000Z.jsonl").write_bytes(b'{"test_id": "y", "score": 0}\n')
        (folder / "notes.json").write_bytes(b'{"hello": 1}\n')
        found = watcher.poll()
        # newest first, as find_runs lists them
        assert [os.path.basename(r.path) for r in found] == ["later_2026-07-02T00-00-00-000Z.jsonl", "index.jsonl"]
        assert [r.path for r in find_runs(str(folder))][:2] == [r.path for r in found]

    def test_per_test_artifacts_are_never_searched(self, tmp_path):
        folder = tmp_path / "results"
        shutil.copytree(SAMPLE_RUNS, folder)
        watcher = RunWatcher(str(folder), [r.path for r in find_runs(str(folder))])
        watcher.poll()
        listed = set(watcher._listed)
        assert not any("code-review" in os.path.relpath(p, folder) for p in listed)
