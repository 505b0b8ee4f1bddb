"""The progress export format: its records, their schemas, and reading a file.

An export is someone else's file: every record is checked against a schema
before anything is written, the first bad one is reported by its place and
field, and a file with a bad record imports nothing. ``progress_files``
writes exports and merges them into a profile.
"""

from __future__ import annotations

import csv
import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Annotated, Any

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    ValidationError,
)

from studyapp.files import FileRefused, read_regular
from studyapp.store.database import StoreError
from studyapp.store.progress import NewState
from studyapp.text import unguard_cell

FORMAT = "studyapp-progress"
VERSION = 1

CARD_FIELDS = ("deck_id", "card_key", "post", "family", "stage", "step", "stability",
               "difficulty", "due", "last_review", "reps", "lapses", "suspended", "leech",
               "created_at", "flag")
REVIEW_FIELDS = ("uid", "deck_id", "card_key", "post", "reviewed_at", "rating", "correct",
                 "duration_ms", "state_before", "seed", "lang", "params", "prompt", "response",
                 "expected", "previous", "overridden", "looked_at_post", "anki", "implicit")
READ_FIELDS = ("post", "first_read_at", "last_read_at", "times")
CHANGE_FIELDS = ("uid", "deck_id", "card_key", "changed_at", "kind", "factor", "interval")
CSV_FIELDS = ("record", *dict.fromkeys(CARD_FIELDS + REVIEW_FIELDS + READ_FIELDS
                                       + CHANGE_FIELDS))
_TIMES = {"due", "last_review", "created_at", "reviewed_at", "first_read_at", "last_read_at",
          "changed_at"}
_INTS = {"stage", "step", "reps", "lapses", "rating", "duration_ms", "state_before", "seed",
         "times", "flag", "kind", "factor", "interval"}
_FLOATS = {"stability", "difficulty"}
_BOOLS = {"suspended", "leech", "correct", "overridden", "looked_at_post", "implicit"}
_JSON = {"params", "previous", "anki"}
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
CardPost = Annotated[str, Field(max_length=64)]
"""A card's post: empty for a course deck's cards, which count under their deck alone."""
Count = Annotated[StrictInt, Field(ge=0, le=10**9)]
"""Reps, lapses, steps, milliseconds: a billion is past any real history, and fits a column."""
Seed = Annotated[StrictInt, Field(ge=-(2**63), le=2**63 - 1)]
AnkiInt = Annotated[StrictInt, Field(ge=-(2**31), le=2**31 - 1)]
"""An Anki revlog number (ease factor, interval): a 32-bit integer there."""


class _Record(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class CardRecord(_Record):
    """A card's stored state as exported."""

    deck_id: Key
    card_key: Key
    post: CardPost
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


class AnkiEntry(_Record):
    """An Anki revlog entry's kind, ease factor and interval (``anki`` of an answer)."""

    type: Annotated[StrictInt, Field(ge=0, le=3)]
    factor: AnkiInt = 0
    ivl: AnkiInt = 0


class ReviewRecord(_Record):
    """One answer as exported."""

    uid: Annotated[str, Field(min_length=1, max_length=64)]
    deck_id: Key
    card_key: Key
    post: CardPost | None = None
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
    anki: AnkiEntry | None = None
    """An answer imported from Anki: what Anki's FSRS reads of its revlog entry."""
    implicit: StrictBool = False
    """A review a scenario's step gave a one-step card, no answer to it (``Answer.implicit``);
    files written before it was exported have none: their reviews are answers."""


class ReadRecord(_Record):
    """When a post was first and last read."""

    post: Slug
    first_read_at: Past
    last_read_at: Past
    times: Annotated[StrictInt, Field(ge=1)] = 1


class ChangeRecord(_Record):
    """A change of schedule that was no answer: Anki's Forget and Set due date (kind 4,
    ``factor`` 0 for Forget) and rescheduling (kind 5)."""

    uid: Annotated[str, Field(min_length=1, max_length=64)]
    deck_id: Key
    card_key: Key
    changed_at: Past
    kind: Annotated[StrictInt, Field(ge=4, le=5)]
    factor: AnkiInt = 0
    interval: AnkiInt = 0


SCHEMAS: dict[str, type[_Record]] = {"card": CardRecord, "review": ReviewRecord,
                                     "read": ReadRecord, "change": ChangeRecord}
SECTIONS = {"card": "cards", "review": "reviews", "read": "post_reads",
            "change": "schedule_changes"}


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


LogRow = tuple[datetime, int, int | None, dict[str, Any] | None]
"""One entry of a card's log as stored: (time, rating 1-4 or 0 for a change of schedule that
was no answer, stage before the answer, Anki's revlog entry {"type", "factor", "ivl"})."""

Replay = Callable[[int, Sequence[LogRow]], NewState | None]
"""A card's state after its log in time order (None: no answer counts, the state stays):
the scheduler, passed in, reads the log as FSRS does."""


@dataclass
class Export:
    """A parsed export file: plain values, datetimes already aware UTC."""

    profile: str | None = None
    settings: dict[str, Any] = field(default_factory=dict)
    cards: list[dict[str, Any]] = field(default_factory=list)
    reviews: list[dict[str, Any]] = field(default_factory=list)
    post_reads: list[dict[str, Any]] = field(default_factory=list)
    schedule_changes: list[dict[str, Any]] = field(default_factory=list)


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
        lists = {"card": export.cards, "review": export.reviews, "read": export.post_reads,
                 "change": export.schedule_changes}
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
    lists = {"card": export.cards, "review": export.reviews, "read": export.post_reads,
             "change": export.schedule_changes}
    fields = {"card": CARD_FIELDS, "review": REVIEW_FIELDS, "read": READ_FIELDS,
              "change": CHANGE_FIELDS}
    for number, row in enumerate(rows, 2):
        place = f"{path}: line {number}"
        kind = row.get("record") or ""
        if kind not in lists:
            raise StoreError(f"{place}: field 'record' is {kind!r}, not card, review, read or "
                             f"change")
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
