"""Drift: does the request a result recorded still equal what the eval file produces today?

For a result, find the eval file and case behind it (`--evals PATH`, or the eval files under the project root the
results file lives in: `<root>/.agentv/results/x.jsonl` -> eval files under `<root>`), recompute the request with
the engine (profile `agentv`, what AgentV sends) and compare it with the recorded `lm_provider_request` /
`agent_provider_request` and evaluator prompt. Pure Python; the engine is imported lazily.
"""

from __future__ import annotations

import difflib
import os
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from turnlens.formatting.cancel import never
from turnlens.formatting.dialects.discover import find_eval_files
from turnlens.formatting.evals.files import display_path
from turnlens.formatting.jsstr import js_trim
from turnlens.formatting.model import ChatMessage, EvalCase, EvalFile, FormattedCase, Rendered
from turnlens.formatting.results.agentv4 import GraderScore
from turnlens.formatting.results.record import ResultRecord
from turnlens.formatting.results.sniff import is_run_folder
from turnlens.formatting.wording import plural

if TYPE_CHECKING:
    from turnlens.formatting.results.task_bundle import TaskBundle

DriftStatus = Literal["equal", "drifted", "eval not found", "nothing recorded", "eval refused", "case skipped"]
AS_RUN = "as run"  # FieldDrift.baseline of a part of the test as run (its task bundle)
MAX_EVAL_FILES = 2000  # eval files looked at, at most: drift is a convenience, not a crawler


@dataclass
class FieldDrift:
    field: str  # e.g. "lm question", "lm chat_prompt", "evaluator prompt"
    recorded: str
    current: str
    diff: str  # unified diff, recorded -> current
    # what `recorded` is: what the row recorded it sent, or the test as run (the run's task bundle, task_bundle.py)
    baseline: str = "recorded"

    @property
    def equal(self) -> bool:
        return self.recorded == self.current


@dataclass
class DriftReport:
    status: DriftStatus
    message: str  # one line for the UI
    eval_file: str | None = None
    case_line: int | None = None
    fields: list[FieldDrift] = field(default_factory=list)  # every compared field, equal ones included
    notes: list[str] = field(default_factory=list)  # what was recorded but not compared, and why

    @property
    def drifted_fields(self) -> list[FieldDrift]:
        return [f for f in self.fields if not f.equal]


def chat_prompt_text(messages: list[ChatMessage] | None) -> str:
    """A chat prompt as diffable text: one `── role ──` header line per message (roles verbatim, not capitalised)."""
    if messages is None:
        return "(no chat_prompt)"
    return "\n\n".join(f"── {m.role} ──\n{m.content}" for m in messages)


def unified_diff(recorded: str, current: str, name: str, labels: tuple[str, str] = ("recorded", "current")) -> str:
    lines = difflib.unified_diff(
        recorded.splitlines(keepends=True),
        current.splitlines(keepends=True),
        fromfile=f"{labels[0]} {name}",
        tofile=f"{labels[1]} {name}",
        n=2,
    )
    out = []
    for line in lines:
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of text\n")
    return "".join(out)


def _compare(name: str, recorded: str, current: str) -> FieldDrift:
    return FieldDrift(name, recorded, current, "" if recorded == current else unified_diff(recorded, current, name))


_PATH_END = re.compile(r"[\s\"'<>`]")


def moved_root(recorded: str, current: str, root: str) -> str | None:
    """The repository root the run was recorded in, when `recorded` differs from `current` only by it: every
    absolute path under it is under `root` now (a moved checkout, CI against a laptop). Else None."""
    root = root.rstrip("/")
    if not root or recorded == current:
        return None
    start = current.find(root + "/")
    if start < 0 or recorded[:start] != current[:start]:
        return None
    after = current[start + len(root) :]  # "/fixtures/x.md …": what follows the root, up to the path's end
    end = _PATH_END.search(after)
    rest = after[: end.start()] if end else after
    found = recorded.find(rest, start)
    old = recorded[start:found] if found > start else ""
    if not old.startswith("/") or _PATH_END.search(old) or old == root:
        return None
    return old if recorded.replace(old + "/", root + "/") == current else None


