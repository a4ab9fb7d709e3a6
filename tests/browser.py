"""Headless Chromium for the browser checks (Debian's `chromium` package): a page's DOM and a screenshot.
Tests that need it skip, saying why, where it is not installed.

One browser serves every check of a test process, each page in a tab of its own: it is started at the first check,
driven over its DevTools pipe, and closed when the process exits (a cold start is most of what a check costs; the
checks used to start one browser per DOM and per screenshot)."""

from __future__ import annotations

import atexit
import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time

import pytest

BROWSER_TIMEOUT = 90  # seconds: a cold start on a loaded 2-core machine takes a few


def chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        found = shutil.which(name)
        if found:
            return found
    pytest.skip("no headless Chromium installed (apt-get install chromium): the browser check cannot run")


def _flags(profile: str) -> list[str]:
    # no sandbox: the tests may run as root (CI does); a fresh profile: nothing from a user's browser
    return [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-dev-shm-usage",
        f"--user-data-dir={profile}",
    ]


# The DOM as `chromium --dump-dom` prints it: the doctype, then the document.
_DOM = (
    "(document.doctype ? new XMLSerializer().serializeToString(document.doctype) + '\\n' : '')"
    " + document.documentElement.outerHTML"
)


def _above_4(fd: int) -> int:
    moved = fcntl.fcntl(fd, fcntl.F_DUPFD, 10)
    os.close(fd)
    return moved


class Browser:
    """Chromium driven over `--remote-debugging-pipe` (JSON messages ending in a NUL byte: it reads commands on its
    descriptor 3 and answers on 4). Every wait is bounded by BROWSER_TIMEOUT."""

    def __init__(self) -> None:
        self.profile = tempfile.TemporaryDirectory(prefix="turnlens-chromium-")
        command_read, self.commands = os.pipe()
        self.answers, answer_write = os.pipe()
        # the child's ends above 4, so that placing them at 3 and 4 overwrites nothing of its own
        command_read, answer_write = (_above_4(fd) for fd in (command_read, answer_write))
        self.proc = subprocess.Popen(
            [
                "bash",  # (dash takes descriptors 0-9 only in a redirection)
                "-c",
                f'exec "$0" "$@" 3<&{command_read} 4>&{answer_write} {command_read}<&- {answer_write}>&-',
                chromium(),
                *_flags(self.profile.name),
                "--remote-debugging-pipe",
            ],
            pass_fds=(command_read, answer_write),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(command_read)
        os.close(answer_write)
        self.buffer = b""
        self.events: list[dict] = []
        self.last_id = 0

    def send(self, method: str, session: str | None = None, **params) -> dict:
        """A command's result (an error answer fails the test, naming the command)."""
        self.last_id += 1
        message = {"id": self.last_id, "method": method, "params": params}
        if session is not None:
            message["sessionId"] = session
        os.write(self.commands, json.dumps(message).encode() + b"\0")
        answer = self._next(lambda m: m.get("id") == self.last_id, method)
        assert "error" not in answer, (method, answer["error"])
        return answer.get("result", {})

    def wait_for(self, method: str, session: str) -> dict:
        """The next event `method` of the tab `session` (kept if it came while a command was answered)."""
        return self._next(lambda m: m.get("method") == method and m.get("sessionId") == session, method)

    def _next(self, wanted, what: str) -> dict:
        for i, event in enumerate(self.events):
            if wanted(event):
                return self.events.pop(i)
        deadline = time.monotonic() + BROWSER_TIMEOUT
        while True:
            while b"\0" in self.buffer:
                raw, self.buffer = self.buffer.split(b"\0", 1)
                message = json.loads(raw)
                if wanted(message):
                    return message
                if "method" in message:
                    self.events.append(message)
            remaining = deadline - time.monotonic()
            assert remaining > 0, f"Chromium did not answer {what} in {BROWSER_TIMEOUT} s"
            ready, _, _ = select.select([self.answers], [], [], remaining)
            chunk = os.read(self.answers, 1 << 20) if ready else b""
            assert not ready or chunk, f"Chromium closed its DevTools pipe while asked {what}"
            self.buffer += chunk

    def open(self, url: str, *, size: tuple[int, int] | None = None, dark: bool = False) -> tuple[str, str]:
        """A new tab showing `url`, loaded: (its target, its session)."""
        target = self.send("Target.createTarget", url="about:blank")["targetId"]
        session = self.send("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        self.send("Page.enable", session)
        if size is not None:
            width, height = size
            metrics = {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}
            self.send("Emulation.setDeviceMetricsOverride", session, **metrics)
            self.send("Emulation.setScrollbarsHidden", session, hidden=True)
        if dark:
            self.send(
                "Emulation.setEmulatedMedia", session, features=[{"name": "prefers-color-scheme", "value": "dark"}]
            )
        self.send("Page.navigate", session, url=url)
        self.wait_for("Page.loadEventFired", session)
        return target, session

    def close_tab(self, target: str) -> None:
        self.send("Target.closeTarget", targetId=target)

    def close(self) -> None:
        try:
            os.write(self.commands, json.dumps({"id": 0, "method": "Browser.close", "params": {}}).encode() + b"\0")
        except OSError:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)
        for fd in (self.commands, self.answers):
            os.close(fd)
        self.profile.cleanup()


_browser: Browser | None = None


def _shared() -> Browser:
    global _browser
    if _browser is None or _browser.proc.poll() is not None:
        _browser = Browser()
        atexit.register(_browser.close)
    return _browser


def dump_dom(url: str) -> str:
    """The page's DOM after loading."""
    browser = _shared()
    target, session = browser.open(url)
    try:
        return browser.send("Runtime.evaluate", session, expression=_DOM, returnByValue=True)["result"]["value"]
    finally:
        browser.close_tab(target)


def screenshot(url: str, path: str, size: str = "1200,900", *, dark: bool = False) -> bool:
    """A PNG of the page at `path`, the page in a window of `size` with no scrollbars (`dark`: the page told the
    reader prefers a dark colour scheme); False when Chromium made none."""
    browser = _shared()
    width, height = (int(n) for n in size.split(","))
    target, session = browser.open(url, size=(width, height), dark=dark)
    try:
        data = browser.send("Page.captureScreenshot", session, format="png")["data"]
    finally:
        browser.close_tab(target)
    with open(path, "wb") as out:
        out.write(base64.b64decode(data))
    return os.path.exists(path) and os.path.getsize(path) > 0
