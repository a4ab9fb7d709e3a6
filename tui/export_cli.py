"""`turnlens export PATH…`: eval files as JSONL, or AgentV results (a results file, a run folder, a folder of runs)
in any of jsonl, markdown and toon, or compared as `agentv compare --json` does; either as one html page.

This is the command: its one argument parser, which paths are which (formatting/inputs.py decides, as the app
does), exit statuses, Ctrl-C and output errors. The export itself is the engine's (formatting/export/). Never
imports Textual (its start-up time is measured).
"""

from __future__ import annotations

import argparse
import functools
import os
import signal
import sys
from collections.abc import Callable, Sequence

from turnlens.formatting import gcpause
from turnlens.formatting.evals.files import SIZE_OPTION_HELP, apply_size_option
from turnlens.formatting.export import output
from turnlens.formatting.model import PROFILES
from turnlens.tui.arguments import ArgumentParser, add_delta_option, add_dialect_option, agentv_threshold

RESULTS_FORMATS = ("jsonl", "markdown", "toon")
# html: one self-contained page, for eval files too; json: runs compared, as `agentv compare … --json` prints them
FORMATS = (*RESULTS_FORMATS, "html", "json")
EXIT_USAGE = 2


def _parser() -> argparse.ArgumentParser:
    # add_argument makes a help formatter to check each option, and a formatter asks the terminal's width through
    # shutil (an import that slows the start): the checks get one of fixed width, help the usual one.
    p = ArgumentParser(
        prog="turnlens export",
        description="Write what every case of an eval file becomes (question, guidelines, chatPrompt for lm and "
        "agent mode, evaluator prompt, marker rule) as JSONL; or export AgentV results (a results file, a run "
        "folder, a folder of runs such as .agentv/results): each result's conversation and verdict.",
        formatter_class=functools.partial(argparse.HelpFormatter, width=80),
    )
    p.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help="eval files (YAML, .jsonl dataset, evals.json) or folders of them; or AgentV results files, run "
        "folders or folders of runs",
    )
    p.add_argument("--repo-root", metavar="DIR", help="repo root (default: nearest folder with .git, else the cwd)")
    p.add_argument("--profile", choices=PROFILES, default="agentv", help="chatPrompt profile (default: agentv)")
    add_dialect_option(p, "AgentV file format to read (default: auto, from each file's shape)")
    p.add_argument(
        "--format",
        choices=FORMATS,
        help="results: output format (default: jsonl); json: runs compared, what `agentv compare RUN … --json` "
        "prints; eval files export as JSONL; html: one self-contained page (eval files too)",
    )
    add_delta_option(
        p,
        "--format json: a score change of at least D is a win or a loss (any number; default 0.1, agentv compare's -t)",
    )
    p.add_argument(
        "--stats", action="store_true", help="--format markdown: each run's statistics, as agentv inspect stats"
    )
    p.add_argument("--baseline", metavar="TARGET", help="--format json, one run: the baseline target")
    p.add_argument("--candidate", metavar="TARGET", help="--format json, one run: the candidate target")
    p.add_argument(
        "--targets", metavar="TARGET", action="append", default=[], help="--format json, one run: targets compared"
    )
    p.add_argument(
        "--threshold",
        type=agentv_threshold,
        metavar="T",
        help="results: pass threshold in [0, 1] (default: AgentV's 0.8)",
    )
    p.add_argument("-q", "--quiet", action="store_true", help="do not print warnings on stderr")
    p.add_argument("--max-file-size", metavar="SIZE", help=SIZE_OPTION_HELP)
    p.formatter_class = argparse.HelpFormatter
    return p


def main(argv: Sequence[str] | None = None, exit_process: bool = False) -> int:
    """`turnlens export ARGV`'s exit status; with `exit_process` (the command itself) the process ends with it."""
    output.guard_std_fds()
    if exit_process:
        gcpause.exit_without_freeing()
    args = _parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    # SIGTERM and SIGHUP too, as the command (in a caller's process, its signals are the caller's)
    (output.install_signal_handlers if exit_process else output.install_sigint_handler)()
    status = run_guarded(lambda: _run(args))
    if exit_process:
        if output.terminated_by():  # its workers are stopped and reaped: now it ends by the signal
            output.end_by_signal(output.terminated_by())
        output.exit_now(status)
    return status


