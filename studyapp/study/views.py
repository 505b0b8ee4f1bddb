"""What the faces receive from a study service: plain frozen values, no storage types."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from studyapp import locations
from studyapp.srs.scheduler import CardStage, Rating

if TYPE_CHECKING:
    from studyapp.progress import LearnerStats
    from studyapp.questions.grading import Verdict
    from studyapp.questions.model import Question
    from studyapp.questions.scenario import PartVerdict

LEARNING_STAGES = (CardStage.LEARNING, CardStage.RELEARNING)
SOON = timedelta(hours=1)
""""Comes back soon": learning cards due within this time are counted by name."""


def utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class StudyConfig:
    """Where progress lives, whose it is, and the language to study in."""

    db_url: str | None = None
    profile: str = "default"
    lang: str = "en"
    clock: Callable[[], datetime] = utc_now
    stopwatch: Callable[[], float] = time.monotonic
    """Seconds on a clock that only goes forward: how long an answer took (a still one in
    tests, so the time studied does not depend on how busy the machine is)."""
    extra_decks: tuple[Path, ...] = ()

    @property
    def url(self) -> str:
        return self.db_url or locations.default_db_url()


class SessionKind(StrEnum):
    POST = "post"  # one post's new and due cards
    DUE = "due"  # everything due and today's new cards, interleaved across posts
    REVIEW = "review"  # due reviews and learning cards only: new cards wait for a study session
    DECK = "deck"  # one deck
    PRACTICE = "practice"  # cram: nothing is rescheduled


@dataclass(frozen=True)
class SessionMix:
    """What a session holds: new and due cards, generated (numbers drawn) and authored."""

    new_generated: int
    new_authored: int
    due_generated: int
    due_authored: int

    @property
    def new(self) -> int:
        return self.new_generated + self.new_authored

    @property
    def due(self) -> int:
        return self.due_generated + self.due_authored


@dataclass(frozen=True, kw_only=True)
class HomeCounts:
    """The counts a line of the home screen shows, for a post or a course deck."""

    total: int
    new: int
    learning: int
    review: int
    due: int
    read: bool
    held: int = 0
    """New cards that wait for another day: each tests a fact answered today (siblings)."""
    waiting: int = 0
    """New cards a session over it does not ask now: a scenario before the learner has seen
    the families it chains (``study.ladders.waits_for``), a card its post has not taught
    yet, a second card of a fact or generator family the session asks already."""

    @property
    def seen(self) -> int:
        return self.total - self.new

    @property
    def offered(self) -> int:
        """The new cards a session would ask (limits aside): none held or waiting."""
        return self.new - self.held - self.waiting


@dataclass(frozen=True)
class PostProgress(HomeCounts):
    """One post's line on the home screen."""

    slug: str
    title: str
    section: str
    order: int
    tagline: str


@dataclass(frozen=True)
class ComingBack:
    """Learning cards waiting, from their stored due times (every screen says the same)."""

    within_hour: int
    next_due: datetime | None
    now: datetime

    @property
    def next_in(self) -> timedelta | None:
        if self.next_due is None:
            return None
        return max(timedelta(0), self.next_due - self.now)


@dataclass(frozen=True)
class CourseProgress(HomeCounts):
    """A course deck's line on the home screen (a deck of its own, with no post)."""

    deck_id: str
    title: str
    course: str
    """The course it is listed under (its ``course:``, else its title)."""
    tagline: str
    """The summary's first line of text, for the preview under the list."""


@dataclass(frozen=True)
class CourseView:
    """What the course screen shows before a deck's first session: its summary."""

    deck_id: str
    title: str
    course: str
    summary: str
    """Markdown, as the instructor wrote it (rendered, never read as markup)."""


@dataclass(frozen=True)
class Overview:
    """Today's numbers at a glance."""

    posts: tuple[PostProgress, ...]
    due_today: int
    new_left: int
    reviews_done_today: int
    """Every answer given today (the figure "reviewed today" on every screen)."""
    new_done_today: int
    streak: int = 0  # consecutive study days with reviews, up to today
    new_waiting: int = 0
    """Unseen cards of the enabled decks (limits aside)."""
    coming_back: ComingBack | None = None
    courses: tuple[CourseProgress, ...] = ()
    """The enabled decks that name no post, listed under their course."""
    deck_totals: tuple[tuple[str, str, int, str], ...] = ()
    """Every studied deck: (id, title, cards, kind), mastery's denominator per deck."""

    @property
    def new_limit_reached(self) -> bool:
        """Today's new cards are done while more wait: offer more, or practice."""
        return self.new_left == 0 and self.new_waiting > 0


@dataclass(frozen=True)
class DeckChoiceInfo:
    """One deck as a learner switches it on or off."""

    deck_id: str
    title: str
    kind: str  # post | example | installed | file
    cards: int
    enabled: bool


@dataclass(frozen=True)
class Presented:
    """A question as shown: which card, which instance, where in the session."""

    number: int  # 1-based: how many of the planned cards were reached
    total: int  # distinct cards planned for the session; never grows
    deck_id: str
    card_key: str
    question: Question
    stage: CardStage
    returning: bool = False  # a learning card asked again, not one of the planned
    learning: int = 0
    """Returning learning cards due within the learn-ahead limit, this one included."""
    early_by: timedelta | None = None
    """A learning card shown before its due time (learn-ahead): how long until it was due."""
    flag: int = 0
    """The learner's flag on the card (0 none, 1–4)."""
    place: str = ""
    """Where the card belongs, for the header: its post's slug, or the title of the course
    deck (a deck with no post) it comes from."""
    practice: bool = False
    """Drawn again with fresh numbers after a miss ("another"): practice, never recorded."""


