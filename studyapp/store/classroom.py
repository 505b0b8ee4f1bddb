"""Class-wide aggregates over every profile of one database.

An instructor's report groups by profile and by question in SQL, so a class
of thirty with tens of thousands of answers each is read in a few queries.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import and_, case, delete, func, select, true
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from studyapp.deck_ids import is_deck_id
from studyapp.store.database import Store
from studyapp.store.mastery import mastered_card
from studyapp.store.tables import (
    CardStat,
    CardState,
    Profile,
    PublishedDeck,
    PublishedDeckVersion,
    ReviewHour,
    ReviewLog,
)
from studyapp.store.verdicts import stored_steps


@dataclass(frozen=True)
class StudentRow:
    """One profile's totals."""

    profile_id: int
    name: str
    reviews: int
    correct: int
    cards_seen: int
    overdue: int
    time_ms: int
    last_review: datetime | None
    study_days: int = 0
    """Days (UTC) with answers in the week before the report."""


@dataclass(frozen=True)
class QuestionRow:
    """How a question went the first time each student met it."""

    deck_id: str
    card_key: str
    post: str
    students: int
    first_correct: int
    reviews: int
    correct: int

    @property
    def first_try_accuracy(self) -> float:
        return self.first_correct / self.students if self.students else 0.0


def _true(condition: Any) -> Any:
    return case((condition, 1), else_=0)


def _int(value: Any) -> int:
    return int(value or 0)


def profile_settings(store: Store) -> dict[int, dict[str, Any]]:
    """Every profile's saved settings, by id: read only (a report never writes)."""
    with store.sessions() as session:
        return {pid: dict(settings or {})
                for pid, settings in session.execute(select(Profile.id, Profile.settings))}


OVERDUE_AFTER = timedelta(days=1)
"""A card is overdue a day after it was due (review, learning or relearning alike): a learning
card minutes late is not, a student away for days has every card they were learning."""

WEEK = timedelta(days=7)


@dataclass(frozen=True)
class WrongAnswer:
    """One wrong answer a student gave, with what was asked (to name its slip)."""

    deck_id: str
    card_key: str
    response: str
    expected: str | None
    seed: int | None
    lang: str | None
    slip: str | None = None
    steps: tuple[Mapping[str, Any], ...] = ()
    """A scenario's steps as its review log keeps them (name, given, correct, slips)."""
    picked: str | None = None
    """A choice card's picked choice, by its text (the study loop's ``picked_choice``)."""
    noted: bool = False
    """The study loop recorded the answer's slips (``answer_slips``), none or some; an older
    answer without the note has its slip named by grading it again."""
    count: int = 1
    """How many times this same wrong answer was given."""


def _within(column: Any, profile_ids: Collection[int] | None) -> Any:
    return true() if profile_ids is None else column.in_(list(profile_ids))


def profile_names(store: Store) -> dict[str, int]:
    """Every profile's id by name."""
    with store.sessions() as session:
        return {name: pid for pid, name in session.execute(select(Profile.id, Profile.name))}


