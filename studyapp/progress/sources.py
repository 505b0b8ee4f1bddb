"""What progress needs of the study service, as protocols (no import cycle)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Protocol

from studyapp.srs.scheduler import SchedulerSettings
from studyapp.store import Store
from studyapp.store.progress import ProfileInfo


class PostCounts(Protocol):
    """One post's deck counts, as the study overview gives them."""

    @property
    def slug(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def total(self) -> int: ...
    @property
    def new(self) -> int: ...
    @property
    def learning(self) -> int: ...
    @property
    def review(self) -> int: ...
    @property
    def due(self) -> int: ...


class ComingBackCounts(Protocol):
    """Learning cards waiting, as the study overview counts them."""

    @property
    def within_hour(self) -> int: ...
    @property
    def next_in(self) -> timedelta | None: ...


class OverviewCounts(Protocol):
    """Today's numbers, as the study overview gives them."""

    @property
    def coming_back(self) -> ComingBackCounts | None: ...

    @property
    def posts(self) -> Sequence[PostCounts]: ...
    @property
    def deck_totals(self) -> Sequence[tuple[str, str, int, str]]: ...
    @property
    def due_today(self) -> int: ...
    @property
    def new_left(self) -> int: ...


class ProgressSource(Protocol):
    """What progress needs of the study service (``StudyService`` is one)."""

    @property
    def store(self) -> Store: ...
    @property
    def profile(self) -> ProfileInfo: ...
    @property
    def settings(self) -> SchedulerSettings: ...
    def now(self) -> datetime: ...
    def record_abandoned(self) -> None: ...
    def mastery_places(self) -> dict[tuple[str, str], tuple[str | None, str]]: ...
    def overview(self, lang: str | None = None, *, with_streak: bool = True) -> OverviewCounts:
        ...

