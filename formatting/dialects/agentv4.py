"""AgentV 4 (dialect `agentv-4`): everything else AgentV 4.42.4 loads: YAML suites with `tests` and `input`, `.jsonl`
datasets, Agent Skills `evals.json`; its TypeScript suites are recognised and named, not read. Loaded by
evals/agentv4.py, formatted by prompts/agentv4.py, graded by graders/.
"""

from __future__ import annotations

from typing import Any

from turnlens.formatting.dialects.dialect import Dialect, FileType
from turnlens.formatting.evals import agentv4
from turnlens.formatting.model import DialectLabels
from turnlens.formatting.prompts.agentv4 import Formatting

LABELS = DialectLabels("agentv-4", "4.x", "AgentV 4", "systemMessage", False, "default grader", True)

TYPESCRIPT_NOTE = (
    "an AgentV 4 TypeScript suite: AgentV imports it with a TypeScript runtime (bun or a TS loader) and runs its "
    "code to get the tests, so turnlens cannot read it; export its tests to YAML or JSONL to inspect them"
)
FILE_TYPES = (
    FileType(
        (".jsonl",),
        "a `.jsonl` dataset (AgentV 4 reads one test per line, with a `<name>.yaml` sidecar)",
        agentv4.load_jsonl,
        one_test_per_line=True,
    ),
    FileType(
        (".json",), "a `.json` file (AgentV 4 reads it as an Agent Skills `evals.json`)", agentv4.load_skill_evals
    ),
    FileType((".ts", ".mts", ".cts"), "a TypeScript suite (AgentV 4 only)", None, TYPESCRIPT_NOTE),
)


def claims(data: Any) -> str | None:
    """Every file the dialects before it do not claim: the current AgentV reads it as its own format."""
    if isinstance(data, dict):
        if "tests" in data:
            return "it has `tests` and no `input_messages` case (the AgentV 4 format)"
        return "no `$schema: agentv-eval-v2` and no `input_messages` case: read as AgentV 4"
    return "no `$schema: agentv-eval-v2` mapping: read as AgentV 4, as the current AgentV does"


def slice_key(path: str, text: str) -> str | None:
    """A big 4.x suite is cut at `tests` when no case anywhere uses `input_messages` (which would make it 0.15) and
    no `file://` entry is in it (it expands to a number of tests known only when loaded)."""
    return "tests" if "input_messages" not in text and "file://" not in text else None


DIALECT = Dialect(
    labels=LABELS,
    file_types=FILE_TYPES,
    claims=claims,
    load_yaml=agentv4.load_yaml_suite,
    formatting=Formatting(LABELS),
    slice_key=slice_key,
    header_warnings_in_first_slice=True,
)
