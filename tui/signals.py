"""SIGTERM, SIGHUP and SIGQUIT end the app as `q` does: the app exits (Textual leaves the alternate screen, turns
mouse tracking off and shows the cursor), then the process ends with 128 + the signal (143, 129, 131). Before, the
default actions ended the process on the spot and left the terminal in the app's modes.

The app exits through its event loop; if that loop is busy for longer than GRACE seconds (a long synchronous step),
the terminal is restored from here (its saved line settings, the modes switched off) and the signal is raised again
with its default action, which ends the process (a shell shows 128 + the signal): a signal that asks to end is never
left waiting.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import threading
from typing import Any

EXIT_SIGNALS = (signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)
GRACE = 1.5  # seconds the app has to exit by itself once asked

# alternate screen off, cursor shown, mouse tracking (all modes) off, bracketed paste off, focus events off, the
# kitty keyboard protocol popped, line wrapping on: what Textual's driver switches on, switched off
RESTORE = (
    "\x1b[?1049l\x1b[?25h\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1015l\x1b[?1006l\x1b[?2004l\x1b[?1004l\x1b[<u\x1b[?7h"
)


def exit_status(signum: int) -> int:
    return 128 + signum


class SignalExit:
    """Installed in the main thread before the app runs (`install`), removed after (`uninstall`)."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.status: int | None = None
        self._previous: dict[int, Any] = {}
        self._terminal: tuple[int, list[Any]] | None = None  # (fd, termios attributes)
        self._ended = threading.Event()
        self._signum: int = signal.SIGTERM

    def install(self) -> None:
        if threading.current_thread() is not threading.main_thread():
            return
        self._terminal = _saved_terminal()
        for number in EXIT_SIGNALS:
            self._previous[number] = signal.signal(number, self._received)

    def uninstall(self) -> None:
        self._ended.set()
        for number, handler in self._previous.items():
            signal.signal(number, handler)
        self._previous.clear()

    def _received(self, signum: int, _frame: Any) -> None:
        if self.status is not None:
            return  # already ending
        self.status = exit_status(signum)
        self._signum = signum
        signal.signal(signum, signal.SIG_DFL)  # a second one ends the process at once; so does the watchdog
        status = self.status
        try:  # the handler runs in the main thread, inside the app's event loop: the exit goes through the loop
            asyncio.get_running_loop().call_soon_threadsafe(lambda: self.app.exit(return_code=status))
        except RuntimeError:  # (no loop running yet or any more: the watchdog ends it)
            pass
        watchdog = threading.Thread(target=self._end_if_stuck, name="signal-exit", daemon=True)
        watchdog.start()

    def _end_if_stuck(self) -> None:
        if self._ended.wait(GRACE):
            return
        restore_terminal(self._terminal)
        os.kill(os.getpid(), self._signum)  # its default action now: the process ends by the signal (128 + it)


def _saved_terminal() -> tuple[int, list[Any]] | None:
    """The terminal's line settings before the app changed them (restored if the app cannot restore them)."""
    try:
        import termios

        fd = sys.__stdin__.fileno() if sys.__stdin__ is not None else -1
        return (fd, termios.tcgetattr(fd)) if fd >= 0 and os.isatty(fd) else None
    except (ImportError, OSError, ValueError):
        return None


def restore_terminal(saved: tuple[int, list[Any]] | None) -> None:
    """The terminal as it was before the app: its modes off and its saved line settings (errors ignored: after
    SIGHUP there may be no terminal left)."""
    try:
        fd = sys.__stdout__.fileno() if sys.__stdout__ is not None else -1
        if fd >= 0 and os.isatty(fd):
            os.write(fd, RESTORE.encode())
    except (OSError, ValueError):
        pass
    if saved is not None:
        try:
            import termios

            termios.tcsetattr(saved[0], termios.TCSADRAIN, saved[1])
        except (ImportError, OSError, ValueError, termios.error):
            pass