def _normalised_checkout(fields: list[FieldDrift], root: str, notes: list[str]) -> list[FieldDrift]:
    """Fields that differ only by the checkout's absolute location are equal, with a note saying so."""
    out, moved = [], set()
    for item in fields:
        old = None if item.equal else moved_root(item.recorded, item.current, root)
        if old is None:
            out.append(item)
            continue
        moved.add(old)
        out.append(FieldDrift(item.field, item.current, item.current, "", item.baseline))
    for old in sorted(moved):
        notes.append(
            f"recorded in another checkout ({old}): its absolute paths are read as under {root}; a moved checkout "
            "is not drift"
        )
    return out


def project_root_of(results_path: str) -> str:
    """`<root>/.agentv/results/x.jsonl` -> `<root>`; otherwise the results file's folder."""
    absolute = os.path.abspath(results_path)
    folder = absolute if os.path.isdir(absolute) else os.path.dirname(absolute)
    current = folder
    while True:
        if os.path.basename(current) == ".agentv":
            return os.path.dirname(current)
        parent = os.path.dirname(current)
        if parent == current:
            return folder
        current = parent


def in_a_run(path: str) -> bool:
    """A run's task bundle (`<run>/<suite>/<test>/task/EVAL.yaml`): the test as run, never the test now."""
    parent = os.path.dirname(path)
    if os.path.basename(path) != "EVAL.yaml" or os.path.basename(parent) != "task":
        return False
    folder = os.path.dirname(parent)  # <test>, then <suite>, <run>, and one more level for a nested test id
    for _ in range(4):
        if is_run_folder(folder):
            return True
        folder = os.path.dirname(folder)
    return False


def _dataset_name(path: str) -> str:
    return os.path.splitext(os.path.basename(path))[0]


