"""Images a card names: ``[image: NAME]`` in its text, a file in the deck's media folder.

A deck file ``course.yaml`` keeps its images in ``course.media/`` beside it
(``deck from-anki`` copies them there, ``deck add`` installs them with the
deck). Only a plain file name inside that folder is ever opened.

A media file is a raster image (PNG, JPEG, GIF or WebP) by its bytes, never by
its name: an SVG or HTML file runs script when a browser opens it, so each
file is checked where it is stored (``deck add``, ``deck from-anki``,
``import``, an Anki export) and again where it is opened, and anything else
is refused with the reason (``MediaRefused``). The check reads the whole
image's structure: the signature, the header, every chunk or block to the
image's end (nothing may follow it in a PNG, GIF or WebP), and no markup in
the text an image may carry (a PNG text chunk, a GIF or JPEG comment).
"""

from __future__ import annotations

import os
import re
import stat
import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from studyapp.decks.problems import ProblemMessage, problem_message

IMAGE_MARK = re.compile(r"\[image: ([^\]\n/\\]+)\]")

MAX_IMAGE_BYTES = 50 * 1024 * 1024
"""One image bigger than this is refused (the bound Anki packages are read with too)."""

IMAGE_TYPES = {"png": "image/png", "jpeg": "image/jpeg", "gif": "image/gif",
               "webp": "image/webp"}
"""The raster formats studyapp stores and shows, and the only content types it serves."""

_NAMES = {"image/png": "PNG", "image/jpeg": "JPEG", "image/gif": "GIF", "image/webp": "WebP"}
_PNG = b"\x89PNG\r\n\x1a\n"
_MARKUP = re.compile(rb"<\s*/?\s*(script|svg|html|body|iframe|object|embed|!doctype)\b"
                     rb"|javascript:", re.IGNORECASE)
"""Markup a browser would run, looked for only in an image's text (never its pixels)."""


class MediaRefused(ValueError):
    """A media file that is not a whole raster image; ``reason`` says why."""

    def __init__(self, reason: ProblemMessage) -> None:
        self.reason = reason
        super().__init__(reason.render("en"))


@dataclass(frozen=True)
class CheckedImage:
    """An image file whose bytes were checked, with the content type they say."""

    path: Path
    mime_type: str
    data: bytes


@dataclass(frozen=True)
class CardImages:
    """The images a card names: those that may be shown and those refused (name, why)."""

    shown: list[CheckedImage]
    refused: list[tuple[str, ProblemMessage]]


def media_folder(deck_file: Path) -> Path:
    return deck_file.with_name(f"{deck_file.stem}.media")


def named_images(texts: Iterable[str]) -> list[str]:
    """The image names ``[image: NAME]`` marks in ``texts``, first seen first."""
    found: dict[str, None] = {}
    for text in texts:
        for name in IMAGE_MARK.findall(text or ""):
            if not name.startswith("."):
                found[name.strip()] = None
    return list(found)


def image_files(deck_file: Path, texts: Iterable[str]) -> list[Path]:
    """The named images that exist in the deck's media folder."""
    folder = media_folder(deck_file)
    return [folder / name for name in named_images(texts) if (folder / name).is_file()]


def card_images(deck_file: Path, texts: Iterable[str]) -> CardImages:
    """The named images of the deck's media folder, each checked as it is about to be shown
    (a file stored before media were checked, or put there by hand, is checked too)."""
    shown: list[CheckedImage] = []
    refused: list[tuple[str, ProblemMessage]] = []
    for path in image_files(deck_file, texts):
        try:
            shown.append(read_image(path))
        except MediaRefused as refusal:
            refused.append((path.name, refusal.reason))
    return CardImages(shown, refused)


def raster_type(head: bytes) -> str | None:
    """The content type the first bytes announce (the signature alone), or None."""
    if head.startswith(_PNG):
        return IMAGE_TYPES["png"]
    if head.startswith(b"\xff\xd8\xff"):
        return IMAGE_TYPES["jpeg"]
    if head[:6] in (b"GIF87a", b"GIF89a"):
        return IMAGE_TYPES["gif"]
    if len(head) >= 12 and head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return IMAGE_TYPES["webp"]
    return None


def check_image(data: bytes) -> str:
    """The content type of ``data`` if it is a whole PNG, JPEG, GIF or WebP image.

    Raises ``MediaRefused`` for anything else: empty, too big, another format
    (SVG, HTML, text: whatever its name says), a broken image, bytes after the
    image's end, or markup in its text.
    """
    if not data:
        raise MediaRefused(problem_message("media_empty"))
    if len(data) > MAX_IMAGE_BYTES:
        raise MediaRefused(problem_message("media_too_large", size=len(data),
                                           limit=MAX_IMAGE_BYTES))
    mime_type = raster_type(data)
    if mime_type is None:
        raise MediaRefused(problem_message("media_not_raster"))
    kind = _NAMES[mime_type]
    checks = {"image/png": _png_text, "image/jpeg": _jpeg_text, "image/gif": _gif_text,
              "image/webp": _webp_text}
    try:
        text = checks[mime_type](data)
    except (IndexError, ValueError, zlib.error):
        raise MediaRefused(problem_message("media_broken", kind=kind)) from None
    if any(_MARKUP.search(part) for part in text):
        raise MediaRefused(problem_message("media_markup", kind=kind))
    return mime_type


