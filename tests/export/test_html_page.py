"""`--format html`: one self-contained page for eval files, a run and a diff, checked in headless Chromium."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from browser import dump_dom, screenshot  # tests/browser.py

SAMPLES = Path(__file__).resolve().parents[2] / "sample_evals"
RUN = SAMPLES / ".agentv/results/runs/default/2026-06-21T09-00-00-000Z"


def export_html(*args: str, cwd: Path = SAMPLES) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "turnlens", "export", *args, "--format", "html"],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    return done.stdout


def assert_self_contained(page: str) -> None:
    assert page.startswith("<!DOCTYPE html>")
    assert "<script" not in page.lower()  # readable with JavaScript off: there is none
    assert "default-src 'none'" in page  # the browser loads nothing: no font, image or style from anywhere
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page)
    assert "prefers-color-scheme: dark" in page and "color-scheme" in page


def test_eval_files_page_shows_every_test_with_its_prompts_and_rule():
    page = export_html("code-review.yaml", "evals/support/refunds.eval.yaml")
    assert_self_contained(page)
    for test_id in ("cr-sql-injection-flat", "cr-followup-with-files", "refund-unused-tent"):
        assert f">{test_id} <" in page or f">{test_id}<" in page
    assert "Role markers: message 3 (assistant) is a non-user turn" in page
    assert "[[ ## question ## ]]" in page  # the grader prompt


def test_untrusted_text_is_escaped_not_markup(tmp_path: Path):
    suite = tmp_path / "evals" / "x.eval.yaml"
    suite.parent.mkdir()
    suite.write_text(
        "tests:\n  - id: '<b>bold</b>'\n    criteria: c\n    input: \"<script>alert(1)</script> \\e]0;title\\a\"\n"
    )
    page = export_html("evals/x.eval.yaml", cwd=tmp_path)
    assert "<script>alert" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "&lt;b&gt;bold&lt;/b&gt;" in page
    assert "\x1b" not in page and "␛" in page


def test_run_page_shows_verdicts_graders_and_drift():
    page = export_html(str(RUN))
    assert_self_contained(page)
    assert "escalation-legal-threat" in page and "PASS" in page
    assert "<h3>graders</h3>" in page and "<h3>drift</h3>" in page


@pytest.mark.parametrize("kind", ["evals", "run"])
def test_the_pages_render_in_chromium(tmp_path: Path, kind: str):
    page = export_html("code-review.yaml") if kind == "evals" else export_html(str(RUN))
    path = tmp_path / "page.html"
    path.write_text(page, encoding="utf-8")
    dom = dump_dom(path.as_uri())
    assert "<details" in dom  # parsed into the document, not shown as text
    if kind == "evals":
        assert "cr-two-message-markers" in dom and "Role markers: 2 messages have visible content" in dom
    else:
        assert "review-sql-injection" in dom and "conversation" in dom
    for dark in (False, True):
        shot = tmp_path / f"{kind}-{dark}.png"
        assert screenshot(path.as_uri(), str(shot), dark=dark)
