"""What the app shows of untrusted text (file contents, ids, paths, recorded answers): formatting/sanitize.py's
neutraliser for display. Its own module, without the eval engine that render.py brings, so that the results view's
first frame needs neither (tests/house/test_import_rules.py)."""

from __future__ import annotations

from turnlens.formatting.sanitize import sanitize as _sanitize
from turnlens.formatting.sanitize import sanitize_label as _sanitize_label


def sanitize(text: str) -> str:
    """Untrusted text as shown: control sequences neutralised, emoji joiners and modifiers left out (their width is
    not measurable)."""
    return _sanitize(text, display=True)


def sanitize_label(text: str) -> str:
    """An id or a name in a list row or a title: one line, bounded (formatting/sanitize.py), emoji drawn as in
    `sanitize`."""
    return _sanitize(_sanitize_label(text), display=True)
