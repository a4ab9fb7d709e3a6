"""`turnlens diff`: which tests a change alters, why, and that git is only read."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from git_helpers import commit_all, git, make_sample_repo  # tests/git_helpers.py

from turnlens.formatting.diff.versions import plan_diff, run_diff
from turnlens.formatting.export.evals import iter_rows

GUIDELINE = "prompts/code-review.instructions.md"


@pytest.fixture
def sample_repo(tmp_path: Path) -> Path:
    return make_sample_repo(tmp_path)


def turnlens(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    return subprocess.run(
        [sys.executable, "-m", "turnlens", *args], cwd=cwd, capture_output=True, text=True, env=env, timeout=120
    )


def diff_of(repo: Path, *args: str):
    plan = plan_diff(list(args), str(repo), 64 << 20)
    try:
        return run_diff(plan)
    finally:
        plan.close()


def embedding_tests(repo: Path, rel_path: str) -> set[tuple[str, str]]:
    """(file, id) of every test whose export row names `rel_path` (as an attachment or guideline): found from
    the export's own rows, not from the diff's bookkeeping."""
    from turnlens.formatting.dialects.discover import discover_eval_files
    from turnlens.formatting.dialects.load import load_eval_file

    found = set()
    for path in discover_eval_files(str(repo), str(repo)):
        ev = load_eval_file(path, repo_root=str(repo), cwd=str(repo))
        for row in iter_rows(ev):
            if "skipped" in row:
                continue
            text = json.dumps([row["markers"]["segments"], row.get("guideline_paths", [])])
            if rel_path in text:
                found.add((os.path.relpath(path, repo), row["id"]))
    return found


def state_of(repo: Path) -> tuple:
    """The index, the refs and the working tree's status: what a read-only command must leave as it was."""
    index = hashlib.sha256((repo / ".git" / "index").read_bytes()).hexdigest()
    refs = git(repo, "for-each-ref", "--format=%(refname) %(objectname)")
    return index, refs, git(repo, "status", "--porcelain", "--untracked-files=all"), git(repo, "stash", "list")


def test_a_shared_guideline_change_lists_exactly_the_tests_that_embed_it(sample_repo: Path):
    expected = embedding_tests(sample_repo, GUIDELINE)
    assert len(expected) >= 6  # 0.15 guidelines and 4.x attachments of the samples
    with open(sample_repo / GUIDELINE, "a") as f:
        f.write("\nNever approve a change without a test.\n")
    before = state_of(sample_repo)
    diff = diff_of(sample_repo)
    assert state_of(sample_repo) == before
    assert {(c.file, c.id) for c in diff.changed} == expected
    assert not diff.added and not diff.removed
    for change in diff.changed:
        assert [(c.file, c.change) for c in change.causes] == [(GUIDELINE, "modified")]
        assert change.causes[0].kind in ("guideline", "attachment")
        assert change.rule is None
    kinds = {c.file: c.causes[0].kind for c in diff.changed}
    assert kinds["code-review.yaml"] == "guideline"  # 0.15: matched guideline_patterns
    assert kinds["evals/code-review/pull-requests.eval.yaml"] == "attachment"  # 4.x has no guidelines
    # agent mode names files by absolute path: the revision read into a temporary folder reads as the repository
    v4 = [c for c in diff.changed if c.file.startswith("evals/")]
    assert v4 and all(not f.name.startswith("agent.") for c in v4 for f in c.fields)


def test_json_shape_and_exit_code(sample_repo: Path):
    quiet = turnlens(sample_repo, "diff", "--exit-code", "--format", "json")
    assert quiet.returncode == 0, quiet.stderr
    assert json.loads(quiet.stdout) == {"added": [], "removed": [], "changed": []}
    assert turnlens(sample_repo, "diff").returncode == 0  # without --exit-code: 0 either way
    with open(sample_repo / "fixtures/code/retry.ts", "a") as f:
        f.write("// one more line\n")
    done = turnlens(sample_repo, "diff", "--exit-code", "--format", "json")
    assert done.returncode == 1, done.stderr
    data = json.loads(done.stdout)
    assert set(data) == {"added", "removed", "changed"}
    assert data["changed"]
    for change in data["changed"]:
        assert set(change) == {"id", "file", "fields", "rule", "causes"}
        assert change["rule"] is None
        assert change["causes"] == [{"file": "fixtures/code/retry.ts", "kind": "attachment", "change": "modified"}]
    assert turnlens(sample_repo, "diff").returncode == 0


