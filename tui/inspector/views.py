"""What the inspector draws for one case (a CaseView: the title, the rule line and the five panes' texts), the
bounded cache of the views built lately, the views built ahead around the case on screen, and the texts of the
screen's other parts (the banner, the toolbar's chips, the empty state). Rich text and plain data: no widgets."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from rich.text import Text

from turnlens.formatting import gcpause
from turnlens.formatting.evals.files import FileReadError, display_path, read_text_file
from turnlens.formatting.model import Diagnostic, EvalCase

from .. import render
from ..cache import BoundedCache
from ..session import Session
from ..theme import generation as theme_generation
from ..theme import palette
from ..widgets.pane import PaneText
from . import authoring

VIEW_CACHE_SIZE = 32  # case views kept (each holds its panes' wrapped lines): bounded by what was looked at lately
# ... and by the characters they hold: a view takes ~35 bytes a character (its spans, its rows at one width), so a
# case of tens of KB weighs several MB; this keeps the views cached to ~35 MB whatever the cases' sizes (a few cases
# of 60 KB, as many as 32 of a few KB).
VIEW_CACHE_CHARS = 1_000_000
PRERENDER_AROUND = 12  # cases each side of the one on screen whose views are built ahead of a switch
# Rows of each pane wrapped ahead of a switch: more than a screenful. The rest of a long text is wrapped in steps once
# it is shown (tui/widgets/pane.py); wrapped here whole, a 20 MB attachment held its layout (and the pane drawing it)
# for seconds.
PRERENDER_ROWS = 400

# A cached view's key: (file path, file generation, case index, mode, profile, theme generation)
ViewKey = tuple[str, int, int, str, str, int]


@dataclass
class CaseView:
    """Everything the panes show for one case in one mode/profile (built once, cached, prepared off-thread)."""

    title: Text
    rule_line: Text
    messages: PaneText
    question: PaneText
    guidelines: PaneText
    chat: PaneText
    rule: PaneText
    question_chars: int = 0
    guideline_files: int = 0
    # The fifth pane's slot: what the dialect sends beside the question (DialectLabels.system_field): `guidelines`
    # (its subtitle counts the files) or AgentV 4's `systemMessage` (its subtitle counts characters)
    fifth_title: str = "guidelines"
    guidelines_sent: bool = True
    system_chars: int = 0

    title_label: str = ""  # the title's parts, to fit it to a narrower toolbar (id cut first, file:line kept)
    title_where: str = ""

    @property
    def chars(self) -> int:
        """The characters the panes hold: what the view weighs in the cache."""
        return sum(pane.chars for pane in self.panes().values())

    @property
    def title_need(self) -> int:
        """The whole title (id and file:line) in cells: the chips shorten before it is cut."""
        return self.title.cell_len

    def subtitles(self, mode: str, profile: str) -> dict[str, str]:
        """What the panes' bottom borders say: the mode, and the size of what they show."""
        shown = mode  # as the mode chip and --mode write it (lm, agent), like the grading screen's footer
        files = render.plural(self.guideline_files, "file")
        return {
            "question": f"{shown} · {self.question_chars} chars",
            "guidelines": f"{shown} · {files}" if self.guidelines_sent else f"{shown} · {self.system_chars} chars",
            "chat": f"{shown} · {profile}",
        }

    def panes(self) -> dict[str, PaneText]:
        return {
            "messages": self.messages,
            "question": self.question,
            "guidelines": self.guidelines,
            "chat": self.chat,
            "rule": self.rule,
        }


