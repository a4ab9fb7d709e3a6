"""A big JSONL results file is indexed by worker processes chunk by chunk (scan_parallel.py, scan_worker.py): the index
they make is the one the scan makes alone, row for row and problem for problem, wherever the chunks fall.

Here every file is "big": the scan hands everything after a small first window to the workers, in chunks of a few
hundred bytes, so that chunk edges fall inside lines, on line feeds, inside a CRLF and inside long lines."""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest

from turnlens.formatting.results import index, scan_parallel, source
from turnlens.formatting.results.index import ResultsFile

ROOT = Path(__file__).parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "results"


def scan(path: Path) -> ResultsFile:
    results = ResultsFile(str(path))
    for _ in results.scan():
        pass
    results.close()
    return results


def state(results: ResultsFile) -> dict:
    """Everything the index holds that the view shows, counts or reads back."""
    columns = ("starts", "ends", "lines", "scores", "flags", "timestamps", "targets", "datasets", "statuses")
    return {
        **{name: [repr(value) for value in getattr(results, name)] for name in columns},  # (NaN == NaN as text)
        **{name: [repr(value) for value in getattr(results, name)] for name in ("durations", "costs", "tokens")},
        "count": results.count,
        "eval_ids": list(results.eval_ids),
        "strings": list(results.strings),
        "failing": {results.strings[k]: list(v) for k, v in results.failing.items()},
        "v4_count": results.v4_count,
        "recorded": sorted(results.recorded),
        "diagnostics": [(d.file, d.line, d.message, d.severity) for d in results.diagnostics],
        "problem_count": results.problem_count,
        "changed": results.changed,
    }


@pytest.fixture
def serial(monkeypatch):
    def run(path: Path) -> dict:
        with monkeypatch.context() as patch:
            patch.setattr(index, "PARALLEL_FROM", 1 << 62)
            return state(scan(path))

    return run


@pytest.fixture
def parallel(monkeypatch):
    """Scans whose every byte after the first 200 goes to the workers, in chunks of `chunk` bytes; returns the
    index's state and how many parts the workers sent."""

    def run(path: Path, chunk: int = 300) -> tuple[dict, int]:
        parts = []
        real = ResultsFile.add_part

        def counted(self, part, lines_before):
            parts.append(part)
            real(self, part, lines_before)

        with monkeypatch.context() as patch:
            patch.setattr(index, "PARALLEL_FROM", 0)
            patch.setattr(source, "FIRST_WINDOW", 200)
            patch.setattr(scan_parallel, "CHUNK", chunk)
            patch.setattr(ResultsFile, "add_part", counted)
            return state(scan(path)), len(parts)

    return run


def row(i: int, **extra) -> dict:
    return {
        "timestamp": f"2026-01-0{1 + i % 9}T10:{i % 60:02d}:00.{i % 1000:03d}Z",
        "eval_id": f"case-{i}",
        "dataset": f"suite-{i % 3}",
        "score": round((i * 37 % 100) / 100, 2),
        "target": ("gpt", "claude")[i % 2],
        "candidate_answer": "answer " * (i % 40),
        **extra,
    }


def v4_row(i: int) -> dict:
    scores = [
        {"name": f"grader-{i % 4}", "type": "llm-grader", "score": 0.2, "verdict": "fail" if i % 3 else "pass"},
        {"name": "composite", "verdict": "pass", "scores": [{"name": f"inner-{i % 2}", "verdict": "fail"}]},
    ]
    return {
        "test_id": f"t-{i}",
        "suite": "s4",
        "score": 0.5,
        "execution_status": ("ok", "quality_failure", "execution_error")[i % 3],
        "duration_ms": i * 10,
        "cost_usd": 0.01 * i,
        "token_usage": {"input": i, "output": 2 * i} if i % 2 else {"total": 3 * i},
        "scores": scores,
    }


