"""A test's own folder in memory, where the machine has ``/dev/shm``.

Anki's collections and SQLite databases sync to disk at every commit; on a busy disk
one health check waited 24 s for it while computing for one. In memory the same files
are written and read back the same way, without the wait. A module at the top of
``tests`` (as ``backends``), so the conftest of any folder uses it by name.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

MEMORY = Path("/dev/shm")


def memory_folder(fallback: Path) -> Iterator[Path]:
    """A fresh folder under ``/dev/shm`` for one test, removed after it (``fallback``,
    pytest's own ``tmp_path``, where there is no such folder)."""
    if not MEMORY.is_dir():
        yield fallback
        return
    folder = Path(tempfile.mkdtemp(dir=MEMORY, prefix="studyapp-test-"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)
