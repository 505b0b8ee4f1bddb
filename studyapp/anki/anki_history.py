"""Anki's review log and FSRS memory states as a studyapp progress import.

Every Anki card that became a studyapp card keeps its schedule: its stage
(learning, review, relearning), its FSRS stability and difficulty (from the
card's ``data``, as Anki 23.10+ stores them), its last review, its due time
and its counts; suspended cards stay suspended and flags stay flags. A
review card is due at the start of the Anki day it was due on (the day of
``col.crt`` plus that many calendar days, starting at the rollover hour in
the learner's time zone, as Anki counts days: a clock change in between moves
no card to the day before), a learning card at the second Anki had. Cards Anki
scheduled with SM-2, without a memory state, get the one Anki gives them when
FSRS is turned on: worked out from their review log (``studyapp.srs.revlog``),
from an SM-2 starting state where the log is incomplete; their due stays.
Every review becomes an answer with the uid ``anki-<revlog id>``, so importing
the same package again adds nothing; it keeps its revlog kind, ease factor and
interval (``anki``), and the entries that were no answer (Forget, Set due
date, rescheduling) become schedule changes, so nothing of the log is lost
and memory states skip what Anki's skip.
"""

from __future__ import annotations

import json
import tempfile
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import astuple
from datetime import UTC, datetime, timedelta, timezone, tzinfo
from pathlib import Path
from typing import TYPE_CHECKING, Any

from studyapp.anki.anki_cards import Conversion
from studyapp.anki.anki_collection import AnkiCard, AnkiCollection, NoteType
from studyapp.anki.apkg_notes import CARDS_NOTE_TYPE
from studyapp.srs.calendar import day_start, local_zone, study_day
from studyapp.srs.revlog import Entry, EntryKind, replay, sm2_starting_state
from studyapp.srs.scheduler import DEFAULT_PARAMETERS, Scheduler, SchedulerSettings
from studyapp.store.history import answer_moments
from studyapp.store.progress_files import Export, ImportResult, Replay, validate_record

if TYPE_CHECKING:
    from studyapp.store.database import Store

_EPOCH_SECONDS = 1_000_000_000
"""A due above this is a time in seconds (learning), below a day number (review)."""

_STAGE = {1: 1, 2: 2, 3: 3}  # Anki card type → studyapp stage (learning, review, relearning)
_REVLOG_STATE = {0: 1, 1: 2, 2: 3, 3: 2}  # revlog type → the stage answered in
_CHANGES = (EntryKind.MANUAL, EntryKind.RESCHEDULED)  # revlog types that are no answer


def card_key(model: NoteType, note_id: int, ordinal: int, mapped: bool = False) -> str | None:
    """The studyapp card id ``deck from-anki`` gives the card of ``ordinal`` in a note."""
    if model.name.startswith("studyapp draws"):
        return f"note-{note_id}-{ordinal + 1}"
    if model.name.startswith("studyapp "):
        return f"note-{note_id}" if ordinal == 0 else None
    if model.cloze and not mapped:
        return f"note-{note_id}-c{ordinal + 1}"
    if mapped and ordinal:
        return None
    return f"note-{note_id}-{ordinal + 1}"


def _moment(seconds: float) -> datetime:
    return datetime.fromtimestamp(seconds, UTC)


def anki_due(card: AnkiCard, created: int, rollover_hour: int = 4,
             zone: tzinfo | None = None, creation_offset: object = None) -> datetime:
    """When Anki shows the card next (the original deck's due for a filtered-deck card).

    A day number counts calendar days from the collection's first day (``crt``
    falls on its rollover hour, local time), so it is the start of that day
    here, not ``crt`` plus so many times 24 hours: across a change to or from
    summer time those differ by an hour, enough to put a card in the day before.
    ``crt``'s day is the one of the zone the collection was made in (its
    ``creationOffset``, minutes west of UTC) when the package says it: in a zone
    hours away from it, ``crt`` can fall on another date.
    """

    due = card.original_due if card.original_deck else card.due
    if due > _EPOCH_SECONDS:
        return _moment(due)
    zone = zone or local_zone()
    first_day = _moment(created).astimezone(_made_in(creation_offset) or zone).date()
    return day_start(first_day + timedelta(days=due), rollover_hour, zone)


def _made_in(offset: object) -> tzinfo | None:
    """The zone of Anki's ``creationOffset`` (minutes west of UTC; JSON bytes in schema 18)."""
    try:
        minutes = json.loads(offset) if isinstance(offset, bytes | str) else offset
    except ValueError:
        return None
    if isinstance(minutes, int) and not isinstance(minutes, bool) and abs(minutes) <= 24 * 60:
        return timezone(timedelta(minutes=-minutes))
    return None


