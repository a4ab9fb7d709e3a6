"""Formatting a case in its file's dialect: the one entry point (`format_case`). The pipeline is
prompts/engine.py's; the dialect gives it its strategy."""

from __future__ import annotations

from turnlens.formatting.dialects import registry
from turnlens.formatting.model import EvalCase, EvalFile, FormattedCase, Profile
from turnlens.formatting.prompts.engine import format_case_with


def format_case(case: EvalCase, eval_file: EvalFile, profile: Profile = "agentv") -> FormattedCase:
    """Everything the model and the evaluator receive for one case, and why."""
    return format_case_with(registry.named(eval_file.dialect).formatting, case, eval_file, profile)
