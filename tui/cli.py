"""The `turnlens` command. `turnlens export …` never imports Textual (its startup time is measured)."""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
import textwrap
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from turnlens.tui.arguments import ArgumentParser, add_delta_option, add_dialect_option, agentv_threshold

if TYPE_CHECKING:
    from textual.app import App


@contextlib.contextmanager
def ctrl_c_held() -> Iterator[None]:
    """Ctrl-C while modules load is held, and acted on (KeyboardInterrupt) once they have loaded: raised inside a
    native module's initialisation (orjson's, for one) it can crash the interpreter instead of stopping it."""
    noted: list[int] = []
    try:
        previous = signal.signal(signal.SIGINT, lambda signum, frame: noted.append(signum))
    except ValueError:  # not the main thread: nothing to hold
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler if previous is None else previous)
    if noted:
        raise KeyboardInterrupt


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("turnlens")
    except PackageNotFoundError:  # running from a checkout that was never installed
        return "unknown (not installed)"


class _VersionAction(argparse.Action):
    """--version, with the version looked up only when asked: importlib.metadata is ~20 ms of every start."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: object,
        option_string: str | None = None,
    ) -> None:
        print(f"turnlens {_version()}")
        parser.exit()


# `turnlens --help` lists every subcommand from this table: (name, its usage lines, what it does). A new
# subcommand adds its row here (and its `turnlens NAME --help` says the rest).
SUBCOMMANDS: list[tuple[str, tuple[str, ...], str]] = [
    (
        "export",
        (
            "export EVAL_FILE|FOLDER ...",
            "export RESULTS ... --format toon|jsonl|markdown|html|json",
            "export EVAL_FILE|FOLDER|RESULTS --format html",
        ),
        "print what every case becomes as JSONL; a results file's conversations and verdicts as TOON, JSONL or "
        "Markdown, runs compared as JSON; one self-contained HTML page of either",
    ),
    (
        "diff",
        ("diff [REV_A [REV_B]] [[--] PATH ...] [--format text|json|markdown|html]", "diff OLD_FOLDER NEW_FOLDER"),
        "what a change does to every test's prompts and marker rule, between git revisions or two folders",
    ),
    (
        "serve",
        ("serve [--host HOST] [--port PORT] [ARGS ...]",),
        "the app in a web browser: each browser tab runs turnlens ARGS on this machine",
    ),
]


def _subcommands_help() -> str:
    lines = ["commands:"]
    for name, usages, what in SUBCOMMANDS:
        lines.extend(f"  turnlens {usage}" for usage in usages)
        lines.extend(textwrap.wrap(what, 76, initial_indent="      ", subsequent_indent="      "))
        lines.append(f"      (turnlens {name} --help for its options)")
    return "\n".join(lines)


def _parser() -> argparse.ArgumentParser:
    from turnlens.formatting.evals.files import SIZE_OPTION_HELP

    parser = ArgumentParser(
        prog="turnlens",
        description=textwrap.fill(
            "Inspect how AgentV eval cases become the prompt a model and an evaluator receive, and review AgentV "
            "results. With no PATH, opens the bundled sample_evals/.",
            80,
        ),
        epilog=_subcommands_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action=_VersionAction, help="show program's version number and exit")
    parser.add_argument("paths", nargs="*", metavar="PATH", help="eval files or folders (or AgentV results files)")
    parser.add_argument("--repo-root", metavar="DIR", help="repository root (default: nearest folder with .git)")
    parser.add_argument(
        "--mode",
        choices=("lm", "agent"),
        default=None,
        help="show every case in this mode (default: each case in the mode AgentV would use, from its target's "
        "provider; lm for 0.15 files); m switches",
    )
    parser.add_argument(
        "--profile", choices=("agentv", "design"), default="agentv", help="formatting profile (default agentv)"
    )
    add_dialect_option(parser, "AgentV file format to read the eval files in (default: auto, from each file's shape)")
    parser.add_argument("--evals", metavar="PATH", help="eval file or folder behind a results file (results view)")
    parser.add_argument(
        "--threshold",
        type=agentv_threshold,
        metavar="T",
        help="results: pass threshold in [0, 1] (default: the suite's execution.threshold, else AgentV's 0.8)",
    )
    add_delta_option(
        parser,
        "compare: a score change of at least D is a win or a loss (any number; default 0.1, as `agentv compare -t`)",
    )
    parser.add_argument("--theme", metavar="NAME", help="colour theme (remembered; the palette's 'Theme' lists them)")
    parser.add_argument("--baseline", metavar="TARGET", help="one run: compare this target (with --candidate)")
    parser.add_argument("--candidate", metavar="TARGET", help="one run: the target compared with --baseline")
    parser.add_argument("--no-watch", action="store_true", help="do not re-render when the files change")
    parser.add_argument("--max-file-size", metavar="SIZE", help=SIZE_OPTION_HELP)
    parser.add_argument(
        "--samples",
        metavar="DIR",
        help="copy the bundled sample_evals/ into DIR (made if missing) to edit them, and exit",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point; always ends with SystemExit carrying the exit status (also under `python -c`), but for
    `turnlens export`, which ends the process itself once its output is flushed."""
    try:
        if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:  # (turnlens/__init__.py's, at start)
            signal.signal(signal.SIGINT, signal.default_int_handler)
        status = run(argv, exit_process=True)
    except KeyboardInterrupt as stop:  # Ctrl-C before the command took it over (while starting): no traceback
        signum = getattr(stop, "signum", None)  # SIGTERM/SIGHUP an export took once it was over: ends by it
        if signum is not None:
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
        if sys.stderr is not None:
            print("turnlens: interrupted", file=sys.stderr)
        status = 130
    raise SystemExit(status)


