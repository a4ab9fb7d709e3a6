"""0.15-era files without `$schema` (AgentV 1.x-3.x): refused as 0.15.1 refuses them (recorded in
tests/fixtures/oracle/corpus/evaluators/), and the refusal says what AgentV 4.42.4 does with them: it reads them and
skips every test, the count worked out by AgentV 4's own rules (tests/fixtures/oracle4 records that, e.g.
corpus4/refused/evals/schema-only-0.15.eval.yaml)."""

from __future__ import annotations

from pathlib import Path

from turnlens.formatting.dialects.load import load_eval_file

CORPUS = Path(__file__).resolve().parents[1] / "corpus" / "evaluators"


def _error(name: str) -> str:
    ev = load_eval_file(f"evals/{name}", repo_root=str(CORPUS), cwd=str(CORPUS), environ={})
    assert ev.error is not None and not ev.cases
    return ev.error.message


def test_a_1x_file_says_agentv4_skips_every_test():
    message = _error("no-schema-1x.yaml")
    assert message.startswith("Missing required field '$schema' in no-schema-1x.yaml.")
    assert "AgentV 4.42.4 reads it but skips every test in it" in message


def test_a_file_with_one_test_agentv4_loads_says_how_many_it_skips():
    assert "AgentV 4.42.4 reads it but skips 1 of its 2 tests" in _error("no-schema-mixed.yaml")


def test_inherited_evaluators_are_said_on_the_case():
    ev = load_eval_file("evals/inherit.yaml", repo_root=str(CORPUS), cwd=str(CORPUS), environ={})
    by_id = {c.id: c for c in ev.cases}
    assert [e["name"] for e in by_id["execution-fast"].evaluators or []] == [
        "suite-judge",
        "suite-file-judge",
        "suite-code",
    ]
    assert any("suite's `execution.evaluators`" in n for n in by_id["no-execution"].notes)
    assert by_id["execution-empty"].evaluators is None and by_id["own-empty"].evaluators is None
