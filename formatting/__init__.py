"""turnlens' engine: AgentV-style eval cases -> question, guidelines, chatPrompt, evaluator prompt, and why.

Pure Python, plain data out. Never imports textual or rich (tests/test_import_hygiene.py proves it).

Public API (stable for the TUI and the exporters):

    load_eval_file(path, repo_root=None, cwd=None) -> EvalFile       # never raises for bad input
    format_case(case, eval_file, profile="agentv") -> FormattedCase   # skipped cases: raises ValueError
    format_file(eval_file, profile="agentv") -> list[FormattedCase | EvalCase]  # EvalCase where skipped
    find_repo_root(cwd=None) -> str
    looks_like_eval_file(path) -> bool                                 # cheap `$schema: agentv-eval-v2` sniff
    export_rows(path, repo_root=None, profile="agentv") -> (rows: list[dict], error: Diagnostic | None)
"""

from .model import *  # noqa: F401,F403
from .loader import find_repo_root, load_eval_file, looks_like_eval_file  # noqa: F401
from .engine import format_case, format_file  # noqa: F401
from .export import export_rows  # noqa: F401
