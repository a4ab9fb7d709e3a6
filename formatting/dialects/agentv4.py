"""AgentV 4 (dialect `agentv-4`): everything else AgentV 4.42.4 loads: YAML suites with `tests` and `input`, `.jsonl`
datasets, Agent Skills `evals.json`; its TypeScript suites are recognised and named, not read. Loaded by
evals/agentv4.py, formatted by prompts/agentv4.py, graded by graders/.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from turnlens.formatting.dialects.dialect import Dialect, FileType
from turnlens.formatting.evals.yaml12 import YamlDoc
from turnlens.formatting.model import DialectLabels, EvalFile
from turnlens.formatting.prompts.agentv4 import Formatting

LABELS = DialectLabels("agentv-4", "4.x", "AgentV 4", "systemMessage", False, "default grader", True)

# The loader (evals/agentv4.py, with its graders', targets' and .env readers: ~7 ms of imports) is imported when a
# file of this dialect is first read, not with the registry: a 0.15 file's first case is shown without it.


def load_yaml(
    result: EvalFile, doc: YamlDoc, text: str, cwd: str, environ: Mapping[str, str] | None, first_case_index: int
) -> EvalFile:
    from turnlens.formatting.evals import agentv4  # here, not at the top: see above

    return agentv4.load_yaml_suite(result, doc, text, cwd, environ, first_case_index)


def load_jsonl(
    result: EvalFile, text: str, cwd: str, environ: Mapping[str, str] | None, first_case_index: int
) -> EvalFile:
    from turnlens.formatting.evals import agentv4  # here, not at the top: see above

    return agentv4.load_jsonl(result, text, cwd, environ, first_case_index)


def load_skill_evals(
    result: EvalFile, text: str, cwd: str, environ: Mapping[str, str] | None, first_case_index: int
) -> EvalFile:
    from turnlens.formatting.evals import agentv4  # here, not at the top: see above

    return agentv4.load_skill_evals(result, text, cwd, environ, first_case_index)


TYPESCRIPT_NOTE = (
    "an AgentV 4 TypeScript suite: AgentV imports it with a TypeScript runtime (bun or a TS loader) and runs its "
    "code to get the tests, so turnlens cannot read it; export its tests to YAML or JSONL to inspect them"
)
FILE_TYPES = (
    FileType(
        (".jsonl",),
        "a `.jsonl` dataset (AgentV 4 reads one test per line, with a `<name>.yaml` sidecar)",
        load_jsonl,
        one_test_per_line=True,
    ),
    FileType((".json",), "a `.json` file (AgentV 4 reads it as an Agent Skills `evals.json`)", load_skill_evals),
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
    load_yaml=load_yaml,
    formatting=Formatting(LABELS),
    slice_key=slice_key,
    header_warnings_in_first_slice=True,
)