def build_case_view(session: Session, key: str, mode: str, profile: str) -> CaseView | None:
    found = session.case(key)
    if found is None:
        return None
    loaded, case = found
    formatted = session.formatted(key, profile)
    label = render.sanitize_label(render.case_label(case))
    where = render.sanitize(loaded.rel) + (f":{case.line}" if case.line else "")
    if case.source:  # a test from an external case file or a dataset: its line is in that file
        source_path, source_line = session.case_location(key)
        where = render.sanitize(loaded.rel) + " ← " + render.sanitize(display_path(source_path, session.repo_root))
        where += f":{source_line}" if source_line else ""
    title = render.case_title(label, where)
    messages = _messages_with_context(case, render.messages_text(case, formatted, session.repo_root, mode))
    good = loaded.good
    # (a case shown always has its file's last good load: good is None only in the types)
    guidelines_sent = good is None or good.labels.guidelines
    fifth_title = good.labels.system_field if good is not None else "guidelines"
    config = None
    if formatted is not None and good is not None:
        config = authoring.dialect_text(good, case)
        if guidelines_sent:  # else no guideline patterns to explain (AgentV 4 has none)
            config.append("\n\n")
            config.append_text(render.config_text(good.config, session.config_searched(loaded.path), session.repo_root))
    rule = render.rule_text(case, formatted, session.repo_root, config)
    if formatted is None and good is not None:
        rule.append("\n\n")
        rule.append_text(authoring.dialect_text(good, case, notes=True))
    if formatted is None:
        skipped = PaneText(Text(f"skipped: {render.sanitize(case.skipped or '')}", style="dim italic", end=""), "")
        if not case.messages:
            first, excerpt = session.case_source(key)
            if excerpt:
                heading = Text("AgentV skips this case; as written:\n", style="dim italic", end="")
                messages = heading + render.source_text(excerpt, first, loaded.path)
        rule_line = Text(end="", no_wrap=True, overflow="ellipsis")
        rule_line.append(" SKIPPED ", style=palette().badge("skip"))
        rule_line.append(" " + render.sanitize(case.skipped or ""), style="italic")
        return CaseView(
            title,
            rule_line,
            PaneText(messages, messages.plain),
            skipped,
            skipped,
            skipped,
            PaneText(rule, rule.plain, hang=2),
            title_label=label,
            title_where=where,
            fifth_title=fifth_title,
            guidelines_sent=guidelines_sent,
        )
    rendered = formatted.rendered(mode)
    rule_line = Text(end="", no_wrap=True, overflow="ellipsis")
    rule_line.append_text(render.rule_badge(formatted.explanation.uses_markers))
    rule_line.append(" " + render.sanitize(formatted.explanation.summary))
    warnings = sum(1 for d in case.diagnostics if d.severity != "info")
    if warnings:
        rule_line.append(f"  ⚠ {render.plural(warnings, 'warning')}", style=render.warn_style())
    return CaseView(
        title=title,
        rule_line=rule_line,
        messages=PaneText(messages, messages.plain),
        question=_prompt_pane(rendered.question, "(empty question)"),
        guidelines=(
            (
                _prompt_pane(rendered.system_message, "")
                if rendered.system_message
                else PaneText(authoring.system_message_text(rendered), authoring.system_message_copy(rendered))
            )
            if not guidelines_sent
            else _prompt_pane(rendered.guidelines, "(no guidelines)")
        ),
        chat=PaneText(render.chat_text(rendered, profile), render.chat_copy_text(rendered)),
        rule=PaneText(rule, rule.plain, hang=2),
        question_chars=len(rendered.question),
        guideline_files=len(case.guideline_paths),
        title_label=label,
        title_where=where,
        fifth_title=fifth_title,
        guidelines_sent=guidelines_sent,
        system_chars=len(rendered.system_message or ""),
    )


def _prompt_pane(value: str, empty: str) -> PaneText:
    """A prompt's pane (`empty`: what it says when the prompt is empty), made without a Text (PaneText.of_plain)."""
    if not value:
        return PaneText(render.prompt_text(value, empty), value)
    plain, spans = render.highlighted_parts(value)
    return PaneText.of_plain(plain, spans, value)


def _messages_with_context(case: EvalCase, messages: Text) -> Text:
    """The messages as written, with what the suite prepended said above them and what interpolation replaced
    below them (agentv-4)."""
    preamble = authoring.messages_preamble(case)
    after = authoring.interpolations_text(case)
    if preamble is None and after is None:
        return messages
    out = Text(end="")
    if preamble is not None:
        out.append_text(preamble)
        out.append("\n\n")
    out.append_text(messages)
    if after is not None:
        out.append("\n\n")
        out.append_text(after)
    return out


