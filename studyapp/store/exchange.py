"""Export and import of one profile's progress (JSON or CSV), safe to repeat.

An export carries every card state and review log with its deck and card
ids, parameters and answers. Importing merges: review logs are keyed by
their ``uid`` (kept across export and import) and cards by (deck, card), so
importing the same file twice changes nothing, and a card keeps whichever
state was reviewed last. Rows are streamed out and inserted in batches.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from sqlalchemy import insert, select

from studyapp.store.database import Store, StoreError
from studyapp.store.models import CardState, PostRead, ReviewLog
from studyapp.store.progress import ProfileInfo

FORMAT = "studyapp-progress"
VERSION = 1
BATCH = 5000

CARD_FIELDS = ("deck_id", "card_key", "post", "family", "stage", "step", "stability",
               "difficulty", "due", "last_review", "reps", "lapses", "suspended", "leech",
               "created_at")
REVIEW_FIELDS = ("uid", "deck_id", "card_key", "post", "reviewed_at", "rating", "correct",
                 "duration_ms", "state_before", "seed", "lang", "params", "prompt", "response",
                 "expected", "previous")
READ_FIELDS = ("post", "first_read_at", "last_read_at", "times")
CSV_FIELDS = ("record", *dict.fromkeys(CARD_FIELDS + REVIEW_FIELDS + READ_FIELDS))
_TIMES = {"due", "last_review", "created_at", "reviewed_at", "first_read_at", "last_read_at"}
_INTS = {"stage", "step", "reps", "lapses", "rating", "duration_ms", "state_before", "seed",
         "times"}
_FLOATS = {"stability", "difficulty"}
_BOOLS = {"suspended", "leech", "correct"}
_JSON = {"params", "previous"}


@dataclass(frozen=True)
class ImportResult:
    """What an import changed."""

    cards_added: int = 0
    cards_updated: int = 0
    reviews_added: int = 0
    reviews_skipped: int = 0
    posts_read: int = 0


@dataclass
class Export:
    """A parsed export file: plain values, datetimes already aware UTC."""

    profile: str | None = None
    settings: dict[str, Any] = field(default_factory=dict)
    cards: list[dict[str, Any]] = field(default_factory=list)
    reviews: list[dict[str, Any]] = field(default_factory=list)
    post_reads: list[dict[str, Any]] = field(default_factory=list)


def _iso(value: datetime | None) -> str | None:
    return value.astimezone(UTC).isoformat() if value is not None else None


def _card_record(card: CardState) -> dict[str, Any]:
    return {"deck_id": card.deck_id, "card_key": card.card_key, "post": card.post,
            "family": card.family, "stage": card.state, "step": card.step,
            "stability": card.stability, "difficulty": card.difficulty, "due": _iso(card.due),
            "last_review": _iso(card.last_review), "reps": card.reps, "lapses": card.lapses,
            "suspended": card.suspended, "leech": card.leech,
            "created_at": _iso(card.created_at)}


def iter_records(store: Store, profile_id: int) -> Iterator[tuple[str, dict[str, Any]]]:
    """("card" | "review" | "read", record) for the profile, streamed from the database."""
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
                   ReviewLog.response, ReviewLog.expected, ReviewLog.previous]
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
                "expected": row.expected, "previous": row.previous}
        for read in session.scalars(select(PostRead).where(PostRead.profile_id == profile_id)
                                    .order_by(PostRead.post)):
            yield "read", {"post": read.post, "first_read_at": _iso(read.first_read_at),
                           "last_read_at": _iso(read.last_read_at), "times": read.times}


def write_json(store: Store, profile: ProfileInfo, out: IO[str], now: datetime) -> int:
    """Write the profile's progress as one JSON object; returns the records written."""
    header = {"format": FORMAT, "version": VERSION, "exported_at": _iso(now),
              "profile": profile.name, "settings": dict(profile.settings)}
    out.write(json.dumps(header, ensure_ascii=False)[:-1])
    order = ["card", "review", "read"]
    names = {"card": "cards", "review": "reviews", "read": "post_reads"}
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
    are JSON text; the profile name is in every row.
    """
    writer = csv.DictWriter(out, fieldnames=("profile", *CSV_FIELDS), extrasaction="ignore")
    writer.writeheader()
    count = 0
    for kind, record in iter_records(store, profile.id):
        row: dict[str, Any] = {"profile": profile.name, "record": kind}
        for key, value in record.items():
            if key in _JSON:
                row[key] = "" if value is None else json.dumps(value, ensure_ascii=False)
            elif isinstance(value, bool):
                row[key] = int(value)
            else:
                row[key] = "" if value is None else value
        writer.writerow(row)
        count += 1
    return count


def _parse_time(value: Any) -> datetime | None:
    if value in (None, ""):
        return None
    moment = datetime.fromisoformat(str(value))
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


def _normalise(record: Mapping[str, Any], from_csv: bool) -> dict[str, Any]:
    """Typed values from a JSON or CSV record (CSV gives only strings)."""
    clean: dict[str, Any] = {}
    for key, value in record.items():
        if key in _TIMES:
            clean[key] = _parse_time(value)
        elif from_csv and value == "" and key not in {"response", "prompt", "expected"}:
            clean[key] = None
        elif key in _JSON and from_csv:
            clean[key] = json.loads(value) if value else None
        elif key in _INTS and value is not None:
            clean[key] = int(value)
        elif key in _FLOATS and value is not None:
            clean[key] = float(value)
        elif key in _BOOLS and value is not None:
            clean[key] = str(value).lower() in ("1", "true") if from_csv else bool(value)
        else:
            clean[key] = value
    return clean


def read_export(path: Path) -> Export:
    """Parse an export file written by ``write_json`` or ``write_csv``."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise StoreError(f"cannot read {path}: {exc}") from None
    try:
        if text.lstrip().startswith("{"):
            data = json.loads(text)
            if data.get("format") != FORMAT:
                raise StoreError(f"{path} is not a studyapp progress export")
            if int(data.get("version", 0)) > VERSION:
                raise StoreError(f"{path} was written by a newer studyapp (version "
                                 f"{data.get('version')}); upgrade studyapp to import it")
            return Export(data.get("profile"), dict(data.get("settings") or {}),
                          [_normalise(r, False) for r in data.get("cards", [])],
                          [_normalise(r, False) for r in data.get("reviews", [])],
                          [_normalise(r, False) for r in data.get("post_reads", [])])
        rows = list(csv.DictReader(text.splitlines()))
        if not rows or "record" not in rows[0]:
            raise StoreError(f"{path} is neither a JSON nor a CSV studyapp progress export")
        export = Export(profile=rows[0].get("profile") or None)
        lists = {"card": export.cards, "review": export.reviews, "read": export.post_reads}
        fields = {"card": CARD_FIELDS, "review": REVIEW_FIELDS, "read": READ_FIELDS}
        for row in rows:
            kind = row.get("record", "")
            if kind in lists:
                lists[kind].append(_normalise({k: row.get(k, "") for k in fields[kind]}, True))
        return export
    except StoreError:
        raise
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise StoreError(f"{path} is not a valid studyapp progress export: {exc}") from None


def _chunks(items: list[Any], size: int = 500) -> Iterable[list[Any]]:
    for start in range(0, len(items), size):
        yield items[start:start + size]


def import_progress(store: Store, profile_id: int, export: Export) -> ImportResult:
    """Merge an export into one profile, in one transaction; repeating it changes nothing."""
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
        session.flush()
        uids = [r["uid"] for r in export.reviews]
        known: set[str] = set()
        for chunk in _chunks(uids):
            known.update(session.scalars(select(ReviewLog.uid).where(ReviewLog.uid.in_(chunk))))
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
                "expected": record.get("expected"), "previous": record.get("previous")})
        for chunk in _chunks(rows, BATCH):
            session.execute(insert(ReviewLog), chunk)
        reviews_added = len(rows)
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
    return ImportResult(added, updated, reviews_added, skipped, reads)


def _newer(candidate: datetime | None, current: datetime | None) -> bool:
    if candidate is None:
        return False
    return current is None or candidate > current
