"""`turnlens export RESULTS --format toon|jsonl|markdown`: each result's conversation and verdict, for analysis.

TOON (https://github.com/toon-format/toon, official `toon_format` library) is what document 000 defers for
feeding results back to LLMs: the same rows as the JSONL export, with repeated keys folded into table headers.
Output is streamed record by record (a results file can be hundreds of MB): the TOON document's `results[N]:`
header comes from the index, and each item is encoded on its own.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Iterable
from typing import Any, TextIO

import orjson

from turnlens.formatting.model import Diagnostic
from turnlens.formatting.results.discover import expand_results_paths
from turnlens.formatting.results.reader import ResultRecord, ResultsFile, passes, visible_text

FORMATS = ("toon", "jsonl", "markdown")
DEFAULT_THRESHOLD = 0.5


def conversation(record: ResultRecord) -> list[dict]:
    """What the candidate saw and said: the recorded chat prompt (or question) then the answer."""
    request = record.lm_request or record.agent_request
    messages: list[dict] = []
    if request is not None and request.chat_prompt is not None:
        messages.extend({"role": m.role, "content": m.content} for m in request.chat_prompt)
    elif request is not None and request.question is not None:
        messages.append({"role": "user", "content": request.question})
    if record.candidate_answer or not record.error:
        messages.append({"role": "assistant", "content": record.candidate_answer})
    return messages


_INPUT_MD_ROLE = re.compile(r"^@\[([A-Za-z_-]+)\]:[ \t]*$", re.M)


def input_md_messages(text: str) -> list[dict]:
    """input.md (`@[role]:` then the content, blocks separated by a blank line) as messages."""
    found = list(_INPUT_MD_ROLE.finditer(text))
    if not found:
        return [{"role": "user", "content": text.strip("\n")}] if text.strip() else []
    messages = []
    for n, match in enumerate(found):
        end = found[n + 1].start() if n + 1 < len(found) else len(text)
        messages.append({"role": match.group(1), "content": text[match.end() + 1 : end].strip("\n")})
    return messages


def _grader_row(grader: Any) -> dict:
    row: dict[str, Any] = {
        "name": grader.name,
        "type": grader.type,
        "score": grader.score,
        "weight": grader.weight,
        "verdict": grader.verdict,
        "assertions": [_assertion_row(a) for a in grader.assertions],
    }
    if grader.children:
        row["graders"] = [_grader_row(child) for child in grader.children]
    return row


def _assertion_row(assertion: Any) -> dict:
    row = {"text": assertion.text, "passed": assertion.passed}
    if assertion.evidence:
        row["evidence"] = assertion.evidence
    return row


def export_row_v4(record: ResultRecord, threshold: float = DEFAULT_THRESHOLD, run_folder: str | None = None) -> dict:
    """An AgentV 4 result: input and answer (from the row, else the run folder's input.md and answer.md),
    execution status, each grader's verdict with its assertions and evidence."""
    v4 = record.v4
    artifacts = None
    if run_folder is not None and (not record.candidate_answer or v4.input_messages is None):
        from turnlens.formatting.results.artifacts import load_artifacts

        artifacts = load_artifacts(record, run_folder)
    messages: list[dict] = []
    if v4.input_messages is not None:
        messages = [{"role": m.role, "content": m.content} for m in v4.input_messages]
    elif v4.input_text is not None:
        messages = [{"role": "user", "content": v4.input_text}]
    else:
        request = record.lm_request or record.agent_request
        if request is not None and request.chat_prompt is not None:
            messages = [{"role": m.role, "content": m.content} for m in request.chat_prompt]
        elif request is not None and request.question is not None:
            messages = [{"role": "user", "content": request.question}]
        if not messages and artifacts is not None and artifacts.input_md is not None:
            messages = input_md_messages(artifacts.input_md)
    answer = record.candidate_answer or (artifacts.answer if artifacts is not None and artifacts.answer else "")
    if answer or record.error is None:
        messages.append({"role": "assistant", "content": answer})
    status = v4.execution_status
    passed = status == "ok" if status in ("ok", "quality_failure", "execution_error") else None
    verdict: dict[str, Any] = {
        "score": record.score,
        "pass": passes(record.score, record.error is not None, threshold) if passed is None else passed,
        "execution_status": status,
    }
    if record.error is not None:
        verdict["error"] = record.error
    for key in ("failure_stage", "failure_reason_code"):
        if getattr(v4, key):
            verdict[key] = getattr(v4, key)
    if v4.assertions:
        verdict["assertions"] = [_assertion_row(a) for a in v4.assertions]
    if v4.graders:
        verdict["graders"] = [_grader_row(g) for g in v4.graders]
    row: dict[str, Any] = {
        "test_id": record.eval_id,
        "suite": record.dataset,
        "target": record.target,
        "timestamp": record.timestamp,
        "conversation": messages,
        "verdict": verdict,
    }
    for key, value in (("duration_ms", v4.duration_ms), ("tokens", v4.tokens), ("cost_usd", v4.cost_usd)):
        if value is not None:
            row[key] = value
    return row


def export_row(record: ResultRecord, threshold: float = DEFAULT_THRESHOLD, run_folder: str | None = None) -> dict:
    if record.v4 is not None:
        return export_row_v4(record, threshold, run_folder)
    request = record.lm_request or record.agent_request
    row: dict[str, Any] = {
        "eval_id": record.eval_id,
        "dataset": record.dataset,
        "target": record.target,
        "timestamp": record.timestamp,
        "conversation": conversation(record),
    }
    if request is not None and request.guidelines:
        row["guidelines"] = request.guidelines
    verdict: dict[str, Any] = {
        "score": record.score,
        "pass": passes(record.score, record.error is not None, threshold),
        "hits": record.hits,
        "misses": record.misses,
        "reasoning": record.reasoning,
    }
    if record.error is not None:
        verdict["error"] = record.error
    if record.evaluator_results:
        verdict["evaluators"] = [
            {"name": e.name, "type": e.type, "score": e.score, "reasoning": e.reasoning}
            for e in record.evaluator_results
        ]
    row["verdict"] = verdict
    return row


def _records(results: ResultsFile) -> Iterable[ResultRecord]:
    for index in range(results.count):
        yield results.record(index)


def write_jsonl(rows: Iterable[dict], out: TextIO) -> None:
    for row in rows:
        out.write(orjson.dumps(row).decode())
        out.write("\n")


def write_toon(rows: Iterable[dict], count: int, out: TextIO) -> None:
    from toon_format import encode

    out.write(f"results[{count}]:")
    if count == 0:
        out.write("\n")  # `results[0]:` is TOON's empty array
        return
    for row in rows:
        item = encode({"results": [row]})
        out.write(item[item.index("\n") :])  # drop this item's own `results[1]:` header
    out.write("\n")


def _md_block(text: str) -> str:
    text = visible_text(text)  # the export may be printed to a terminal
    fence = "```"
    while fence in text:
        fence += "`"
    return f"{fence}text\n{text}\n{fence}"


def write_markdown(rows: Iterable[dict], out: TextIO, title: str) -> None:
    out.write(f"# Results: {title}\n")
    for row in rows:
        if "test_id" in row:
            _markdown_v4(row, out)
            continue
        verdict = row["verdict"]
        score = "no score" if verdict["score"] is None else f"score {verdict['score']:g}"
        state = "error" if "error" in verdict else ("pass" if verdict["pass"] else "fail")
        out.write(f"\n## {row['eval_id']} — {score} ({state})\n\n")
        facts = [f"{name}: `{row[name]}`" for name in ("dataset", "target", "timestamp") if row.get(name)]
        if facts:
            out.write("- " + "\n- ".join(facts) + "\n\n")
        if row.get("guidelines"):
            out.write("### Guidelines\n\n" + _md_block(row["guidelines"]) + "\n\n")
        for message in row["conversation"]:
            out.write(f"### {message['role']}\n\n{_md_block(message['content'])}\n\n")
        if "error" in verdict:
            out.write(f"**Error:** {visible_text(verdict['error'])}\n\n")
        for label, items in (("Hits", verdict["hits"]), ("Misses", verdict["misses"])):
            if items:
                out.write(f"**{label}:**\n\n" + "".join(f"- {visible_text(item)}\n" for item in items) + "\n")
        if verdict["reasoning"]:
            out.write(f"**Reasoning:** {visible_text(verdict['reasoning'])}\n")
        for evaluator in verdict.get("evaluators", []):
            out.write(f"- evaluator `{evaluator['name']}` ({evaluator['type']}): {evaluator['score']}\n")


def _markdown_v4(row: dict, out: TextIO) -> None:
    verdict = row["verdict"]
    score = "no score" if verdict["score"] is None else f"score {verdict['score']:g}"
    state = (verdict.get("execution_status") or ("pass" if verdict["pass"] else "fail")).replace("_", " ")
    out.write(f"\n## {visible_text(str(row['test_id']))} — {score} ({state})\n\n")
    facts = [f"{name}: `{visible_text(str(row[name]))}`" for name in ("suite", "target", "timestamp") if row.get(name)]
    for name in ("duration_ms", "tokens", "cost_usd"):
        if name in row:
            facts.append(f"{name}: {row[name]:g}")
    if facts:
        out.write("- " + "\n- ".join(facts) + "\n\n")
    for message in row["conversation"]:
        out.write(f"### {visible_text(message['role'])}\n\n{_md_block(message['content'])}\n\n")
    if "error" in verdict:
        out.write(f"**Error:** {visible_text(verdict['error'])}\n\n")
    for grader in verdict.get("graders", []):
        _markdown_grader(grader, out, "")
    if verdict.get("assertions") and not verdict.get("graders"):
        for assertion in verdict["assertions"]:
            _markdown_assertion(assertion, out, "")


def _markdown_grader(grader: dict, out: TextIO, indent: str) -> None:
    score = "—" if grader["score"] is None else f"{grader['score']:g}"
    verdict = grader["verdict"] or "?"
    name = visible_text(grader["name"] or "(unnamed)")
    out.write(f"{indent}- grader `{name}` ({visible_text(grader['type'])}): {score}, **{visible_text(verdict)}**\n")
    for assertion in grader["assertions"]:
        _markdown_assertion(assertion, out, indent + "  ")
    for child in grader.get("graders", []):
        _markdown_grader(child, out, indent + "  ")


def _markdown_assertion(assertion: dict, out: TextIO, indent: str) -> None:
    mark = {True: "✓", False: "✗"}.get(assertion["passed"], "?")
    out.write(f"{indent}- {mark} {visible_text(assertion['text'])}")
    if assertion.get("evidence"):
        out.write(f" — {visible_text(assertion['evidence'])}")
    out.write("\n")


def export_results(paths: list[str], fmt: str, out: TextIO, threshold: float = DEFAULT_THRESHOLD) -> list[Diagnostic]:
    """Write the export of every results file in `paths`; returns the problems found (broken lines…)."""
    sources, problems = expand_results_paths(paths)
    opened: list[ResultsFile] = []
    folders: dict[str, str | None] = {}
    names: list[str] = []
    for source in sources:
        path = source.path
        results = ResultsFile(path)
        for _ in results.scan():
            pass
        if results.error is not None:
            problems.append(results.error)
            continue
        problems.extend(results.diagnostics)
        if results.problem_count > len(results.diagnostics):
            more = results.problem_count - len(results.diagnostics)
            problems.append(Diagnostic(path, None, f"… and {more:,} more broken lines", "warning"))
        opened.append(results)
        folders[path] = source.folder
        names.append(source.name)
    rows = (
        export_row(record, threshold, folders.get(results.path)) for results in opened for record in _records(results)
    )
    if fmt == "jsonl":
        write_jsonl(rows, out)
    elif fmt == "toon":
        write_toon(rows, sum(r.count for r in opened), out)
    else:
        write_markdown(rows, out, ", ".join(names) or "(none)")
    for results in opened:
        results.close()
    return problems


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="turnlens export",
        description="Export AgentV results files: each result's conversation and verdict.",
    )
    parser.add_argument("paths", nargs="+", metavar="RESULTS", help="results files (JSONL or YAML) or folders")
    parser.add_argument("--format", choices=FORMATS, default="jsonl", help="output format (default: jsonl)")
    parser.add_argument("--threshold", type=float, default=DEFAULT_THRESHOLD, help="pass threshold (default: 0.5)")
    # accepted for symmetry with `turnlens export EVAL_FILE`; results need neither
    parser.add_argument("--repo-root", help=argparse.SUPPRESS)
    parser.add_argument("--profile", help=argparse.SUPPRESS)
    parser.add_argument("-q", "--quiet", action="store_true", help="do not print problems on stderr")
    parser.add_argument("--max-file-size", help=argparse.SUPPRESS)  # applied by `turnlens export` already
    return parser


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["export"]:
        args = args[1:]
    options = _parser().parse_args(args)
    out = sys.stdout
    try:
        problems = export_results(options.paths, options.format, out, options.threshold)
        out.flush()
    except BrokenPipeError:  # `turnlens export … | head`: the reader has all it wants
        sys.stderr.close()
        return 0
    fatal = [p for p in problems if p.line is None and p.severity == "error"]
    if not options.quiet:
        for problem in problems:
            print(f"turnlens export: {problem}", file=sys.stderr)
    return 1 if fatal else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
