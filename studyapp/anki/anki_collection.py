"""Reading an Anki package: its collection's note types, notes, cards and reviews, and its
media map, within limits.

An Anki package is a zip holding the collection as SQLite and a ``media``
map of the files beside it. Older packages (and Anki's "Support older Anki
versions" export) hold ``collection.anki21`` or ``collection.anki2``, schema
11: note types as JSON in ``col.models``, a JSON media map. Anki 2.1.50+
writes ``collection.anki21b`` by default: the collection zstd-compressed at
schema 18 (note types, decks and deck options in their own tables, with
protobuf settings), a protobuf media list and compressed media files
(``anki21b.py`` decodes those, within limits). Both give the same
``AnkiCollection``. Every limit is checked before the part it guards is read.
"""

from __future__ import annotations

import json
import sqlite3
import tempfile
import time
import zipfile
from collections import defaultdict
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from studyapp.anki.anki21b import ZSTD_MAGIC, FormatError, media_entries, read_message, unzstd
from studyapp.anki.anki_options import legacy_preset
from studyapp.decks.media import MAX_IMAGE_BYTES
from studyapp.files import FileRefused, open_regular

MAX_PACKAGE_BYTES = 4_000_000_000
"""4 GB: a package, media included, larger than this is refused unopened; inside it only
the collection and one media file at a time are read, each within its own limit."""
PACKAGE = "Anki package"

MAX_COLLECTION_BYTES = 200 * 1024 * 1024
"""A collection bigger than this, once unzipped, is refused (zip bombs)."""

MAX_MEDIA_BYTES = MAX_IMAGE_BYTES
"""One media file bigger than this, unzipped, is not copied."""

COMPRESSED_COLLECTION = "collection.anki21b"
COLLECTION_NAMES = (COMPRESSED_COLLECTION, "collection.anki21", "collection.anki2")
"""In the order Anki reads them: a package with ``collection.anki21b`` also holds a dummy
``collection.anki2`` whose only note asks to update Anki."""

class AnkiPackageError(ValueError):
    """The file is not an Anki package this reader understands."""


# ------------------------------------------------------------------ reading


@dataclass(frozen=True)
class NoteType:
    id: int
    name: str
    cloze: bool
    fields: tuple[str, ...]
    templates: tuple[tuple[str, str, str], ...]  # (name, front, back)


@dataclass(frozen=True)
class AnkiNote:
    id: int
    guid: str
    model_id: int
    fields: tuple[str, ...]
    tags: tuple[str, ...]
    deck: str
    card_decks: Mapping[int, str] = field(default_factory=dict)
    """Deck name of each of the note's cards, by template (or cloze) ordinal."""

    def deck_of(self, ordinal: int) -> str:
        return self.card_decks.get(ordinal, self.deck)


@dataclass(frozen=True)
class AnkiCard:
    """A card row with its scheduling, as the collection keeps it (schema 11)."""

    id: int
    note_id: int
    deck_id: int
    ordinal: int
    type: int
    queue: int
    due: int
    interval: int
    factor: int
    reps: int
    lapses: int
    data: str
    original_due: int = 0
    original_deck: int = 0
    flags: int = 0
    left: int = 0  # learning steps still to go (the last three digits)


@dataclass(frozen=True)
class AnkiReview:
    """One row of Anki's review log."""

    id: int  # milliseconds since the epoch, when answered
    card_id: int
    ease: int
    interval: int
    last_interval: int
    factor: int
    time_ms: int
    type: int


@dataclass
class AnkiCollection:
    note_types: list[NoteType]
    notes: list[AnkiNote]
    cards: list[AnkiCard] = field(default_factory=list)
    reviews: list[AnkiReview] = field(default_factory=list)
    created: int = 0  # col.crt: the collection's day 0, seconds since the epoch
    media: dict[str, str] = field(default_factory=dict)  # file name → name inside the zip
    deck_names: dict[int, str] = field(default_factory=dict)
    deck_configs: dict[int, dict[str, Any]] = field(default_factory=dict)
    """Deck id → its options group (preset) in schema 11's JSON shape, unchecked
    (``anki_options.preset_options`` checks it)."""
    media_compressed: bool = False
    """The media files inside the zip are zstd-compressed (Anki's current format)."""
    rollover: object = None
    """Anki's ``rollover`` setting as stored, unchecked (``anki_options.rollover_hour``)."""
    creation_offset: object = None  # ``creationOffset``: minutes west of UTC, unchecked


