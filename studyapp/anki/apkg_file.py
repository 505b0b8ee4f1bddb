"""The genanki package written as an .apkg file, with each deck's preset and, on request,
the profile's study (``apkg_progress``) filled into its collection."""

from __future__ import annotations

import itertools
import json
import os
import sqlite3
import tempfile
import time
import zipfile
from collections.abc import Callable, Mapping
from typing import IO, Any

import genanki


def write_package(package: genanki.Package, out: IO[Any], timestamp: float | None,
                  presets: Mapping[int, Mapping[str, Any]] | None = None,
                  fill: Callable[[sqlite3.Connection], None] | None = None) -> None:
    """The package zipped into ``out``, as ``Package.write_to_file`` writes it.

    genanki builds the collection in a temporary file that it never removes;
    here it lives in a temporary folder that goes whatever happens.
    """
    stamp = time.time() if timestamp is None else timestamp
    with tempfile.TemporaryDirectory(prefix="studyapp-apkg-") as folder:
        collection = os.path.join(folder, "collection.anki2")
        conn = sqlite3.connect(collection)
        try:
            package.write_to_db(conn.cursor(), stamp, itertools.count(int(stamp * 1000)))
            if presets:
                _write_presets(conn, presets)
            if fill is not None:
                fill(conn)
            conn.commit()
        finally:
            conn.close()
        media = dict(enumerate(package.media_files))
        with zipfile.ZipFile(out, "w") as outzip:
            outzip.write(collection, "collection.anki2")
            outzip.writestr("media", json.dumps({i: os.path.basename(p) for i, p in media.items()}))
            for index, path in media.items():
                outzip.write(path, str(index))


def _write_presets(conn: sqlite3.Connection, presets: Mapping[int, Mapping[str, Any]]) -> None:
    """Each deck's preset into ``col.dconf``, and the deck set to use it (genanki gives every
    deck preset 1, which Anki maps to the importing collection's own Default)."""
    decks_json, dconf_json = conn.execute("SELECT decks, dconf FROM col").fetchone()
    decks, dconf = json.loads(decks_json), json.loads(dconf_json)
    for deck_id, preset in presets.items():
        dconf[str(preset["id"])] = dict(preset)
        if str(deck_id) in decks:
            decks[str(deck_id)]["conf"] = preset["id"]
    conn.execute("UPDATE col SET decks = ?, dconf = ?", (json.dumps(decks), json.dumps(dconf)))
