"""The Transcript tab: a test's turns and tool calls (formatting/results/traces.py) as a keyboard-navigable tree.

Turns are nodes (role, duration, tokens, the first line); a turn's tool calls are folded under it, each with its
arguments and result; without a transcript the trace's spans are the tree (sub-agents nested under their tool).
Every label is built as Text from sanitised strings: a tool's output is untrusted and never read as markup.
"""

from __future__ import annotations

from typing import Any

from rich.style import Style
from rich.text import Text
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from turnlens.formatting.results.traces import Span, ToolCall, Trace, Transcript, duration_text, tokens_text, value_text

from ..untrusted import sanitize
from .widgets import FAIL, PASS, ink

LINE_LIMIT = 200  # characters of a line shown in a label
LINES_SHOWN = 400  # lines of one text (a tool's result) listed; the rest is counted
DIM = Style(dim=True)


def _first_line(text: str) -> str:
    line = sanitize(text).split("\n", 1)[0]
    return line if len(line) <= LINE_LIMIT else line[: LINE_LIMIT - 1] + "…"


def _facts(*parts: str) -> str:
    return "  ".join(p for p in parts if p)


def _add_text(node: TreeNode[Any], label: str, text: str) -> None:
    """A folded node holding `text` line by line."""
    lines = sanitize(text).split("\n")
    branch = node.add(Text.assemble((label, "bold"), (f"  {len(lines)} line{'s' if len(lines) != 1 else ''}", DIM)))
    for line in lines[:LINES_SHOWN]:
        branch.add_leaf(Text(line[:LINE_LIMIT] + ("…" if len(line) > LINE_LIMIT else "")))
    if len(lines) > LINES_SHOWN:
        branch.add_leaf(Text(f"… {len(lines) - LINES_SHOWN:,} more lines", style=DIM))


def _status_style(status: str) -> Style | str:
    if status in ("error", "timeout", "cancelled"):
        return ink(FAIL, bold=True)
    return ink(PASS) if status == "ok" else "dim"


def _add_tool(node: TreeNode[Any], call: ToolCall) -> None:
    label = Text("⚙ ", style="dim")
    label.append(sanitize(call.name) or "(unnamed tool)", style="bold")
    if call.status:
        label.append(f"  {sanitize(call.status)}", style=_status_style(call.status.lower()))
    label.append(f"  {_facts(duration_text(call.duration_ms), sanitize(call.call_id))}", style=DIM)
    if call.arguments is None and call.result is None and not call.children:
        node.add_leaf(label)
        return
    branch = node.add(label)
    if call.arguments is not None:
        _add_text(branch, "arguments", value_text(call.arguments))
    if call.result is not None:
        _add_text(branch, "result", value_text(call.result))
    for span in call.children:
        _add_span(branch, span)


def _add_span(node: TreeNode[Any], span: Span) -> None:
    if span.tool is not None:
        _add_tool(node, span.tool)
        return
    label = Text(sanitize(span.name) or sanitize(span.operation) or "(span)", style="bold")
    label.append(f"  {_facts(duration_text(span.duration_ms), tokens_text(span.tokens))}", style=DIM)
    if span.status and span.status.upper() not in ("OK", "UNSET"):
        label.append(f"  {sanitize(span.status)}", style=ink(FAIL, bold=True))
    branch = node.add(label, expand=True)
    for child in span.children:
        _add_span(branch, child)


def fill(tree: Tree[Any], transcript: Transcript | None, trace: Trace | None) -> None:
    """The tree of a test's transcript, else of its trace's spans, else a line saying there is neither."""
    root = tree.root
    root.remove_children()
    if transcript is not None and transcript.turns:
        calls = sum(len(turn.tool_calls) for turn in transcript.turns)
        root.set_label(
            Text.assemble(
                ("transcript.jsonl", "bold"),
                (f"  {len(transcript.turns)} turns · {calls} tool call{'s' if calls != 1 else ''}  ", DIM),
                (_facts(duration_text(transcript.duration_ms), tokens_text(transcript.tokens)), DIM),
            )
        )
        for turn in transcript.turns:
            label = Text(f"{turn.index:>3} ", style=DIM)
            label.append(sanitize(turn.role), style=ink("label", bold=True))
            facts = _facts(
                duration_text(turn.duration_ms),
                tokens_text(turn.tokens),
                f"{len(turn.tool_calls)} tool call{'s' if len(turn.tool_calls) != 1 else ''}"
                if turn.tool_calls
                else "",
            )
            if facts:
                label.append(f"  {facts}", style=DIM)
            label.append("  " + _first_line(turn.content))
            long = "\n" in turn.content.strip() or len(turn.content) > LINE_LIMIT
            if not long and not turn.tool_calls:
                root.add_leaf(label)
                continue
            branch = root.add(label, expand=bool(turn.tool_calls))
            if long:
                _add_text(branch, "content", turn.content)
            for call in turn.tool_calls:
                _add_tool(branch, call)
        for problem in transcript.problems:
            root.add_leaf(Text(problem, style=ink("warning")))
    elif trace is not None and trace.spans:
        root.set_label(
            Text.assemble(
                ("trace.json", "bold"),
                (
                    f"  {sanitize(trace.schema or 'no schema')} · {trace.total_spans} spans · "
                    f"{len(trace.tool_calls)} tool calls",
                    DIM,
                ),
            )
        )
        for span in trace.spans:
            _add_span(root, span)
        for problem in trace.problems:
            root.add_leaf(Text(problem, style=ink("warning")))
    else:
        root.set_label(Text("No transcript or trace recorded for this result.", style=Style(dim=True, italic=True)))
    root.expand()


def transcript_tree() -> Tree[Any]:
    tree: Tree[Any] = Tree(Text("loading…", style=DIM), id="transcript-tree")
    tree.show_root = True
    tree.guide_depth = 3
    return tree
