"""`turnlens export`: every case of an eval file as JSONL (contract: docs/export.md), or a results file (see
results_export).

Kept free of textual/rich imports so the command starts fast.
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
from collections.abc import Iterable, Iterator
from typing import Any

import orjson

from turnlens.formatting import gcpause
from turnlens.formatting.evals.files import (
    SIZE_OPTION_HELP,
    FileReadError,
    apply_size_option,
    read_bytes,
    wide_encoding,
)
from turnlens.formatting.evals.interpolate import is_env_note
from turnlens.formatting.evals.loader import load_eval_file, looks_like_eval_file
from turnlens.formatting.export import output
from turnlens.formatting.graders.prompts import case_graders
from turnlens.formatting.jsstr import LONE_SURROGATE
from turnlens.formatting.model import DIALECTS, PROFILES, Diagnostic, EvalFile
from turnlens.formatting.prompts.engine import format_case


def _dumps_slow(obj) -> bytes:
    """Compact JSON with lone surrogates escaped (JSON.stringify's way): valid UTF-8 whatever the input held."""
    import json  # here, not at the top: rarely needed (startup time)

    out = json.dumps(obj, ensure_ascii=False, separators=(",", ":"), default=str)
    if LONE_SURROGATE.search(out):
        out = LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", out)
    return out.encode("utf-8")


def _dumps(obj) -> bytes:
    try:
        return orjson.dumps(obj)
    except TypeError:  # orjson refuses lone surrogates (and exotic types): the careful path
        return _dumps_slow(_plain(obj))


def iter_rows(ev: EvalFile, profile: str = "agentv") -> Iterator[dict]:
    """The export row of every case of a loaded eval file, in file order (skipped cases included)."""
    return _iter_rows(ev, profile, plain=True)


def _rendered_row(rendered) -> dict:
    """Rendered.to_json() with the ChatMessages left as they are: orjson writes a dataclass as its fields in
    order, which gives the same bytes without a dict per message."""
    if rendered.dialect == "agentv-4":
        return {
            "question": rendered.question,
            "chatPrompt": rendered.chat_prompt,
            "systemMessage": rendered.system_message,
        }
    return {"question": rendered.question, "guidelines": rendered.guidelines, "chatPrompt": rendered.chat_prompt}


def _plain(value):
    """A row with the engine's dataclasses (left in place for orjson) turned into their JSON dicts."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    to_json = getattr(value, "to_json", None)  # Explanation, ChatMessage
    return value if to_json is None or isinstance(value, (str, int, float)) else to_json()


def _iter_rows(ev: EvalFile, profile: str, plain: bool) -> Iterator[dict]:
    rel_paths: dict[str, str] = {}

    def rel(p: str) -> str:
        hit = rel_paths.get(p)
        if hit is None:
            hit = rel_paths[p] = os.path.relpath(p, ev.repo_root).replace(os.sep, "/")
        return hit

    dialect = ev.dialect
    v4 = dialect == "agentv-4"
    for case in ev.cases:
        if case.skipped is not None:
            yield {
                "index": case.index,
                "id": _id_as_written(case),
                "skipped": case.skipped,
                "dialect": dialect,
                "line": case.line,
                "warnings": [str(d) for d in case.diagnostics],
            }
            continue
        fc = format_case(case, ev, profile)  # type: ignore[arg-type]
        row: dict[str, Any] = {
            "id": case.id,
            "dialect": dialect,
            "lm": fc.lm.to_json() if plain else _rendered_row(fc.lm),
            "agent": fc.agent.to_json() if plain else _rendered_row(fc.agent),
            "evaluator_prompt": fc.evaluator_prompt,
            "markers": fc.explanation.to_json() if plain else fc.explanation,
            "profile": profile,
        }
        if v4:
            graders = case_graders(case, fc)
            row["lm"]["graders"] = graders["lm"]
            row["agent"]["graders"] = graders["agent"]
            row["criteria"] = case.criteria
            row["assertions"] = [
                {"name": g.name, "type": g.type, "weight": g.weight, "from_suite": g.from_suite}
                for g in case.assertions
            ]
            row["default_grader_runs"] = case.default_grader_runs
        else:
            row["guideline_paths"] = [rel(p) for p in case.guideline_paths]
            if fc.evaluator_prompts is not None:
                row["evaluator_prompts"] = [e.to_json() for e in fc.evaluator_prompts]
        row["warnings"] = [str(d) for d in case.diagnostics]
        yield row


def _id_as_written(case) -> object:
    raw = case.raw_id
    return raw if isinstance(raw, (str, int, float, bool)) else None


def export_rows(
    path: str,
    repo_root: str | None = None,
    profile: str = "agentv",
    cwd: str | None = None,
    dialect: str = "auto",
    environ=None,
) -> tuple[list[dict], Diagnostic | None]:
    """The export rows of one eval file, or the reason it was refused."""
    ev = load_eval_file(path, repo_root=repo_root, cwd=cwd, dialect=dialect, environ=environ)
    if ev.error is not None:
        return [], ev.error
    return list(iter_rows(ev, profile)), None


def _export_one(
    path: str, args, text: str | None = None, first_case_index: int = 0, config_diagnostics: bool = True
) -> tuple[str, Any]:
    """("error", message) or ("ok", (file diagnostics, [(chunk of JSONL rows, its warnings), …])) for a file or a
    slice (see _chunked)."""
    return _rows_of(path, args, _load_one(path, args, text, first_case_index, config_diagnostics))


def _load_one(
    path: str,
    args,
    text: str | None = None,
    first_case_index: int = 0,
    config_diagnostics: bool = True,
    dialect: str | None = None,
) -> tuple[str, Any]:
    """The first half of _export_one: ("error", message) or ("ok", (file diagnostics, the loaded EvalFile)). Only
    loading can refuse a file; what follows only formats what was loaded."""
    ev = load_eval_file(
        path, repo_root=args.repo_root, text=text, first_case_index=first_case_index, dialect=dialect or args.dialect
    )
    gcpause.keep_to_exit(ev)  # (when this process ends with os._exit: then it is never freed one object at a time)
    if ev.error is not None:  # one line on stderr: a multi-line reference message is joined
        return "error", " ".join(part.strip() for part in str(ev.error).splitlines() if part.strip())
    diagnostics = ev.diagnostics if config_diagnostics else ev.diagnostics[len(ev.config.diagnostics) :]
    if not config_diagnostics and ev.dialect == "agentv-4" and ev.cases:
        # a later slice of a 4.x suite: what its header (and its .env files) says was said by the first slice
        first_line = ev.cases[0].line or 0
        diagnostics = [d for d in diagnostics if d.line is not None and d.line >= first_line and d.file == ev.path]
    # what `${{ VAR }}` replaced in the suite is no warning (the inspector says it in the rule panel); a test's own
    # replacements are in its row's markers
    return "ok", ([str(d) for d in diagnostics if not (d.severity == "info" and is_env_note(d.message))], ev)


def _rows_of(path: str, args, loaded: tuple[str, Any]) -> tuple[str, Any]:
    """The second half of _export_one: the rows of a loaded file (an error stays as it is)."""
    kind, value = loaded
    if kind == "error":
        return loaded
    diagnostics, ev = value
    # A skipped case's one warning comes from the engine (naming the case and why); an entry that is not a mapping
    # is reported once as a file-level warning. (A row's warnings are strings already: _iter_rows makes them.)
    rows = ((_dumps(row), row["warnings"]) for row in _iter_rows(ev, args.profile, plain=False))
    return "ok", (diagnostics, _chunked(rows, args.quiet))


# The last slice's share of the cases, against the others' (split_slices): see _export_slices.
# (benchmarks/bench_export4.py: 1.04-1.06 finish first on a 5,000-test suite)
LAST_SLICE_SHARE = 1.05


def _export_slices(path: str, args) -> list[tuple[str, Any]]:
    """The export of one file, in slices exported on every core when the file is big enough to gain from it.

    A sliced export's rows stay in the process that made them (a forked worker; this one for the last slice): in
    their place is a _SliceRows, which has them written (in order, once every slice was found good)."""
    from turnlens.formatting.evals.references import NOT_UTF8, decode_eval_bytes
    from turnlens.formatting.evals.slices import cut_key, split_slices
    from turnlens.formatting.export.parallel import DeferredSlices

    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    if not hasattr(os, "fork") or cores < 2:
        return [_export_one(path, args)]
    try:
        raw = read_bytes(path)
    except FileReadError:
        return [_export_one(path, args)]  # the loader words the refusal
    if wide_encoding(raw) is not None:
        return [_export_one(path, args)]
    text, bad_line = decode_eval_bytes(raw)
    key = cut_key(path, text, args.dialect)
    if key is None:
        return [_export_one(path, args)]
    dialect = args.dialect if key == "evalcases" else "agentv-4"
    # The last slice is worked in this process (DeferredSlices' `here`): without pages to copy on write, it makes
    # its rows ~10% faster than a forked worker, and its rows are written last; a 5% larger share evens them out.
    slices = split_slices(text, min(cores, 8), key, last_share=LAST_SLICE_SHARE)
    if slices is None:
        return [_export_one(path, args)]
    out = output.binary_stdout()
    run = DeferredSlices(
        text,
        slices,
        lambda piece, n: _load_one(path, args, piece, slices[n].first_case, n == 0, dialect),
        _summary,
        lambda result: _write_chunks(out, result[1][1]),
        complete=lambda loaded: _rows_of(path, args, loaded),
        here=True,
    )
    errors = [r for r in run.summaries if r[0] == "error"]
    if errors:
        run.close()
        return [errors[0]]
    results = [(kind, (diagnostics, _SliceRows(run, n))) for n, (kind, (diagnostics, _)) in enumerate(run.summaries)]
    if bad_line is not None:
        results[0][1][0].insert(0, f"{path}:{bad_line}: {NOT_UTF8}")
    return results


def _summary(result: tuple[str, Any]) -> tuple[str, Any]:
    """What a worker tells the parent about its slice as soon as it is loaded: the error, or the file diagnostics
    (its rows are made and kept there)."""
    kind, value = result
    return result if kind == "error" else (kind, (value[0], None))


class _SliceLost(Exception):
    """A worker stopped while writing its slice (parallel.SliceLost, without importing that module up front)."""


class _SliceRows:
    """The rows of one slice, held by the process that made them."""

    def __init__(self, run, number: int):
        self.run, self.number = run, number

    def write(self) -> None:
        from turnlens.formatting.export.parallel import SliceLost

        try:
            self.run.emit(self.number)
        except SliceLost as exc:
            raise _SliceLost(str(exc)) from None

    def close(self) -> None:
        self.run.close()


# A chunk of rows is written with one write once it holds this many rows or bytes (Ctrl-C waits for it).
CHUNK_ROWS = 256
CHUNK_BYTES = 4 << 20


def _chunked(rows: Iterable[tuple[bytes, list[str]]], quiet: bool) -> list[tuple[bytes, list[str]]]:
    """Rows (JSON, warnings) as the chunks they are written in: their JSONL lines joined as soon as a chunk is full,
    with the warnings that go to stderr just before it. An export that holds its output until its turn to write (a
    slice's worker) keeps it in a few big blocks, the rows' own bytes let go at once: less memory to fault in, and
    no joining left for when its turn comes."""
    chunks: list[tuple[bytes, list[str]]] = []
    lines: list[bytes] = []
    warnings: list[str] = []
    size = 0
    for row_bytes, row_warnings in rows:
        if row_warnings and not quiet:
            warnings.extend(f"turnlens export: warning: {line}" for line in row_warnings)
        lines.append(row_bytes)
        size += len(row_bytes)
        if len(lines) >= CHUNK_ROWS or size >= CHUNK_BYTES:
            lines.append(b"")
            chunks.append((b"\n".join(lines), warnings))
            lines, warnings, size = [], [], 0
    if lines:
        lines.append(b"")
        chunks.append((b"\n".join(lines), warnings))
    return chunks


def _write_chunks(out, chunks: list[tuple[bytes, list[str]]]) -> None:
    for data, warnings in chunks:
        output.warn_lines(warnings)
        output.write_rows(out, data)  # every byte, whole rows (a short write is continued)


def _write_rows(out, rows: list[tuple[bytes, list[str]]], quiet: bool) -> None:
    """Rows as JSONL lines; each row's warnings go to stderr just before the chunk of lines holding it."""
    _write_chunks(out, _chunked(rows, quiet))


def _parser() -> argparse.ArgumentParser:
    # add_argument makes a help formatter to check each option, and a formatter asks the terminal's width through
    # shutil (importing it costs ~3 ms of start-up): the checks get one of fixed width, help the usual one.
    p = argparse.ArgumentParser(
        prog="turnlens export",
        description="Write what every case of an eval file becomes (question, guidelines, chatPrompt for lm and "
        "agent mode, evaluator prompt, marker rule) as JSONL; or export a results file.",
        formatter_class=functools.partial(argparse.HelpFormatter, width=80),
    )
    p.add_argument(
        "paths",
        nargs="+",
        metavar="FILE",
        help="an eval file (YAML, .jsonl dataset, evals.json), a folder of them, or AgentV results files",
    )
    p.add_argument("--repo-root", metavar="DIR", help="repo root (default: nearest folder with .git, else the cwd)")
    p.add_argument("--profile", choices=PROFILES, default="agentv", help="chatPrompt profile (default: agentv)")
    p.add_argument(
        "--dialect",
        choices=("auto", *DIALECTS),
        default="auto",
        help="AgentV file format to read (default: auto, from each file's shape)",
    )
    p.add_argument(
        "--format",
        choices=("toon", "jsonl", "markdown", "html", "json"),
        help="export AgentV results files in this format instead; html: one self-contained page (eval files too); "
        "json: runs compared, what `agentv compare RUN … --json` prints",
    )
    p.add_argument(
        "--delta",
        type=float,
        metavar="D",
        help="--format json: a score change of at least D is a win or a loss (default 0.1, agentv compare's -t)",
    )
    p.add_argument(
        "--stats", action="store_true", help="--format markdown: each run's statistics, as agentv inspect stats"
    )
    p.add_argument("--baseline", metavar="TARGET", help="--format json, one run: the baseline target")
    p.add_argument("--candidate", metavar="TARGET", help="--format json, one run: the candidate target")
    p.add_argument(
        "--targets", metavar="TARGET", action="append", default=[], help="--format json, one run: targets compared"
    )
    p.add_argument("-q", "--quiet", action="store_true", help="do not print warnings on stderr")
    p.add_argument("--max-file-size", metavar="SIZE", help=SIZE_OPTION_HELP)
    p.formatter_class = argparse.HelpFormatter
    return p


def _is_results(path: str) -> bool:
    lower = path.lower()
    if lower.endswith(".json") or (os.path.isdir(path) and _has_eval_files(path)):
        return False
    if looks_like_eval_file(path):  # declares the eval schema, so not a results file: spares importing that reader
        return False
    from turnlens.formatting.results.sniff import is_results_input

    return is_results_input(path)


def _has_eval_files(folder: str) -> bool:
    from turnlens.formatting.evals.dialect import discover_eval_files

    return bool(discover_eval_files(folder))


def main(argv: list[str] | None = None, exit_process: bool = False) -> int:
    """`turnlens export ARGV`'s exit status; with `exit_process` (the command itself) the process ends with it."""
    output.guard_std_fds()
    if exit_process:
        gcpause.exit_without_freeing()
    args = _parser().parse_args(argv)
    output.install_sigint_handler()
    status = run_guarded(lambda: _main(args, argv))
    if exit_process:
        output.exit_now(status)
    return status


def run_guarded(export) -> int:
    """`export()`'s exit status; Ctrl-C, a closed or full output and a closed pipe end it with one line (or none
    for a pipe whose reader has all it wants, as `head` does) and the usual status, never a traceback."""
    try:
        try:
            return export()
        finally:
            _close_runs()
    except KeyboardInterrupt:
        output.warn("turnlens export: interrupted; the output ends with the last whole row written")
        output.silence_stdout()
        return output.EXIT_INTERRUPTED
    except BrokenPipeError:  # `turnlens export … | head`: the reader has all it wants
        output.silence_stdout()
        return 0
    except output.OutputError as exc:
        output.warn(f"turnlens export: cannot write the output: {exc}")
        output.silence_stdout()
        return 1
    except MemoryError:
        output.warn(
            "turnlens export: out of memory (a file, or what its aliases and references expand to, is too big for "
            "this machine: lower --max-file-size)"
        )
        return 1


def _main(args, argv: list[str] | None) -> int:
    problem = apply_size_option(args.max_file_size)
    if problem is not None:
        output.warn(f"turnlens export: {problem}")
        return 2
    if args.repo_root is not None and not os.path.isdir(args.repo_root):
        output.warn(f"turnlens export: --repo-root {args.repo_root}: not a folder")
        return 2
    if args.format == "json":
        return _compare_runs(args)
    results = [_is_results(p) for p in args.paths]
    if any(results) and not all(results):
        eval_files = ", ".join(p for p, r in zip(args.paths, results) if not r)
        output.warn(f"turnlens export: cannot mix eval files ({eval_files}) and results files in one export")
        return 2
    if args.format == "html":
        from turnlens.formatting.export.html import write_page

        return write_page(args.paths, any(results), args.repo_root, args.dialect)
    if args.format in ("toon", "markdown") and not any(results):
        output.warn(
            f"turnlens export: {args.paths[0]} is not an AgentV results file; --format {args.format} exports "
            "results files (an eval file exports as JSONL without --format)"
        )
        return 1
    if any(results):
        from turnlens.formatting.export.results import export_main

        return export_main(list(argv if argv is not None else sys.argv[1:]))
    return _export_eval_files(args)


def _compare_runs(args) -> int:
    """`agentv compare PATHS --json`, byte for byte: stdout, its `Error: …` (after turnlens's prefix) and status."""
    from turnlens.formatting.results.agentv_compare import compare_json

    stdout, stderr, status = compare_json(args.paths, args.delta, args.baseline, args.candidate, args.targets)
    if stdout:
        out = output.binary_stdout()
        output.write_all(out, stdout.encode("utf-8", "surrogatepass"))
        out.flush()
    if stderr:
        output.warn(f"turnlens export: {stderr.rstrip()}")
    return status


# Parallel runs still open (their workers are stopped when the export ends early).
_open_runs: list = []


def _close_runs() -> None:
    while _open_runs:
        _open_runs.pop().close()


def _expand_folders(args) -> tuple[list[str], list[str]]:
    """Every path named; a folder gives the eval files discovered in it (evals/dialect.py), relative to the cwd.
    Also the folders in which none was found. A candidate file that could not be read or sniffed is named on
    stderr (left out silently, a broken eval file would go unnoticed)."""
    out: list[str] = []
    empty: list[str] = []
    for path in args.paths:
        if os.path.isdir(path):
            from turnlens.formatting.evals.dialect import discover_eval_files  # (only for a folder: start-up time)

            unread: list[tuple[str, str]] = []
            cut: list[tuple[str, str]] = []
            found = discover_eval_files(path, args.repo_root, unread=unread, cut=cut)
            for skipped, reason in [] if args.quiet else unread:
                output.warn(
                    f"turnlens export: warning: {os.path.relpath(skipped)}: not read, so not exported: {reason}"
                )
            for skipped, why in [] if args.quiet else cut:
                output.warn(f"turnlens export: warning: {os.path.relpath(skipped)}: {why}")
            if not found:
                empty.append(path)
            out.extend(os.path.relpath(p) for p in found)
        else:
            out.append(path)
    return out, empty


def _export_eval_files(args) -> int:
    # A batch job that allocates millions of objects and frees nothing early: the cyclic GC only costs time here.
    # What is left at the end lives until exit: kept out of the full collection interpreter shutdown runs.
    with gcpause.paused():
        status = _export_all(args)
        gcpause.keep_long_lived()
    return status


def _export_all(args) -> int:
    out = output.binary_stdout()
    status = 0
    paths, empty = _expand_folders(args)
    for folder in empty:
        output.warn(
            f"turnlens export: {folder}: is a folder with no eval files (AgentV 4 finds **/evals/**/*.eval.yaml and "
            "**/evals/**/eval.yaml, or the eval_patterns of .agentv/config.yaml; 0.15 files declare "
            "$schema: agentv-eval-v2)"
        )
        status = 1
    for path in paths:
        gcpause.drop_kept()  # what the file before built (the last file's is left for the exit)
        slices = _export_slices(path, args)
        try:
            for kind, value in slices:
                if kind == "error":
                    output.warn(f"turnlens export: {value}")
                    status = 1
                    break
            else:
                if not args.quiet:  # one write per slice: a big file can have thousands
                    for _, (diagnostics, _rows) in slices:
                        output.warn_lines([f"turnlens export: warning: {line}" for line in diagnostics])
                for _, (_diagnostics, rows) in slices:
                    if isinstance(rows, _SliceRows):
                        rows.write()
                    else:
                        _write_chunks(out, rows)
        except _SliceLost as exc:
            output.warn(
                f"turnlens export: {path}: a worker process stopped while writing ({exc}); the output is incomplete"
            )
            status = 1
        finally:
            for _, value in slices:
                if isinstance(value, tuple) and isinstance(value[1], _SliceRows):
                    value[1].close()
    output.write_all(out, b"")  # flushed, or one line saying why not
    return status


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
