"""Command palette providers: jump to a case by id."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from functools import partial
from typing import Any, Protocol, runtime_checkable

from rich.text import Text
from textual.app import App
from textual.command import CommandInput, CommandPalette, DiscoveryHit, Hit, Hits, Provider
from textual.content import Content
from textual.screen import Screen
from textual.style import Style as VisualStyle

MAX_TYPED = 500  # characters the palette's box takes (each key searches every entry: typed input stays bounded)
# A palette of this many entries (every case, every result) searches once the keys pause, not at each key: keys typed
# or pasted one by one faster than that would queue up behind the searches (issue 22.19).
DEBOUNCE_ENTRIES = 5_000
PALETTE_DEBOUNCE = 0.12  # seconds without a key before a long palette searches


class BoundedPalette(CommandPalette):
    """The command palette with a bounded box (Textual's takes any number of characters)."""

    def on_mount(self) -> None:
        self.query_one(CommandInput).max_length = MAX_TYPED


def match(query: str, text: str) -> tuple[float, tuple[int, ...]]:
    """(score, offsets of the letters matched) of `query` in `text`, ignoring case: the query whole scores most
    (earlier: more), else its letters in order (closer together: more), else (0, ()). Linear in the text: Textual's
    fuzzy matcher lists every way the letters could be placed, which a few letters typed against a long repetitive id
    (`aaaa…b`) make millions of (the app froze)."""
    if not query:
        return 1.0, ()
    query, text = query.lower(), text.lower()
    at = text.find(query)
    if at >= 0:
        return 2.0 - at / (len(text) + 1), tuple(range(at, at + len(query)))
    offsets: list[int] = []
    position = 0
    for letter in query:
        position = text.find(letter, position)
        if position < 0:
            return 0.0, ()
        offsets.append(position)
        position += 1
    return len(query) / (offsets[-1] - offsets[0] + 1), tuple(offsets)


def _highlighted(text: str, offsets: tuple[int, ...], style: VisualStyle) -> Content:
    content = Content(text)  # (plain: an id or a title is never markup)
    for offset in offsets:
        if offset < len(text) and not text[offset].isspace():
            content = content.stylize(style, offset, offset + 1)
    return content


class _Debounced(Provider):
    """A provider whose search waits for the keys to pause once it has seen a long list of entries."""

    _long = False

    async def _pause_if_long(self, count: int | None = None) -> None:
        if count is not None:
            self._long = count >= DEBOUNCE_ENTRIES
        elif self._long:
            await asyncio.sleep(PALETTE_DEBOUNCE)  # the next key cancels this search (Textual's palette does)


def _case_prompt(label: str, where: str, offsets: tuple[int, ...] = ()) -> Text:
    # Built as Text: the palette would parse a plain string (a case id such as "[bold]") as markup.
    text = Text(label, end="")
    for offset in offsets:
        if offset < len(label):
            text.stylize("bold underline", offset, offset + 1)
    text.append("  " + where, style="dim")
    return text


@runtime_checkable
class CaseChooser(Protocol):
    """A screen whose cases the palette lists (the inspector): what the providers need of it, so that they do not
    import it."""

    def case_choices(self) -> list[tuple[str, str, str]]: ...

    def select_case(self, key: str) -> None: ...

    def palette_commands(self) -> list[tuple[str, str, str]]: ...


class CaseCommands(_Debounced):
    """Every case of the inspector screen, by id."""

    def _choices(self) -> list[tuple[str, str, Callable[[], None]]]:
        """(label, summary, callback showing the case) for every case listed."""
        screen = self.screen
        if not isinstance(screen, CaseChooser):
            return []
        return [(label, summary, partial(screen.select_case, key)) for key, label, summary in screen.case_choices()]

    async def discover(self) -> Hits:
        for label, summary, show in self._choices():
            yield DiscoveryHit(_case_prompt(label, summary), show, text=label)

    async def search(self, query: str) -> Hits:
        await self._pause_if_long()
        choices = self._choices()
        await self._pause_if_long(len(choices))
        for label, summary, show in choices:
            score, offsets = match(query, label)
            if score > 0:
                yield Hit(score, _case_prompt(label, summary, offsets), show, text=label)


# Textual's own commands the inspector's palette keeps (its "Keys" and "Maximize"/"Minimize" duplicate `?` and `z`).
_BUILT_INS = {"Theme": "Choose the colour theme.", "Screenshot": ""}  # "": the command's own help


class TableCommands(_Debounced):
    """A screen's actions in the command palette (the results, grading and profile-diff screens): the screen's
    `palette_commands()` gives (title, help, action) rows (tui/actions.table_commands makes them from its action
    table), and `palette_extras()`, when it has one, further (title, help, callback) rows."""

    def _commands(self) -> list[tuple[str, str, Callable[[], Any]]]:
        """The screen's actions, Textual's theme and screenshot commands, then the screen's extras (every result by
        id): the inspector's palette order, on every screen."""
        screen = self.screen
        getter = getattr(screen, "palette_commands", None)
        commands = (
            [(title, help_text, _run_action(screen, action)) for title, help_text, action in getter()] if getter else []
        )
        commands += [(title, help_text, callback) for title, help_text, callback, _text in _built_ins(self.app, screen)]
        extras = getattr(screen, "palette_extras", None)
        return commands + (list(extras()) if extras else [])

    async def discover(self) -> Hits:
        for title, help_text, callback in self._commands():
            yield DiscoveryHit(title, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        await self._pause_if_long()
        commands = self._commands()
        await self._pause_if_long(len(commands))
        style = self.matcher(query).match_style
        for title, help_text, callback in commands:
            score, offsets = match(query, title)
            if score > 0:
                yield Hit(score, _highlighted(title, offsets, style), callback, help=help_text)


def _built_ins(app: App[Any], screen: Screen[Any]) -> list[tuple[str, str, Callable[[], Any], str]]:
    """(title, help, callback, text to match) of the Textual commands every palette keeps (_BUILT_INS), from the
    app's own list when it has one (its Screenshot saves where it can), else Textual's."""
    system = getattr(app, "system_commands", None) or partial(App.get_system_commands, app)
    return [
        (command.title, _BUILT_INS[command.title] or command.help, command.callback, command.title)
        for command in system(screen)
        if command.title in _BUILT_INS
    ]


def _run_action(screen: Screen[Any], action: str) -> Callable[[], Any]:
    """A palette callback that runs `action` on `screen`."""

    async def run() -> None:
        await screen.run_action(action)

    return run


class InspectorCommands(_Debounced):
    """The inspector's palette: its actions (from its action table) in table order, Textual's theme and screenshot
    commands, then every case by id. One provider, so that the order is always the same."""

    def _entries(self) -> list[tuple[Text | str, str | None, object, str]]:
        """(prompt, help, callback, text to match) in palette order."""
        screen = self.screen
        if not isinstance(screen, CaseChooser):
            return []
        entries: list[tuple[Text | str, str | None, object, str]] = [
            (title, help_text, partial(screen.run_action, action), title)
            for title, help_text, action in screen.palette_commands()
        ]
        entries.extend(_built_ins(self.app, screen))
        for key, label, summary in screen.case_choices():
            # One row per case (a help line would make it two): the summary follows the id, dimmed.
            entries.append((_case_prompt(label, summary), None, partial(screen.select_case, key), label))
        return entries

    async def discover(self) -> Hits:
        for prompt, help_text, callback, text in self._entries():
            yield DiscoveryHit(prompt, callback, text=text, help=help_text)  # type: ignore[arg-type]

    async def search(self, query: str) -> Hits:
        await self._pause_if_long()
        entries = self._entries()
        await self._pause_if_long(len(entries))
        style = self.matcher(query).match_style
        for prompt, help_text, callback, text in entries:
            score, offsets = match(query, text)
            if score > 0:
                if isinstance(prompt, Text):
                    shown: Text | Content = _case_prompt(text, prompt.plain[len(text) + 2 :], offsets)
                else:
                    shown = _highlighted(text, offsets, style)
                yield Hit(score, shown, callback, text=text, help=help_text)  # type: ignore[arg-type]
