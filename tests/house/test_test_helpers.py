"""Test modules share helpers through plain modules (tests/tui_helpers.py, tests/git_helpers.py), never `conftest`:
several folders have a conftest.py, and which one `import conftest` finds depends on the order pytest loads them."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).parents[1]


def test_no_test_module_imports_a_conftest():
    offenders = []
    for path in sorted(TESTS.rglob("*.py")):
        if "corpus" in path.parts[len(TESTS.parts) - 1 : len(TESTS.parts) + 1]:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            if any(name.split(".")[-1] == "conftest" for name in names):
                offenders.append(f"{path.relative_to(TESTS)}:{node.lineno}")
    assert offenders == []


def test_an_apps_settling_is_waited_for_as_long_as_a_loaded_machine_needs():
    """run_test's first settle of an inspector took 7-20 s of wall time with 9 processes busy on its core; Textual's
    pilot gives up after 30 s (WaitForScreenTimeout, seen in CI at load ~17): every wait of the pilot is longer."""
    import inspect

    from textual.pilot import Pilot
    from tui_helpers import SETTLE_TIMEOUT

    assert SETTLE_TIMEOUT >= 120
    assert inspect.signature(Pilot._wait_for_screen).parameters["timeout"].default == SETTLE_TIMEOUT