def hostile_lines() -> list[bytes]:
    """Every kind of line the scan tells apart, in a file of many chunks."""
    lines: list[bytes] = []
    for i in range(400):
        kind = i % 20
        if kind == 0:
            lines.append(b"not json at all")
        elif kind == 1:
            lines.append(b"[1, 2, 3]")
        elif kind == 2:
            lines.append(b"{}")
        elif kind == 3:
            lines.append(b'"just a string"')
        elif kind == 4:
            lines.append(b"")
        elif kind == 5:
            lines.append(b"  \t ")
        elif kind == 6:
            lines.append(orjson.dumps(v4_row(i)))
        elif kind == 7:
            lines.append(orjson.dumps(row(i)) + b"\r")  # CRLF
        elif kind == 8:
            lines.append(b'{"eval_id": "dup", "eval_id": "second", "score": 1, "score": 0.25}')
        elif kind == 9:
            lines.append(
                b'{"eval_id": "lone \\ud800 surrogate", "score": 1e400, "big": 123456789012345678901234567890}'
            )
        elif kind == 10:
            lines.append(orjson.dumps(row(i, candidate_answer="x" * 5000)))  # longer than many chunks
        elif kind == 11:
            lines.append(b'{"eval_id": "bad utf-8 \xff", "score": 1}')
        elif kind == 12:
            lines.append(b"null")
        elif kind == 13:
            lines.append(orjson.dumps(row(i, error="Provider timed out", target="t" * 300)))
        elif kind == 14:
            lines.append(b'{"eval_id": 42, "score": "0.5", "timestamp": "yesterday", "dataset": {"a": 1}}')
        else:
            lines.append(orjson.dumps(row(i)))
    return lines


def test_the_workers_index_as_the_scan_does_on_every_kind_of_line(tmp_path, serial, parallel):
    path = tmp_path / "run.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + b"\n".join(hostile_lines()) + b"\n")
    alone = serial(path)
    together, parts = parallel(path)
    assert parts > 50  # really read in chunks
    assert together == alone
    assert alone["count"] > 200 and alone["problem_count"] > 100 and alone["failing"] and alone["v4_count"]


@pytest.mark.parametrize(("chunk", "lines"), [(3, 10), (97, 120), (4096, 120)])
def test_chunk_edges_anywhere(tmp_path, serial, parallel, chunk, lines):
    path = tmp_path / "run.jsonl"
    # the last line has no line feed and does not parse: "truncated record"
    path.write_bytes(b"\n".join(hostile_lines()[:lines]) + b'\n{"eval_id": "cut')
    alone = serial(path)
    assert alone["diagnostics"][-1][2].startswith("truncated record (no final newline)")
    assert parallel(path, chunk)[0] == alone


def test_the_diagnostics_cap_holds_across_parts(tmp_path, serial, parallel, monkeypatch):
    monkeypatch.setattr(index, "MAX_DIAGNOSTICS", 7)
    path = tmp_path / "run.jsonl"
    path.write_bytes(b"\n".join(b"[%d]" % i if i % 2 else orjson.dumps(row(i)) for i in range(300)) + b"\n")
    alone = serial(path)
    assert len(alone["diagnostics"]) == 7 and alone["problem_count"] == 150
    assert parallel(path, 50)[0] == alone


def test_the_fixtures_and_samples(tmp_path, serial, parallel):
    """Every JSONL results file of the fixtures and samples, one after another in one file (one scan: worker
    processes are started once)."""
    files = sorted(
        path for folder in (FIXTURES, ROOT / "sample_evals" / ".agentv" / "results") for path in folder.rglob("*.jsonl")
    )
    assert len(files) > 20
    path = tmp_path / "all.jsonl"
    with path.open("wb") as out:
        for name in files:
            data = name.read_bytes()
            out.write(data if data.endswith(b"\n") else data + b"\n")
    together, parts = parallel(path, 256)
    assert parts > 100 and together == serial(path)


def test_a_file_indexed_by_workers_is_followed_as_one_indexed_alone(tmp_path, monkeypatch):
    path = tmp_path / "run.jsonl"
    lines = hostile_lines()
    path.write_bytes(b"\n".join(lines[:150]) + b"\n" + lines[150][:40])  # the last line still being written
    with monkeypatch.context() as patch:
        patch.setattr(index, "PARALLEL_FROM", 1 << 62)
        alone = scan(path)
    with monkeypatch.context() as patch:
        patch.setattr(index, "PARALLEL_FROM", 0)
        patch.setattr(source, "FIRST_WINDOW", 200)
        patch.setattr(scan_parallel, "CHUNK", 500)
        together = scan(path)
    assert state(together) == state(alone)
    with path.open("ab") as handle:
        handle.write(lines[150][40:] + b"\n" + b"\n".join(lines[151:220]) + b"\n")
    assert alone.follow() == together.follow() == "grown"
    assert state(together) == state(alone) and alone.count > 100


