"""What the class services need of the study service, as a protocol."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Protocol

from studyapp.store import Store

if TYPE_CHECKING:
    from studyapp.decks import Deck


class ClassSource(Protocol):
    """What the class report needs of the study service (``StudyService`` is one)."""

    @property
    def store(self) -> Store: ...
    @property
    def decks(self) -> Sequence[Deck]: ...
    def now(self) -> datetime: ...
