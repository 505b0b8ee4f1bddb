"""The study day follows the learner's clock changes, not today's UTC offset."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
from zones import local_time_zone

from studyapp.srs.calendar import day_start, days_later, local_zone, study_day

ZONEINFO = Path("/usr/share/zoneinfo/Europe/Madrid")


@pytest.fixture
def madrid() -> Iterator[None]:
    if not ZONEINFO.exists():
        pytest.skip("the system has no time zone database")
    with local_time_zone("Europe/Madrid"):
        yield


def test_a_summer_day_starts_at_four_local_time_whatever_the_season_today(madrid: None) -> None:
    # Spain moves from CET (UTC+1) to CEST (UTC+2) on 2026-03-29 at 02:00 local time
    # (EU Directive 2000/84/EC: the last Sunday of March).
    assert day_start(date(2026, 3, 28)) == datetime(2026, 3, 28, 3, 0, tzinfo=UTC)
    assert day_start(date(2026, 3, 29)) == datetime(2026, 3, 29, 2, 0, tzinfo=UTC)
    assert day_start(date(2026, 7, 1)) == datetime(2026, 7, 1, 2, 0, tzinfo=UTC)
    assert day_start(date(2026, 12, 1)) == datetime(2026, 12, 1, 3, 0, tzinfo=UTC)


def test_a_review_at_half_past_three_in_summer_belongs_to_the_day_before(madrid: None) -> None:
    summer_night = datetime(2026, 7, 1, 1, 30, tzinfo=UTC)  # 03:30 CEST
    assert study_day(summer_night) == date(2026, 6, 30)
    assert study_day(summer_night + timedelta(hours=1)) == date(2026, 7, 1)


def test_a_day_later_across_the_clock_change_keeps_the_local_hour(madrid: None) -> None:
    saturday_noon = datetime(2026, 3, 28, 11, 0, tzinfo=UTC)  # 12:00 CET
    sunday = days_later(saturday_noon, 1)
    local = sunday.astimezone(local_zone())
    assert (local.hour, local.minute) == (12, 0)
    assert sunday - saturday_noon == timedelta(hours=23)  # the night was an hour shorter


def test_a_posix_zone_without_a_name_keeps_its_offset() -> None:
    with local_time_zone("WEST+3"):
        moment = datetime(2026, 7, 1, 6, 30, tzinfo=UTC)  # 03:30 at UTC-3
        assert study_day(moment) == date(2026, 6, 30)
        assert day_start(date(2026, 7, 1)) == datetime(2026, 7, 1, 7, 0, tzinfo=UTC)