@dataclass(frozen=True)
class Outcome:
    """What happened after an answer was submitted."""

    verdict: Verdict
    recorded: bool  # a wrong answer is recorded at once as Again
    needs_rating: bool  # a right answer waits for Hard/Good/Easy
    intervals: dict[Rating, timedelta] = field(default_factory=dict)
    max_rating: Rating = Rating.EASY
    """The best rating offered: Hard once the post was opened during the question."""
    capped_by_step: bool = False
    """Hard is the best rating because a scenario step went wrong (not the post opened)."""
    capped_by_method: bool = False
    """Hard is the best rating because a scenario step's method was shown (``?``)."""
    can_overrule: bool = False
    """A wrong verdict the learner may overrule ("I was right")."""
    part: PartVerdict | None = None
    """A scenario's step just graded (``verdict`` is that step's until the last one,
    then the whole scenario's)."""
    parts_left: int = 0
    """Steps of the scenario still to answer after this one (0: the scenario is done)."""
    counted: str = ""
    """The one-step cards a finished scenario's steps counted for, as one line ("Counted
    for: KV cache per token (next in 12d)"; ``study.ladders``), or ""."""


class Advance(NamedTuple):
    """The next question after an intent (a rating, an undo), with the session's counts."""

    presented: Presented | None  # None: the session is over
    can_undo: bool
    answered: int
    correct: int
    notices: tuple[str, ...] = ()  # one line each (the server away, kept answers sent)


class Response(NamedTuple):
    """What a submitted answer did, and whether it can now be taken back."""

    outcome: Outcome
    can_undo: bool
    notices: tuple[str, ...] = ()  # one line each (the server away, kept answers sent)


@dataclass(frozen=True)
class AnsweredCard:
    """One answer as a session hands it to its service to record (or to hold)."""

    deck_id: str
    card_key: str
    question: Question
    rating: Rating
    correct: bool
    reviewed_at: datetime
    response: str | None
    expected: str | None
    duration_ms: int | None
    params: Any
    """As logged: plain JSON, with the choices in the order shown and a scenario's steps."""
    lang: str
    overridden: bool = False  # graded wrong, then "I was right"
    looked_at_post: bool = False  # the post was open while answering
    held_id: int | None = None  # its held copy, removed when the answer is recorded


@dataclass(frozen=True)
class SessionTally:
    """What the summary screen shows once the session ends."""

    answered: int
    correct: int
    elapsed: timedelta
    comes_back: tuple[timedelta, ...]
    """How long until each card answered in the session is due (stored due times)."""
    practice: bool
    coming_back: str | None = None
    """"3 cards within the hour, next in 9 min": all the profile's cards, in the same
    words as home and stats (not only this session's)."""
    time_studied_ms: int = 0
    """Time spent answering, summed as progress and ``stats`` sum it."""
    notices: tuple[str, ...] = ()
    """Kept answers sent at the end, or still kept on this machine: one line each."""
    misconceptions: tuple[tuple[str, int, int], ...] = ()
    """(misconception, slips, cards) this sitting's answers slipped into, most first."""


class PostOffer(NamedTuple):
    """What the post screen offers beside the summary."""

    limit_reached: bool
    """Today's new cards are done while this post has new cards waiting."""
    held: int
    """New cards of the post waiting for another day (a sibling was answered today)."""
    mix: SessionMix | None
    """What the post's next session holds (None: no such post in the overview)."""


@dataclass(frozen=True)
class DeckRow:
    """One deck file as the decks screen shows it."""

    deck_id: str
    title: str
    cards: int
    source: str
    path: str
    post: str
    problems: tuple[str, ...]
    enabled: bool = False
    kind: str = ""
    skipped: tuple[str, ...] = ()
    """Draws that failed at study time and were skipped (see ``decks.draw_log``)."""

    @property
    def ok(self) -> bool:
        return not self.problems


@dataclass(frozen=True)
class PostCard:
    """A card of the post and the learner's state on it (stage 0: never answered)."""

    deck_id: str
    card_key: str
    kind: str
    stage: int
    due: datetime | None
    stability: float | None
    lapses: int
    reps: int
    suspended: bool
    leech: bool

    @property
    def stored(self) -> bool:
        return self.stage != 0


@dataclass(frozen=True)
class PostCards:
    """A post's cards in every deck that loads, as the post's cards screen lists them."""

    now: datetime
    cards: tuple[PostCard, ...]


@dataclass(frozen=True)
class ProgressView:
    """The progress screen's data: the learner's stats and which listed cards are suspended."""

    stats: LearnerStats
    suspended: frozenset[tuple[str, str]]


SCENARIO_PARTS = "parts"
"""Key in a review log's params: a scenario's steps, each with its answer, verdict and slips."""

SCENARIO_OUTCOME = "steps_outcome"
"""Key in a finished scenario's params: what its steps said (``pass``, ``hard``, ``again``),
the wrong steps and the one-step families they compute as, to bring back sooner."""

SHOWN_CHOICES = "shown_choices"
"""Key in a review log's params: the choices in the order the learner saw them."""

ANSWER_TRAPS = "answer_traps"
"""Key in a review log's params: the slips a right answer's question (a scenario's right steps)
could have shown: evidence against the misconceptions behind them (``store.verdicts``)."""

ANSWER_SLIPS = "answer_slips"
"""Key in a wrong answer's params: the named slips it showed (an authored slip's name, a
generator family's slip key, or for a choice card the picked choice that has feedback)."""

PICKED_CHOICE = "picked_choice"
"""Key in a wrong choice answer's params: the text of the choice picked (its number changes
with every shuffle, so the class report counts the text)."""


class NoSuchItem(LookupError):
    """An unknown post, deck or card asked for by the user."""