def _collection_name(archive: zipfile.ZipFile) -> str:
    names = set(archive.namelist())
    for name in COLLECTION_NAMES:
        if name in names:
            info = archive.getinfo(name)
            if info.file_size > MAX_COLLECTION_BYTES:
                raise AnkiPackageError(
                    f"the collection is {info.file_size / 2**20:.0f} MiB unpacked; "
                    f"the limit is {MAX_COLLECTION_BYTES / 2**20:.0f} MiB")
            return name
    raise AnkiPackageError("no collection.anki21b, collection.anki21 or collection.anki2 "
                           "inside: not an Anki package")


MAX_MEDIA_LIST_BYTES = 16 * 1024 * 1024
"""The media list of a package, unpacked, is refused beyond this."""


def _media_map(archive: zipfile.ZipFile) -> dict[str, str]:
    """File name → zip member: a protobuf list when compressed (current format), else JSON."""
    try:
        info = archive.getinfo("media")
    except KeyError:
        return {}
    if info.file_size > MAX_MEDIA_LIST_BYTES:
        raise AnkiPackageError(f"the package's media list is {info.file_size / 2**20:.0f} MiB; "
                               f"the limit is {MAX_MEDIA_LIST_BYTES / 2**20:.0f} MiB")
    data = archive.read(info)
    if data.startswith(ZSTD_MAGIC):
        return {entry.name: entry.member
                for entry in media_entries(data, MAX_MEDIA_LIST_BYTES)}
    try:
        raw = json.loads(data.decode("utf-8") or "{}")
    except (ValueError, UnicodeDecodeError):
        return {}
    if not isinstance(raw, dict):
        return {}
    return {str(name): str(member) for member, name in raw.items()}


READ_BUDGET_S = 30.0
"""How long reading a collection's tables may take: a recursive view never ends."""
COLLECTION_TABLES = ("col", "notes", "cards", "revlog")
SCHEMA18_TABLES = ("notetypes", "fields", "templates", "decks", "deck_config")
"""Where schema 18 keeps what schema 11 keeps as JSON in ``col``."""
MAX_TABLE_ROWS = {"col": 1, "notes": 100_000, "cards": 200_000, "revlog": 2_000_000}
"""Rows the reader takes per table: beyond them a deck would be refused by the app anyway."""
MAX_SCHEMA18_ROWS = {"notetypes": 10_000, "fields": 100_000, "templates": 100_000,
                     "decks": 100_000, "deck_config": 10_000}


def read_collection(path: Path) -> AnkiCollection:
    """Everything a conversion or a history import needs from an Anki package."""
    try:
        with open_package(path) as archive:
            name = _collection_name(archive)
            data = archive.read(name)
            media = _media_map(archive)
        compressed = name == COMPRESSED_COLLECTION
        if compressed:
            data = unzstd(data, MAX_COLLECTION_BYTES, f"the collection inside {path}")
    except zipfile.BadZipFile as exc:
        if "CRC" in str(exc):
            raise AnkiPackageError(f"{path} is damaged: a file inside fails its CRC check; "
                                   f"export it again from Anki") from None
        raise AnkiPackageError(f"{path} is not a zip file, so not an Anki package") from None
    except FormatError as exc:
        raise AnkiPackageError(str(exc)) from None
    with tempfile.TemporaryDirectory(prefix="studyapp-apkg-") as folder:
        db_path = Path(folder) / "collection.sqlite"
        db_path.write_bytes(data)
        try:
            connection = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
            deadline = time.monotonic() + READ_BUDGET_S
            # returning 1 interrupts the statement: a recursive view or a huge join stops
            connection.set_progress_handler(lambda: int(time.monotonic() > deadline), 10_000)
            # schema 18 names are compared by Anki's case-folding collation
            connection.create_collation("unicase", _unicase)
            try:
                _check_tables(connection)
                collection = _read_collection(connection)
            finally:
                connection.close()
        except sqlite3.OperationalError as exc:
            if "interrupted" in str(exc):
                raise AnkiPackageError(
                    f"reading the collection inside {path} took over {READ_BUDGET_S:.0f} s "
                    f"and was stopped; it is not a collection Anki wrote") from None
            raise AnkiPackageError(f"the collection inside {path} cannot be read: {exc}") from None
        except sqlite3.DatabaseError as exc:
            raise AnkiPackageError(f"the collection inside {path} cannot be read: {exc}") from None
        except FormatError as exc:
            raise AnkiPackageError(f"the collection inside {path} is malformed: {exc}"[:300]
                                   ) from None
        except AnkiPackageError:
            raise  # already one line saying what is wrong
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
            raise AnkiPackageError(f"the collection inside {path} is malformed: "
                                   f"{type(exc).__name__}: {exc}"[:300]) from None
    collection.media = media
    collection.media_compressed = compressed
    return collection


