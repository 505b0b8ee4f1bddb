"""Export and import of one profile's progress (JSON or CSV), safe to repeat.

An export carries every card state and review log with its deck and card
ids, parameters and answers. Importing merges: review logs are keyed by
their ``uid`` (kept across export and import) and cards by (deck, card), so
importing the same file twice changes nothing, and a card keeps whichever
state was reviewed last. Rows are streamed out and inserted in batches.

An export is someone else's file: every record is checked against a schema
(``progress_format``, which reads a file) before anything is written, the
first bad one is reported by its place and field, and a file with a bad
record imports nothing. Review ids are matched within the target profile
only.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Iterator, Mapping
from datetime import UTC, datetime
from typing import IO, Any

from sqlalchemy import insert, select
from sqlalchemy.orm import Session

from studyapp.store.database import Store
from studyapp.store.export_format import (
    _JSON,
    CSV_FIELDS,
    FORMAT,
    MAX_IMPORT_BYTES,
    SECTIONS,
    VERSION,
    Export,
    ImportResult,
    LogRow,
    Replay,
    json_depth,
    read_export,
    validate_record,
)
from studyapp.store.history import card_logs
from studyapp.store.profiles import ProfileInfo
from studyapp.store.tables import CardState, PostRead, ReviewLog, ScheduleChange
from studyapp.store.verdicts import answer_marks
from studyapp.text import csv_cell

__all__ = [
    "MAX_IMPORT_BYTES", "Export", "ImportResult", "LogRow", "Replay", "import_progress",
    "iter_records", "json_depth", "read_export", "validate_record", "write_csv", "write_json",
]

BATCH = 5000


def _iso(value: datetime | None) -> str | None:
    return value.astimezone(UTC).isoformat() if value is not None else None


def _card_record(card: CardState) -> dict[str, Any]:
    return {"deck_id": card.deck_id, "card_key": card.card_key, "post": card.post,
            "family": card.family, "stage": card.state, "step": card.step,
            "stability": card.stability, "difficulty": card.difficulty, "due": _iso(card.due),
            "last_review": _iso(card.last_review), "reps": card.reps, "lapses": card.lapses,
            "suspended": card.suspended, "leech": card.leech,
            "created_at": _iso(card.created_at), "flag": card.flag}


def iter_records(store: Store, profile_id: int) -> Iterator[tuple[str, dict[str, Any]]]:
    """("card" | "review" | "change" | "read", record) for the profile, streamed from the
    database."""
    with store.sessions() as session:
        keys: dict[int, tuple[str, str, str]] = {}
        for card in session.scalars(select(CardState).where(CardState.profile_id == profile_id)
                                    .order_by(CardState.id)
                                    .execution_options(yield_per=BATCH)):
            keys[card.id] = (card.deck_id, card.card_key, card.post)
            yield "card", _card_record(card)
        columns = [ReviewLog.card_id, ReviewLog.uid, ReviewLog.reviewed_at, ReviewLog.rating,
                   ReviewLog.correct, ReviewLog.duration_ms, ReviewLog.state_before,
                   ReviewLog.seed, ReviewLog.lang, ReviewLog.params, ReviewLog.prompt,
                   ReviewLog.response, ReviewLog.expected, ReviewLog.previous,
                   ReviewLog.overridden, ReviewLog.looked_at_post, ReviewLog.anki,
                   ReviewLog.implicit]
        rows = session.execute(select(*columns).where(ReviewLog.profile_id == profile_id)
                               .order_by(ReviewLog.reviewed_at, ReviewLog.id)
                               .execution_options(yield_per=BATCH))
        for row in rows:
            deck_id, card_key, post = keys[row.card_id]
            yield "review", {
                "uid": row.uid, "deck_id": deck_id, "card_key": card_key, "post": post,
                "reviewed_at": _iso(row.reviewed_at), "rating": row.rating,
                "correct": row.correct, "duration_ms": row.duration_ms,
                "state_before": row.state_before, "seed": row.seed, "lang": row.lang,
                "params": row.params, "prompt": row.prompt, "response": row.response,
                "expected": row.expected, "previous": row.previous,
                "overridden": bool(row.overridden), "looked_at_post": bool(row.looked_at_post),
                "anki": row.anki, "implicit": bool(row.implicit)}
        for change in session.scalars(select(ScheduleChange)
                                      .where(ScheduleChange.profile_id == profile_id)
                                      .order_by(ScheduleChange.changed_at, ScheduleChange.id)):
            deck_id, card_key, _post = keys[change.card_id]
            yield "change", {"uid": change.uid, "deck_id": deck_id, "card_key": card_key,
                             "changed_at": _iso(change.changed_at), "kind": change.kind,
                             "factor": change.factor, "interval": change.interval}
        for read in session.scalars(select(PostRead).where(PostRead.profile_id == profile_id)
                                    .order_by(PostRead.post)):
            yield "read", {"post": read.post, "first_read_at": _iso(read.first_read_at),
                           "last_read_at": _iso(read.last_read_at), "times": read.times}


def write_json(store: Store, profile: ProfileInfo, out: IO[str], now: datetime) -> int:
    """Write the profile's progress as one JSON object; returns the records written."""
    header = {"format": FORMAT, "version": VERSION, "exported_at": _iso(now),
              "profile": profile.name, "settings": dict(profile.settings)}
    out.write(json.dumps(header, ensure_ascii=False)[:-1])
    order = ["card", "review", "change", "read"]
    names = SECTIONS
    section = -1
    first = True
    count = 0

    def open_until(index: int) -> None:
        nonlocal section, first
        while section < index:
            if section >= 0:
                out.write("\n]")
            section += 1
            out.write(f',\n"{names[order[section]]}": [\n')
            first = True

    for kind, record in iter_records(store, profile.id):
        open_until(order.index(kind))
        out.write(("" if first else ",\n") + json.dumps(record, ensure_ascii=False))
        first = False
        count += 1
    open_until(len(order) - 1)
    out.write("\n]}\n")
    return count


