"""Turn an Anki package (.apkg, .colpkg) into studyapp decks, field by role.

An Anki package is a zip holding the collection as SQLite and a ``media``
map of the files beside it. Older packages (and Anki's "Support older Anki
versions" export) hold ``collection.anki21`` or ``collection.anki2``, schema
11: note types as JSON in ``col.models``, a JSON media map. Anki 2.1.50+
writes ``collection.anki21b`` by default: the collection zstd-compressed at
schema 18 (note types, decks and deck options in their own tables, with
protobuf settings), a protobuf media list and compressed media files
(``anki21b.py`` decodes those, within limits). Both give the same
``AnkiCollection``.

Each field of a note type has a role. By default the roles come from the
card templates: the prompt is what the front shows; the answer is what the
back shows beyond the front (Basic: Back; type-in: the typed field; Cloze:
the deleted text); every other field the back shows is the explanation, or
the source when its name says so (Source, Reference, URL...). Only the
answer is ever accepted: variants come from an explicit ``a / b`` in one
short answer. A long answer (prose, a list, LaTeX) makes a self-graded
``recall`` card instead of a typed one. ``--map "Note:Field=role,..."``
sets the roles of one note type by hand.

Notes exported by studyapp itself (note types ``studyapp <kind>``) come back
as the cards they were: choices, numbers with their tolerance, the deck and
post their tags name. Image Occlusion and other note types without a
question and an answer are counted and named, never turned into text.
Every text is written with ``{``/``}`` doubled, because studyapp reads
single braces as formulas.
"""

from __future__ import annotations

import html
import json
import re
import sqlite3
import tempfile
import time
import zipfile
import zlib
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from studyapp.anki.anki21b import ZSTD_MAGIC, FormatError, media_entries, read_message, unzstd
from studyapp.anki.anki_text import (
    cloze_card,
    cloze_numbers,
    cloze_revealed,
    html_to_text,
    render_template,
    template_fields,
    template_refs,
    to_text,
)
from studyapp.decks.media import MAX_IMAGE_BYTES, MediaRefused, check_image
from studyapp.decks.problems import Message
from studyapp.files import FileRefused, open_regular, replacing

__all__ = [
    "AnkiPackageError", "Conversion", "accepted_answers", "convert_package", "deck_yaml",
    "html_to_text", "parse_field_map", "read_package", "slug", "template_fields",
]

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

ROLES = ("prompt", "answer", "explanation", "source", "ignore")

RECALL_CHARS = 60
RECALL_WORDS = 8
"""An answer longer than this (or on several lines) is recalled and self-rated, not typed."""

_SOURCE_NAME = re.compile(
    r"^(sources?|refs?|references?|citations?|cite|url|links?|credits?|fuentes?|referencias?)$",
    re.IGNORECASE)
_FORMULA_NAME = re.compile(r"(definition|formula|equation|ratio|expression|definici[oó]n|"
                           r"f[oó]rmula|ecuaci[oó]n)", re.IGNORECASE)
_LATEX = re.compile(r"\\\(|\\\[|\[\$\$?\]|\[latex\]|\$\$", re.IGNORECASE)
_URL_ONLY = re.compile(r"^(\s*(https?://\S+|www\.\S+)\s*[·,;|]?)+$")


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
    """Deck id → its options group, as far as the collection has one (schema 18: its id and
    name only)."""
    media_compressed: bool = False
    """The media files inside the zip are zstd-compressed (Anki's current format)."""


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
MAX_ROWS = {"col": 1, "notes": 100_000, "cards": 200_000, "revlog": 2_000_000}
"""Rows the reader takes per table: beyond them a deck would be refused by the app anyway."""
MAX_SCHEMA18_ROWS = {"notetypes": 10_000, "fields": 100_000, "templates": 100_000,
                     "decks": 100_000, "deck_config": 10_000}


