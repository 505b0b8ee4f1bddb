"""Progress over time: periods, retention and mastery at past dates from hand-made
histories, and a card's forgetting curve checked against FSRS by hand and against the
``fsrs`` package."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import fsrs
import pytest
from test_learner_stats import START, Clock, service, write, write_hand_deck

from studyapp.progress import learner_stats
from studyapp.progress.series import (
    build_series,
    card_curve,
    curve_from_answers,
    mastered_per_post,
    progress_series,
    series_periods,
)
from studyapp.srs.calendar import day_start, study_day
from studyapp.srs.scheduler import DEFAULT_PARAMETERS, Scheduler, SchedulerSettings
from studyapp.store.card_reads import CardRow
from studyapp.store.series import CardAnswer, mastered_at, retention_per_day

DAY = timedelta(days=1)


# -- periods ---------------------------------------------------------------------------------

def test_a_short_history_is_shown_per_day_up_to_today() -> None:
    period, edges = series_periods(date(2026, 5, 20), date(2026, 5, 18))
    assert period == "day"
    assert edges == [date(2026, 5, 18), date(2026, 5, 19), date(2026, 5, 20),
                     date(2026, 5, 21)]


def test_a_long_history_is_shown_per_week_from_monday_ending_today() -> None:
    today = date(2026, 5, 20)  # a Wednesday
    period, edges = series_periods(today, date(2026, 1, 1), weeks=4)
    assert period == "week"
    assert edges == [date(2026, 4, 27), date(2026, 5, 4), date(2026, 5, 11),
                     date(2026, 5, 18), date(2026, 5, 21)]
    # fewer weeks when the history is shorter than the weeks asked
    period, edges = series_periods(today, date(2026, 4, 8), weeks=26)
    assert edges[0] == date(2026, 4, 6) and len(edges) == 8


def test_no_history_no_periods() -> None:
    assert series_periods(date(2026, 5, 20), None) == ("day", [])


def test_mastery_shares_are_over_the_posts_cards_now() -> None:
    places = {("d", "a"): ("h100", "d"), ("d", "b"): ("h100", "d"),
              ("course", "c"): (None, "course")}
    flags = {("d", "a"): (0, 1), ("d", "b"): (1,), ("course", "c"): (0,),
             ("gone", "x"): (0, 1)}
    counts = mastered_per_post(flags, places, 2)
    assert counts == {"h100": [1, 2]}
    series = build_series("day", [date(2026, 5, 1), date(2026, 5, 2), date(2026, 5, 3)],
                          [4, 0], [(3, 2), (0, 0)], [("h100", "H100", 4), ("h200", "H200", 0)],
                          counts)
    assert [p.retention for p in series.points] == [pytest.approx(2 / 3), None]
    assert series.posts[0].shares == (0.25, 0.5)
    assert series.posts[1].shares == (0.0, 0.0)
    data = series.as_json()
    assert data["points"][0] == {"start": "2026-05-01", "end": "2026-05-01", "reviews": 4,
                                 "retention_reviews": 3, "retention_passed": 2,
                                 "retention": 0.6667}
    assert data["mastery"] == {"h100": [0.25, 0.5], "h200": [0.0, 0.0]}


# -- from the store --------------------------------------------------------------------------

@pytest.mark.utc_days
def test_mastery_at_past_moments_follows_each_answers_stability(db_url: str,
                                                                tmp_path: Path) -> None:
    now = START + timedelta(days=100)
    svc = service(db_url, Clock(now), write_hand_deck(tmp_path, ("m", "s", "young")))
    t0, t1, t2 = now - 90 * DAY, now - 50 * DAY, now - 20 * DAY
    try:
        write(svc, "m", t0, stability=30)  # new → review, 30 days
        write(svc, "m", t1, stability=10)  # reviewed at 30 days of stability: a span
        write(svc, "m", t2, stability=40)  # at 10 days: never mastered; then 40 days
        write(svc, "s", t2, stability=40)
        from studyapp.store.progress import set_suspended
        set_suspended(svc.store, svc.profile.id, "hand", "s", True)
        write(svc, "young", now - 2 * DAY, stability=15)  # not mature
        moments = [t0 - timedelta(hours=1), t0 + timedelta(hours=1),
                   t0 + 30 * DAY + timedelta(hours=23),  # 30 whole days: recall still 0.9
                   t0 + 31 * DAY,  # 31 days > 30 days of stability
                   t1 - timedelta(hours=1), t2 + timedelta(hours=1), now]
        found = mastered_at(svc.store, svc.profile.id, moments, 1.0)
        studied = mastered_at(svc.store, svc.profile.id, moments, 1.0, deck_ids={"other"})
    finally:
        svc.close()
    # "s" is suspended now: not mastered after its last answer, as the mastery now says
    assert found == {("hand", "m"): (1, 2, 5, 6)}
    assert studied == {}


@pytest.mark.utc_days
def test_retention_per_day_counts_each_cards_first_review_stage_answer(
        db_url: str, tmp_path: Path) -> None:
    now = START + timedelta(days=60)
    svc = service(db_url, Clock(now))
    day1 = now - 3 * DAY
    day2 = now - 2 * DAY
    try:
        write(svc, "a", day1 - 30 * DAY, stability=5)  # first answer: never counted
        write(svc, "a", day1, rating=3, stability=8)  # counted, passed
        write(svc, "a", day1 + timedelta(hours=1), rating=1, stage=3)  # second that day: not
        write(svc, "b", day1 - 40 * DAY, stability=30)
        write(svc, "b", day2, rating=1, stage=3, stability=4)  # counted, failed
        write(svc, "b", day2 + timedelta(minutes=10), rating=3, stability=4)  # relearning
        bounds = [day_start(study_day(d)) for d in (day1, day2, now)]
        bounds.append(day_start(study_day(now) + DAY))
        per_day = retention_per_day(svc.store, svc.profile.id, bounds)
    finally:
        svc.close()
    assert per_day == [(1, 1), (1, 0), (0, 0)]


@pytest.mark.utc_days
def test_series_end_today_with_the_mastery_stats_shows(db_url: str, tmp_path: Path) -> None:
    now = START + timedelta(days=100, hours=3)
    svc = service(db_url, Clock(now), write_hand_deck(tmp_path, ("x", "y", "z", "w")))
    try:
        write(svc, "x", now - 80 * DAY, stability=30)
        write(svc, "x", now - 40 * DAY, stability=60)
        write(svc, "y", now - 5 * DAY, stability=25)
        write(svc, "z", now - 3 * DAY, stability=2)
        write(svc, "z", now - 1 * DAY, rating=1, stage=3, stability=1)
        series = progress_series(svc)
        stats = learner_stats(svc)
    finally:
        svc.close()
    assert series.period == "week"
    assert series.points[-1].end == study_day(now)
    assert sum(p.reviews for p in series.points) == 5
    assert sum(p.counted for p in series.points) == 2  # x's second answer, z's lapse
    h100 = next(p for p in series.posts if p.slug == "h100")
    stats_h100 = next(p for p in stats.posts if p.slug == "h100")
    assert h100.mastered[-1] == stats_h100.mastered == 2  # x and y
    assert h100.shares[-1] == pytest.approx(stats_h100.mastery)
    # eleven weeks ago x had just been answered at 30 days of stability: mastered alone
    assert 1 in h100.mastered[:-1]


# -- forgetting curve ------------------------------------------------------------------------

def _card(stability: float, last: datetime, stage: int = 2) -> CardRow:
    return CardRow(1, "d", "c", "h100", None, stage, None, stability, 5.0,
                   last + timedelta(days=stability), last, 2, 0, False, False)


def by_hand(t_days: int, stability: float, decay: float = DEFAULT_PARAMETERS[20]) -> float:
    """FSRS-6: R(t) = (1 + F·t/S)^(-w20), F = 0.9^(-1/w20) - 1, so R(S) = 0.9."""
    factor = 0.9 ** (-1 / decay) - 1
    return float((1 + factor * t_days / stability) ** -decay)


@pytest.mark.utc_days
def test_curve_follows_fsrs_between_answers_and_marks_each_answer() -> None:
    settings = SchedulerSettings()
    scheduler = Scheduler(settings, UTC)
    first = datetime(2026, 5, 1, 10, 0, tzinfo=UTC)
    second = first + 10 * DAY
    answers = [CardAnswer(first, 3, 0, None), CardAnswer(second, 3, 2, 4.0)]
    today = date(2026, 5, 21)
    curve = curve_from_answers("d", "c", answers, _card(12.0, second),
                               scheduler.recall_probability,
                               lambda m: study_day(m, 4, UTC), lambda d: day_start(d, 4, UTC),
                               today)
    recall = {p.day: p.recall for p in curve.points}
    assert recall[date(2026, 5, 1)] == 1.0  # the day of an answer
    assert recall[date(2026, 5, 5)] == pytest.approx(by_hand(4, 4.0))  # = 0.9 at t = S
    assert recall[date(2026, 5, 5)] == pytest.approx(0.9)
    assert recall[date(2026, 5, 11)] == 1.0
    assert recall[date(2026, 5, 21)] == pytest.approx(by_hand(10, 12.0))
    assert curve.points[0].day == date(2026, 5, 1)
    # twenty days of history: a week more, projected
    assert curve.points[-1].day == today + timedelta(days=7)
    assert [p.projected for p in curve.points].count(True) == 7
    marks = curve.reviews
    assert marks[0].recall_before is None and marks[0].stability_after == 4.0
    assert marks[1].recall_before == pytest.approx(by_hand(10, 4.0))
    assert marks[1].stability_after == 12.0


def test_the_schedulers_recall_is_the_fsrs_packages() -> None:
    """Whole days: fsrs counts 24-hour periods, the scheduler study days; at 10:00 UTC with
    the day rolling over at 04:00 they agree."""
    params = list(DEFAULT_PARAMETERS)
    params[20] = 0.3  # an optimized decay, not the default
    settings = SchedulerSettings(parameters=tuple(params))
    last = datetime(2026, 5, 1, 10, 0, tzinfo=UTC)
    package = fsrs.Scheduler(parameters=params)
    card = fsrs.Card(state=fsrs.State.Review, stability=7.5, difficulty=5.0, last_review=last)
    for days in (0, 1, 7, 30, 200):
        at = last + days * DAY
        ours = Scheduler(settings, UTC).recall_probability(7.5, last, at)
        assert ours == pytest.approx(package.get_card_retrievability(card, at), rel=1e-12)
        assert ours == pytest.approx(by_hand(days, 7.5, 0.3), rel=1e-12)


@pytest.mark.utc_days
def test_card_curve_reads_the_stored_answers(db_url: str, tmp_path: Path) -> None:
    now = START + timedelta(days=30)
    svc = service(db_url, Clock(now), write_hand_deck(tmp_path, ("k",)))
    try:
        write(svc, "k", now - 20 * DAY, stability=3)
        write(svc, "k", now - 10 * DAY, rating=2, stability=9)
        curve = card_curve(svc, "hand", "k")
        missing = card_curve(svc, "hand", "nothing")
    finally:
        svc.close()
    assert missing is None
    assert curve is not None and [r.rating for r in curve.reviews] == [3, 2]
    assert curve.reviews[1].recall_before == pytest.approx(by_hand(10, 3.0))
    today = {p.day: p.recall for p in curve.points}[study_day(now)]
    assert today == pytest.approx(by_hand(10, 9.0))
    assert curve.as_json()["reviews"][1]["stability_after"] == 9.0


# -- the command line -------------------------------------------------------------------------

@pytest.mark.utc_days
def test_stats_plot_json_and_plain_show_the_same_history(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from studyapp.cli import main

    url = f"sqlite:///{tmp_path / 'cli.sqlite3'}"
    now = datetime.now(UTC)
    svc = service(url, Clock(now))
    try:
        write(svc, "k", now - 20 * DAY, stability=3)
        write(svc, "k", now - 10 * DAY, rating=1, stage=3, stability=1.5)
    finally:
        svc.close()
    runner = CliRunner()
    env = {"STUDYAPP_HOME": str(tmp_path / "home")}
    base = ["--db", url, "--profile", "ana", "--lang", "en", "stats"]
    data = json.loads(runner.invoke(main, [*base, "--json"], env=env).output)
    assert data["series"]["period"] == "day"
    assert len(data["series"]["points"]) == 21  # twenty days ago to today
    assert sum(p["reviews"] for p in data["series"]["points"]) == 2
    lapse = data["series"]["points"][10]
    assert (lapse["retention_reviews"], lapse["retention_passed"]) == (1, 0)
    assert len(data["series"]["mastery"]["h100"]) == 21
    plot = runner.invoke(main, [*base, "--plot"], env=env)
    assert plot.exit_code == 0, plot.output
    assert "Reviews per day and true retention" in plot.output
    assert "Mastery per post, day by day" in plot.output
    assert "\x1b[" not in plot.output  # not a terminal: no colour codes
    plain = runner.invoke(main, [*base, "--plain"], env=env)  # --plot implied
    assert plain.exit_code == 0 and "Day" in plain.output.splitlines()[1]
    assert f"{(now - 10 * DAY).date().isoformat()}" in plain.output
    card = [*base, "--card", "hand/k"]
    curve = json.loads(runner.invoke(main, [*card, "--json"], env=env).output)["curve"]
    assert [r["rating"] for r in curve["reviews"]] == [3, 1]
    assert curve["reviews"][1]["recall_before"] == round(by_hand(10, 3.0), 4)
    drawn = runner.invoke(main, [*card, "--plot"], env=env)
    assert drawn.exit_code == 0 and "Forgetting curve" in drawn.output
    table = runner.invoke(main, ["--db", url, "--profile", "ana", "--lang", "es", "stats",
                                 "--card", "hand/k", "--plot", "--plain"], env=env)
    assert "Otra vez" in table.output and "Recuerdo hoy" in table.output


def test_days_add_up_into_their_weeks() -> None:
    from studyapp.progress.series import per_period

    edges = [date(2026, 5, 4), date(2026, 5, 11), date(2026, 5, 14)]
    days = [date(2026, 5, 4) + timedelta(days=n) for n in range(11)]
    per_day = [(n, n // 2) for n in range(10)]
    first_week = (0 + 1 + 2 + 3 + 4 + 5 + 6, 0 + 0 + 1 + 1 + 2 + 2 + 3)
    assert per_period(days, edges, per_day) == [first_week, (7 + 8 + 9, 3 + 4 + 4)]


def test_madrids_clock_change_keeps_days_and_mastery_whole(db_url: str,
                                                           tmp_path: Path) -> None:
    """Spain moves to summer time on 29 March 2026: the days around it are 23 hours long
    or 24, and every answer still falls on its own study day; the last point is the
    mastery the stats show."""
    from zones import local_time_zone

    now = datetime(2026, 4, 2, 10, 0, tzinfo=UTC)  # 12:00 in Madrid
    with local_time_zone("Europe/Madrid"):
        svc = service(db_url, Clock(now), write_hand_deck(tmp_path, ("x", "y")))
        try:
            write(svc, "x", datetime(2026, 3, 1, 9, tzinfo=UTC), stability=30)
            # 02:30 UTC on the 29th is 04:30 summer time: the 29th's study day
            write(svc, "x", datetime(2026, 3, 29, 2, 30, tzinfo=UTC), rating=1, stage=3,
                  stability=2)
            write(svc, "y", datetime(2026, 3, 28, 2, 30, tzinfo=UTC), stability=25)
            series = progress_series(svc)
            stats = learner_stats(svc)
        finally:
            svc.close()
    assert series.period == "day" and series.points[0].start == date(2026, 3, 1)
    by_day = {p.start: p for p in series.points}
    assert by_day[date(2026, 3, 29)].counted == 1 and by_day[date(2026, 3, 29)].passed == 0
    assert by_day[date(2026, 3, 28)].reviews == 0  # 03:30 winter time: the 27th's day
    assert by_day[date(2026, 3, 27)].reviews == 1
    h100 = next(p for p in series.posts if p.slug == "h100")
    stats_h100 = next(p for p in stats.posts if p.slug == "h100")
    assert h100.mastered[-1] == stats_h100.mastered == 1  # y; x lapsed
    # x was mastered from its first answer until its lapse (30 days of stability)
    assert h100.mastered[0] == 1
    assert h100.mastered[series.points.index(by_day[date(2026, 3, 26)])] == 1