def write_csv(store: Store, profile: ProfileInfo, out: IO[str]) -> int:
    """Write the profile's progress as CSV, one row per card, review or post read.

    The ``record`` column says which; JSON-valued fields (params, previous)
    are JSON text; the profile name is in every row. Text is made visible and
    guarded against spreadsheet formulas (``csv_cell``).
    """
    writer = csv.DictWriter(out, fieldnames=("profile", *CSV_FIELDS), extrasaction="ignore")
    writer.writeheader()
    count = 0
    for kind, record in iter_records(store, profile.id):
        row: dict[str, Any] = {"profile": csv_cell(profile.name), "record": kind}
        for key, value in record.items():
            if key in _JSON:
                row[key] = "" if value is None else csv_cell(json.dumps(value,
                                                                        ensure_ascii=False))
            elif isinstance(value, bool):
                row[key] = int(value)
            else:
                row[key] = "" if value is None else csv_cell(value)
        writer.writerow(row)
        count += 1
    return count


def _chunks(items: list[Any], size: int = 500) -> Iterable[list[Any]]:
    for start in range(0, len(items), size):
        yield items[start:start + size]


def import_progress(store: Store, profile_id: int, export: Export,
                    replay: Replay | None = None) -> ImportResult:
    """Merge an export into one profile, in one transaction; repeating it changes nothing.

    With ``replay``, a card that gains answers here has its state rebuilt from
    all its answers in time order (FSRS over the union), so merging two copies
    of a profile leaves reps equal to the answers and a schedule that reflects
    every one of them; without it the newer copy's state wins.
    """
    added = updated = reviews_added = skipped = reads = 0
    with store.transaction() as session:
        cards = {(c.deck_id, c.card_key): c for c in session.scalars(
            select(CardState).where(CardState.profile_id == profile_id))}
        for record in export.cards:
            key = (record["deck_id"], record["card_key"])
            card = cards.get(key)
            if card is None:
                card = CardState(profile_id=profile_id, deck_id=key[0], card_key=key[1],
                                 created_at=record.get("created_at") or record["due"])
                session.add(card)
                cards[key] = card
                added += 1
            elif not _newer(record.get("last_review"), card.last_review):
                if record.get("leech"):  # a leech mark made since (Anki's tag) is kept
                    card.leech = True
                continue
            else:
                updated += 1
            card.post = record["post"]
            card.family = record.get("family")
            card.state = int(record["stage"])
            card.step = record.get("step")
            card.stability = record.get("stability")
            card.difficulty = record.get("difficulty")
            card.due = record["due"]
            card.last_review = record.get("last_review")
            card.reps = int(record.get("reps") or 0)
            card.lapses = int(record.get("lapses") or 0)
            card.suspended = bool(record.get("suspended"))
            card.leech = bool(record.get("leech"))
            card.flag = int(record.get("flag") or 0)
        session.flush()
        uids = [r["uid"] for r in export.reviews]
        known: set[str] = set()
        for chunk in _chunks(uids):
            known.update(session.scalars(select(ReviewLog.uid).where(
                ReviewLog.profile_id == profile_id, ReviewLog.uid.in_(chunk))))
        rows = []
        for record in export.reviews:
            card = cards.get((record["deck_id"], record["card_key"]))
            if record["uid"] in known or card is None:
                skipped += 1
                continue
            known.add(record["uid"])
            rows.append({
                "profile_id": profile_id, "card_id": card.id, "uid": record["uid"],
                "reviewed_at": record["reviewed_at"], "rating": int(record["rating"]),
                "correct": bool(record["correct"]), "duration_ms": record.get("duration_ms"),
                "state_before": record.get("state_before"), "seed": record.get("seed"),
                "lang": record.get("lang"), "params": record.get("params"),
                "prompt": record.get("prompt"), "response": record.get("response"),
                "expected": record.get("expected"), "previous": record.get("previous"),
                "overridden": bool(record.get("overridden")),
                "looked_at_post": bool(record.get("looked_at_post")),
                "anki": record.get("anki"), "implicit": bool(record.get("implicit")),
                **answer_marks(bool(record["correct"]), record.get("params"))})
        for chunk in _chunks(rows, BATCH):
            session.execute(insert(ReviewLog), chunk)
        reviews_added = len(rows)
        _add_schedule_changes(session, profile_id, cards, export.schedule_changes)
        replayed = 0
        if replay is not None and rows:
            replayed = _replay_cards(session, cards, {row["card_id"] for row in rows}, replay)
        existing = {r.post: r for r in session.scalars(
            select(PostRead).where(PostRead.profile_id == profile_id))}
        for record in export.post_reads:
            read = existing.get(record["post"])
            if read is None:
                session.add(PostRead(profile_id=profile_id, post=record["post"],
                                     first_read_at=record["first_read_at"],
                                     last_read_at=record["last_read_at"],
                                     times=int(record.get("times") or 1)))
                reads += 1
            elif _newer(record["last_read_at"], read.last_read_at):
                read.first_read_at = min(read.first_read_at, record["first_read_at"])
                read.last_read_at = record["last_read_at"]
                read.times = max(read.times, int(record.get("times") or 1))
                reads += 1
    return ImportResult(added, updated, reviews_added, skipped, reads, replayed)


