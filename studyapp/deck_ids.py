"""Deck ids: one pattern, checked wherever an id comes from (a file, a command, a database).

A deck id names files (``published/<id>.yaml``, an installed copy, its images'
folder) and is typed on the command line, so it is a slug: lowercase ASCII
letters, digits and hyphens, starting with a letter or digit, at most 100
characters (``kv-cache-drill``). No slash, dot, space or other script can
reach a path, and 100 characters plus ``.yaml`` fit any file system's names.
This module imports only ``studyapp.text`` (which imports nothing from
studyapp), so every layer, the store included, may use it.
"""

from __future__ import annotations

import re

from studyapp.text import visible

MAX_DECK_ID_LENGTH = 100
DECK_ID_PATTERN = rf"^[a-z0-9][a-z0-9-]{{0,{MAX_DECK_ID_LENGTH - 1}}}$"
"""The pattern as JSON Schema writes it (the deck file's ``deck:``)."""

_DECK_ID = re.compile(rf"[a-z0-9][a-z0-9-]{{0,{MAX_DECK_ID_LENGTH - 1}}}")


def is_deck_id(value: object) -> bool:
    """True for a slug a deck may be named by (``DECK_ID_PATTERN``), anything else False."""
    return isinstance(value, str) and _DECK_ID.fullmatch(value) is not None


def shown_deck_id(value: str, limit: int = 60) -> str:
    """An id from a database as a message may print it, whatever it holds: quoted, cut
    after ``limit`` characters, control characters made visible."""
    return visible(repr(value[:limit] + ("…" if len(value) > limit else "")))


__all__ = ["DECK_ID_PATTERN", "MAX_DECK_ID_LENGTH", "is_deck_id", "shown_deck_id"]
