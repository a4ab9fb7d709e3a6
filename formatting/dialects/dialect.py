"""What a dialect is: one frozen record of everything that differs between AgentV file formats, so that the engine
asks the dialect instead of comparing dialect names. Each dialect is one module beside this one that makes its
record; registry.py lists them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from turnlens.formatting.evals.yaml12 import YamlDoc
from turnlens.formatting.model import DialectLabels, EvalFile
from turnlens.formatting.prompts.parts import DialectFormatting


class TextLoader(Protocol):
    """Fills `result` from a file's decoded text (a JSONL dataset, an evals.json). `first_case_index`: the index
    of the first case, when the text is one slice of a big file."""

    def __call__(
        self, result: EvalFile, text: str, cwd: str, environ: Mapping[str, str] | None, first_case_index: int
    ) -> EvalFile: ...


class YamlLoader(Protocol):
    """Fills `result` from a parsed YAML eval file (`text`: its text, for line numbers and re-parsing)."""

    def __call__(
        self,
        result: EvalFile,
        doc: YamlDoc,
        text: str,
        cwd: str,
        environ: Mapping[str, str] | None,
        first_case_index: int,
    ) -> EvalFile: ...


@dataclass(frozen=True)
class FileType:
    """Files a dialect recognises by their extension alone, before reading them."""

    suffixes: tuple[str, ...]  # lower case, with the dot
    reason: str  # why such a file is in this dialect (EvalFile.dialect_reason)
    load: TextLoader | None  # None: recognised, never read (`refusal` says why)
    refusal: str = ""
    one_test_per_line: bool = False  # a big one is cut after a line (slices.jsonl_slices)


@dataclass(frozen=True)
class Dialect:
    """One AgentV file format: its name and labels, how its files are recognised and loaded, how its cases are
    formatted, and what differs in exporting them."""

    labels: DialectLabels  # its name, and what the UI says about it (model.DialectLabels)
    file_types: tuple[FileType, ...]  # extensions that settle the dialect before the file is read
    # Why a parsed YAML file is in this dialect, else None. Asked in registry order; the last dialect reads whatever
    # the others do not claim.
    claims: Callable[[Any], str | None]
    load_yaml: YamlLoader
    formatting: DialectFormatting  # its side of the formatting pipeline (prompts/engine.py)
    # The top-level list a big file of this dialect may be cut at for loading in slices (`evalcases`, `tests`),
    # given its path and text, or None when it must be loaded whole.
    slice_key: Callable[[str, str], str | None]
    # A later slice of a big file repeats the file's header, whose warnings (and its .env files') the first slice
    # already gave: only those at or after the slice's first case are kept.
    header_warnings_in_first_slice: bool

    @property
    def name(self) -> str:
        return self.labels.name
