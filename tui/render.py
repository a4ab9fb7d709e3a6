"""Engine data -> rich Text for the panes. Pure functions: no widgets, no app state.

Every string from an eval file or a referenced file is untrusted. It goes through `sanitize` (terminal control
characters become visible pictures such as ␛) and into `Text(...)`/`append(...)` with styles attached by span —
never through a markup parser — so `[bold]`, `[@click=app.quit]` or `@[User]:` inside a file stay literal.
"""

from __future__ import annotations

import difflib
import json
import os
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from rich.cells import cell_len, get_character_cell_size, set_cell_size
from rich.style import Style
from rich.text import Span as RichSpan
from rich.text import Text
from textual.color import Color

from turnlens.formatting.model import Diagnostic, EvalCase, FormattedCase, GuidelineConfig, Message, Rendered, Segment
from turnlens.formatting.prompts.agentv4 import file_tags, file_tags_where
from turnlens.formatting.prompts.highlight import Span, file_spans, prompt_spans
from turnlens.formatting.prompts.parts import file_line_count

# (drawn here, and named here for the screens that draw with this module: re-exported)
from .rows import RULE_SHORT as RULE_SHORT
from .rows import CaseRow as CaseRow
from .rows import case_label as case_label
from .rows import plural as plural
from .rows import relativize as relativize
from .theme import DECORATION_CONTRAST, generation, legible, palette
from .untrusted import sanitize as sanitize
from .untrusted import sanitize_label as sanitize_label

_ROLES = {"system": "role-system", "user": "role-user", "assistant": "role-assistant", "tool": "role-tool"}


def _role(role: str) -> str:
    """The palette name of a role's colour."""
    return _ROLES.get(role.lower(), "role-other")


def role_text_style(role: str, *, bold: bool = False) -> Style:
    return palette().text(_role(role), bold=bold)


def role_badge_style(role: str, *, bold: bool = True) -> Style:
    return palette().badge(_role(role), bold=bold)


DIM = Style(dim=True)
BOLD = Style(bold=True)


def warn_style() -> Style:
    return palette().text("warning")


def error_style() -> Style:
    return palette().text("error", bold=True)


def _kind_style(kind: str) -> Style:
    p = palette()
    if kind == "file-tag" or kind == "heading":
        return p.text("file", bold=True)
    if kind == "attached":
        return p.text("attached", bold=True, underline=True)
    if kind == "section":
        return p.text("section", bold=True)
    if kind == "fence":
        return p.text("fence")
    return Style()


@lru_cache(maxsize=512)
def _token_style(token: str, _generation: int) -> Style:
    """A syntax token's colour and weight from the theme's syntax style. No background: the syntax style's own
    background drew a box behind every token on the pane's background."""
    from pygments.token import string_to_tokentype

    p = palette()
    token_type = string_to_tokentype(token)
    if p.syntax_theme.startswith("ansi"):
        from rich.syntax import Syntax

        ansi = Syntax.get_theme(p.syntax_theme).get_style_for_token(token_type)
        return Style(color=ansi.color, bold=ansi.bold, italic=ansi.italic, underline=ansi.underline)
    from pygments.styles import get_style_by_name

    syntax = get_style_by_name(p.syntax_theme)
    while True:
        try:
            found = syntax.style_for_token(token_type)
            break
        except KeyError:  # a lexer's own subtype (Punctuation.Indicator): its parent's style
            if token_type.parent is None:
                return Style()
            token_type = token_type.parent
    colour = None
    if found["color"]:
        # A syntax style's colour can be faint on another theme's background (monokai's comments on nord).
        colour = legible(Color.parse("#" + found["color"]), Color.parse(p.background), DECORATION_CONTRAST).hex
    return Style(
        color=colour, bold=found["bold"] or None, italic=found["italic"] or None, underline=found["underline"] or None
    )


