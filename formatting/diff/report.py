"""`turnlens diff` as text for a terminal and as Markdown for a pull-request comment (plain strings)."""

from __future__ import annotations

import difflib
import re

from turnlens.formatting.diff.compare import FieldChange, TestChange, TreeDiff
from turnlens.formatting.sanitize import sanitize, sanitize_line

# GitHub refuses a comment over 65,536 characters: the Markdown stops well before, with a count of the rest.
MARKDOWN_BUDGET = 60_000
DIFF_CONTEXT = 2


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def field_diff(change: FieldChange, before: str = "before", after: str = "after") -> str:
    """A unified diff of one field (an absent field diffs as empty, named so in the header)."""
    a = change.before if change.before is not None else ""
    b = change.after if change.after is not None else ""
    lines = difflib.unified_diff(
        a.splitlines(keepends=True),
        b.splitlines(keepends=True),
        fromfile=f"{change.name} ({before})" if change.before is not None else f"{change.name} (absent in {before})",
        tofile=f"{change.name} ({after})" if change.after is not None else f"{change.name} (absent in {after})",
        n=DIFF_CONTEXT,
    )
    out = []
    for line in lines:
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of text\n")
    return "".join(out)


def summary_line(diff: TreeDiff) -> str:
    if not diff.any_change:
        return (
            f"No test changed between {diff.before} and {diff.after} "
            f"({plural(diff.tests_compared, 'test')} in {plural(diff.files_compared, 'eval file')} compared)."
        )
    return (
        f"{diff.before} → {diff.after}: {len(diff.changed)} changed, {len(diff.added)} added, "
        f"{len(diff.removed)} removed (of {plural(diff.tests_compared, 'test')} in "
        f"{plural(diff.files_compared, 'eval file')})."
    )


def _causes_text(change: TestChange) -> str:
    if not change.causes:
        return "no file it uses changed (the environment or the engine)"
    return ", ".join(f"{c.file} ({c.kind}, {c.change})" for c in change.causes)


def text_report(diff: TreeDiff, verbose: bool = False) -> str:
    """The terminal listing: one block per test, the causes, and with `verbose` each field's diff. (The files a
    version could not read are said on stderr by the command.)"""
    out = [summary_line(diff)]
    for change in diff.changed:
        out.append("")
        out.append(f"changed  {sanitize_line(change.file)}  {sanitize_line(change.id)}")
        out.append(f"  fields: {', '.join(change.field_names)}")
        if change.rule is not None:
            out.append(f"  marker rule: {change.rule[0]} → {change.rule[1]} ({sanitize_line(change.rule_after)})")
        for before, after in change.fates:
            out.append(f"  segment: {sanitize_line(before or '(none)')} → {sanitize_line(after or '(none)')}")
        out.append(f"  because: {sanitize_line(_causes_text(change))}")
        if verbose:
            for f in change.fields:
                out.append(_indent(sanitize(field_diff(f, diff.before, diff.after)).rstrip("\n"), "    "))
    for ref in diff.added:
        out.append(f"added    {sanitize_line(ref.file)}  {sanitize_line(ref.id)}")
    for ref in diff.removed:
        out.append(f"removed  {sanitize_line(ref.file)}  {sanitize_line(ref.id)}")
    return "\n".join(out) + "\n"


def _indent(text: str, prefix: str) -> str:
    return "\n".join(prefix + line for line in text.split("\n"))


# ------------------------------------------------------------------------------------------------ Markdown

_HTML = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"})


def _cell(text: str) -> str:
    """Text in a table cell or a <summary>: on one line, no HTML or Markdown acting (code span with a fence
    longer than any run of backticks in it)."""
    text = sanitize_line(text).translate(_HTML).replace("|", "\\|")
    return _code(text)


