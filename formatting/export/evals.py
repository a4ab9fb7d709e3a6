"""Exporting eval files: every case as JSONL (contract: docs/export.md). The `turnlens export` command itself (its
options, which paths are results, exit statuses and Ctrl-C) is tui/export_cli.py; results export as results.py.

Kept free of textual/rich imports so the command starts fast.
"""

from __future__ import annotations

import gc
import math
import os
import sys
from collections.abc import Iterable, Iterator, Mapping
from typing import IO, TYPE_CHECKING, Any, BinaryIO, Protocol

from turnlens.formatting import gcpause
from turnlens.formatting.dialects.discover import discover_eval_files
from turnlens.formatting.dialects.format import format_case
from turnlens.formatting.dialects.load import load_eval_file
from turnlens.formatting.dialects.registry import cut_at, named, one_test_per_line
from turnlens.formatting.evals.files import (
    FileReadError,
    max_file_size,
    open_regular,
    read_bytes,
    wide_encoding,
)
from turnlens.formatting.evals.interpolate import is_env_note
from turnlens.formatting.export import output
from turnlens.formatting.graders.prompts import case_graders
from turnlens.formatting.jsstr import js_string_of
from turnlens.formatting.model import Diagnostic, EvalCase, EvalFile, Rendered
from turnlens.formatting.records import JsonObject

if TYPE_CHECKING:  # (imported where used: only a big file is cut and exported on every core)
    from turnlens.formatting.evals.slices import Slice
    from turnlens.formatting.export.parallel import DeferredSlices


class ExportOptions(Protocol):
    """What an eval files' export reads of the command's options (`turnlens export`'s argparse namespace)."""

    paths: list[str]
    repo_root: str | None
    profile: str
    dialect: str
    quiet: bool


def iter_rows(ev: EvalFile, profile: str = "agentv") -> Iterator[JsonObject]:
    """The export row of every case of a loaded eval file, in file order (skipped cases included)."""
    return _iter_rows(ev, profile, plain=True)


def _rendered_row(rendered: Rendered) -> JsonObject:
    """Rendered.to_json() with the ChatMessages left as they are: orjson writes a dataclass as its fields in
    order, which gives the same bytes without a dict per message."""
    if rendered.labels.guidelines:
        return {"question": rendered.question, "guidelines": rendered.guidelines, "chatPrompt": rendered.chat_prompt}
    return {
        "question": rendered.question,
        "chatPrompt": rendered.chat_prompt,
        "systemMessage": rendered.system_message,
    }


def _iter_rows(ev: EvalFile, profile: str, plain: bool) -> Iterator[JsonObject]:
    rel_paths: dict[str, str] = {}

    def rel(p: str) -> str:
        hit = rel_paths.get(p)
        if hit is None:
            hit = rel_paths[p] = os.path.relpath(p, ev.repo_root).replace(os.sep, "/")
        return hit

    dialect = ev.dialect
    graders = ev.labels.graders  # an AgentV 4 test's graders; else 0.15's guidelines and evaluators
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
        if graders:
            sent = case_graders(case, fc)
            row["lm"]["graders"] = sent["lm"]
            row["agent"]["graders"] = sent["agent"]
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


def _id_as_written(case: EvalCase) -> object:
    raw = case.raw_id
    if isinstance(raw, float) and not math.isfinite(raw):  # `id: 1e400`: JSON has no Infinity; JavaScript's text
        return js_string_of(raw)
    return raw if isinstance(raw, (str, int, float, bool)) else None


def export_rows(
    path: str,
    repo_root: str | None = None,
    profile: str = "agentv",
    cwd: str | None = None,
    dialect: str = "auto",
    environ: Mapping[str, str] | None = None,
) -> tuple[list[JsonObject], Diagnostic | None]:
    """The export rows of one eval file, or the reason it was refused."""
    ev = load_eval_file(path, repo_root=repo_root, cwd=cwd, dialect=dialect, environ=environ)
    if ev.error is not None:
        return [], ev.error
    return list(iter_rows(ev, profile)), None


def _export_one(
    path: str,
    args: ExportOptions,
    text: str | None = None,
    first_case_index: int = 0,
    config_diagnostics: bool = True,
) -> tuple[str, Any]:
    """("error", message) or ("ok", (file diagnostics, [(chunk of JSONL rows, its warnings), …])) for a file or a
    slice (see _chunked)."""
    return _rows_of(path, args, _load_one(path, args, text, first_case_index, config_diagnostics))


