"""The test as run (a run folder's `task/EVAL.yaml`, written by the real `agentv eval --dry-run` 4.42.4) against the
test now: a drift baseline. The first run was made with scoring.eval.yaml as scoring-v1.yaml.txt has it."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from turnlens.formatting.results.drift import AS_RUN, DriftChecker
from turnlens.formatting.results.index import ResultsFile
from turnlens.formatting.results.task_bundle import task_bundle

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "results" / "real"
RUNS = REAL / "project" / ".agentv" / "results" / "runs" / "default"
FIRST, SECOND = (RUNS / f"2026-06-2{n}T09-00-00-000Z" for n in range(2))
SAMPLES_RUN = REAL / "samples" / "runs" / "default" / "2026-06-20T09-00-00-000Z"
SAMPLE_EVALS = Path(__file__).resolve().parents[2] / "sample_evals"


def reports(run: Path, evals: Path | None = None) -> dict[str, object]:
    checker = DriftChecker(str(run / "index.jsonl"), evals=str(evals) if evals else None)
    results = ResultsFile(str(run / "index.jsonl"))
    for _ in results.scan():
        pass
    out = {}
    for i in range(results.count):
        record = results.record(i)
        out[f"{record.dataset}/{record.eval_id}"] = checker.check(record)
    results.close()
    return out


def as_run(report) -> dict[str, object]:
    return {f.field: f for f in report.fields if f.baseline == AS_RUN}


def test_graders_changed_since_the_run_are_drift():
    found = reports(FIRST)
    report = found["scoring/all-pass"]
    assert report.status == "drifted" and report.message.startswith("test's graders changed since the run")
    graders = as_run(report)["test's graders"]
    assert not graders.equal
    assert graders.diff.startswith("--- as run: test's graders\n+++ now: test's graders\n")
    assert '+- contains-nope (contains) {"value": "nope"}\n' in graders.diff  # added to the eval file since
    # the input, criteria and expected output are the same as run
    assert [name for name, f in as_run(report).items() if f.equal] == [
        "test's input", "test's criteria", "test's expected output"
    ]  # fmt: skip
    assert found["scoring/three-of-four"].status == "drifted" and found["scoring/half"].status == "drifted"
    unchanged = found["scoring/one-of-four"]
    assert unchanged.status == "equal" and len(as_run(unchanged)) == 4


def test_a_test_gone_since_the_run_is_said_to_be_in_its_bundle():
    report = reports(FIRST)["scoring/none-pass"]
    assert report.status == "eval not found"
    assert "the test as run is in the run's task bundle" in report.message


def test_a_bundle_of_another_suites_test_of_the_same_id_is_not_compared():
    # AgentV wrote scoring's `half` (three graders) into lenient/half/task too; the row recorded two graders
    report = reports(SECOND)["lenient/half"]
    assert report.status == "equal" and not as_run(report)
    assert any("not the test this row ran" in note for note in report.notes)


def test_the_bundles_own_projection_is_not_drift():
    # the bundle leaves out the suite's input (faq's shared system prompt), keeps its files under files/, names
    # the graders and appends the suite's (code-review's rubrics): none of it is drift
    found = reports(SAMPLES_RUN, SAMPLE_EVALS)
    for key in ("faq-suite/faq-return-window", "code-review/review-retry-follow-up", "code-review/review-with-vars",
                "support-refunds/order-status-with-tool-result"):  # fmt: skip
        report = found[key]
        assert report.status == "equal", (key, report.message)
        assert len(as_run(report)) == 4


def test_a_run_folder_is_never_its_own_test_now():
    # a run folder outside .agentv/: its task bundles are not the eval files of today
    found = reports(SAMPLES_RUN)
    assert {report.status for report in found.values()} == {"eval not found"}


def copied_run(tmp_path: Path) -> Path:
    run = tmp_path / "project" / ".agentv" / "results" / "runs" / "default" / FIRST.name
    shutil.copytree(REAL / "project" / "evals", tmp_path / "project" / "evals")
    shutil.copytree(FIRST, run)
    return run


def bundle_of(run: Path, test: str):
    results = ResultsFile(str(run / "index.jsonl"))
    for _ in results.scan():
        pass
    index = next(i for i in range(results.count) if f"{results.dataset_of(i)}/{results.eval_ids[i]}" == test)
    record = results.record(index)
    results.close()
    return record, task_bundle(record, str(run))


def test_a_bundle_naming_a_path_outside_the_run_is_not_read(tmp_path):
    run = copied_run(tmp_path)
    secret = tmp_path / "secret.md"
    secret.write_text("not for the drift tab")
    for name, value in (("absolute", str(secret)), ("relative", "../../../../../../../secret.md")):
        path = run / "scoring" / "one-of-four" / "task" / "EVAL.yaml"
        path.write_text(
            "tests:\n  - id: one-of-four\n    criteria: Mostly wrong.\n    input:\n      - role: user\n"
            f"        content:\n          - {{type: file, value: {value!r}}}\n"
        )
        record, bundle = bundle_of(run, "scoring/one-of-four")
        assert bundle.case is None and "may lead outside the run folder: not read" in bundle.problem, name
        report = DriftChecker(str(run / "index.jsonl")).check(record)
        assert report.status == "equal" and any("not read" in note for note in report.notes)
        assert all("not for the drift tab" not in f.recorded for f in report.fields)


def test_a_link_out_of_the_run_is_not_followed(tmp_path):
    run = copied_run(tmp_path)
    secret = tmp_path / "secret.md"
    secret.write_text("not for the drift tab")
    task = run / "scoring" / "one-of-four" / "task"
    (task / "files").mkdir()
    os.symlink(secret, task / "files" / "policy.md")
    (task / "EVAL.yaml").write_text(
        "tests:\n  - id: one-of-four\n    input:\n      - role: user\n"
        "        content:\n          - {type: file, value: files/policy.md}\n"
    )
    _, bundle = bundle_of(run, "scoring/one-of-four")
    assert bundle.case is None and "files/policy.md" in bundle.problem
