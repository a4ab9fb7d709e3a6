"""AgentV 0.15 (dialect `agentv-0.15`): `$schema: agentv-eval-v2`, `evalcases` with `input_messages`, guidelines;
also the 1.x–3.x files that renamed `outcome` to `expected_outcome`. Loaded by evals/agentv015.py, formatted by
prompts/agentv015.py (AgentV 0.15.1's rules).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from turnlens.formatting.dialects.dialect import Dialect
from turnlens.formatting.dialects.discover import declares_v2_schema
from turnlens.formatting.evals.yaml12 import YamlDoc
from turnlens.formatting.model import DialectLabels, EvalFile
from turnlens.formatting.prompts.agentv015 import Formatting
from turnlens.formatting.records import JsonArray, JsonObject

LABELS = DialectLabels("agentv-0.15", "0.15", "AgentV 0.15", "guidelines", True, "default evaluator", False)


def claims(data: Any) -> str | None:
    """Why a parsed file is a 0.15 file: it declares the v2 schema, or a case uses `input_messages`."""
    if not isinstance(data, dict):
        return None
    if data.get("$schema") == "agentv-eval-v2":
        return "it declares `$schema: agentv-eval-v2` (the AgentV 0.15 format)"
    cases = _cases_of(data)
    with_messages = sum(1 for c in cases if isinstance(c, dict) and "input_messages" in c)
    if with_messages:
        return f"{with_messages} of its {len(cases)} cases use `input_messages` (the AgentV 0.15–3.x format)"
    return None


def _cases_of(data: JsonObject) -> JsonArray:
    for key in ("evalcases", "tests", "eval_cases"):
        value = data.get(key)
        if isinstance(value, list):
            return value
    return []


def load_yaml(
    result: EvalFile, doc: YamlDoc, text: str, cwd: str, environ: Mapping[str, str] | None, first_case_index: int
) -> EvalFile:
    # The loader is imported when a 0.15 file is first read, not with the registry (an AgentV 4 file's first case is
    # shown without it).
    from turnlens.formatting.evals import agentv015  # here, not at the top: see above

    return agentv015.load_suite(result, doc, cwd, first_case_index, text=text, environ=environ)


def slice_key(path: str, text: str) -> str | None:
    """A big 0.15 file is cut at `evalcases` when it declares its schema (so that every slice is read as 0.15)."""
    return "evalcases" if declares_v2_schema(path) else None


DIALECT = Dialect(
    labels=LABELS,
    file_types=(),
    claims=claims,
    load_yaml=load_yaml,
    formatting=Formatting(LABELS),
    slice_key=slice_key,
    header_warnings_in_first_slice=False,
)
