"""Problems found in a deck file, each tied to a position an editor can jump to."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, order=True)
class Problem:
    """One problem at ``path:line:col`` (1-based), the form editors and CI read."""

    path: Path
    line: int
    col: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.col}: {self.message}"


class DeckError(ValueError):
    """A deck that cannot be used; ``problems`` lists every reason found."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        self.problems: list[Problem] = list(problems)
        super().__init__("\n".join(str(p) for p in self.problems) or "invalid deck")


def sorted_unique(problems: Iterable[Problem]) -> list[Problem]:
    """Problems in file order, each reported once."""
    return sorted(set(problems))
