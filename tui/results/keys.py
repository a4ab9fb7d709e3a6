"""The results view's keys: one action table per screen (tui/actions.py), from which its bindings, its command
palette entries and its help are made. The list's help also shows the other tables, so the whole view's keys are on
one page, each written once."""

from __future__ import annotations

from rich.text import Text

from ..actions import Action, quit_action
from ..theme import palette
from .model import AUTO_DRIFT_LIMIT

MOVE = "↑ ↓  k j"  # each arrow over its letter, as in the inspector's help
FIRST_LAST = "home end  g G"

RESULTS_ACTIONS: tuple[Action, ...] = (
    Action("", "", "Move in the list; pgup pgdn a page.", display=MOVE, section="Results list"),
    Action("", "", "First / last in the list.", display=FIRST_LAST, section="Results list"),
    Action(
        "",
        "open_current",
        "Open the highlighted result (or click it).",
        display="enter",
        title="Open the highlighted result",
        section="Results list",
    ),
    Action(
        "s",
        "cycle_sort",
        "Sort by score (failures first), id, time, duration, cost, file order.",
        footer="Sort",
        rank=1,
        title="Cycle sort (score, id, time, duration, cost, file)",
        section="Results list",
    ),
    Action("r", "reverse", "Reverse the order.", title="Reverse order", section="Results list"),
    Action(
        "f",
        "cycle_filter",
        "Show all, failures, errors, quality failures, ok, each failing grader, drifted.",
        footer="Filter",
        rank=2,
        title="Cycle filter (all, failures, errors, quality failures, ok, graders, drifted)",
        section="Results list",
    ),
    Action(
        "slash",
        "search",
        "Search eval id, target and suite as you type.",
        footer="Search",
        rank=3,
        title="Search results",
        section="Results list",
        opens_text_box=True,
    ),
    Action(
        "F",
        "search_text",
        "Full-text search inside every result (question, answer, reasoning…).",
        title="Full-text search inside every result",
        section="Results list",
        opens_text_box=True,
    ),
    Action(
        "plus,equals_sign",
        "threshold(0.05)",
        "Raise the pass threshold by 0.05.",
        footer="Threshold",
        rank=5,
        title="Raise pass threshold",
        display="+",
        section="Results list",
    ),
    Action(
        "minus",
        "threshold(-0.05)",
        "Lower the pass threshold by 0.05.",
        footer="Threshold",
        rank=6,
        title="Lower pass threshold",
        section="Results list",
    ),
    Action(
        "d",
        "drift_all",
        "Check drift: recompute every input with the engine and compare with what the run recorded (automatic up "
        f"to {AUTO_DRIFT_LIMIT:,} results).",  # (20,000 as every count is written; `20 000` was wrapped apart)
        footer="Drift",
        rank=7,
        title="Check drift against the eval files",
        section="Results list",
    ),
    Action(
        "left_curly_bracket",
        "run(-1)",
        "Previous run (a folder of runs lists them newest first).",
        footer="Previous run",  # (both were `Run`: two keys, one name)
        rank=8,
        title="Previous run",
        section="Results list",
    ),
    Action(
        "right_curly_bracket",
        "run(1)",
        "Next run.",
        footer="Next run",
        rank=9,
        title="Next run",
        section="Results list",
    ),
    Action(
        "R",
        "pick_run",
        "Runs: choose a run of the folder from a list.",
        title="Choose a run from the list",
        section="Results list",
    ),
    Action(
        "S",
        "pick_filter",
        "Show: choose what the list shows from every filter at once (each is in the palette too: Show failures…).",
        title="Choose a filter",
        section="Results list",
    ),
    Action(
        "v",
        "compare_previous",
        "Versus: compare with an earlier run of the same suite.",
        footer="Versus",
        rank=10,
        title="Compare with the previous run",
        section="Results list",
    ),
    Action(
        "c",
        "copy",
        "Copy the highlighted result's id and where it is recorded (file:line).",
        title="Copy the highlighted result's id",
        section="Results list",
    ),
    Action(
        "b",
        "run_summary",
        "Run summary: the run folder's benchmark.json (pass rate, time, tokens per target and per grader, notes).",
        title="Run summary (benchmark.json)",
        section="Results list",
    ),
    Action(
        "i",
        "inspect_test",
        "Inspect: open the highlighted result's test in the inspector, at that case (its drift said there).",
        title="Open the test in the inspector",
        section="Results list",
    ),
    Action(
        "o",
        "edit_test",
        "Open the eval file at the highlighted result's test in $EDITOR.",
        title="Open the test in $EDITOR",
        section="Results list",
    ),
    Action(
        "percent_sign",
        "statistics",
        "Statistics: mean, P50, P90, P95, P99 of score, latency, cost, tokens, tool and LLM calls, for the run, by "
        "target and by suite, as `agentv inspect stats` gives them.",
        display="%",
        title="Statistics (percentiles)",
        section="Results list",
    ),
    Action(
        "h",
        "history",
        "History: each test's score across the runs of this experiment as a sparkline, and the trend as "
        "`agentv trend` reports it (slope, r², improving / stable / degrading).",
        title="Score history and trend across runs",
        section="Results list",
    ),
    Action(
        "t",
        "targets",
        "Targets: each test's score per target and every pair of targets compared, as `agentv compare RUN` does.",
        title="Compare the run's targets (N-way matrix)",
        section="Results list",
    ),
    Action("colon", "app.command_palette", "Jump to a result by id (the palette).", section="App"),
    Action("", "", "Command palette: every action, then every result by id.", display="ctrl+p", section="App"),
    Action(
        "escape",
        "clear",
        "Clear the full-text search, else the search, else the filter; else, opened from a case, back to it.",
        title="Clear the search or the filter (back to the case)",
        section="App",
    ),
    Action(
        "question_mark",
        "help",
        "Show this help: the keys and what the marks mean.",
        footer="Help",
        rank=0,
        title="Help (keys and marks)",
        section="App",
    ),
    quit_action("App", rank=4),
)

