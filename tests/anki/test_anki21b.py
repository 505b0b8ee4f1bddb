"""The protobuf and zstd readers of Anki's current package format, byte by byte.

The messages are written with Anki's own generated protobuf classes (the test-only
``anki`` package), so field numbers and encodings are Anki's, not ours.
"""

from __future__ import annotations

import pytest
import zstandard

from studyapp.anki.anki21b import FormatError, media_entries, read_message, unzstd

notetypes = pytest.importorskip("anki.notetypes_pb2")
import_export = pytest.importorskip("anki.import_export_pb2")
decks = pytest.importorskip("anki.decks_pb2")


def test_a_template_config_gives_its_front_and_back_formats() -> None:
    blob = notetypes.Notetype.Template.Config(
        q_format="{{Front}} — ¿HBM?", a_format="{{FrontSide}}<hr id=answer>{{Back}}",
        target_deck_id=-5, browser_font_size=12).SerializeToString()
    config = read_message(blob, "template")
    assert config.text(1) == "{{Front}} — ¿HBM?"
    assert config.text(2) == "{{FrontSide}}<hr id=answer>{{Back}}"
    assert config.signed(5) == -5  # an int64 below zero is ten varint bytes
    assert config.integer(7) == 12


def test_a_cloze_note_type_says_so_in_its_kind() -> None:
    cloze = notetypes.Notetype.Config(kind=notetypes.Notetype.Config.KIND_CLOZE, css="x" * 5000)
    normal = notetypes.Notetype.Config(css="card {}")
    assert read_message(cloze.SerializeToString(), "cloze").integer(1) == 1
    assert read_message(normal.SerializeToString(), "basic").integer(1) == 0  # the default


def test_a_deck_kind_gives_its_options_group() -> None:
    kind = decks.Deck.KindContainer(normal=decks.Deck.Normal(config_id=1723, description="d"))
    normal = read_message(kind.SerializeToString(), "deck").raw(1)
    assert normal is not None
    assert read_message(normal, "normal").signed(1) == 1723


def test_the_media_list_maps_names_to_members() -> None:
    listing = import_export.MediaEntries(entries=[
        import_export.MediaEntries.MediaEntry(name="h100.png", size=67, sha1=b"\x01" * 20),
        import_export.MediaEntries.MediaEntry(name="ñ b.jpg", size=3, legacy_zip_filename=9),
    ])
    data = zstandard.ZstdCompressor().compress(listing.SerializeToString())
    entries = media_entries(data, 2**20)
    assert [(e.name, e.member, e.size) for e in entries] == [("h100.png", "0", 67),
                                                             ("ñ b.jpg", "9", 3)]


@pytest.mark.parametrize(("blob", "says"), [
    (b"\x0a\x05abc", "field 1 says 5 bytes, 3 are left"),
    (b"\x08" + b"\xff" * 10 + b"\x01", "a number longer than 64 bits"),
    (b"\x08\xff", "it ends inside a number"),
    (b"\x0b\x0c", "wire type 3"),  # groups: Anki never writes them
    (b"\x0e", "wire type 6"),
    (b"\x02\x00", "field number 0"),
    (b"\x0d\x01\x02", "it ends inside a number"),  # fixed32 cut short
])
def test_malformed_protobuf_is_refused(blob: bytes, says: str) -> None:
    with pytest.raises(FormatError, match=says):
        read_message(blob, "the config")


def test_a_field_of_the_wrong_kind_is_refused() -> None:
    message = read_message(b"\x08\x01\x12\x02\xff\xfe", "the config")
    with pytest.raises(FormatError, match="field 1 is not text"):
        message.text(1)
    with pytest.raises(FormatError, match="field 2 is not a number"):
        message.integer(2)
    with pytest.raises(FormatError, match="field 2 is not UTF-8 text"):
        message.text(2)


def test_zstd_is_unpacked_whole_and_only_whole() -> None:
    data = b"SQLite format 3\0" + bytes(range(256)) * 400
    frame = zstandard.ZstdCompressor().compress(data)
    assert unzstd(frame, len(data), "it") == data
    with pytest.raises(FormatError, match="unpacks to over"):
        unzstd(frame, len(data) - 1, "it")
    with pytest.raises(FormatError, match="truncated"):
        unzstd(frame[:-4], len(data), "it")
    with pytest.raises(FormatError, match="bytes after its zstd frame"):
        unzstd(frame + b"junk", len(data), "it")
    with pytest.raises(FormatError, match="not zstd-compressed"):
        unzstd(data, len(data), "it")


def test_a_bomb_is_stopped_near_the_limit_without_unpacking_it_all() -> None:
    """A 1 GiB frame of zeros (about 32 KiB compressed) stops at a 1 MiB limit."""
    import io
    import time
    import tracemalloc

    target = io.BytesIO()
    with zstandard.ZstdCompressor(write_content_size=False).stream_writer(
            target, closefd=False) as writer:
        for _ in range(1024):
            writer.write(bytes(2**20))
    bomb = target.getvalue()
    assert len(bomb) < 2**20
    tracemalloc.start()
    started = time.monotonic()
    with pytest.raises(FormatError, match="unpacks to over 1 MiB"):
        unzstd(bomb, 2**20, "the bomb")
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 64 * 2**20 and time.monotonic() - started < 5
