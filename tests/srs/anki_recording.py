"""Recording an Anki fixture again: its ``make_anki_*.py`` script run by the installed
``anki`` package under libfaketime, at the fixture's clock and time zone.

Each fixture test compares what comes out with the stored file, so the stored answers
are Anki's own and stay so when Anki changes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
START = "@2026-03-02 12:00:00"
"""The fixtures' first moment, as libfaketime reads ``FAKETIME``."""
MEMORY_FOLDER = Path("/dev/shm")
"""Where the recorder's collection is kept when this machine has it: Anki syncs its
database to disk after every answer, and in memory that costs nothing (the answers and
the days recorded are the same)."""


def libfaketime() -> Path | None:
    found = sorted(Path("/usr/lib").glob("*/faketime/libfaketime.so.1"))
    return found[0] if found else None


def record_again(script: str, tmp_path: Path, zone: str, *, test_mode: bool = False,
                 timeout: float = 600) -> dict[str, Any]:
    """What ``script`` records now, without the ``anki`` version that recorded it (a
    later 26.x may record the same answers); skipped without anki or libfaketime.

    ``test_mode`` sets Anki's ANKI_TEST_MODE (no fuzz), as the memory and replay
    fixtures were recorded; the others keep Anki's fuzz."""
    pytest.importorskip("anki")
    library = libfaketime()
    if library is None:
        pytest.skip("recording needs libfaketime (apt-get install faketime)")
    out = tmp_path / "recorded.json"
    env = {k: v for k, v in os.environ.items()
           if k not in ("ANKI_TEST_MODE", "FAKETIME_TIMESTAMP_FILE")}
    if test_mode:
        env["ANKI_TEST_MODE"] = "1"
    with tempfile.TemporaryDirectory(dir=MEMORY_FOLDER if MEMORY_FOLDER.is_dir() else None,
                                     prefix="anki-recording-") as folder:
        env.update({"TZ": zone, "FAKETIME_NO_CACHE": "1", "FAKETIME": START,
                    "LD_PRELOAD": str(library), "PYTHONPATH": str(ROOT), "TMPDIR": folder})
        subprocess.run([sys.executable, str(HERE / script), str(out)], env=env,
                       check=True, timeout=timeout, capture_output=True)
    recorded: dict[str, Any] = json.loads(out.read_text())
    recorded.pop("anki")
    return recorded


def stored(data: dict[str, Any]) -> dict[str, Any]:
    """A stored fixture without the ``anki`` version that recorded it."""
    return {key: value for key, value in data.items() if key != "anki"}