def students(store: Store, now: datetime,
             profile_ids: Collection[int] | None = None) -> list[StudentRow]:
    """Every profile (or those of ``profile_ids``) with reviews, cards seen, overdue cards.

    Overdue: cards studied (learning, review, relearning) due a day or more ago
    (``OVERDUE_AFTER``); study days: days with answers in the last week (``review_hours``).
    """
    with store.sessions() as session:
        # sums from card_stats (kept by triggers), the last review by one index seek each
        last_review = (select(func.max(ReviewLog.reviewed_at))
                       .where(ReviewLog.profile_id == Profile.id).scalar_subquery())
        sums = {pid: (n, ok, ms) for pid, n, ok, ms in session.execute(
            select(CardStat.profile_id, func.sum(CardStat.reviews), func.sum(CardStat.correct),
                   func.sum(CardStat.duration_ms))
            .group_by(CardStat.profile_id))}
        logs = {pid: (*sums.get(pid, (0, 0, 0)), last) for pid, last in session.execute(
            select(Profile.id, last_review))}
        cards = {pid: (n, overdue) for pid, n, overdue in session.execute(
            select(CardState.profile_id, func.sum(_true(CardState.state != 0)),
                   func.sum(_true(and_(CardState.suspended.is_(False),
                                       CardState.state != 0,
                                       CardState.due <= now - OVERDUE_AFTER))))
            .group_by(CardState.profile_id))}
        since = int((now - WEEK).timestamp()) // 3600
        day = ReviewHour.hour - ReviewHour.hour % 24
        days = {pid: _int(n) for pid, n in session.execute(
            select(ReviewHour.profile_id, func.count(func.distinct(day)))
            .where(ReviewHour.hour >= since, ReviewHour.reviews > 0)
            .group_by(ReviewHour.profile_id))}
        rows = []
        for pid, name in session.execute(select(Profile.id, Profile.name)
                                         .where(_within(Profile.id, profile_ids))
                                         .order_by(Profile.name)):
            n, ok, ms, last = logs.get(pid, (0, 0, 0, None))
            seen, overdue = cards.get(pid, (0, 0))
            if isinstance(last, str):  # SQLite returns MAX() of a datetime as text
                last = datetime.fromisoformat(last)
            if last is not None and last.tzinfo is None:
                last = last.replace(tzinfo=UTC)
            rows.append(StudentRow(pid, name, _int(n), _int(ok), _int(seen), _int(overdue),
                                   _int(ms), last, days.get(pid, 0)))
        return rows


def mastery_by_post(store: Store, now: datetime,
                    mastery_age: float = 1.0) -> dict[tuple[int, str], int]:
    """Mastered cards (review, recall still >= the threshold) per (profile, post)."""
    with store.sessions() as session:
        return {(pid, post): _int(n) for pid, post, n in session.execute(
            select(CardState.profile_id, CardState.post,
                   func.sum(_true(mastered_card(session, now, mastery_age))))
            .group_by(CardState.profile_id, CardState.post))}


def hardest_questions(store: Store, limit: int | None = 20, min_students: int = 1,
                      profile_ids: Collection[int] | None = None) -> list[QuestionRow]:
    """Questions with the lowest first-try accuracy across students (all with ``None``)."""
    with store.sessions() as session:
        # per-card sums kept by triggers (card_stats): first tries are answers as a new card
        students_n = func.sum(CardStat.first_answers)
        first_ok = func.sum(CardStat.first_correct)
        rows = session.execute(
            select(CardState.deck_id, CardState.card_key, func.min(CardState.post),
                   students_n, first_ok, func.sum(CardStat.reviews),
                   func.sum(CardStat.correct))
            .join(CardStat, CardStat.card_id == CardState.id)
            .where(CardStat.reviews > 0, _within(CardState.profile_id, profile_ids))
            .group_by(CardState.deck_id, CardState.card_key)
            .having(students_n >= min_students)
            .order_by((first_ok * 1.0 / students_n).asc(), students_n.desc(),
                      CardState.deck_id, CardState.card_key)
            .limit(limit)).all()
        return [QuestionRow(d, k, p, _int(s), _int(ok), _int(n), _int(c))
                for d, k, p, s, ok, n, c in rows]