def test_renaming_a_test_is_a_removal_and_an_addition(sample_repo: Path):
    path = sample_repo / "evals/support/refunds.eval.yaml"
    text = path.read_text()
    first_id = next(line.split("id:", 1)[1].strip() for line in text.splitlines() if line.strip().startswith("- id:"))
    path.write_text(text.replace(f"id: {first_id}", f"id: {first_id}-renamed", 1))
    diff = diff_of(sample_repo)
    assert [(r.file, r.id) for r in diff.removed] == [("evals/support/refunds.eval.yaml", first_id)]
    assert [(r.file, r.id) for r in diff.added] == [("evals/support/refunds.eval.yaml", f"{first_id}-renamed")]
    assert not diff.changed


def test_two_revisions_and_a_marker_rule_flip(sample_repo: Path):
    suite = sample_repo / "evals/flip/flip.eval.yaml"
    suite.parent.mkdir()
    suite.write_text("tests:\n  - id: greet\n    criteria: Greets back.\n    input: Hello\n")
    commit_all(sample_repo, "a one-turn test")
    suite.write_text(
        "tests:\n  - id: greet\n    criteria: Greets back.\n    input:\n"
        "      - {role: user, content: Hello}\n      - {role: assistant, content: Hi}\n"
        "      - {role: user, content: How are you?}\n"
    )
    commit_all(sample_repo, "a conversation")
    before = state_of(sample_repo)
    diff = diff_of(sample_repo, "HEAD~1", "HEAD")
    assert state_of(sample_repo) == before
    assert [(c.file, c.id) for c in diff.changed] == [("evals/flip/flip.eval.yaml", "greet")]
    change = diff.changed[0]
    assert change.rule == ("FLAT", "MARK")
    assert "lm.question" in change.field_names and "lm.grader[default grader]" in change.field_names
    assert [(c.file, c.kind) for c in change.causes] == [("evals/flip/flip.eval.yaml", "eval file")]
    assert change.to_json()["rule"] == {"before": "FLAT", "after": "MARK"}
    assert not diff_of(sample_repo, "HEAD", "HEAD").any_change


def test_messages_outside_a_repository_and_for_an_unknown_revision(tmp_path: Path, sample_repo: Path):
    outside = tmp_path / "plain"
    outside.mkdir()
    done = turnlens(outside, "diff")
    assert done.returncode == 2
    assert "not inside a git repository" in done.stderr and "Traceback" not in done.stderr
    done = turnlens(sample_repo, "diff", "no-such-branch")
    assert done.returncode == 2
    assert "unknown revision or path not in the working tree: 'no-such-branch'" in done.stderr
    done = turnlens(sample_repo, "diff", "HEAD~5")
    assert done.returncode == 2 and "unknown revision" in done.stderr


def test_two_folders(tmp_path: Path, sample_repo: Path):
    import shutil

    old, new = tmp_path / "old", tmp_path / "new"
    shutil.copytree(sample_repo, old, ignore=shutil.ignore_patterns(".git"))
    shutil.copytree(sample_repo, new, ignore=shutil.ignore_patterns(".git"))
    assert not diff_of(tmp_path, "old", "new").any_change  # agent mode's absolute paths: written as the first's
    (new / ".env").write_text((new / ".env").read_text().replace("Ridgeline Outdoor", "Summit Gear"))
    diff = diff_of(tmp_path, "old", "new")
    assert diff.changed and not diff.added and not diff.removed
    for change in diff.changed:
        assert [(c.file, c.kind) for c in change.causes] == [(".env", ".env")]


def test_markdown_is_capped_with_a_count(sample_repo: Path):
    from turnlens.formatting.diff.report import markdown_report

    with open(sample_repo / GUIDELINE, "a") as f:
        f.write("\nA new rule.\n")
    diff = diff_of(sample_repo)
    full = markdown_report(diff)
    assert full.count("<details>") == len(diff.changed)
    small = markdown_report(diff, budget=4000)
    shown = small.count("<details>")
    assert shown < len(diff.changed)
    assert f"and {len(diff.changed) - shown} more changed test" in small
    assert "| `prompts/code-review.instructions.md` |" in full


@pytest.mark.parametrize("name", ["HEAD", "main"])
def test_paths_limit_the_comparison(sample_repo: Path, name: str):
    with open(sample_repo / GUIDELINE, "a") as f:
        f.write("\nA new rule.\n")
    diff = diff_of(sample_repo, name, "--", "evals")
    assert diff.changed and all(c.file.startswith("evals/") for c in diff.changed)