def read_collection(path: Path) -> AnkiCollection:
    """Everything a conversion or a history import needs from an Anki package."""
    try:
        with _zip(path) as archive:
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
    limits = {**MAX_ROWS, **(MAX_SCHEMA18_ROWS if "notetypes" in kinds else {})}
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
    row = connection.execute("SELECT models, decks, crt, dconf FROM col").fetchone()
    if row is None:
        raise AnkiPackageError("the collection has no header row")
    models_json = _json_column(row[0], "note types")
    decks_json = _json_column(row[1], "decks")
    dconf_json = _json_column(row[3], "deck options")
    if not models_json and _has_schema18(connection):
        models_json, decks_json, dconf_json = _schema18_records(connection)
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
    for card in cards:
        card_decks[card.note_id][card.ordinal] = deck_names.get(card.deck_id, "")
    notes = []
    for nid, guid, mid, flds, tags in _rows(connection, "notes", _NOTE_COLUMNS, _NOTE_ROW):
        note_decks = card_decks.get(nid, {})
        first = note_decks[min(note_decks)] if note_decks else ""
        notes.append(AnkiNote(nid, guid, mid, tuple(flds.split("\x1f")), tuple(tags.split()),
                              first, dict(note_decks)))
    reviews = [AnkiReview(*r) for r in _rows(connection, "revlog", _REVIEW_COLUMNS, _REVIEW_ROW)]
    return AnkiCollection(note_types, notes, cards, reviews, int(row[2] or 0),
                          deck_names=deck_names, deck_configs=deck_configs)


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
    dconf = {str(cid): {"id": cid, "name": name}
             for cid, name in connection.execute("SELECT id, name FROM deck_config")}
    return models, decks, dconf


def _blob(value: object) -> bytes:
    """A protobuf column as bytes (an empty message may come back as text)."""
    if isinstance(value, bytes):
        return value
    if isinstance(value, str) and not value:
        return b""
    raise FormatError("a settings column holds text, not a protobuf blob")


# ------------------------------------------------------------------ field maps


def parse_field_map(specs: Iterable[str]) -> dict[str, dict[str, str]]:
    """``["Ridge:Front=prompt,Definition=answer"]`` → {note type: {field: role}}."""
    maps: dict[str, dict[str, str]] = {}
    for spec in specs:
        note_type, sep, pairs = spec.partition(":")
        if not sep or not note_type.strip() or not pairs.strip():
            raise AnkiPackageError(
                f"--map {spec!r}: write it as 'Note type:Field=role,Field=role' "
                f"(roles: {', '.join(ROLES)})")
        roles: dict[str, str] = {}
        for pair in pairs.split(","):
            name, eq, role = pair.partition("=")
            role = role.strip().lower()
            if not eq or not name.strip():
                raise AnkiPackageError(f"--map {spec!r}: {pair.strip()!r} is not Field=role")
            if role not in ROLES:
                raise AnkiPackageError(f"--map {spec!r}: unknown role {role!r} "
                                       f"(roles: {', '.join(ROLES)})")
            roles[name.strip()] = role
        if "prompt" not in roles.values() or "answer" not in roles.values():
            raise AnkiPackageError(f"--map {spec!r}: map at least one field to prompt and one "
                                   "to answer")
        maps[note_type.strip()] = roles
    return maps


def _resolve_maps(maps: Mapping[str, Mapping[str, str]],
                  note_types: Iterable[NoteType]) -> dict[int, dict[str, str]]:
    """Note type id → roles, matching the names given exactly, else as a unique prefix."""
    types = list(note_types)
    resolved: dict[int, dict[str, str]] = {}
    for given, roles in maps.items():
        exact = [m for m in types if m.name.casefold() == given.casefold()]
        found = exact or [m for m in types if m.name.casefold().startswith(given.casefold())]
        if len(found) != 1:
            names = ", ".join(sorted(repr(m.name) for m in types))
            what = "matches several note types" if found else "matches no note type"
            raise AnkiPackageError(f"--map {given!r} {what}; the package has {names}")
        model = found[0]
        unknown = [name for name in roles if name not in model.fields]
        if unknown:
            raise AnkiPackageError(
                f"--map {given!r}: no field {unknown[0]!r} in note type {model.name!r} "
                f"(fields: {', '.join(model.fields)})")
        resolved[model.id] = dict(roles)
    return resolved


