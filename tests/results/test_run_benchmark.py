"""A run folder's benchmark.json (AgentV 4: `metadata`, `run_summary`, `per_grader_summary`, `notes`) read for the
results header and the run summary: figures read by their shape, untrusted text neutralised, never a crash."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from turnlens.formatting.results.benchmark import read_benchmark

RUNS = Path(__file__).parents[2] / "sample_evals" / ".agentv" / "results" / "runs" / "default"


def write(folder: Path, data) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "benchmark.json").write_bytes(data if isinstance(data, bytes) else orjson.dumps(data))
    return folder


def test_a_finished_sample_run():
    benchmark = read_benchmark(str(RUNS / "2026-06-21T09-00-00-000Z"))
    assert benchmark is not None and not benchmark.problems
    assert benchmark.headline() == "azure-gpt-4o: pass_rate 80%, 8.60 s, 1,675 tokens"
    lines = benchmark.lines()
    assert "  eval_files: code-review.eval.yaml, support-refunds.eval.yaml" in lines
    assert "    pass_rate: 80%" in lines and "    tokens: 1,675" in lines


def test_a_run_still_going_has_none():
    assert read_benchmark(str(RUNS / "2026-06-22T09-00-00-000Z")) is None


def test_statistics_graders_notes_and_unknown_figures(tmp_path):
    folder = write(
        tmp_path / "run",
        {
            "metadata": {"targets": ["a", "b"], "trials": 3},
            "run_summary": {
                "a": {"pass_rate": {"mean": 0.5, "stddev": 0.25, "min": 0.0, "max": 1.0}, "cost_usd": {"mean": 0.012}},
                "b": {"pass_rate": 1, "time_seconds": {"mean": 12.5}, "p95_latency": {"mean": 3.2}},
                "delta": {"pass_rate": "+0.50"},
            },
            "per_grader_summary": {"rubric": {"pass_rate": {"mean": 0.75}, "score": {"mean": 0.8123}}},
            "notes": ["b is faster", {"odd": True}],
            "extra": {"x": 1},
        },
    )
    benchmark = read_benchmark(str(folder))
    assert benchmark.headline() == "a: pass_rate 50%, $0.0120 · b: pass_rate 100%, 12.5 s · delta: pass_rate +0.50"
    lines = benchmark.lines()
    assert "    pass_rate: 50% ± 25% (0%–100%)" in lines
    assert "    p95_latency: 3.2" in lines  # a figure turnlens has no name for is still shown
    assert "  rubric" in lines and "    score: 0.8123" in lines
    assert "  • b is faster" in lines and '  • {"odd":true}' in lines
    assert 'extra: {"x":1}' in lines


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        (b"{broken", "not valid JSON"),
        (b"[1, 2]", "not a JSON object"),
        (b'{"run_summary": [1]}', "`run_summary` is not a mapping"),
        (b" " * (1024 * 1024 + 10), "larger than"),
    ],
)
def test_bad_files_say_why(tmp_path, data, problem):
    benchmark = read_benchmark(str(write(tmp_path / "run", data)))
    assert benchmark is not None and problem in benchmark.problems[0].message
    assert problem in benchmark.headline() or benchmark.headline() == ""


def test_untrusted_text_is_neutralised(tmp_path):
    folder = write(
        tmp_path / "run",
        {
            "run_summary": {"\x1b[31mred[/]": {"pass_rate": 1}},
            "notes": ["[bold]x\u202e\x07"],
            "metadata": {"k": "v" * 900},
        },
    )
    text = "\n".join(read_benchmark(str(folder)).lines())
    assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text
    assert max(len(line) for line in text.splitlines()) < 400
