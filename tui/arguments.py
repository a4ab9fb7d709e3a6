"""The commands' argument parser: argparse's, whose error messages quote what was typed as it was typed."""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Iterator, Sequence
from typing import Any, NoReturn

from turnlens.formatting.sanitize import sanitize_line


class ArgumentParser(argparse.ArgumentParser):
    """argparse.ArgumentParser whose errors never pass a terminal control sequence through: an unknown option such as
    `--x<ESC>]0;title<BEL>` is quoted with visible stand-ins (␛, ␇), as every other message of the commands is.

    An option added with add_delta_option takes a negative number as its value however it is written (`--delta
    -1e-3`, `--delta -Infinity`), as `agentv compare -t` does: argparse alone reads those as unknown options."""

    signed_value_options: tuple[str, ...] = ()

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {sanitize_line(message)}\n")

    def parse_known_args(  # type: ignore[override]  # (one body for argparse's overloads)
        self, args: Sequence[str] | None = None, namespace: Any = None
    ) -> Any:
        words = list(sys.argv[1:] if args is None else args)
        if self.signed_value_options:
            words = _glue_signed_values(words, self.signed_value_options)
        return super().parse_known_args(words, namespace)


def _glue_signed_values(words: list[str], options: tuple[str, ...]) -> list[str]:
    """`OPTION -NUMBER` as `OPTION=-NUMBER` for the given options (up to a `--`)."""
    out: list[str] = []
    index = 0
    while index < len(words):
        word = words[index]
        if word == "--":
            return out + words[index:]
        following = words[index + 1] if index + 1 < len(words) else None
        if word in options and following is not None and following.startswith("-") and _js_decimal(following):
            out.append(f"{word}={following}")
            index += 2
            continue
        out.append(word)
        index += 1
    return out


# What JavaScript's parseFloat skips before a number (StrWhiteSpaceChar), and the decimal number it reads.
_JS_SPACE = "\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
_JS_DECIMAL = r"[+-]?(?:Infinity|(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)"


def _js_decimal(text: str) -> re.Match[str] | None:
    """The decimal number at the start of `text` (after JavaScript's white space), as parseFloat reads it."""
    return re.match(f"[{_JS_SPACE}]*({_JS_DECIMAL})", text)


def _agentv_number(text: str, command: str) -> float:
    """`text` as a whole number in JavaScript's decimal syntax; refused as `command` refuses it (text that does not
    start with a number), and refused too, naming the number `command` would read, when more follows the number."""
    found = _js_decimal(text)
    if found is None:
        raise argparse.ArgumentTypeError(f"not a number: {text!r} ({command} refuses it too)")
    rest = text[found.end() :]
    if re.fullmatch(f"[{_JS_SPACE}]*", rest) is None:
        raise argparse.ArgumentTypeError(
            f"not a number: {text!r} ({command} would read only its start, {found.group(1)})"
        )
    return float(found.group(1))


def agentv_delta(text: str) -> float:
    """--delta's value: any number, as `agentv compare -t` takes it (negative, above 1, Infinity; recorded in
    tests/fixtures/results/real/compare/threshold.json). AgentV refuses text that does not start with a number
    (`abc`, `NaN`, `inf`, nothing), and so does this; text with more after the number (`0.2abc`, `0x10`, `0,2`),
    which AgentV reads as the number at its start, is refused too, saying so: a typo is not silently another delta."""
    return _agentv_number(text, "agentv compare -t")


def agentv_threshold(text: str) -> float:
    """--threshold's value: a number in [0, 1], as `agentv eval --threshold` takes it (recorded in
    tests/fixtures/results/real/eval-threshold.json), written any way JavaScript reads one (`.5`, `5e-1`, `+0.5`).
    AgentV refuses a number outside [0, 1] and text that does not start with a number, and so does this; text with
    more after the number (`0.5x`, `0x1`, `0,5`), which AgentV reads as the number at its start, is refused too,
    saying so, as --delta's is; `Infinity`, which AgentV judges at its default 0.8, is refused as outside [0, 1]."""
    value = _agentv_number(text, "agentv eval --threshold")
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(
            f"{text.strip()} is not between 0 and 1 (agentv eval --threshold takes 0 to 1)"
        )
    return value


def add_delta_option(parser: ArgumentParser, help: str) -> None:
    """--delta D: a score change of at least D is a win or a loss, read as `agentv compare -t` reads its value (see
    agentv_delta); the same for the app and for `turnlens export --format json`."""
    parser.add_argument("--delta", type=agentv_delta, metavar="D", help=help)
    parser.signed_value_options = (*parser.signed_value_options, "--delta")


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
