"""What the user chose and turnlens remembers between sessions: the theme and the results' pass threshold.

One small JSON file in the user's config folder ($XDG_CONFIG_HOME/turnlens/settings.json, else
~/.config/turnlens/settings.json), never beside the files inspected. Read once when the command starts (the app
made for tests and benchmarks reads and writes nothing); written whole (a temporary file renamed over it) when a
choice changes. A file that cannot be read or written is ignored: the choice holds for this session.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass

FILE_NAME = "settings.json"
READ_LIMIT = 64 * 1024


def config_path(environ: Mapping[str, str] = os.environ) -> str:
    base = environ.get("XDG_CONFIG_HOME")
    if not base or not os.path.isabs(base):  # the XDG rule: a relative value is ignored
        base = os.path.join(os.path.expanduser("~"), ".config")
    return os.path.join(base, "turnlens", FILE_NAME)


@dataclass
class Settings:
    """The choices remembered between sessions (the theme, the results threshold), kept in the file at `path`."""

    path: str
    theme: str | None = None
    threshold: float | None = None

    @classmethod
    def load(cls, path: str | None = None) -> Settings:
        settings = cls(path or config_path())
        try:
            with open(settings.path, "rb") as handle:
                data = json.loads(handle.read(READ_LIMIT))
        except (OSError, ValueError):
            return settings
        if isinstance(data, dict):
            theme, threshold = data.get("theme"), data.get("threshold")
            settings.theme = theme if isinstance(theme, str) and theme else None
            if isinstance(threshold, (int, float)) and not isinstance(threshold, bool) and 0 <= threshold <= 1:
                settings.threshold = float(threshold)
        return settings

    def remember(self, **choices: object) -> str | None:
        """Set and write `choices` (theme=…, threshold=…); why it could not be written, else None."""
        for name, value in choices.items():
            setattr(self, name, value)
        data = {k: v for k, v in (("theme", self.theme), ("threshold", self.threshold)) if v is not None}
        folder = os.path.dirname(self.path)
        try:
            os.makedirs(folder, exist_ok=True)
            fd, temporary = tempfile.mkstemp(prefix=".settings-", dir=folder)
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as handle:
                    json.dump(data, handle, indent=2)
                    handle.write("\n")
                os.replace(temporary, self.path)
            except BaseException:
                os.unlink(temporary)
                raise
        except OSError as error:
            return f"{self.path}: {error.strerror or error}"
        return None