def run_guarded(export: Callable[[], int]) -> int:
    """`export()`'s exit status; Ctrl-C, a closed or full output and a closed pipe end it with one line (or none
    for a pipe whose reader has all it wants, as `head` does) and the usual status, never a traceback."""
    try:
        return export()
    except output.Terminated as ended:  # SIGTERM, SIGHUP: ended as after Ctrl-C, then by the signal (main)
        name = signal.Signals(ended.signum).name
        output.warn(f"turnlens export: ended by {name}; the output ends with the last whole row written")
        output.silence_stdout()
        return 128 + ended.signum
    except KeyboardInterrupt:
        output.warn("turnlens export: interrupted; the output ends with the last whole row written")
        output.silence_stdout()
        return output.EXIT_INTERRUPTED
    except BrokenPipeError:  # `turnlens export … | head`: the reader has all it wants
        output.silence_stdout()
        return 0
    except output.OutputError as exc:
        output.warn(f"turnlens export: cannot write the output: {exc}")
        output.silence_stdout()
        return 1
    except MemoryError:
        from turnlens.formatting.memlimit import limit_hit

        output.warn(f"turnlens export: out of memory ({limit_hit()})")
        return 1


def _run(args: argparse.Namespace) -> int:
    problem = apply_size_option(args.max_file_size)
    if problem is not None:
        output.warn(f"turnlens export: {problem}")
        return EXIT_USAGE
    if args.repo_root is not None and not os.path.isdir(args.repo_root):
        output.warn(f"turnlens export: --repo-root {args.repo_root}: not a folder")
        return EXIT_USAGE
    if args.format == "json":
        return _compare_runs(args)
    from turnlens.formatting.inputs import classify

    classified = classify(args.paths)
    if classified.both:
        eval_files = ", ".join(classified.evals)
        output.warn(f"turnlens export: cannot mix eval files ({eval_files}) and results in one export")
        return EXIT_USAGE
    if args.format == "html":
        from turnlens.formatting.export.html import write_page

        return write_page(args.paths, bool(classified.results), args.repo_root, args.dialect)
    if classified.results:
        return _export_results(args)
    if args.format not in (None, "jsonl"):
        missing = [path for path in args.paths if not os.path.exists(path)]
        if missing:
            output.warn(f"turnlens export: {missing[0]}: cannot read: no such file or folder")
            return 1
        output.warn(
            f"turnlens export: {args.paths[0]} is not an AgentV results file, run folder or folder of runs; "
            f"--format {args.format} exports results (an eval file exports as JSONL without --format)"
        )
        return 1
    from turnlens.formatting.export.evals import export_eval_files

    return export_eval_files(args)


def _export_results(args: argparse.Namespace) -> int:
    from turnlens.formatting.export.results import stream_results, stream_stats
    from turnlens.formatting.results.queries import DEFAULT_THRESHOLD

    if args.stats and args.format != "markdown":
        output.warn("turnlens export: --stats goes with --format markdown")
        return EXIT_USAGE
    threshold = DEFAULT_THRESHOLD if args.threshold is None else args.threshold
    if args.stats:
        problems = stream_stats(args.paths, output.binary_stdout())
    else:
        problems = stream_results(args.paths, args.format or "jsonl", output.binary_stdout(), threshold)
    fatal = [p for p in problems if p.line is None and p.severity == "error"]
    for problem in fatal if args.quiet else problems:
        output.warn(f"turnlens export: {problem}")
    return 1 if fatal else 0


def _compare_runs(args: argparse.Namespace) -> int:
    """`agentv compare PATHS --json`, byte for byte: stdout, its `Error: …` (after turnlens's prefix) and status."""
    from turnlens.formatting.results.agentv_compare import compare_json

    stdout, stderr, status = compare_json(args.paths, args.delta, args.baseline, args.candidate, args.targets)
    if stdout:
        out = output.binary_stdout()
        output.write_all(out, stdout.encode("utf-8", "surrogatepass"))
        out.flush()
    if stderr:
        output.warn(f"turnlens export: {stderr.rstrip()}")
    return status


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