# ------------------------------------------------------------------ converting


def _yaml_text(text: str) -> str:
    """Deck text is a template: single braces would be formulas."""
    return text.replace("{", "{{").replace("}", "}}")


def is_long(answer: str) -> bool:
    """Prose, a list or LaTeX: recalled and self-rated rather than typed."""
    return ("\n" in answer or len(answer) > RECALL_CHARS or len(answer.split()) > RECALL_WORDS
            or bool(_LATEX.search(answer)))


def accepted_answers(answer: str, field: str = "", prompt: str = "") -> list[str]:
    """Other ways to type ``answer``: only an explicit ``a / b`` in one short answer.

    A slash in a definition or formula (field named Definition, Formula...;
    a prompt asking for a ratio) is a division, not a choice: "FLOPS /
    bandwidth" accepts only itself.
    """
    if is_long(answer) or " / " not in answer:
        return []
    if _FORMULA_NAME.search(field) or re.search(r"\b(ratio|per|divided|formula|define|"
                                                r"definition|raz[oó]n|cociente)\b",
                                                prompt, re.IGNORECASE):
        return []
    pieces = [p.strip() for p in answer.split(" / ")]
    if len(pieces) > 4 or any(not p or len(p.split()) > 3 for p in pieces):
        return []
    return list(dict.fromkeys(p for p in pieces if p != answer))


def slug(text: str, fallback: str = "anki-deck") -> str:
    """An id the deck schema accepts, from any deck name."""
    words = re.sub(r"[^A-Za-z0-9]+", "-", text.lower()).strip("-")
    return words[:80] or fallback


@dataclass
class MadeCard:
    """One studyapp card made from a note, before it is written as YAML."""

    card: dict[str, Any]
    deck: str  # the Anki deck the card was in
    images: list[str] = field(default_factory=list)
    tags: tuple[str, ...] = ()


@dataclass
class Conversion:
    """What ``deck from-anki`` made of a package."""

    decks: list[dict[str, Any]] = field(default_factory=list)
    notes: int = 0
    cards: int = 0
    media_skipped: int = 0
    images: dict[str, list[str]] = field(default_factory=dict)
    """Deck id → the image files its cards name."""
    skipped_notes: Counter[str] = field(default_factory=Counter)
    unsupported: Counter[str] = field(default_factory=Counter)
    """Note type name → notes of it left out (Image Occlusion, types without an answer)."""
    mapping: dict[str, dict[str, str]] = field(default_factory=dict)
    """Note type name → field → role, as used."""
    media: dict[str, str] = field(default_factory=dict)
    media_compressed: bool = False
    package: Path = Path()
    card_decks: dict[str, str] = field(default_factory=dict)
    """Card id → the id of the studyapp deck it went to."""
    card_posts: dict[str, str] = field(default_factory=dict)
    mapped: frozenset[int] = frozenset()
    """Note type ids whose roles came from ``--map``."""
    collection: AnkiCollection | None = None
    returning: dict[int, tuple[str, str, str]] = field(default_factory=dict)
    """Anki note id → (deck id, card id, post) of a studyapp card already installed here that
    the note was exported from: its history goes back to that card, no copy is made."""
    refused_images: list[tuple[str, Message]] = field(default_factory=list)
    """Media files ``copy_images`` did not copy, not being raster images: (name, why)."""

    @property
    def deck(self) -> dict[str, Any]:
        """The first (or only) deck."""
        return self.decks[0]


