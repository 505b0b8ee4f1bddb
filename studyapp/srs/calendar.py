"""The study day: it rolls over at 04:00 local time, not at midnight.

Someone studying at 01:00 is still finishing "today"; limits and streaks
count study days.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta, tzinfo


def local_zone() -> tzinfo:
    zone = datetime.now().astimezone().tzinfo
    assert zone is not None
    return zone


def study_day(moment: datetime, rollover_hour: int = 4, zone: tzinfo | None = None) -> date:
    """The study day ``moment`` belongs to."""
    local = moment.astimezone(zone or local_zone())
    return (local - timedelta(hours=rollover_hour)).date()


def day_start(day: date, rollover_hour: int = 4, zone: tzinfo | None = None) -> datetime:
    """When study day ``day`` starts, in UTC."""
    local = datetime.combine(day, time(hour=rollover_hour), tzinfo=zone or local_zone())
    return local.astimezone(UTC)


def day_bounds(moment: datetime, rollover_hour: int = 4,
               zone: tzinfo | None = None) -> tuple[datetime, datetime]:
    """Start and end (UTC) of the study day containing ``moment``."""
    day = study_day(moment, rollover_hour, zone)
    return (day_start(day, rollover_hour, zone),
            day_start(day + timedelta(days=1), rollover_hour, zone))
