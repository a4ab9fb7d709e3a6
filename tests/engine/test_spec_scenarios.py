"""One test per scenario of the eval-execution spec (003): each writes a small eval into tmp_path, exports it with
the engine, and checks the strings against the oracle's recording (tests/fixtures/scenarios/<name>.jsonl, made by
tests/fixtures/record_oracle.py from the very files SCENARIOS describes) and the marker rule the explanation names.

The spec's own wording is also checked on the recorded strings, so each test documents what the reference does.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCENARIO_DIR = REPO / "tests" / "fixtures" / "scenarios"
ROOT_PLACEHOLDER = "<ROOT>"

# "shared/*.md" matches a reference written as shared/x.md from evals/ (format time) but not its path from the root
# (load time): the flat question then shows <Attached: shared/tone.md>
CONFIG = '$schema: agentv-config-v2\nguideline_patterns:\n  - "**/*.instructions.md"\n  - shared/*.md\n'
STYLE = "# Support style\n\nBe brief and kind.\n"
ORDER_PY = "def refund(order):\n    return order.total\n"
LOG = "ERROR payment declined\nretry=3\n"

COMMON = {
    ".agentv/config.yaml": CONFIG,
    "prompts/support.instructions.md": STYLE,
    "evals/refund.py": ORDER_PY,
    "evals/payment.log": LOG,
    "evals/shared/tone.md": "Warm tone.\n",
}


def _eval(cases: str) -> str:
    return "$schema: agentv-eval-v2\nevalcases:\n" + cases


# name -> files (relative to the root), the eval file, and the marker rule expected for each case id
SCENARIOS: dict[str, dict] = {
    "two_message_conversation": {
        "rules": {"sys-and-user": "several visible turns"},
        "eval": _eval("""\
  - id: sys-and-user
    outcome: Explains where the order is.
    input_messages:
      - role: system
        content:
          - type: file
            value: ../prompts/support.instructions.md
          - type: text
            value: You are a support agent for an online shop.
      - role: user
        content: Where is my order 1234?
"""),
    },
    "single_visible_message": {
        "rules": {
            "one-user": "single visible turn",
            "blank-system-and-user": "single visible turn",
            "guideline-and-user": "single visible turn",
            "guideline-as-root-path": "single visible turn",
            "attached-marker": "single visible turn",
        },
        "eval": _eval("""\
  - id: one-user
    outcome: Says hello.
    input_messages:
      - role: user
        content: Say hello to the customer.
  - id: blank-system-and-user
    outcome: Says hello.
    input_messages:
      - role: system
        content: "   "
      - role: user
        content: Say hello to the customer.
  - id: guideline-and-user
    outcome: Says hello.
    input_messages:
      - role: user
        content:
          - type: file
            value: /prompts/support.instructions.md
          - type: text
            value: Say hello to the customer.
  - id: guideline-as-root-path
    outcome: Says hello.
    input_messages:
      - role: user
        content:
          - type: file
            value: prompts/support.instructions.md
          - type: text
            value: Say hello to the customer.
  - id: attached-marker
    outcome: Says hello.
    input_messages:
      - role: user
        content:
          - type: file
            value: shared/tone.md
          - type: text
            value: Say hello to the customer.
"""),
    },
    "system_file_attachment_with_user": {
        "rules": {"system-files": "several visible turns"},
        "eval": _eval("""\
  - id: system-files
    outcome: Finds the refund bug.
    input_messages:
      - role: system
        content:
          - type: file
            value: /prompts/support.instructions.md
          - type: file
            value: refund.py
      - role: user
        content: Why are refunds wrong?
"""),
    },
    "multi_turn_non_user_messages": {
        "rules": {"with-tool": "non-user turn", "with-assistant": "non-user turn"},
        "eval": _eval("""\
  - id: with-tool
    outcome: Reads the log and retries.
    input_messages:
      - role: user
        content: My payment failed.
      - role: assistant
        content: Let me check the payment log.
      - role: tool
        content:
          - type: file
            value: payment.log
      - role: user
        content: What went wrong?
  - id: with-assistant
    outcome: Follows up.
    input_messages:
      - role: user
        content: Hi
      - role: assistant
        content: Hello! How can I help?
      - role: user
        content: I need a refund.
"""),
    },
    "multi_turn_files_and_guidelines": {
        "rules": {"files-and-guidelines": "non-user turn"},
        "eval": _eval("""\
  - id: files-and-guidelines
    outcome: Reviews the refund code politely.
    input_messages:
      - role: user
        content:
          - type: file
            value: /prompts/support.instructions.md
          - type: text
            value: Please review my code.
      - role: assistant
        content: Sure, send it over.
      - role: user
        content:
          - type: file
            value: refund.py
          - type: text
            value: Here it is.
