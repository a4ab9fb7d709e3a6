"""Opening a file at a line in the user's editor."""

from __future__ import annotations

import os
import shlex
from collections.abc import Mapping

# Editors that take `FILE:LINE` after a flag instead of `+LINE FILE`.
_GOTO_FLAG = {"code": "--goto", "code-insiders": "--goto", "codium": "--goto", "cursor": "--goto"}
_COLON_STYLE = {"subl", "zed", "hx", "helix"}


def editor_command(path: str, line: int | None, environ: Mapping[str, str] = os.environ) -> list[str]:
    """The command line that opens `path` at `line` in $VISUAL/$EDITOR (vi when neither is set)."""
    editor = environ.get("VISUAL") or environ.get("EDITOR") or "vi"
    argv = shlex.split(editor) or ["vi"]
    name = os.path.basename(argv[0])
    if not line:
        return argv + [path]
    if name in _GOTO_FLAG:
        return argv + [_GOTO_FLAG[name], f"{path}:{line}"]
    if name in _COLON_STYLE:
        return argv + [f"{path}:{line}"]
    return argv + [f"+{line}", path]
