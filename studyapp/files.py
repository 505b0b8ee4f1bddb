"""Files read within a stated size, and written whole or not at all.

Reading: every file a user names (a progress export, a deck, an Anki
package, a catalog) is opened once, without blocking, and checked on the
opened descriptor (``fstat``), so a device, pipe, socket or folder is refused
before a byte is read and cannot be swapped in between a check and the read;
at most the kind's limit (plus one byte, to tell a larger file) is read, so
``/dev/zero`` or a ``/proc`` file that reports no size cannot grow memory.

Writing: never through a planted symlink.

A fixed temporary name (``.out.apkg.partial``) next to the target lets
anyone who can write that folder plant a symlink there and have the export
overwrite its target. ``replacing`` creates a fresh temporary file with
``O_EXCL`` (``tempfile.mkstemp``: a random name that must not exist, and no
link followed), writes it, then renames it over the target, which replaces
a link at the target rather than writing through it.
"""

from __future__ import annotations

import contextlib
import math
import os
import signal
import stat
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any, BinaryIO, Literal

Refusal = Literal["not_regular", "too_large", "unreadable"]


def describe_size(size: int) -> str:
    """Bytes as a reader says them: "200 MB", "4 GB" (10^6 and 10^9, as everywhere here)."""
    if size >= 10**9:
        return f"{size / 10**9:.3g} GB"
    if size >= 10**6:
        return f"{size / 10**6:.3g} MB"
    if size >= 10**3:
        return f"{size / 10**3:.3g} kB"
    return f"{size} bytes"


class FileRefused(Exception):
    """A file that was not read: not a regular file, over its kind's limit, or unreadable.

    ``reason``, ``size``, ``limit`` and ``detail`` let a reader word it in its
    own terms; the message is one line in English.
    """

    def __init__(self, path: Path, reason: Refusal, *, what: str = "file", limit: int = 0,
                 size: int = 0, detail: str = "") -> None:
        self.path, self.reason, self.what = path, reason, what
        self.limit, self.size, self.detail = limit, size, detail
        if reason == "not_regular":
            message = (f"{path} is not a regular file (a device, pipe, socket or folder); "
                       f"it was not read")
        elif reason == "too_large":
            shown = f"is {describe_size(size)}" if size > limit else "is larger"
            message = (f"{path} {shown}, over the {what} limit of {describe_size(limit)}; "
                       f"it was not read")
        else:
            message = f"cannot read {path}: {detail}"
        super().__init__(message)


def _open_descriptor(path: Path) -> int:
    """``path`` opened for reading without blocking on a pipe or taking a terminal."""
    flags = (os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
             | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))
    return os.open(path, flags)


def _is_socket(path: Path) -> bool:
    try:
        return stat.S_ISSOCK(os.stat(path).st_mode)
    except OSError:
        return False


@contextlib.contextmanager
def open_regular(path: Path, limit: int, *, what: str = "file") -> Iterator[BinaryIO]:
    """``path`` open for binary reading, once it is known to be a regular file within ``limit``.

    The check is made on the opened descriptor, so what is read is what was
    checked. Readers that seek (a zip file) use this; readers that want the
    bytes use ``read_regular``, which also stops at ``limit``.
    """
    try:
        fd = _open_descriptor(path)
    except OSError as exc:
        if _is_socket(path):  # a socket cannot be opened at all (ENXIO)
            raise FileRefused(path, "not_regular", what=what) from None
        raise FileRefused(path, "unreadable", what=what,
                          detail=str(exc.strerror or exc)) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise FileRefused(path, "not_regular", what=what)
        if info.st_size > limit:
            raise FileRefused(path, "too_large", what=what, limit=limit, size=info.st_size)
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        handle = os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
    with handle:
        yield handle


