"""Held answers an app left behind (it was killed), recorded before anyone reads progress.

A right answer waiting for its rating, or the steps of a scenario with a
wrong one, is held in the store (``studyapp.store.held``) until the app
records it. An app killed with SIGKILL (or a machine that lost power) never
does: whoever reads that profile's progress next records it first, with the
profile's own scheduler, as the app would have (the rating Enter gives, or
Again for the scenario). So ``stats``, the progress screen and the class
report count it at once, not only after the learner's next session.
"""

from __future__ import annotations

import zlib
from datetime import datetime
from typing import TYPE_CHECKING

from studyapp.srs.deck_options import DeckSchedulers
from studyapp.srs.scheduler import CardStage, Memory, Rating, Scheduler, SchedulerSettings

if TYPE_CHECKING:
    from studyapp.store import Store
    from studyapp.store.progress import CardRow, NewState, StateFor


def memory_of(row: CardRow | None, card_id: int = 0) -> Memory:
    """The scheduler's view of a stored card (a new card when there is none)."""
    if row is None:
        return Memory(card_id=card_id or 1)
    return Memory(card_id=row.id, stage=CardStage(row.stage), step=row.step,
                  stability=row.stability, difficulty=row.difficulty, due=row.due,
                  last_review=row.last_review, reps=row.reps, lapses=row.lapses)


def new_card_id(deck_id: str, card_key: str) -> int:
    """A card never answered has no row id yet: this stands in for it, the same for the
    same card, so its fuzz (seeded from the id) differs from its batch-mates'."""
    return zlib.crc32(f"{deck_id}\x1f{card_key}".encode()) or 1


def reviewed_state(scheduler: Scheduler, rating: Rating, at: datetime,
                   reviewed: list[Memory], new_id: int = 0) -> StateFor:
    """The new state of a card rated ``rating`` at ``at``, computed inside the write
    transaction from the card as stored then (kept in ``reviewed`` too); ``new_id``
    stands in for the id of a card never answered (``new_card_id``)."""
    from studyapp.store.progress import NewState  # SQLAlchemy: on first use

    def state_for(row: CardRow | None) -> NewState:
        after = scheduler.review(memory_of(row, new_id), rating, at)
        reviewed[:] = [after]
        return NewState(int(after.stage), after.step, after.stability, after.difficulty,
                        after.due or at, after.last_review or at, after.reps,
                        after.lapses, scheduler.is_leech(after))

    return state_for


def record_abandoned(store: Store, profile_id: int, scheduler: Scheduler,
                     now: datetime) -> list[str]:
    """Record the answers this profile's gone apps held; their prompts, oldest first (each
    card with its deck's options, over ``scheduler``'s settings)."""
    from studyapp.store.held import abandoned_answers  # SQLAlchemy: on first use
    from studyapp.store.progress import record_answer

    recorded = []
    per_deck = DeckSchedulers(scheduler.settings, scheduler.zone)
    for answer in abandoned_answers(store, profile_id, now):
        state_for = reviewed_state(per_deck(answer.deck_id), Rating(answer.rating),
                                   answer.reviewed_at, [],
                                   new_card_id(answer.deck_id, answer.card_key))
        record_answer(store, profile_id, answer, state_for, maybe_recorded=True)
        recorded.append(answer.prompt or f"{answer.deck_id}/{answer.card_key}")
    return recorded


def record_abandoned_in(store: Store, now: datetime) -> None:
    """The same for every profile of ``store`` that has held answers, each with its own
    scheduler settings: what the class report does before it reads.

    A reader that may not write (a read-only file, a role without the right)
    reads what is stored: the student's next opening records them.
    """
    from studyapp.store import DatabaseFailure, StoreError
    from studyapp.store.classroom import profile_settings
    from studyapp.store.held import holding_profiles

    if store.read_only:
        return
    try:
        holding = holding_profiles(store)
        settings = profile_settings(store) if holding else {}
    except DatabaseFailure:
        return
    for profile_id in sorted(holding):
        try:
            scheduler = Scheduler(SchedulerSettings.from_dict(settings.get(profile_id, {})))
        except (TypeError, ValueError):  # settings the study service would refuse too
            continue
        try:
            record_abandoned(store, profile_id, scheduler, now)
        except (DatabaseFailure, StoreError):
            return


__all__ = ["memory_of", "new_card_id", "record_abandoned", "record_abandoned_in",
           "reviewed_state"]