def _unicase(left: str, right: str) -> int:
    a, b = left.casefold(), right.casefold()
    return (a > b) - (a < b)


def _check_tables(connection: sqlite3.Connection) -> None:
    """The collection's tables are tables (a view, recursive say, is refused unread) and
    hold no more rows than the reader takes; schema 18's own tables too when it has them."""
    names = COLLECTION_TABLES + SCHEMA18_TABLES
    kinds = dict(connection.execute(
        f"SELECT name, type FROM sqlite_master WHERE name IN ({', '.join('?' * len(names))})",
        names))
    wanted = COLLECTION_TABLES + (SCHEMA18_TABLES if "notetypes" in kinds else ())
    for name in wanted:
        if kinds.get(name) != "table":
            what = "missing" if name not in kinds else f"a {kinds[name]}, not a table"
            raise AnkiPackageError(f"the collection's {name!r} is {what}: not a collection "
                                   f"Anki wrote")
    limits = {**MAX_TABLE_ROWS, **(MAX_SCHEMA18_ROWS if "notetypes" in kinds else {})}
    for name, limit in limits.items():
        (count,) = connection.execute(f"SELECT count(*) FROM {name}").fetchone()
        if count > limit:
            raise AnkiPackageError(f"the collection has {count:,} rows in {name!r}; studyapp "
                                   f"reads at most {limit:,}: split it into smaller decks in "
                                   f"Anki and export each")


def read_package(path: Path) -> tuple[list[NoteType], list[AnkiNote]]:
    """Note types and notes of an .apkg file."""
    collection = read_collection(path)
    return collection.note_types, collection.notes


class _FieldRecord(BaseModel):
    model_config = ConfigDict(extra="ignore")
    name: str
    ord: int


class _TemplateRecord(BaseModel):
    model_config = ConfigDict(extra="ignore")
    name: str = ""
    qfmt: str = ""
    afmt: str = ""
    ord: int


class _NoteTypeRecord(BaseModel):
    """One note type of ``col.models``, as Anki writes it (what the reader uses of it)."""

    model_config = ConfigDict(extra="ignore")
    id: int
    name: str = ""
    type: int = 0
    flds: list[_FieldRecord] = Field(default_factory=list)
    tmpls: list[_TemplateRecord] = Field(default_factory=list)


def _note_type_records(models_json: object) -> list[_NoteTypeRecord]:
    """``col.models`` checked against the schema; the first bad record in one line."""
    if not isinstance(models_json, dict):
        raise AnkiPackageError("the collection's note types are malformed: "
                               "not an object of note types")
    records = []
    for key, raw in models_json.items():
        try:
            records.append(_NoteTypeRecord.model_validate(raw))
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(part) for part in first["loc"]) or "record"
            raise AnkiPackageError(f"the collection's note types are malformed: note type "
                                   f"{key}, field {where!r}: {first['msg']}") from None
    return records


class _DeckRecord(BaseModel):
    """One deck of ``col.decks``: its name and its options group."""

    model_config = ConfigDict(extra="ignore")
    name: str = ""
    conf: int = 1


_DECKS = TypeAdapter(dict[int, _DeckRecord])
_DECK_CONFIGS = TypeAdapter(dict[int, dict[str, Any]])
_CARD_COLUMNS = ("id", "nid", "did", "ord", "type", "queue", "due", "ivl", "factor", "reps",
                 "lapses", "data", "odue", "odid", "flags", "left")
_CARD_ROW = TypeAdapter(tuple[int, int, int, int, int, int, int, int, int, int, int,
                              str | None, int | None, int | None, int | None, int | None])
_NOTE_COLUMNS = ("id", "guid", "mid", "flds", "tags")
_NOTE_ROW = TypeAdapter(tuple[int, str, int, str, str])
_REVIEW_COLUMNS = ("id", "cid", "ease", "ivl", "lastIvl", "factor", "time", "type")
_REVIEW_ROW = TypeAdapter(tuple[int, int, int, int, int, int, int, int])


