"""The formats turnlens recognises but does not read, each by the shape that gives it away (registry.detect asks
after every dialect but the last): a file of such a shape is named, not misread."""

from __future__ import annotations

from typing import Any

# Formats turnlens recognises but does not read, each with the shape that gives it away: until one is read, a file of
# that shape is named, not misread. Reading one makes it a dialect: a module here whose `claims` recognises that
# shape, listed in registry.py before agentv4 (it is then asked first), and its shape can leave this list.
AGENTV5_KEYS = ("prompts", "providers", "default_test", "scenarios", "evaluate_options")
AGENTV5_NOTE = "an AgentV 5 pre-release file; turnlens reads AgentV 4.42.4 and 0.15"


def unread_format(data: Any) -> tuple[str, str] | None:
    """(what the file is, why turnlens says so) for a file shaped for a format turnlens does not read, else None.

    AgentV 5 pre-releases (promptfoo-style): top-level `prompts`, `providers`, `default_test`, `scenarios` or
    `evaluate_options`; or tests without `input` whose text comes from `vars`, graded under `assert:`, with
    `{{ env.X }}`. AgentV 4.42.4 would skip every test of such a file for `input` being undefined."""
    if not isinstance(data, dict) or data.get("$schema") == "agentv-eval-v2":
        return None
    keys = [k for k in AGENTV5_KEYS if k in data]
    if keys:
        return AGENTV5_NOTE, f"it has top-level `{keys[0]}` (AgentV 5's format, not 4.42.4's)"
    tests = data.get("tests")
    if isinstance(tests, list) and tests and all(isinstance(t, dict) for t in tests):
        if not any("input" in t for t in tests) and all("vars" in t for t in tests):
            if any("assert" in t for t in tests) or "{{ env." in repr(tests):
                return AGENTV5_NOTE, "its tests have `vars` and `assert` but no `input` (AgentV 5's format)"
    return None
