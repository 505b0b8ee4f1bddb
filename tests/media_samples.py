"""Tiny images of every format studyapp stores, and the files it must refuse.

A module at the top of ``tests`` (as ``recall_decks``), so tests in any folder
import it by name. The JPEG and WebP were drawn by Chromium (a 1×1 canvas,
``toDataURL``; the JPEG's colour profile and the WebP's extended header
removed), and Chromium decodes each of them.
"""

from __future__ import annotations

import base64
import struct
import zlib

from recall_decks import PNG

JPEG = base64.b64decode(
    "/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDABALDA4MChAODQ4SERATGCgaGBYWGDEjJR0oOjM9PDkzODdASFxOQERXRTc4"
    "UG1RV19iZ2hnPk1xeXBkeFxlZ2P/2wBDARESEhgVGC8aGi9jQjhCY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2Nj"
    "Y2NjY2NjY2NjY2NjY2NjY2NjY2P/wAARCAABAAEDASIAAhEBAxEB/8QAFQABAQAAAAAAAAAAAAAAAAAAAAT/xAAUEAEA"
    "AAAAAAAAAAAAAAAAAAAA/8QAFQEBAQAAAAAAAAAAAAAAAAAABAb/xAAUEQEAAAAAAAAAAAAAAAAAAAAA/9oADAMBAAIR"
    "AxEAPwCgBMjv/9k=")
"""A whole 1×1 baseline JPEG."""

WEBP = base64.b64decode("UklGRjQAAABXRUJQVlA4ICgAAABwAQCdASoBAAEAAsBMJaACdAIHgAD+zoL/"
                        "zsH/3o/9MfOng2SKa7AA")
"""A whole 1×1 lossy WebP."""

GIF = (b"GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff!\xf9\x04\x01\x00\x00\x00\x00"
       b",\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;")
"""A whole 1×1 GIF (one transparent pixel)."""

RASTER = {"png": (PNG, "image/png"), "jpeg": (JPEG, "image/jpeg"), "gif": (GIF, "image/gif"),
          "webp": (WEBP, "image/webp")}
"""Each format's sample and the content type its bytes say."""

MARKER = "studyapp-script-ran"
"""What a hostile file's script would write, or ask for, if it ever ran."""


def svg(beacon: str) -> bytes:
    """An SVG whose script asks ``beacon`` for a URL and tries the app's WebSocket."""
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">'
            f'<script>fetch("{beacon}/{MARKER}-svg");'
            f'new WebSocket("ws://" + location.host + "/ws");'
            f'document.title = "{MARKER}";</script></svg>').encode()


def html(beacon: str) -> bytes:
    """An HTML page whose script does the same."""
    return (f'<!doctype html><html><body><script>fetch("{beacon}/{MARKER}-html");'
            f'new WebSocket("ws://" + location.host + "/ws");'
            f'document.title = "{MARKER}";</script></body></html>').encode()


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png_with_text(text: bytes) -> bytes:
    """The PNG with a text chunk holding ``text`` before its end."""
    end = PNG.index(b"\x00\x00\x00\x00IEND")
    return PNG[:end] + _chunk(b"tEXt", b"Comment\x00" + text) + PNG[end:]


POLYGLOTS = {
    "png-then-html": PNG + html("http://127.0.0.1:9"),
    "gif-then-html": GIF + html("http://127.0.0.1:9"),
    "webp-then-html": WEBP + html("http://127.0.0.1:9"),
    "png-text-script": png_with_text(b"<script>alert(1)</script>"),
    "gif-comment-svg": GIF[:-1] + b"!\xfe" + bytes([len(b"<svg onload>")]) + b"<svg onload>\x00;",
    "jpeg-comment-html": JPEG[:2] + b"\xff\xfe" + struct.pack(">H", 2 + len(b"<html><body>"))
    + b"<html><body>" + JPEG[2:],
    "png-signature-only": b"\x89PNG\r\n\x1a\n<html><script>alert(1)</script></html>",
    "gif-header-js": b"GIF89a/*\x01\x00\x00\x00*/=alert(1);",
}
"""Files that start as an image but are not one, or carry markup a browser runs."""