def _json_column(text: object, what: str) -> Any:
    """One of ``col``'s JSON columns, parsed; a bad or absurdly nested one in one line."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    try:
        return json.loads(str(text or "{}"))
    except (ValueError, RecursionError):
        raise AnkiPackageError(f"the collection's {what} are not valid JSON") from None


def _checked(adapter: TypeAdapter[Any], value: object, what: str) -> Any:
    """``value`` through its schema; the first bad record and field named in one line."""
    try:
        return adapter.validate_python(value)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        why = first["msg"].split(" or instance of ")[0]  # no name of this module's classes
        raise AnkiPackageError(f"the collection's {what} are malformed: "
                               f"{f'{where!r}: ' if where else ''}{why}") from None


def _rows(connection: sqlite3.Connection, table: str, columns: tuple[str, ...],
          adapter: TypeAdapter[Any]) -> list[Any]:
    """A table's rows in id order, each checked; the first bad row named by id and column."""
    rows = []
    for raw in connection.execute(f"SELECT {', '.join(columns)} FROM {table} ORDER BY id"):
        try:
            rows.append(adapter.validate_python(raw))
        except ValidationError as exc:
            first = exc.errors()[0]
            column = columns[int(first["loc"][0])] if first["loc"] else "?"
            raise AnkiPackageError(
                f"the collection's {table!r} row {str(raw[0])[:40]!r}: field {column!r}: "
                f"{first['msg']} (got {str(raw[int(first['loc'][0])])[:40]!r})"
                if first["loc"] else f"the collection's {table!r} row is malformed") from None
    return rows


def _read_collection(connection: sqlite3.Connection) -> AnkiCollection:
    row = connection.execute("SELECT models, decks, crt, dconf, conf FROM col").fetchone()
    if row is None:
        raise AnkiPackageError("the collection has no header row")
    models_json = _json_column(row[0], "note types")
    decks_json = _json_column(row[1], "decks")
    dconf_json = _json_column(row[3], "deck options")
    settings = _json_column(row[4], "collection settings")
    rollover = settings.get("rollover") if isinstance(settings, dict) else None
    offset = settings.get("creationOffset") if isinstance(settings, dict) else None
    if not models_json and _has_schema18(connection):
        models_json, decks_json, dconf_json = _schema18_records(connection)
        rollover, offset = (_schema18_config(connection, k) for k in ("rollover", "creationOffset"))
    decks = _checked(_DECKS, decks_json, "decks")
    configs = _checked(_DECK_CONFIGS, dconf_json, "deck options")
    if not models_json:
        raise AnkiPackageError("the collection has no note types: not a collection Anki wrote")
    note_types = []
    for raw in _note_type_records(models_json):
        fields = tuple(f.name for f in sorted(raw.flds, key=lambda f: f.ord))
        templates = tuple((t.name, t.qfmt, t.afmt) for t in sorted(raw.tmpls, key=lambda t: t.ord))
        note_types.append(NoteType(raw.id, raw.name, raw.type == 1, fields, templates))
    deck_names = {k: v.name for k, v in decks.items()}
    deck_configs = {k: configs.get(v.conf, {}) for k, v in decks.items()}
    cards = [AnkiCard(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9], r[10],
                      r[11] or "", r[12] or 0, r[13] or 0, r[14] or 0, r[15] or 0)
             for r in _rows(connection, "cards", _CARD_COLUMNS, _CARD_ROW)]
    card_decks: dict[int, dict[int, str]] = defaultdict(dict)
    for card in cards:  # a card in a filtered deck belongs to its home deck (odid)
        home = card.original_deck if card.original_deck in deck_names else card.deck_id
        card_decks[card.note_id][card.ordinal] = deck_names.get(home, "")
    notes = []
    for nid, guid, mid, flds, tags in _rows(connection, "notes", _NOTE_COLUMNS, _NOTE_ROW):
        note_decks = card_decks.get(nid, {})
        first = note_decks[min(note_decks)] if note_decks else ""
        notes.append(AnkiNote(nid, guid, mid, tuple(flds.split("\x1f")), tuple(tags.split()),
                              first, dict(note_decks)))
    reviews = [AnkiReview(*r) for r in _rows(connection, "revlog", _REVIEW_COLUMNS, _REVIEW_ROW)]
    if not _has_schema18(connection) and isinstance(settings, dict) \
            and settings.get("schedVer", 1) == 1:  # v1: learning had 3 buttons (Good was 2)
        reviews = [_v2_ease(r) for r in reviews]
    return AnkiCollection(note_types, notes, cards, reviews, int(row[2] or 0),
                          deck_names=deck_names, deck_configs=deck_configs, rollover=rollover,
                          creation_offset=offset)