def test_workers_that_cannot_start_leave_the_scan_to_read_the_rest(tmp_path, serial, parallel, monkeypatch):
    monkeypatch.setattr(scan_parallel, "_WORKER_CODE", "pass")  # each ends at once, before any answer
    path = tmp_path / "run.jsonl"
    path.write_bytes(b"\n".join(hostile_lines()[:200]) + b"\n")
    together, parts = parallel(path)
    assert parts == 0 and together == serial(path)


def test_workers_that_write_something_else_leave_the_scan_to_read_the_rest(tmp_path, serial, parallel, monkeypatch):
    # (a startup hook that prints, say): never read as a part
    monkeypatch.setattr(scan_parallel, "_WORKER_CODE", "print('hello' * 10, flush=True); import sys; sys.stdin.read()")
    path = tmp_path / "run.jsonl"
    path.write_bytes(b"\n".join(hostile_lines()[:200]) + b"\n")
    together, parts = parallel(path)
    assert parts == 0 and together == serial(path)


def test_workers_that_never_answer_leave_the_scan_to_read_the_rest(tmp_path, serial, parallel, monkeypatch):
    monkeypatch.setattr(scan_parallel, "_WORKER_CODE", "import sys; sys.stdin.read()")
    monkeypatch.setattr(scan_parallel, "SILENCE", 0.3)
    path = tmp_path / "run.jsonl"
    path.write_bytes(b"\n".join(hostile_lines()[:200]) + b"\n")
    together, parts = parallel(path)
    assert parts == 0 and together == serial(path)


def test_a_file_cut_short_under_the_workers_is_said_to_have_changed(tmp_path, parallel, monkeypatch):
    path = tmp_path / "run.jsonl"
    path.write_bytes(b"\n".join(orjson.dumps(row(i)) for i in range(2000)) + b"\n")
    real = scan_parallel.ParallelScan.__init__

    def cut_once_started(self, *args, **kwargs):
        real(self, *args, **kwargs)
        os.truncate(path, 4096)  # a worker mapping the file as opened meets pages no longer there (SIGBUS)

    monkeypatch.setattr(scan_parallel.ParallelScan, "__init__", cut_once_started)
    together, _parts = parallel(path, 8192)
    assert together["changed"] and "got shorter while it was read" in together["changed"]
    assert together["diagnostics"][-1][2].startswith("the file changed while it was read")
    assert 0 < together["count"] < 2000


def test_stopping_ends_the_workers(tmp_path, monkeypatch):
    import threading

    monkeypatch.setattr(index, "PARALLEL_FROM", 0)
    monkeypatch.setattr(source, "FIRST_WINDOW", 200)
    monkeypatch.setattr(scan_parallel, "CHUNK", 256)
    started = []
    real = scan_parallel.ParallelScan.__init__

    def kept(self, *args, **kwargs):
        real(self, *args, **kwargs)
        started.extend(worker.process for worker in self.workers)

    monkeypatch.setattr(scan_parallel.ParallelScan, "__init__", kept)
    path = tmp_path / "run.jsonl"
    path.write_bytes(b"\n".join(orjson.dumps(row(i)) for i in range(3000)) + b"\n")
    stop = threading.Event()
    results = ResultsFile(str(path))
    done = False
    for progress in results.scan(stop=stop, batch_seconds=0):
        done = progress.done
        if started:  # the workers are at it
            stop.set()
    assert done and started and all(process.returncode is not None for process in started)
    assert results.count < 3000


def test_rows_nested_deeper_than_orjson_reads_are_indexed_alike_by_the_scan_and_its_workers(tmp_path, serial, parallel):
    """A row nested 5,000 levels deep is read as JSON.parse reads it (orjson alone refuses it past 1,024 levels): its
    score, status and test id indexed, no problem, the same by the scan and by its worker processes (which send
    what they indexed back pickled)."""
    deep = [{"role": "assistant", "content": "hi"}]
    lines = []
    for i in range(40):
        data = orjson.dumps(v4_row(i))
        if i % 3 == 0:  # an output nested 5,000 levels deep
            data = data[:-1] + b',"output":' + b"[" * 5000 + orjson.dumps(deep) + b"]" * 5000 + b"}"
        lines.append(data)
    path = tmp_path / "deep.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    alone = serial(path)
    assert alone["count"] == 40 and alone["problem_count"] == 0 and alone["diagnostics"] == []
    assert alone["scores"] == [repr(0.5)] * 40
    assert parallel(path, chunk=4000)[0] == alone