def wrong_answers(store: Store, profile_ids: Collection[int] | None = None,
                  regrade: Collection[tuple[str, str]] = ()
                  ) -> dict[tuple[str, str], list[WrongAnswer]]:
    """The wrong answers given to each card, the same ones counted together.

    The database groups them (read from the partial index of wrong answers,
    revision 0010), so a class's tens of thousands of wrong answers come back
    as a few hundred groups. Answers to the cards of ``regrade`` that the
    study loop stored without their slips (``answer_slips``) come back one by
    one with the seed and language they were shown in, to be graded again.
    """
    params = ReviewLog.params
    slips = params["answer_slips"].as_string()
    noted = slips.is_not(None)
    picked = params["picked_choice"].as_string()
    first_slip = params[("answer_slips", 0)].as_string()
    parts = params["parts"].as_string()
    wrong = and_(ReviewLog.correct == False,  # noqa: E712 -- the index's own predicate
                 ReviewLog.response.is_not(None), _within(CardState.profile_id, profile_ids))
    found: dict[tuple[str, str], list[WrongAnswer]] = {}
    again = set(regrade)
    with store.sessions() as session:
        grouped = session.execute(
            select(CardState.deck_id, CardState.card_key, ReviewLog.response, ReviewLog.lang,
                   picked, first_slip, noted, parts, func.count())
            .join(CardState, CardState.id == ReviewLog.card_id).where(wrong)
            .group_by(CardState.deck_id, CardState.card_key, ReviewLog.response, ReviewLog.lang,
                      picked, first_slip, noted, parts))
        for deck_id, card_key, response, lang, chosen, slip, was_noted, steps, count in grouped:
            if not was_noted and (deck_id, card_key) in again:
                continue  # read one by one below
            found.setdefault((deck_id, card_key), []).append(WrongAnswer(
                deck_id, card_key, response or "", None, None, lang,
                None if slip is None else str(slip), stored_steps(steps),
                chosen if isinstance(chosen, str) else None, bool(was_noted), _int(count)))
        if again:
            keys = {key for _, key in again}
            rows = session.execute(
                select(CardState.deck_id, CardState.card_key, ReviewLog.response,
                       ReviewLog.seed, ReviewLog.lang, picked, parts)
                .join(CardState, CardState.id == ReviewLog.card_id)
                .where(wrong, slips.is_(None), CardState.card_key.in_(sorted(keys))))
            for deck_id, card_key, response, seed, lang, chosen, steps in rows:
                if (deck_id, card_key) in again:
                    found.setdefault((deck_id, card_key), []).append(WrongAnswer(
                        deck_id, card_key, response or "", None, seed, lang, None,
                        stored_steps(steps), chosen if isinstance(chosen, str) else None))
    return found



@dataclass(frozen=True)
class StoredDeck:
    """A deck published into the database: its id, version and file text."""

    deck_id: str
    version: int
    content: str
    published_at: datetime


@dataclass(frozen=True)
class DeckVersion:
    """One published version of a deck: who published it and when (its text when asked)."""

    deck_id: str
    version: int
    published_at: datetime
    published_by: str | None
    login: str | None
    cards: int | None
    content: str = ""


class NewerVersion(Exception):
    """The database holds a version newer than the one a publish was based on."""

    def __init__(self, deck_id: str, latest: DeckVersion | None, base: int | None) -> None:
        self.deck_id, self.latest, self.base = deck_id, latest, base
        super().__init__(f"deck {deck_id}: the latest version is "
                         f"{latest.version if latest else 'none'}, not {base}")


def _version(row: PublishedDeckVersion, with_text: bool = True) -> DeckVersion:
    return DeckVersion(row.deck_id, row.version, row.published_at, row.published_by,
                       row.login, row.cards, row.content if with_text else "")


def _latest(session: Session, deck_id: str) -> PublishedDeckVersion | None:
    return session.execute(
        select(PublishedDeckVersion).where(PublishedDeckVersion.deck_id == deck_id)
        .order_by(PublishedDeckVersion.version.desc()).limit(1)).scalar_one_or_none()


