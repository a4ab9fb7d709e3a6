"""The `design` profile (docs/rules.md, "chatPrompt profiles"): its chatPrompt; question and guidelines as in
`agentv`."""

from __future__ import annotations

from pathlib import Path

from turnlens.formatting.dialects.format import format_case
from turnlens.formatting.dialects.load import load_eval_file

EVAL = """\
$schema: agentv-eval-v2
evalcases:
  - id: multi
    outcome: o
    input_messages:
      - role: system
        content:
          - {type: file, value: prompts/style.instructions.md}
          - {type: text, value: You review code.}
      - role: user
        content:
          - {type: text, value: Review this.}
          - {type: file, value: prompts/code.py}
          - {type: file, value: prompts/style.instructions.md}
      - {role: assistant, content: Looks fine.}
      - {role: system, content: The user is a beginner.}
      - {role: tool, content: "lint: 0 problems"}
      - {role: user, content: "   "}
  - id: flat
    outcome: o
    input_messages:
      - {role: user, content: Just one question.}
"""


def load(tmp_path: Path):
    (tmp_path / ".agentv").mkdir()
    (tmp_path / ".agentv" / "config.yaml").write_text(
        "$schema: agentv-config-v2\nguideline_patterns: ['**/*.instructions.md']\n"
    )
    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts" / "style.instructions.md").write_text("Be brief.\n")
    (tmp_path / "prompts" / "code.py").write_text("x = 1\n")
    (tmp_path / "e.yaml").write_text(EVAL)
    ev = load_eval_file(tmp_path / "e.yaml", repo_root=tmp_path, cwd=tmp_path)
    return ev


def chat(fc, mode="lm"):
    return [(m.role, m.content) for m in fc.rendered(mode).chat_prompt]


def test_design_merges_every_system_message_and_keeps_roles(tmp_path):
    ev = load(tmp_path)
    fc = format_case(ev.cases[0], ev, "design")
    assert chat(fc) == [
        # the guideline is referenced twice, so `guidelines` holds it twice (as in agentv)
        (
            "system",
            "[[ ## Guidelines ## ]]\n\n"
            + '<file path="style.instructions.md">\nBe brief.\n</file>\n\n' * 2
            + "You review code.\n\nThe user is a beginner.",
        ),
        ("user", "Review this.\n=== prompts/code.py ===\nx = 1\n<Attached: prompts/style.instructions.md>"),
        ("assistant", "Looks fine."),
        ("tool", "lint: 0 problems"),
    ]
    assert chat(fc, "agent")[1] == (
        "user",
        'Review this.\n<file: path="prompts/code.py">\n<Attached: prompts/style.instructions.md>',
    )


def test_design_and_agentv_share_question_and_guidelines(tmp_path):
    ev = load(tmp_path)
    design = format_case(ev.cases[0], ev, "design")
    agentv = format_case(ev.cases[0], ev, "agentv")
    for mode in ("lm", "agent"):
        assert design.rendered(mode).question == agentv.rendered(mode).question
        assert design.rendered(mode).guidelines == agentv.rendered(mode).guidelines
    assert design.evaluator_prompt == agentv.evaluator_prompt
    # the agentv chatPrompt differs exactly where docs/rules.md says
    assert [m.role for m in agentv.lm.chat_prompt] == ["system", "user", "assistant", "assistant", "assistant"]
    assert agentv.lm.chat_prompt[3].content == "@[System]:\nThe user is a beginner."


def test_design_gives_a_chat_prompt_to_flat_cases(tmp_path):
    ev = load(tmp_path)
    assert format_case(ev.cases[1], ev, "agentv").lm.chat_prompt is None
    assert chat(format_case(ev.cases[1], ev, "design")) == [("user", "Just one question.")]
