"""Shipped content read at every start, kept as JSON in the user's cache folder.

The home screen needs the interface strings (one YAML file per area and language)
and every post's heading (YAML front matter) before it can paint. Importing PyYAML
and parsing those files took 49 ms of a 293 ms start to the first frame (median of
5 starts on the 2-core development machine, no compiled modules); reading the same
data back as JSON takes about 1 ms.

A copy is keyed by the name, size and modification time of every file it was read
from, so an edited, added or removed file is read again. A copy that does not read
back in the shape its reader expects is ignored and written anew; one that cannot
be written is simply not kept. ``--help`` reads no strings, so it still writes nothing.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

from studyapp import locations
from studyapp.files import FileRefused, read_regular, write_text_replacing

T = TypeVar("T")

FORMAT = 1
"""Bumped when what a copy holds changes shape, so copies of the old shape are not read."""

MOST_BYTES = 4 * 1024 * 1024
"""A copy larger than this is not read (the strings of one language take about 0.2 MB)."""


def folder() -> Path:
    return locations.cache_dir() / "content"


def source_key(sources: Sequence[Path]) -> list[object]:
    """What the copy was made from: the format, then each file's path, size and
    modification time (as JSON reads them back)."""
    key: list[object] = [FORMAT]
    for path in sources:
        info = path.stat()
        key.append([str(path), info.st_size, info.st_mtime_ns])
    return key


def kept(name: str, sources: Sequence[Path], read: Callable[[], T],
         to_json: Callable[[T], object], from_json: Callable[[object], T | None]) -> T:
    """``read()``'s result, from the copy named ``name`` when it was made from ``sources``
    as they are now.

    ``from_json`` turns a copy back into the value, or gives None for one that is not in
    the expected shape; ``to_json`` is its inverse.
    """
    try:
        key = source_key(sources)
    except OSError:
        return read()  # a source went missing: the reader says what is wrong
    target = folder() / f"{name}.json"
    try:
        stored = json.loads(read_regular(target, MOST_BYTES, what="cache"))
    except (FileRefused, OSError, ValueError):
        stored = None
    if isinstance(stored, dict) and stored.get("key") == key:
        value = from_json(stored.get("value"))
        if value is not None:
            return value
    value = read()
    with contextlib.suppress(OSError):
        target.parent.mkdir(parents=True, exist_ok=True)
        write_text_replacing(target, json.dumps({"key": key, "value": to_json(value)},
                                                ensure_ascii=False))
    return value


def string_table(value: object) -> dict[str, str] | None:
    """``value`` as a table of strings by key, or None if it is not one."""
    if not isinstance(value, dict):
        return None
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        return None
    return value


__all__ = ["FORMAT", "folder", "kept", "source_key", "string_table"]
