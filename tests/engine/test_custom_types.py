"""Where a custom assertion type's definition is found, against the real AgentV 4.42.4 CLI's dry run
(tests/fixtures/custom_types/, made by tests/fixtures/record_custom_types.py): every folder's
`.agentv/assertions/` from the eval file's up past the repository root, nearest first, then `.agentv/graders/` and
`.agentv/judges/`; .js, .mjs, .mts, .ts in name order; never the working folder. No Node.js needed."""

from __future__ import annotations

import json
import os
from pathlib import Path

from turnlens.formatting.dialects.load import load_eval_file

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "custom_types"


def test_custom_types_are_found_where_agentv_finds_them():
    recorded = json.loads((FIXTURE / "found.json").read_text(encoding="utf-8"))
    top = FIXTURE / "layout"
    repo = top / "repo"
    ev = load_eval_file(
        repo / "evals" / "types.eval.yaml", repo_root=str(repo), cwd=str(top / recorded["cwd"]), environ={}
    )
    (case,) = ev.cases
    ours = {
        g.name: os.path.relpath(g.script_path, top) if g.script_path else None
        for g in case.assertions
        if g.type not in ("contains",)
    }
    assert ours == recorded["found"]
    # beyond the repository root: a definition above it is still AgentV's
    assert recorded["found"]["above"] == ".agentv/assertions/above.ts"