def _memory(card: AnkiCard) -> dict[str, Any]:
    try:
        data = json.loads(card.data or "{}")
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def _step(card: AnkiCard, stage: int) -> int | None:
    """The learning step a card is on, counted as studyapp's default steps count them."""
    if stage not in (1, 3):
        return None

    defaults = SchedulerSettings()
    steps = len(defaults.learning_steps_s if stage == 1 else defaults.relearning_steps_s)
    return max(0, min(steps - 1, steps - card.left % 1000))


def _answers(logs: list[Any], deck_id: str, key: str, post: str,
             limit: datetime) -> list[dict[str, Any]]:
    """One Anki card's review log as studyapp answers (uid ``anki-<revlog id>``)."""
    answers = []
    first = True
    for review in logs:
        if review.ease not in (1, 2, 3, 4) or review.type not in _REVLOG_STATE:
            # manual reschedules and "set due date" are no answers; "reset to new" (a
            # manual entry with no interval) makes the next answer a new card's again
            first = first or (review.type == EntryKind.MANUAL and review.interval == 0)
            continue
        answered = _moment(review.id / 1000)
        if answered > limit:
            continue
        answers.append(validate_record("review", {
            "uid": f"anki-{review.id}", "deck_id": deck_id, "card_key": key,
            "post": post, "reviewed_at": answered,
            "rating": review.ease, "correct": review.ease > 1,
            "duration_ms": max(0, review.time_ms),
            "state_before": 0 if first and review.type == 0 else _REVLOG_STATE[review.type],
            "anki": {"type": review.type, "factor": review.factor, "ivl": review.interval},
        }, f"Anki review {review.id}"))
        first = False
    return answers


def _changes(logs: list[Any], deck_id: str, key: str,
             limit: datetime) -> list[dict[str, Any]]:
    """One Anki card's Forget, Set due date and rescheduling entries, as schedule changes."""
    return [validate_record("change", {
        "uid": f"anki-{review.id}", "deck_id": deck_id, "card_key": key,
        "changed_at": _moment(review.id / 1000), "kind": review.type,
        "factor": review.factor, "interval": review.interval}, f"Anki review {review.id}")
        for review in logs if review.type in _CHANGES and _moment(review.id / 1000) <= limit]


def revlog_entries(logs: list[Any]) -> list[Entry]:
    """An Anki card's review log as the entries FSRS reads (``studyapp.srs.revlog``)."""
    return [Entry(_moment(review.id / 1000), review.ease if 1 <= review.ease <= 4 else 0,
                  EntryKind(review.type), review.factor, review.interval)
            for review in sorted(logs, key=lambda r: r.id) if 0 <= review.type <= 5]


def sm2_memory(card: AnkiCard, logs: list[Any], scheduler: Scheduler
               ) -> tuple[float, float] | None:
    """(stability, difficulty) Anki gives a card it scheduled with SM-2 when FSRS is
    turned on: from its review log, else from its ease and interval (memory_state.rs)."""
    memory = replay(scheduler, card.id, revlog_entries(logs))
    if memory is not None and memory.stability is not None and memory.difficulty is not None:
        return memory.stability, memory.difficulty
    if card.interval <= 0:
        return None
    first = Entry(_moment(0), 3, EntryKind.REVIEW, card.factor, card.interval)
    return sm2_starting_state(first, scheduler.settings.parameters)