def read_regular(path: Path, limit: int, *, what: str = "file") -> bytes:
    """The bytes of ``path``, a regular file of at most ``limit`` bytes (``FileRefused`` if not).

    Reads at most ``limit + 1`` bytes whatever the file claims, so a file that
    grows, or reports no size, cannot make it read more.
    """
    with open_regular(path, limit, what=what) as handle:
        try:
            data = handle.read(limit + 1)
        except OSError as exc:
            raise FileRefused(path, "unreadable", what=what,
                              detail=str(exc.strerror or exc)) from None
    if len(data) > limit:
        raise FileRefused(path, "too_large", what=what, limit=limit)
    return data


def _created_mode() -> int:
    """The mode ``open()`` gives a new file: 0666 less the process's umask."""
    mask = os.umask(0o022)
    os.umask(mask)
    return 0o666 & ~mask


STALE_PARTIAL_S = 3600
"""A temporary file untouched this long was left by a write that was killed outright."""
_PARTIAL = ".partial"
SWEEP_EVERY_S = 60.0
"""A folder is looked through for stale temporary files at most this often."""
_swept: dict[str, float] = {}


def remove_stale_partials(target: Path, *, now: float | None = None) -> list[Path]:
    """Temporary files of earlier writes into ``target``'s folder killed outright (``kill -9``).

    Only files named as ``replacing`` names them (``.<name>.<8 characters>.partial``),
    regular, owned by this user and unchanged for ``STALE_PARTIAL_S``: a write
    under way keeps its file fresh.
    """
    moment = time.time() if now is None else now
    removed: list[Path] = []
    folder = str(target.parent)
    if moment - _swept.get(folder, -math.inf) < SWEEP_EVERY_S:
        return removed  # a thousand images copied into one folder list it once
    _swept[folder] = moment
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for entry in entries:
        name = entry.name
        base, dot, middle = name.removesuffix(_PARTIAL).rpartition(".")
        if not (name.endswith(_PARTIAL) and base.startswith(".") and dot and len(middle) == 8
                and middle.isascii() and middle.replace("_", "").isalnum()):
            continue
        try:
            info = entry.stat(follow_symlinks=False)
            mine = info.st_uid == os.geteuid() if hasattr(os, "geteuid") else True
            if (stat.S_ISREG(info.st_mode) and mine
                    and moment - info.st_mtime > STALE_PARTIAL_S):
                os.unlink(entry.path)
                removed.append(Path(entry.path))
        except OSError:
            continue
    return removed


_HELD_SIGNALS = frozenset(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP")
                          if hasattr(signal, name))


@contextlib.contextmanager
def _ending_signals_held() -> Iterator[None]:
    """Signals that end the command wait (pending) until the block is over: a temporary
    file is never created without its name known to the code that removes it."""
    if not hasattr(signal, "pthread_sigmask") or \
            threading.current_thread() is not threading.main_thread():
        yield
        return
    before = signal.pthread_sigmask(signal.SIG_BLOCK, _HELD_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


@contextlib.contextmanager
def replacing(target: Path, *, binary: bool = False, encoding: str = "utf-8",
              newline: str | None = None) -> Iterator[IO[Any]]:
    """An open file that becomes ``target`` when the block ends without an error.

    Any error, ctrl+c included, removes the temporary file; one left by a
    write killed outright is removed by the next write to the same target.
    """
    remove_stale_partials(target)
    temp: str | None = None
    try:
        with _ending_signals_held():  # an interrupt lands after ``temp`` names the file
            fd, temp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.",
                                        suffix=_PARTIAL)
        os.fchmod(fd, _created_mode())  # mkstemp's 0600 would hide a shared export
        handle: IO[Any] = (os.fdopen(fd, "wb") if binary else
                           os.fdopen(fd, "w", encoding=encoding, newline=newline))
        with handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, target)
    except BaseException:
        if temp is not None:
            with contextlib.suppress(OSError):
                os.unlink(temp)
        raise


def write_text_replacing(target: Path, text: str) -> None:
    """``target``'s new text, written as ``replacing`` writes."""
    with replacing(target) as handle:
        handle.write(text)


__all__ = ["FileRefused", "describe_size", "open_regular", "read_regular",
           "remove_stale_partials", "replacing", "write_text_replacing"]
