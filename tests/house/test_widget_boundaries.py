"""The shape of the inspector: data goes down to widgets through their constructors and methods, events come up as
messages. Widgets never reach for their parent, their screen or the app's state; the inspector screen sets no
attribute of another object (a widget's, the view model's): it calls their methods."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

TUI = Path(__file__).resolve().parents[2] / "tui"
WIDGETS = sorted((TUI / "widgets").glob("*.py"))

# What a widget may ask of its screen: the style it is drawn with (as Textual's own widgets do).
SCREEN_LOOKUPS = {"get_component_rich_style"}


def chains(tree: ast.AST):
    """Every whole `self.a.b` attribute chain, as the list of names after `self`, with its node."""
    inner_nodes = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and id(node) not in inner_nodes:
            names = []
            inner: ast.expr = node
            while isinstance(inner, ast.Attribute):
                names.append(inner.attr)
                inner = inner.value
            if isinstance(inner, ast.Name) and inner.id == "self":
                yield list(reversed(names)), node


@pytest.mark.parametrize("path", WIDGETS, ids=lambda p: p.name)
def test_widgets_do_not_reach_their_parent_screen_or_app(path: Path):
    found = []
    for names, node in chains(ast.parse(path.read_text())):
        if names[0] == "parent":
            found.append(f"{path.name}:{node.lineno}: self.parent")
        elif names[0] == "screen" and (len(names) < 2 or names[1] not in SCREEN_LOOKUPS):
            found.append(f"{path.name}:{node.lineno}: self.{'.'.join(names)}")
        elif names[0] == "app":
            found.append(f"{path.name}:{node.lineno}: self.{'.'.join(names)}")
    assert not found


def test_the_inspector_screen_sets_only_its_own_attributes():
    tree = ast.parse((TUI / "inspector" / "screen.py").read_text())
    screen = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "InspectorScreen")
    found = []
    for node in ast.walk(screen):
        targets = (
            node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AugAssign) else []
        )
        for target in targets:
            if isinstance(target, ast.Attribute) and not (
                isinstance(target.value, ast.Name) and target.value.id == "self"
            ):
                found.append(f"inspector/screen.py:{node.lineno}: {ast.unparse(target)}")
    assert not found


# What the inspector screen asks of the app: its services, not its state.
APP_SERVICES = {"theme_changed_signal", "batch_update", "push_screen", "suspend", "copy_to_clipboard"}


def test_the_inspector_screen_uses_the_app_only_for_its_services():
    tree = ast.parse((TUI / "inspector" / "screen.py").read_text())
    found = [
        f"inspector/screen.py:{node.lineno}: self.{'.'.join(names)}"
        for names, node in chains(tree)
        if names[0] == "app" and (len(names) < 2 or names[1] not in APP_SERVICES)
    ]
    assert not found