def history_export(collection: AnkiCollection, decks: Mapping[str, str],
                   posts: Mapping[str, str], mapped: frozenset[int] = frozenset(),
                   now: datetime | None = None, rollover_hour: int = 4,
                   zone: tzinfo | None = None,
                   returning: Mapping[int, tuple[str, str, str]] | None = None,
                   parameters: tuple[float, ...] = DEFAULT_PARAMETERS) -> Export:
    """Card states and answers for every card of the conversion (``decks``: card → deck id).

    ``parameters`` are the profile's FSRS parameters: the memory state of a card
    Anki scheduled with SM-2 is worked out with them.

    ``returning`` (Anki note id → deck, card, post) are notes studyapp exported
    from cards installed here: their answers go back to those cards. The draws
    of a generated card are one card here; it takes the schedule of the draw
    answered last, and the answers of all.
    """
    models = {m.id: m for m in collection.note_types}
    note_models = {n.id: n.model_id for n in collection.notes}
    leeches = {n.id for n in collection.notes if "leech" in (t.casefold() for t in n.tags)}
    keys: dict[int, tuple[str, str, str]] = {}  # Anki card id → (deck id, card key, post)
    for card in collection.cards:
        if returning and card.note_id in returning:
            home, first, post = returning[card.note_id]
            model = models.get(note_models.get(card.note_id, -1))
            if model is not None and model.name == CARDS_NOTE_TYPE:  # each card at its ordinal
                first = f"{first.rpartition('-')[0]}-{card.ordinal + 1}"
            keys[card.id] = (home, first, post)
            continue
        model = models.get(note_models.get(card.note_id, -1))
        if model is None:
            continue
        key = card_key(model, card.note_id, card.ordinal, model.id in mapped)
        if key is not None and key in decks:
            keys[card.id] = (decks[key], key, posts.get(key, "intro"))
    reviews_by_card: dict[int, list[Any]] = defaultdict(list)
    for review in collection.reviews:
        if review.card_id in keys:
            reviews_by_card[review.card_id].append(review)

    def last_seen(card: AnkiCard) -> float:
        last = _memory(card).get("lrt")
        logs = reviews_by_card.get(card.id)
        return float(last) if isinstance(last, int | float) else (
            logs[-1].id / 1000 if logs else 0.0)

    shown: dict[tuple[str, str], AnkiCard] = {}  # one Anki card per studyapp card
    for card in collection.cards:
        if card.id in keys:
            deck_id, key, _ = keys[card.id]
            other = shown.get((deck_id, key))
            if other is None or last_seen(card) > last_seen(other):
                shown[deck_id, key] = card
    export = Export()
    limit = (now or datetime.now(UTC)) + timedelta(hours=12)
    scheduler = Scheduler(SchedulerSettings(parameters=parameters,
                                            day_rollover_hour=rollover_hour), zone=zone)
    for card in collection.cards:
        if card.id not in keys:
            continue
        deck_id, key, post = keys[card.id]
        logs = reviews_by_card.get(card.id, [])
        if shown[deck_id, key] is not card:  # another draw of the card: its answers only
            export.reviews += _answers(logs, deck_id, key, post, limit)
            export.schedule_changes += _changes(logs, deck_id, key, limit)
            continue
        memory = _memory(card)
        last = memory.get("lrt")
        last_review = _moment(float(last)) if isinstance(last, int | float) else (
            _moment(logs[-1].id / 1000) if logs else None)
        suspended = card.queue == -1
        flag = card.flags & 0b111
        stage = _STAGE.get(card.type)
        if stage is None:  # new in Anki: kept if suspended, flagged or reset with reviews
            if not (suspended or flag or logs):
                continue
            record: dict[str, Any] = {"stage": 0, "due": anki_due(card, collection.created,
                                                                  rollover_hour, zone,
                                                                  collection.creation_offset)
                                      if card.due > _EPOCH_SECONDS else _moment(collection.created)}
        else:
            stability = memory.get("s")
            difficulty = memory.get("d")
            if not isinstance(stability, int | float) or stability <= 0 \
                    or not isinstance(difficulty, int | float):
                stability, difficulty = sm2_memory(card, logs, scheduler) or (None, None)
            record = {"stage": stage, "due": anki_due(card, collection.created, rollover_hour,
                                                      zone, collection.creation_offset),
                      "stability": stability,
                      "difficulty": min(10.0, max(1.0, float(difficulty)))
                      if difficulty is not None else None,
                      "step": _step(card, stage)}
        if last_review is not None and last_review > limit:
            last_review = None
        record.update({"deck_id": deck_id, "card_key": key, "post": post,
                       "last_review": last_review, "reps": card.reps, "lapses": card.lapses,
                       "suspended": suspended, "flag": flag,
                       "leech": card.note_id in leeches,  # the tag Anki adds to a leech
                       "created_at": min(_moment(card.note_id / 1000), limit)})
        export.cards.append(validate_record("card", record, f"Anki card {card.id}"))
        export.reviews += _answers(logs, deck_id, key, post, limit)
        export.schedule_changes += _changes(logs, deck_id, key, limit)
    return export


def installed_cards() -> dict[str, dict[str, str]]:
    """Deck id → card id → post of every deck here (built-in and installed), for
    ``convert_package(installed=...)``."""
    from studyapp.decks.library import discover_decks

    return {listing.deck.id: {card.id: card.post for card in listing.deck.cards}
            for listing in discover_decks() if listing.deck is not None}


