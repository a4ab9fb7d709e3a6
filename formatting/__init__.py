"""turnlens' engine: AgentV-style eval cases -> question, guidelines, chatPrompt, evaluator prompt, and why.

Pure Python, plain data out. Never imports textual or rich (tests/test_import_hygiene.py proves it).

Public API (stable for the TUI and the exporters):

    load_eval_file(path, repo_root=None, cwd=None) -> EvalFile       # never raises for bad input
    format_case(case, eval_file, profile="agentv") -> FormattedCase   # skipped cases: raises ValueError
    format_file(eval_file, profile="agentv") -> list[FormattedCase | EvalCase]  # EvalCase where skipped
    find_repo_root(cwd=None) -> str
    looks_like_eval_file(path) -> bool                                 # cheap `$schema: agentv-eval-v2` sniff
    export_rows(path, repo_root=None, profile="agentv") -> (rows: list[dict], error: Diagnostic | None)

Names are imported on first use, so that `import formatting.results` (the results viewer's first frame) does not
pay for the eval loader, the engine and the YAML layer.
"""

from __future__ import annotations

import importlib
from typing import Any

_LAZY = {
    "find_repo_root": "loader",
    "load_eval_file": "loader",
    "looks_like_eval_file": "loader",
    "format_case": "engine",
    "format_file": "engine",
    "export_rows": "export",
}
_MODEL_NAMES = (
    "MODES",
    "PROFILES",
    "ChatMessage",
    "Diagnostic",
    "EvalCase",
    "EvalFile",
    "Explanation",
    "FormattedCase",
    "GuidelineConfig",
    "Message",
    "MessageFate",
    "Mode",
    "Profile",
    "Rendered",
    "RuleKind",
    "Segment",
    "SegmentFate",
    "SegmentFateKind",
    "Severity",
)
_LAZY.update({name: "model" for name in _MODEL_NAMES})

__all__ = sorted(_LAZY)


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'formatting' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"turnlens.formatting.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