"""),
    },
    "rule_detection": {
        "rules": {
            "assistant-present": "non-user turn",
            "tool-present": "non-user turn",
            "two-users": "several visible turns",
            "system-and-user": "several visible turns",
            "blank-system-user": "single visible turn",
            "guideline-only-system": "single visible turn",
            "all-blank": "no visible content",
            "empty-input": "no visible content",
        },
        "eval": _eval("""\
  - id: assistant-present
    outcome: x
    input_messages:
      - {role: assistant, content: I answered before.}
      - {role: user, content: And now?}
  - id: tool-present
    outcome: x
    input_messages:
      - {role: user, content: Look it up.}
      - {role: tool, content: "{\\"found\\": true}"}
  - id: two-users
    outcome: x
    input_messages:
      - {role: user, content: First question.}
      - {role: user, content: Second question.}
  - id: system-and-user
    outcome: x
    input_messages:
      - {role: system, content: Be terse.}
      - {role: user, content: Question.}
  - id: blank-system-user
    outcome: x
    input_messages:
      - {role: system, content: ""}
      - {role: user, content: Question.}
  - id: guideline-only-system
    outcome: x
    input_messages:
      - role: system
        content:
          - {type: file, value: ../prompts/support.instructions.md}
      - {role: user, content: Question.}
  - id: all-blank
    outcome: x
    input_messages:
      - {role: system, content: " "}
      - {role: user, content: ""}
  - id: empty-input
    outcome: x
    input_messages: []
"""),
    },
    "order_preservation": {
        "rules": {"ends-with-user": "non-user turn", "ends-with-assistant": "non-user turn"},
        "eval": _eval("""\
  - id: ends-with-user
    outcome: x
    input_messages:
      - {role: system, content: S-one}
      - {role: user, content: U-two}
      - {role: assistant, content: A-three}
      - {role: user, content: U-four}
      - {role: assistant, content: A-five}
      - {role: user, content: U-six}
  - id: ends-with-assistant
    outcome: x
    input_messages:
      - {role: user, content: U-one}
      - {role: assistant, content: A-two}
"""),
    },
    "evaluator_prompt_multi_turn": {
        "rules": {"multi-turn-eval": "non-user turn"},
        "eval": _eval("""\
  - id: multi-turn-eval
    outcome: Offers a refund politely.
    input_messages:
      - role: system
        content:
          - {type: file, value: ../prompts/support.instructions.md}
          - {type: text, value: You handle refunds.}
      - {role: user, content: I want my money back.}
      - {role: assistant, content: Can you share the order number?}
      - {role: user, content: It is 1234.}
    expected_messages:
      - {role: assistant, content: Refund issued for order 1234.}
"""),
    },
    "evaluator_prompt_single_turn": {
        "rules": {"single-turn-eval": "single visible turn"},
        "eval": _eval("""\
  - id: single-turn-eval
    outcome: Gives the capital.
    input_messages:
      - {role: user, content: What is the capital of France?}
    expected_messages:
      - {role: assistant, content: Paris.}
"""),
    },
    "evaluator_same_as_candidate": {
        "rules": {"flat": "single visible turn", "marked": "non-user turn", "with-file": "several visible turns"},
        "eval": _eval("""\
  - id: flat
    outcome: x
    input_messages:
      - {role: user, content: "Explain:\\n```py\\nprint(1)\\n```"}
  - id: marked
    outcome: x
    input_messages:
      - {role: user, content: Hi}
      - {role: assistant, content: Hello}
      - {role: user, content: Bye}
  - id: with-file
    outcome: x
    input_messages:
      - role: system
        content:
          - {type: file, value: refund.py}
      - {role: user, content: Review it.}
"""),
    },
}

EVAL_REL = "evals/scenario.yaml"


def scenario_files(name: str) -> dict[str, str]:
    return {**COMMON, EVAL_REL: SCENARIOS[name]["eval"]}


def write_scenario(name: str, root: Path) -> tuple[str, str]:
    """Write the scenario's files under root; return the eval path (relative to root) and a digest of the inputs."""
    files = scenario_files(name)
    digest = hashlib.sha256()
    for rel in sorted(files):
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(files[rel], encoding="utf-8", newline="\n")
        digest.update(rel.encode() + b"\0" + files[rel].encode() + b"\0")
    return EVAL_REL, digest.hexdigest()