@contextmanager
def long_lived_allocations() -> Iterator[None]:
    """For building what stays cached (a case's view): no cyclic GC pass meanwhile (each would re-scan the heap for
    nothing). Not frozen afterwards: gc.freeze after each view also froze whatever garbage cycles were pending, for
    good (benchmarks/bench_firstframe.py's walk through every case grew by ~0.35 MiB a switch with it)."""
    with gcpause.paused():
        yield


def nearest_first(keys: list[str], current: str | None, remaining: set[str]) -> str:
    """The key in `remaining` nearest to `current` in `keys` (the next one before the previous one)."""
    if current in keys:
        here = keys.index(current)
        for distance in range(len(keys)):
            for index in (here + distance, here - distance):
                if 0 <= index < len(keys) and keys[index] in remaining:
                    return keys[index]
    return next(key for key in keys if key in remaining)


class CaseViews:
    """The case views built lately, keyed by the file's load, the case, the mode, the profile and the palette:
    bounded, like what they hold (each view keeps its panes' wrapped lines). Built on the event loop when a case is
    shown, or ahead in a worker thread around the case on screen (`prerender`)."""

    def __init__(self, session: Session, size: int | None = None, chars: int | None = None) -> None:
        self._session = session
        self._max_chars = chars or VIEW_CACHE_CHARS
        self._views: BoundedCache[ViewKey, CaseView] = BoundedCache(
            size or VIEW_CACHE_SIZE, max_weight=self._max_chars, weigh=lambda view: view.chars
        )

    def __len__(self) -> int:
        return len(self._views)

    @property
    def chars(self) -> int:
        return self._views.weight

    def get(self, key: str, mode: str, profile: str) -> CaseView | None:
        """The view of case `key`, built now if it is not cached (safe from a worker thread)."""
        return self._get(key, mode, profile)[0]

    def _get(
        self, key: str, mode: str, profile: str, keep: set[ViewKey] | None = None
    ) -> tuple[CaseView | None, ViewKey | None]:
        """(view, its cache key; None when it is not cached: with `keep`, a view that does not fit beside those
        is built and not cached)."""
        found = self._session.case(key)
        if found is None:
            return None, None
        loaded, case = found
        cache_key = (loaded.path, loaded.generation, case.index, mode, profile, theme_generation())
        view = self._views.get(cache_key)
        if view is None:
            view = build_case_view(self._session, key, mode, profile)
            if view is None or not self._views.set(cache_key, view, keep=keep):
                return view, None
        return view, cache_key

    def forget_file(self, path: str) -> None:
        self._views.discard_where(lambda key: key[0] == path)

    def forget_stale(self, generations: dict[str, int]) -> None:
        """Drop the views of loads that are not the current one of their file (`generations`: path -> load)."""
        self._views.discard_where(lambda key: generations.get(key[0]) != key[1])

    def clear(self) -> None:
        self._views.clear()

    def prerender(
        self,
        current: str | None,
        mode: str | Callable[[str], str],
        profile: str,
        widths: dict[str, int],
        cancelled: Callable[[], bool],
    ) -> bool:
        """Build (and wrap, at the panes' `widths`) the views of the cases around `current`, nearest first: the
        likely next switches are then a redraw. Bounded, like the cache they go to: a view built here never pushes
        out a nearer one (the pass stops when the next does not fit beside them). `mode`: one for every case, or the
        mode of each case (AgentV's own, case by case). False when cancelled."""
        keys = self._session.case_keys()
        here = keys.index(current) if current in keys else 0
        nearby = keys[max(0, here - PRERENDER_AROUND) : here + PRERENDER_AROUND + 1]
        remaining = set(nearby)
        kept: set[ViewKey] = set()
        kept_chars = 0
        while remaining:
            if cancelled():
                return False
            if kept_chars >= self._max_chars // 2:  # the next may not fit: building it could be for nothing
                return True
            key = nearest_first(nearby, current, remaining)
            remaining.discard(key)
            view, cache_key = self._get(key, mode if isinstance(mode, str) else mode(key), profile, keep=kept)
            if view is None:
                continue
            if cache_key is None:
                return True  # the cache is full of views nearer to the case on screen
            kept.add(cache_key)
            kept_chars += view.chars
            for pane_id, content in view.panes().items():
                if widths.get(pane_id, 0) > 0:
                    content.layout(widths[pane_id]).ensure(PRERENDER_ROWS)
        return True


