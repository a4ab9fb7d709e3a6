"""`turnlens serve`: the app in a browser through textual-serve, loaded in headless Chromium on this machine.

The page draws the terminal on a canvas, so the screen's text is not in the DOM: the check reads what the app sent
to the page over its websocket (Chrome's DevTools protocol reports every frame the page receives) until the first
screen's text is there, then takes a screenshot. Everything listens on 127.0.0.1 and stops within its deadline.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from browser import chromium  # tests/browser.py

SAMPLES = Path(__file__).resolve().parents[2] / "sample_evals"
DEADLINE = 90.0  # seconds for the whole check


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port: int, until: float) -> None:
    while time.monotonic() < until:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.2)
    raise AssertionError(f"nothing listened on 127.0.0.1:{port} in time")


def stop(proc: subprocess.Popen) -> None:
    """The process we started and its children (its own session), then wait for it."""
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)


async def first_screen(debug_port: int, url: str, needle: bytes, shot: Path, until: float) -> bytes:
    """Open `url` in the browser on `debug_port`, wait until a websocket frame the page received holds
    `needle`, screenshot the page into `shot`; returns the frames' bytes seen."""
    import aiohttp

    async with aiohttp.ClientSession() as http:
        target = None
        while target is None and time.monotonic() < until:
            try:
                async with http.get(f"http://127.0.0.1:{debug_port}/json/list") as response:
                    pages = [t for t in await response.json() if t.get("type") == "page"]
                    target = pages[0]["webSocketDebuggerUrl"] if pages else None
            except aiohttp.ClientError:
                await asyncio.sleep(0.2)
        assert target is not None, "Chromium's debugging endpoint never answered"
        async with http.ws_connect(target, max_msg_size=0) as ws:
            ids = iter(range(1, 10_000))

            async def call(method: str, **params) -> dict:
                number = next(ids)
                await ws.send_json({"id": number, "method": method, "params": params})
                while True:
                    message = await asyncio.wait_for(ws.receive_json(), max(0.1, until - time.monotonic()))
                    if message.get("id") == number:
                        return message.get("result", {})
                    collect(message)

            seen: list[bytes] = []

            def collect(message: dict) -> None:
                if message.get("method") == "Network.webSocketFrameReceived":
                    response = message["params"]["response"]
                    data = response.get("payloadData", "")
                    seen.append(base64.b64decode(data) if response.get("opcode") == 2 else data.encode())

            await call("Network.enable")
            await call("Page.enable")
            await call("Page.navigate", url=url)
            while needle not in b"".join(seen):
                remaining = until - time.monotonic()
                assert remaining > 0, f"the app's first screen never reached the page ({len(seen)} frames)"
                collect(await asyncio.wait_for(ws.receive_json(), remaining))
            await asyncio.sleep(1.0)  # let the canvas draw what arrived
            picture = await call("Page.captureScreenshot", format="png")
            shot.write_bytes(base64.b64decode(picture["data"]))
            return b"".join(seen)


def test_serve_shows_the_first_screen_in_a_browser(tmp_path: Path):
    browser = chromium()  # skips, saying why, without one
    until = time.monotonic() + DEADLINE
    port, debug_port = free_port(), free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "turnlens", "serve", "--port", str(port), "--no-watch", "."],
        cwd=SAMPLES,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    with tempfile.TemporaryDirectory(prefix="turnlens-chromium-") as profile:
        page = subprocess.Popen(
            [
                browser,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                f"--user-data-dir={profile}",
                f"--remote-debugging-port={debug_port}",
                "--remote-allow-origins=*",
                "--window-size=1400,900",
                "about:blank",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        try:
            wait_for_port(port, until)
            shot = tmp_path / "serve.png"
            frames = asyncio.run(
                first_screen(debug_port, f"http://127.0.0.1:{port}/", b"refund-unused-tent", shot, until)
            )
            assert b"\x1b[" in frames  # a terminal screen, drawn by the page
            assert shot.stat().st_size > 10_000
            keep = os.environ.get("TURNLENS_SERVE_SCREENSHOT")
            if keep:  # to look at it by hand
                Path(keep).write_bytes(shot.read_bytes())
        finally:
            stop(page)
            stop(server)


def test_serve_refuses_a_missing_path_before_serving():
    done = subprocess.run(
        [sys.executable, "-m", "turnlens", "serve", "--port", str(free_port()), "no-such-folder"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "no such file or folder: no-such-folder" in done.stderr


def test_serve_checks_the_app_arguments_first():
    done = subprocess.run(
        [sys.executable, "-m", "turnlens", "serve", "--mode", "nope"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2 and "invalid choice: 'nope'" in done.stderr
    assert json.dumps  # (json is used by the DevTools exchange)
