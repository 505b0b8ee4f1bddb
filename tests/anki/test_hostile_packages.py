"""Anki packages made to break the reader: each is refused in one line, none hangs.

Built from a real genanki package, then altered: a FIFO for a file, a member
whose CRC does not match, a collection whose tables are views (one of them
recursive, which never ends), note types with fields missing or of the wrong
type, and a template of ``{{`` followed by thousands of spaces.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import time
import zipfile
from collections.abc import Callable
from pathlib import Path

import genanki
import pytest
from anki_fixtures import PNG
from click.testing import CliRunner

from studyapp.anki.anki_text import render_template, template_refs
from studyapp.anki.from_anki import AnkiPackageError, convert_package
from studyapp.cli import main


def good_package(tmp_path: Path) -> Path:
    deck = genanki.Deck(2059400111, "Hostile")
    deck.add_note(genanki.Note(model=genanki.BASIC_MODEL, fields=["Which memory?", "HBM3e"]))
    path = tmp_path / "good.apkg"
    genanki.Package(deck).write_to_file(str(path))
    return path


def altered(tmp_path: Path, name: str, change: str | None = None,
            models: object = None) -> Path:
    """The good package with its collection changed by SQL or with other note types."""
    source = good_package(tmp_path)
    work = tmp_path / f"{name}.anki2"
    with zipfile.ZipFile(source) as archive:
        work.write_bytes(archive.read("collection.anki2"))
        media = archive.read("media")
    connection = sqlite3.connect(work)
    with connection:
        if change:
            connection.executescript(change)
        if models is not None:
            connection.execute("UPDATE col SET models = ?", (json.dumps(models),))
    connection.close()
    target = tmp_path / f"{name}.apkg"
    with zipfile.ZipFile(target, "w") as archive:
        archive.write(work, "collection.anki2")
        archive.writestr("media", media)
    return target


RECURSIVE_VIEW = """
ALTER TABLE notes RENAME TO notes_real;
CREATE VIEW notes AS WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r)
    SELECT n AS id, '' AS guid, 0 AS mid, '' AS flds, '' AS tags FROM r;
"""


RECURSIVE_COL = """
ALTER TABLE col RENAME TO col_real;
CREATE VIEW col AS WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r)
    SELECT n AS id, 0 AS crt, 0 AS mod, 0 AS scm, 0 AS ver, 0 AS dty, 0 AS usn, 0 AS ls,
           '' AS conf, '' AS models, '' AS decks, '' AS dconf, '' AS tags FROM r;
