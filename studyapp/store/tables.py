"""Tables: profiles, card states, review logs, post reads.

A card row exists once a learner has seen the card; cards never seen are
"new" and live only in the decks. Rows are keyed by (profile, deck id, card
id) so editing a deck keeps progress. All datetimes are UTC.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    false,
)
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column
from sqlalchemy.types import TypeDecorator


def utc_from_text(value: str) -> datetime:
    """SQLite's stored text (naive UTC, as bound below) as an aware UTC datetime.

    Parsing with the offset written in is several times faster than parsing
    and then ``replace(tzinfo=...)``, which matters over thousands of rows.
    """
    if value[-6:-5] in ("+", "-") or value.endswith("Z"):
        return datetime.fromisoformat(value).astimezone(UTC)
    return datetime.fromisoformat(value + "+00:00")


class UTCDateTime(TypeDecorator[datetime]):
    """Aware UTC datetimes on every backend (SQLite keeps no time zone)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> Any:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given to the store; use timezone.utc")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def result_processor(self, dialect: Dialect, coltype: object) -> Any:
        """On SQLite, parse the stored ISO text directly (C-speed fromisoformat)."""
        if dialect.name != "sqlite":
            return super().result_processor(dialect, coltype)

        def parse(value: Any) -> datetime | None:
            if value is None:
                return None
            if isinstance(value, str):
                return utc_from_text(value)
            if value.tzinfo is None:
                return value.replace(tzinfo=UTC)  # type: ignore[no-any-return]
            return value.astimezone(UTC)  # type: ignore[no-any-return]

        return parse

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        moment: datetime = value
        if moment.tzinfo is None:
            return moment.replace(tzinfo=UTC)
        return moment.astimezone(UTC)


class Base(DeclarativeBase):
    pass


class Profile(Base):
    """One learner; every other row belongs to exactly one profile."""

    __tablename__ = "profiles"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(100), unique=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    # scheduler parameters, desired retention, steps, limits: pinned per profile
    settings: Mapped[dict[str, object]] = mapped_column(JSON, default=dict)


