"""The `turnlens` command. `turnlens export …` never imports textual (it is benchmarked on start-up time)."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> None:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "export":
        from formatting.export import main as export_main

        raise SystemExit(export_main(argv[1:]))
    from tui.app import run  # lazy: textual loads only for the app

    raise SystemExit(run(argv))
