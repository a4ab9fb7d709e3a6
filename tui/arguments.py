"""The commands' argument parser: argparse's, whose error messages quote what was typed as it was typed."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from typing import NoReturn

from turnlens.formatting.sanitize import sanitize_line


class ArgumentParser(argparse.ArgumentParser):
    """argparse.ArgumentParser whose errors never pass a terminal control sequence through: an unknown option such as
    `--x<ESC>]0;title<BEL>` is quoted with visible stand-ins (␛, ␇), as every other message of the commands is."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {sanitize_line(message)}\n")


def add_dialect_option(parser: argparse.ArgumentParser, help: str) -> None:
    """--dialect (default `auto`), its choices looked up only when help or an error lists them. argparse formats an
    option's metavar as the option is added, which for choices lists them: that imported the registry (the loaders,
    the formatting engine: ~40 ms) on every start, the results view's and `--help`'s too. Added with a placeholder
    metavar, then none: help and errors list the choices as argparse always did."""
    option = parser.add_argument("--dialect", choices=DialectChoices(), default="auto", metavar="DIALECT", help=help)
    option.metavar = None


class DialectChoices:
    """--dialect's choices: `auto` and every dialect's name (formatting/dialects/registry.py), looked up only when
    a name other than `auto` is given or the choices are listed (help, an error): the registry imports the loaders
    and the formatting engine, which the results view and a plain start do without."""

    def __iter__(self) -> Iterator[str]:
        from turnlens.formatting.dialects.registry import names

        return iter(("auto", *names()))

    def __contains__(self, value: object) -> bool:
        return value == "auto" or value in list(self)
