"""The steps every dialect's load shares: a new EvalFile, reading and decoding the file, parsing its YAML, and
refusing it with a message that names the file and line. Which dialect reads a file, and its loader, are the
dialect's (formatting/dialects/: `load_eval_file` there is the one entry point for every format); the loaders,
agentv015.py and agentv4.py, are peers that fill the same EvalCase/Message/Segment model.

Nothing here prints or raises for bad input: a refused file has `.error`, problems are `Diagnostic`s with file and
line.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from typing import Any

from turnlens.formatting.evals.files import FileReadError, read_bytes, wide_encoding
from turnlens.formatting.evals.paths import find_repo_root
from turnlens.formatting.evals.references import NOT_UTF8, decode_eval_bytes, read_error_text
from turnlens.formatting.evals.yaml12 import YamlDoc, YamlError, parse_yaml, refusal_text
from turnlens.formatting.model import Diagnostic, EvalFile, GuidelineConfig

OUT_OF_MEMORY = "out of memory while loading this file"


def refuse_out_of_memory(load: Callable[..., EvalFile]) -> Callable[..., EvalFile]:
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
        result = new_eval_file(path, repo_root, cwd)
        from turnlens.formatting.memlimit import limit_hit

        message = f"{OUT_OF_MEMORY} ({limit_hit()})"
        result.error = Diagnostic(str(path), None, message, "error")
        return result

    return guarded


def new_eval_file(path: str | os.PathLike[str], repo_root: str | None, cwd: str | None) -> EvalFile:
    """The EvalFile a load fills: `path` as given, found from `cwd`; the repository root given or found from `cwd`."""
    where = os.path.abspath(cwd or os.getcwd())
    root = os.path.abspath(repo_root) if repo_root else find_repo_root(where)
    return EvalFile(str(path), os.path.abspath(os.path.join(where, str(path))), root, GuidelineConfig(None, []))


def refuse(result: EvalFile, message: str, line: int | None = None) -> EvalFile:
    """`result` refused: its error names the file (a link's target, where the line is) and the line."""
    path, abs_path, repo_root = result.path, result.abs_path, result.repo_root
    result.error = Diagnostic(path, line, message, "error")
    if os.path.islink(abs_path):  # what is refused (and where its line is) is the link's target
        target = os.path.realpath(abs_path)
        inside = abs_path.startswith(os.path.join(repo_root, ""))
        link = os.path.relpath(abs_path, repo_root).replace(os.sep, "/") if inside else path
        result.error = Diagnostic(target, line, f"{message} ({link} is a link to it)", "error")
    return result


def read_eval_text(result: EvalFile) -> str | None:
    """The file's text, decoded as AgentV decodes it (a byte that is not UTF-8 is a diagnostic), or None with
    `result` refused (unreadable, a folder, UTF-16/32)."""
    path, abs_path = result.path, result.abs_path
    try:
        raw_bytes = read_bytes(abs_path)
    except FileReadError as exc:
        # ours first, then Node's words for the error, as AgentV prints it
        if isinstance(exc.os_error, IsADirectoryError):
            refuse(result, f"is a folder, not an eval file ({read_error_text(exc, abs_path)})")
        elif isinstance(exc.os_error, FileNotFoundError):
            refuse(result, f"file not found ({read_error_text(exc, abs_path)})")
        elif exc.os_error is not None:
            refuse(result, f"cannot be read ({read_error_text(exc, abs_path)})")
        else:
            refuse(result, exc.reason)
        return None
    encoding = wide_encoding(raw_bytes)
    if encoding is not None:
        # AgentV's words (it reads the bytes as UTF-8 and finds no mapping), then why
        why = f"the file is {encoding} encoded; AgentV reads eval files as UTF-8 (save it as UTF-8)"
        refuse(result, f"Invalid test file format: {path} ({why})", 1)
        return None
    text, bad_line = decode_eval_bytes(raw_bytes)
    if bad_line is not None:
        result.diagnostics.append(Diagnostic(path, bad_line, NOT_UTF8, "info"))
    return text


def parse_eval_yaml(result: EvalFile, text: str, *, merge: bool = False) -> YamlDoc | None:
    """The file's YAML document (`merge`: with `<<` merge keys), or None with `result` refused (where the parser
    stopped, in AgentV's words)."""
    try:
        return parse_yaml(text, merge=merge)
    except YamlError as exc:
        refuse(result, refusal_text(exc), exc.line)
    except Exception as exc:  # never a traceback for input, even one the parser trips on
        refuse(result, f"could not be parsed as YAML ({type(exc).__name__}: {exc})")
    return None
