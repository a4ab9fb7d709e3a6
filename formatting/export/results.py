"""`turnlens export RESULTS --format toon|jsonl|markdown`: each result's conversation and verdict, for analysis.

TOON (https://github.com/toon-format/toon, official `toon_format` library) is what document 000 defers for
feeding results back to LLMs: the same rows as the JSONL export, with repeated keys folded into table headers.
Output is streamed record by record (a results file can be hundreds of MB): the TOON document's `results[N]:`
header comes from the index, and each item is encoded on its own.
"""

from __future__ import annotations

import argparse
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


def export_row(record: ResultRecord, threshold: float = DEFAULT_THRESHOLD) -> dict:
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


def export_results(paths: list[str], fmt: str, out: TextIO, threshold: float = DEFAULT_THRESHOLD) -> list[Diagnostic]:
    """Write the export of every results file in `paths`; returns the problems found (broken lines…)."""
    sources, problems = expand_results_paths(paths)
    opened: list[ResultsFile] = []
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
    rows = (export_row(record, threshold) for results in opened for record in _records(results))
    if fmt == "jsonl":
        write_jsonl(rows, out)
    elif fmt == "toon":
        write_toon(rows, sum(r.count for r in opened), out)
    else:
        write_markdown(rows, out, ", ".join(r.name for r in opened) or "(none)")
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