class DriftChecker:
    """Finds the eval case behind a result and compares. Eval files are loaded once and cached; thread-safe."""

    def __init__(self, results_path: str, evals: str | None = None, repo_root: str | None = None) -> None:
        self.results_path = results_path
        self.root = os.path.abspath(evals) if evals else project_root_of(results_path)
        # `.agentv/` lives at the repo root in AgentV projects; an explicit --repo-root wins
        self.repo_root = repo_root or (project_root_of(results_path) if not evals else None)
        self._lock = threading.Lock()
        self._eval_paths: list[str] | None = None
        self._loaded: dict[str, EvalFile] = {}
        self._by_id: dict[str, list[tuple[str, int]]] | None = None
        self._formatted: dict[tuple[str, int], FormattedCase] = {}  # a case is formatted once, however many results

    @property
    def eval_paths(self) -> list[str]:
        return self.find_eval_paths()

    def find_eval_paths(self, cancelled: Callable[[], bool] = never) -> list[str]:
        """The eval files under the root, found once; `cancelled()` true stops the search (formatting.cancel's
        Cancelled; a later call searches again): a results file in a big folder (/tmp) had q wait seconds for it."""
        with self._lock:
            if self._eval_paths is None:
                found = (
                    find_eval_files([self.root], dot_names=False, limit=MAX_EVAL_FILES, cancelled=cancelled)
                    if os.path.exists(self.root)
                    else []
                )
                self._eval_paths = [path for path in found if not in_a_run(path)]
            return self._eval_paths

    def _load(self, path: str) -> EvalFile:
        from turnlens.formatting.dialects.load import load_eval_file

        eval_file = self._loaded.get(path)
        if eval_file is None:
            eval_file = load_eval_file(path, repo_root=self.repo_root, cwd=os.path.dirname(path))
            self._loaded[path] = eval_file
        return eval_file

    def _index(self) -> dict[str, list[tuple[str, int]]]:
        paths = self.eval_paths
        with self._lock:
            if self._by_id is None:
                by_id: dict[str, list[tuple[str, int]]] = {}
                for path in paths:
                    eval_file = self._load(path)
                    for case in eval_file.cases:
                        if case.id is not None:
                            by_id.setdefault(case.id, []).append((path, case.index))
                self._by_id = by_id
            return self._by_id

    def find_case(self, eval_id: str | None, dataset: str | None) -> tuple[EvalFile, EvalCase] | None:
        if not eval_id:
            return None
        places = self._index().get(eval_id, [])
        if not places:
            return None
        # several files hold the id: the one whose name (AgentV's default dataset), `dataset:` or AgentV 4 suite
        # name matches wins
        chosen = places[0]
        if len(places) > 1 and dataset:
            for path, index in places:
                suite = getattr(self._loaded[path], "suite_name", None)
                if _dataset_name(path) == dataset or suite == dataset or _dataset_name(path) == f"{dataset}.eval":
                    chosen = (path, index)
                    break
        path, index = chosen
        eval_file = self._loaded[path]
        return eval_file, eval_file.cases[index]

    def check(self, record: ResultRecord) -> DriftReport:
        if record.v4 is not None:
            return self._check_v4(record)
        if record.lm_request is None and record.agent_request is None and record.evaluator_request is None:
            return DriftReport("nothing recorded", "the result recorded no provider request")
        if not self.eval_paths:
            return DriftReport("eval not found", f"no eval files under {display_path(self.root)}")
        found = self.find_case(record.eval_id, record.dataset)
        if found is None:
            return DriftReport(
                "eval not found", f"no eval case with id {record.eval_id!r} under {display_path(self.root)}"
            )
        eval_file, case = found
        if eval_file.error is not None:
            return DriftReport("eval refused", str(eval_file.error), eval_file.path)
        if case.skipped is not None:
            return DriftReport("case skipped", f"the case is skipped: {case.skipped}", eval_file.path, case.line)
        key = (eval_file.path, case.index)
        formatted = self._formatted.get(key)
        if formatted is None:
            from turnlens.formatting.dialects.format import format_case

            formatted = self._formatted[key] = format_case(case, eval_file, "agentv")
        return compare_with_case(record, eval_file, case, formatted)

    def _run_folder(self) -> str | None:
        path = os.path.abspath(self.results_path)
        if os.path.isdir(path):
            return path
        return os.path.dirname(path) if os.path.basename(path) == "index.jsonl" else None

    def _check_v4(self, record: ResultRecord) -> DriftReport:
        """An AgentV 4 result: its recorded input (`requests.lm/agent`, `input`, the run folder's input.md)
        against the test as the engine formats it today, and the test as run (its task bundle) against the test
        now."""
        from turnlens.formatting.results.task_bundle import not_this_test, task_bundle

        input_md = None
        folder = self._run_folder()
        if folder is not None and record.v4.input_messages is None and record.lm_request is None:
            from turnlens.formatting.results.artifacts import load_artifacts

            input_md = load_artifacts(record, folder).input_md
        bundle = task_bundle(record, folder)
        bundle_notes = [bundle.problem] if bundle.problem else []
        mismatch = not_this_test(record, bundle)
        if mismatch is not None:
            bundle.case = None
            bundle_notes.append(mismatch)
        has_input = record.v4.input_messages is not None or record.v4.input_text is not None
        has_grader_prompt = bool(recorded_grader_prompts(record))
        if (
            record.lm_request is None
            and record.agent_request is None
            and not has_input
            and input_md is None
            and not has_grader_prompt
            and bundle.case is None
        ):
            return DriftReport(
                "nothing recorded",
                "the result recorded no input and no grader prompt (no input.md, no task bundle in the run folder)",
                notes=bundle_notes,
            )
        as_run = " (the test as run is in the run's task bundle)" if bundle.case is not None else ""
        if not self.eval_paths:
            return DriftReport(
                "eval not found", f"no eval files under {display_path(self.root)}{as_run}", notes=bundle_notes
            )
        found = self.find_case(record.eval_id, record.dataset)
        if found is None:
            return DriftReport(
                "eval not found",
                f"no test with id {record.eval_id!r} under {display_path(self.root)}{as_run}",
                notes=bundle_notes,
            )
        eval_file, case = found
        if eval_file.error is not None:
            return DriftReport("eval refused", str(eval_file.error), eval_file.path, notes=bundle_notes)
        if case.skipped is not None:
            return DriftReport(
                "case skipped", f"the test is skipped: {case.skipped}", eval_file.path, case.line, notes=bundle_notes
            )
        key = (eval_file.path, case.index)
        formatted = self._formatted.get(key)
        if formatted is None:
            from turnlens.formatting.dialects.format import format_case

            formatted = self._formatted[key] = format_case(case, eval_file, "agentv")
        return compare_v4(record, eval_file, case, formatted, input_md, bundle, bundle_notes)


