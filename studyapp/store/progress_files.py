"""Export and import of one profile's progress (JSON or CSV), safe to repeat.

An export carries every card state and review log with its deck and card
ids, parameters and answers. Importing merges: review logs are keyed by
their ``uid`` (kept across export and import) and cards by (deck, card), so
importing the same file twice changes nothing, and a card keeps whichever
state was reviewed last. Rows are streamed out and inserted in batches.

An export is someone else's file: every record is checked against a schema
before anything is written, the first bad one is reported by its place and
field, and a file with a bad record imports nothing. Review ids are matched
within the target profile only.
"""

from __future__ import annotations

import csv
import json
import math
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import IO, Annotated, Any

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    ValidationError,
)
from sqlalchemy import insert, select
from sqlalchemy.orm import Session

from studyapp.files import FileRefused, read_regular
from studyapp.store.database import Store, StoreError
from studyapp.store.models import CardState, PostRead, ReviewLog
from studyapp.store.progress import NewState, ProfileInfo
from studyapp.text import csv_cell, unguard_cell

FORMAT = "studyapp-progress"
VERSION = 1
BATCH = 5000

CARD_FIELDS = ("deck_id", "card_key", "post", "family", "stage", "step", "stability",
               "difficulty", "due", "last_review", "reps", "lapses", "suspended", "leech",
               "created_at", "flag")
REVIEW_FIELDS = ("uid", "deck_id", "card_key", "post", "reviewed_at", "rating", "correct",
                 "duration_ms", "state_before", "seed", "lang", "params", "prompt", "response",
                 "expected", "previous", "overridden", "looked_at_post")
READ_FIELDS = ("post", "first_read_at", "last_read_at", "times")
CSV_FIELDS = ("record", *dict.fromkeys(CARD_FIELDS + REVIEW_FIELDS + READ_FIELDS))
_TIMES = {"due", "last_review", "created_at", "reviewed_at", "first_read_at", "last_read_at"}
_INTS = {"stage", "step", "reps", "lapses", "rating", "duration_ms", "state_before", "seed",
         "times", "flag"}
_FLOATS = {"stability", "difficulty"}
_BOOLS = {"suspended", "leech", "correct", "overridden", "looked_at_post"}
_JSON = {"params", "previous"}
MAX_IMPORT_BYTES = 200_000_000
"""200 MB; a larger export is refused unread (parsing takes several times its size)."""
CLOCK_SKEW = timedelta(days=1)
"""Answers dated later than now plus this are refused: the file's clock or data is wrong."""


def _utc(value: datetime) -> datetime:
    return value.astimezone(UTC)


def _not_future(value: datetime) -> datetime:
    if value > datetime.now(UTC) + CLOCK_SKEW:
        raise ValueError("is in the future")
    return value


def _finite(value: float) -> float:
    if not math.isfinite(value):
        raise ValueError("is not a finite number")
    return value


When = Annotated[datetime, AfterValidator(lambda v: _utc(v) if v.tzinfo else v.replace(
    tzinfo=UTC))]
Past = Annotated[When, AfterValidator(_not_future)]
Key = Annotated[str, Field(min_length=1, max_length=200)]
Slug = Annotated[str, Field(min_length=1, max_length=64)]
Count = Annotated[StrictInt, Field(ge=0, le=10**9)]
"""Reps, lapses, steps, milliseconds: a billion is past any real history, and fits a column."""
Seed = Annotated[StrictInt, Field(ge=-(2**63), le=2**63 - 1)]


