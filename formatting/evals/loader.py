"""Loading an eval file in its dialect: the one entry point (`load_eval_file`) for every format. It reads and
decodes the file, parses the YAML, decides the dialect (evals/dialect.py) and hands the document to that dialect's
loader: agentv015.py or agentv4.py, peers that fill the same EvalCase/Message/Segment model.

Nothing here prints or raises for bad input: a refused file has `.error`, problems are `Diagnostic`s with file and
line.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Mapping
from typing import Any, cast

from turnlens.formatting.evals.files import YAML_SUFFIXES, FileReadError, read_bytes, wide_encoding
from turnlens.formatting.evals.paths import find_repo_root
from turnlens.formatting.evals.references import NOT_UTF8, decode_eval_bytes, read_error_text
from turnlens.formatting.evals.yaml12 import YamlError, parse_yaml, refusal_text
from turnlens.formatting.model import Diagnostic, Dialect, EvalFile, GuidelineConfig

OUT_OF_MEMORY = "out of memory while loading this file"


def _refuse_out_of_memory(load: Callable[..., EvalFile]) -> Callable[..., EvalFile]:
    """A load that runs out of memory (a file under every limit that still expands past this machine) refuses the
    file like any bad input, instead of a MemoryError leaving a worker thread and the app in a bad state."""

    @functools.wraps(load)
    def guarded(
        path: str | os.PathLike[str], repo_root: str | None = None, cwd: str | None = None, **kw: Any
    ) -> EvalFile:
        try:
            return load(path, repo_root, cwd, **kw)
        except MemoryError:
            pass  # the partial load is freed once out of this handler
        where = os.path.abspath(cwd or os.getcwd())
        root = os.path.abspath(repo_root) if repo_root else find_repo_root(where)
        result = EvalFile(str(path), os.path.join(where, str(path)), root, GuidelineConfig(None, []))
        from turnlens.formatting.memlimit import limit_hit

        message = f"{OUT_OF_MEMORY} ({limit_hit()})"
        result.error = Diagnostic(str(path), None, message, "error")
        return result

    return guarded


@_refuse_out_of_memory
def load_eval_file(
    path: str | os.PathLike[str],
    repo_root: str | None = None,
    cwd: str | None = None,
    *,
    text: str | None = None,
    first_case_index: int = 0,
    dialect: str = "auto",
    environ: Mapping[str, str] | None = None,
) -> EvalFile:
    """Load an eval file in its dialect. Never raises for bad input: a refused file has `.error`, problems are
    diagnostics. `dialect` is "auto" (the file's shape decides, see evals/dialect.py), "agentv-0.15" or "agentv-4".

    `text` (already decoded) and `first_case_index` let the parallel exporter load one slice of a big file.
    `environ` stands in for os.environ (AgentV 4's `${{ VAR }}`; `.env` files are read as well).
    """
    from turnlens.formatting.evals import agentv015, agentv4
    from turnlens.formatting.evals import dialect as dialects

    path = str(path)
    cwd = os.path.abspath(cwd or os.getcwd())
    repo_root = os.path.abspath(repo_root) if repo_root else find_repo_root(cwd)
    abs_path = os.path.abspath(os.path.join(cwd, path))
    result = EvalFile(path, abs_path, repo_root, GuidelineConfig(None, []))
    result.watched_paths.add(abs_path)

    def refuse(message: str, line: int | None = None) -> EvalFile:
        result.error = Diagnostic(path, line, message, "error")
        if os.path.islink(abs_path):  # what is refused (and where its line is) is the link's target
            target = os.path.realpath(abs_path)
            inside = abs_path.startswith(os.path.join(repo_root, ""))
            link = os.path.relpath(abs_path, repo_root).replace(os.sep, "/") if inside else path
            result.error = Diagnostic(target, line, f"{message} ({link} is a link to it)", "error")
        return result

    by_ext = dialects.by_extension(path) if dialect != "agentv-0.15" else None
    if by_ext is not None:
        result.dialect, result.dialect_reason = by_ext
        if dialect == "agentv-4":
            result.dialect_reason = dialects.forced_reason("agentv-4")
        if path.lower().endswith(dialects.TYPESCRIPT_EXTENSIONS):
            return refuse(f"{os.path.basename(path)} is {dialects.TYPESCRIPT_NOTE}")
    if text is None:
        try:
            raw_bytes = read_bytes(abs_path)
        except FileReadError as exc:
            # ours first, then Node's words for the error, as AgentV prints it
            if isinstance(exc.os_error, IsADirectoryError):
                return refuse(f"is a folder, not an eval file ({read_error_text(exc, abs_path)})")
            if isinstance(exc.os_error, FileNotFoundError):
                return refuse(f"file not found ({read_error_text(exc, abs_path)})")
            if exc.os_error is not None:
                return refuse(f"cannot be read ({read_error_text(exc, abs_path)})")
            return refuse(exc.reason)
        encoding = wide_encoding(raw_bytes)
        if encoding is not None:
            # AgentV's words (it reads the bytes as UTF-8 and finds no mapping), then why
            why = f"the file is {encoding} encoded; AgentV reads eval files as UTF-8 (save it as UTF-8)"
            return refuse(f"Invalid test file format: {path} ({why})", 1)
        text, bad_line = decode_eval_bytes(raw_bytes)
        if bad_line is not None:
            result.diagnostics.append(Diagnostic(path, bad_line, NOT_UTF8, "info"))
    if by_ext is not None:
        if path.lower().endswith(".jsonl"):
            return agentv4.load_jsonl(result, text, cwd, environ, first_case_index)
        return agentv4.load_skill_evals(result, text, cwd, environ)
    try:
        doc = parse_yaml(text)
    except YamlError as exc:
        return refuse(refusal_text(exc), exc.line)
    except Exception as exc:  # never a traceback for input, even one the parser trips on
        return refuse(f"could not be parsed as YAML ({type(exc).__name__}: {exc})")
    if dialect == "auto":
        unread = dialects.unread_format(doc.data)
        if unread is not None:
            result.dialect_reason = unread[1]
            return refuse(f"{unread[0]}: {unread[1]}", 1)
        result.dialect, result.dialect_reason = dialects.detect(path, doc.data)
    else:
        forced = cast(Dialect, dialect)  # checked against DIALECTS by the callers
        result.dialect, result.dialect_reason = forced, dialects.forced_reason(forced)
    if result.dialect == "agentv-4":
        if not path.lower().endswith(YAML_SUFFIXES):
            ext = os.path.splitext(path)[1]
            return refuse(f"Unsupported file format: '{ext}'. Supported formats: .yaml, .yml, .jsonl, .json, .ts")
        if "<<" in text:  # AgentV 4 reads merge keys (0.15.1 did not): parse again with them
            try:
                doc = parse_yaml(text, merge=True)
            except YamlError as exc:
                return refuse(refusal_text(exc), exc.line)
        for w in getattr(doc, "warnings", ()):
            result.diagnostics.append(Diagnostic(path, w.line, w.message, "info"))
        return agentv4.load_suite(result, doc, text, cwd, environ, first_case_index)
    return agentv015.load_suite(result, doc, cwd, first_case_index, text=text, environ=environ)
