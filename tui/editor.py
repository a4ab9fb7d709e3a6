"""Opening a file at a line in the user's editor."""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from typing import Any, Protocol

from textual.app import SuspendNotSupported

from turnlens.formatting.sanitize import sanitize


class Notify(Protocol):
    def __call__(self, message: str, *, markup: bool = ..., severity: Any = ...) -> None: ...


# Editors that take `FILE:LINE` after a flag instead of `+LINE FILE`.
_GOTO_FLAG = {"code": "--goto", "code-insiders": "--goto", "codium": "--goto", "cursor": "--goto"}
_COLON_STYLE = {"subl", "zed", "hx", "helix"}


def editor_command(path: str, line: int | None, environ: Mapping[str, str] = os.environ) -> list[str]:
    """The command line that opens `path` at `line` in $VISUAL/$EDITOR (vi when neither is set). Raises ValueError
    when the variable is not a command line (an unbalanced quote: `vim "x`)."""
    editor = environ.get("VISUAL") or environ.get("EDITOR") or "vi"
    argv = shlex.split(editor) or ["vi"]
    name = os.path.basename(argv[0])
    if not line:
        return argv + [path]
    if name in _GOTO_FLAG:
        return argv + [_GOTO_FLAG[name], f"{path}:{line}"]
    if name in _COLON_STYLE:
        return argv + [f"{path}:{line}"]
    return argv + [f"+{line}", path]


def open_in_editor(
    path: str, line: int | None, suspend: Callable[[], AbstractContextManager[None]], notify: Notify
) -> None:
    """The app (its `suspend`) hands the terminal to the editor at `path`:`line` and takes it back; whatever goes
    wrong (a bad $EDITOR, a missing program, a terminal that cannot suspend) is a `notify`, never a traceback or a
    frozen screen. The inspector's and the results view's `o`."""
    try:
        command = editor_command(path, line)
    except ValueError as error:  # EDITOR='vim "x'
        notify(f"Could not start the editor: $EDITOR is not a command line ({error})", markup=False)
        return
    problem = None
    try:
        # run_editor never raises: textual's suspend() resumes the terminal only when its block ends normally
        with suspend():
            problem = run_editor(command)
    except SuspendNotSupported:
        notify("This terminal cannot hand over to an editor.", markup=False, severity="warning")
    if problem is not None:
        notify(f"Could not start the editor: {sanitize(problem)}", markup=False, severity="error")


def run_editor(command: list[str]) -> str | None:
    """Run the editor in the foreground (the app is suspended meanwhile) and wait for it. Never raises: returns why
    it could not start or how it failed (the caller must resume the app in every case), else None."""
    try:
        process = subprocess.Popen(command)
    except (OSError, ValueError, subprocess.SubprocessError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        return f"{command[0]}: {reason}"
    with _interrupts_to_the_editor():
        status = process.wait()
    if status < 0:
        try:
            return f"the editor was stopped by {signal.Signals(-status).name}"
        except ValueError:
            return f"the editor was stopped by signal {-status}"
    if status in (126, 127):  # a shell's "cannot run" and "not found" (EDITOR='sh -c …', a wrapper script)
        return f"the editor exited with status {status}"
    return None


@contextmanager
def _interrupts_to_the_editor() -> Iterator[None]:
    """Ctrl-C and Ctrl-\\ while the editor runs are the editor's (it shares the terminal's process group): turnlens
    ignores them meanwhile, as system(3) does, instead of dying in the wait with the terminal suspended. Set after
    the editor started, so that it does not inherit the ignoring."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    kept = {number: signal.signal(number, signal.SIG_IGN) for number in (signal.SIGINT, signal.SIGQUIT)}
    try:
        yield
    finally:
        for number, handler in kept.items():
            signal.signal(number, handler)