COMPARE_ACTIONS: tuple[Action, ...] = (
    Action(
        "", "", "Move in the list; pgup pgdn a page.", display=MOVE, section="Two runs compared (turnlens A B, or v)"
    ),
    Action("", "", "First / last in the list.", display=FIRST_LAST, section="Two runs compared (turnlens A B, or v)"),
    Action(
        "",
        "open_current",
        "The two answers and verdicts side by side.",
        display="enter",
        title="Open the highlighted pair",
        section="Two runs compared (turnlens A B, or v)",
    ),
    Action(
        "f",
        "cycle_filter",
        "Show changed pairs only, or all.",
        footer="Filter",
        rank=0,
        title="Show changed only / all",
        section="Two runs compared (turnlens A B, or v)",
    ),
    Action(
        "slash",
        "search",
        "Search ids as you type.",
        footer="Search",
        rank=1,
        title="Search results",
        section="Two runs compared (turnlens A B, or v)",
        opens_text_box=True,
    ),
    Action(
        "c",
        "copy",
        "Copy the highlighted pair's id.",
        title="Copy the highlighted pair's id",
        section="Two runs compared (turnlens A B, or v)",
    ),
    Action(
        "escape",
        "back",
        "Clear the search, else go back to the run list.",
        footer="Back",
        rank=2,
        title="Back to the run list (or clear the search)",
        section="Two runs compared (turnlens A B, or v)",
    ),
    Action(
        "escape",
        "clear",
        "Clear the search.",
        help=False,
        title="Clear the search",
        section="Two runs compared (turnlens A B, or v)",
    ),
    Action(
        "question_mark",
        "help",
        "Show the keys and what the marks mean.",
        footer="Help",
        rank=3,
        title="Help (keys and marks)",
        section="Two runs compared (turnlens A B, or v)",
    ),
    quit_action("Two runs compared (turnlens A B, or v)", rank=4),
)

