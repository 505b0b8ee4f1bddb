"""The pieces of Anki's current package format (2.1.50+) that the collection reader needs.

Such a package holds ``collection.anki21b``: the SQLite collection compressed
with zstd, at schema 18, where note types, their fields and templates, decks
and deck options are rows whose settings are protobuf blobs. Its ``media``
member is a zstd-compressed protobuf list of the media files, and each media
file is itself compressed. Both formats are decoded here with hard limits:
a bounded zstd reader (a small frame that unpacks to gigabytes is stopped at
the limit) and a small protobuf wire-format reader for the few fields used,
so no protobuf runtime is needed and malformed bytes are refused, never
guessed at. Field numbers are those of Anki's ``proto/anki/*.proto``.
"""

from __future__ import annotations

from dataclasses import dataclass

import zstandard

__all__ = [
    "ZSTD_MAGIC", "FormatError", "MediaEntry", "ProtoMessage", "media_entries", "read_message",
    "unzstd",
]

ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
"""The first four bytes of a zstd frame."""

MAX_WINDOW_BYTES = 2**27
"""A frame asking for a larger window (memory to decompress it) is refused."""

_FEED_BYTES = 1024
"""Compressed bytes handed to zstd at a time: output is checked against the limit between
pieces, so a bomb overshoots it by at most a few MiB before it is stopped."""

MAX_PROTOBUF_BYTES = 16 * 1024 * 1024
"""A protobuf blob longer than this is refused (a note type's CSS is a few KiB)."""
MAX_MESSAGE_FIELDS = 200_000
MAX_MEDIA_ENTRIES = 100_000


class FormatError(ValueError):
    """Bytes that are not what Anki writes: a bad frame, a bad protobuf, too big."""


def unzstd(data: bytes, limit: int, what: str) -> bytes:
    """One zstd frame unpacked, refused when malformed, truncated or over ``limit`` bytes."""
    if not data.startswith(ZSTD_MAGIC):
        raise FormatError(f"{what} is not zstd-compressed as Anki writes it")
    try:
        decompressor = zstandard.ZstdDecompressor(max_window_size=MAX_WINDOW_BYTES)
        stream = decompressor.decompressobj()
        out = bytearray()
        for start in range(0, len(data), _FEED_BYTES):
            out += stream.decompress(data[start:start + _FEED_BYTES])
            if len(out) > limit:
                raise FormatError(f"{what} unpacks to over {limit / 2**20:.0f} MiB; "
                                  f"that is the limit")
            if stream.eof:
                break
    except zstandard.ZstdError as exc:
        raise FormatError(f"{what} is damaged: its zstd data cannot be unpacked "
                          f"({exc})") from None
    if not stream.eof:
        raise FormatError(f"{what} is truncated: its zstd data ends before the frame does")
    if stream.unused_data:
        raise FormatError(f"{what} has bytes after its zstd frame; Anki writes one frame")
    return bytes(out)


@dataclass(frozen=True)
class ProtoMessage:
    """A decoded protobuf message: field number → its values, in order (varints and fixed
    numbers as ints, length-delimited fields as bytes)."""

    fields: dict[int, list[int | bytes]]
    what: str

    def integer(self, number: int, default: int = 0) -> int:
        """The last value of a numeric field (protobuf's rule for a repeated scalar)."""
        values = self.fields.get(number)
        if not values:
            return default
        value = values[-1]
        if not isinstance(value, int):
            raise FormatError(f"{self.what}: field {number} is not a number")
        return value

    def signed(self, number: int, default: int = 0) -> int:
        """An ``int64`` field: varints above 2**63 are negative."""
        value = self.integer(number, default)
        return value - 2**64 if value >= 2**63 else value

    def raw(self, number: int) -> bytes | None:
        values = self.fields.get(number)
        if not values:
            return None
        value = values[-1]
        if not isinstance(value, bytes):
            raise FormatError(f"{self.what}: field {number} is not text or bytes")
        return value

    def text(self, number: int, default: str = "") -> str:
        value = self.raw(number)
        if value is None:
            return default
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            raise FormatError(f"{self.what}: field {number} is not UTF-8 text") from None

    def messages(self, number: int) -> list[ProtoMessage]:
        """Every value of a repeated message field, each decoded."""
        found = []
        for index, value in enumerate(self.fields.get(number, [])):
            if not isinstance(value, bytes):
                raise FormatError(f"{self.what}: field {number} is not a message")
            found.append(read_message(value, f"{self.what}, entry {index + 1}"))
        return found


def _varint(blob: bytes, at: int, what: str) -> tuple[int, int]:
    value = shift = 0
    for count in range(10):
        if at >= len(blob):
            raise FormatError(f"{what} is not a valid protobuf: it ends inside a number")
        byte = blob[at]
        at += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            if count == 9 and byte > 1:
                break
            return value, at
        shift += 7
    raise FormatError(f"{what} is not a valid protobuf: a number longer than 64 bits")


def read_message(blob: bytes, what: str) -> ProtoMessage:
    """The fields of one protobuf message; groups, field 0 and overruns are refused."""
    if len(blob) > MAX_PROTOBUF_BYTES:
        raise FormatError(f"{what} is {len(blob) / 2**20:.0f} MiB; the limit is "
                          f"{MAX_PROTOBUF_BYTES / 2**20:.0f} MiB")
    fields: dict[int, list[int | bytes]] = {}
    at = count = 0
    while at < len(blob):
        count += 1
        if count > MAX_MESSAGE_FIELDS:
            raise FormatError(f"{what} has over {MAX_MESSAGE_FIELDS:,} fields")
        key, at = _varint(blob, at, what)
        number, wire = key >> 3, key & 0b111
        if number == 0 or number >= 2**29:
            raise FormatError(f"{what} is not a valid protobuf: field number {number}")
        value: int | bytes
        if wire == 0:
            value, at = _varint(blob, at, what)
        elif wire in (1, 5):
            size = 8 if wire == 1 else 4
            if at + size > len(blob):
                raise FormatError(f"{what} is not a valid protobuf: it ends inside a number")
            value = int.from_bytes(blob[at:at + size], "little")
            at += size
        elif wire == 2:
            length, at = _varint(blob, at, what)
            if length > len(blob) - at:
                raise FormatError(f"{what} is not a valid protobuf: field {number} says "
                                  f"{length:,} bytes, {len(blob) - at:,} are left")
            value = blob[at:at + length]
            at += length
        else:
            raise FormatError(f"{what} is not a valid protobuf: wire type {wire} "
                              f"in field {number}")
        fields.setdefault(number, []).append(value)
    return ProtoMessage(fields, what)


@dataclass(frozen=True)
class MediaEntry:
    name: str
    member: str
    """The zip member holding the (compressed) file."""
    size: int


def media_entries(data: bytes, limit: int) -> list[MediaEntry]:
    """The package's ``media`` member (``MediaEntries``): file names and where each is.

    Entry ``i`` is zip member ``str(i)`` unless it names another (field 255,
    ``legacy_zip_filename``).
    """
    listing = read_message(unzstd(data, limit, "the package's media list"),
                           "the package's media list")
    entries = []
    raw_entries = listing.messages(1)  # MediaEntries.entries
    if len(raw_entries) > MAX_MEDIA_ENTRIES:
        raise FormatError(f"the package's media list names {len(raw_entries):,} files; "
                          f"studyapp reads at most {MAX_MEDIA_ENTRIES:,}")
    for index, entry in enumerate(raw_entries):
        member = entry.integer(255, index) if 255 in entry.fields else index
        entries.append(MediaEntry(entry.text(1), str(member), entry.integer(2)))
    return entries