"""
DEEP_MODELS = ("UPDATE col SET models = '{\"1\": ' || replace(printf('%.50000c', '['), ' ', '[')"
               " || replace(printf('%.50000c', ']'), ' ', ']') || '}';")
"""Note types nested 50,000 deep: ``json.loads`` raised RecursionError, a traceback."""


TWO_HEADERS = ("INSERT INTO col SELECT id + 1, crt, mod, scm, ver, dty, usn, ls, conf, "
               "models, decks, dconf, tags FROM col;")


@pytest.mark.parametrize(("name", "change", "models", "says"), [
    ("view", RECURSIVE_VIEW, None, "'notes' is a view, not a table"),
    ("no-revlog", "DROP TABLE revlog;", None, "'revlog' is missing"),
    ("fields-missing", None, {"1": {"id": 1, "name": "Basic", "tmpls": []}},
     "no note with a question and an answer"),  # its notes' note type is gone
    ("field-not-a-record", None, {"1": {"id": 1, "name": "B", "flds": [7], "tmpls": []}},
     "note type 1, field 'flds.0'"),
    ("id-not-a-number", None, {"1": {"id": "x", "name": "B", "flds": [], "tmpls": []}},
     "note type 1, field 'id'"),
    ("field-without-name", None, {"1": {"id": 1, "flds": [{"ord": 0}], "tmpls": []}},
     "note type 1, field 'flds.0.name'"),
    ("models-a-list", None, [1, 2, 3], "malformed"),
    ("two-headers", TWO_HEADERS, None, "rows in 'col'"),
    ("col-view", RECURSIVE_COL, None, "'col' is a view, not a table"),
    ("models-not-json", "UPDATE col SET models = '{not json';", None,
     "note types are not valid JSON"),
    ("models-too-deep", DEEP_MODELS, None, "note types are not valid JSON"),
    ("decks-not-json", "UPDATE col SET decks = '[1,2';", None, "decks are not valid JSON"),
    ("decks-a-list", "UPDATE col SET decks = '[1,2,3]';", None,
     "decks are malformed: Input should be a valid dictionary"),
    ("deck-a-string", "UPDATE col SET decks = '{\"1\": \"x\"}';", None,
     "decks are malformed: '1': Input should be a valid dictionary"),
    ("options-a-list", "UPDATE col SET dconf = '[[]]';", None, "deck options are malformed"),
    ("card-due-text", "UPDATE cards SET id = 1, due = 'soon';", None,
     "'cards' row '1': field 'due'"),
    ("note-type-text", "UPDATE notes SET id = 1, mid = 'x';", None,
     "'notes' row '1': field 'mid'"),
    ("fields-not-text", "UPDATE notes SET id = 1, flds = x'ff00ff';", None,
     "'notes' row '1': field 'flds'"),
    ("review-ease-text", "INSERT INTO revlog VALUES (7, 1, 0, 'x', 1, 1, 2500, 100, 0);", None,
     "'revlog' row '7': field 'ease'"),
])
def test_a_malformed_collection_is_refused_in_one_line(tmp_path: Path, name: str,
                                                        change: str | None, models: object,
                                                        says: str) -> None:
    path = altered(tmp_path, name, change, models)
    started = time.monotonic()
    with pytest.raises(AnkiPackageError) as caught:
        convert_package(path, language="en")
    assert says in str(caught.value) and "\n" not in str(caught.value)
    assert time.monotonic() - started < 20  # the recursive view is never read


def test_a_member_failing_its_crc_is_called_damaged(tmp_path: Path) -> None:
    path = good_package(tmp_path)
    damaged = tmp_path / "damaged.apkg"
    with zipfile.ZipFile(path) as source, zipfile.ZipFile(damaged, "w",
                                                           zipfile.ZIP_STORED) as target:
        for item in source.infolist():
            target.writestr(item.filename, source.read(item.filename))
    raw = bytearray(damaged.read_bytes())
    at = raw.index(b"SQLite format 3") + 200  # a byte inside the stored collection
    raw[at] ^= 0xFF
    damaged.write_bytes(bytes(raw))
    with pytest.raises(AnkiPackageError, match="damaged: a file inside fails its CRC check"):
        convert_package(damaged, language="en")


def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.apkg"
    os.mkfifo(fifo)
    result = CliRunner().invoke(main, ["--lang", "en", "deck", "from-anki", str(fifo), "-o",
                                       str(tmp_path / "out.yaml")],
                                env={"STUDYAPP_HOME": str(tmp_path / "home"),
                                     "STUDYAPP_DB": None})
    assert result.exit_code != 0
    assert "not a regular file" in result.output or "Path" in result.output


def test_a_template_of_braces_and_spaces_is_read_in_linear_time() -> None:
    hostile = "{{" + " " * 100_000 + "{{#" + " " * 100_000
    started = time.monotonic()
    assert template_refs(hostile) == []
    render_template(hostile, {})
    assert time.monotonic() - started < 2  # it took 155 s at 1,000 spaces before


def test_the_reader_still_reads_what_anki_writes(tmp_path: Path) -> None:
    conversion = convert_package(good_package(tmp_path), language="en")
    assert conversion.cards == 1
    shutil.rmtree(tmp_path / "unused", ignore_errors=True)


def test_a_deck_the_app_would_refuse_is_never_written(tmp_path: Path) -> None:
    """100k notes made an 8.9 MB deck that the app then refused; now nothing is written."""
    small = genanki.Deck(2059400113, "Big::Alpha")  # converted first
    small.add_note(genanki.Note(model=genanki.BASIC_MODEL, fields=["Which memory?", "HBM3e"]))
    big = genanki.Deck(2059400114, "Big::Huge")
    for n in range(60):  # 60 answers of 100 kB: a 6 MB deck
        big.add_note(genanki.Note(model=genanki.BASIC_MODEL,
                                  fields=[f"Question {n}?", f"answer {n} " + "x" * 100_000]))
    path = tmp_path / "big.apkg"
    genanki.Package([small, big]).write_to_file(str(path))
    out = tmp_path / "decks"
    result = CliRunner().invoke(main, ["--lang", "en", "deck", "from-anki", str(path), "-o",
                                       str(out)],
                                env={"STUDYAPP_HOME": str(tmp_path / "home"),
                                     "STUDYAPP_DB": None})
    assert result.exit_code == 1
    assert "would be 6.0 MB; studyapp reads decks up to 5 MB" in result.output
    assert not out.exists() or not list(out.iterdir())  # not even the small deck


def test_the_size_limit_is_said_in_mib(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """200 MiB once read '210 MB'; the limit and the size are both in MiB."""
    import studyapp.anki.anki_collection as anki_collection

    deck = genanki.Deck(2059400115, "Large")
    deck.add_note(genanki.Note(model=genanki.BASIC_MODEL, fields=["Q?", "a" * 3 * 2**20]))
    path = tmp_path / "large.apkg"
    genanki.Package(deck).write_to_file(str(path))
    monkeypatch.setattr(anki_collection, "MAX_COLLECTION_BYTES", 2 * 2**20)
    with pytest.raises(AnkiPackageError, match=r"is 3 MiB unpacked; the limit is 2 MiB$"):
        convert_package(path, language="en")


# ---------------------------------------------------------------- Anki's current format


def current_package(tmp_path: Path) -> Path:
    """A package as Anki 2.1.50+ writes it by default: collection.anki21b, zstd, schema 18."""
    collection = pytest.importorskip("anki.collection")
    col = collection.Collection(str(tmp_path / "current.anki2"))
    try:
        note = col.new_note(col.models.by_name("Basic"))
        note["Front"], note["Back"] = "Which memory?", "HBM3e"
        col.add_note(note, col.decks.id("Hostile::Current"))
        path = tmp_path / "current.apkg"
        col.export_anki_package(out_path=str(path), limit=None,
                                options=collection.ExportAnkiPackageOptions(legacy=False))
    finally:
        col.close()
    return path


def current_altered(tmp_path: Path, name: str, *, change: str | None = None,
                    members: dict[str, bytes] | None = None) -> Path:
    """The current-format package with its collection changed by SQL or members replaced."""
    import zstandard

    source = current_package(tmp_path)
    with zipfile.ZipFile(source) as archive:
        contents = {item: archive.read(item) for item in archive.namelist()}
    if change:
        work = tmp_path / f"{name}.sqlite"
        work.write_bytes(zstandard.ZstdDecompressor().decompressobj().decompress(
            contents["collection.anki21b"]))
        connection = sqlite3.connect(work)
        connection.create_collation("unicase", lambda a, b: (a.casefold() > b.casefold())
                                    - (a.casefold() < b.casefold()))
        with connection:
            connection.executescript(change)
        connection.close()
        contents["collection.anki21b"] = zstandard.ZstdCompressor().compress(work.read_bytes())
    contents.update(members or {})
    target = tmp_path / f"{name}.apkg"
    with zipfile.ZipFile(target, "w") as archive:
        for member, data in contents.items():
            archive.writestr(member, data)
    return target


def _zstd(data: bytes) -> bytes:
    import zstandard

    return zstandard.ZstdCompressor().compress(data)


def test_the_reader_reads_the_current_format_anki_writes(tmp_path: Path) -> None:
    conversion = convert_package(current_package(tmp_path), language="en")
    assert conversion.cards == 1 and conversion.deck["deck"] == "hostile-current"


def _bomb() -> bytes:
    """210 MiB of zeros in a frame of a few KiB that does not declare its size."""
    import io

    import zstandard

    target = io.BytesIO()
    with zstandard.ZstdCompressor(write_content_size=False).stream_writer(
            target, closefd=False) as writer:
        chunk = bytes(2**20)
        for _ in range(210):
            writer.write(chunk)
    return target.getvalue()


@pytest.mark.parametrize(("name", "change", "members", "says"), [
    ("bomb", None, lambda: {"collection.anki21b": _bomb()}, "unpacks to over 200 MiB"),
    ("truncated", None, lambda: {"collection.anki21b": _zstd(b"SQLite format 3\0" * 4096)[:-9]},
     "truncated: its zstd data ends before the frame does"),
    ("not-zstd", None, lambda: {"collection.anki21b": b"\x28\xb5\x2f\xfd" + b"\xff" * 64},
     "damaged: its zstd data cannot be unpacked"),
    ("bad-template", "UPDATE templates SET config = x'0aff01';",
     None, "not a valid protobuf: field 1 says 255 bytes"),
    ("group-in-notetype", "UPDATE notetypes SET config = x'0b';", None,
     "not a valid protobuf: wire type 3"),
    ("deck-kind-overlong", "UPDATE decks SET kind = x'08ffffffffffffffffffff01';", None,
     "a number longer than 64 bits"),
    ("template-not-text", "UPDATE templates SET config = x'0a02ff00';", None,
     "field 1 is not UTF-8 text"),
    ("notetypes-view", "ALTER TABLE notetypes RENAME TO nt; CREATE VIEW notetypes AS "
     "SELECT * FROM nt;", None, "'notetypes' is a view, not a table"),
    ("no-fields", "DROP TABLE fields;", None, "'fields' is missing"),
    ("field-ord-text", "UPDATE fields SET ord = 'x' WHERE ord = 0;", None,
     "ord': Input should be a valid integer"),
    ("media-list-bomb", None, lambda: {"media": _zstd(bytes(17 * 2**20))},
     "media list unpacks to over 16 MiB"),
    ("media-list-bad", None, lambda: {"media": _zstd(b"\x0a\x05\x0a\x01")},
     "media list is not a valid protobuf"),
])
def test_a_malformed_current_package_is_refused_in_one_line(
        tmp_path: Path, name: str, change: str | None,
        members: Callable[[], dict[str, bytes]] | None, says: str) -> None:
    """Members are made when the case runs: the bombs are never built at collection."""
    path = current_altered(tmp_path, name, change=change, members=members() if members else None)
    started = time.monotonic()
    with pytest.raises(AnkiPackageError) as caught:
        convert_package(path, language="en")
    assert says in str(caught.value) and "\n" not in str(caught.value), str(caught.value)
    assert time.monotonic() - started < 20


def test_a_malformed_current_package_is_one_line_at_the_command_line(tmp_path: Path) -> None:
    path = current_altered(tmp_path, "bad", change="UPDATE templates SET config = x'0aff01';")
    result = CliRunner().invoke(main, ["--db", f"sqlite:///{tmp_path / 'study.sqlite3'}",
                                       "--lang", "en", "import", str(path)])
    assert result.exit_code != 0
    assert "not a valid protobuf" in result.output and "Traceback" not in result.output


def test_a_media_file_that_is_a_zstd_bomb_is_not_copied(tmp_path: Path) -> None:
    from studyapp.anki.from_anki import copy_images

    collection = pytest.importorskip("anki.collection")
    col = collection.Collection(str(tmp_path / "media.anki2"))
    try:
        note = col.new_note(col.models.by_name("Basic"))
        note["Front"], note["Back"] = 'Which GPU? <img src="gpu.png">', "H100"
        col.add_note(note, col.decks.id("Media"))
        col.media.write_data("gpu.png", PNG)
        source = tmp_path / "media.apkg"
        col.export_anki_package(out_path=str(source), limit=None,
                                options=collection.ExportAnkiPackageOptions(legacy=False,
                                                                            with_media=True))
    finally:
        col.close()
    conversion = convert_package(source, language="en")
    assert copy_images(conversion, "media", tmp_path / "good") == (1, [])
    assert (tmp_path / "good" / "gpu.png").read_bytes() == PNG
    member = conversion.media["gpu.png"]
    with zipfile.ZipFile(source) as archive:
        contents = {item: archive.read(item) for item in archive.namelist()}
    bomb = tmp_path / "bomb.apkg"
    with zipfile.ZipFile(bomb, "w") as archive:
        for name, data in contents.items():
            archive.writestr(name, _zstd(bytes(51 * 2**20)) if name == member else data)
    conversion = convert_package(bomb, language="en")
    assert copy_images(conversion, "media", tmp_path / "bad") == (0, ["gpu.png"])
    assert not (tmp_path / "bad" / "gpu.png").exists()