_STUDYAPP_KINDS = ("choice", "truefalse", "numeric", "text", "recall")
_TRUE_WORDS = frozenset({"true", "yes", "verdadero", "sí", "si", "cierto"})
_FALSE_WORDS = frozenset({"false", "no", "falso"})
_NUMERIC = re.compile(r"^(?P<n>[0-9][0-9,.]*(?:e[-+]?\d+)?)\s*(?P<unit>[^\s(±]+)?"
                      r"(?:\s*\(±(?P<tol>[0-9.]+)\s*(?P<pct>%|[^\s)]*)\))?$", re.IGNORECASE)


class _Converter:
    def __init__(self, conversion: Conversion, roles: Mapping[int, Mapping[str, str]],
                 language: str = "en") -> None:
        from studyapp.i18n import t

        self.conversion = conversion
        self.roles = roles
        self.source_label = t("anki.from.source", language)

    def text(self, fragment: str, images: list[str]) -> str:
        result = to_text(fragment)
        images.extend(result.images)
        return result.text

    def _explanation(self, explanation: Iterable[str], sources: Iterable[str]) -> str:
        lines = [e for e in explanation if e]
        lines += [f"{self.source_label} {s}" for s in sources if s]
        return "\n".join(dict.fromkeys(lines))

    def card(self, card_id: str, prompt: str, answer: str, explanation: str,
             answer_field: str = "", hints: Iterable[str] = ()) -> dict[str, Any] | None:
        if not prompt or not answer:
            return None
        long = is_long(answer)
        card: dict[str, Any] = {"id": card_id, "type": "recall" if long else "text",
                                "prompt": _yaml_text(prompt), "answer": _yaml_text(answer)}
        if not long:
            accept = accepted_answers(answer, answer_field, prompt)
            for hint in hints:  # a hint listing alternatives, the answer among them
                pieces = [p.strip() for p in hint.split(" / ")]
                if len(pieces) > 1 and answer in pieces:
                    accept += [p for p in pieces if p and p != answer]
            if accept:
                card["accept"] = [_yaml_text(a) for a in dict.fromkeys(accept)]
        if explanation and explanation != answer:
            card["explanation"] = _yaml_text(explanation)
        return card

    # -- by role -------------------------------------------------------------------

    def default_roles(self, model: NoteType, front: str, back: str) -> dict[str, str]:
        """Roles of the fields for one template, read from what it shows."""
        shown_front = [n for f, n in template_refs(front) if f != "type"]
        typed = [n for f, n in template_refs(front) if f == "type"]
        back_only = [n for _, n in template_refs(back) if n not in shown_front]
        roles = {name: "ignore" for name in model.fields}
        for name in shown_front:
            if name in roles:
                roles[name] = "prompt"
        answer = next((n for n in typed + back_only if n in roles), None)
        for name in dict.fromkeys(back_only):
            if name not in roles or name == answer:
                continue
            roles[name] = "source" if _SOURCE_NAME.match(name) else "explanation"
        if answer is not None:
            roles[answer] = "answer"
        return roles

    def standard(self, note: AnkiNote, model: NoteType) -> list[MadeCard]:
        values = dict(zip(model.fields, note.fields, strict=False))
        made_cards = []
        mapped = self.roles.get(model.id)
        templates = model.templates[:1] if mapped else model.templates
        for number, (_, front, back) in enumerate(templates, 1):
            images: list[str] = []
            roles = dict(mapped) if mapped else self.default_roles(model, front, back)
            self.conversion.mapping.setdefault(
                model.name if len(model.templates) == 1 or mapped
                else f"{model.name} / card {number}", roles)
            if mapped:
                prompt = "\n".join(t for t in (self.text(values.get(f, ""), images)
                                               for f, r in roles.items() if r == "prompt") if t)
            else:
                prompt = self.text(render_template(front, values), images)
            answer_fields = [f for f, r in roles.items() if r == "answer"]
            answer = "\n".join(t for t in (self.text(values.get(f, ""), images)
                                           for f in answer_fields) if t)
            if self._url_only(answer):
                answer = ""
            explanation = self._explanation(
                (self.text(values.get(f, ""), images) for f, r in roles.items()
                 if r == "explanation"),
                (self.text(values.get(f, ""), images) for f, r in roles.items()
                 if r == "source"))
            made = self.card(f"note-{note.id}-{number}", prompt, answer, explanation,
                             answer_fields[0] if answer_fields else "")
            if made is not None:
                made_cards.append(MadeCard(made, note.deck_of(number - 1), images, note.tags))
        return made_cards

    @staticmethod
    def _url_only(text: str) -> bool:
        return bool(text) and bool(_URL_ONLY.match(text))

    def cloze(self, note: AnkiNote, model: NoteType) -> list[MadeCard]:
        values = dict(zip(model.fields, note.fields, strict=False))
        front = model.templates[0][1] if model.templates else "{{cloze:Text}}"
        back = model.templates[0][2] if model.templates else ""
        cloze_field = next((name for f, name in template_refs(front) if f == "cloze"),
                           model.fields[0])
        roles = {name: "ignore" for name in model.fields}
        roles[cloze_field] = "prompt+answer (cloze)"
        for name in template_fields(back) - template_fields(front):
            if name in roles:
                roles[name] = "source" if _SOURCE_NAME.match(name) else "explanation"
        self.conversion.mapping.setdefault(model.name, roles)
        source = values.get(cloze_field, "")
        cards = []
        for number in cloze_numbers(source):
            images: list[str] = []
            prompt_html, answers, hints = cloze_card(source, number)
            answer = ", ".join(a for a in (self.text(a, images) for a in answers) if a)
            whole = self.text(cloze_revealed(source), images)
            explanation = self._explanation(
                [whole, *(self.text(values.get(f, ""), images) for f, r in roles.items()
                          if r == "explanation")],
                (self.text(values.get(f, ""), images) for f, r in roles.items() if r == "source"))
            made = self.card(f"note-{note.id}-c{number}", self.text(prompt_html, images), answer,
                             explanation, cloze_field, hints)
            if made is not None:
                cards.append(MadeCard(made, note.deck_of(number - 1), images, note.tags))
        return cards

    # -- studyapp's own export -------------------------------------------------------

    def studyapp(self, note: AnkiNote, model: NoteType) -> list[MadeCard]:
        """A note studyapp exported: one card, or one per draw of a generated card."""
        name = model.name.removeprefix("studyapp ").strip()
        values = dict(zip(model.fields, note.fields, strict=False))
        images: list[str] = []
        tag_deck = next((t.split("::", 2)[2] for t in note.tags
                         if t.startswith("studyapp::deck::")), "")
        tag_post = next((t.split("::", 2)[2] for t in note.tags
                         if t.startswith("studyapp::post::")), "")
        deck = f"studyapp::{tag_deck}" if tag_deck else note.deck
        if name.startswith("draws"):
            suffixes = [f" {n}" for n in range(1, len(model.templates) + 1)]
            self.conversion.mapping.setdefault(model.name, {
                "Key": "ignore", "Prompt N": "prompt", "Choices N": "choices",
                "Answer N": "answer", "Accepted N": "accept",
                "Explanation N": "explanation", "Source": "ignore (the post's sources)"})
        else:
            suffixes = [""]
            self.conversion.mapping.setdefault(model.name, {
                "Key": "ignore", "Prompt": "prompt", "Answer": "answer",
                **({"Choices": "choices"} if name == "choice" else {}),
                **({"Accepted": "accept"} if name == "text" else {}),
                "Explanation": "explanation", "Source": "ignore (the post's sources)"})
        made = []
        for suffix in suffixes:
            def value(field_name: str, suffix: str = suffix) -> str:
                return self.text(values.get(field_name + suffix, ""), images)

            kind = name
            if suffix:  # a draw: its kind shows in which fields it fills
                kind = "choice" if value("Choices") else "text" if value("Accepted") else ""
            card = self._studyapp_card(kind, value, f"note-{note.id}{suffix.replace(' ', '-')}")
            if card is None:
                continue
            if suffix:
                card["fact"] = f"note-{note.id}"  # the draws of one card stay siblings
            if tag_post:
                card["post"] = tag_post
            made.append(MadeCard(card, deck, images, note.tags))
        return made

    @staticmethod
    def _studyapp_card(kind: str, value: Any, card_id: str) -> dict[str, Any] | None:
        prompt, answer, explanation = value("Prompt"), value("Answer"), value("Explanation")
        if not prompt or not answer:
            return None
        card: dict[str, Any] = {"id": card_id, "type": "recall",
                                "prompt": _yaml_text(prompt), "answer": _yaml_text(answer)}
        numeric = _NUMERIC.match(answer)
        if kind == "choice":
            choices = [re.sub(r"^\d+\)\s*", "", line) for line in value("Choices").split("\n")]
            picked = re.sub(r"^\d+\)\s*", "", answer)
            if len(choices) >= 2 and picked in choices:
                card = {"id": card_id, "type": "choice", "prompt": card["prompt"],
                        "choices": [_yaml_text(c) for c in choices],
                        "answer": choices.index(picked)}
        elif kind in ("truefalse", "") and answer.casefold() in _TRUE_WORDS | _FALSE_WORDS:
            card["type"], card["answer"] = "truefalse", answer.casefold() in _TRUE_WORDS
        elif kind in ("numeric", "") and numeric is not None:
            try:
                parsed = float(numeric.group("n").replace(",", ""))
            except ValueError:
                parsed = None
            if parsed is not None:
                card["type"] = "numeric"
                card["answer"] = int(parsed) if parsed.is_integer() else parsed
                if numeric.group("unit"):
                    card["unit"] = numeric.group("unit")
                if numeric.group("tol"):
                    card["tolerance"] = numeric.group("tol") + (
                        "%" if numeric.group("pct") == "%" else
                        f" {numeric.group('pct')}" if numeric.group("pct") else "")
        elif kind in ("text", "") and not is_long(answer):
            card["type"] = "text"
            accepted = [a.strip() for a in value("Accepted").split(",") if a.strip()]
            if accepted:
                card["accept"] = [_yaml_text(a) for a in accepted if a != answer]
        if explanation:
            card["explanation"] = _yaml_text(explanation)
        return card


