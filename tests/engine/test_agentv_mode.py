"""The mode AgentV 4.42.4 formats a test in: agent mode for an agent provider or `cli`, lm mode for the others, from
the target named by the test, the suite or `default`, in the .agentv/targets.yaml the agentv command finds."""

from __future__ import annotations

from turnlens.formatting.dialects.load import load_eval_file

TARGETS = """targets:
  - name: default
    use_target: ${{ TL_TARGET }}
  - name: claude
    provider: claude-cli
  - name: script
    provider: cli
  - name: gpt
    provider: openai
"""


def _modes(tmp_path, suite: str, env: dict[str, str] | None = None) -> dict[str, tuple[str | None, str]]:
    (tmp_path / ".git").mkdir(exist_ok=True)
    (tmp_path / ".agentv").mkdir(exist_ok=True)
    (tmp_path / ".agentv" / "targets.yaml").write_text(TARGETS, encoding="utf-8")
    (tmp_path / "evals").mkdir(exist_ok=True)
    (tmp_path / "evals" / "s.eval.yaml").write_text(suite, encoding="utf-8")
    ev = load_eval_file(tmp_path / "evals" / "s.eval.yaml", cwd=str(tmp_path), environ=env or {})
    return {c.id or "": (c.agentv_mode, c.agentv_mode_reason) for c in ev.cases}


def test_the_default_target_follows_use_target(tmp_path):
    suite = "tests:\n  - {id: a, input: hi, criteria: c}\n"
    assert _modes(tmp_path, suite, {"TL_TARGET": "claude"})["a"] == (
        "agent",
        "target 'default' (none named): provider claude-cli, an agent provider, in .agentv/targets.yaml",
    )
    assert _modes(tmp_path, suite, {"TL_TARGET": "gpt"})["a"][0] == "lm"


def test_the_suite_and_the_test_name_their_target(tmp_path):
    suite = (
        "execution: {target: script}\n"
        "tests:\n  - {id: suite, input: hi, criteria: c}\n"
        "  - {id: own, input: hi, criteria: c, execution: {target: gpt}}\n"
        "  - {id: unknown, input: hi, criteria: c, execution: {target: nope}}\n"
    )
    modes = _modes(tmp_path, suite)
    assert modes["suite"] == (
        "agent",
        "target 'script' (the suite): provider cli, a CLI target, in .agentv/targets.yaml",
    )
    assert modes["own"] == ("lm", "target 'gpt' (the test): provider openai, an LLM, in .agentv/targets.yaml")
    assert modes["unknown"] == ("lm", "target 'nope' (the test) is not in .agentv/targets.yaml")


def test_without_a_targets_file_lm_mode_is_said(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "s.eval.yaml").write_text("tests:\n  - {id: a, input: hi, criteria: c}\n", encoding="utf-8")
    ev = load_eval_file(tmp_path / "s.eval.yaml", cwd=str(tmp_path), environ={})
    assert ev.cases[0].agentv_mode == "lm"
    assert "no .agentv/targets.yaml found" in ev.cases[0].agentv_mode_reason
