"""The installed distribution: every subpackage and data file in the wheel, under the one name `turnlens`.

.ci/run builds the wheel and runs the installed command; these checks catch the usual mistakes without a build.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
SOURCE_FOLDERS = ("formatting", "tui")


def _pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_every_subpackage_is_listed_for_the_wheel():
    listed = set(_pyproject()["tool"]["setuptools"]["packages"])
    found = {"turnlens"}
    for top in SOURCE_FOLDERS:
        for init in (ROOT / top).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT).parts
            found.add(".".join(("turnlens", *rel)))
    assert found == listed, f"[tool.setuptools] packages: missing {found - listed}, stale {listed - found}"


def test_every_python_folder_is_a_package():
    """A folder of modules without __init__.py would be left out of the wheel."""
    for top in SOURCE_FOLDERS:
        for module in (ROOT / top).rglob("*.py"):
            assert (module.parent / "__init__.py").exists(), f"{module.parent.relative_to(ROOT)} has no __init__.py"


def test_code_imports_itself_by_the_installed_name():
    """`import formatting` works in a checkout (the root is on sys.path) but not installed: always `turnlens.`."""
    bare = re.compile(r"^\s*(from|import)\s+(formatting|tui)\b", re.M)
    offenders = []
    for top in (*SOURCE_FOLDERS, "tests", "benchmarks"):
        for module in (ROOT / top).rglob("*.py"):
            if "corpus" in module.parts:
                continue
            text = module.read_text(encoding="utf-8")
            for match in bare.finditer(text):
                offenders.append(f"{module.relative_to(ROOT)}:{text[: match.start()].count(chr(10)) + 1}")
    assert not offenders, offenders


def test_samples_and_stylesheets_ship_in_the_wheel():
    manifest = (ROOT / "MANIFEST.in").read_text(encoding="utf-8")
    assert "graft sample_evals" in manifest and "*.tcss" in manifest
    assert "*.tcss" in _pyproject()["tool"]["setuptools"]["package-data"]["turnlens.tui"]


def test_tests_and_benchmarks_are_not_part_of_the_installed_package():
    """The root is the package, but only the listed subpackages install: in a wheel and in the strict editable
    install alike (.ci/run, CONTRIBUTING.md), `turnlens.tests` does not exist."""
    import turnlens

    if any(name.startswith("__editable___turnlens") for name in sys.modules):
        pytest.skip("a lenient editable install maps all of the checkout: install with editable_mode=strict")
    for name in ("turnlens.tests", "turnlens.benchmarks", "turnlens.docs"):
        assert importlib.util.find_spec(name) is None, f"{name} importable from {turnlens.__file__}"


def test_bundled_samples_are_found_through_the_package():
    from turnlens.tui.session import default_sample_dir

    assert default_sample_dir().resolve() == (ROOT / "sample_evals").resolve()