def unsupported_reason(model: NoteType) -> str | None:
    """Why notes of this type cannot become cards here (None when they can)."""
    text = " ".join(t for _, f, b in model.templates for t in (f, b))
    if "image-occlusion" in model.name.casefold().replace(" ", "-") \
            or "imageOcclusion" in text or "image-occlusion" in text:
        return "Image Occlusion"
    return None


@contextmanager
def _zip(path: Path) -> Iterator[zipfile.ZipFile]:
    """The package open as a zip, once it is a regular file within ``MAX_PACKAGE_BYTES``."""
    try:
        with open_regular(path, MAX_PACKAGE_BYTES, what=PACKAGE) as handle, \
                zipfile.ZipFile(handle) as archive:
            yield archive
    except FileRefused as exc:
        raise AnkiPackageError(str(exc)) from None


def returning_card(note: AnkiNote, model: NoteType,
                   installed: Mapping[str, Mapping[str, str]]) -> tuple[str, str, str] | None:
    """(deck id, card id, post) of the installed card a studyapp note was exported from.

    Its first field is its key, ``deck/card`` (`` (es)`` after it for another
    language); the card must still be in that deck.
    """
    if not model.name.startswith("studyapp ") or not note.fields:
        return None
    key = re.sub(r" \([a-z]{2}\)$", "", html.unescape(note.fields[0]).strip())
    deck, _, card = key.partition("/")
    post = installed.get(deck, {}).get(card)
    return (deck, card, post) if post is not None else None