def sent_messages(rendered: Rendered) -> list[ChatMessage]:
    """What the provider receives: the chatPrompt, else the question as one user message."""
    if rendered.chat_prompt is not None:
        return list(rendered.chat_prompt)
    return [ChatMessage("user", rendered.question)]


def input_md_text(messages: list[ChatMessage]) -> str:
    """The messages as AgentV 4's input.md writes them: `@[role]:` (lower case) then the content, blank-line apart."""
    return "\n\n".join(f"@[{m.role.lower()}]:\n{m.content}" for m in messages) + "\n"


def _request_fields(record: ResultRecord, formatted: FormattedCase, *, guidelines: bool) -> list[FieldDrift]:
    """The recorded lm/agent requests (chat prompt, question and, for 0.15 rows, guidelines) against the engine's."""
    fields: list[FieldDrift] = []
    for mode, recorded in (("lm", record.lm_request), ("agent", record.agent_request)):
        if recorded is None:
            continue
        current = formatted.rendered(mode)
        if recorded.chat_prompt is not None or "chat_prompt" in recorded.raw or "chatPrompt" in recorded.raw:
            fields.append(
                _compare(
                    f"{mode} chat_prompt", chat_prompt_text(recorded.chat_prompt), chat_prompt_text(current.chat_prompt)
                )
            )
        if recorded.question is not None:
            fields.append(_compare(f"{mode} question", recorded.question, current.question))
        if guidelines and recorded.guidelines is not None:
            fields.append(_compare(f"{mode} guidelines", recorded.guidelines, current.guidelines))
    return fields


def as_run_fields(bundle: TaskBundle, case: EvalCase) -> list[FieldDrift]:
    """The test as run (its task bundle, task_bundle.py) against the test now, part by part."""
    from turnlens.formatting.results.task_bundle import parts

    fields = []
    for part in parts(bundle, case):
        name = f"test's {part.name}"
        if part.as_run == part.now or part.as_run in part.alternatives:
            fields.append(FieldDrift(name, part.now, part.now, "", AS_RUN))
        else:
            diff = unified_diff(part.as_run + "\n", part.now + "\n", name, ("as run:", "now:"))
            fields.append(FieldDrift(name, part.as_run, part.now, diff, AS_RUN))
    return fields


