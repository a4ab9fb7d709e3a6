"""A results file mixing 0.15-era rows with an AgentV 4 row, against what the real AgentV 4.42.4 CLI made of it
(tests/fixtures/record_mixed_results.py recorded each command's answer in real/mixed.json; `agentv compare`'s are
replayed by test_agentv_compare.py): every row counts, each with a verdict, in the header, the list and the compare
view; AgentV 4's status words only where AgentV recorded every row's status."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from turnlens.formatting.results.compare import compare_runs
from turnlens.formatting.results.index import ResultsFile
from turnlens.formatting.results.queries import compute_stats, select
from turnlens.tui.results.model import HeaderState
from turnlens.tui.results.widgets import header_text

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "results" / "real"
MIXED = REAL / "compare" / "mixed" / "index.jsonl"
ANSWERS = {" ".join(a["argv"][1:]): a for a in json.loads((REAL / "mixed.json").read_text())}
RUN = "compare/mixed/index.jsonl"


def scanned(path: Path) -> ResultsFile:
    results = ResultsFile(str(path))
    for _ in results.scan():
        pass
    return results


def filter_statuses() -> Counter[str]:
    """The Status column of `agentv inspect filter RUN`: one per row."""
    lines = ANSWERS[f"inspect filter {RUN}"]["stdout"].splitlines()
    rows = lines[lines.index(next(line for line in lines if line.strip().startswith("─"))) + 1 :]
    return Counter(line.split()[-1] for line in rows if line.strip() and "matches" not in line and "|" not in line)


def test_every_command_reads_every_row_and_compare_refuses_the_run():
    assert ANSWERS[f"results summary {RUN}"]["exit"] == 0
    assert json.loads(ANSWERS[f"results summary {RUN}"]["stdout"])["total"] == 7
    assert "7 tests" in ANSWERS[f"inspect stats {RUN}"]["stdout"]
    assert sum(filter_statuses().values()) == 7
    for command in (f"compare {RUN} --json", f"compare {RUN} {RUN} --json"):
        assert ANSWERS[command]["exit"] == 1
        assert ANSWERS[command]["stderr"] == f"Error: Missing test_id in result source: {RUN}\n"


def test_the_counts_are_agentvs_verdicts_for_every_row():
    results = scanned(MIXED)
    assert (results.count, results.v4_count) == (7, 1)
    # AgentV's inspect and summary commands pass a row without a recorded status at a score of 1: at that
    # threshold turnlens's counts are theirs, row for row
    statuses = filter_statuses()
    summary = json.loads(ANSWERS[f"results summary {RUN}"]["stdout"])
    stats = compute_stats(results, 1.0)
    assert stats.count == summary["total"]
    assert (stats.passed, stats.failed, stats.errors) == (
        statuses["ok"],
        statuses["quality_failure"],
        statuses["error"] + statuses["execution_error"],
    )
    assert stats.passed == summary["passed"] and stats.failed + stats.errors == summary["failed"]
    assert stats.mean is not None and round(stats.mean, 3) == summary["pass_rate"]["mean"]
    assert stats.v4 is not None and stats.v4.statuses[:3] == [0, 0, 1]  # only the 4.x row recorded a status
    assert len(select(results, filter="ok", threshold=1.0)) == statuses["ok"]
    assert len(select(results, filter="quality failures", threshold=1.0)) == statuses["quality_failure"]
    assert len(select(results, filter="errors", threshold=1.0)) == stats.errors


def test_the_header_says_every_rows_verdict_not_the_one_recorded_status():
    results = scanned(MIXED)
    for threshold, counts in ((0.8, "(2 pass, 3 fail)  2 errors"), (1.0, "(1 pass, 4 fail)  2 errors")):
        state = HeaderState("mixed", compute_stats(results, threshold), threshold, None)
        line = header_text(state).plain.splitlines()[1]
        assert counts in line and "ok " not in line and "execution error" not in line, line


def test_a_run_whose_every_row_recorded_its_status_keeps_agentvs_words(tmp_path):
    run = tmp_path / "index.jsonl"
    rows = [("a", 1.0, "ok"), ("b", 0.2, "quality_failure"), ("c", 0.0, "execution_error"), ("d", 0.5, "ok")]
    run.write_text("".join(json.dumps({"test_id": t, "score": s, "execution_status": x}) + "\n" for t, s, x in rows))
    state = HeaderState("run", compute_stats(scanned(run), 0.8), 0.8, None)
    line = header_text(state).plain.splitlines()[1]
    assert "ok 2 · quality failure 1 · execution error 1" in line, line
    assert "1 verdict recorded at another threshold" in line


def test_the_compare_view_says_how_a_mixed_run_pairs():
    results = scanned(MIXED)
    comparison = compare_runs(results, results)
    assert comparison.by == "test id, A's and B's 0.15-era rows by eval id"
    assert comparison.paired == 7