def _load_one(
    path: str,
    args: ExportOptions,
    text: str | None = None,
    first_case_index: int = 0,
    config_diagnostics: bool = True,
    dialect: str | None = None,
    cut: Slice | None = None,
) -> tuple[str, Any]:
    """The first half of _export_one: ("error", message) or ("ok", (file diagnostics, the loaded EvalFile)). Only
    loading can refuse a file; what follows only formats what was loaded. `cut`: the slice `text` is, when it
    borrows items of earlier slices (their cases are dropped here)."""
    if cut is not None:
        first_case_index = cut.load_first_case
    ev = load_eval_file(
        path, repo_root=args.repo_root, text=text, first_case_index=first_case_index, dialect=dialect or args.dialect
    )
    gcpause.keep_to_exit(ev)  # (when this process ends with os._exit: then it is never freed one object at a time)
    if ev.error is not None:  # one line on stderr: a multi-line reference message is joined
        return "error", " ".join(part.strip() for part in str(ev.error).splitlines() if part.strip())
    if cut is not None and cut.borrowed:
        from turnlens.formatting.evals.slices import drop_borrowed

        ev.cases, ev.diagnostics = drop_borrowed(ev.cases, ev.diagnostics, cut)
    diagnostics = ev.diagnostics if config_diagnostics else ev.diagnostics[len(ev.config.diagnostics) :]
    if not config_diagnostics and ev.cases and named(ev.dialect).header_warnings_in_first_slice:
        # a later slice: what its header (and its .env files) says was said by the first slice
        first_line = ev.cases[0].line or 0
        diagnostics = [d for d in diagnostics if d.line is not None and d.line >= first_line and d.file == ev.path]
    # what `${{ VAR }}` replaced in the suite is no warning (the inspector says it in the rule panel); a test's own
    # replacements are in its row's markers
    return "ok", ([str(d) for d in diagnostics if not (d.severity == "info" and is_env_note(d.message))], ev)


def _rows_of(path: str, args: ExportOptions, loaded: tuple[str, Any]) -> tuple[str, Any]:
    """The second half of _export_one: the rows of a loaded file (an error stays as it is)."""
    kind, value = loaded
    if kind == "error":
        return loaded
    diagnostics, ev = value
    # A skipped case's one warning comes from the engine (naming the case and why); an entry that is not a mapping
    # is reported once as a file-level warning. (A row's warnings are strings already: _iter_rows makes them.)
    rows = ((output.dumps_json(row), row["warnings"]) for row in _iter_rows(ev, args.profile, plain=False))
    return "ok", (diagnostics, _chunked(rows, args.quiet))


# The last slice's share of the cases, against the others' (split_slices): see _export_slices.
# (benchmarks/bench_export4.py: 1.04-1.06 finish first on a 5,000-test suite)
LAST_SLICE_SHARE = 1.05