def banner_text(session: Session) -> tuple[list[Text], str]:
    """(lines, kind) of the banner above the panes: refused files (✗, kind "error"), file-level warnings such as a
    broken `.agentv/config.yaml` (⚠, "warning" when there is no error), then notes (ℹ, "note" when there is
    nothing else); no lines when there is nothing to say."""
    errors = session.errors()
    warnings = session.file_warnings()
    notes = session.notes
    lines: list[Text] = []
    for loaded, error in errors:
        line = Text(end="")
        line.append(" ✗ ", style="bold")
        if loaded.stale:  # said first: the banner's one line keeps it
            line.append("showing the last good version until it parses again — ", style="italic")
        line.append(render.sanitize(diagnostic_text(error, session.repo_root)))
        lines.append(line)
    for warning in warnings:
        line = Text(end="")
        line.append(" ⚠ ", style="bold")
        line.append(render.sanitize(diagnostic_text(warning, session.repo_root)))
        if ".agentv/config.yaml" in warning.file.replace(os.sep, "/"):
            line.append("  — not used; the rule panel says which config is in force", style="italic")
        lines.append(line)
    for note in notes:
        line = Text(end="")
        line.append(" ℹ ", style="bold")
        line.append(render.sanitize(note))
        lines.append(line)
    kind = "error" if errors else "warning" if warnings else "note"
    return lines, kind


EXCERPT_CONTEXT = 3  # lines of a refused file shown around its error line


def empty_state(session: Session, editor_key: str = "o") -> tuple[Text, PaneText]:
    """(header title, messages pane) when there is no case to show; `editor_key` opens the editor."""
    title = Text(end="", no_wrap=True, overflow="ellipsis")
    errors = session.errors()
    if errors:
        loaded, error = errors[0]
        title.append("✗ ", style=render.error_style())
        title.append(render.sanitize(loaded.rel) + (f":{error.line}" if error.line else ""), style="bold")
        title.append("  refused: no case can be shown", style="dim")
        body = Text(end="")
        body.append(render.sanitize(diagnostic_text(error, session.repo_root)), style=render.error_style())
        excerpt = _source_excerpt(loaded.path, error.line) if error.line else None
        if excerpt is not None:
            first, chunk = excerpt
            body.append("\n\n")
            body.append_text(render.source_text(chunk, first, loaded.path))
        body.append(
            f"\n\n{editor_key} opens the file at this line in $EDITOR; the view follows your edits.", style="dim italic"
        )
        return title, PaneText(body, body.plain, hang=5)
    if not session.files:
        where = ", ".join(session.roots) or "."
        title.append(f"No eval files in {render.sanitize(where)}", style="bold")
        body = Text(end="")
        # (a folder whose only AgentV files are results opens the results view: app.make_app decides)
        samples = [root for root in session.roots if os.path.isdir(os.path.join(root, "sample_evals"))]
        elsewhere = (
            f"open another folder, e.g. `turnlens {render.sanitize(os.path.join(samples[0], 'sample_evals'))}/`"
            if samples
            else "open another folder"
        )
        body.append(
            "turnlens finds eval files in a folder as AgentV 4 does:\n\n"
            "    **/evals/**/*.eval.yaml   **/evals/**/eval.yaml\n\n"
            "(or the `eval_patterns` of .agentv/config.yaml), and AgentV 0.15 files whose first lines declare\n\n"
            "    $schema: agentv-eval-v2\n\n"
            f"None was found in {render.sanitize(where)} (folders such as .agentv and .git are not searched).\n"
            f"Name an eval file to open it whatever its name, or {elsewhere}; a results file opens with "
            "`turnlens RESULTS.jsonl`; `turnlens` alone opens the bundled samples.",
            style="dim italic",
        )
        return title, PaneText(body, "")
    title.append("No eval cases to show.", style="dim italic")
    body = Text("The eval files opened have no cases (`tests:` or `evalcases:` is empty).", style="dim italic", end="")
    return title, PaneText(body, "")