def convert_package(path: Path, *, language: str, deck_id: str | None = None,
                    post: str = "intro", merge: bool = False,
                    field_map: Mapping[str, Mapping[str, str]] | None = None,
                    posts: Iterable[str] = (),
                    installed: Mapping[str, Mapping[str, str]] | None = None) -> Conversion:
    """Studyapp decks (as YAML-ready mappings) from the notes of an Anki package.

    One deck per Anki deck (subdecks included), or one for all with ``merge``.
    ``posts`` are the known post slugs: a card's post from a studyapp tag is
    kept only if it is one of them. ``installed`` (deck id → card id → post)
    are the decks already here: a note studyapp exported from one of their
    cards makes no new card, its history goes back to that card
    (``Conversion.returning``).
    """
    collection = read_collection(path)
    models = {m.id: m for m in collection.note_types}
    conversion = Conversion(media=collection.media, package=path,
                            media_compressed=collection.media_compressed)
    converter = _Converter(conversion, _resolve_maps(field_map or {}, collection.note_types),
                           language)
    known_posts = set(posts)
    made: list[MadeCard] = []
    for note in collection.notes:
        model = models.get(note.model_id)
        if model is None:
            conversion.skipped_notes["unknown note type"] += 1
            continue
        reason = unsupported_reason(model)
        if reason is not None and model.id not in converter.roles:
            conversion.unsupported[reason] += 1
            continue
        returning = returning_card(note, model, installed) if installed else None
        if returning is not None:
            conversion.returning[note.id] = returning
            conversion.notes += 1
            continue
        if model.name.startswith("studyapp ") and (
                model.name.removeprefix("studyapp ") in _STUDYAPP_KINDS
                or model.name.startswith("studyapp draws")):
            cards = converter.studyapp(note, model)
        elif model.cloze and model.id not in converter.roles:
            cards = converter.cloze(note, model)
        else:
            cards = converter.standard(note, model)
        if not cards:
            if model.cloze or any(template_fields(b) - template_fields(f)
                                  for _, f, b in model.templates) or model.id in converter.roles:
                conversion.skipped_notes["nothing to ask or no answer"] += 1
            else:
                conversion.unsupported[model.name] += 1
            continue
        conversion.notes += 1
        conversion.media_skipped += sum(to_text(f).dropped for f in note.fields)
        for card in cards:
            if card.card.get("post") and card.card["post"] not in known_posts:
                del card.card["post"]
            tags = [t for t in note.tags if t and len(t) <= 100
                    and not t.casefold().startswith("studyapp::")]
            if tags:
                card.card["tags"] = tags[:50]
        made.extend(cards)
    if not made and not conversion.returning:
        found = ", ".join(f"{n} {name}" for name, n in conversion.unsupported.items())
        raise AnkiPackageError("no note with a question and an answer"
                               + (f" (left out: {found})" if found else ""))
    groups: dict[str, list[MadeCard]] = defaultdict(list)
    for card in made:
        groups["" if merge else card.deck].append(card)
    if merge:
        names = Counter(c.deck for c in made if c.deck)
        top = {n.split("::")[0] for n in names}
        merged_name = top.pop() if len(top) == 1 else (
            names.most_common(1)[0][0].split("::")[0] if names else path.stem)
        groups = {merged_name: groups[""]}
    used: set[str] = set()
    for name, cards in sorted(groups.items(), key=lambda kv: kv[0]):
        title = " › ".join(part for part in name.split("::") if part) or path.stem
        base = slug(name.replace("::", "-")) if name else slug(path.stem)
        ident = (deck_id if len(groups) == 1 else f"{deck_id}-{base}") if deck_id else base
        while ident in used:
            ident += "-2"
        used.add(ident)
        deck: dict[str, Any] = {"deck": ident[:100], "title": _yaml_text(title),
                                "language": language, "post": post,
                                "cards": [c.card for c in cards]}
        conversion.decks.append(deck)
        for card in cards:
            conversion.card_decks[card.card["id"]] = deck["deck"]
            conversion.card_posts[card.card["id"]] = card.card.get("post", post)
        images = list(dict.fromkeys(i for c in cards for i in c.images))
        if images:
            conversion.images[deck["deck"]] = images
    conversion.cards = len(made)
    conversion.mapped = frozenset(converter.roles)
    conversion.collection = collection
    return conversion