def _code(text: str) -> str:
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _fenced(text: str, lang: str = "diff") -> str:
    longest = max((len(m) for m in re.findall(r"`{3,}", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{lang}\n{text.rstrip(chr(10))}\n{fence}"


def _html_code(text: str) -> str:
    """Text inside <summary>, where GitHub does not read Markdown: escaped, in <code>."""
    return f"<code>{sanitize_line(text).translate(_HTML)}</code>"


def _test_section(change: TestChange, diff: TreeDiff) -> str:
    title = f"{_html_code(change.file)} › {_html_code(change.id)} — {', '.join(change.field_names)}"
    if change.rule is not None:
        title += f" — rule {change.rule[0]} → {change.rule[1]}"
    lines = ["<details>", f"<summary>{title}</summary>", ""]
    if change.causes:
        causes = ", ".join(f"{_cell(c.file)} ({c.kind}, {c.change})" for c in change.causes)
        lines.append(f"Because: {causes}")
    else:
        lines.append("Because: no file it uses changed (the environment or the engine).")
    if change.rule is not None:
        lines.append("")
        lines.append(
            f"Marker rule: **{change.rule[0]} → {change.rule[1]}**. Before: {_cell(change.rule_before)}; "
            f"after: {_cell(change.rule_after)}"
        )
    if change.fates:
        lines.append("")
        lines.append("Segment fates:")
        for before, after in change.fates:
            lines.append(f"- {_cell(before or '(none)')} → {_cell(after or '(none)')}")
    body = "".join(field_diff(f, diff.before, diff.after) for f in change.fields)
    if body:
        lines.extend(["", _fenced(sanitize(body))])
    lines.extend(["", "</details>", ""])
    return "\n".join(lines)


def markdown_report(diff: TreeDiff, budget: int = MARKDOWN_BUDGET) -> str:
    """A pull-request comment: the summary and a table of the causes, then one collapsed diff per changed test,
    as many as fit in `budget` characters, then the count of the rest; added and removed tests listed."""
    out = ["## turnlens: what this change does to the prompts", "", summary_line(diff).replace("→", "→"), ""]
    for problem in diff.problems:
        out.append(f"> ⚠ {_cell(problem)}")
    if diff.problems:
        out.append("")
    if diff.any_change:
        out.extend(["| | tests |", "|---|---:|"])
        out.append(f"| changed | {len(diff.changed)} |")
        out.append(f"| added | {len(diff.added)} |")
        out.append(f"| removed | {len(diff.removed)} |")
        out.append("")
    causes = diff.causes()
    if causes:
        out.extend(["| changed file | kind | tests it changes |", "|---|---|---:|"])
        for cause, tests in causes:
            kinds: list[str] = []
            for test in tests:  # a file can be a guideline to one test and an attachment to another
                kinds.extend(c.kind for c in test.causes if c.file == cause.file and c.kind not in kinds)
            out.append(f"| {_cell(cause.file)} | {', '.join(kinds)}; {cause.change} | {len(tests)} |")
        out.append("")
    head = "\n".join(out)
    tail_parts = []
    for title, refs in (("Added", diff.added), ("Removed", diff.removed)):
        if refs:
            shown = refs[:200]
            items = "\n".join(f"- {_cell(r.file)} › {_cell(r.id)}" for r in shown)
            more = f"\n- … and {len(refs) - len(shown)} more" if len(refs) > len(shown) else ""
            tail_parts.append(f"### {title} ({len(refs)})\n\n{items}{more}\n")
    tail = "\n".join(tail_parts)
    sections: list[str] = []
    used = len(head) + len(tail) + 200
    left_out = 0
    for n, change in enumerate(diff.changed):
        section = _test_section(change, diff)
        if used + len(section) > budget:
            left_out = len(diff.changed) - n
            break
        sections.append(section)
        used += len(section)
    body = ""
    if diff.changed:
        body = f"### Changed ({len(diff.changed)})\n\n" + "\n".join(sections)
        if left_out:
            body += (
                f"\n… and {plural(left_out, 'more changed test')} not shown here (the comment's size limit); "
                "`turnlens diff` lists them all.\n"
            )
    return "\n".join(part for part in (head, body, tail) if part).rstrip("\n") + "\n"
