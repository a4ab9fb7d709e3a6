"""One action table per screen: the screen's key bindings, its command palette entries and its help screen are all
made from it, so a key, its footer label, its palette title and its description are written once."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from textual.binding import Binding, BindingType
from textual.dom import DOMNode

# How the help screen writes Textual's key names.
_KEY_GLYPHS = {
    "question_mark": "?",
    "slash": "/",
    "colon": ":",
    "left_square_bracket": "[",
    "right_square_bracket": "]",
    "left_curly_bracket": "{",
    "right_curly_bracket": "}",
    "escape": "esc",
    "plus": "+",
    "minus": "-",
    "equals_sign": "=",
}


def key_glyph(key: str) -> str:
    return _KEY_GLYPHS.get(key, key)


@dataclass(frozen=True)
class Action:
    """One row of a screen's action table.

    `keys` are Textual key names, comma-separated (empty: a help-only row for keys a widget handles itself, such
    as the list's arrows). `description` is a sentence: the help screen and the palette show it. `footer`, when
    given, puts the key in the footer with that short label; `title`, when given, lists the action in the command
    palette."""

    keys: str
    action: str
    description: str
    footer: str = ""
    title: str = ""
    display: str = ""  # how the help shows the keys, when not the keys themselves
    section: str = ""  # the help screen's heading this row goes under
    help: bool = True  # listed in the help screen
    rank: int = 0  # footer order (lowest first): what must stay visible on a narrow terminal ranks first
    opens_text_box: bool = False  # the action focuses a text box at once: see text_box_keys

    @property
    def shown_keys(self) -> str:
        return self.display or "  ".join(key_glyph(k) for k in self.keys.split(","))


def quit_action(section: str = "", rank: int = 0) -> Action:
    """The `q` row every screen's table has: q quits turnlens from any screen (esc goes back), so it is written
    once, here."""
    return Action("q", "app.quit", "Quit turnlens.", footer="Quit", rank=rank, title="Quit", section=section)


def text_box_keys(table: Iterable[Action]) -> dict[str, str]:
    """{key: action} for the rows whose action focuses a text box (a search). The app runs them as the key arrives
    (TurnlensApp.on_event), so that what is typed straight after the key goes into the box: Textual picks the widget
    a key goes to as the key arrives, and a search box focused only once the key was handled left the keys typed
    after it to the list (a sort, the threshold, or q quitting)."""
    return {key: row.action for row in table if row.opens_text_box for key in row.keys.split(",")}


def key_of(table: Iterable[Action], action: str) -> str:
    """The key of `action` in `table` as shown to the user (its first key), for texts that name it (a chip, a hint):
    the key is written once, in the table."""
    for row in table:
        if row.action == action and row.keys:
            return key_glyph(row.keys.split(",")[0])
    raise KeyError(action)


def bound_keys(widget_bindings: Iterable[BindingType], *actions: str) -> str:
    """The keys a widget binds to `actions`, in that order, as the help shows them (for help rows about keys a
    widget handles itself: they are written once, in the widget's BINDINGS)."""
    found = {b.action: b.key for b in widget_bindings if isinstance(b, Binding)}
    return " ".join(key_glyph(found[action]) for action in actions)


def bindings(table: Iterable[Action]) -> list[BindingType]:
    """The screen's BINDINGS: those shown in the footer first, by rank (the footer draws them in this order)."""
    out: list[BindingType] = []
    for row in sorted(table, key=lambda r: (not r.footer, r.rank)):
        if not row.keys or not row.action:
            continue
        first = row.keys.split(",")[0]
        out.append(
            Binding(
                row.keys,
                row.action,
                row.footer or row.title or row.description,
                show=bool(row.footer),
                key_display=key_glyph(first) if first in _KEY_GLYPHS else None,
                tooltip=row.description,
            )
        )
    return out


def palette_entries(table: Iterable[Action]) -> list[tuple[str, str, str]]:
    """(title, description with its key, action) for every row with a palette title, in table order."""
    return [
        (row.title, f"{row.description} ({row.shown_keys})" if row.keys or row.display else row.description, row.action)
        for row in table
        if row.title and row.action
    ]


def table_commands(screen: DOMNode, table: Iterable[Action]) -> list[tuple[str, str, str]]:
    """(title, description, action) of `table`'s palette rows that `screen` offers now (its check_action)."""
    return [entry for entry in palette_entries(table) if screen.check_action(entry[2].split("(")[0], ()) is not False]


def help_sections(table: Iterable[Action]) -> list[tuple[str, list[tuple[str, str]]]]:
    """[(section, [(keys, description), …]), …] in table order."""
    sections: list[tuple[str, list[tuple[str, str]]]] = []
    for row in table:
        if not row.help:
            continue
        if not sections or sections[-1][0] != row.section:
            sections.append((row.section, []))
        sections[-1][1].append((row.shown_keys, row.description))
    return sections