def compare_v4(
    record: ResultRecord,
    eval_file: EvalFile,
    case: EvalCase,
    formatted: FormattedCase,
    input_md: str | None,
    bundle: TaskBundle | None = None,
    bundle_notes: list[str] | None = None,
) -> DriftReport:
    fields = _request_fields(record, formatted, guidelines=False)
    lm = formatted.rendered("lm")
    if record.v4.input_messages is not None:
        fields.append(
            _compare("input", chat_prompt_text(record.v4.input_messages), chat_prompt_text(sent_messages(lm)))
        )
    elif record.v4.input_text is not None:
        fields.append(_compare("input", record.v4.input_text, lm.question))
    if input_md is not None:
        fields.append(_compare_input_md(input_md, formatted))
    notes: list[str] = list(bundle_notes or ())
    fields.extend(grader_prompt_fields(record, case, formatted, notes))
    if bundle is not None and bundle.case is not None:
        fields.extend(as_run_fields(bundle, case))
    fields = _normalised_checkout(fields, eval_file.repo_root, notes)
    where = f"{display_path(eval_file.path)}:{case.line}" if case.line else display_path(eval_file.path)
    changed = [f.field for f in fields if not f.equal]
    if not fields:
        return DriftReport(
            "nothing recorded", "the recorded grader prompts hold nothing to compare", eval_file.path, case.line, [],
            notes,
        )  # fmt: skip
    if changed:
        return DriftReport(
            "drifted", f"{', '.join(changed)} changed since the run ({where})", eval_file.path, case.line, fields, notes
        )
    return DriftReport("equal", f"still equal to {where}", eval_file.path, case.line, fields, notes)


# --- input.md ------------------------------------------------------------------------------------------------------
# AgentV 4 writes the messages it sent as `@[role]:` (lower-case role) followed by the content. What separates two
# blocks, and whether the file ends with a line break, is not pinned down (the reference's loader does not write the
# file), so input.md is read back into messages and compared message by message, each without its trailing line
# breaks; the diff shows both sides in one layout.

_INPUT_MD_HEADER = re.compile(r"^@\[([a-z][a-z0-9_-]*)\]:[ \t]*$", re.M)
# LLM providers get this system message when the test has none (AgentV 4.42.4)
DEFAULT_SYSTEM_PROMPT = "You are a careful assistant. Follow all provided instructions and do not fabricate results."


def parse_input_md(text: str) -> list[ChatMessage] | None:
    """The messages of an input.md (`@[role]:` lines, lower-case roles, each followed by its content), each
    content without the line breaks that end it; None when the text has no such line first."""
    text = text.removeprefix("\ufeff").replace("\r\n", "\n")
    headers = list(_INPUT_MD_HEADER.finditer(text))
    if not headers or text[: headers[0].start()].strip():
        return None
    messages = []
    for n, header in enumerate(headers):
        end = headers[n + 1].start() if n + 1 < len(headers) else len(text)
        content = text[header.end() + 1 if header.end() < len(text) else header.end() : end]
        messages.append(ChatMessage(header.group(1), content.rstrip("\n")))
    return messages


def _input_md_candidates(formatted: FormattedCase) -> list[list[ChatMessage]]:
    """What the run may have sent, today: the chatPrompt (else the question as one user message), and what an LLM
    provider receives (a system message first: the test's, else AgentV's default), and the agent-mode question."""
    lm, agent = formatted.rendered("lm"), formatted.rendered("agent")
    system = getattr(lm, "system_message", None)
    candidates = [sent_messages(lm)]
    if lm.chat_prompt is not None:
        if not any(m.role == "system" for m in lm.chat_prompt):
            candidates.append([ChatMessage("system", system or DEFAULT_SYSTEM_PROMPT), *lm.chat_prompt])
    else:
        candidates.append(
            [
                ChatMessage("system", js_trim(system or "") or DEFAULT_SYSTEM_PROMPT),
                ChatMessage("user", js_trim(lm.question)),
            ]
        )
    candidates.append(sent_messages(agent))
    return candidates


def _normalised(messages: list[ChatMessage]) -> list[tuple[str, str]]:
    return [(m.role.lower(), m.content.rstrip("\n")) for m in messages]