@lru_cache(maxsize=1024)
def _style_for(kind: str, _generation: int) -> Style:
    if kind.startswith("marker:"):
        return role_badge_style(kind[7:])
    if kind.startswith("token:"):
        return _token_style(kind[6:], _generation)
    return _kind_style(kind)


def style_for(kind: str) -> Style:
    """The style of a span kind from the engine's highlighter, in the current theme."""
    return _style_for(kind, generation())


def highlighted(text: str, *, path: str | None = None) -> Text:
    """A prompt (or a file's contents when `path` is given) as styled Text; control characters made visible."""
    clean = sanitize(text)
    return Text(clean, spans=_rich_spans(file_spans(clean, path) if path else prompt_spans(clean)), end="")


def highlighted_parts(text: str) -> tuple[str, list[RichSpan]]:
    """highlighted(text)'s plain string (free of control codes) and spans, for a pane's content made without the Text
    (widgets/pane.py's PaneText.of_plain)."""
    clean = sanitize(text)
    return clean, _rich_spans(prompt_spans(clean))


_new_tuple = tuple.__new__


def _rich_spans(spans: Iterable[Span], offset: int = 0) -> list[RichSpan]:
    """Engine spans (start, end, kind) as Rich spans, shifted by `offset` (tens of thousands for a big embedded
    file: built without the namedtuple constructor, styles looked up once per kind)."""
    styles: dict[str, Style] = {}
    out = []
    for start, end, kind in spans:
        style = styles.get(kind)
        if style is None:
            style = styles[kind] = style_for(kind)
        out.append(_new_tuple(RichSpan, (start + offset, end + offset, style)))
    return out


def _plain(text: str, style: Style | str = "") -> Text:
    return Text(sanitize(text), style=style, end="")


_EMPTY_NOTE = Style(dim=True, italic=True)


def _empty_note(note: str) -> Text:
    return Text(note, style=_EMPTY_NOTE, end="")


# ----------------------------------------------------------------------------------------------- case list rows


def fit(value: str, width: int, *, keep_end: bool = False) -> str:
    """`value` cut to `width` cells with an ellipsis (at the start when the end matters, as for paths)."""
    if width <= 0 or cell_len(value) <= width:
        return value
    if keep_end:
        return "…" + set_cell_size(value[::-1], width - 1)[::-1]
    return set_cell_size(value, width - 1) + "…"


def header_with_legend(head: Text, legend: Text, width: int, gap: str = "   ") -> Text:
    """A screen's header: `head`, then its `legend` on the same row when both fit in `width` cells, else on a
    second row (cut at 80 columns, the legend was what was lost); a legend too long for a row of its own starts
    beside the head and goes on on the second row (words kept whole)."""
    if not legend.plain:
        return head
    out = Text(end="", no_wrap=True, overflow="ellipsis")
    out.append_text(head)
    if width <= 0 or head.cell_len + len(gap) + legend.cell_len <= width:
        out.append(gap)
        out.append_text(legend)
        return out
    cut = _last_space_within(legend.plain, width - head.cell_len - len(gap))
    if legend.cell_len + 1 <= width or cut is None:
        out.append("\n ")
        out.append_text(legend)
        return out
    first, rest = legend.divide([cut])
    out.append(gap)
    out.append_text(first)
    out.append("\n ")
    out.append_text(rest[1:])
    return out


def _last_space_within(plain: str, cells: int) -> int | None:
    """The index of the last space in `plain` whose text before it fits in `cells` cells (None: none does)."""
    found = None
    used = 0
    for index, char in enumerate(plain):
        if char == " " and index > 0:
            found = index
        used += get_character_cell_size(char)
        if used > cells:
            break
    return found


