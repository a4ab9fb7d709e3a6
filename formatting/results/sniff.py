"""Whether a file holds AgentV results rows, decided from its first 64 KiB, and whether a folder is a run folder.
What a path named on the command line opens as is decided from these by formatting/inputs.py.

A results file is JSONL whose first record is an object with a numeric `score` (AgentV 4 reads any such row), or
that names an `eval_id` / `test_id` (0.15-era and 4.x rows, even without a score); or YAML documents with a top-level
`eval_id:` or `test_id:` + `score:` and no `$schema: agentv-eval…` (that is an eval file).
"""

from __future__ import annotations

import math
import os
import re

import orjson

from turnlens.formatting.evals.files import YAML_SUFFIXES, FileReadError, read_head
from turnlens.formatting.patterns import LazyPattern

RESULTS_SUFFIXES = (".jsonl", ".ndjson", ".json", ".yaml", ".yml")
SNIFF_BYTES = 64 * 1024
INDEX_NAME = "index.jsonl"
# AgentV 4's run folder sidecars: JSON but never results rows.
RUN_SIDECARS = frozenset({"benchmark.json", "timing.json", "grading.json", "trace.json"})

_ID_KEY = LazyPattern(rb'"(?:eval_id|test_id|testId)"\s*:')
_SCORE_KEY = LazyPattern(rb'"score"\s*:\s*-?[0-9]')
# In one pass over the head (it runs before `turnlens export` starts): an eval file's schema, or a results key.
_YAML_KEYS = re.compile(rb"^(?:(\$schema\s*:\s*['\"]?agentv-eval)|(?:-\s+)?(eval_id|test_id|score)\s*:)", re.M)


def is_yaml_path(path: str) -> bool:
    return path.lower().endswith(YAML_SUFFIXES)


def _json_row_is_result(head: bytes) -> bool:
    stripped = head.removeprefix(b"\xef\xbb\xbf").lstrip()
    if not stripped.startswith(b"{"):
        return False
    first, newline, _ = stripped.partition(b"\n")
    if newline or len(head) < SNIFF_BYTES:
        try:
            data = orjson.loads(first)
        except orjson.JSONDecodeError:
            data = None
        if isinstance(data, dict):
            score = data.get("score")
            has_score = isinstance(score, (int, float)) and not isinstance(score, bool) and math.isfinite(score)
            return has_score or "eval_id" in data or "test_id" in data or "testId" in data
    # a first row longer than the sniff (a 10 MB answer), or broken: look for the keys in what was read
    return bool(_ID_KEY.search(stripped) or _SCORE_KEY.search(first))


def is_results_file(path: str) -> bool:
    """Cheap check, reading at most 64 KiB: does the file hold AgentV results rows (any era)?"""
    name = os.path.basename(path).lower()
    if not name.endswith(RESULTS_SUFFIXES) or name in RUN_SIDECARS:
        return False
    try:
        head = read_head(path, SNIFF_BYTES)  # a FIFO or a device is never opened for reading
    except (OSError, FileReadError):
        return False
    if is_yaml_path(path):
        keys = set()
        for match in _YAML_KEYS.finditer(head):
            if match.group(1):
                return False  # an eval file
            keys.add(match.group(2))
        return b"eval_id" in keys or (b"test_id" in keys and b"score" in keys)
    return _json_row_is_result(head)


def is_run_folder(path: str) -> bool:
    """An AgentV 4 run folder: its `index.jsonl` holds results rows."""
    index = os.path.join(path, INDEX_NAME)
    return os.path.isfile(index) and is_results_file(index)


def is_blank_json_lines(path: str) -> bool:
    """A file named explicitly, JSON lines by its name, that is blank or starts with an empty object `{}` (no
    result and no eval row): read as results, which then says there is no usable record (as an eval file it would
    only get a YAML error)."""
    if not path.lower().endswith((".jsonl", ".ndjson")):
        return False
    try:
        head = read_head(path, SNIFF_BYTES)
    except (OSError, FileReadError):
        return False
    first = head.removeprefix(b"\xef\xbb\xbf").lstrip().partition(b"\n")[0]
    try:
        return not first.strip() or orjson.loads(first) == {}
    except orjson.JSONDecodeError:
        return False