def copy_images(conversion: Conversion, deck_id: str, folder: Path) -> tuple[int, list[str]]:
    """Copy the images a deck's cards name into ``folder``; (copied, missing names).

    Only raster images by their bytes are copied: any other file (an SVG, an
    HTML page, whatever its name) is left out and recorded, with why, in
    ``conversion.refused_images``.
    """
    wanted = conversion.images.get(deck_id, [])
    if not wanted:
        return 0, []
    copied, missing = 0, []
    with _zip(conversion.package) as archive:
        members = set(archive.namelist())
        for name in wanted:
            member = conversion.media.get(name)
            if member is None or member not in members or not _plain_file_name(name) \
                    or archive.getinfo(member).file_size > MAX_MEDIA_BYTES:
                missing.append(name)
                continue
            try:
                if conversion.media_compressed:  # Anki's current format: each file zstd'd
                    data = unzstd(archive.read(member), MAX_MEDIA_BYTES, f"media file {name}")
                else:
                    with archive.open(member) as source:
                        data = source.read(MAX_MEDIA_BYTES + 1)
            except (FormatError, zipfile.BadZipFile, zlib.error):
                missing.append(name)
                continue
            try:
                check_image(data)
            except MediaRefused as refusal:
                conversion.refused_images.append((name, refusal.reason))
                continue
            folder.mkdir(parents=True, exist_ok=True)
            # a fresh O_EXCL file renamed into place: a planted symlink is never written through
            with replacing(folder / name, binary=True) as target:
                target.write(data)
            copied += 1
    return copied, missing


