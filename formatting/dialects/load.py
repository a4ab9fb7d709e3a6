"""Loading an eval file in its dialect: the one entry point (`load_eval_file`) for every format. It reads and
decodes the file, parses the YAML (evals/loader.py), asks the registry which dialect the file is in (its extension,
else its shape) and hands the document to that dialect's loader.

Nothing here prints or raises for bad input: a refused file has `.error`, problems are `Diagnostic`s with file and
line.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from turnlens.formatting.dialects import registry
from turnlens.formatting.dialects.dialect import FileType
from turnlens.formatting.dialects.unread import unread_format
from turnlens.formatting.evals.loader import (
    new_eval_file,
    parse_eval_yaml,
    read_eval_text,
    refuse,
    refuse_out_of_memory,
)
from turnlens.formatting.evals.paths import find_repo_root
from turnlens.formatting.model import EvalFile


@refuse_out_of_memory
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
    diagnostics. `dialect` is "auto" (the file's extension or shape decides, see registry.py) or a dialect's name
    (registry.names()).

    `text` (already decoded) and `first_case_index` let the parallel exporter load one slice of a big file.
    `environ` stands in for os.environ (AgentV 4's `${{ VAR }}`; `.env` files are read as well).
    """
    cwd = os.path.abspath(cwd or os.getcwd())
    repo_root = os.path.abspath(repo_root) if repo_root else find_repo_root(cwd)
    result = new_eval_file(path, repo_root, cwd)
    result.watched_paths.add(result.abs_path)
    forced = dialect != "auto"

    file_type: FileType | None = None  # a JSONL dataset, an evals.json: its name settles its dialect
    found = registry.by_file_type(result.path, dialect)
    if found is not None:
        read_as, file_type = found
        result.labels = read_as.labels
        result.dialect_reason = forced_reason(dialect) if forced else file_type.reason
        if file_type.load is None:
            return refuse(result, f"{os.path.basename(result.path)} is {file_type.refusal}")
    if text is None:
        text = read_eval_text(result)
        if text is None:
            return result
    if file_type is not None and file_type.load is not None:
        return file_type.load(result, text, cwd, environ, first_case_index)
    doc = parse_eval_yaml(result, text)
    if doc is None:
        return result
    if forced:
        read_as, result.dialect_reason = registry.named(dialect), forced_reason(dialect)
    else:
        detected = registry.detect(doc.data)
        if detected is None:  # a format turnlens recognises but does not read: named, not misread
            what, why = unread_format(doc.data) or ("a format turnlens does not read", "")
            result.dialect_reason = why
            return refuse(result, f"{what}: {why}", 1)
        read_as, result.dialect_reason = detected
    result.labels = read_as.labels
    return read_as.load_yaml(result, doc, text, cwd, environ, first_case_index)


def forced_reason(dialect: str) -> str:
    return f"--dialect {dialect} was given"