class _Record(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class CardRecord(_Record):
    """A card's stored state as exported."""

    deck_id: Key
    card_key: Key
    post: Slug
    family: Annotated[str, Field(max_length=100)] | None = None
    stage: Annotated[StrictInt, Field(ge=0, le=3)]
    """0: marked in the card browser (flagged, buried) or reset, never answered since."""
    step: Count | None = None
    stability: Annotated[float, Field(gt=0), AfterValidator(_finite)] | None = None
    difficulty: Annotated[float, Field(ge=1, le=10), AfterValidator(_finite)] | None = None
    due: When
    last_review: Past | None = None
    reps: Count = 0
    lapses: Count = 0
    suspended: StrictBool = False
    leech: StrictBool = False
    created_at: Past | None = None
    flag: Annotated[StrictInt, Field(ge=0, le=4)] = 0


class ReviewRecord(_Record):
    """One answer as exported."""

    uid: Annotated[str, Field(min_length=1, max_length=64)]
    deck_id: Key
    card_key: Key
    post: Slug | None = None
    reviewed_at: Past
    rating: Annotated[StrictInt, Field(ge=1, le=4)]
    correct: StrictBool
    duration_ms: Count | None = None
    state_before: Annotated[StrictInt, Field(ge=0, le=3)] | None = None
    seed: Seed | None = None
    lang: Annotated[str, Field(max_length=8)] | None = None
    params: dict[str, Any] | None = None
    prompt: str | None = None
    response: str | None = None
    expected: str | None = None
    previous: dict[str, Any] | None = None
    overridden: StrictBool = False
    looked_at_post: StrictBool = False


class ReadRecord(_Record):
    """When a post was first and last read."""

    post: Slug
    first_read_at: Past
    last_read_at: Past
    times: Annotated[StrictInt, Field(ge=1)] = 1


SCHEMAS: dict[str, type[_Record]] = {"card": CardRecord, "review": ReviewRecord,
                                     "read": ReadRecord}
SECTIONS = {"card": "cards", "review": "reviews", "read": "post_reads"}


def _problem(exc: ValidationError) -> str:
    """The first error of a record: which field, and what is wrong with it."""
    first = exc.errors()[0]
    where = ".".join(str(part) for part in first["loc"]) or "record"
    message = str(first["msg"])
    if first["type"] == "missing":
        return f"field {where!r} is missing"
    return f"field {where!r}: {message} (got {first.get('input')!r:.60})"


def validate_record(kind: str, record: Any, place: str) -> dict[str, Any]:
    """The record checked against its schema, as plain typed values; StoreError if bad."""
    if not isinstance(record, Mapping):
        raise StoreError(f"{place}: not an object")
    try:
        model = SCHEMAS[kind].model_validate(record)
    except ValidationError as exc:
        raise StoreError(f"{place}: {_problem(exc)}") from None
    return model.model_dump()


@dataclass(frozen=True)
class ImportResult:
    """What an import changed."""

    cards_added: int = 0
    cards_updated: int = 0
    reviews_added: int = 0
    reviews_skipped: int = 0
    posts_read: int = 0
    cards_replayed: int = 0
    """Cards whose state was rebuilt from the merged answers (both copies had answers)."""


Replay = Callable[[int, Sequence[tuple[datetime, int]]], NewState]
"""A card's state after its answers (time, rating) in order: the scheduler, passed in."""


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
            "created_at": _iso(card.created_at), "flag": card.flag}


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
                   ReviewLog.response, ReviewLog.expected, ReviewLog.previous,
                   ReviewLog.overridden, ReviewLog.looked_at_post]
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
                "overridden": bool(row.overridden), "looked_at_post": bool(row.looked_at_post)}
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


def _csv_value(key: str, value: str) -> Any:
    """A CSV cell as the JSON value it stands for (CSV has only text)."""
    value = unguard_cell(value)
    if value == "" and key not in {"response", "prompt", "expected"}:
        return None
    if key in _JSON:
        return json.loads(value)
    if key in _INTS:
        return int(value) if value.lstrip("-").isdigit() else value
    if key in _FLOATS:
        try:
            return float(value)
        except ValueError:
            return value
    if key in _BOOLS:
        return {"1": True, "0": False, "true": True, "false": False}.get(value.lower(), value)
    return value


def _open_regular(path: Path) -> str:
    """The file's text; a device, pipe or folder is refused before a byte is read."""
    try:
        raw = read_regular(path, MAX_IMPORT_BYTES, what="progress file")
    except FileRefused as exc:
        raise StoreError(str(exc)) from None
    try:
        return raw.decode("utf-8-sig")  # a BOM, as spreadsheet programs add
    except UnicodeDecodeError:
        raise StoreError(f"{path} is not a studyapp progress export (JSON or CSV text); an "
                         "Anki package is imported from its .apkg or .colpkg file, and "
                         "'studyapp deck from-anki' turns one into a deck") from None


MAX_JSON_DEPTH = 64
"""Nesting an export may have (it needs four): deeper JSON is refused before it is parsed."""


_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")