DETAIL_ACTIONS: tuple[Action, ...] = (
    Action(
        "escape",
        "back",
        "Back to the list.",
        footer="Back",
        rank=0,
        title="Back to the list",
        section="One result",
    ),
    Action(
        "right_square_bracket",
        "step(1)",
        "The next result in the list.",
        footer="Next",
        rank=1,
        title="Next result",
        section="One result",
    ),
    Action(
        "left_square_bracket",
        "step(-1)",
        "The previous result in the list.",
        footer="Previous",
        rank=2,
        title="Previous result",
        section="One result",
    ),
    Action(
        "n",
        "failing(1)",
        "The next result that failed or errored.",
        footer="Next failing",
        rank=3,
        title="Next failing result",
        section="One result",
    ),
    Action(
        "N",
        "failing(-1)",
        "The previous result that failed or errored.",
        title="Previous failing result",
        section="One result",
    ),
    Action("1", "tab('request')", "The recorded input and requests.", title="Show input", section="One result"),
    Action("2", "tab('answer')", "The candidate answer.", title="Show candidate answer", section="One result"),
    Action(
        "3",
        "tab('verdict')",
        "The verdict: score, graders, assertions and their evidence.",
        title="Show verdict (graders, assertions)",
        section="One result",
    ),
    Action(
        "4,e",
        "tab('evaluator')",
        "The recorded grader / evaluator prompt.",
        title="Show grader prompt",
        section="One result",
    ),
    Action(
        "5,d",
        "tab('drift')",
        "Drift: the recorded input against what the eval file produces now.",
        title="Show drift against the eval file",
        section="One result",
    ),
    Action(
        "6",
        "tab('timing')",
        "Timing: duration, tokens, cost, per-test artifacts.",
        title="Show timing and trace",
        section="One result",
    ),
    Action("7", "tab('raw')", "The whole record as recorded.", title="Show raw record", section="One result"),
    Action(
        "8",
        "tab('transcript')",
        "Transcript: the turns and tool calls (arguments, results, durations, tokens) from transcript.jsonl or "
        "trace.json; arrows move, enter or space folds.",
        title="Show transcript and tool calls",
        section="One result",
    ),
    Action(
        "c",
        "copy",
        "Copy the selected text, else the tab on screen (the answer as recorded).",
        title="Copy",
        section="One result",
    ),
    Action("question_mark", "help", "Show the keys.", footer="Help", rank=4, title="Help (keys)", section="One result"),
    quit_action("One result", rank=5),
)

PAIR_ACTIONS: tuple[Action, ...] = (
    Action(
        "escape",
        "back",
        "Back to the compared list.",
        footer="Back",
        rank=0,
        title="Back to the compared list",
        section="One pair",
    ),
    Action(
        "right_square_bracket",
        "step(1)",
        "The next pair in the list.",
        footer="Next",
        rank=1,
        title="Next pair",
        section="One pair",
    ),
    Action(
        "left_square_bracket",
        "step(-1)",
        "The previous pair in the list.",
        footer="Previous",
        rank=2,
        title="Previous pair",
        section="One pair",
    ),
    Action(
        "n",
        "changed(1)",
        "The next pair whose result changed.",
        footer="Next changed",
        rank=3,
        title="Next changed pair",
        section="One pair",
    ),
    Action(
        "N",
        "changed(-1)",
        "The previous pair whose result changed.",
        title="Previous changed pair",
        section="One pair",
    ),
    Action(
        "c",
        "copy",
        "Copy the selection, else the side chosen with tab or a click, else the pair (both sides).",
        footer="Copy",
        rank=4,
        title="Copy",
        section="One pair",
    ),
    Action(
        "tab",
        "side(1)",
        "Choose side A, then the other side (what c copies).",
        title="Choose a side (A, then the other)",
        section="One pair",
    ),
    Action(
        "shift+tab",
        "side(-1)",
        "Choose side B, then the other side.",
        title="Choose a side (B, then the other)",
        section="One pair",
    ),
    Action("question_mark", "help", "Show the keys.", footer="Help", rank=5, title="Help (keys)", section="One pair"),
    quit_action("One pair", rank=6),
)

# Every table, in the order the list's help shows them.
ALL_TABLES = (RESULTS_ACTIONS, DETAIL_ACTIONS, COMPARE_ACTIONS, PAIR_ACTIONS)


def marks_legend() -> list[tuple[Text, str]]:
    """What the marks of the lists mean, in the current theme's colours."""
    p = palette()
    return [
        (Text("✓", style=p.text("success")), "passed: AgentV recorded ok (rows without a status: score ≥ threshold)"),
        (Text("✗", style=p.text("error")), "failed: AgentV recorded a quality failure (else score < threshold)"),
        (Text("!", style=p.text("error", bold=True)), "execution error: the run failed, not judged"),
        (Text("=", style="dim"), "drift: input unchanged"),
        (Text("≠", style=p.text("warning", bold=True)), "drift: the eval file now produces something else"),
        (Text("?", style="dim"), "drift: eval case not found"),
        (Text("–", style="dim"), "drift: nothing to compare (no input recorded, or the engine refused the case)"),
        (Text("not run", style="dim italic"), "compare: the test is not in that run"),
        (Text("5.2s", style="dim"), "AgentV 4 runs: duration, tokens and cost where the rows recorded them"),
    ]
