"""Compare what every test sends in two versions of a tree of eval files, and say which changed files caused it.

Both versions are loaded and formatted by the engine exactly as the inspector and `turnlens export` do; each
version's own folder is then written as the repository's path in every text (agent mode names files by absolute
path), so a test whose inputs did not change reads the same in both. Plain data out: the command, the Markdown and
HTML writers and the inspector's view all read a `TreeDiff`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from turnlens.formatting.diff.trees import Tree
from turnlens.formatting.evals.files import FileReadError, read_bytes
from turnlens.formatting.model import EvalCase, EvalFile, FormattedCase, Rendered
from turnlens.formatting.records import JsonObject

# What a changed file is to a test that uses it (the `kind` of a cause).
EVAL_FILE = "eval file"
ATTACHMENT = "attachment"
GUIDELINE = "guideline"
ENV = ".env"
CONFIG = "config"
OTHER = "referenced file"  # a cases file, a JSONL dataset, a grader's prompt file…


@dataclass
class Cause:
    """A file a test uses that differs between the two versions."""

    file: str  # relative to the repository, with /
    kind: str  # EVAL_FILE, ATTACHMENT, GUIDELINE, ENV, CONFIG or OTHER
    change: str  # "modified", "added" (only in the new version) or "removed"

    def to_json(self) -> JsonObject:
        return {"file": self.file, "kind": self.kind, "change": self.change}


@dataclass
class FieldChange:
    """One field of what a test sends (e.g. `lm.question`), before and after (None: the field is absent)."""

    name: str
    before: str | None
    after: str | None


@dataclass
class TestRef:
    """A test only one version has."""

    id: str
    file: str
    line: int | None = None

    def to_json(self) -> JsonObject:
        return {"id": self.id, "file": self.file}


@dataclass
class TestChange:
    """A test both versions have whose prompts, marker rule or segment fates differ."""

    id: str
    file: str
    line: int | None
    fields: list[FieldChange]
    rule: tuple[str, str] | None  # ("FLAT", "MARK") when the marker rule flipped
    rule_before: str  # the rule's one-line summaries, for the reader
    rule_after: str
    fates: list[tuple[str, str]]  # segment fates that changed: (before, after), "" for a segment only one side has
    causes: list[Cause]

    @property
    def field_names(self) -> list[str]:
        names = [f.name for f in self.fields]
        if self.fates:
            names.append("markers.segments")
        return names

    def to_json(self) -> JsonObject:
        return {
            "id": self.id,
            "file": self.file,
            "fields": self.field_names,
            "rule": None if self.rule is None else {"before": self.rule[0], "after": self.rule[1]},
            "causes": [c.to_json() for c in self.causes],
        }


@dataclass
class TreeDiff:
    """Every test that was added, removed or changed between `before` and `after` (labels of the versions)."""

    before: str
    after: str
    added: list[TestRef] = field(default_factory=list)
    removed: list[TestRef] = field(default_factory=list)
    changed: list[TestChange] = field(default_factory=list)
    # one line per eval file that could not be read in one version, or not for the same reason in both (its tests
    # count as removed or added); a file refused alike in both is no change and is not named
    problems: list[str] = field(default_factory=list)
    files_compared: int = 0
    tests_compared: int = 0

    @property
    def any_change(self) -> bool:
        return bool(self.added or self.removed or self.changed)

    def to_json(self) -> JsonObject:
        return {
            "added": [t.to_json() for t in self.added],
            "removed": [t.to_json() for t in self.removed],
            "changed": [c.to_json() for c in self.changed],
        }

    def causes(self) -> list[tuple[Cause, list[TestChange]]]:
        """Each changed file with the changed tests that use it, in the order first seen."""
        by_file: dict[str, tuple[Cause, list[TestChange]]] = {}
        for change in self.changed:
            for cause in change.causes:
                by_file.setdefault(cause.file, (cause, []))[1].append(change)
        return list(by_file.values())


# ------------------------------------------------------------------------------------------------ one version


@dataclass
class _Snapshot:
    """What one test sends in one version, every path written as the repository's."""

    id: str
    file: str
    line: int | None
    fields: dict[str, str]
    markers: str  # "MARK", "FLAT" or "SKIP"
    rule: str
    fates: list[str]
    uses: dict[str, str]  # relative path -> kind, every file the test depends on