def _v2_ease(review: AnkiReview) -> AnkiReview:
    """A v1 learning answer on Anki's 4 buttons (Good 2 → 3, Easy 3 → 4), as Anki remaps it."""
    if review.type in (0, 2) and review.ease in (2, 3):
        return replace(review, ease=review.ease + 1)
    return review


def _has_schema18(connection: sqlite3.Connection) -> bool:
    (count,) = connection.execute("SELECT count(*) FROM sqlite_master WHERE type = 'table' "
                                  "AND name = 'notetypes'").fetchone()
    return int(count) == 1


def _schema18_records(connection: sqlite3.Connection
                      ) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """Schema 18's note types, decks and deck options in the shape schema 11 keeps them in
    ``col`` (``models``, ``decks``, ``dconf``), so both are checked and read alike.

    Protobuf field numbers (``proto/anki/notetypes.proto``, ``decks.proto``):
    ``Notetype.Config.kind`` 1 (1 = cloze); ``Template.Config.q_format`` 1,
    ``a_format`` 2; ``Deck.KindContainer.normal`` 1 → ``Normal.config_id`` 1.
    Deck names separate their levels with ``\x1f`` where schema 11 writes ``::``.
    """
    fields: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for ntid, ordinal, name in connection.execute("SELECT ntid, ord, name FROM fields"):
        fields[int(ntid)].append({"name": name, "ord": ordinal})
    templates: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for ntid, ordinal, name, blob in connection.execute(
            "SELECT ntid, ord, name, config FROM templates"):
        config = read_message(_blob(blob), f"the config of template {name!r}")
        templates[int(ntid)].append({"name": name, "ord": ordinal,
                                     "qfmt": config.text(1), "afmt": config.text(2)})
    models: dict[str, Any] = {}
    for ntid, name, blob in connection.execute("SELECT id, name, config FROM notetypes"):
        config = read_message(_blob(blob), f"the config of note type {name!r}")
        models[str(ntid)] = {"id": ntid, "name": name, "type": config.integer(1),
                             "flds": fields.get(int(ntid), []),
                             "tmpls": templates.get(int(ntid), [])}
    decks: dict[str, Any] = {}
    for did, name, kind in connection.execute("SELECT id, name, kind FROM decks"):
        normal = read_message(_blob(kind), f"the kind of deck {did}").raw(1)
        conf = read_message(normal, f"the options of deck {did}").signed(1, 1) \
            if normal is not None else 0
        decks[str(did)] = {"name": str(name).replace("\x1f", "::"), "conf": conf}
    dconf = {str(cid): legacy_preset(cid, name, blob)
             for cid, name, blob in connection.execute("SELECT id, name, config FROM deck_config")}
    return models, decks, dconf


def _schema18_config(connection: sqlite3.Connection, key: str) -> object:
    """A value of schema 18's ``config`` table (JSON bytes), when it is there."""
    (count,) = connection.execute("SELECT count(*) FROM sqlite_master WHERE type = 'table' "
                                  "AND name = 'config'").fetchone()
    if int(count) != 1:
        return None
    row = connection.execute("SELECT val FROM config WHERE key = ?", (key,)).fetchone()
    return None if row is None else row[0]


def _blob(value: object) -> bytes:
    """A protobuf column as bytes (an empty message may come back as text)."""
    if isinstance(value, bytes):
        return value
    if isinstance(value, str) and not value:
        return b""
    raise FormatError("a settings column holds text, not a protobuf blob")


@contextmanager
def open_package(path: Path) -> Iterator[zipfile.ZipFile]:
    """The package open as a zip, once it is a regular file within ``MAX_PACKAGE_BYTES``."""
    try:
        with open_regular(path, MAX_PACKAGE_BYTES, what=PACKAGE) as handle, \
                zipfile.ZipFile(handle) as archive:
            yield archive
    except FileRefused as exc:
        raise AnkiPackageError(str(exc)) from None
