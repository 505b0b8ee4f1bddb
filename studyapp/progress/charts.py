"""Text charts of progress: the reviews-per-day heat map and the due forecast."""

from __future__ import annotations

from datetime import date, timedelta

SHADES = " ░▒▓█"


def calendar_lines(days: tuple[tuple[date, int], ...] | list[tuple[date, int]],
                   weekdays: list[str], months: list[str]) -> list[str]:
    """The reviews-per-day heat map as text: a month line, then one row per weekday.

    Weeks are columns (Monday first); every row has the same length, days
    outside the range are blank, a day without reviews is ``·``.
    """
    if not days:
        return []
    peak = max(n for _, n in days)
    first = days[0][0]
    start = first - timedelta(days=first.weekday())
    weeks = (days[-1][0] - start).days // 7 + 1
    by_day = dict(days)
    gutter = max(len(w) for w in weekdays) + 1
    # a month's name goes over the week holding its first day (the first week too);
    # placed newest first, so a partial first month gives way when they would touch
    labels = []
    for week in range(weeks):
        monday = start + timedelta(days=7 * week)
        sunday = monday + timedelta(days=6)
        if week == 0 or sunday.month != monday.month or monday.day == 1:
            labels.append((gutter + week, months[sunday.month - 1]))
    month_line = [" "] * (gutter + weeks + 4)
    limit = len(month_line)
    for at, name in reversed(labels):
        if at + len(name) < limit or (at + len(name) <= limit and limit == len(month_line)):
            month_line[at:at + len(name)] = list(name)
            limit = at
    lines = ["".join(month_line).rstrip()]
    for weekday in range(7):
        cells = []
        for week in range(weeks):
            day = start + timedelta(days=7 * week + weekday)
            count = by_day.get(day)
            if count is None:
                cells.append(" ")
            elif count == 0 or peak == 0:
                cells.append("·")
            else:
                cells.append(SHADES[min(4, 1 + (count * 4 - 1) // peak)])
        name = weekdays[weekday] if weekday < len(weekdays) else ""
        lines.append(f"{name:<{gutter}}" + "".join(cells))
    return lines


def forecast_lines(forecast: tuple[tuple[date, int], ...] | list[tuple[date, int]],
                   weekdays: list[str]) -> list[str]:
    """Cards due per day as a calendar: a weekday header, then one line per week.

    Each line starts with the date of its Monday (``MM-DD``); days before the
    first one are blank. The first day also holds everything overdue.
    """
    if not forecast:
        return []
    first = forecast[0][0]
    start = first - timedelta(days=first.weekday())
    by_day = dict(forecast)
    width = max(4, *(len(str(n)) + 1 for _, n in forecast))
    lines = [" " * 5 + "".join(f"{w[:3]:>{width}}" for w in weekdays)]
    monday = start
    while monday <= forecast[-1][0]:
        cells = []
        for offset in range(7):
            count = by_day.get(monday + timedelta(days=offset))
            cells.append(f"{'' if count is None else count:>{width}}")
        lines.append(f"{monday:%m-%d}" + "".join(cells))
        monday += timedelta(days=7)
    return lines