def publish_version(store: Store, deck_id: str, content: str, now: datetime, *,
                    base: int | None, by: str | None, cards: int) -> tuple[int, bool]:
    """Store ``content`` as the next version of ``deck_id``: (its version, whether new).

    ``base`` is the version the text was written from (None: a deck never
    published). The text the class already studies keeps its version;
    otherwise, when the latest version is not ``base``, ``NewerVersion`` is
    raised and nothing is written, so a stale copy never undoes a newer one.
    Two publishes at once both read the same latest version; the primary key
    (deck, version) lets only the first insert its number, and the other
    is refused as stale, naming the version that won.
    """
    check_deck_id(deck_id)
    try:
        with store.transaction() as session:
            latest = _latest(session, deck_id)
            current = session.get(PublishedDeck, deck_id)
            if (latest is not None and current is not None and current.version == latest.version
                    and latest.content == content):
                return latest.version, False
            if (None if latest is None else latest.version) != base:
                raise NewerVersion(deck_id, None if latest is None else _version(latest, False),
                                   base)
            version = 1 if latest is None else latest.version + 1
            login = (session.execute(select(func.current_user())).scalar_one()
                     if session.get_bind().dialect.name == "postgresql" else None)
            session.add(PublishedDeckVersion(deck_id=deck_id, version=version, content=content,
                                             published_at=now, published_by=by, login=login,
                                             cards=cards))
            if current is None:
                session.add(PublishedDeck(deck_id=deck_id, version=version, content=content,
                                          published_at=now))
            else:
                current.version, current.content, current.published_at = version, content, now
            session.flush()
            return version, True
    except IntegrityError:
        won = latest_version(store, deck_id)
        if won is None:
            raise
        raise NewerVersion(deck_id, won, base) from None


def latest_version(store: Store, deck_id: str) -> DeckVersion | None:
    """The newest version of ``deck_id`` with its text (None: never published)."""
    with store.sessions() as session:
        row = _latest(session, deck_id)
        return None if row is None else _version(row)


def deck_version(store: Store, deck_id: str, version: int) -> DeckVersion | None:
    """Version ``version`` of ``deck_id`` with its text, if it was published."""
    with store.sessions() as session:
        row = session.get(PublishedDeckVersion, (deck_id, version))
        return None if row is None else _version(row)


def deck_versions(store: Store, deck_id: str) -> list[DeckVersion]:
    """Every version of ``deck_id``, oldest first, without their texts."""
    with store.sessions() as session:
        rows = session.execute(
            select(PublishedDeckVersion.deck_id, PublishedDeckVersion.version,
                   PublishedDeckVersion.published_at, PublishedDeckVersion.published_by,
                   PublishedDeckVersion.login, PublishedDeckVersion.cards)
            .where(PublishedDeckVersion.deck_id == deck_id)
            .order_by(PublishedDeckVersion.version)).all()
        return [DeckVersion(*row) for row in rows]


def profiles_per_card(store: Store, deck_id: str, card_keys: Collection[str]) -> dict[str, int]:
    """How many profiles have progress on each of ``card_keys`` of a deck."""
    with store.sessions() as session:
        return {key: _int(n) for key, n in session.execute(
            select(CardState.card_key, func.count(func.distinct(CardState.profile_id)))
            .where(CardState.deck_id == deck_id, CardState.card_key.in_(sorted(card_keys)))
            .group_by(CardState.card_key))}


def stored_decks(store: Store) -> list[StoredDeck]:
    """Every deck published into this database, by id."""
    with store.sessions() as session:
        return [StoredDeck(r.deck_id, r.version, r.content, r.published_at) for r in
                session.execute(select(PublishedDeck).order_by(PublishedDeck.deck_id)).scalars()]


def check_deck_id(deck_id: str) -> None:
    """``ValueError`` unless ``deck_id`` is a deck slug: only those are stored as decks."""
    if not is_deck_id(deck_id):
        raise ValueError(f"not a deck id (lowercase letters, digits and '-'): {deck_id!r}")


def unpublish_deck(store: Store, deck_id: str) -> int | None:
    """Remove the published deck ``deck_id``: the version removed, or None if there was none.

    Only the published text goes: the students' cards and review history of
    the deck stay, and count again if the deck is published once more. Any
    stored id may be removed, a malformed one included.
    """
    with store.transaction() as session:
        version = session.scalar(select(func.max(PublishedDeck.version))
                                 .where(PublishedDeck.deck_id == deck_id))
        if version is None:
            return None
        session.execute(delete(PublishedDeck).where(PublishedDeck.deck_id == deck_id))
        return int(version)


def profiles_studying(store: Store, deck_id: str) -> int:
    """How many profiles have progress on cards of deck ``deck_id``."""
    with store.sessions() as session:
        return _int(session.scalar(select(func.count(func.distinct(CardState.profile_id)))
                                   .where(CardState.deck_id == deck_id)))
