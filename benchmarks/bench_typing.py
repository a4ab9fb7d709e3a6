"""Typed input does not back the app up (issue 22.19): 5,000 keys typed one by one into the case list's filter box
(`/`) and into the jump palette (`:`) of the inspector on a 50,000-test JSONL dataset; and 500 keys, as many as the
boxes take (each one refiltered the list before the debounce).

    .venv/bin/python benchmarks/bench_typing.py [--tests 50000] [--keys 500,5000] [--gap-ms 1]

The keys are sent as the terminal driver sends them (a key event each, from a thread, --gap-ms apart: faster than
any typist, as a paste typed by a tool is), in a headless app (120x40). The figure is the backlog: the time from the
last key sent to the settled list (the box holding what it takes, the list or the palette matched against it);
reference: the same keys into a bare Textual app's input box, measured in the same run. The boxes take at most
MAX_TYPED characters.

The machine is shared: the figures move with its load (printed); compare the ratios.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
import time
from pathlib import Path


def make_dataset(root: Path, tests: int) -> Path:
    (root / ".git").mkdir(parents=True, exist_ok=True)
    path = root / "dataset.jsonl"
    with path.open("w") as out:
        for n in range(tests):
            out.write(f'{{"id":"case-{n}","input":"What is {n}?","criteria":"ok"}}\n')
    return path


def keys(count: int) -> list[str]:
    return [chr(ord("a") + n % 26) for n in range(count)]


async def send(app, typed: list[str], gap: float) -> float:
    """Each key as a key event, `gap` apart, from a thread as the terminal driver's reader posts them (at the pace
    of the keys, whatever the app is doing); the time the last one was sent."""
    import threading

    from textual import events

    loop = asyncio.get_running_loop()
    sent: list[float] = []

    def typist() -> None:
        for char in typed:
            loop.call_soon_threadsafe(app.post_message, events.Key(char, char))
            time.sleep(gap)
        sent.append(time.perf_counter())

    thread = threading.Thread(target=typist, daemon=True)
    thread.start()
    while thread.is_alive():
        await asyncio.sleep(0.01)
    return sent[0]


async def settled(pilot, done, timeout: float = 600.0) -> float:
    deadline = time.perf_counter() + timeout
    while not done():
        if time.perf_counter() > deadline:
            raise TimeoutError("the app did not settle")
        await asyncio.sleep(0.005)
    await pilot.pause()
    return time.perf_counter()


async def bare(typed: list[str], gap: float) -> float:
    from textual.app import App
    from textual.widgets import Input

    class Bare(App):
        def compose(self):
            yield Input(id="box")

    app = Bare()
    async with app.run_test(size=(120, 40)) as pilot:
        box = app.query_one("#box", Input)
        box.focus()
        await pilot.pause()
        last = await send(app, typed, gap)
        end = await settled(pilot, lambda: len(box.value) == len(typed))
    return end - last


async def inspector(path: Path, typed: list[str], gap: float, where: str) -> tuple[float, int]:
    """(backlog seconds, characters the box took) for the filter box ("/") or the jump palette (":")."""
    from textual.command import CommandInput, CommandPalette
    from textual.widgets import Input

    from turnlens.tui.app import make_app
    from turnlens.tui.widgets import case_list
    from turnlens.tui.widgets.case_list import CaseList

    app = make_app([path], repo_root=str(path.parent), watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.screen
        deadline = time.perf_counter() + 600
        while not (getattr(screen, "loaded", True) and not [w for w in app.workers if not w.is_finished]):
            if time.perf_counter() > deadline:
                raise TimeoutError("not loaded")
            await asyncio.sleep(0.05)
        await pilot.pause()
        limit = min(len(typed), getattr(case_list, "MAX_TYPED", len(typed)))
        if where == "/":
            await pilot.press("slash")
            box = screen.query_one("#case-filter", Input)
            listing = screen.query_one(CaseList)
            rebuilt: list[str] = []
            rebuild = listing._rebuild

            def recording() -> None:
                rebuild()
                rebuilt.append(box.value.strip())

            listing._rebuild = recording  # type: ignore[method-assign]

            def done() -> bool:
                return len(box.value) == limit and bool(rebuilt) and rebuilt[-1] == box.value.strip()

        else:
            await pilot.press("colon")
            await pilot.pause(0.3)
            palette = app.screen
            assert isinstance(palette, CommandPalette)
            box = palette.query_one(CommandInput)

            def done() -> bool:
                busy = [w for w in app.workers if not w.is_finished and w.node is palette]
                return len(box.value) >= min(len(typed), box.max_length or len(typed)) and not busy

        last = await send(app, typed, gap)
        end = await settled(pilot, done)
        took = len(box.value)
    return end - last, took


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tests", type=int, default=50_000)
    parser.add_argument("--keys", default="500,5000", help="key counts, comma-separated")
    parser.add_argument("--gap-ms", type=float, default=1.0)
    args = parser.parse_args()
    gap = args.gap_ms / 1000
    with tempfile.TemporaryDirectory() as tmp:
        path = make_dataset(Path(tmp), args.tests)
        for count in (int(n) for n in args.keys.split(",")):
            typed = keys(count)
            reference = asyncio.run(bare(typed, gap))
            print(f"{count:,} keys: a bare Textual input box settled {reference * 1000:5.0f} ms after the last key")
            for where, name in (("/", "filter box (/)"), (":", "jump palette (:)")):
                backlog, took = asyncio.run(inspector(path, typed, gap, where))
                print(
                    f"{count:,} keys: {name:16s} on {args.tests:,} tests settled {backlog * 1000:6.0f} ms after the "
                    f"last key ({backlog / max(reference, 1e-3):5.1f}x the bare box; the box took {took:,} "
                    f"characters)  [load {os.getloadavg()[0]:.1f}]",
                    flush=True,
                )


if __name__ == "__main__":
    main()
