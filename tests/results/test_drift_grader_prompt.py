"""Drift of AgentV 4 results beyond the input: the grader prompts a run recorded (`requests.evaluator`, each
listed grader's `scores[].input`) against AgentV 4's default grader template filled from the test as it is today,
and input.md read back as the messages it holds.

The recorded prompts in tests/fixtures/results/grader-prompt/ are the 4.42.4 reference's own prompts (commands in
its oracle/manifest.json, made by tests/fixtures/make_grader_prompt_results.py); no Node.js is needed here.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import orjson

from turnlens.formatting.results.drift import (
    DEFAULT_SYSTEM_PROMPT,
    DriftChecker,
    input_md_text,
    parse_input_md,
    recorded_grader_prompts,
)
from turnlens.formatting.results.index import read_all
from turnlens.formatting.results.record import record_from_mapping

FIXTURE = Path(__file__).parents[1] / "fixtures" / "results" / "grader-prompt"
RESULTS = FIXTURE / "results.jsonl"


def checker() -> DriftChecker:
    return DriftChecker(str(RESULTS), evals=str(FIXTURE / "evals"))


def reports() -> dict:
    _, records = read_all(str(RESULTS))
    check = checker()
    return {record.eval_id: check.check(record) for record in records}


def rows() -> dict[str, dict]:
    return {row["test_id"]: row for row in map(json.loads, RESULTS.read_text().splitlines())}


class TestGraderPrompts:
    def test_the_default_graders_recorded_prompt_still_equal(self):
        report = reports()["plain"]
        assert report.status == "equal"
        assert [(f.field, f.equal) for f in report.fields] == [("lm chat_prompt", True), ("grader prompt", True)]

    def test_the_run_part_is_kept_as_recorded(self):
        # the answer and the tool calls the run appended are the run's: compared as recorded, never as drift
        field = reports()["plain"].fields[1]
        assert field.recorded.endswith(
            '[[ ## tool_calls ## ]]\n[{"tool":"search_kb","input":{"query":"reset password"}}]'
        )
        assert field.current == field.recorded

    def test_criteria_changed_since_the_run(self):
        report = reports()["flat"]
        assert report.status == "drifted"
        assert [f.field for f in report.drifted_fields] == ["grader prompt"]
        diff = report.drifted_fields[0].diff
        assert "-Says hello back.\n+Says hello back and offers help.\n" in diff
        assert "answer" not in diff.split("@@", 2)[-1].split("[[ ## question")[0]  # only the criteria moved

    def test_listed_graders(self):
        report = reports()["judged"]
        assert report.status == "equal"
        # `judge` has no prompt: the default template with the test's criteria; `polite` has a bare prompt string,
        # read by AgentV as the criteria of the default template
        assert [(f.field, f.equal) for f in report.fields] == [
            ("grader prompt (judge)", True),
            ("grader prompt (polite)", True),
        ]
        assert len(report.notes) == 1 and "grader prompt (rubrics)" in report.notes[0]
        assert "not recomputed" in report.notes[0]

    def test_a_listed_grader_whose_criteria_changed(self):
        row = copy.deepcopy(rows()["judged"])
        polite = row["scores"][1]["input"]
        polite["userPrompt"] = polite["userPrompt"].replace("polite and free of blame", "polite")
        report = checker().check(record_from_mapping(row, str(RESULTS), 3))
        assert report.status == "drifted"
        assert [f.field for f in report.drifted_fields] == ["grader prompt (polite)"]

    def test_a_grader_gone_from_the_test(self):
        row = copy.deepcopy(rows()["judged"])
        row["scores"][0]["name"] = "judge-v1"
        report = checker().check(record_from_mapping(row, str(RESULTS), 3))
        assert report.status == "drifted"
        gone = report.drifted_fields[0]
        assert gone.field == "grader prompt (judge-v1)" and "no grader named 'judge-v1'" in gone.current

    def test_the_default_grader_no_longer_runs(self):
        row = copy.deepcopy(rows()["plain"])
        row["test_id"] = "judged"
        row["requests"] = {"evaluator": {"user_prompt": rows()["judged"]["scores"][0]["input"]["userPrompt"]}}
        report = checker().check(record_from_mapping(row, str(RESULTS), 1))
        assert report.fields[0].equal
        assert any("no longer runs the default grader" in note for note in report.notes)

    def test_recorded_in_either_spelling_and_nested(self):
        row = {
            "test_id": "judged",
            "score": 1,
            "requests": {"evaluator": {"userPrompt": "camel"}},
            "scores": [
                {"name": "all", "type": "composite", "scores": [{"name": "judge", "input": {"user_prompt": "x"}}]}
            ],
        }
        found = recorded_grader_prompts(record_from_mapping(row, "f", 1))
        assert [(name, prompt) for name, prompt, _ in found] == [
            ("grader prompt", "camel"),
            ("grader prompt (judge)", "x"),
        ]

    def test_two_graders_of_one_name_are_numbered(self):
        row = {
            "test_id": "judged",
            "score": 1,
            "scores": [
                {"name": "rubrics", "input": {"user_prompt": "a"}},
                {"name": "rubrics", "input": {"user_prompt": "b"}},
            ],
        }
        found = recorded_grader_prompts(record_from_mapping(row, "f", 1))
        assert [name for name, _, _ in found] == ["grader prompt (rubrics)", "grader prompt (rubrics #2)"]

    def test_agentv_reads_these_rows_as_written(self):
        # the reference's reader (oracle --results) keeps `requests.evaluator` and `scores[].input` as written:
        # nested keys are not case-converted, so both spellings reach a reader
        oracle = [orjson.loads(line) for line in (FIXTURE / "oracle" / "results.out.jsonl").read_text().splitlines()]
        assert [row["test_id"] for row in oracle] == ["plain", "flat", "judged"]
        assert (
            oracle[0]["requests"]["evaluator"]["user_prompt"] == rows()["plain"]["requests"]["evaluator"]["user_prompt"]
        )
        assert [s["input"]["userPrompt"][:30] for s in oracle[2]["scores"]] == [
            s["input"]["userPrompt"][:30] for s in rows()["judged"]["scores"]
        ]


class TestInputMd:
    def test_read_back_into_messages(self):
        text = "@[system]:\nBe brief.\n\n@[user]:\nHi\n\n@[assistant]:\nHello\n"
        assert [(m.role, m.content) for m in parse_input_md(text)] == [
            ("system", "Be brief."),
            ("user", "Hi"),
            ("assistant", "Hello"),
        ]
        assert parse_input_md("no header\n@[user]:\nHi") is None
        assert parse_input_md("@[user]:") is not None and parse_input_md("@[user]:")[0].content == ""

    def test_the_layout_between_blocks_is_not_drift(self, tmp_path):
        base = {"test_id": "plain", "suite": "graded", "score": 1}
        for layout in (
            "@[system]:\nYou are a support agent for Acme accounts.\n\n@[user]:\nHow do I reset my password?\n",
            "@[system]:\nYou are a support agent for Acme accounts.\n@[user]:\nHow do I reset my password?",
            "@[system]:\nYou are a support agent for Acme accounts.\n\n@[user]:\nHow do I reset my password?\n".replace(
                "\n", "\r\n"
            ),
        ):
            report = self._check_input_md(tmp_path, base, layout)
            assert report.status == "equal", (layout, report.fields[0].diff)
        # the flat test as an LLM provider gets it: AgentV's default system message first
        report = self._check_input_md(
            tmp_path,
            {"test_id": "flat", "suite": "graded", "score": 1},
            f"@[system]:\n{DEFAULT_SYSTEM_PROMPT}\n\n@[user]:\nHello there!\n",
        )
        assert report.status == "equal"

    def test_changed_content_is_drift(self, tmp_path):
        report = self._check_input_md(
            tmp_path,
            {"test_id": "plain", "suite": "graded", "score": 1},
            "@[system]:\nYou are a support agent for Acme accounts.\n\n@[user]:\nHow do I reset my PIN?\n",
        )
        assert report.status == "drifted"
        assert "-How do I reset my PIN?\n+How do I reset my password?\n" in report.fields[0].diff

    @staticmethod
    def _check_input_md(tmp_path, row: dict, text: str):
        run = tmp_path / "run"
        (run / "graded" / row["test_id"]).mkdir(parents=True, exist_ok=True)
        (run / "graded" / row["test_id"] / "input.md").write_text(text, newline="")
        (run / "index.jsonl").write_text(json.dumps(row) + "\n")
        _, records = read_all(str(run / "index.jsonl"))
        report = DriftChecker(str(run / "index.jsonl"), evals=str(FIXTURE / "evals")).check(records[0])
        assert [f.field for f in report.fields] == ["input.md"]
        return report

    def test_input_md_text_is_the_layout_written(self):
        from turnlens.formatting.model import ChatMessage

        assert input_md_text([ChatMessage("User", "Hi")]) == "@[user]:\nHi\n"
