"""What the parts of the study service share, as a protocol (``StudyService`` is one).

The card index, the overview, session planning and answering each reach the
database, the profile and the clock through this, and report what an
operation changed (``changed``) so every part drops the caches it makes stale.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from studyapp.srs.scheduler import Scheduler, SchedulerSettings
    from studyapp.store import Store
    from studyapp.store.progress import ProfileInfo
    from studyapp.study.changes import Changes
    from studyapp.study.views import StudyConfig


class StudyGround(Protocol):
    """The profile in its database, its settings and the clock."""

    @property
    def config(self) -> StudyConfig: ...

    @property
    def store(self) -> Store:
        """The database, opened on first use."""
        ...

    @property
    def profile(self) -> ProfileInfo:
        """The profile, opened (and created) on first use."""
        ...

    @property
    def settings(self) -> SchedulerSettings: ...

    @property
    def scheduler(self) -> Scheduler: ...

    @property
    def read_only(self) -> str | None:
        """Why answers cannot be recorded (a read-only database), or None when they can."""
        ...

    def now(self) -> datetime: ...

    def update_settings(self, **changes: Any) -> SchedulerSettings:
        """Change and save scheduler settings (reports ``Changes.CONFIG``)."""
        ...

    def changed(self, changes: Changes) -> None:
        """An operation changed these: every part drops the caches they make stale."""
        ...
