"""The AgentV 4.42.4 corpus and its oracle recordings are consistent (no Node.js, no engine needed): the committed
corpus is what its generator writes, every corpus file is recorded, no recording is stale, and the comparison
helper reads the recordings. The engine's byte-for-byte comparison lives with the engine's tests."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "corpus4"
ORACLE4 = ROOT / "tests" / "fixtures" / "oracle4"
sys.path.insert(0, str(ORACLE4))

import compare  # noqa: E402  (tests/fixtures/oracle4/compare.py: a helper module, not a test module)


def _tree(base: Path, names: tuple[str, ...]) -> dict[str, bytes]:
    out = {}
    for name in names:
        for p in sorted((base / name).rglob("*")):
            if p.is_file():
                out[p.relative_to(base).as_posix()] = p.read_bytes()
            elif p.is_dir() and not any(p.iterdir()):
                out[p.relative_to(base).as_posix() + "/"] = b""
    return out


def test_corpus_is_what_the_generator_writes(tmp_path):
    # loaded under its own name: tests/corpus/generate.py is imported as `generate` by the 0.15 golden tests
    spec = importlib.util.spec_from_file_location("corpus4_generate", CORPUS / "generate.py")
    assert spec and spec.loader
    generate = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generate)
    generate.write(tmp_path)
    assert (tmp_path / "layouts.json").read_bytes() == (CORPUS / "layouts.json").read_bytes()
    assert _tree(tmp_path, generate.GENERATED) == _tree(CORPUS, generate.GENERATED)


def test_every_corpus_file_is_recorded_and_no_recording_is_stale():
    manifest = compare.load_manifest()
    layouts = json.loads((CORPUS / "layouts.json").read_text(encoding="utf-8"))
    for name, lay in layouts["layouts"].items():
        for rel in lay["evals"]:
            assert f"corpus4/{name}/{rel}" in manifest["fixtures"], f"{name}/{rel} not recorded"
    for key, entry in manifest["fixtures"].items():
        path = ROOT / entry["eval"]
        assert (ORACLE4 / entry["output"]).is_file(), key
        digest = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "missing"
        assert digest == entry["eval_sha256"], f"{key}: the eval file changed since it was recorded"


def test_corpus_is_large_and_covers_loads_skips_and_refusals():
    fx = compare.load_manifest()["fixtures"].values()
    assert sum(f["tests"] for f in fx) >= 500
    assert sum(f["skipped"] for f in fx) >= 100
    assert sum(f["load_error"] for f in fx) >= 40


def test_fixtures_read_back_with_paths_filled_in():
    manifest = compare.load_manifest()
    oracle = compare.read_fixture("corpus4/suites/evals/files.eval.yaml", manifest=manifest)
    agent = next(t for t in oracle.tests if t["id"] == "file-plain")["agent"]["question"]
    assert str(CORPUS / "suites" / "files" / "code.py") in agent and "<ROOT>" not in agent
    skips = compare.read_fixture("corpus4/suites/evals/skips.eval.yaml", manifest=manifest).skipped
    assert skips[:6] == ["unknown"] * 5 + [""] and None in skips and "grader-command-file-missing" in skips
    refused = compare.read_fixture("corpus4/refused/evals/duplicate-key.eval.yaml", manifest=manifest)
    assert refused.load_error and not refused.tests


def test_compare_reports_each_field_and_accepts_an_exact_copy():
    oracle = compare.read_fixture("probes/load/l06-aliases.eval.yaml")
    rows = [dict(t, dialect="agentv-4") for t in oracle.tests]
    skipped = [{"index": i, "id": i_d, "skipped": "incomplete"} for i, i_d in enumerate(oracle.skipped)]
    skipped[0]["id"] = None  # the reference names a test without an id 'unknown'
    assert compare.compare(oracle, rows + skipped) == []
    rows[1] = json.loads(json.dumps(rows[1]))
    rows[1]["agent"]["question"] += "x"
    rows[1]["evaluator_prompt"] = ""
    fields = {m.field for m in compare.compare(oracle, rows + skipped[1:])}
    assert fields == {"agent.question", "evaluator_prompt", "skipped"}
    assert [m.field for m in compare.compare(oracle, [], "refused")] == ["refusal"]