def run(argv: Sequence[str] | None = None, exit_process: bool = False) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] == "export":
        with ctrl_c_held():
            from turnlens.tui.export_cli import main as export_main

        return export_main(args[1:], exit_process=exit_process)
    if args and args[0] == "serve":
        return serve(args[1:])
    if args and args[0] == "diff":
        with ctrl_c_held():
            from turnlens.tui.diff_cli import main as diff_main

        return diff_main(args[1:])

    made = open_app(args)
    if isinstance(made, int):
        return made
    from .signals import SignalExit

    ending = SignalExit(made)  # SIGTERM, SIGHUP, SIGQUIT: as `q`, then 143, 129, 131
    ending.install()
    try:
        made.run()
    finally:
        ending.uninstall()
    status = ending.status or made.return_code or 0
    if exit_process:
        from turnlens.formatting.export.output import exit_now

        # The terminal is restored: end here. The interpreter's shutdown would free every loaded case one object
        # at a time, seconds after `q` for a dataset of a hundred thousand tests.
        exit_now(status)
    return status


WEB_DRIVER = "textual.drivers.web_driver:WebDriver"


def _served() -> bool:
    """Run by `turnlens serve` (textual-serve gives the app a web driver instead of a terminal)."""
    return os.environ.get("TEXTUAL_DRIVER") == WEB_DRIVER


def _serve_parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(
        prog="turnlens serve",
        usage="turnlens serve [--host HOST] [--port PORT] [ARGS …]",
        description=(
            "Open turnlens in a web browser (through textual-serve): each browser tab runs `turnlens ARGS` on this "
            "machine. For demos and for colleagues without a terminal. Only this machine can connect unless --host "
            "says otherwise."
        ),
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine)")
    parser.add_argument("--port", type=int, default=8000, help="port to listen on (default 8000)")
    return parser