def _plain_file_name(name: str) -> bool:
    """A media name that stays in the deck's media folder: no folder, no dot file."""
    return bool(name) and name == Path(name).name and not name.startswith(".") \
        and "\\" not in name and name.isprintable()


def deck_yaml(deck: Mapping[str, Any]) -> str:
    """The deck as YAML for an instructor to edit (keys in the documented order)."""
    return yaml.safe_dump(dict(deck), allow_unicode=True, sort_keys=False, width=100)


def dry_run_lines(conversion: Conversion, sample: int = 3, lang: str = "en") -> list[str]:
    """The field roles used per note type, and a few cards of each deck."""
    from studyapp.i18n import t

    lines = [t("anki.dry.roles", lang)]
    for name, roles in conversion.mapping.items():
        lines.append(f"  {name}: " + ", ".join(f"{f}={r}" for f, r in roles.items()))
    for deck in conversion.decks:
        cards = deck["cards"]
        lines.append(t("anki.dry.deck", lang, deck=deck["deck"], cards=len(cards)))
        for card in cards[:sample]:
            answer = card["answer"]
            if card["type"] == "choice":
                answer = card["choices"][answer]
            accept = (f"  {t('anki.dry.also', lang)} {' | '.join(card['accept'])}"
                      if card.get("accept") else "")
            lines.append(f"  [{card['type']}] {_one_line(card['prompt'])}")
            lines.append(f"    {t('anki.dry.answer', lang)} {_one_line(str(answer))}{accept}")
    return lines


def _one_line(text: str, room: int = 100) -> str:
    flat = " ⏎ ".join(text.replace("{{", "{").replace("}}", "}").split("\n"))
    return flat if len(flat) <= room else flat[:room - 1] + "…"

