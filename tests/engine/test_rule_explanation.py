"""The explanation (docs/rules.md, "The marker rule"): which rule fired, the evidence, and the fate of every message
and segment."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from turnlens.formatting.dialects.format import format_case
from turnlens.formatting.dialects.load import load_eval_file


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / ".agentv").mkdir()
    (tmp_path / ".agentv" / "config.yaml").write_text(
        "$schema: agentv-config-v2\nguideline_patterns: ['**/*.instructions.md', 'checklists/*.md']\n"
    )
    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts" / "style.instructions.md").write_text("Be brief.\n")
    (tmp_path / "prompts" / "code.py").write_text("print('hi')\n")
    (tmp_path / "sub" / "checklists").mkdir(parents=True)
    (tmp_path / "sub" / "checklists" / "ship.md").write_text("- [ ] tag\n")
    return tmp_path


def fc_of(repo: Path, body: str, name: str = "e.yaml", case: int = 0):
    p = repo / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text("$schema: agentv-eval-v2\nevalcases:\n" + textwrap.indent(textwrap.dedent(body), "  "))
    ev = load_eval_file(p, repo_root=repo, cwd=repo)
    assert ev.error is None, ev.error
    return format_case(ev.cases[case], ev)


def fates(fc, message_index=None):
    return [
        (s.message_index, s.segment_index, s.fate)
        for s in fc.explanation.segments
        if message_index is None or s.message_index == message_index
    ]


def test_non_user_turn_names_the_first_assistant_or_tool_message(repo):
    fc = fc_of(
        repo,
        """\
        - id: c
          outcome: o
          input_messages:
            - {role: user, content: hi}
            - {role: tool, content: result}
            - {role: assistant, content: done}
        """,
    )
    ex = fc.explanation
    assert ex.rule == "non-user turn" and ex.uses_markers
    assert ex.trigger_messages == [1, 2]
    assert "message 2 (tool)" in ex.summary
    chat_roles = [(m.message_index, m.chat_role) for m in ex.messages]
    assert chat_roles == [(0, "user"), (1, "assistant"), (2, "assistant")]
    assert "starting with @[Tool]:" in ex.messages[1].note


def test_several_visible_turns_lists_them(repo):
    fc = fc_of(
        repo,
        """\
        - id: c
          outcome: o
          input_messages:
            - {role: system, content: be kind}
            - {role: user, content: hi}
        """,
    )
    ex = fc.explanation
    assert ex.rule == "several visible turns"
    assert ex.trigger_messages == [0, 1] == ex.visible_messages
    assert ex.messages[0].note == "merged into the leading system message"


def test_single_visible_turn_after_guideline_extraction(repo):
    fc = fc_of(
        repo,
        """\
        - id: c
          outcome: o
          input_messages:
            - role: system
              content: [{type: file, value: prompts/style.instructions.md}]
            - {role: user, content: hi}
        """,
    )
    ex = fc.explanation
    assert ex.rule == "single visible turn" and not ex.uses_markers
    assert ex.visible_messages == [1]
    assert fates(fc) == [(0, 0, "guideline extracted"), (1, 0, "text kept")]
    assert "chatPrompt is null" in " ".join(ex.evidence)
    assert fc.lm.question == "hi" and "Be brief." in fc.lm.guidelines


def test_no_visible_content(repo):
    fc = fc_of(
        repo,
        """\
        - id: c
          outcome: o
          input_messages:
            - {role: user, content: "   "}
        """,
    )
    assert fc.explanation.rule == "no visible content"
    assert fates(fc) == [(0, 0, "blank dropped")]


def test_every_segment_fate_is_reported(repo):
    fc = fc_of(
        repo,
        """\
        - id: c
          outcome: o
          input_messages:
            - role: user
              content:
                - {type: text, value: look}
                - {type: text, value: "  "}
                - {type: file, value: prompts/code.py}
                - {type: file, value: /prompts/code.py}
                - {type: file, value: prompts/missing.py}
                - {type: file, value: prompts/style.instructions.md}
                - {type: file, value: ./prompts/style.instructions.md}
                - {type: image, value: x.png}
            - {role: assistant, content: ok}
            - role: user
              content: [not a mapping]
        """,
    )
    assert fates(fc, 0) == [
        (0, 0, "text kept"),
        (0, 1, "blank dropped"),
        (0, 2, "file embedded"),
        (0, 3, "reference not matched"),  # loaded as prompts/code.py, looked up as /prompts/code.py
        (0, 4, "file missing"),
        (0, 5, "guideline marked"),  # <Attached: …> in the turn
        (0, 6, "guideline extracted"),  # in guidelines, but ./ never matches ** as written
        (0, 7, "unknown type dropped"),
    ]
    assert fates(fc, 2) == [(2, 0, "not a mapping")]
    assert fc.explanation.messages[2].note.startswith("dropped")
    assert "<Attached: prompts/style.instructions.md>" in fc.lm.question
    assert "/prompts/code.py" not in fc.lm.question


def test_guideline_only_by_written_path_is_marked_but_sent_nowhere(repo):
    fc = fc_of(
        repo,
        """\
        - id: c
          outcome: o
          input_messages:
            - role: user
              content:
                - {type: text, value: ship?}
                - {type: file, value: checklists/ship.md}
        """,
        name="sub/e.yaml",
    )
    assert fc.lm.question == "ship?\n\n<Attached: checklists/ship.md>"
    assert fc.lm.guidelines == ""
    (fate,) = [s for s in fc.explanation.segments if s.segment_index == 1]
    assert fate.fate == "guideline marked"


def test_flat_explanation_mentions_code_blocks_appended_again(repo):
    fc = fc_of(
        repo,
        """\
        - id: c
          outcome: o
          input_messages:
            - {role: user, content: "fix ```py\\nx=1\\n``` please"}
        """,
    )
    assert fc.lm.question.endswith("```py\nx=1\n```")
    assert any("fenced code block" in e for e in fc.explanation.evidence)


def test_explanation_is_plain_json(repo):
    import json

    fc = fc_of(
        repo,
        """\
        - id: c
          outcome: o
          input_messages:
            - {role: user, content: hi}
        """,
    )
    data = json.loads(json.dumps(fc.explanation.to_json()))
    assert data["rule"] == "single visible turn"
    assert {"message_index", "segment_index", "fate", "detail", "path"} <= set(data["segments"][0])
