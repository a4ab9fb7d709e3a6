"""Byte-exactness against AgentV 4.42.4: every recording of tests/fixtures/oracle4/ (the generated corpus4, the
probes published with the oracle, sample_evals/evals/) must equal what the engine exports for the same file, run
as the oracle was run (same root, working directory and environment): lm/agent question, chatPrompt,
systemMessage, the default grader prompt, the skipped tests, every warning and skip message of the reference (word
for word among ours), and a refused file's reason (the reference's text inside ours).

Recordings: tests/fixtures/record_oracle4.py (needs Node.js; the command of each is in manifest.json). These tests
never run Node.js. Known, accepted differences are listed in tests/fixtures/oracle4/known_mismatches.txt as
"fixture :: test :: field" lines (each with a comment saying why): they make the test xfail; anything else fails.

Progress without pytest: `.venv/bin/python tests/fixtures/oracle4/compare.py` (runs `turnlens export` per file).
"""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
ORACLE4 = REPO / "tests" / "fixtures" / "oracle4"
KNOWN = ORACLE4 / "known_mismatches.txt"
sys.path.insert(0, str(ORACLE4))

import compare  # noqa: E402  (tests/fixtures/oracle4/compare.py, a helper module)

_MANIFEST = compare.load_manifest()
_KEYS = list(_MANIFEST["fixtures"])


def load_known() -> set[tuple[str, str, str]]:
    known: set[tuple[str, str, str]] = set()
    if KNOWN.exists():
        for line in KNOWN.read_text(encoding="utf-8").splitlines():
            if line.strip() and not line.lstrip().startswith("#"):
                parts = tuple(p.strip() for p in line.split("::"))
                if len(parts) == 3:
                    known.add(parts)  # type: ignore[arg-type]
    return known


@contextmanager
def chdir(path: Path):
    old = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(old)


def engine_load(entry: dict, profile: str = "agentv") -> tuple[list[dict], str | None, list[str]]:
    """Our export rows, refusal (file:line: message) and every diagnostic's message, for one fixture."""
    from turnlens.formatting.dialects.load import load_eval_file
    from turnlens.formatting.export.evals import iter_rows

    eval_path, root, cwd = compare.paths_for(entry)
    with chdir(cwd):
        ev = load_eval_file(
            os.path.relpath(eval_path, cwd), repo_root=str(root), cwd=str(cwd), environ=compare.environment_for(entry)
        )
        if ev.error is not None:
            return [], str(ev.error), []
        rows = list(iter_rows(ev, profile))
    warnings = [d.message for d in ev.diagnostics] + [d.message for c in ev.cases for d in c.diagnostics]
    return rows, None, warnings


def engine_rows(entry: dict, profile: str = "agentv") -> tuple[list[dict], str | None]:
    rows, error, _ = engine_load(entry, profile)
    return rows, error


def without_skip_order(mismatches: list, oracle, rows: list[dict]) -> list:
    """The reference prints its skip warnings in more than one pass (incomplete tests, then entries that are not
    objects, then bad graders), so their order says nothing about the file: the skipped tests are compared as a
    multiset."""
    skip = [m for m in mismatches if m.field == "skipped"]
    if not skip:
        return mismatches
    ours = [r.get("id") for r in rows if "skipped" in r]
    theirs = list(oracle.skipped)
    for label in list(theirs):
        hit = next((i for i, our in enumerate(ours) if compare._skip_matches(label, our) and (label is not None)), None)
        if hit is None and label is None:
            hit = next((i for i, our in enumerate(ours) if our is None), None)
        if hit is not None:
            ours.pop(hit)
            theirs.remove(label)
    if not ours and not theirs:
        return [m for m in mismatches if m.field != "skipped"]
    return mismatches


@pytest.mark.parametrize("fixture", _KEYS)
def test_engine_matches_oracle4(fixture):
    entry = _MANIFEST["fixtures"][fixture]
    if entry.get("oracle_crash"):
        pytest.skip(f"the oracle itself crashes on this file ({entry['oracle_crash']}): nothing to compare")
    oracle = compare.read_fixture(fixture, manifest=_MANIFEST)
    rows, error, warnings = engine_load(entry)
    mismatches = without_skip_order(compare.compare(oracle, rows, error, warnings), oracle, rows)
    known = load_known()
    new = [m for m in mismatches if (fixture, m.test, m.field) not in known]
    if new:
        shown = "\n".join(f"  {m}" for m in new[:8])
        more = f"\n  ... and {len(new) - 8} more" if len(new) > 8 else ""
        pytest.fail(f"{fixture}: differs from AgentV 4.42.4; command: {entry['command']}\n{shown}{more}", pytrace=False)
    if mismatches:
        pytest.xfail(f"{len(mismatches)} known mismatches (tests/fixtures/oracle4/known_mismatches.txt)")


@pytest.mark.parametrize("fixture", [k for k in _KEYS if not _MANIFEST["fixtures"][k].get("load_error")][:60])
def test_design_profile_keeps_question_and_system_message(fixture):
    """The design profile changes only chatPrompt (a chatPrompt for every test)."""
    entry = _MANIFEST["fixtures"][fixture]
    if entry.get("oracle_crash"):
        pytest.skip("oracle crash")
    agentv, _ = engine_rows(entry)
    design, _ = engine_rows(entry, profile="design")
    for a, d in zip(agentv, design):
        if "skipped" in a or a.get("dialect") != "agentv-4":
            continue
        for mode in ("lm", "agent"):
            assert d[mode]["question"] == a[mode]["question"]
            assert d[mode]["systemMessage"] == a[mode]["systemMessage"]
            assert isinstance(d[mode]["chatPrompt"], list)
        assert d["evaluator_prompt"] == a["evaluator_prompt"]


def test_known_mismatches_are_still_mismatches():
    """A known-mismatch line that no longer differs is stale: remove it."""
    known = load_known()
    stale = []
    by_fixture: dict[str, set[tuple[str, str]]] = {}
    for fixture, test, field in known:
        by_fixture.setdefault(fixture, set()).add((test, field))
    for fixture, wanted in by_fixture.items():
        entry = _MANIFEST["fixtures"].get(fixture)
        if entry is None:
            stale.append(f"{fixture} (no such fixture)")
            continue
        rows, error, warnings = engine_load(entry)
        oracle = compare.read_fixture(fixture, manifest=_MANIFEST)
        mismatches = compare.compare(oracle, rows, error, warnings)
        found = {(m.test, m.field) for m in without_skip_order(mismatches, oracle, rows)}
        stale += [f"{fixture} :: {t} :: {f}" for t, f in wanted - found]
    assert not stale, "stale known mismatches:\n" + "\n".join(stale)