# ------------------------------------------------------------------------------------------------ helpers


@pytest.fixture(scope="module")
def export_rows():
    try:
        from turnlens.formatting.export.evals import export_rows
    except Exception as exc:
        pytest.skip(f"engine not importable: {type(exc).__name__}: {exc}")
    return export_rows


def recorded(name: str, root: Path, digest: str) -> dict[str, dict]:
    manifest = json.loads((SCENARIO_DIR / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["scenarios"][name]["inputs_sha256"] == digest, (
        f"scenario {name} changed since it was recorded: run tests/fixtures/record_oracle.py --only scenarios"
    )
    cases = {}
    for line in (SCENARIO_DIR / f"{name}.jsonl").read_text(encoding="utf-8").split("\n"):
        if not line.strip():
            continue
        obj = json.loads(line.replace(ROOT_PLACEHOLDER, str(root)))
        if "lm" in obj:
            cases[obj["id"]] = obj
    return cases


def run(name: str, tmp_path: Path, monkeypatch, export_rows) -> tuple[dict, dict]:
    """(oracle cases by id, engine rows by id), after checking every recorded string and rule."""
    root = tmp_path.resolve()
    eval_rel, digest = write_scenario(name, root)
    oracle = recorded(name, root, digest)
    monkeypatch.chdir(root)
    rows, error = export_rows(str(root / eval_rel), repo_root=str(root), profile="agentv", cwd=str(root))
    assert error is None, f"engine refused the scenario: {error}"
    engine = {r["id"]: r for r in rows if "skipped" not in r}
    assert sorted(engine) == sorted(oracle)
    for cid, want in oracle.items():
        got = engine[cid]
        for mode in ("lm", "agent"):
            for key in ("question", "guidelines", "chatPrompt"):
                assert got[mode][key] == want[mode][key], f"{cid}: {mode}.{key}"
        assert got["evaluator_prompt"] == want["evaluator_prompt"], f"{cid}: evaluator_prompt"
        assert got["markers"]["rule"] == SCENARIOS[name]["rules"][cid], f"{cid}: marker rule"
    assert set(SCENARIOS[name]["rules"]) == set(oracle), "every recorded case has an expected rule"
    for cid, row in engine.items():
        # the roles as the engine read them (the strings above already prove it read the input right)
        check_explanation(cid, row["markers"], [m["role"] for m in row["markers"]["messages"]])
    return oracle, engine


def check_explanation(cid: str, markers: dict, roles: list) -> None:
    """The rule names its evidence (trigger messages, visible messages) consistently."""
    rule, trigger, visible = markers["rule"], markers["trigger_messages"], markers["visible_messages"]
    assert markers["uses_markers"] == (rule in ("non-user turn", "several visible turns")), cid
    assert markers["summary"].strip(), f"{cid}: empty summary"
    if rule == "non-user turn":
        first = next(i for i, r in enumerate(roles) if r in ("assistant", "tool"))
        assert trigger and trigger[0] == first, f"{cid}: names the first assistant/tool message"
        assert all(roles[i] in ("assistant", "tool") for i in trigger), cid
    elif rule == "several visible turns":
        assert len(visible) >= 2 and trigger == visible, cid
    elif rule == "single visible turn":
        assert len(visible) == 1, cid
    else:
        assert visible == [] and trigger == [], cid


def question_section(evaluator_prompt: str) -> str:
    return evaluator_prompt.split("[[ ## question ## ]]\n", 1)[1].split("\n\n[[ ## reference_answer ## ]]", 1)[0]


# ------------------------------------------------------------------------------------------------ Message Formatting


def test_two_message_conversation_uses_role_markers(tmp_path, monkeypatch, export_rows):
    oracle, _ = run("two_message_conversation", tmp_path, monkeypatch, export_rows)
    lm = oracle["sys-and-user"]["lm"]
    assert lm["question"].startswith("@[System]:\n")
    assert "\n\n@[User]:\nWhere is my order 1234?" in lm["question"]
    assert "Be brief and kind." in lm["guidelines"] and "Be brief and kind." not in lm["question"]


def test_single_visible_message_stays_flat(tmp_path, monkeypatch, export_rows):
    oracle, _ = run("single_visible_message", tmp_path, monkeypatch, export_rows)
    for case in oracle.values():
        assert "@[" not in case["lm"]["question"] and case["lm"]["chatPrompt"] is None
    assert oracle["one-user"]["lm"]["question"] == "Say hello to the customer."
    assert "Be brief and kind." in oracle["guideline-and-user"]["lm"]["guidelines"]
    assert oracle["attached-marker"]["lm"]["question"].startswith("<Attached: shared/tone.md>")


def test_system_file_attachment_with_user_message(tmp_path, monkeypatch, export_rows):
    oracle, _ = run("system_file_attachment_with_user", tmp_path, monkeypatch, export_rows)
    case = oracle["system-files"]
    assert case["guideline_paths"] == ["prompts/support.instructions.md"]
    assert "Be brief and kind." in case["lm"]["guidelines"]
    q = case["lm"]["question"]
    assert q.startswith("@[System]:\n") and '<file path="refund.py">\n' + ORDER_PY + "</file>" in q
    assert q.endswith("@[User]:\nWhy are refunds wrong?")


def test_multi_turn_conversation_with_non_user_messages(tmp_path, monkeypatch, export_rows):
    oracle, _ = run("multi_turn_non_user_messages", tmp_path, monkeypatch, export_rows)
    case = oracle["with-tool"]
    lm, agent = case["lm"]["question"], case["agent"]["question"]
    for role in ("User", "Assistant", "Tool"):
        assert f"@[{role}]:\n" in lm
    assert '@[Tool]:\n<file path="payment.log">\n' + LOG + "</file>" in lm
    assert '@[Tool]:\n<file: path="payment.log">' in agent
    assert "\n\n@[User]:\nWhat went wrong?" in lm


def test_multi_turn_with_file_references_and_guidelines(tmp_path, monkeypatch, export_rows):
    oracle, _ = run("multi_turn_files_and_guidelines", tmp_path, monkeypatch, export_rows)
    case = oracle["files-and-guidelines"]
    q = case["lm"]["question"]
    assert "Be brief and kind." in case["lm"]["guidelines"] and "Be brief and kind." not in q
    assert "<Attached: /prompts/support.instructions.md>" in q.split("@[Assistant]:")[0]
    assert '<file path="refund.py">' in q.split("@[Assistant]:")[1]


# ------------------------------------------------------------------------------------------------ Role Marker Decision


def test_detecting_when_role_markers_are_needed(tmp_path, monkeypatch, export_rows):
    oracle, engine = run("rule_detection", tmp_path, monkeypatch, export_rows)
    for cid, case in oracle.items():
        marked = case["lm"]["question"].startswith("@[")
        assert marked == (SCENARIOS["rule_detection"]["rules"][cid] in ("non-user turn", "several visible turns"))
        assert engine[cid]["markers"]["uses_markers"] == marked, cid


def test_preserving_message_order(tmp_path, monkeypatch, export_rows):
    oracle, _ = run("order_preservation", tmp_path, monkeypatch, export_rows)
    q = oracle["ends-with-user"]["lm"]["question"]
    words = ["S-one", "U-two", "A-three", "U-four", "A-five", "U-six"]
    assert [q.index(w) for w in words] == sorted(q.index(w) for w in words)
    assert q.endswith("@[User]:\nU-six")
    assert oracle["ends-with-assistant"]["lm"]["question"].endswith("@[Assistant]:\nA-two")


# ------------------------------------------------------------------------------------------------ Evaluator Prompt


def test_multi_turn_conversation_evaluation(tmp_path, monkeypatch, export_rows):
    oracle, _ = run("evaluator_prompt_multi_turn", tmp_path, monkeypatch, export_rows)
    case = oracle["multi-turn-eval"]
    prompt = case["evaluator_prompt"]
    assert question_section(prompt) == case["lm"]["question"] and "@[Assistant]:" in question_section(prompt)
    assert "Be brief and kind." not in prompt  # guidelines are not duplicated into the evaluator prompt


def test_single_turn_conversation_evaluation(tmp_path, monkeypatch, export_rows):
    oracle, _ = run("evaluator_prompt_single_turn", tmp_path, monkeypatch, export_rows)
    prompt = oracle["single-turn-eval"]["evaluator_prompt"]
    assert question_section(prompt) == "What is the capital of France?"
    assert "@[" not in prompt and "[[ ## reference_answer ## ]]\nParis." in prompt


def test_evaluator_receives_same_context_as_candidate(tmp_path, monkeypatch, export_rows):
    oracle, engine = run("evaluator_same_as_candidate", tmp_path, monkeypatch, export_rows)
    for cid, case in oracle.items():
        assert question_section(case["evaluator_prompt"]) == case["lm"]["question"], cid
        assert question_section(engine[cid]["evaluator_prompt"]) == engine[cid]["lm"]["question"], cid
