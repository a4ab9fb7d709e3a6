"""Formatting a case in its file's dialect: the one entry point (`format_case`; `case_summary` for what a list
shows of it). The pipeline is prompts/engine.py's; the dialect gives it its strategy."""

from __future__ import annotations

from turnlens.formatting.dialects import registry
from turnlens.formatting.model import EvalCase, EvalFile, FormattedCase, Profile, RuleKind
from turnlens.formatting.prompts.engine import case_summary_with, format_case_with


def format_case(case: EvalCase, eval_file: EvalFile, profile: Profile = "agentv") -> FormattedCase:
    """Everything the model and the evaluator receive for one case, and why."""
    return format_case_with(registry.named(eval_file.dialect).formatting, case, eval_file, profile)


def case_summary(case: EvalCase, eval_file: EvalFile, profile: Profile = "agentv") -> tuple[RuleKind, bool]:
    """(rule, uses_markers) of the case's formatting's explanation, its prompts not rendered."""
    return case_summary_with(registry.named(eval_file.dialect).formatting, case, eval_file, profile)
