"""Discovery's plain matching of its default patterns (formatting/dialects/discover.py: FOLDER_PATTERNS and
DEFAULT_EVAL_PATTERNS on ASCII paths, without wcmatch) answers as wcmatch does, with the flags AgentV's discovery is
matched with; other paths and patterns are matched by wcmatch."""

from __future__ import annotations

import random

from wcmatch import glob as wglob

from turnlens.formatting.dialects import discover

FLAGS = wglob.GLOBSTAR | wglob.IGNORECASE | wglob.BRACE | wglob.EXTGLOB
PARTS = ["evals", "EVALS", "Evals", "eval", "a", ".git", ".evals", "evals.d", "x.evals", "_evals", "sub", "e v", "-"]
NAMES = [
    "eval.yaml", "EVAL.YAML", "eval.yml", "x.eval.yaml", "x.EVAL.Yml", ".eval.yaml", ".x.eval.yaml", "a.eval.ts",
    "a.eval.mts", "a.eval.MTS", "eval.ts", "eval.mts", "x.eval.yaml.bak", "evals", "a.eval.json", "a.b.eval.yaml",
    "eval.yamll", "a..eval.yaml", "xeval.yaml", "a eval.yaml", "-.eval.yaml", "a.eval.yaml ", "[a].eval.yaml",
    "!a.eval.yaml", "a{b}.eval.ts", "@(a).eval.yaml", "*.eval.yaml", "a\\b.eval.yaml", "~.eval.yml", "..eval.yaml",
]  # fmt: skip


def _random_part(rng: random.Random) -> str:
    alphabet = "aeEvVlLsS.-_ {}[]!@*?()\\~yYmMtT"
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 6)))


def _paths(rng: random.Random, count: int):
    for _ in range(count):
        parts = [rng.choice(PARTS) if rng.random() < 0.8 else _random_part(rng) for _ in range(rng.randint(0, 4))]
        name = rng.choice(NAMES) if rng.random() < 0.8 else _random_part(rng) + rng.choice(["", ".eval.yaml"])
        yield "/".join([*parts, name])


def test_the_plain_matches_answer_as_wcmatch_does():
    folder = wglob.compile(list(discover.FOLDER_PATTERNS), flags=FLAGS).match
    default = wglob.compile(list(discover.DEFAULT_EVAL_PATTERNS), flags=FLAGS, limit=0).match
    folder_match = discover._GlobMatch(list(discover.FOLDER_PATTERNS), discover._plain_folder_match)
    default_match = discover._GlobMatch(list(discover.DEFAULT_EVAL_PATTERNS), discover._plain_default_match)
    matched = 0
    for path in _paths(random.Random(20261128), 40000):
        assert folder_match(path) == folder(path), path
        assert default_match(path) == default(path), path
        matched += default(path)
    assert matched > 1000
    for path in ["évals/x.eval.yaml", "evals/é.eval.yaml", "a/./evals/x.eval.yaml", "../evals/x.eval.yaml"]:
        assert default_match(path) == default(path), path  # (left to wcmatch)
        assert folder_match(path) == folder(path), path
