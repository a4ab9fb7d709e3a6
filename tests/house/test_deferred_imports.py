"""An import inside a function in formatting/ or tui/ is deliberate and listed, with its reason, in
tests/house/deferred_imports.py (harlequin's "deferred imports listed with a reason"); a listed one that is gone is
taken off the list."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from deferred_imports import DEFERRED, REASONS

ROOT = Path(__file__).resolve().parents[2]
LIST = "tests/house/deferred_imports.py"


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(("turnlens", *(parts[:-1] if parts[-1] == "__init__" else parts)))


def _is_module(name: str) -> bool:
    if not name.startswith("turnlens."):
        return False
    path = ROOT.joinpath(*name.split(".")[1:])
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def _imported(node: ast.Import | ast.ImportFrom, path: Path) -> Iterator[str]:
    """The modules an import statement loads, by their full names (`from pkg import mod` names pkg.mod)."""
    if isinstance(node, ast.Import):
        yield from (alias.name for alias in node.names)
        return
    base = node.module or ""
    if node.level:
        package = _module_name(path).split(".")
        if path.name != "__init__.py":
            package = package[:-1]
        package = package[: len(package) - (node.level - 1)]
        base = ".".join([*package, base] if base else package)
    for alias in node.names:
        submodule = f"{base}.{alias.name}"
        yield submodule if _is_module(submodule) else base


def _function_imports(path: Path) -> Iterator[tuple[str, int, str]]:
    """(imported module, line, function) of every import inside a function (at any depth) of `path`."""

    def walk(node: ast.AST, function: str | None) -> Iterator[tuple[str, int, str]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                yield from walk(child, function or child.name)
            elif isinstance(child, (ast.Import, ast.ImportFrom)) and function is not None:
                yield from ((name, child.lineno, function) for name in _imported(child, path))
            else:
                yield from walk(child, function)

    yield from walk(ast.parse(path.read_text(encoding="utf-8"), str(path)), None)


def _found() -> dict[tuple[str, str], list[str]]:
    found: dict[tuple[str, str], list[str]] = {}
    for package in ("formatting", "tui"):
        for path in sorted((ROOT / package).rglob("*.py")):
            importer = _module_name(path)
            for imported, line, function in _function_imports(path):
                where = f"{path.relative_to(ROOT)}:{line} (in {function})"
                found.setdefault((importer, imported), []).append(where)
    return found


def _listed() -> dict[tuple[str, str], str]:
    listed: dict[tuple[str, str], str] = {}
    for reason, importers in DEFERRED.items():
        for importer, imports in importers.items():
            for imported in imports:
                listed[(importer, imported)] = reason
    return listed


def test_every_import_inside_a_function_is_listed_with_its_reason():
    found, listed = _found(), _listed()
    assert len(found) > 50  # the walk finds them (a broken walk would pass vacuously)
    unlisted = [
        f"  {where}: {importer} imports {imported}"
        for (importer, imported), places in sorted(found.items())
        if (importer, imported) not in listed
        for where in places
    ]
    assert not unlisted, (
        f"imports inside functions that {LIST} does not list:\n"
        + "\n".join(unlisted)
        + f"\nImport at the top of the module; or, if it must wait, add it to {LIST} under the group that says why "
        "(a first frame it would slow, a rare path, a cycle...)."
    )


def test_every_listed_import_is_still_made_inside_a_function():
    found, listed = _found(), _listed()
    gone = [
        f"  [{reason}] {importer} -> {imported}"
        for (importer, imported), reason in sorted(listed.items())
        if (importer, imported) not in found
    ]
    assert not gone, (
        f"listed in {LIST} but no longer imported inside a function (moved to the top, renamed or gone): take "
        "them off the list:\n" + "\n".join(gone)
    )


def test_each_import_is_listed_once_under_a_reason():
    seen: dict[tuple[str, str], str] = {}
    twice = []
    for reason, importers in DEFERRED.items():
        assert reason in REASONS, f"{LIST}: group {reason!r} has no entry in REASONS saying what it means"
        for importer, imports in importers.items():
            for imported in imports:
                if (importer, imported) in seen:
                    twice.append(f"  {importer} -> {imported}: under {seen[importer, imported]!r} and {reason!r}")
                seen[importer, imported] = reason
    assert not twice, f"listed under two reasons in {LIST} (keep the one that says why):\n" + "\n".join(twice)
    assert set(REASONS) == set(DEFERRED), f"{LIST}: REASONS and DEFERRED name different groups"
