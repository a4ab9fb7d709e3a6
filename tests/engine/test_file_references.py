"""Where a file reference is looked for (formatting/evals/references.py's Resolver): the reference's search order, the
same places and the same answer whether a folder's listing rules a path out or each place is looked up."""

from __future__ import annotations

import itertools
import os
from pathlib import Path

import pytest

from turnlens.formatting.evals import files as files_module
from turnlens.formatting.evals import references
from turnlens.formatting.evals.references import Resolver


def _tree(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "evals" / "files").mkdir(parents=True)
    (repo / "evals" / "files" / "Here.md").write_text("here")
    (repo / "shared").mkdir()
    (repo / "shared" / "up.md").write_text("up")
    (repo / "evals" / "files" / "link.md").symlink_to(repo / "shared" / "up.md")
    (repo / "evals" / "files" / "broken.md").symlink_to(repo / "nowhere.md")
    return repo


def test_plain_relative_paths_are_joined_as_normpath_would():
    parts = ["a", ".", "..", "", "b.md", "...", "c d", "é"]
    for n in range(1, 4):
        for combo in itertools.product(parts, repeat=n):
            rel = "/".join(combo)
            for root in ("/", "/x/y"):
                if references._plain_relative(rel):
                    assert f"{root.rstrip('/')}/{rel}" == os.path.normpath(os.path.join(root, rel)), (root, rel)
    assert not references._plain_relative("a/../b") and not references._plain_relative("a//b")
    assert not references._plain_relative("a/") and references._plain_relative("a/.../b")


@pytest.mark.parametrize("listing_limit", [10_000, 0])  # folders listed, or every place looked up on its own
def test_the_answer_does_not_depend_on_folder_listings(tmp_path, monkeypatch, listing_limit):
    monkeypatch.setattr(references, "_LISTING_LIMIT", listing_limit)
    repo = _tree(tmp_path)
    resolver = Resolver(str(repo / "evals"), str(repo), str(repo))
    found = {
        ref: resolver.resolve(ref)[0]
        for ref in (
            "files/Here.md",
            "files/here.md",
            "files/link.md",
            "files/broken.md",
            "files/missing.md",
            "shared/up.md",
            "nowhere/x.md",
            "files/../shared/up.md",
            "/files/Here.md",
            "files/Here.md/x",
        )
    }
    here = str(repo / "evals" / "files" / "Here.md")
    assert found["files/Here.md"] == found["/files/Here.md"] == here
    assert found["files/link.md"] == str(repo / "evals" / "files" / "link.md")
    assert found["shared/up.md"] == found["files/../shared/up.md"] == str(repo / "shared" / "up.md")
    assert found["files/broken.md"] is None and found["files/missing.md"] is None and found["nowhere/x.md"] is None
    assert found["files/Here.md/x"] is None
    # a name that differs only in case is found exactly when the file system says so
    assert (found["files/here.md"] is not None) == os.path.exists(repo / "evals" / "files" / "here.md")
    tried = resolver.resolve("files/missing.md")[1]
    assert tried == [str(repo / "evals" / "files" / "missing.md"), str(repo / "files" / "missing.md")]


def test_outside_the_root_follows_links_of_files_and_folders(tmp_path):
    repo = _tree(tmp_path)
    (tmp_path / "secret.txt").write_text("s")
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "doc.md").write_text("d")
    files = repo / "evals" / "files"
    (files / "secret-link.md").symlink_to(tmp_path / "secret.txt")
    (files / "out").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    (repo / "alias").symlink_to(repo / "evals", target_is_directory=True)
    resolver = Resolver(str(repo / "evals"), str(repo), str(repo))
    for path, outside in [
        (files / "Here.md", False),
        (files / "link.md", False),  # a link to a file inside the root
        (files / "secret-link.md", True),
        (files / "out" / "doc.md", True),  # in a linked folder that lies outside
        (repo / "alias" / "files" / "Here.md", False),  # through a linked folder that lies inside
        (tmp_path / "secret.txt", True),
    ]:
        assert resolver.outside_root(str(path)) is outside, path
        assert files_module.real_outside(os.path.realpath(path), os.path.realpath(repo)) is outside, path