def _compare_input_md(input_md: str, formatted: FormattedCase) -> FieldDrift:
    recorded = parse_input_md(input_md)
    candidates = _input_md_candidates(formatted)
    if recorded is None:  # not the layout AgentV writes: compared as text with the first candidate
        return _compare("input.md", input_md, input_md_text(candidates[0]))
    wanted = _normalised(recorded)
    roles = [role for role, _ in wanted]
    chosen = next((c for c in candidates if _normalised(c) == wanted), None)
    if chosen is None:  # drifted: diff against the candidate with the same roles, else the first
        chosen = next((c for c in candidates if [r for r, _ in _normalised(c)] == roles), candidates[0])
    shown = [ChatMessage(role, content) for role, content in wanted]
    current = [ChatMessage(role, content) for role, content in _normalised(chosen)]
    return _compare("input.md", input_md_text(shown), input_md_text(current))


# --- grader prompts ------------------------------------------------------------------------------------------------
# A 4.x full row records the default grader's prompt in `requests.evaluator`; a grader listed under `assertions`
# records its own in `scores[].input` (index rows too). Only the part that comes from the eval file is recomputed:
# everything up to `[[ ## answer ## ]]`; the answer and what the run appended after it (file changes, tool calls)
# are the run's and are kept as recorded.

_ANSWER_HEADER = "\n\n[[ ## answer ## ]]\n"


def recorded_grader_prompts(record: ResultRecord) -> list[tuple[str, str, GraderScore | None]]:
    """(field name, recorded user prompt, the scores[] entry or None for the default grader) of every grader
    prompt the row recorded."""
    out: list[tuple[str, str, GraderScore | None]] = []
    if record.evaluator_request is not None and record.evaluator_request.user_prompt is not None:
        out.append(("grader prompt", record.evaluator_request.user_prompt, None))
    v4 = record.v4
    if v4 is None:
        return out
    seen: set[str] = set()

    def walk(graders: list[GraderScore], depth: int) -> None:
        for grader in graders:
            if grader.user_prompt is not None:
                name = grader.name or grader.type or "grader"
                label, n = f"grader prompt ({name})", 1
                while label in seen:  # a second grader of the same name: numbered, in the verdict's order
                    n += 1
                    label = f"grader prompt ({name} #{n})"
                seen.add(label)
                out.append((label, grader.user_prompt, grader))
            if depth < 8:
                walk(grader.children, depth + 1)

    walk(v4.graders, 0)
    return out


def _default_template_parts(formatted: FormattedCase, criteria: str | None) -> tuple[str, str, str]:
    """(the prompt up to the question, the lm question, the rest up to the answer) of the test's default grader
    prompt, with `criteria` in place of the test's when given."""
    from turnlens.formatting.prompts.agentv4 import GRADER_TEMPLATE_HEAD

    case = formatted.case
    head = f"{GRADER_TEMPLATE_HEAD}[[ ## criteria ## ]]\n"
    tail = f"\n\n[[ ## reference_answer ## ]]\n{js_trim(case.reference_answer)}{_ANSWER_HEADER}"
    before = f"{head}{js_trim(case.criteria or '')}\n\n[[ ## question ## ]]\n"
    prompt = formatted.evaluator_prompt  # lm question, empty answer: ends with the answer header
    question = prompt[len(before) : len(prompt) - len(tail)]
    chosen = js_trim(criteria) if criteria is not None else js_trim(case.criteria or "")
    return f"{head}{chosen}\n\n[[ ## question ## ]]\n", question, tail


def _criteria_of(grader: GraderScore, case: EvalCase) -> tuple[str | None, str | None]:
    """The criteria a listed llm-grader fills the default template with: a bare `prompt:` string without
    `{{ }}` (AgentV reads it as the criteria), else the test's. Second value: why it cannot be recomputed."""
    definition = next((g for g in case.assertions if g.name == grader.name), None)
    if definition is None:
        return None, f"the test has no grader named {grader.name!r} now"
    raw = definition.raw if isinstance(definition.raw, dict) else {}
    prompt = raw.get("prompt")
    if isinstance(prompt, str) and prompt.strip():
        if "{{" in prompt or prompt.startswith("file://"):
            return None, "its prompt is a template of the eval file's own"
        return prompt, None
    if prompt is not None:
        return None, "its prompt is a script or a template of the eval file's own"
    return None, None


