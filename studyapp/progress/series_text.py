"""The progress charts as text tables: what plain output shows instead of a chart (screen
readers, dumb terminals, scripts), with the same figures."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

from studyapp.i18n import t
from studyapp.numbers import format_number
from studyapp.progress.series import CardCurve, ProgressSeries

RATING_KEYS = {1: "tui.rating.again", 2: "tui.rating.hard", 3: "tui.rating.good",
               4: "tui.rating.easy"}


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{value:.0%}"


def _table(rows: Sequence[Sequence[str]], right_from: int = 1) -> list[str]:
    """Columns padded to their widest cell; numbers (from ``right_from`` on) to the right."""
    widths = [max(len(row[n]) for row in rows) for n in range(len(rows[0]))]
    return ["  ".join(cell.rjust(w) if n >= right_from else cell.ljust(w)
                      for n, (cell, w) in enumerate(zip(row, widths, strict=True))).rstrip()
            for row in rows]


def series_lines(series: ProgressSeries, lang: str) -> list[str]:
    """Per period: reviews, true retention and mastery of all posts; then per post its
    mastery at the first period's end and now."""
    if not series.points:
        return [t("chart.none", lang)]
    total = sum(p.total for p in series.posts)
    rows = [[t(f"chart.table.{series.period}", lang), t("chart.table.reviews", lang),
             t("chart.table.retention", lang), t("chart.table.mastery", lang)]]
    for n, point in enumerate(series.points):
        mastered = sum(p.mastered[n] for p in series.posts)
        rows.append([point.start.isoformat(), str(point.reviews), _pct(point.retention),
                     _pct(mastered / total if total else None)])
    lines = [t(f"chart.activity.title_{series.period}", lang), *_table(rows), ""]
    first = series.points[0].end.isoformat()
    posts = [[t("chart.table.post", lang), t("chart.table.first", lang, day=first),
              t("chart.table.now", lang)]]
    posts += [[post.slug, _pct(post.shares[0]), _pct(post.shares[-1])]
              for post in series.posts if post.total]
    lines += [t(f"chart.mastery.title_{series.period}", lang), *_table(posts),
              t("chart.mastery_note", lang)]
    return lines


def curve_lines(curve: CardCurve, lang: str, desired: float) -> list[str]:
    """Each answer with the recall predicted before it and the stability it left, then
    recall today and in a week."""
    if not curve.reviews:
        return [t("chart.curve.never", lang)]
    rows = [[t("chart.table.answered", lang), t("chart.table.rating", lang),
             t("chart.table.recall_before", lang), t("chart.table.stability", lang)]]
    for review in curve.reviews:
        stability = ("—" if review.stability_after is None
                     else f"{format_number(review.stability_after, lang)} d")
        rows.append([f"{review.day.isoformat()}", t(RATING_KEYS.get(review.rating,
                                                                     "tui.rating.good"), lang),
                     _pct(review.recall_before), stability])
    recall = {p.day: p.recall for p in curve.points}
    week = curve.today + timedelta(days=7)
    return [t("chart.curve.title", lang), *_table(rows, right_from=2),
            t("chart.curve.today", lang, now=_pct(recall.get(curve.today)),
              week=_pct(recall.get(week)), desired=_pct(desired))]


__all__ = ["curve_lines", "series_lines"]
