"""Writing an export: every byte, whole rows only, and one line (not a traceback) when that cannot be done.

- A write that the OS takes only in part (one `write()` passing 2 GiB, a signal) is continued until all of it is
  written: BufferedWriter.write returns a short count for such a write and does not retry.
- Ctrl-C while rows are being written is held until the chunk of whole rows being written is out; elsewhere it
  interrupts at once. `interrupted()` then words the message and the caller exits with 130. SIGTERM and SIGHUP
  (`install_signal_handlers`) are taken alike, as `Terminated`: the export ends as after Ctrl-C (its workers
  stopped and reaped, whole rows only), then by the signal itself.
- A closed stdout, a full disk or a closed pipe become an OutputError (or BrokenPipeError), worded once by the
  caller; after it, stdout is pointed at /dev/null so interpreter shutdown has nothing left to fail on.
- Rows are JSON as `dumps_json` makes them: orjson, with lone surrogates escaped as JSON.stringify does.
- Messages for stderr go through `warn`, which sanitises them (they hold ids and paths from untrusted files)
  and drops them when stderr is closed.
"""

from __future__ import annotations

import contextlib
import errno
import io
import json
import os
import signal
import sys
from collections.abc import Iterator
from types import FrameType
from typing import Any, BinaryIO, NoReturn, cast

import orjson

from turnlens.formatting.jsstr import LONE_SURROGATE
from turnlens.formatting.sanitize import sanitize

EXIT_INTERRUPTED = 130


class OutputError(Exception):
    """The output could not be written (closed, full, …): `str()` is the one-line reason."""


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP (`signum`): an interrupt like Ctrl-C, so every path that stops and reaps the workers after
    Ctrl-C runs for it too; the command then ends by the signal."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


# The signals an export ends by, as Ctrl-C ends it. They are blocked across a fork and while workers are waited for.
ENDING_SIGNALS = frozenset({signal.SIGINT, signal.SIGTERM, signal.SIGHUP})

# Ctrl-C: in a critical section (a chunk being written) it is only noted, and raised when the section ends.
_critical = 0
_pending = 0  # the signal noted, 0 for none
# In a forked export worker: Ctrl-C is only noted, and acted on between chunks (`check`), never mid-write.
_defer_always = False
# The first SIGTERM or SIGHUP taken (0: none): the export is ending by it, and a second one changes nothing.
_terminated_by = 0


def _interrupt(signum: int) -> KeyboardInterrupt:
    return KeyboardInterrupt() if signum == signal.SIGINT else Terminated(signum)


def _on_signal(signum: int, frame: FrameType | None) -> None:
    global _pending, _terminated_by
    if signum != signal.SIGINT:
        if _terminated_by:  # ending already: the cleanup it started is not cut short
            return
        _terminated_by = signum
    if _critical or _defer_always:
        _pending = _pending or signum
        return
    raise _interrupt(signum)


def install_sigint_handler() -> None:
    """Ctrl-C as described above (main thread only; elsewhere a no-op)."""
    try:
        signal.signal(signal.SIGINT, _on_signal)
    except ValueError:  # not the main thread
        pass


def install_signal_handlers() -> None:
    """Ctrl-C, SIGTERM and SIGHUP as described above (main thread only; elsewhere a no-op). A SIGTERM or SIGHUP
    ignored when the export started stays ignored (`nohup turnlens export …`)."""
    try:
        for signum in ENDING_SIGNALS:
            if signum == signal.SIGINT or signal.getsignal(signum) != signal.SIG_IGN:
                signal.signal(signum, _on_signal)
    except ValueError:  # not the main thread
        pass


def terminated_by() -> int:
    """The SIGTERM or SIGHUP the export is ending by, or 0."""
    return _terminated_by


def end_by_signal(signum: int) -> NoReturn:
    """End the process by `signum` itself, its default action (as a shell and `wait` expect of a process a signal
    stopped: status 128 + signum), once stdout and stderr are flushed; 128 + signum should the signal not end it."""
    for stream in (sys.stdout, sys.stderr):
        if stream is not None:
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
    signal.signal(signum, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signum})
    os.kill(os.getpid(), signum)
    os._exit(128 + signum)


def defer_sigint() -> None:
    """For a forked worker: Ctrl-C, SIGTERM and SIGHUP never interrupt a write; `check()` between chunks raises
    them."""
    global _defer_always
    _defer_always = True
    install_signal_handlers()


def check() -> None:
    """Raise the interrupt noted while writing, if any."""
    global _pending
    if _pending:
        signum, _pending = _pending, 0
        raise _interrupt(signum)


@contextlib.contextmanager
def whole() -> Iterator[None]:
    """A section Ctrl-C does not cut: raised at its end instead."""
    global _critical
    _critical += 1
    try:
        yield
    finally:
        _critical -= 1
    if not _critical and not _defer_always:
        check()


def write_all(out: BinaryIO, data: bytes | memoryview) -> None:
    """All of `data` to `out` (continuing short writes), then flushed. Raises BrokenPipeError or OutputError."""
    view = memoryview(data)
    try:
        while view:
            written = out.write(view)
            if written is None:  # a non-blocking stream that is full: wait for it
                import select

                select.select([], [out], [])
                continue
            view = view[written:]
        out.flush()
    except BrokenPipeError:
        raise
    except (OSError, ValueError) as exc:
        raise OutputError(_reason(exc)) from None