def grader_prompt_fields(
    record: ResultRecord, case: EvalCase, formatted: FormattedCase, notes: list[str]
) -> list[FieldDrift]:
    """Each recorded grader prompt that uses AgentV 4's default template against that template filled from the
    test as it is today (criteria, question in lm and agent mode, reference answer). Prompts of other shapes
    (rubric checklists, score ranges, custom templates) are named in `notes`, not compared."""
    from turnlens.formatting.prompts.agentv4 import GRADER_TEMPLATE_HEAD

    fields: list[FieldDrift] = []
    agent_question = formatted.rendered("agent").question
    for name, recorded, grader in recorded_grader_prompts(record):
        if not recorded.startswith(GRADER_TEMPLATE_HEAD):
            what = "the default grader" if grader is None else f"grader {getattr(grader, 'name', '')!r}"
            notes.append(f"{name}: not AgentV 4's default grader template (a checklist, score ranges or a custom "
                         f"prompt of {what}): recorded, not recomputed")  # fmt: skip
            continue
        criteria = None
        if grader is not None:
            criteria, problem = _criteria_of(grader, case)
            if problem is not None and "no grader named" in problem:
                fields.append(_compare(name, recorded, f"({problem})"))
                continue
            if problem is not None:
                notes.append(f"{name}: {problem}: recorded, not recomputed")
                continue
        elif case.assertions:
            notes.append(
                f"{name}: the test now lists {plural(len(case.assertions), 'grader')} of its own, so AgentV no "
                "longer runs the default grader for it"
            )
        head, lm_question, tail = _default_template_parts(formatted, criteria)
        questions = [lm_question]
        if agent_question and js_trim(agent_question) != lm_question:
            questions.append(js_trim(agent_question))
        variants = [f"{head}{question}{tail}" for question in questions]
        run_part = (
            recorded[recorded.rfind(_ANSWER_HEADER) + len(_ANSWER_HEADER) :] if _ANSWER_HEADER in recorded else ""
        )
        current = next((v for v in variants if recorded.startswith(v)), variants[0])
        fields.append(_compare(name, recorded, current + run_part))
    return fields


def compare_with_case(
    record: ResultRecord, eval_file: EvalFile, case: EvalCase, formatted: FormattedCase | None = None
) -> DriftReport:
    """Compare what `record` recorded with `case` formatted by the engine (profile agentv, what AgentV sends)."""
    from turnlens.formatting.dialects.format import format_case
    from turnlens.formatting.prompts.agentv015 import evaluator_prompt

    if formatted is None:
        formatted = format_case(case, eval_file, "agentv")
    fields = _request_fields(record, formatted, guidelines=True)
    if record.evaluator_request is not None and record.evaluator_request.user_prompt is not None:
        recorded_prompt = record.evaluator_request.user_prompt
        variants = [
            evaluator_prompt(
                case.outcome or "", formatted.rendered(mode).question, case.reference_answer, record.candidate_answer
            )
            for mode in (("agent", "lm") if record.lm_request is None else ("lm", "agent"))
        ]
        current_prompt = recorded_prompt if recorded_prompt in variants else variants[0]
        fields.append(_compare("evaluator prompt", recorded_prompt, current_prompt))
    notes: list[str] = []
    fields = _normalised_checkout(fields, eval_file.repo_root, notes)
    where = f"{display_path(eval_file.path)}:{case.line}" if case.line else display_path(eval_file.path)
    changed = [f.field for f in fields if not f.equal]
    if not fields:
        return DriftReport(
            "nothing recorded", "the recorded requests hold nothing to compare", eval_file.path, case.line, fields
        )
    if changed:
        return DriftReport(
            "drifted",
            f"{', '.join(changed)} changed since the run ({where})",
            eval_file.path,
            case.line,
            fields,
            notes,
        )
    return DriftReport("equal", f"still equal to {where}", eval_file.path, case.line, fields, notes)
