"""Files written whole or not at all, never through a planted symlink.

A fixed temporary name (``.out.apkg.partial``) next to the target lets
anyone who can write that folder plant a symlink there and have the export
overwrite its target. ``replacing`` creates a fresh temporary file with
``O_EXCL`` (``tempfile.mkstemp``: a random name that must not exist, and no
link followed), writes it, then renames it over the target, which replaces
a link at the target rather than writing through it.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any


def _created_mode() -> int:
    """The mode ``open()`` gives a new file: 0666 less the process's umask."""
    mask = os.umask(0o022)
    os.umask(mask)
    return 0o666 & ~mask


@contextlib.contextmanager
def replacing(target: Path, *, binary: bool = False, encoding: str = "utf-8",
              newline: str | None = None) -> Iterator[IO[Any]]:
    """An open file that becomes ``target`` when the block ends without an error."""
    fd, temp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.",
                                suffix=".partial")
    try:
        os.fchmod(fd, _created_mode())  # mkstemp's 0600 would hide a shared export
        handle: IO[Any] = (os.fdopen(fd, "wb") if binary else
                           os.fdopen(fd, "w", encoding=encoding, newline=newline))
        with handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


def write_text_replacing(target: Path, text: str) -> None:
    """``target``'s new text, written as ``replacing`` writes."""
    with replacing(target) as handle:
        handle.write(text)


__all__ = ["replacing", "write_text_replacing"]