def install_conversion(conversion: Conversion, *, replace: bool = False
                       ) -> list[tuple[str, int, Path]]:
    """Install every deck of a conversion into the user's deck folder, images beside it."""
    from studyapp.anki.from_anki import copy_images, deck_yaml
    from studyapp.decks import install_deck

    installed = []
    with tempfile.TemporaryDirectory(prefix="studyapp-anki-") as folder:
        for deck in conversion.decks:
            source = Path(folder) / f"{deck['deck']}.yaml"
            source.write_text(deck_yaml(deck), encoding="utf-8")
            copy_images(conversion, deck["deck"], source.with_name(f"{source.stem}.media"))
            target = install_deck(source, replace=replace)  # the images go along
            installed.append((str(deck["deck"]), len(deck["cards"]), target))
    return installed


def import_history(conversion: Conversion, store: Store, profile_id: int,
                   now: datetime | None = None, rollover_hour: int = 4,
                   zone: tzinfo | None = None, replay: Replay | None = None,
                   parameters: tuple[float, ...] = DEFAULT_PARAMETERS) -> ImportResult:
    """Merge the package's review log and memory states into one profile (whose study day
    rolls over at ``rollover_hour`` in ``zone``, the learner's by default).

    Cards studyapp exported from decks here (``conversion.returning``) started
    afresh in Anki, so Anki's schedule for them knows only Anki's answers: with
    ``replay`` their state is rebuilt from all their answers, here and in Anki.
    """
    from studyapp.store.progress_files import import_progress

    assert conversion.collection is not None
    export = history_export(conversion.collection, conversion.card_decks, conversion.card_posts,
                            conversion.mapped, now, rollover_hour, zone, conversion.returning,
                            parameters)
    if replay is None or not conversion.returning:
        return import_progress(store, profile_id, export)
    back = {(deck, card) for deck, card, _ in conversion.returning.values()}
    export.reviews = _not_known(store, profile_id, back, export.reviews, rollover_hour, zone)

    def part(returning: bool) -> Export:
        return Export(cards=[c for c in export.cards
                             if ((c["deck_id"], c["card_key"]) in back) == returning],
                      reviews=[r for r in export.reviews
                               if ((r["deck_id"], r["card_key"]) in back) == returning],
                      schedule_changes=[c for c in export.schedule_changes
                                        if ((c["deck_id"], c["card_key"]) in back)
                                        == returning])

    first = import_progress(store, profile_id, part(False))
    second = import_progress(store, profile_id, part(True), replay)
    return ImportResult(*(a + b for a, b in zip(astuple(first), astuple(second), strict=True)))


def _millis(moment: datetime) -> int:
    return int((moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp() * 1000)


def _not_known(store: Store, profile_id: int, back: set[tuple[str, str]],
               reviews: list[dict[str, Any]], rollover_hour: int = 4,
               zone: tzinfo | None = None) -> list[dict[str, Any]]:
    """The answers of cards exported from here that are not already here, each read as an
    answer to the one card here.

    ``export --with-history`` writes a card's answers into the package as
    revlog rows, each with its time in milliseconds as id; coming back, such a
    row is the answer given here at that moment, not a second one. A draw of a
    generated card that Anki showed as new logs its first answers as learning;
    on a card answered here (or in another draw) on an earlier day they are
    reviews of that card, else a recomputation would start its memory over
    there, as Anki does for a card relearnt from new.
    """
    known = {card: {_millis(at) for at in moments}
             for card, moments in answer_moments(store, profile_id, back).items()}
    kept = []
    for review in reviews:
        moments = known.get((review["deck_id"], review["card_key"]), set())
        millis = _millis(review["reviewed_at"])
        if not moments & {millis - 1, millis, millis + 1}:
            kept.append(review)
    first: dict[tuple[str, str], int] = {card: min(moments) for card, moments in known.items()}
    for review in reviews:
        card = (review["deck_id"], review["card_key"])
        first[card] = min(first.get(card, _millis(review["reviewed_at"])),
                          _millis(review["reviewed_at"]))

    def day(millis: int) -> Any:
        return study_day(_moment(millis / 1000), rollover_hour, zone)

    for review in kept:
        anki = review.get("anki")
        card = (review["deck_id"], review["card_key"])
        if anki and anki["type"] == EntryKind.LEARNING and card in first \
                and day(_millis(review["reviewed_at"])) > day(first[card]):
            review["anki"] = {**anki, "type": int(EntryKind.REVIEW)}
            review["state_before"] = 2
    return kept
