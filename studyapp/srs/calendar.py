"""The study day: it rolls over at 04:00 local time, not at midnight.

Someone studying at 01:00 is still finishing "today"; limits and streaks
count study days.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from functools import lru_cache
from typing import Any, TypeVar
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError


def local_zone() -> tzinfo:
    """The learner's time zone, with its daylight-saving rules when the system names it.

    A fixed offset taken today would put every study day on the other side of
    a clock change an hour off: in Madrid a winter offset makes a summer day
    roll over at 05:00. The zone is the ``TZ`` variable's or the one
    ``/etc/localtime`` links to; a zone without a name (a POSIX ``TZ`` string)
    keeps today's offset.
    """
    return _zone(os.environ.get("TZ"))


@lru_cache(maxsize=8)
def _zone(tz_variable: str | None) -> tzinfo:
    name = _zone_name(tz_variable)
    if name:
        try:
            return ZoneInfo(name)
        except (ZoneInfoNotFoundError, ValueError, OSError):
            pass
    zone = datetime.now().astimezone().tzinfo
    assert zone is not None
    return zone


def _zone_name(tz_variable: str | None) -> str | None:
    """An IANA zone name from ``TZ`` or the ``/etc/localtime`` link, if there is one."""
    if tz_variable is not None:
        return tz_variable.removeprefix(":") or "UTC"
    try:
        target = os.readlink("/etc/localtime")
    except OSError:
        return None
    _, found, name = target.partition("zoneinfo/")
    return name if found and name else None


# An exam plan asks for the same few hundred days and moments tens of thousands of
# times (one walk per card, every branch on the same study hours). Each answer is a
# pure function of an instant (or a day), the rollover hour and the zone, so it is
# kept for UTC moments (what the scheduler passes). Other moments are not: a naive one
# is read in the system's zone, which may change, and two local times of one zone
# compare by wall clock, so the two 01:30 of a clock change would share an entry.
_CACHED = 1 << 14

_Answer = TypeVar("_Answer")


def _kept_for_utc(work: Callable[..., _Answer]) -> Callable[..., _Answer]:
    """``work(moment, *rest)``, its answers kept for UTC moments only (see above)."""
    kept = lru_cache(maxsize=_CACHED)(work)

    def answer(moment: datetime, *rest: Any) -> _Answer:
        return kept(moment, *rest) if moment.tzinfo is UTC else work(moment, *rest)

    return answer


def study_day(moment: datetime, rollover_hour: int = 4, zone: tzinfo | None = None) -> date:
    """The study day ``moment`` belongs to."""
    return _study_day(moment, rollover_hour, zone or local_zone())


@_kept_for_utc
def _study_day(moment: datetime, rollover_hour: int, zone: tzinfo) -> date:
    local = moment.astimezone(zone)
    return (local - timedelta(hours=rollover_hour)).date()


def day_start(day: date, rollover_hour: int = 4, zone: tzinfo | None = None) -> datetime:
    """When study day ``day`` starts, in UTC."""
    return _day_start(day, rollover_hour, zone or local_zone())


@lru_cache(maxsize=_CACHED)
def _day_start(day: date, rollover_hour: int, zone: tzinfo) -> datetime:
    local = datetime.combine(day, time(hour=rollover_hour), tzinfo=zone)
    return local.astimezone(UTC)


def day_bounds(moment: datetime, rollover_hour: int = 4,
               zone: tzinfo | None = None) -> tuple[datetime, datetime]:
    """Start and end (UTC) of the study day containing ``moment``."""
    return _day_bounds(moment, rollover_hour, zone or local_zone())


@_kept_for_utc
def _day_bounds(moment: datetime, rollover_hour: int,
                zone: tzinfo) -> tuple[datetime, datetime]:
    day = study_day(moment, rollover_hour, zone)
    return (day_start(day, rollover_hour, zone),
            day_start(day + timedelta(days=1), rollover_hour, zone))


DAY = timedelta(days=1)


def elapsed_days(last_review: datetime, now: datetime, rollover_hour: int = 4,
                 zone: tzinfo | None = None) -> int:
    """Study days from ``last_review`` to ``now``, as Anki counts them for FSRS.

    Anki (rslib, ``days_elapsed``) takes the whole days from the review to the
    end of the current study day: a review at 21:13 and the next one at 08:00
    are one day apart, two reviews at 05:00 and 03:00 the next night none.
    """
    _start, end = day_bounds(now, rollover_hour, zone)
    return elapsed_to(last_review, end)


def elapsed_to(last_review: datetime, day_end: datetime) -> int:
    """``elapsed_days`` with the end of the current study day worked out already."""
    seconds = (day_end - last_review).total_seconds()
    return max(0, int(seconds // 86400))


def days_later(moment: datetime, days: int, zone: tzinfo | None = None) -> datetime:
    """``moment`` moved ``days`` study days on, at the same local time (UTC)."""
    return _days_later(moment, days, zone or local_zone())


@_kept_for_utc
def _days_later(moment: datetime, days: int, zone: tzinfo) -> datetime:
    local = moment.astimezone(zone)
    return (local + timedelta(days=days)).astimezone(UTC)