def _export_slices(path: str, args: ExportOptions) -> list[tuple[str, Any]]:
    """The export of one file, in slices exported on every core when the file is big enough to gain from it.

    A sliced export's rows stay in the process that made them (a forked worker; this one for the last slice): in
    their place is a _SliceRows, which has them written (in order, once every slice was found good)."""
    from turnlens.formatting.evals.references import NOT_UTF8, decode_eval_bytes
    from turnlens.formatting.evals.slices import may_alias, split_slices
    from turnlens.formatting.export.parallel import DeferredSlices

    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    if not hasattr(os, "fork") or cores < 2:
        return [_export_one(path, args)]
    workers = min(cores, 8)
    if one_test_per_line(path, args.dialect):
        return _export_jsonl(path, args, workers)
    try:
        raw = read_bytes(path)
    except FileReadError:
        return [_export_one(path, args)]  # the loader words the refusal
    if wide_encoding(raw) is not None:
        return [_export_one(path, args)]
    text, bad_line = decode_eval_bytes(raw)
    del raw
    cut = cut_at(path, text, args.dialect)
    if cut is None:
        return [_export_one(path, args)]
    key, read_as = cut
    dialect = read_as.name  # every slice is read in the dialect whose rule cut the file
    # A big file is cut in slices of at most MAX_SLICE_BYTES, worked a round of `workers` at a time: memory stays
    # that of a round whatever the file's size.
    parts = max(workers, -(-len(text) // MAX_SLICE_BYTES))
    for count in dict.fromkeys((parts, workers)):  # too few cases for that many slices: one round
        # The last slice is worked in this process (DeferredSlices' `here`): without pages to copy on write, it
        # makes its rows ~10% faster than a forked worker, and its rows are written last; a 5% larger share evens
        # them out (in one round).
        share = LAST_SLICE_SHARE if count == workers else 1.0
        slices = split_slices(text, count, key, last_share=share)
        if slices is not None:
            break
    if slices is None:
        return [_export_one(path, args)]
    if len(slices) > workers:
        return _export_in_rounds(path, args, text, slices, workers, dialect, bad_line, may_alias(text))
    out = output.binary_stdout()
    run = DeferredSlices(
        text,
        slices,
        lambda piece, n: _load_one(path, args, piece, slices[n].first_case, n == 0, dialect, slices[n]),
        _summary,
        lambda result: _write_chunks(out, result[1][1]),
        complete=lambda loaded: _rows_of(path, args, loaded),
        here=True,
    )
    errors = [r for r in run.summaries if r[0] == "error"]
    if errors:
        run.close()
        return [_export_one(path, args) if may_alias(text) else errors[0]]
    results = [(kind, (diagnostics, _SliceRows(run, n))) for n, (kind, (diagnostics, _)) in enumerate(run.summaries)]
    if bad_line is not None:
        results[0][1][0].insert(0, f"{path}:{bad_line}: {NOT_UTF8}")
    return results


# A slice's text at most, when a file is cut in more slices than there are workers (see _export_in_rounds): the
# export's memory is a round's (a slice per worker) whatever the file's size.
MAX_SLICE_BYTES = 1 << 20
# A JSONL dataset's: its tests are short, so a byte of it loads to more objects than a byte of YAML (its slices are
# worked by a pool of workers, one slice at a time each: see _export_jsonl).
JSONL_SLICE_BYTES = 128 << 10


def _export_in_rounds(
    path: str,
    args: ExportOptions,
    text: str,
    slices: list[Slice],
    workers: int,
    dialect: str,
    bad_line: int | None,
    aliasing: bool,
) -> list[tuple[str, Any]]:
    """The export of a file cut in more slices than workers: a round of `workers` slices after another, each
    round's rows (and their warnings) written to temporary files as the round ends and its memory let go; once
    every slice was found good, _SpooledRows writes them out. A refused slice stops the export with nothing on
    stdout, as when the file is exported whole."""
    import tempfile

    from turnlens.formatting.evals.references import NOT_UTF8
    from turnlens.formatting.export.parallel import DeferredSlices, SliceLost

    rows_file = tempfile.TemporaryFile()  # (unlinked: gone with the process whatever happens)
    warnings_file = tempfile.TemporaryFile()
    spooled = _SpooledRows(rows_file, warnings_file)
    diagnostics: list[str] = []
    try:
        for start in range(0, len(slices), workers):
            group = slices[start : start + workers]

            def load(piece: str, n: int, group: list[Slice] = group, start: int = start) -> tuple[str, Any]:
                return _load_one(path, args, piece, group[n].first_case, start + n == 0, dialect, group[n])

            run = DeferredSlices(
                text,
                group,
                load,
                _summary,
                spooled.spool,
                complete=lambda loaded: _rows_of(path, args, loaded),
                here=True,
                first=slices[0],
            )
            try:
                errors = [r for r in run.summaries if r[0] == "error"]
                if errors:
                    spooled.close()
                    return [_export_one(path, args) if aliasing else errors[0]]
                for _kind, (slice_diagnostics, _) in run.summaries:
                    diagnostics.extend(slice_diagnostics)
                for number in range(len(group)):
                    run.emit(number)
            finally:
                run.close()
            gcpause.drop_kept()  # the round's slice loaded here: let go before the next round
            gcpause.collect_round()
    except SliceLost as exc:
        spooled.close()
        raise _SliceLost(str(exc)) from None
    except BaseException:
        spooled.close()
        raise
    if bad_line is not None:
        diagnostics.insert(0, f"{path}:{bad_line}: {NOT_UTF8}")
    return [("ok", (diagnostics, spooled))]


def _export_jsonl(path: str, args: ExportOptions, workers: int) -> list[tuple[str, Any]]:
    """The export of a JSONL dataset, in slices of about JSONL_SLICE_BYTES when it is big enough to gain from it.

    This process only finds where the slices are (a pass over the file's bytes, never decoded whole); a pool of
    workers (parallel.SlicePool) reads, loads and formats one slice after another, each its own byte range, and
    writes the slice's rows and warnings to its own temporary files. Once every slice was found good, _PooledRows
    copies them out in slice order; a refused slice refuses the file with nothing on stdout, as when it is exported
    whole. So memory is one slice per worker whatever the file's size."""
    from turnlens.formatting.evals.references import NOT_UTF8
    from turnlens.formatting.evals.slices import MIN_PARALLEL_BYTES, jsonl_slices
    from turnlens.formatting.export.parallel import SlicePool

    try:
        fd, size = open_regular(path)
    except FileReadError:
        return [_export_one(path, args)]  # the loader words the refusal
    try:
        if size < MIN_PARALLEL_BYTES or size > max_file_size() or wide_encoding(os.pread(fd, 64, 0)) is not None:
            return [_export_one(path, args)]
        slices = jsonl_slices(fd, JSONL_SLICE_BYTES)
        if slices is None or slices[-1].end_offset > max_file_size():  # (it grew while read)
            return [_export_one(path, args)]
        spools = [_SliceSpool() for _ in range(min(workers, len(slices)) + 1)]  # a worker's each, and this process's
        try:

            def work(number: int, place: int) -> tuple[str, Any]:
                return _jsonl_slice(path, args, fd, slices, number, spools, place)

            summaries = SlicePool(len(slices), workers, work).run(stop=lambda summary: summary[0] == "error")
            if summaries[-1][0] == "error":
                for spool in spools:
                    spool.close()
                return [summaries[-1]]
        except BaseException:
            for spool in spools:
                spool.close()
            raise
    finally:
        os.close(fd)
    diagnostics = [line for _kind, (slice_diagnostics, _bad, _place) in summaries for line in slice_diagnostics]
    bad_lines = [bad for _kind, (_diagnostics, bad, _place) in summaries if bad is not None]
    if bad_lines:
        diagnostics.insert(0, f"{path}:{bad_lines[0]}: {NOT_UTF8}")
    return [("ok", (diagnostics, _PooledRows(spools, [place for _kind, (_d, _b, place) in summaries])))]


def _jsonl_slice(
    path: str, args: ExportOptions, fd: int, slices: list[Slice], number: int, spools: list[_SliceSpool], place: int
) -> tuple[str, Any]:
    """A JSONL dataset's slice `number`, read from `fd`, loaded and formatted: its rows and their warnings to
    `spools[place]`. ("error", message), or ("ok", (file diagnostics, the line of its first byte that is not UTF-8
    or None, (place, where its output is in that spool)))."""
    from turnlens.formatting.evals.references import decode_eval_bytes

    cut = slices[number]
    raw = _read_range(fd, cut.start_offset, cut.end_offset)
    text, bad = decode_eval_bytes(raw)
    del raw
    if number + 1 < len(slices):
        text = text[:-1]  # its last line break: the next slice's lines follow it
    # at its own line numbers: a line break per line of the slices before it
    loaded = _load_one(path, args, "\n" * cut.start_line + text, cut.first_case, number == 0, args.dialect)
    del text
    try:
        if loaded[0] == "error":
            return loaded
        diagnostics, ev = loaded[1]
        where = spools[place].add(_iter_rows(ev, args.profile, plain=False), args.quiet)
        return "ok", (diagnostics, None if bad is None else cut.start_line + bad, (place, where))
    finally:
        del loaded
        gcpause.drop_kept()
        gc.collect()  # the slice's cases hold cycles: freed before the next slice


def _read_range(fd: int, start: int, end: int) -> bytes:
    """The file's bytes [start, end) (fewer when it shrank meanwhile)."""
    parts, got = [], start
    while got < end:
        part = os.pread(fd, end - got, got)
        if not part:
            break
        parts.append(part)
        got += len(part)
    return b"".join(parts)


class _SliceSpool:
    """A worker's two temporary files: the rows of the slices it worked, and their warnings (made by the parent
    before the fork: each worker writes its own, the parent reads them all)."""

    BLOCK = 1 << 20

    def __init__(self) -> None:
        import tempfile

        self.rows_file, self.warnings_file = tempfile.TemporaryFile(), tempfile.TemporaryFile()

    def add(self, rows: Iterable[JsonObject], quiet: bool) -> tuple[int, int, int, int]:
        """A slice's rows (JSONL) and their warnings appended: (rows offset, size, warnings offset, size)."""
        rows_fd, warnings_fd = self.rows_file.fileno(), self.warnings_file.fileno()
        rows_at, warnings_at = os.lseek(rows_fd, 0, os.SEEK_END), os.lseek(warnings_fd, 0, os.SEEK_END)
        rows_size = warnings_size = size = 0
        lines: list[bytes] = []
        warnings: list[str] = []
        try:
            for row in rows:
                data = output.dumps_json(row)
                lines.append(data)
                size += len(data) + 1
                if row["warnings"] and not quiet:
                    warnings.extend(f"turnlens export: warning: {line}\n" for line in row["warnings"])
                if size >= self.BLOCK:
                    lines.append(b"")
                    _write_fd(rows_fd, b"\n".join(lines))
                    rows_size, lines, size = rows_size + size, [], 0
            if lines:
                lines.append(b"")
                _write_fd(rows_fd, b"\n".join(lines))
                rows_size += size
            if warnings:
                data = "".join(warnings).encode("utf-8", "surrogatepass")
                _write_fd(warnings_fd, data)
                warnings_size = len(data)
        except OSError as exc:
            raise output.OutputError(f"cannot keep the rows in a temporary file ({exc.strerror or exc})") from None
        return rows_at, rows_size, warnings_at, warnings_size

    def close(self) -> None:
        for spool in (self.rows_file, self.warnings_file):
            try:
                spool.close()
            except OSError:
                pass


class _PooledRows:
    """The rows of a JSONL dataset exported by a SlicePool: each slice's in the spool of the process that worked
    it, written in slice order (all the warnings first, as the rounds of _SpooledRows)."""

    def __init__(self, spools: list[_SliceSpool], places: list[tuple[int, tuple[int, int, int, int]]]) -> None:
        self.spools, self.places = spools, places

    def write(self) -> None:
        """The warnings to stderr, then the rows to stdout, a block of whole rows at a time."""
        for place, (_rows_at, _rows_size, warnings_at, warnings_size) in self.places:
            spool = self.spools[place].warnings_file.fileno()
            for block in _blocks(spool, warnings_at, warnings_size):
                output.warn_lines(block.decode("utf-8", "surrogatepass").split("\n")[:-1])
        out = output.binary_stdout()
        for place, (rows_at, rows_size, _warnings_at, _warnings_size) in self.places:
            spool = self.spools[place].rows_file.fileno()
            if not output.copy_rows(out, spool, rows_at, rows_size):  # (a slice's rows: ~16x the bytes it read)
                for block in _blocks(spool, rows_at, rows_size):
                    output.write_rows(out, block)

    def close(self) -> None:
        for spool in self.spools:
            spool.close()


def _blocks(fd: int, start: int, size: int, block: int = 1 << 20) -> Iterator[bytes]:
    """The bytes [start, start + size) of a file of lines, in blocks of whole lines."""
    rest = b""
    end = start + size
    while start < end:
        data = os.pread(fd, min(block, end - start), start)
        if not data:
            break
        start += len(data)
        data = rest + data
        cut = data.rfind(b"\n") + 1
        if cut:
            yield data[:cut]
        rest = data[cut:]
    if rest:
        yield rest


class _SpooledRows:
    """The rows of a file exported in rounds, in a temporary file (their warnings in another) until written."""

    BLOCK = 4 << 20

    def __init__(self, rows_file: IO[bytes], warnings_file: IO[bytes]) -> None:
        self.rows_file, self.warnings_file = rows_file, warnings_file

    def spool(self, result: tuple[str, Any]) -> None:
        """A slice's chunks (see _chunked) to the files; in the process that made them (the files' offsets are
        shared with the forked workers, which write in turn)."""
        try:
            for data, warnings in result[1][1]:
                if warnings:
                    _write_fd(
                        self.warnings_file.fileno(),
                        "".join([line + "\n" for line in warnings]).encode("utf-8", "surrogatepass"),
                    )
                _write_fd(self.rows_file.fileno(), data)
        except OSError as exc:
            raise output.OutputError(f"cannot keep the rows in a temporary file ({exc.strerror or exc})") from None

    def write(self) -> None:
        """The warnings to stderr, then the rows to stdout, a block of whole rows at a time."""
        for block in self._blocks(self.warnings_file):
            # Cut at the line feeds spool() wrote only: a warning may hold other line breaks (\x1c, \x85,
            # \u2028), which sanitize shows on the warning's own line, as an export not cut in slices does.
            output.warn_lines(block.decode("utf-8", "surrogatepass").removesuffix("\n").split("\n"))
        out = output.binary_stdout()
        for block in self._blocks(self.rows_file):
            output.write_rows(out, block)

    def _blocks(self, spool: IO[bytes]) -> Iterator[bytes]:
        """The file's bytes in blocks that end at a line's end."""
        fd = spool.fileno()
        return _blocks(fd, 0, os.fstat(fd).st_size, self.BLOCK)

    def close(self) -> None:
        for spool in (self.rows_file, self.warnings_file):
            try:
                spool.close()
            except OSError:
                pass


def _write_fd(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _summary(result: tuple[str, Any]) -> tuple[str, Any]:
    """What a worker tells the parent about its slice as soon as it is loaded: the error, or the file diagnostics
    (its rows are made and kept there)."""
    kind, value = result
    return result if kind == "error" else (kind, (value[0], None))


class _SliceLost(Exception):
    """A worker stopped while writing its slice (parallel.SliceLost, without importing that module up front)."""


class _SliceRows:
    """The rows of one slice, held by the process that made them."""

    def __init__(self, run: DeferredSlices, number: int):
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


def _write_chunks(out: BinaryIO, chunks: list[tuple[bytes, list[str]]]) -> None:
    for data, warnings in chunks:
        output.warn_lines(warnings)
        output.write_rows(out, data)  # every byte, whole rows (a short write is continued)


def _write_rows(out: BinaryIO, rows: list[tuple[bytes, list[str]]], quiet: bool) -> None:
    """Rows as JSONL lines; each row's warnings go to stderr just before the chunk of lines holding it."""
    _write_chunks(out, _chunked(rows, quiet))


def _expand_folders(args: ExportOptions) -> tuple[list[str], list[str]]:
    """Every path named; a folder gives the eval files discovered in it (dialects/discover.py), relative to the cwd.
    Also the folders in which none was found. A candidate file that could not be read or sniffed is named on
    stderr (left out silently, a broken eval file would go unnoticed)."""
    out: list[str] = []
    empty: list[str] = []
    for path in args.paths:
        if os.path.isdir(path):
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


def export_eval_files(args: ExportOptions) -> int:
    """Write the JSONL export of every eval file (or folder of them) in `args.paths` to stdout, warnings on stderr
    (`args`: repo_root, profile, dialect, quiet, as `turnlens export` parses them). Returns 0, or 1 when a file was
    refused or a folder held none. Ctrl-C and output errors are raised, for the command to word."""
    try:
        return _export_eval_files(args)
    finally:
        _end_workers()


def _end_workers() -> None:
    """Every worker process the export forked ended and waited for (bounded), however the export ends: done, a
    refused file, Ctrl-C, a closed output, an error. (Nothing was forked if the module that forks was never
    imported: not imported for that.)"""
    parallel = sys.modules.get("turnlens.formatting.export.parallel")
    if parallel is not None:
        parallel.end_children()


def _export_eval_files(args: ExportOptions) -> int:
    # A batch job that allocates millions of objects and frees nothing early: the cyclic GC only costs time here.
    # What is left at the end lives until exit: kept out of the full collection interpreter shutdown runs.
    with gcpause.paused():
        status = _export_all(args)
        gcpause.keep_long_lived()
    return status


def _export_all(args: ExportOptions) -> int:
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
                    if isinstance(rows, (_SliceRows, _SpooledRows, _PooledRows)):
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
                if isinstance(value, tuple) and isinstance(value[1], (_SliceRows, _SpooledRows, _PooledRows)):
                    value[1].close()
    output.write_all(out, b"")  # flushed, or one line saying why not
    return status
