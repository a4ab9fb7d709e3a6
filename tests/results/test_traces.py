"""Traces and transcripts as AgentV 4.42.4 writes them (a run graded from a recorded agent session with
`agentv eval --transcript`, tests/fixtures/make_real_runs.py)."""

from __future__ import annotations

from pathlib import Path

import orjson

from turnlens.formatting.results.artifacts import load_artifacts
from turnlens.formatting.results.index import ResultsFile
from turnlens.formatting.results.traces import read_trace, read_transcript

RUN = (
    Path(__file__).resolve().parents[1]
    / "fixtures/results/real/project/.agentv/results/runs/default/2026-06-25T09-00-00-000Z"
)
OUTPUTS = RUN / "agent" / "fix-failing-test" / "outputs"


def test_execute_tool_spans_are_the_tool_calls():
    trace = read_trace(orjson.loads((OUTPUTS / "trace.json").read_bytes()))
    assert trace is not None and trace.schema == "agentv.trace.v1" and trace.total_spans == 8
    assert [c.name for c in trace.tool_calls] == ["bash", "read_file", "edit_file", "bash"]
    first = trace.tool_calls[0]
    assert first.arguments == {"command": "pytest -q tests/test_cart.py"} and first.status == "error"
    assert first.duration_ms == 2500 and "assert 9 == 10" in first.result
    (root,) = trace.spans  # invoke_agent, its chat spans, each chat's tools
    assert root.operation == "invoke_agent" and [len(c.children) for c in root.children] == [2, 2, 0]
    assert root.children[0].tokens == (2100, 240)


def test_transcript_turns_with_tool_calls_timing_and_tokens():
    transcript = read_transcript((OUTPUTS / "transcript.jsonl").read_text())
    assert [t.role for t in transcript.turns] == ["user", "assistant", "assistant", "assistant"]
    assert [len(t.tool_calls) for t in transcript.turns] == [0, 2, 2, 0]
    assert transcript.turns[1].duration_ms == 4200 and transcript.turns[1].tokens == (2100, 240)
    assert transcript.duration_ms == 41250 and transcript.tokens == (5200, 830)
    assert transcript.turns[2].tool_calls[0].arguments == {"path": "cart.py", "old": "items[1:]", "new": "items"}


def test_the_artifacts_of_a_result_read_both():
    results = ResultsFile(str(RUN / "index.jsonl"))
    for _ in results.scan():
        pass
    index = results.eval_ids.index("fix-failing-test")
    artifacts = load_artifacts(results.record(index), str(RUN))
    assert artifacts.trace is not None and artifacts.trace.schema == "agentv.trace.v1"
    assert artifacts.trace.tool_calls == {"bash": 2, "read_file": 1, "edit_file": 1}
    assert len(artifacts.transcript.turns) == 4 and len(artifacts.spans.tool_calls) == 4


def test_hostile_shapes_are_read_without_failing():
    assert read_trace([1, 2]) is None and read_trace({"spans": "x"}) is None
    cycle = {"spans": [{"span_id": "a", "parent_span_id": "b"}, {"span_id": "b", "parent_span_id": "a"}]}
    trace = read_trace(cycle)
    assert trace is not None and len(trace.spans) >= 1
    deep = {"spans": [{"span_id": str(n), "parent_span_id": str(n - 1) if n else None} for n in range(500)]}
    assert read_trace(deep) is not None
    transcript = read_transcript('not json\n{"role": 3}\n{"role": "user", "content": [{"text": "hi"}]}\n')
    assert [t.content for t in transcript.turns] == ["hi"] and transcript.problems