def read_image(path: Path) -> CheckedImage:
    """The image file at ``path``, read (at most ``MAX_IMAGE_BYTES``) and checked.

    Never through a symlink, never a device or FIFO; ``MediaRefused`` says why not.
    """
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | os.O_NONBLOCK)
    except OSError as error:
        raise MediaRefused(problem_message("media_unreadable",
                                           reason=error.strerror or str(error))) from None
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            raise MediaRefused(problem_message("media_not_file"))
        data = handle.read(MAX_IMAGE_BYTES + 1)
    return CheckedImage(path, check_image(data), data)


def _word(data: bytes, at: int, size: int, order: Literal["big", "little"] = "big") -> int:
    """The unsigned number of ``size`` bytes at ``at``; ValueError past the end."""
    if at + size > len(data):
        raise ValueError("truncated")
    return int.from_bytes(data[at:at + size], order)


def _png_text(data: bytes) -> list[bytes]:
    """Every chunk, IHDR first and IEND last, each with its CRC; the text chunks."""
    text: list[bytes] = []
    at, first = len(_PNG), True
    while True:
        length, kind = _word(data, at, 4), data[at + 4:at + 8]
        end = at + 12 + length
        if len(kind) != 4 or not kind.isalpha() or end > len(data):
            raise ValueError("broken chunk")
        if first and (kind != b"IHDR" or length != 13 or not _word(data, at + 8, 4)
                      or not _word(data, at + 12, 4)):
            raise ValueError("no header")
        if zlib.crc32(data[at + 4:end - 4]) != _word(data, end - 4, 4):
            raise ValueError("bad CRC")
        if kind in (b"tEXt", b"iTXt"):
            text.append(data[at + 8:end - 4])
        elif kind == b"zTXt":
            keyword, _, packed = data[at + 8:end - 4].partition(b"\0")
            text += [keyword, zlib.decompressobj().decompress(packed[1:], 1 << 20)]
        if kind == b"IEND":
            if end != len(data):
                raise ValueError("bytes after the end")
            return text
        first, at = False, end


def _gif_sub_blocks(data: bytes, at: int, keep: bool = False) -> tuple[bytes, int]:
    """The sub-blocks at ``at`` (up to the empty one): their data if ``keep``, and where
    they end."""
    parts = []
    while (size := data[at]) != 0:
        if at + 1 + size > len(data):
            raise ValueError("truncated block")
        if keep:
            parts.append(data[at + 1:at + 1 + size])
        at += 1 + size
    return b"".join(parts), at + 1


def _gif_text(data: bytes) -> list[bytes]:
    """The screen, its colour table, every block to the trailer (the last byte); comments."""
    if not _word(data, 6, 2, "little") or not _word(data, 8, 2, "little"):
        raise ValueError("no size")
    flags, at, text = data[10], 13, list[bytes]()
    if flags & 0x80:
        at += 3 << ((flags & 7) + 1)
    while True:
        block = data[at]
        if block == 0x3B:
            if at + 1 != len(data):
                raise ValueError("bytes after the end")
            return text
        if block == 0x21:  # an extension: its label, then sub-blocks
            label = data[at + 1]
            content, at = _gif_sub_blocks(data, at + 2, keep=label == 0xFE)
            if label == 0xFE:  # a comment
                text.append(content)
        elif block == 0x2C:  # an image: descriptor, local colour table, LZW size, data
            local = data[at + 9]
            at += 10 + ((3 << ((local & 7) + 1)) if local & 0x80 else 0)
            _word(data, at, 1)
            _, at = _gif_sub_blocks(data, at + 1)
        else:
            raise ValueError("unknown block")


def _jpeg_text(data: bytes) -> list[bytes]:
    """Every segment to the first scan, then an end-of-image marker; comments and XMP."""
    text: list[bytes] = []
    at = 2
    while True:
        while data[at] == 0xFF and data[at + 1] == 0xFF:  # fill bytes
            at += 1
        if data[at] != 0xFF:
            raise ValueError("no marker")
        marker = data[at + 1]
        if marker in (0xD8, 0xD9) or 0xD0 <= marker <= 0xD7 or marker == 0x01:
            raise ValueError("marker out of place")
        length = _word(data, at + 2, 2)
        end = at + 2 + length
        if length < 2 or end > len(data):
            raise ValueError("broken segment")
        segment = data[at + 4:end]
        if marker == 0xFE or (marker == 0xE1 and segment.startswith(b"http://ns.adobe.com/")):
            text.append(segment)  # a comment, or XMP (EXIF is binary: never searched)
        if marker == 0xDA:  # start of scan: the compressed image follows, then EOI
            if data.rfind(b"\xff\xd9", end) < 0:
                raise ValueError("no end of image")
            return text
        at = end


def _webp_text(data: bytes) -> list[bytes]:
    """The RIFF size is the file's, the first chunk an image (VP8, VP8L or VP8X)."""
    size = _word(data, 4, 4, "little")
    if size + 8 != len(data) or size % 2 or data[12:16] not in (b"VP8 ", b"VP8L", b"VP8X"):
        raise ValueError("not a whole WebP")
    text: list[bytes] = []
    at = 12
    while at < len(data):
        kind, length = data[at:at + 4], _word(data, at + 4, 4, "little")
        end = at + 8 + length + (length & 1)
        if end > len(data):
            raise ValueError("broken chunk")
        if kind == b"XMP ":
            text.append(data[at + 8:at + 8 + length])
        at = end
    return text
