"""The two plain records the whole engine shares, the eval files' side and the results' side: a problem found in an
input file, and a chat message. Apart from model.py (which names them too) so that the results view, which needs
only these, does not pay for building the eval model's dataclasses at start-up (each costs ~0.5 ms to make)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

Severity = Literal["error", "warning", "info"]

# Plain data as JSON or YAML gives it, read from an input file or made to be dumped. What a value holds is checked
# where it is read (isinstance), so the values are typed Any rather than a recursive union every reader must narrow.
JsonObject: TypeAlias = dict[str, Any]
JsonArray: TypeAlias = list[Any]


@dataclass(frozen=True)
class Diagnostic:
    """A problem found in an input file, always with the file and, where known, the line (1-based)."""

    file: str
    line: int | None
    message: str
    severity: Severity = "warning"

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{where}: {self.message}"


@dataclass
class ChatMessage:
    """One message of a chatPrompt. Not frozen: an export makes thousands, and a frozen dataclass is made three
    times slower (each field is set through object.__setattr__); nothing changes one once made."""

    role: str
    content: str

    def to_json(self) -> dict[str, str]:
        return {"role": self.role, "content": self.content}
