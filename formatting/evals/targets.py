"""Which formatting mode AgentV 4.42.4 would use for a test: agent mode (files as references, absolute paths) for an
agent provider or `cli`, lm mode (files embedded) for the others. The target is the test's `execution.target`, else
the suite's (`execution.target`, then `target`), else `default`; its provider is read from the first
`.agentv/targets.yaml` (or `.yml`) found the way the `agentv` command finds it: from the eval file's folder up to the
repository root, then the working folder. `use_target` is followed (up to 5 steps, `${{ VAR }}` read from the
environment). Plain data out; a targets file that cannot be read gives lm mode with the reason.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from turnlens.formatting.evals.files import FileReadError, read_bytes
from turnlens.formatting.evals.paths import dirs_up
from turnlens.formatting.evals.yaml12 import YamlError, parse_yaml
from turnlens.formatting.records import JsonObject

AGENT_PROVIDERS = frozenset(
    (
        "codex",
        "copilot-sdk",
        "copilot-cli",
        "pi-coding-agent",
        "pi-cli",
        "claude",
        "claude-cli",
        "claude-sdk",
        "vscode",
        "vscode-insiders",
    )
)
TARGET_FILES = (".agentv/targets.yaml", ".agentv/targets.yml")
USE_TARGET_STEPS = 5


@dataclass(frozen=True)
class TargetMode:
    """The mode AgentV runs a test in (lm or agent), and why."""

    mode: str  # "lm" or "agent"
    reason: str  # one clause: "target 'claude' (provider claude-cli, .agentv/targets.yaml)"


def find_targets_file(eval_dir: str, repo_root: str, cwd: str) -> str | None:
    folders = dirs_up(os.path.abspath(eval_dir), os.path.abspath(repo_root))
    if os.path.abspath(cwd) not in folders:
        folders.append(os.path.abspath(cwd))
    for folder in folders:
        for candidate in TARGET_FILES:
            path = os.path.join(folder, candidate)
            if os.path.isfile(path):
                return path
    return None


def read_targets(path: str) -> tuple[dict[str, JsonObject], str | None]:
    """name -> definition of a targets file, or ({}, why it could not be read)."""
    try:
        data = parse_yaml(read_bytes(path).decode("utf-8", errors="replace"), merge=True).data
    except (FileReadError, YamlError) as exc:
        return {}, str(exc)
    targets = data.get("targets") if isinstance(data, dict) else None
    if not isinstance(targets, list):
        return {}, "it has no `targets` list"
    out: dict[str, JsonObject] = {}
    for entry in targets:
        if isinstance(entry, dict) and isinstance(entry.get("name"), str) and entry["name"] not in out:
            out[entry["name"]] = entry
    return out, None


def may_name_target(test: Mapping[str, Any]) -> bool:
    """Whether target_name could take the target from `test` itself (its `execution` has a `target`); else its
    answer is the suite's alone, the same for every such test of the suite."""
    execution = test.get("execution")
    return execution is not None and isinstance(execution, Mapping) and execution.get("target") is not None


def target_name(test: Mapping[str, Any] | None, suite: Mapping[str, Any] | None) -> tuple[str, str]:
    """(the target's name, where it was named)."""
    for where, data in (("the test", test), ("the suite", suite)):
        if not isinstance(data, Mapping):
            continue
        execution = data.get("execution")
        named = execution.get("target") if isinstance(execution, Mapping) else None
        if where == "the suite" and not (isinstance(named, str) and named.strip()):
            named = data.get("target")
        if isinstance(named, str) and named.strip():
            return named.strip(), where
    return "default", "none named"


def mode_for(
    name: str,
    named_by: str,
    targets_path: str | None,
    targets: dict[str, JsonObject],
    env: Mapping[str, str],
    shown: str,
) -> TargetMode:
    """The mode AgentV formats a test in, for target `name`; `shown` is the targets file as the user sees it."""
    if targets_path is None:
        return TargetMode("lm", f"target '{name}' ({named_by}); no .agentv/targets.yaml found, so lm mode")
    definition = targets.get(name)
    steps = 0
    while definition is not None and steps < USE_TARGET_STEPS:
        use = definition.get("use_target")
        if use is None or not str(use).strip():
            break
        text = str(use).strip()
        if text.startswith("${{") and text.endswith("}}"):
            text = env.get(text[3:-2].strip(), "")
        if not text.strip():
            break
        definition = targets.get(text.strip())
        steps += 1
    if definition is None:
        return TargetMode("lm", f"target '{name}' ({named_by}) is not in {shown}")
    provider = definition.get("provider")
    provider_text = provider if isinstance(provider, str) else "?"
    agent = provider_text in AGENT_PROVIDERS or provider_text == "cli"
    kind = "an agent provider" if provider_text in AGENT_PROVIDERS else ("a CLI target" if agent else "an LLM")
    return TargetMode(
        "agent" if agent else "lm", f"target '{name}' ({named_by}): provider {provider_text}, {kind}, in {shown}"
    )
