"""The commands' argument parser: argparse's, whose error messages quote what was typed as it was typed."""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn

from turnlens.formatting.sanitize import sanitize_line


class ArgumentParser(argparse.ArgumentParser):
    """argparse.ArgumentParser whose errors never pass a terminal control sequence through: an unknown option such as
    `--x<ESC>]0;title<BEL>` is quoted with visible stand-ins (␛, ␇), as every other message of the commands is."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {sanitize_line(message)}\n")