def _add_schedule_changes(session: Session, profile_id: int,
                          cards: Mapping[tuple[str, str], CardState],
                          changes: list[dict[str, Any]]) -> None:
    """Store the changes of schedule not stored yet (by uid), of cards known here."""
    if not changes:
        return
    known: set[str] = set()
    uids = [c["uid"] for c in changes]
    for chunk in _chunks(uids):
        known.update(session.scalars(select(ScheduleChange.uid).where(
            ScheduleChange.profile_id == profile_id, ScheduleChange.uid.in_(chunk))))
    rows = []
    for record in changes:
        card = cards.get((record["deck_id"], record["card_key"]))
        if card is None or record["uid"] in known:
            continue
        known.add(record["uid"])
        rows.append({"profile_id": profile_id, "card_id": card.id, "uid": record["uid"],
                     "changed_at": record["changed_at"], "kind": int(record["kind"]),
                     "factor": int(record.get("factor") or 0),
                     "interval": int(record.get("interval") or 0)})
    for chunk in _chunks(rows, BATCH):
        session.execute(insert(ScheduleChange), chunk)


def _replay_cards(session: Session, cards: Mapping[tuple[str, str], CardState],
                  touched: set[int], replay: Replay) -> int:
    """Rebuild the state of each touched card from its whole log; how many changed.

    A card marked new again (reset in the card browser, stage 0) keeps that mark:
    the answers before a reset are history, not schedule. What counts as an answer
    is the replay's to say (FSRS leaves out cram answers and what a Forget cut); a
    scenario's wrong step (an implicit Again) is no answer: it moved its card sooner.
    """
    by_id = {card.id: card for card in cards.values() if card.id in touched and card.state}
    history: dict[int, list[LogRow]] = {card_id: [] for card_id in by_id}
    profiles = {card.profile_id for card in by_id.values()}
    for profile_id in profiles:
        for card_id, at, rating, stage, anki in card_logs(session, profile_id, by_id):
            history[card_id].append((at, rating, stage, anki))
    changed = 0
    for card_id, log in history.items():
        state = replay(card_id, log) if log else None
        if state is None:
            continue
        card = by_id[card_id]
        before = (card.reps, card.stability, card.due)
        card.state, card.step = state.stage, state.step
        card.stability, card.difficulty = state.stability, state.difficulty
        card.due, card.last_review = state.due, state.last_review
        card.reps, card.lapses, card.leech = state.reps, state.lapses, state.leech
        changed += int(before != (card.reps, card.stability, card.due))
    return changed


def _newer(candidate: datetime | None, current: datetime | None) -> bool:
    if candidate is None:
        return False
    return current is None or candidate > current