def case_title(label: str, where: str, width: int = 0) -> Text:
    """The case header: its id, then `file:line`. Narrower than both, the id is cut first (the file:line is what
    finds the case in the file), then the path's start."""
    text = Text(end="", no_wrap=True, overflow="ellipsis")

    gap = "  "
    if width > 0 and cell_len(label) + len(gap) + cell_len(where) > width:
        where_room = max(width // 2, width - cell_len(label) - len(gap))
        where = fit(where, where_room, keep_end=True)
        label = fit(label, max(1, width - len(gap) - cell_len(where)))
    text.append(label, style="bold")
    text.append(gap + where, style="dim")
    return text


def case_row_text(row: CaseRow, width: int = 0, *, selected: bool = False) -> Text:
    """Two lines: the id, then the badge, the rule and the warning count (or the skip reason).

    `selected`: the row under the list's highlight. A colour or a dim chosen to read on the theme's background
    does not read on the highlight's (the ⚠ count in the theme's warning colour on nord's light-blue bar), so
    there the rule, the count and a skipped case's words take the highlight's own text colour; the badges keep
    their blocks, whose labels read on their own colour."""
    text = Text(end="", no_wrap=True, overflow="ellipsis")
    dim = Style() if selected else DIM
    if row.skipped is not None:
        text.append(
            fit(sanitize_label(row.label), width),
            style=Style(strike=True) if selected else Style(dim=True, strike=True),
        )
        text.append("\n")
        text.append(" SKIP ", style=palette().badge("skip", bold=False))
        text.append(fit(" " + sanitize_label(row.skipped), width - 6), style=dim + Style(italic=True))
        return text
    text.append(fit(sanitize_label(row.label), width), style=BOLD)
    text.append("\n")
    if row.markers:
        text.append(" MARK ", style=palette().badge("markers"))
    else:
        text.append(" FLAT ", style=palette().badge("flat"))
    text.append(f" {row.rule}", style=dim)
    if row.warnings:
        text.append(f"  ⚠ {row.warnings}", style=BOLD if selected else warn_style())
    return text


def file_header_text(
    rel_path: str,
    error: str | None,
    stale: bool,
    width: int = 0,
    cases: int = -1,
    shown: int | None = None,
    *,
    dialect: str = "",
) -> Text:
    """A file heading with its number of cases (`shown of all` while a filter hides some) and the dialect it was
    read in; a refused file says so briefly (the banner has the whole message). Marked ▪ (a ▸ suggested a fold the
    list does not have; ▪ is in the common terminal fonts)."""
    text = Text(end="", no_wrap=True, overflow="ellipsis")
    if cases < 0:
        count = ""
    elif shown is not None and shown != cases:
        count = f" ({shown} of {cases})"
    else:
        count = f" ({cases})"
    tag = f" {dialect}" if dialect else ""
    text.append(
        "▪ " + fit(sanitize(rel_path), width - 2 - len(count) - len(tag), keep_end=True),
        style=palette().text("file", bold=True),
    )
    text.append(count, style=DIM)
    if tag:
        text.append(tag, style=Style(dim=True, italic=True))
    if error:
        text.append("\n")
        text.append("✗ " + fit(sanitize(error.split("\n", 1)[0]), width - 2), style=error_style())
        if stale:
            text.append("\n  last good version shown", style=Style(dim=True, italic=True))
    return text


# ----------------------------------------------------------------------------------------------- the panes


def _message_header(msg: Message, note: str = "", fired: bool = False) -> Text:
    text = Text(end="")
    text.append(f" {msg.index + 1} {sanitize(msg.role)} ", style=role_badge_style(msg.role))
    if msg.from_suite:
        text.append(" SUITE ", style=Style(reverse=True, bold=True))
    if fired:
        text.append(" ◆ rule", style=palette().text("key", bold=True))
    if msg.line:
        text.append(("  " if fired else " ") + f"line {msg.line}", style=DIM)
    if msg.content_is_string:
        text.append("  string content", style=DIM)
    if note and not msg.dropped:
        text.append("  " + sanitize(note), style=DIM)
    if msg.dropped:
        text.append("\n  ✗ message dropped: " + sanitize(msg.dropped), style=error_style())
    return text


_FATE_COLOURS = {
    "text kept": "success",
    "file embedded": "file",
    "file missing": "error",
    "file unreadable": "error",
    "guideline extracted": "attached",
    "guideline marked": "attached",
    "reference not matched": "warning",
    "unknown type dropped": "warning",
    "not a mapping": "error",
}


def fate_style(fate: str) -> Style:
    if fate == "blank dropped":
        return DIM
    colour = _FATE_COLOURS.get(fate)
    if colour is None:
        return Style()
    return palette().text(colour, bold=colour == "error")


def fate_text(fate: str, detail: str) -> Text:
    """`fate: detail`, without repeating the fate when the detail already starts with it."""
    out = Text(end="")
    detail = sanitize(detail or "")
    if detail.lower().startswith(fate.lower()):
        out.append(detail[: len(fate)], style=fate_style(fate))
        out.append(detail[len(fate) :], style=DIM)
    else:
        out.append(fate, style=fate_style(fate))
        if detail:
            out.append(": " + detail, style=DIM)
    return out


def source_text(excerpt: str, first_line: int, path: str) -> Text:
    """Lines of the eval file as written, numbered, highlighted as YAML."""
    body = highlighted(excerpt, path=path)
    out = Text(end="")
    for n, line in enumerate(body.split("\n", allow_blank=True)):
        if n:
            out.append("\n")
        out.append(f"{first_line + n:>4} ", style=DIM)
        out.append_text(line)
    return out


def messages_text(
    case: EvalCase, formatted: FormattedCase | None, repo_root: str | None = None, mode: str = "lm"
) -> Text:
    """The input messages as written: role headers, each text segment, each file with what it resolved to (paths
    under `repo_root` shown relative to it) and how the question of `mode` names it."""
    if not case.messages:
        return _empty_note("(no input messages)")
    fates = {}
    notes = {}
    fired: set[int] = set()
    if formatted is not None:
        fates = {(f.message_index, f.segment_index): f for f in formatted.explanation.segments}
        notes = {m.message_index: m.note for m in formatted.explanation.messages}
        fired = set(formatted.explanation.trigger_messages)
    out = Text(end="")
    for n, msg in enumerate(case.messages):
        if n:
            out.append("\n\n")
        out.append_text(_message_header(msg, notes.get(msg.index, ""), msg.index in fired))
        for seg in msg.segments:
            out.append("\n")
            fate = fates.get((msg.index, seg.index))
            if seg.type == "text" and isinstance(seg.value, str):
                if seg.value.strip():
                    out.append_text(highlighted(seg.value))
                else:
                    out.append("(blank text)", style=Style(dim=True, italic=True))
            elif seg.type == "file":
                written = seg.value if isinstance(seg.value, str) else repr(seg.value)
                out.append("⎘ ", style=palette().text("file", bold=True))
                out.append_text(_plain(written, palette().text("file")))
                if seg.text is not None and seg.display_path:
                    # (counted once per text: the engine counted this file's lines already for its fate's detail)
                    out.append(f" ({file_line_count(seg.text)})", style=DIM)
                    if seg.display_path != written:
                        out.append(f"\n  → {sanitize(seg.display_path)}", style=DIM)
                elif seg.resolved_path is None and fate is None:
                    out.append("\n  ✗ not found", style=error_style())
                    if seg.tried:
                        out.append(f" (tried {len(seg.tried)} places)", style=DIM)
            else:
                what = seg.type if seg.type else "entry"
                out.append(f"⊘ {sanitize(what)}", style=warn_style())
                if seg.value is not None:
                    out.append(" " + sanitize(str(seg.value))[:200], style=DIM)
            if seg.origin:
                out.append(f"\n  from {sanitize(seg.origin)}", style=Style(dim=True, italic=True))
            if fate is not None:
                out.append("\n  ")
                out.append_text(fate_text(fate.fate, _fate_detail(fate.detail, seg, mode, repo_root)))
    return out


def _fate_detail(detail: str, seg: Segment, mode: str, repo_root: str | None) -> str:
    """A segment's fate as the messages pane says it: paths under the repo root shown relative, except an AgentV 4
    file's tag, which names the file as the question of the mode on screen sends it (agent mode: its absolute
    path), not both modes' tags."""
    if seg.type == "file" and seg.display_path and seg.resolved_path:
        where = file_tags_where(seg.display_path, seg.resolved_path)
        if where in detail:
            before, after = detail.split(where, 1)
            lm_tag, agent_tag = file_tags(seg.display_path, seg.resolved_path)
            sent = f"{mode} sends {agent_tag if mode == 'agent' else lm_tag}"
            return relativize(before, repo_root) + sent + relativize(after, repo_root)
    return relativize(detail, repo_root)


def prompt_text(value: str, empty: str) -> Text:
    return highlighted(value) if value else _empty_note(empty)


def chat_text(rendered: Rendered, profile: str) -> Text:
    """The chatPrompt as one card per message."""
    if rendered.chat_prompt is None:
        other = rendered.labels.system_field
        return _empty_note(
            f"No chatPrompt: the {profile} profile sends one only when role markers are used.\n"
            f"The provider receives `question` and `{other}`."
        )
    if not rendered.chat_prompt:
        return _empty_note("chatPrompt is an empty list")
    # Assembled as one string and one span list: a card's content can be tens of KB with thousands of spans,
    # which Text.append_text would copy once more.
    parts: list[str] = []
    spans: list[RichSpan] = []
    at = 0

    def add(text: str, style: Style | None = None) -> None:
        nonlocal at
        if style is not None and text:
            spans.append(RichSpan(at, at + len(text), style))
        parts.append(text)
        at += len(text)

    for n, msg in enumerate(rendered.chat_prompt):
        if n:
            add("\n\n")
        add(f" {sanitize(msg.role)} ", role_badge_style(msg.role))
        add(f" message {n + 1}", DIM)
        add("\n")
        if msg.content:
            clean = sanitize(msg.content)
            spans.extend(_rich_spans(prompt_spans(clean), at))
            add(clean)
        else:
            add("(empty content)", _EMPTY_NOTE)
    return Text("".join(parts), spans=spans, end="")


def chat_copy_text(rendered: Rendered) -> str:
    if rendered.chat_prompt is None:
        return "null"
    return json.dumps([m.to_json() for m in rendered.chat_prompt], ensure_ascii=False, indent=2)


def rule_badge(uses_markers: bool) -> Text:
    if uses_markers:
        return Text(" MARKERS ", style=palette().badge("markers"), end="")
    return Text(" FLAT ", style=palette().badge("flat"), end="")


def diagnostic_line(d: Diagnostic, repo_root: str | None) -> str:
    where = relativize(d.file, repo_root) + (f":{d.line}" if d.line else "")
    return f"{where}: {relativize(d.message, repo_root)}"


def _shown_path(path: str, repo_root: str | None) -> str:
    if repo_root:
        rel = os.path.relpath(path, repo_root)
        if not rel.startswith(".."):
            return rel.replace(os.sep, "/")
    return path


def config_text(config: GuidelineConfig | None, searched: list[str], repo_root: str | None) -> Text:
    """Which `.agentv/config.yaml` is in force for the case's file and its guideline patterns, or that none is and
    where it was looked for (a file matching no pattern is embedded in the question, not sent as a guideline)."""
    out = Text(end="")
    out.append("Guideline patterns", style=Style(bold=True, underline=True))
    if config is not None and config.path:
        out.append("\nfrom ", style=DIM)
        out.append(sanitize(_shown_path(config.path, repo_root)), style=BOLD)
        if config.patterns:
            for pattern in config.patterns:
                out.append("\n• " + sanitize(pattern))
        else:
            out.append("\nno `guideline_patterns` in it: every referenced file is embedded", style=DIM)
    else:
        out.append("\nnone in force: every referenced file is embedded, none becomes a guideline", style=warn_style())
        out.append("\nlooked for (nearest first):", style=DIM)
        for path in searched:
            out.append("\n  " + sanitize(_shown_path(path, repo_root)), style=DIM)
    if config is not None and config.diagnostics:
        out.append("\nskipped, could not be used:", style=DIM)
        for d in config.diagnostics:
            out.append("\n✗ " + sanitize(diagnostic_line(d, repo_root)), style=error_style())
    return out


def rule_text(
    case: EvalCase,
    formatted: FormattedCase | None,
    repo_root: str | None = None,
    config: Text | None = None,
) -> Text:
    """The marker rule: which rule fired, the evidence, every message's and segment's fate, warnings."""
    out = Text(end="")
    if formatted is None:
        out.append(" SKIPPED ", style=palette().badge("skip"))
        out.append("\n")
        out.append("AgentV skips this case: " + sanitize(case.skipped or "unknown reason"), style=BOLD)
        out.append_text(_diagnostics_text(case, repo_root))
        return out
    ex = formatted.explanation
    out.append_text(rule_badge(ex.uses_markers))
    out.append(" " + ex.rule, style=BOLD)
    out.append("\n")
    out.append(sanitize(ex.summary), style=BOLD)
    for line in ex.evidence:
        out.append("\n• " + sanitize(line))
    if ex.trigger_messages:
        out.append("\nfired by: ", style=DIM)
        out.append_text(_message_refs(ex.trigger_messages, case))
    out.append("\nvisible turns: ", style=DIM)
    if ex.visible_messages:
        out.append_text(_message_refs(ex.visible_messages, case))
    else:
        out.append("none", style=DIM)
    if config is not None:
        out.append("\n\n")
        out.append_text(config)
    if ex.messages:
        out.append("\n\nMessages", style=Style(bold=True, underline=True))
        for m in ex.messages:
            out.append("\n")
            out.append(f" {m.message_index + 1} {sanitize(m.role)} ", style=role_badge_style(m.role, bold=False))
            out.append(" visible" if m.visible else " hidden", style=palette().text("success") if m.visible else DIM)
            out.append(" · in question" if m.in_question else " · not in question", style="" if m.in_question else DIM)
            out.append(" · chat: " + (sanitize(m.chat_role) if m.chat_role else "—"), style=DIM)
            if m.note:
                out.append("\n   " + sanitize(m.note), style=DIM)
    if ex.segments:
        out.append("\n\nSegments", style=Style(bold=True, underline=True))
        for s in ex.segments:
            out.append(f"\n {s.message_index + 1}.{s.segment_index + 1} ", style=DIM)
            out.append_text(fate_text(s.fate, relativize(s.detail, repo_root)))
    out.append_text(_diagnostics_text(case, repo_root))
    return out


def _message_refs(indexes: Iterable[int], case: EvalCase) -> Text:
    roles = {m.index: m.role for m in case.messages}
    out = Text(end="")
    for n, i in enumerate(indexes):
        if n:
            out.append(", ")
        role = roles.get(i, "?")
        out.append(f"{i + 1} {sanitize(role)}", style=role_text_style(role, bold=True))
    return out


def _diagnostics_text(case: EvalCase, repo_root: str | None) -> Text:
    out = Text(end="")
    if case.diagnostics:
        out.append("\n\nWarnings", style=palette().text("warning", bold=True, underline=True))
        for d in case.diagnostics:
            style = error_style() if d.severity == "error" else warn_style()
            out.append("\n⚠ " + sanitize(diagnostic_line(d, repo_root)), style=style)
    return out


# ----------------------------------------------------------------------------------------------- profile diff


def _chat_lines(rendered: Rendered, profile: str) -> list[Text]:
    return list(chat_text(rendered, profile).split("\n", allow_blank=True))


@dataclass
class ChatDiff:
    """Two conversations drawn side by side with their differences marked, and how their lines match up."""

    left: Text
    right: Text
    differences: int  # differing blocks of lines
    first_left: int  # line of the first difference on each side (0 when none)
    first_right: int
    left_to_right: list[int]  # for each left line, the matching (or nearest) right line
    right_to_left: list[int]


def diff_chat_texts(left: Rendered, right: Rendered, left_name: str, right_name: str) -> ChatDiff:
    """Both chatPrompts with a gutter marking lines that differ."""
    return diff_text_lines(
        _chat_lines(left, left_name),
        _chat_lines(right, right_name),
        left.chat_prompt is not None,
        right.chat_prompt is not None,
    )


def diff_text_lines(a: list[Text], b: list[Text], left_present: bool = True, right_present: bool = True) -> ChatDiff:
    """Two texts, line by line, side by side with a gutter marking the lines that differ (the profile diff's
    rendering; `turnlens diff`'s view uses it for any field). A side that is not present shows its lines (a note)
    unmarked, and every line of the other side is then a difference."""
    # A side without a chatPrompt shows its note unmarked; every line of the other side is then a difference.
    plain_a = [t.plain for t in a] if left_present else []
    plain_b = [t.plain for t in b] if right_present else []
    matcher = difflib.SequenceMatcher(a=plain_a, b=plain_b, autojunk=False)
    added, removed, changed = (palette().tint(name) for name in ("diff-added", "diff-removed", "diff-changed"))
    lines_a: list[Text] = []
    lines_b: list[Text] = []
    differences = 0

    def marked(line: Text, mark: str, background: Style | None) -> Text:
        if mark == " " or (mark in "-+" and not line.plain.strip()):
            # Unchanged, or a blank line only one side has: no sign (a "-" on an empty line reads as content).
            out = Text("  ", end="") + line
            if mark != " " and background is not None:
                out.stylize(background, 0, len(out))
            return out
        colour = {"-": "error", "+": "success", "~": "warning"}[mark]
        out = Text(end="")
        out.append(mark + " ", style=palette().text(colour, bold=True))
        out.append_text(line)
        if background is not None:
            out.stylize(background, 2, len(out))
        return out

    def filler(count: int) -> list[Text]:
        """Blank rows standing for lines only the other side has, so both sides stay aligned line by line."""
        return [Text("  ", style=DIM, end="") for _ in range(count)]

    first = None
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            lines_a.extend(marked(line, " ", None) for line in a[i1:i2])
            lines_b.extend(marked(line, " ", None) for line in b[j1:j2])
            continue
        if first is None:
            first = len(lines_a)
        differences += 1
        if tag == "replace":
            lines_a.extend(marked(line, "~", changed) for line in a[i1:i2])
            lines_b.extend(marked(line, "~", changed) for line in b[j1:j2])
        else:
            lines_a.extend(marked(line, "-", removed) for line in a[i1:i2])
            lines_b.extend(marked(line, "+", added) for line in b[j1:j2])
        lines_a.extend(filler(len(lines_b) - len(lines_a)))
        lines_b.extend(filler(len(lines_a) - len(lines_b)))
    # Both sides now have the same lines, one for one.
    left_to_right = list(range(len(lines_a)))
    right_to_left = list(range(len(lines_b)))
    if not left_present:
        lines_a = [marked(line, " ", None) for line in a]
        left_to_right = [0] * len(a)
    if not right_present:
        lines_b = [marked(line, " ", None) for line in b]
        right_to_left = [0] * len(b)
    out_a = Text("\n", end="").join(lines_a)
    out_b = Text("\n", end="").join(lines_b)
    first_left = first_right = first or 0
    return ChatDiff(out_a, out_b, differences, first_left, first_right, left_to_right, right_to_left)