def test_diff_html_page_renders_in_chromium(sample_repo: Path, tmp_path: Path):
    from browser import dump_dom, screenshot  # tests/browser.py

    with open(sample_repo / GUIDELINE, "a") as f:
        f.write("\nA <new> rule.\n")
    done = turnlens(sample_repo, "diff", "--format", "html")
    assert done.returncode == 0, done.stderr
    assert "<script" not in done.stdout and "default-src 'none'" in done.stdout
    page = tmp_path / "diff.html"
    page.write_text(done.stdout, encoding="utf-8")
    dom = dump_dom(page.as_uri())
    assert "Changed tests (8)" in dom
    assert "cr-system-file-attachment" in dom and "+A &lt;new&gt; rule." in dom
    assert screenshot(page.as_uri(), str(tmp_path / "diff.png"))


def test_the_docs_sample_is_current(sample_repo: Path):
    """docs/diff-sample.md is what the recipe in docs/diff.md prints (regenerate it with this recipe)."""
    with open(sample_repo / GUIDELINE, "a") as f:
        f.write("\n5. Say which finding blocks the merge, if any.\n")
    suite = sample_repo / "evals/support/refunds.eval.yaml"
    suite.write_text(suite.read_text().replace("- id: refund-unused-tent\n", "- id: refund-unused-tent-30-days\n"))
    done = turnlens(sample_repo, "diff", "--format", "markdown")
    assert done.returncode == 0, done.stderr
    sample = Path(__file__).resolve().parents[2] / "docs" / "diff-sample.md"
    assert done.stdout == sample.read_text(encoding="utf-8")


def test_a_link_out_of_the_repository_reads_the_same_in_a_revision(tmp_path: Path):
    """A relative symbolic link that climbs out of the repository points at the same outside file in the copy of
    a revision: nothing changed, so nothing is listed (agent mode's paths and the outside check agree)."""
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "policy.md").write_text("Refunds within 30 days.\n")
    repo = tmp_path / "repo"
    (repo / "evals").mkdir(parents=True)
    (repo / "docs").mkdir()
    (repo / "docs" / "policy.md").symlink_to("../../shared/policy.md")
    (repo / "evals" / "a.eval.yaml").write_text(
        "tests:\n  - id: t\n    criteria: c\n    input:\n      - role: user\n        content:\n"
        "          - {type: file, value: docs/policy.md}\n          - {type: text, value: Can I return it?}\n"
    )
    git(repo, "init", "-q", "-b", "main")
    commit_all(repo, "one test")
    assert not diff_of(repo).any_change
    (shared / "policy.md").write_text("Refunds within 14 days.\n")  # outside: both versions read it
    assert not diff_of(repo).any_change


def test_a_file_refused_alike_in_both_versions_is_not_named(sample_repo: Path):
    broken = sample_repo / "evals" / "broken" / "b.eval.yaml"
    broken.parent.mkdir()
    broken.write_text("tests: [\n")
    commit_all(sample_repo, "a broken suite")
    diff = diff_of(sample_repo)
    assert diff.problems == [] and not diff.any_change
    broken.write_text("tests:\n  - id: fixed\n    criteria: c\n    input: hi\n")
    diff = diff_of(sample_repo)
    assert [(r.file, r.id) for r in diff.added] == [("evals/broken/b.eval.yaml", "fixed")]
    assert len(diff.problems) == 1 and diff.problems[0].startswith("evals/broken/b.eval.yaml: not read in HEAD: ")


def test_one_attachment_used_by_forty_tests_lists_those_forty(tmp_path: Path):
    repo = tmp_path / "repo"
    (repo / "evals").mkdir(parents=True)
    (repo / "docs").mkdir()
    (repo / "docs" / "policy.md").write_text("Refunds within 30 days.\n")
    (repo / "docs" / "other.md").write_text("Shipping takes 3 days.\n")
    tests = []
    for n in range(50):
        attachment = "docs/policy.md" if n < 40 else "docs/other.md"
        tests.append(
            f"  - id: t{n:02d}\n    criteria: c\n    input:\n      - role: user\n        content:\n"
            f"          - {{type: file, value: {attachment}}}\n          - {{type: text, value: Question {n}?}}\n"
        )
    (repo / "evals" / "many.eval.yaml").write_text("tests:\n" + "".join(tests))
    git(repo, "init", "-q", "-b", "main")
    commit_all(repo, "fifty tests")
    (repo / "docs" / "policy.md").write_text("Refunds within 14 days.\n")
    diff = diff_of(repo)
    assert sorted(c.id for c in diff.changed) == [f"t{n:02d}" for n in range(40)]
    assert {(c.file, c.kind, c.change) for t in diff.changed for c in t.causes} == {
        ("docs/policy.md", "attachment", "modified")
    }
    assert [(cause.file, len(tests)) for cause, tests in diff.causes()] == [("docs/policy.md", 40)]
    # agent mode sends the file by path: only lm mode's prompts changed
    assert all(f.name.startswith("lm.") for c in diff.changed for f in c.fields)