def _chat_text(rendered: Rendered) -> str | None:
    if rendered.chat_prompt is None:
        return None
    return "\n".join(f"[{m.role}]\n{m.content}" for m in rendered.chat_prompt)


def _grader_prompts(case: EvalCase, fc: FormattedCase, graders: bool) -> dict[str, str]:
    """Each grader's prompt in lm and agent mode. A dialect graded by `graders` (AgentV 4): every prompt the test's
    grading sends, in AgentV's order (formatting/graders: the default grader's only for a test without graders of
    its own), and each listed grader's definition (a `contains` value or a script changes what is checked, not a
    prompt). Else (0.15): the default evaluator's prompt and each of the case's own evaluators'."""
    from turnlens.formatting.prompts.agentv015 import evaluator_prompt

    out: dict[str, str] = {}
    if graders:
        from turnlens.formatting.graders.prompts import sent_prompts

        for mode in ("lm", "agent"):
            seen: dict[str, int] = {}
            for sent in sent_prompts(case, fc, mode):
                seen[sent.title] = seen.get(sent.title, 0) + 1
                title = sent.title if seen[sent.title] == 1 else f"{sent.title} #{seen[sent.title]}"
                text = sent.user if not sent.system else f"{sent.user}\n\n[system]\n{sent.system}"
                out[f"{mode}.grader[{title}]"] = text + (f"\n\n({sent.note})" if sent.note else "")
        names: dict[str, int] = {}
        for grader in case.assertions:
            names[grader.name] = names.get(grader.name, 0) + 1
            name = grader.name if names[grader.name] == 1 else f"{grader.name} #{names[grader.name]}"
            weight = "" if grader.weight is None else f" weight {grader.weight:g}"
            out[f"grader[{name}]"] = f"{grader.type}{weight}: {grader.detail}".rstrip(": ")
        return out
    agent_question = fc.agent.question
    out["lm.grader[default grader]"] = fc.evaluator_prompt
    out["agent.grader[default grader]"] = (
        evaluator_prompt(case.outcome or "", agent_question, case.reference_answer)
        if agent_question
        else fc.evaluator_prompt
    )
    for prompt in fc.evaluator_prompts or []:
        out[f"lm.evaluator[{prompt.name}]"] = prompt.prompt if prompt.prompt is not None else f"({prompt.type})"
    return out


def _case_fields(case: EvalCase, fc: FormattedCase) -> dict[str, str]:
    out: dict[str, str] = {}
    for mode in ("lm", "agent"):
        rendered = fc.rendered(mode)
        out[f"{mode}.question"] = rendered.question
        chat = _chat_text(rendered)
        if chat is not None:
            out[f"{mode}.chatPrompt"] = chat
        if rendered.labels.guidelines:
            out[f"{mode}.guidelines"] = rendered.guidelines
        elif rendered.system_message is not None:
            out[f"{mode}.systemMessage"] = rendered.system_message
    out.update(_grader_prompts(case, fc, fc.labels.graders))
    return out


def _segment_paths(case: EvalCase) -> dict[str, str]:
    """Absolute path -> kind of every file the test's own messages name (found or tried)."""
    out: dict[str, str] = {}
    guidelines = set(case.guideline_paths)
    for message in [*case.messages, *case.expected_messages, *case.expected_output]:
        for seg in message.segments:
            if seg.type != "file":
                continue
            kind = GUIDELINE if seg.is_guideline else ATTACHMENT
            for path in [seg.resolved_path, *seg.tried]:
                if path:
                    out.setdefault(path, GUIDELINE if path in guidelines else kind)
    for path in case.guideline_paths:
        out[path] = GUIDELINE
    return out


