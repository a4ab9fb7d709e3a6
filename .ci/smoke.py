"""Smoke test of an installed turnlens (run by .ci/run with the wheel's venv, from a folder outside the checkout).

Starts the inspector on the bundled samples and the results view on the bundled results, headless, and checks that
each shows what it should. Exits non-zero on any failure.
"""

from __future__ import annotations

import asyncio
import html
import re
import sys
from pathlib import Path


def _text(svg: str) -> str:
    """The text of a screenshot (SVG), without its markup."""
    return html.unescape(re.sub(r"<[^>]+>", "", svg)).replace("\xa0", " ")


async def _inspector() -> None:
    from turnlens.tui.app import make_app

    app = make_app([], watch=False)
    async with app.run_test(size=(160, 48)) as pilot:
        for _ in range(100):
            await pilot.pause(0.05)
            if not any(not w.is_finished for w in app.workers if w.group != "watch"):
                break
        name = type(app.screen).__name__
        assert name == "InspectorScreen", f"the inspector did not open: {name}"
        screen = _text(app.export_screenshot())
        assert "not found" not in screen, "the samples were not found"
        samples = ("repo-tasks.eval.yaml", "code-review.yaml", "agent-tools.yaml")  # AgentV 4 files are listed first
        assert any(name in screen for name in samples), "no sample file on screen"
    print(f"inspector on the bundled samples: {name}, sample files on screen")


async def _results(folder: Path) -> None:
    from turnlens.tui.app import make_app

    app = make_app([str(folder)], watch=False)
    async with app.run_test(size=(160, 48)) as pilot:
        for _ in range(100):
            await pilot.pause(0.05)
            if not any(not w.is_finished for w in app.workers if w.group != "watch"):
                break
        name = type(app.screen).__name__
        assert name == "ResultsScreen", f"the results view did not open: {name}"
        screen = _text(app.export_screenshot())
        assert re.search(r"\d+ results?\b.*\bmean \d", screen), "no results header on screen"
    print(f"results view on {folder.name}/: {name}")


def main() -> int:
    import turnlens
    from turnlens.tui.session import default_sample_dir

    samples = default_sample_dir()
    assert "site-packages" in str(Path(turnlens.__file__).resolve()), f"not the installed package: {turnlens.__file__}"
    assert (samples / ".agentv" / "config.yaml").is_file(), f"samples not installed (dot-files included): {samples}"
    asyncio.run(_inspector())
    asyncio.run(_results(samples / ".agentv" / "results"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
