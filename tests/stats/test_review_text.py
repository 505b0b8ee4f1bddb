"""Progress review as text: the heat map's labels and aligned rows, the dated
forecast, and which cards count as weakest."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest

from studyapp.progress import calendar_lines, forecast_lines, weakness
from studyapp.srs.scheduler import SchedulerSettings

WEEKDAYS = ["Mon", "", "Wed", "", "Fri", "", "Sun"]
MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
NOW = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)


def test_heat_map_has_month_and_weekday_labels_and_aligned_rows() -> None:
    # Wednesday 2026-01-14 to Monday 2026-03-02: partial first and last weeks
    first = date(2026, 1, 14)
    days = [(first + timedelta(days=i), i % 4) for i in range(48)]
    lines = calendar_lines(days, WEEKDAYS, MONTHS)
    assert len(lines) == 8
    months, rows = lines[0], lines[1:]
    # January's two days give way to February's name, which would touch it
    assert months.split() == ["Feb", "Mar"]
    assert [r[:4] for r in rows] == ["Mon ", "    ", "Wed ", "    ", "Fri ", "    ", "Sun "]
    assert len({len(r) for r in rows}) == 1  # every row as long as the others
    weeks = len(rows[0]) - 4
    assert weeks == 8
    assert rows[0][4] == " "  # Monday 12 January is before the range
    assert rows[2][4] == "·"  # Wednesday 14 January: no reviews
    assert rows[0][-1] != " " and rows[1][-1] == " "  # the range ends on a Monday
    assert months.index("Feb") == 4 + 2  # over the week holding 1 February
    assert months.index("Mar") == 4 + 6  # over the week holding 1 March


def test_forecast_lines_carry_dates_and_weekdays() -> None:
    start = date(2026, 3, 4)  # a Wednesday
    forecast = [(start + timedelta(days=i), i * 3) for i in range(10)]
    lines = forecast_lines(forecast, ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"])
    assert lines[0].split() == ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    assert lines[1].split() == ["03-02", "0", "3", "6", "9", "12"]
    assert lines[2].split() == ["03-09", "15", "18", "21", "24", "27"]
    assert len(lines[1]) == len(lines[0])
    assert lines[1].index(" 0") + 1 == lines[0].index("Wed") + 2  # aligned under Wed


@pytest.mark.utc_days  # NOW is fixed in UTC; its study days are read there too
def test_weakest_never_at_full_recall_and_lapses_weigh() -> None:
    settings = SchedulerSettings()
    just_now = NOW - timedelta(minutes=5)
    assert weakness(settings, 10.0, just_now, 0, NOW) is None  # 100% now
    assert weakness(settings, None, None, 0, NOW) is None  # never reviewed
    fading = weakness(settings, 2.0, NOW - timedelta(days=6), 0, NOW)
    lapsing = weakness(settings, 2.0, NOW - timedelta(days=1), 4, NOW)
    steady = weakness(settings, 2.0, NOW - timedelta(days=1), 0, NOW)
    assert fading is not None and lapsing is not None and steady is not None
    assert fading < steady and lapsing < steady
    # a card reviewed yesterday with stability 2 d is at ~95%, a day counts in hours
    assert 0.9 < steady < 0.99
