"""AgentV 4 conversation mode (`mode: conversation` + `turns`): what a turn sends depends on the model's earlier
answers, so it is explained on the test (with its turns), while question/chatPrompt/systemMessage stay AgentV's
for the test as a whole (the golden recordings pin those bytes: probes/load/l18-turns)."""

from __future__ import annotations

from turnlens.formatting.dialects.format import format_case
from turnlens.formatting.dialects.load import load_eval_file


def test_turns_are_explained_and_the_prompt_is_the_input_alone(tmp_path):
    (tmp_path / "evals").mkdir()
    suite = tmp_path / "evals" / "c.eval.yaml"
    suite.write_text(
        "tests:\n  - id: conv\n    mode: conversation\n    window_size: 2\n    criteria: c\n"
        "    input:\n      - role: system\n        content: Tutor.\n"
        "    turns:\n      - input: What is 2+2?\n      - input: Double it.\n"
        "  - id: plain\n    criteria: c\n    input: Q\n"
    )
    ev = load_eval_file(str(suite), repo_root=str(tmp_path), cwd=str(tmp_path))
    conv, plain = ev.cases
    note = next(n for n in conv.notes if n.startswith("Conversation mode: 2 turns"))
    assert "1. What is 2+2?; 2. Double it." in note
    assert "`window_size: 2` keeps the system messages and the last 4 others" in note
    assert not any(n.startswith("Conversation") for n in plain.notes)
    fc = format_case(conv, ev, "agentv")
    assert fc.lm.question == "Tutor." and fc.lm.system_message == "Tutor." and fc.lm.chat_prompt is None
    assert note in fc.explanation.evidence