def _source_excerpt(path: str, line: int) -> tuple[int, str] | None:
    if not line:
        return None
    try:
        lines = read_text_file(path, utf16_ok=True).split("\n")
    except FileReadError:  # not a regular file any more, or too large
        return None
    first = max(1, line - EXCERPT_CONTEXT)
    return first, "\n".join(lines[first - 1 : line + EXCERPT_CONTEXT])


def diagnostic_text(d: Diagnostic, repo_root: str) -> str:
    """`file:line: message` with paths shown relative to the repo root."""
    return render.diagnostic_line(d, repo_root)


def _toggle_text(label: str, key: str, options: tuple[str, ...], active: str) -> Text:
    text = Text(end="", no_wrap=True)
    text.append(f"{key} ", style=palette().text("key", bold=True))
    text.append(f"{label} ", style="dim")
    for n, option in enumerate(options):
        if n:
            text.append("│", style="dim")
        if option == active:
            text.append(f" {option} ", style="bold reverse")
        else:
            text.append(f" {option} ", style="dim")
    return text


# The panes in reading order (grid: messages, question, chatPrompt on two rows / marker rule, guidelines).
PANES = (
    ("messages", "messages as written"),
    ("question", "question"),
    ("chat", "chatPrompt"),
    ("rule", "marker rule"),
    ("guidelines", "guidelines / systemMessage"),
)


def chip_texts(mode: str, profile: str, level: int, keys: dict[str, str]) -> dict[str, Text | None]:
    """The toolbar chips, full (level 0), short (1), or short with the evaluator/diff chips hidden (2); `keys`: the
    key of each chip (by chip id), from the screen's action table."""
    if level == 0:
        return {
            "mode-chip": _toggle_text("mode", keys["mode-chip"], ("lm", "agent"), mode),
            "profile-chip": _toggle_text("profile", keys["profile-chip"], ("agentv", "design"), profile),
            "evaluator-chip": _action_text(keys["evaluator-chip"], "grading"),
            "diff-chip": _action_text(keys["diff-chip"], "profile diff"),
        }
    return {
        "mode-chip": _action_text(keys["mode-chip"], mode),
        "profile-chip": _action_text(keys["profile-chip"], profile),
        "evaluator-chip": _action_text(keys["evaluator-chip"], "grading") if level == 1 else None,
        "diff-chip": _action_text(keys["diff-chip"], "diff") if level == 1 else None,
    }


def _action_text(key: str, label: str) -> Text:
    text = Text(end="", no_wrap=True)
    text.append(f"{key} ", style=palette().text("key", bold=True))
    text.append(label)
    return text


def latest_result_text(found: Any, key: str, *, run: bool = True, lead: str = "  · ") -> Text:
    """The end of a case's rule line (after `lead`), or the row below it: its latest recorded result
    (formatting/results/latest.py) as AgentV judged it, the run that recorded it (its folder's or file's name; left
    out with `run` False), and the key that opens it."""
    verdicts = {"pass": ("✓ PASS", "success"), "fail": ("✗ FAIL", "error"), "error": ("! ERROR", "error")}
    label, colour = verdicts.get(found.verdict, (found.verdict.upper(), "warning"))
    p = palette()
    out = Text(f"{lead}latest ", style="dim", end="", no_wrap=True, overflow="ellipsis")
    out.append("—" if found.score is None else f"{found.score:.2f}", style="bold")
    out.append(" ")
    out.append(label, style=p.text(colour, bold=True))
    if run:
        out.append(" " + render.sanitize(found.run.rstrip("/").rsplit("/", 1)[-1]), style="dim")
    out.append(f"  {key}", style=p.text("key", bold=True))
    out.append(" opens", style="dim")
    return out