def write_rows(out: BinaryIO, data: bytes) -> None:
    """Whole rows: all written, or (Ctrl-C) all written before the interrupt is raised."""
    with whole():
        write_all(out, data)
    if _defer_always:
        check()


def copy_rows(out: BinaryIO, source: int, start: int, size: int) -> bool:
    """The bytes [start, start + size) of the file open at `source` (whole rows) to `out`, by the kernel (sendfile:
    never copied through this process), as write_rows writes them: all of it, or (Ctrl-C) all of it before the
    interrupt is raised. False when `out` cannot take it that way (not a descriptor; opened to append): nothing was
    written, the caller writes it itself. Raises BrokenPipeError or OutputError."""
    try:
        target = out.fileno()
    except (AttributeError, io.UnsupportedOperation, ValueError):
        return False
    sent_any = False
    with whole():
        try:
            out.flush()
            while size > 0:
                try:
                    sent = os.sendfile(target, source, start, size)
                except BlockingIOError:  # a non-blocking stream that is full: wait for it
                    import select

                    select.select([], [target], [])
                    continue
                except OSError as exc:
                    if exc.errno in (errno.EINVAL, errno.ENOSYS) and not sent_any:
                        return False
                    raise
                if sent == 0:  # the source ended early (it shrank): nothing more to send
                    break
                sent_any = True
                start += sent
                size -= sent
        except BrokenPipeError:
            raise
        except (OSError, ValueError) as exc:
            raise OutputError(_reason(exc)) from None
    if _defer_always:
        check()
    return True


def _reason(exc: BaseException) -> str:
    if isinstance(exc, ValueError):
        return "standard output is closed"
    if isinstance(exc, OSError):
        if exc.errno == errno.EBADF:
            return "standard output is closed"
        return exc.strerror or str(exc)
    return str(exc)  # pragma: no cover


def binary_stdout() -> BinaryIO:
    """sys.stdout's byte stream; OutputError when there is no usable stdout (started with it closed)."""
    stream = sys.stdout
    if stream is None:
        raise OutputError("standard output is closed")
    try:
        stream.flush()
        os.fstat(stream.fileno())
    except (io.UnsupportedOperation, AttributeError):  # replaced by something without a descriptor (a capture)
        return cast(BinaryIO, getattr(stream, "buffer", None) or stream)
    except (OSError, ValueError) as exc:
        raise OutputError(_reason(exc)) from None
    return stream.buffer


def guard_std_fds() -> None:
    """A descriptor 0-2 closed at start is opened on /dev/null, so no file we open later lands on it (and our
    messages or a crash report never go into a file being inspected)."""
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            null = os.open(os.devnull, os.O_RDWR)
            if null != fd:  # lower descriptors were open: put it where it belongs
                os.dup2(null, fd)
                os.close(null)


def silence_stdout() -> None:
    """After an output error: what is still buffered, and shutdown's flush, go to /dev/null instead of failing
    again (a second message, or exit status 120)."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.close(null)
    except OSError:
        pass


def warn(line: str) -> None:
    """One message on stderr, control characters made visible; dropped when stderr is closed."""
    warn_lines([line])


def warn_lines(lines: list[str]) -> None:
    """Messages on stderr as `warn` writes them, with one write for all (an export can have thousands)."""
    stream = sys.stderr
    if stream is None or not lines:
        return
    try:
        stream.write(sanitize("".join([line + "\n" for line in lines])))  # (what it changes stays on its line)
        stream.flush()
    except (OSError, ValueError):
        pass


def exit_now(status: int) -> NoReturn:
    """End the process with `status` once stdout and stderr are flushed, skipping the interpreter's shutdown (a
    full collection, then the modules torn down one by one: 7-18 ms after a big export, for nothing)."""
    for stream in (sys.stdout, sys.stderr):
        if stream is not None:
            try:
                stream.flush()
            except (OSError, ValueError):  # (a closed or broken output was reported already)
                pass
    os._exit(status)


def _dumps_slow(obj: Any) -> bytes:
    """Compact JSON with lone surrogates escaped (JSON.stringify's way): valid UTF-8 whatever the input held."""
    out = json.dumps(obj, ensure_ascii=False, separators=(",", ":"), default=str)
    if LONE_SURROGATE.search(out):
        out = LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", out)
    return out.encode("utf-8")


def dumps_json(obj: Any) -> bytes:
    """Compact JSON: orjson's bytes, or (lone surrogates, types it does not know) the careful path's."""
    try:
        return orjson.dumps(obj)
    except TypeError:  # orjson refuses lone surrogates (and exotic types): the careful path
        return _dumps_slow(plain_json(obj))


def plain_json(value: Any) -> Any:
    """A row with the engine's dataclasses (left in place for orjson) turned into their JSON dicts."""
    if isinstance(value, dict):
        return {k: plain_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain_json(v) for v in value]
    to_json = getattr(value, "to_json", None)  # Explanation, ChatMessage
    return value if to_json is None or isinstance(value, (str, int, float)) else to_json()