def _file_kind(path: str, ev: EvalFile) -> str:
    name = os.path.basename(path)
    if path == ev.abs_path:
        return EVAL_FILE
    if name == ".env":
        return ENV
    if path == ev.config.path or path.replace(os.sep, "/").endswith((".agentv/config.yaml", ".agentv/config.yml")):
        return CONFIG
    return OTHER


class _Rewriter:
    """Writes a version's folder as the repository's path in a text (and nothing else)."""

    def __init__(self, tree_root: str, shown_root: str):
        self.roots = sorted({tree_root, os.path.realpath(tree_root)}, key=len, reverse=True)
        self.shown = shown_root
        self.active = any(r != shown_root for r in self.roots)

    def __call__(self, text: str) -> str:
        if not self.active:
            return text
        for root in self.roots:
            if root != self.shown and root in text:
                text = text.replace(root, self.shown)
        return text


def _relative(path: str, root: str) -> str | None:
    """`path` relative to `root` with /, or None when it lies outside."""
    for base in (root, os.path.realpath(root)):
        rel = os.path.relpath(path, base)
        if rel != ".." and not rel.startswith(".." + os.sep) and not os.path.isabs(rel):
            return rel.replace(os.sep, "/")
    return None


def snapshot_version(
    tree: Tree,
    eval_paths: list[str],
    shown_root: str,
    cwd: str,
    environ: Mapping[str, str] | None = None,
    dialect: str = "auto",
    progress: Callable[[str], None] | None = None,
) -> tuple[dict[tuple[str, str, int], _Snapshot], dict[str, str]]:
    """Every test of the eval files at `eval_paths` (absolute, inside `tree.root`), keyed by (file, id, n: the
    n-th test of that id in the file), and why each refused file was refused."""
    from turnlens.formatting.dialects.format import format_case
    from turnlens.formatting.dialects.load import load_eval_file

    rewrite = _Rewriter(tree.root, shown_root)
    snapshots: dict[tuple[str, str, int], _Snapshot] = {}
    seen: dict[tuple[str, str], int] = {}  # how many tests of an id a file had so far
    problems: dict[str, str] = {}  # file -> why it was refused
    for path in eval_paths:
        rel_file = _relative(path, tree.root) or path
        if progress is not None:
            progress(rel_file)
        ev = load_eval_file(path, repo_root=tree.root, cwd=cwd, dialect=dialect, environ=environ)
        if ev.error is not None:
            problems[rel_file] = rewrite(ev.error.message)
            continue
        own_paths = [(case, _segment_paths(case)) for case in ev.cases]
        all_own = set().union(*(paths for _, paths in own_paths)) if own_paths else set()
        file_level = {p: _file_kind(p, ev) for p in ev.watched_paths if p not in all_own}
        file_level[ev.abs_path] = EVAL_FILE
        for case, own in own_paths:
            uses = {}
            for abs_path, kind in [*file_level.items(), *own.items()]:
                rel = _relative(abs_path, tree.root)
                if rel is not None:
                    uses[rel] = kind
            case_id = case.id if case.id is not None else f"#{case.index + 1}"
            n = seen.get((rel_file, case_id), 0)
            seen[(rel_file, case_id)] = n + 1
            key = (rel_file, case_id, n)
            if case.skipped is not None:
                snapshots[key] = _Snapshot(
                    case_id, rel_file, case.line, {"skipped": rewrite(case.skipped)}, "SKIP", "", [], uses
                )
                continue
            fc = format_case(case, ev)
            fields = {name: rewrite(text) for name, text in _case_fields(case, fc).items()}
            explanation = fc.explanation
            fates = [
                f"message {f.message_index + 1}, segment {f.segment_index + 1}"
                f"{' (' + rewrite(f.path) + ')' if f.path else ''}: {f.fate}"
                for f in explanation.segments
            ]
            snapshots[key] = _Snapshot(
                case_id,
                rel_file,
                case.line,
                fields,
                "MARK" if explanation.uses_markers else "FLAT",
                rewrite(explanation.summary),
                fates,
                uses,
            )
    return snapshots, problems


