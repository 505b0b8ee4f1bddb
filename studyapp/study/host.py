"""What a study session needs of its service, as a protocol (``StudyService`` is one).

A ``StudySession`` asks, grades and keeps its own queue; everything stored
(the cards' states, the review log, held answers, buried siblings) it
reaches through these named methods, so the session never imports the
service or the store.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from studyapp.decks import CardSpec
    from studyapp.questions.model import Question
    from studyapp.questions.scenario import PartVerdict
    from studyapp.srs.scheduler import Memory, Rating, SchedulerSettings
    from studyapp.study.ladders import Counted
    from studyapp.study.views import AnsweredCard, ComingBack, Overview

CardKey = tuple[str, str]
"""(deck id, card id)."""


class SessionHost(Protocol):
    """The clock, the cards and the learner's records, as one sitting uses them."""

    @property
    def learn_ahead(self) -> timedelta:
        """How early a learning card may be asked when nothing else waits."""
        ...

    def now(self) -> datetime: ...

    def credit_steps(self, deck_id: str, card_key: str, question: Question,
                     parts: Sequence[PartVerdict]) -> tuple[Counted, ...]:
        """A finished scenario's steps counted for the one-step cards they exercise."""
        ...

    def card(self, deck_id: str, card_key: str) -> CardSpec:
        """The card's spec (``NoSuchItem`` when no loaded deck has it)."""
        ...

    def card_failed(self, deck_id: str, card_key: str, failure: Exception) -> None:
        """A card whose question cannot be drawn: the sitting skips it (said once)."""
        ...

    def deck_title_of(self, deck_id: str, lang: str) -> str:
        """A deck's title (the header names it for a card of a deck with no post)."""
        ...

    def card_flags(self) -> dict[CardKey, int]:
        """The learner's flags (1–4) on the profile's cards; unflagged cards are absent."""
        ...

    def intervals(self, deck_id: str, card_key: str) -> dict[Rating, timedelta]:
        """The next interval each rating would give the card now."""
        ...

    def hold_answer(self, answer: AnsweredCard) -> int:
        """Keep a right answer until it is rated; the held copy's id."""
        ...

    def release_answer(self, held_id: int) -> None:
        """Forget a held answer that will not be recorded."""
        ...

    def record_answer(self, answer: AnsweredCard) -> tuple[int, Memory]:
        """Schedule and record one answer in one transaction: its log id and the new state."""
        ...

    def undo_answer(self, log_id: int) -> bool:
        """Take back a recorded answer: its log is removed and the card restored."""
        ...

    def siblings(self, deck_id: str, card_key: str) -> set[CardKey]:
        """Other cards sharing this card's fact."""
        ...

    def given_away(self, deck_id: str, texts: Iterable[str], lang: str) -> set[CardKey]:
        """Written cards of the deck whose expected answer these texts state."""
        ...

    def put_off_today(self, keys: set[CardKey]) -> None:
        """Keep these cards, answered or not, out of every queue until the next study day."""
        ...

    def bury_for_today(self, keys: set[CardKey]) -> None:
        """Keep these cards out of every queue until the next study day."""
        ...

    def unbury(self, keys: Iterable[CardKey]) -> None:
        """Bring buried cards back today."""
        ...

    def last_seed(self, deck_id: str, card_key: str) -> int | None:
        """The draw seed of the card's last recorded showing (a fact card shows it again)."""
        ...

    def due_times(self, keys: Iterable[CardKey]) -> list[datetime]:
        """The stored due times of these cards (suspended and never answered ones left out)."""
        ...

    def coming_back(self) -> ComingBack:
        """The profile's learning cards due within the hour, and the soonest."""
        ...

    def send_kept_answers(self, *, finishing: bool = False) -> None:
        """Answers kept on this machine while the server was away, sent if it is back."""
        ...

    def take_notices(self) -> list[str]:
        """One-line notices not said yet (the server away, kept answers sent), once."""
        ...

    @property
    def settings(self) -> SchedulerSettings:
        """The profile's scheduling settings, each deck's own options among them."""
        ...

    # what a face holding only the session reads (the plain loop)

    @property
    def read_only(self) -> str | None:
        """Why answers cannot be recorded (a read-only database), or None when they can."""
        ...

    def overview(self, lang: str | None = None, *, with_streak: bool = True) -> Overview:
        """Per-post counts and today's numbers."""
        ...