def serve(argv: Sequence[str]) -> int:
    """`turnlens serve [--host H] [--port P] [ARGS…]`: the app's arguments are checked first (a mistake is said
    here, not in the browser), then textual-serve runs `turnlens ARGS` for each browser that connects."""
    import shlex

    options, app_args = _serve_parser().parse_known_args(argv)
    _parser().parse_args(app_args)  # exits with the usual message on a bad option
    missing = [p for p in app_args if not p.startswith("-") and not os.path.exists(p)]
    if missing and not any(a.startswith("-") for a in app_args):
        _say(f"turnlens serve: no such file or folder: {', '.join(missing)}")
        return 2
    if not 0 < options.port < 65536:
        print(f"turnlens serve: --port {options.port}: not a port number", file=sys.stderr)
        return 2
    from textual_serve.server import Server

    command = shlex.join([sys.executable, "-m", "turnlens", *app_args])
    server = Server(command, host=options.host, port=options.port, title="turnlens")
    if options.host not in ("127.0.0.1", "localhost", "::1"):
        print(
            f"turnlens serve: listening on {options.host}: anyone who can reach it runs turnlens here", file=sys.stderr
        )
    server.serve()
    return 0


def _say(message: str) -> None:
    """A message of the command's own on stderr: the paths in it are untrusted (a name holding ESC or BEL acts on
    the terminal), so it goes through the one sanitiser, on one line, as export's messages do."""
    from turnlens.formatting.sanitize import sanitize_line

    print(sanitize_line(message), file=sys.stderr)


def open_app(args: Sequence[str], *, terminal: bool = True) -> App[None] | int:
    """The app `turnlens ARGS` runs (Textual imported only now), or the exit status of a refusal, said on stderr.
    `terminal=False` leaves out the check that standard input and output are a terminal (for
    benchmarks/bench_firstframe.py, which runs the app headless and times what the command does)."""
    options = _parser().parse_args(args)

    from turnlens.formatting.evals.files import apply_size_option

    if options.samples is not None:
        from .session import copy_samples

        try:
            copied = copy_samples(options.samples)
        except OSError as error:
            print(f"turnlens: --samples {options.samples}: {error}", file=sys.stderr)
            return 2
        print(f"Copied the samples to {copied}; open them with: cd {options.samples} && turnlens sample_evals/")
        return 0

    problem = apply_size_option(options.max_file_size)
    if problem is not None:
        _say(f"turnlens: {problem}")
        return 2

    missing = [p for p in options.paths if not os.path.exists(p)]
    if missing:
        _say(f"turnlens: no such file or folder: {', '.join(missing)}")
        return 2
    if options.repo_root is not None and not os.path.isdir(options.repo_root):
        _say(f"turnlens: --repo-root {options.repo_root}: not a folder")
        return 2

    if (
        terminal
        and not _served()
        and not (sys.stdin is not None and sys.stdin.isatty() and sys.stdout is not None and sys.stdout.isatty())
    ):
        # Without a terminal the app would run forever writing escape codes into a file or a pipe.
        print(
            "turnlens: the app needs a terminal (standard input and output are not one); "
            "`turnlens export FILE` writes what it shows as JSONL",
            file=sys.stderr,
        )
        return 2

    from turnlens.formatting import gcpause

    gcpause.pause_until_started()  # until the app's first frame (tui/app.py)
    with ctrl_c_held():
        from .app import make_app  # imports Textual: only now

    from .settings import Settings

    # the user's remembered choices: read for a session in a terminal only (benchmarks run headless with none)
    settings = Settings.load() if terminal else None
    if settings is not None and options.theme and options.theme != settings.theme:
        settings.remember(theme=options.theme)  # an unknown name is said in the app, and replaced once one is chosen
    return make_app(
        options.paths,
        repo_root=options.repo_root,
        mode=options.mode,
        profile=options.profile,
        evals=options.evals,
        watch=not options.no_watch,
        dialect=options.dialect,
        threshold=options.threshold,
        delta=options.delta,
        targets=(options.baseline, options.candidate) if options.baseline and options.candidate else None,
        theme=options.theme or (settings.theme if settings is not None else None),
        settings=settings,
    )


if __name__ == "__main__":
    main()
