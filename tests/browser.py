"""Headless Chromium for the browser checks (Debian's `chromium` package): a page's DOM and a screenshot.
Tests that need it skip, saying why, where it is not installed."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile

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


def dump_dom(url: str, wait_ms: int = 0) -> str:
    """The page's DOM after loading (and `wait_ms` more of virtual time, for a page that builds itself)."""
    with tempfile.TemporaryDirectory(prefix="turnlens-chromium-") as profile:
        extra = [f"--virtual-time-budget={wait_ms}"] if wait_ms else []
        done = subprocess.run(
            [chromium(), *_flags(profile), *extra, "--dump-dom", url],
            capture_output=True,
            text=True,
            timeout=BROWSER_TIMEOUT,
        )
    return done.stdout


def screenshot(url: str, path: str, size: str = "1200,900", *, dark: bool = False) -> bool:
    """A PNG of the page at `path`; False when Chromium made none. (Headless Chromium takes screenshots through
    its own scripting: it cannot turn a page's JavaScript off for one. A page without any needs no switch.)"""
    with tempfile.TemporaryDirectory(prefix="turnlens-chromium-") as profile:
        extra = [f"--window-size={size}", f"--screenshot={path}", "--hide-scrollbars"]
        if dark:
            extra += ["--force-dark-mode", "--blink-settings=preferredColorScheme=0"]
        subprocess.run(
            [chromium(), *_flags(profile), *extra, url], capture_output=True, timeout=BROWSER_TIMEOUT, check=False
        )
    return os.path.exists(path) and os.path.getsize(path) > 0