class CardState(Base):
    """Scheduling state of one card for one profile (FSRS fields plus counters)."""

    __tablename__ = "card_states"
    __table_args__ = (
        UniqueConstraint("profile_id", "deck_id", "card_key", name="uq_card_states_key"),
        Index("ix_card_states_due", "profile_id", "suspended", "due"),
        Index("ix_card_states_post", "profile_id", "post"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    profile_id: Mapped[int] = mapped_column(ForeignKey("profiles.id", ondelete="CASCADE"))
    deck_id: Mapped[str] = mapped_column(String(200))
    card_key: Mapped[str] = mapped_column(String(200))
    post: Mapped[str] = mapped_column(String(64))
    family: Mapped[str | None] = mapped_column(String(100), nullable=True)
    # fsrs.State: 1 learning, 2 review, 3 relearning
    state: Mapped[int] = mapped_column(Integer)
    step: Mapped[int | None] = mapped_column(Integer, nullable=True)
    stability: Mapped[float | None] = mapped_column(Float, nullable=True)
    difficulty: Mapped[float | None] = mapped_column(Float, nullable=True)
    due: Mapped[datetime] = mapped_column(UTCDateTime())
    last_review: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    reps: Mapped[int] = mapped_column(Integer, default=0)
    lapses: Mapped[int] = mapped_column(Integer, default=0)
    suspended: Mapped[bool] = mapped_column(Boolean, default=False)
    leech: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    # revision 0003: siblings answered today bury a card until the next study day
    buried_until: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    flag: Mapped[int] = mapped_column(Integer, default=0, server_default="0")


class ReviewLog(Base):
    """One answer: what was asked (params), what was said, and the rating."""

    __tablename__ = "review_logs"
    __table_args__ = (
        Index("ix_review_logs_profile_time", "profile_id", "reviewed_at"),
        Index("ix_review_logs_card", "card_id", "reviewed_at"),
        # revision 0002: per-card answer sums without reading the log rows
        Index("ix_review_logs_profile_card", "profile_id", "card_id", "correct", "duration_ms",
              "state_before"),
        # revision 0005: a review id names one review within one profile
        UniqueConstraint("profile_id", "uid", name="uq_review_logs_profile_uid"),
        # revisions 0006 and 0007: true retention read from this index alone
        Index("ix_review_logs_retention", "profile_id", "reviewed_at", "state_before",
              "previous_review_at", "card_id", "rating", "stability_before"),
        # revision 0010: ix_review_logs_wrong, a partial index of wrong answers (card_id,
        # response, params, seed, lang) for the class report; made by the migration alone,
        # as its columns differ by database (PostgreSQL INCLUDEs the JSON)
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    profile_id: Mapped[int] = mapped_column(ForeignKey("profiles.id", ondelete="CASCADE"))
    card_id: Mapped[int] = mapped_column(ForeignKey("card_states.id", ondelete="CASCADE"))
    reviewed_at: Mapped[datetime] = mapped_column(UTCDateTime())
    rating: Mapped[int] = mapped_column(Integer)  # fsrs.Rating 1..4
    correct: Mapped[bool] = mapped_column(Boolean)
    duration_ms: Mapped[int | None] = mapped_column(Integer, nullable=True)
    state_before: Mapped[int | None] = mapped_column(Integer, nullable=True)
    # the card row before this answer, so undo can restore it exactly
    previous: Mapped[dict[str, object] | None] = mapped_column(JSON, nullable=True)
    seed: Mapped[int | None] = mapped_column(Integer, nullable=True)
    params: Mapped[dict[str, object] | None] = mapped_column(JSON, nullable=True)
    prompt: Mapped[str | None] = mapped_column(Text, nullable=True)
    response: Mapped[str | None] = mapped_column(Text, nullable=True)
    expected: Mapped[str | None] = mapped_column(Text, nullable=True)
    lang: Mapped[str | None] = mapped_column(String(8), nullable=True)
    uid: Mapped[str] = mapped_column(String(64))  # stable across export/import
    # revision 0004: "I was right" after a wrong verdict; the post opened while answering
    overridden: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    looked_at_post: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    # revision 0006: previous["stability"], set by a trigger on insert (young or mature)
    stability_before: Mapped[float | None] = mapped_column(Float, nullable=True)
    # revision 0007: for a review-stage answer, the card's previous review-stage answer
    # (in (reviewed_at, id) order), set by triggers: the first of a day is the one whose
    # previous answer falls before the day starts
    previous_review_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    # revision 0012: the verdict as it stands (a regrade changes it, not ``correct``), the
    # named slip, steps right from carried-forward answers, the picked choice (store.verdicts)
    verdict: Mapped[str] = mapped_column(String(8), default="right", server_default="right")
    slip: Mapped[str | None] = mapped_column(String(200), nullable=True)
    carried: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    answer: Mapped[str | None] = mapped_column(Text, nullable=True)
    # revision 0013: the slips a right answer's question could have shown (comma-joined), the
    # evidence of misconceptions with ``slip``; ix_review_logs_traps (partial) is the
    # migration's alone, as its condition is written in SQL
    traps: Mapped[str | None] = mapped_column(String(400), nullable=True)
    # revision 0015: the verdict a regrade gave this answer, until its student is told once
    # (store.regrade); its partial index and ix_review_logs_unnamed are the migration's
    regraded: Mapped[str | None] = mapped_column(String(8), nullable=True)
    # revision 0017: a review a scenario's step gave this card (study.ladders), not an answer
    # to it: no stage of its own (state_before NULL) and skipped by the card-stats triggers
    implicit: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    # revision 0018: an answer imported from Anki, as Anki's FSRS reads its revlog entry:
    # {"type": 0-3, "factor": ease permille (0 in a cram answer), "ivl": days, or -seconds}
    anki: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)


class ScheduleChange(Base):
    """A change of a card's schedule that was no answer (revision 0018): Anki's Forget
    (kind 4, factor 0), Set due date (kind 4) and rescheduling (kind 5) revlog entries."""

    __tablename__ = "schedule_changes"
    __table_args__ = (
        UniqueConstraint("profile_id", "uid", name="uq_schedule_changes_profile_uid"),
        Index("ix_schedule_changes_card", "card_id", "changed_at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    profile_id: Mapped[int] = mapped_column(ForeignKey("profiles.id", ondelete="CASCADE"))
    card_id: Mapped[int] = mapped_column(ForeignKey("card_states.id", ondelete="CASCADE"))
    uid: Mapped[str] = mapped_column(String(64))
    changed_at: Mapped[datetime] = mapped_column(UTCDateTime())
    kind: Mapped[int] = mapped_column(Integer)
    factor: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    interval: Mapped[int] = mapped_column(Integer, default=0, server_default="0")


class ReviewHour(Base):
    """Reviews of one profile in one UTC hour (hours since 1970), kept by triggers (0006).

    The heat map's days are whole hours in every time zone with a whole-hour
    offset, so it sums a few thousand of these instead of counting every log.
    """

    __tablename__ = "review_hours"

    profile_id: Mapped[int] = mapped_column(ForeignKey("profiles.id", ondelete="CASCADE"),
                                            primary_key=True)
    hour: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    reviews: Mapped[int] = mapped_column(Integer, default=0, server_default="0")


class CardStat(Base):
    """One card's answers summed: kept by triggers on review_logs (revision 0006).

    Every insert and delete of a review log (an answer, its undo, an import)
    updates it in the same transaction, so ``stats`` reads one row per card
    instead of every log.
    """

    __tablename__ = "card_stats"
    __table_args__ = (Index("ix_card_stats_profile", "profile_id"),)

    card_id: Mapped[int] = mapped_column(ForeignKey("card_states.id", ondelete="CASCADE"),
                                         primary_key=True)
    profile_id: Mapped[int] = mapped_column(ForeignKey("profiles.id", ondelete="CASCADE"))
    reviews: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    correct: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    duration_ms: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    # answers given while the card was new (state_before 0), and the right ones among them
    first_answers: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    first_correct: Mapped[int] = mapped_column(Integer, default=0, server_default="0")


class DeckChoice(Base):
    """A learner's own on/off for one deck (decks without a row keep their default)."""

    __tablename__ = "deck_choices"
    __table_args__ = (UniqueConstraint("profile_id", "deck_id", name="uq_deck_choices"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    profile_id: Mapped[int] = mapped_column(ForeignKey("profiles.id", ondelete="CASCADE"))
    deck_id: Mapped[str] = mapped_column(String(200))
    enabled: Mapped[bool] = mapped_column(Boolean)
    changed_at: Mapped[datetime] = mapped_column(UTCDateTime())


class PostRead(Base):
    """When a learner first and last opened a post's summary."""

    __tablename__ = "post_reads"
    __table_args__ = (UniqueConstraint("profile_id", "post", name="uq_post_reads"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    profile_id: Mapped[int] = mapped_column(ForeignKey("profiles.id", ondelete="CASCADE"))
    post: Mapped[str] = mapped_column(String(64))
    first_read_at: Mapped[datetime] = mapped_column(UTCDateTime())
    last_read_at: Mapped[datetime] = mapped_column(UTCDateTime())
    times: Mapped[int] = mapped_column(Integer, default=1)


class HeldAnswer(Base):
    """A right answer graded and not yet rated: recorded as Good if the app dies first."""

    __tablename__ = "held_answers"
    __table_args__ = (Index("ix_held_answers_profile", "profile_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    profile_id: Mapped[int] = mapped_column(ForeignKey("profiles.id", ondelete="CASCADE"))
    answer: Mapped[dict[str, Any]] = mapped_column(JSON)
    held_at: Mapped[datetime] = mapped_column(UTCDateTime())


class PublishedDeck(Base):
    """A deck an instructor published into the database: every profile studies this copy.

    Revision 0008: ``studyapp deck publish FILE`` stores the validated file's
    text; a changed text is a new ``version``, and progress stays with the
    cards, by (deck, card id), as for an edited file.
    """

    __tablename__ = "published_decks"

    deck_id: Mapped[str] = mapped_column(String(200), primary_key=True)
    version: Mapped[int] = mapped_column(Integer)
    content: Mapped[str] = mapped_column(Text)
    published_at: Mapped[datetime] = mapped_column(UTCDateTime())


class PublishedDeckVersion(Base):
    """Every text a deck was ever published with, numbered (revision 0011).

    The primary key (deck, version) is what stops two instructors publishing
    at once from both getting the same number: the second insert fails and
    its publish is refused, naming the version that won.
    """

    __tablename__ = "published_deck_versions"

    deck_id: Mapped[str] = mapped_column(String(200), primary_key=True)
    version: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    content: Mapped[str] = mapped_column(Text)
    published_at: Mapped[datetime] = mapped_column(UTCDateTime())
    published_by: Mapped[str | None] = mapped_column(String(200), nullable=True)
    """The profile that published it (None for versions published before 0011)."""
    login: Mapped[str | None] = mapped_column(String(200), nullable=True)
    """The database login that published it (PostgreSQL's ``current_user``)."""
    cards: Mapped[int | None] = mapped_column(Integer, nullable=True)
