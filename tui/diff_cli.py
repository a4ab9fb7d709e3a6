"""`turnlens diff [REV_A [REV_B]] [PATH…]`: what a change does to every test's prompts (never imports Textual)."""

from __future__ import annotations

import argparse
import functools
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # (imported where used: the command starts fast)
    from turnlens.formatting.diff.compare import TreeDiff

import json
import time

from turnlens.tui.arguments import ArgumentParser, add_dialect_option

FORMATS = ("text", "json", "markdown", "html")


def _parser() -> argparse.ArgumentParser:
    from turnlens.formatting.evals.files import SIZE_OPTION_HELP

    p = ArgumentParser(
        prog="turnlens diff",
        usage=(
            "turnlens diff [options] [REV_A [REV_B]] [[--] PATH …]\n"
            "       turnlens diff [options] OLD_FOLDER NEW_FOLDER"
        ),
        description=(
            "Compare what every test sends (question, chatPrompt, systemMessage or guidelines, grader prompts, in "
            "lm and agent mode; the marker rule; each segment's fate) in two versions of the eval files, and name "
            "the changed files that caused it. HEAD against the working tree by default; REV_A against the "
            "working tree; REV_A against REV_B; or two folders. Git is only read."
        ),
        formatter_class=functools.partial(argparse.HelpFormatter, width=100),
    )
    p.add_argument("args", nargs="*", metavar="REV|PATH", help="revisions, then paths (or two folders)")
    p.add_argument("--format", choices=FORMATS, default="text", help="output format (default: text)")
    p.add_argument("--exit-code", action="store_true", help="exit with status 1 when any test changed, 0 when none did")
    p.add_argument(
        "--view", action="store_true", help="open the comparison in the app (a terminal is needed) instead of printing"
    )
    p.add_argument("-q", "--quiet", action="store_true", help="do not say on stderr which files a version cannot read")
    p.add_argument("-v", "--verbose", action="store_true", help="text format: show each changed field's diff")
    add_dialect_option(p, "AgentV file format to read (default: auto, from each file's shape)")
    p.add_argument("--max-file-size", metavar="SIZE", help=SIZE_OPTION_HELP)
    return p


def split_separator(argv: Sequence[str]) -> tuple[list[str], list[str] | None]:
    """(the arguments before `--`, the paths after it or None): argparse drops the `--` it sees."""
    argv = list(argv)
    if "--" in argv:
        cut = argv.index("--")
        return argv[:cut], argv[cut + 1 :]
    return argv, None


def main(argv: Sequence[str]) -> int:
    from turnlens.formatting.export import output

    output.guard_std_fds()
    head, tail = split_separator(argv)
    options = _parser().parse_args(head)
    operands = options.args if tail is None else [*options.args, "--", *tail]
    if options.view:
        return _view(options, operands)
    output.install_sigint_handler()
    return _run_guarded(options, operands)


def _view(options: argparse.Namespace, operands: list[str]) -> int:
    """`turnlens diff --view`: the app, opened on the comparison (tui/inspector/diff.py)."""
    if not (sys.stdin is not None and sys.stdin.isatty() and sys.stdout is not None and sys.stdout.isatty()):
        print("turnlens diff: --view needs a terminal; without it the comparison is printed", file=sys.stderr)
        return 2
    from turnlens.tui.app import TurnlensApp
    from turnlens.tui.inspector.diff import ChangesScreen

    cwd = os.getcwd()
    app = TurnlensApp(lambda: ChangesScreen(operands, cwd, options.dialect))
    app.run()
    return app.return_code or 0


def _run_guarded(options: argparse.Namespace, operands: list[str]) -> int:
    from turnlens.formatting.export import output

    try:
        return _run(options, operands)
    except KeyboardInterrupt:
        output.warn("turnlens diff: interrupted")
        return output.EXIT_INTERRUPTED
    except BrokenPipeError:
        output.silence_stdout()
        return 1 if options.exit_code else 0
    except output.OutputError as exc:
        output.warn(f"turnlens diff: cannot write the output: {exc}")
        return 2


def _run(options: argparse.Namespace, operands: list[str]) -> int:
    from turnlens.formatting.diff.trees import DiffInputError
    from turnlens.formatting.diff.versions import plan_diff, run_diff
    from turnlens.formatting.evals.files import apply_size_option, max_file_size
    from turnlens.formatting.export import output

    problem = apply_size_option(options.max_file_size)
    if problem is not None:
        output.warn(f"turnlens diff: {problem}")
        return 2
    progress = _Progress() if not options.quiet and sys.stderr is not None and sys.stderr.isatty() else None
    if progress is not None:
        progress.say("turnlens diff: reading the versions from git…")
    try:
        plan = plan_diff(operands, os.getcwd(), max_file_size())
    except DiffInputError as exc:
        if progress is not None:
            progress.clear()
        output.warn(f"turnlens diff: {exc}")
        return 2
    try:
        diff = run_diff(plan, dialect=options.dialect, progress=progress)
    finally:
        plan.close()
        if progress is not None:
            progress.clear()
    for line in [] if options.quiet else diff.problems:
        output.warn(f"turnlens diff: warning: {line}")
    text = render(diff, options.format, options.verbose)
    out = output.binary_stdout()
    output.write_all(out, text.encode("utf-8", "surrogateescape"))
    return 1 if options.exit_code and diff.any_change else 0


class _Progress:
    """On a terminal's stderr: the file being compared, on one line rewritten at most ten times a second."""

    def __init__(self) -> None:
        self.clock = time.monotonic
        self.last = 0.0
        self.count = 0
        self.shown = False

    def __call__(self, name: str) -> None:
        from turnlens.formatting.sanitize import sanitize_line

        self.count += 1
        now = self.clock()
        if now - self.last < 0.1:
            return
        self.last = now
        self.say(f"turnlens diff: {self.count} files read… {sanitize_line(name)}"[:100])

    def say(self, line: str) -> None:
        sys.stderr.write("\r\x1b[K" + line)
        sys.stderr.flush()
        self.shown = True

    def clear(self) -> None:
        if self.shown:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()


def render(diff: TreeDiff, fmt: str, verbose: bool = False) -> str:
    if fmt == "json":
        return json.dumps(diff.to_json(), ensure_ascii=False, indent=2) + "\n"
    if fmt == "markdown":
        from turnlens.formatting.diff.report import markdown_report

        return markdown_report(diff)
    if fmt == "html":
        from turnlens.formatting.export.html import diff_page

        return diff_page(diff)
    from turnlens.formatting.diff.report import text_report

    return text_report(diff, verbose)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
