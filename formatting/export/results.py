"""Exporting AgentV results (`turnlens export RESULTS --format jsonl|markdown|toon`): each result's
conversation and verdict, for analysis.

TOON (https://github.com/toon-format/toon, official `toon_format` library) is what document 000 defers for
feeding results back to LLMs: the same rows as the JSONL export, with repeated keys folded into table headers.
Output is streamed record by record (a results file can be hundreds of MB): the TOON document's `results[N]:`
header comes from the index, and each item is encoded on its own.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable, Iterator
from typing import IO, Any, BinaryIO, TextIO

from turnlens.formatting.evals.files import FileReadError, read_head, wide_encoding
from turnlens.formatting.export import output
from turnlens.formatting.jsstr import LONE_SURROGATE
from turnlens.formatting.model import Diagnostic
from turnlens.formatting.records import JsonObject
from turnlens.formatting.results.discover import expand_results_paths
from turnlens.formatting.results.index import ResultsFile
from turnlens.formatting.results.queries import DEFAULT_THRESHOLD, passes
from turnlens.formatting.results.record import ResultRecord
from turnlens.formatting.sanitize import sanitize, sanitize_line

FORMATS = ("toon", "jsonl", "markdown")
CHUNK_BYTES = 1 << 20  # rows are written in chunks of whole rows about this big
MAX_REPORTED = 20  # problems listed per file; the rest are counted


def conversation(record: ResultRecord) -> list[JsonObject]:
    """What the candidate saw and said: the recorded chat prompt (or question) then the answer."""
    request = record.lm_request or record.agent_request
    messages: list[JsonObject] = []
    if request is not None and request.chat_prompt is not None:
        messages.extend({"role": m.role, "content": m.content} for m in request.chat_prompt)
    elif request is not None and request.question is not None:
        messages.append({"role": "user", "content": request.question})
    if record.candidate_answer or not record.error:
        messages.append({"role": "assistant", "content": record.candidate_answer})
    return messages


_INPUT_MD_ROLE = re.compile(r"^@\[([A-Za-z_-]+)\]:[ \t]*$", re.M)


def input_md_messages(text: str) -> list[JsonObject]:
    """input.md (`@[role]:` then the content, blocks separated by a blank line) as messages."""
    found = list(_INPUT_MD_ROLE.finditer(text))
    if not found:
        return [{"role": "user", "content": text.strip("\n")}] if text.strip() else []
    messages = []
    for n, match in enumerate(found):
        end = found[n + 1].start() if n + 1 < len(found) else len(text)
        messages.append({"role": match.group(1), "content": text[match.end() + 1 : end].strip("\n")})
    return messages


def _grader_row(grader: Any) -> JsonObject:
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


def _assertion_row(assertion: Any) -> JsonObject:
    row = {"text": assertion.text, "passed": assertion.passed}
    if assertion.evidence:
        row["evidence"] = assertion.evidence
    return row


def export_row_v4(
    record: ResultRecord,
    threshold: float = DEFAULT_THRESHOLD,
    run_folder: str | None = None,
    problems: list[Diagnostic] | None = None,
) -> JsonObject:
    """An AgentV 4 result: input and answer (from the row, else the run folder's input.md and answer.md),
    execution status, each grader's verdict with its assertions and evidence. What the artifacts could not give
    (a path that leads outside the run folder, a file that cannot be read) is added to `problems`."""
    v4 = record.v4
    artifacts = None
    if run_folder is not None and (not record.candidate_answer or v4.input_messages is None):
        from turnlens.formatting.results.artifacts import load_artifacts

        artifacts = load_artifacts(record, run_folder)
        if problems is not None:
            problems.extend(artifacts.problems)
    messages: list[JsonObject] = []
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


def export_row(
    record: ResultRecord,
    threshold: float = DEFAULT_THRESHOLD,
    run_folder: str | None = None,
    problems: list[Diagnostic] | None = None,
) -> JsonObject:
    if record.v4 is not None:
        return export_row_v4(record, threshold, run_folder, problems)
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


def _no_lone_surrogates(value: Any) -> Any:
    """The row with lone surrogates (a YAML "\\ud83d" escape) as U+FFFD: TOON and Markdown are UTF-8 text, and
    TOON has no escape for them (the JSONL export keeps them, escaped as JSON does)."""
    if isinstance(value, str):
        return LONE_SURROGATE.sub("\ufffd", value) if LONE_SURROGATE.search(value) else value
    if isinstance(value, dict):
        return {k: _no_lone_surrogates(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_no_lone_surrogates(v) for v in value]
    return value


def jsonl_rows(rows: Iterable[JsonObject]) -> Iterator[str]:
    for row in rows:
        yield output.dumps_json(row).decode() + "\n"


def toon_rows(rows: Iterable[JsonObject]) -> Iterator[str]:
    """Each row as a TOON `results` item (without the `results[N]:` header, which the caller writes)."""
    from toon_format import encode

    for row in rows:
        item = encode({"results": [_no_lone_surrogates(row)]})
        yield item[item.index("\n") :]  # drop this item's own `results[1]:` header


def toon_document(count: int, items: str) -> str:
    return f"results[{count}]:" + (items + "\n" if count else "\n")  # `results[0]:` is TOON's empty array


def write_jsonl(rows: Iterable[JsonObject], out: TextIO) -> None:
    for piece in jsonl_rows(rows):
        out.write(piece)


def write_toon(rows: Iterable[JsonObject], count: int, out: TextIO) -> None:
    items = list(toon_rows(rows))
    out.write(toon_document(len(items), "".join(items)))


def _md_block(text: str) -> str:
    text = sanitize(text)  # the export may be printed to a terminal
    fence = "```"
    while fence in text:
        fence += "`"
    return f"{fence}text\n{text}\n{fence}"


def _md_inline(value: Any) -> str:
    """A value inside a line (heading, list item): one line, nothing that acts on a terminal."""
    return sanitize_line(str(value))


def markdown_title(title: str) -> str:
    return f"# Results: {_md_inline(title)}\n"


def markdown_rows(rows: Iterable[JsonObject]) -> Iterator[str]:
    for row in rows:
        yield _markdown_row(_no_lone_surrogates(row))


def _markdown_row(row: JsonObject) -> str:
    if "test_id" in row:
        out = io.StringIO()
        _markdown_v4(row, out)
        return out.getvalue()
    parts = []
    verdict = row["verdict"]
    score = "no score" if verdict["score"] is None else f"score {verdict['score']:g}"
    state = "error" if "error" in verdict else ("pass" if verdict["pass"] else "fail")
    parts.append(f"\n## {_md_inline(row['eval_id'])} — {score} ({state})\n\n")
    facts = [f"{name}: `{_md_inline(row[name])}`" for name in ("dataset", "target", "timestamp") if row.get(name)]
    if facts:
        parts.append("- " + "\n- ".join(facts) + "\n\n")
    if row.get("guidelines"):
        parts.append("### Guidelines\n\n" + _md_block(row["guidelines"]) + "\n\n")
    for message in row["conversation"]:
        parts.append(f"### {_md_inline(message['role'])}\n\n{_md_block(message['content'])}\n\n")
    if "error" in verdict:
        parts.append(f"**Error:** {sanitize(verdict['error'])}\n\n")
    for label, items in (("Hits", verdict["hits"]), ("Misses", verdict["misses"])):
        if items:
            parts.append(f"**{label}:**\n\n" + "".join(f"- {sanitize(item)}\n" for item in items) + "\n")
    if verdict["reasoning"]:
        parts.append(f"**Reasoning:** {sanitize(verdict['reasoning'])}\n")
    for evaluator in verdict.get("evaluators", []):
        name, kind = _md_inline(evaluator["name"]), _md_inline(evaluator["type"])
        parts.append(f"- evaluator `{name}` ({kind}): {evaluator['score']}\n")
    return "".join(parts)


def write_markdown(rows: Iterable[JsonObject], out: TextIO, title: str) -> None:
    out.write(markdown_title(title))
    for piece in markdown_rows(rows):
        out.write(piece)


def _markdown_v4(row: JsonObject, out: TextIO) -> None:
    verdict = row["verdict"]
    score = "no score" if verdict["score"] is None else f"score {verdict['score']:g}"
    state = (verdict.get("execution_status") or ("pass" if verdict["pass"] else "fail")).replace("_", " ")
    out.write(f"\n## {_md_inline(row['test_id'])} — {score} ({state})\n\n")
    facts = [f"{name}: `{_md_inline(row[name])}`" for name in ("suite", "target", "timestamp") if row.get(name)]
    for name in ("duration_ms", "tokens", "cost_usd"):
        if name in row:
            facts.append(f"{name}: {row[name]:g}")
    if facts:
        out.write("- " + "\n- ".join(facts) + "\n\n")
    for message in row["conversation"]:
        out.write(f"### {_md_inline(message['role'])}\n\n{_md_block(message['content'])}\n\n")
    if "error" in verdict:
        out.write(f"**Error:** {sanitize(verdict['error'])}\n\n")
    for grader in verdict.get("graders", []):
        _markdown_grader(grader, out, "")
    if verdict.get("assertions") and not verdict.get("graders"):
        for assertion in verdict["assertions"]:
            _markdown_assertion(assertion, out, "")


def _markdown_grader(grader: JsonObject, out: TextIO, indent: str) -> None:
    score = "—" if grader["score"] is None else f"{grader['score']:g}"
    verdict = grader["verdict"] or "?"
    name = _md_inline(grader["name"] or "(unnamed)")
    out.write(f"{indent}- grader `{name}` ({_md_inline(grader['type'])}): {score}, **{_md_inline(verdict)}**\n")
    for assertion in grader["assertions"]:
        _markdown_assertion(assertion, out, indent + "  ")
    for child in grader.get("graders", []):
        _markdown_grader(child, out, indent + "  ")


def _markdown_assertion(assertion: JsonObject, out: TextIO, indent: str) -> None:
    mark = {True: "✓", False: "✗"}.get(assertion["passed"], "?")
    out.write(f"{indent}- {mark} {sanitize(assertion['text'])}")
    if assertion.get("evidence"):
        out.write(f" — {sanitize(assertion['evidence'])}")
    out.write("\n")


def _open_results(path: str, problems: list[Diagnostic]) -> ResultsFile | None:
    """The file indexed; a file that changed while indexed is read once more (with a note)."""
    for attempt in range(2):
        results = ResultsFile(path)
        for _ in results.scan():
            pass
        if results.changed is None or attempt:
            break
        problems.append(Diagnostic(path, None, f"the file changed while it was read ({results.changed}): read again"))
        results.close()
    if results.error is not None:
        problems.append(results.error)
        return None
    problems.extend(results.diagnostics[:MAX_REPORTED])
    if results.problem_count > MAX_REPORTED:
        more = results.problem_count - MAX_REPORTED
        problems.append(Diagnostic(path, None, f"… and {more:,} more lines that are not results", "warning"))
    if results.count == 0:
        problems.append(Diagnostic(path, None, _no_record_message(results), "error"))
    return results


def _no_record_message(results: ResultsFile) -> str:
    if not results.size:
        return "the file is empty: no usable record"
    head = b""
    try:
        head = read_head(results.path, 64)
    except FileReadError:
        pass
    encoding = wide_encoding(head)
    if encoding is not None:
        return f"the file is {encoding} encoded; AgentV writes results as UTF-8: no usable record"
    return f"no usable record ({results.problem_count:,} lines or documents that are not results)"


def export_results(paths: list[str], fmt: str, out: TextIO, threshold: float = DEFAULT_THRESHOLD) -> list[Diagnostic]:
    """Write the export of every results file in `paths`; returns the problems found (broken lines…)."""
    opened, problems = _open_all(paths)
    rows = _all_rows(opened, threshold, problems)
    if fmt == "jsonl":
        write_jsonl(rows, out)
    elif fmt == "toon":
        write_toon(rows, sum(r.count for r in opened), out)
    else:
        write_markdown(rows, out, ", ".join(opened.names) or "(none)")
    for results in opened:
        results.close()
    return problems


class _Opened(list[ResultsFile]):
    """The results files opened, with each one's run folder (AgentV 4) and the runs' names for the title.
    `closed`: past MAX_OPEN files, each is closed once indexed and indexed again when its rows are written (a
    folder of 6,000 runs ran out of file descriptors: a traceback, no row)."""

    folders: dict[str, str | None]
    names: list[str]
    closed: bool


MAX_OPEN = 64  # results files kept open between their indexing and their rows


def _open_all(paths: list[str]) -> tuple[_Opened, list[Diagnostic]]:
    sources, problems = expand_results_paths(paths, limit=None)  # every run: an export never drops rows
    opened = _Opened()
    opened.folders, opened.names, opened.closed = {}, [], len(sources) > MAX_OPEN
    for source in sources:
        results = _open_results(source.path, problems)
        if results is not None:
            if opened.closed:
                results.close()
            opened.append(results)
            opened.folders[source.path] = source.folder
            opened.names.append(source.name)
    return opened, problems


def _reopened(results: ResultsFile) -> ResultsFile:
    """A results file closed after its indexing (see _Opened), indexed again (its problems were said already)."""
    again = _open_results(results.path, [])
    return again if again is not None else results


def _all_rows(opened: _Opened, threshold: float, problems: list[Diagnostic]) -> Iterator[JsonObject]:
    """Every row; what a run folder's artifacts could not give is added to `problems` (the first MAX_REPORTED of
    each file, then how many more)."""
    found: list[Diagnostic] = []
    for results in opened:
        folder = opened.folders.get(results.path)
        reported = 0
        current = _reopened(results) if opened.closed else results
        try:
            for record in _records(current):
                yield export_row(record, threshold, folder, found)
                if found:
                    problems.extend(found[: max(0, MAX_REPORTED - reported)])
                    reported += len(found)
                    found.clear()
        finally:
            if current is not results:
                current.close()
        if reported > MAX_REPORTED:
            more = reported - MAX_REPORTED
            problems.append(Diagnostic(results.path, None, f"… and {more:,} more artifact paths not read", "warning"))


def stream_stats(paths: list[str], out: BinaryIO) -> list[Diagnostic]:
    """`--stats`: each run's statistics as Markdown tables (the run, by target, by suite), as `agentv inspect
    stats` computes them (formatting/results/stats.py)."""
    from turnlens.formatting.results.stats import figures_of, group_stats, stats_markdown

    opened, problems = _open_all(paths)
    try:
        for results, name in zip(opened, opened.names):
            current = _reopened(results) if opened.closed else results
            entries = figures_of(current, opened.folders.get(results.path))
            parts = [stats_markdown(group_stats(entries), name)]
            for by in ("target", "suite"):
                groups = group_stats(entries, by)
                if len(groups) > 1:
                    parts.append(stats_markdown(groups, f"{name}, by {by}"))
            output.write_rows(out, _encode("\n".join(parts) + "\n"))
            if current is not results:
                current.close()
        return problems
    finally:
        for results in opened:
            results.close()


def stream_results(paths: list[str], fmt: str, out: BinaryIO, threshold: float) -> list[Diagnostic]:
    """The export written to the binary stream `out` in chunks of whole rows (see output.py). TOON's header
    counts the rows that follow, so its rows are gathered first (in a temporary file past a few MB) and the
    document written once they are all there; on Ctrl-C, the rows gathered so far, under their true count."""
    opened, problems = _open_all(paths)
    rows = _all_rows(opened, threshold, problems)
    try:
        if fmt == "toon":
            _stream_toon(toon_rows(rows), out)
            return problems
        pieces = jsonl_rows(rows) if fmt == "jsonl" else markdown_rows(rows)
        if fmt == "markdown":
            pieces = _prepend(markdown_title(", ".join(opened.names) or "(none)"), pieces)
        chunk: list[str] = []
        size = 0
        for piece in pieces:
            chunk.append(piece)
            size += len(piece)
            if size >= CHUNK_BYTES:
                output.write_rows(out, _encode("".join(chunk)))
                chunk, size = [], 0
        output.write_rows(out, _encode("".join(chunk)))
        return problems
    finally:
        for results in opened:
            results.close()


def _prepend(first: str, rest: Iterable[str]) -> Iterator[str]:
    yield first
    yield from rest


def _encode(text: str) -> bytes:
    return text.encode("utf-8", errors="backslashreplace")  # lone surrogates were made U+FFFD or JSON escapes


def _stream_toon(items: Iterable[str], out: BinaryIO) -> None:
    import tempfile

    # (items spooled, bytes they take): one store after each item, so that a Ctrl-C between an item's write and
    # its count can not leave a header that counts one row fewer than follow it
    done = (0, 0)
    with tempfile.SpooledTemporaryFile(max_size=CHUNK_BYTES) as spool:
        try:
            for item in items:
                spool.write(_encode(item))
                done = (done[0] + 1, spool.tell())
        except KeyboardInterrupt:
            _write_toon(out, *done, spool)
            raise
        _write_toon(out, *done, spool)


def _write_toon(out: BinaryIO, count: int, size: int, spool: IO[bytes]) -> None:
    """The header for `count` rows, then the spool's first `size` bytes (those rows)."""
    with output.whole():  # the header and its rows go out together
        output.write_all(out, f"results[{count}]:".encode())
        spool.seek(0)
        while size > 0:
            block = spool.read(min(CHUNK_BYTES, size))
            if not block:
                break
            output.write_all(out, block)
            size -= len(block)
        output.write_all(out, b"\n")