def json_depth(text: str) -> int:
    """How deep ``text``'s brackets nest: strings removed, then the brackets counted.

    Both patterns are linear (no nested quantifiers), so a hostile file costs
    one pass, never a RecursionError in the parser.
    """
    brackets = _NOT_BRACKET.sub("", _JSON_STRING.sub("", text))
    depth = deepest = 0
    for ch in brackets:
        depth += 1 if ch in "[{" else -1
        deepest = max(deepest, depth)
    return deepest


def read_export(path: Path) -> Export:
    """Parse and check an export file written by ``write_json`` or ``write_csv``."""
    text = _open_regular(path)
    if text.lstrip().startswith(("{", "[")):
        if json_depth(text) > MAX_JSON_DEPTH:
            raise StoreError(f"{path}: JSON nested more than {MAX_JSON_DEPTH} deep; a studyapp "
                             f"export nests four")
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise StoreError(f"{path} is not valid JSON: {exc}") from None
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise StoreError(f"{path} is not a studyapp progress export")
        version = data.get("version", 0)
        if not isinstance(version, int) or isinstance(version, bool):
            raise StoreError(f"{path}: field 'version' is not a whole number")
        if version > VERSION:
            raise StoreError(f"{path} was written by a newer studyapp (version "
                             f"{version}); upgrade studyapp to import it")
        profile, settings = data.get("profile"), data.get("settings") or {}
        if not isinstance(profile, str | None) or not isinstance(settings, dict):
            raise StoreError(f"{path}: field 'profile' or 'settings' has the wrong type")
        export = Export(profile, dict(settings))
        lists = {"card": export.cards, "review": export.reviews, "read": export.post_reads}
        for kind, target in lists.items():
            records = data.get(SECTIONS[kind], [])
            if not isinstance(records, list):
                raise StoreError(f"{path}: {SECTIONS[kind]!r} is not a list")
            for index, record in enumerate(records):
                target.append(validate_record(kind, record,
                                              f"{path}: {SECTIONS[kind]}[{index}]"))
        return export
    try:
        return _read_csv(path, text)
    except csv.Error as exc:
        raise StoreError(f"{path}: not a CSV studyapp progress export ({exc})") from None


def _read_csv(path: Path, text: str) -> Export:
    rows = csv.DictReader(text.splitlines())
    if not rows.fieldnames or "record" not in rows.fieldnames:
        raise StoreError(f"{path} is neither a JSON nor a CSV studyapp progress export")
    export = Export()
    lists = {"card": export.cards, "review": export.reviews, "read": export.post_reads}
    fields = {"card": CARD_FIELDS, "review": REVIEW_FIELDS, "read": READ_FIELDS}
    for number, row in enumerate(rows, 2):
        place = f"{path}: line {number}"
        kind = row.get("record") or ""
        if kind not in lists:
            raise StoreError(f"{place}: field 'record' is {kind!r}, not card, review or read")
        if export.profile is None and row.get("profile"):
            export.profile = unguard_cell(row["profile"])
        values: dict[str, Any] = {}
        for key in fields[kind]:
            cell = row.get(key)
            if cell is None:
                continue
            try:
                values[key] = _csv_value(key, cell)
            except ValueError:
                raise StoreError(f"{place}: field {key!r} is not valid JSON") from None
        lists[kind].append(validate_record(kind, values, place))
    return export


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
                "looked_at_post": bool(record.get("looked_at_post"))})
        for chunk in _chunks(rows, BATCH):
            session.execute(insert(ReviewLog), chunk)
        reviews_added = len(rows)
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


def _replay_cards(session: Session, cards: Mapping[tuple[str, str], CardState],
                  touched: set[int], replay: Replay) -> int:
    """Rebuild the state of each touched card from all its answers; how many changed.

    A card marked new again (reset in the card browser, stage 0) keeps that mark:
    the answers before a reset are history, not schedule.
    """
    by_id = {card.id: card for card in cards.values() if card.id in touched and card.state}
    history: dict[int, list[tuple[datetime, int]]] = {card_id: [] for card_id in by_id}
    for chunk in _chunks(sorted(by_id)):
        for card_id, at, rating in session.execute(
                select(ReviewLog.card_id, ReviewLog.reviewed_at, ReviewLog.rating)
                .where(ReviewLog.card_id.in_(chunk))
                .order_by(ReviewLog.card_id, ReviewLog.reviewed_at, ReviewLog.id)):
            history[card_id].append((at, int(rating)))
    changed = 0
    for card_id, answers in history.items():
        if not answers:
            continue
        state = replay(card_id, answers)
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