# ------------------------------------------------------------------------------------------------ both versions


def _field_order(name: str) -> tuple[int, int, int]:
    """Sort key of a field: the prompts first (lm before agent), then the graders' in the order the test sends
    them (a stable sort keeps it), then the rest."""
    mode, _, rest = name.partition(".")
    kinds = ("question", "chatPrompt", "systemMessage", "guidelines")
    if not rest:  # "skipped", "grader[x]"
        return (2, 0, 0)
    base = rest.split("[")[0]
    return (0 if base in kinds else 1, 0 if mode == "lm" else 1, kinds.index(base) if base in kinds else 9)


class _FileCompare:
    """Whether a file differs between the two versions (each relative path read once)."""

    def __init__(self, before: Tree, after: Tree):
        self.before, self.after = before, after
        self._known: dict[str, str | None] = {}

    def change(self, rel: str) -> str | None:
        if rel not in self._known:
            a = _read(os.path.join(self.before.root, rel))
            b = _read(os.path.join(self.after.root, rel))
            if a == b:
                self._known[rel] = None
            elif a is None:
                self._known[rel] = "added"
            elif b is None:
                self._known[rel] = "removed"
            else:
                self._known[rel] = "modified"
        return self._known[rel]


def _read(path: str) -> bytes | None:
    if os.path.isdir(path):
        return None
    try:
        return read_bytes(path)
    except FileReadError as exc:
        if exc.os_error is not None and isinstance(exc.os_error, (FileNotFoundError, NotADirectoryError)):
            return None
        return f"unreadable: {exc.reason}".encode()  # compared as such: the same refusal is no change


_KIND_ORDER = (EVAL_FILE, GUIDELINE, ATTACHMENT, ENV, CONFIG, OTHER)


def compare_snapshots(
    before: dict[tuple[str, str, int], _Snapshot],
    after: dict[tuple[str, str, int], _Snapshot],
    before_tree: Tree,
    after_tree: Tree,
) -> TreeDiff:
    diff = TreeDiff(before_tree.label, after_tree.label)
    files = _FileCompare(before_tree, after_tree)
    diff.files_compared = len({k[0] for k in before} | {k[0] for k in after})
    diff.tests_compared = len(set(before) | set(after))
    for key, snap in before.items():
        if key not in after:
            diff.removed.append(TestRef(snap.id, snap.file, snap.line))
    for key, snap in after.items():
        old = before.get(key)
        if old is None:
            diff.added.append(TestRef(snap.id, snap.file, snap.line))
            continue
        names = sorted([*old.fields, *(n for n in snap.fields if n not in old.fields)], key=_field_order)
        fields = [
            FieldChange(n, old.fields.get(n), snap.fields.get(n))
            for n in names
            if old.fields.get(n) != snap.fields.get(n)
        ]
        rule = None
        if old.markers != snap.markers and "SKIP" not in (old.markers, snap.markers):
            rule = (old.markers, snap.markers)
        fates = _fate_changes(old.fates, snap.fates)
        if not fields and rule is None and not fates:
            continue
        kinds = {**old.uses, **snap.uses}
        causes = []
        for rel in kinds:
            change = files.change(rel)
            if change is not None:
                causes.append(Cause(rel, kinds[rel], change))
        causes.sort(key=lambda c: (_KIND_ORDER.index(c.kind), c.file))
        diff.changed.append(TestChange(snap.id, snap.file, snap.line, fields, rule, old.rule, snap.rule, fates, causes))
    return diff


def _fate_changes(before: list[str], after: list[str]) -> list[tuple[str, str]]:
    """The segment fates that differ, paired by message and segment."""
    if before == after:
        return []

    def by_place(fates: Iterable[str]) -> dict[str, str]:
        return {f.split(" (", 1)[0].split(":", 1)[0]: f for f in fates}

    a, b = by_place(before), by_place(after)
    out = []
    for place in [*a, *(p for p in b if p not in a)]:
        if a.get(place) != b.get(place):
            out.append((a.get(place, ""), b.get(place, "")))
    return out
