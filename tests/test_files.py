"""Files read within a stated size; exports written through a fresh O_EXCL temporary file.

Someone who can write the output folder plants a link where the old fixed
temporary name (``.out.json.partial``) would go, or at the target itself;
the export must leave the link's target untouched.
"""

from __future__ import annotations

import errno
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from pathlib import Path
from typing import IO, Any

import pytest
from click.testing import CliRunner, Result

from studyapp import files
from studyapp.cli import main
from studyapp.decks import MAX_DECK_BYTES, DeckError, load_deck
from studyapp.files import FileRefused, describe_size, read_regular, replacing
from studyapp.store import backup
from studyapp.store.progress_files import MAX_IMPORT_BYTES

ROOT = Path(__file__).resolve().parent.parent


def test_a_failed_write_leaves_neither_target_nor_temporary(tmp_path: Path) -> None:
    target = tmp_path / "out.json"
    target.write_text("old", encoding="utf-8")
    with pytest.raises(RuntimeError), replacing(target) as fh:
        fh.write("half")
        raise RuntimeError("disk full")
    assert target.read_text(encoding="utf-8") == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]


def test_a_written_file_gets_the_mode_a_new_file_would_get(tmp_path: Path) -> None:
    """mkstemp makes 0600 files: an export meant for a class would be unreadable to it."""
    old = os.umask(0o027)
    try:
        with replacing(tmp_path / "shared.csv") as fh:
            fh.write("a,b\n")
    finally:
        os.umask(old)
    assert (tmp_path / "shared.csv").stat().st_mode & 0o777 == 0o640


def export(tmp_path: Path, fmt: str, target: Path) -> Result:
    """``studyapp export`` in ``fmt`` to ``target``, with its own home folder."""
    return CliRunner().invoke(main, ["--lang", "en", "export", "--format", fmt, "-o",
                                     str(target)],
                              env={"STUDYAPP_HOME": str(tmp_path / "home"),
                                   "STUDYAPP_DB": None})


@pytest.mark.parametrize("fmt", ["json", "csv", "apkg"])
def test_planted_symlinks_are_never_written_through(tmp_path: Path, fmt: str) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious", encoding="utf-8")
    out = tmp_path / "shared"
    out.mkdir()
    target = out / f"out.{fmt}"
    (out / f".{target.name}.partial").symlink_to(victim)  # the old fixed temporary name
    result = export(tmp_path, fmt, target)
    assert result.exit_code == 0, result.output
    assert victim.read_text(encoding="utf-8") == "precious"
    assert target.is_file() and not target.is_symlink() and target.stat().st_size > 0

    target.unlink()
    target.symlink_to(victim)  # a link at the target itself is replaced, not followed
    result = export(tmp_path, fmt, target)
    assert result.exit_code == 0, result.output
    assert victim.read_text(encoding="utf-8") == "precious"
    assert not target.is_symlink()
    assert not [p for p in os.listdir(out) if p.endswith(".partial") and
                not (out / p).is_symlink()]


def test_deck_from_anki_never_writes_through_a_planted_symlink(tmp_path: Path) -> None:
    import genanki

    deck = genanki.Deck(2059400112, "Links")
    deck.add_note(genanki.Note(model=genanki.BASIC_MODEL, fields=["Which memory?", "HBM3e"]))
    package = tmp_path / "links.apkg"
    genanki.Package(deck).write_to_file(str(package))
    victim = tmp_path / "victim.txt"
    victim.write_text("precious", encoding="utf-8")
    out = tmp_path / "shared"
    out.mkdir()
    target = out / "deck.yaml"
    (out / ".deck.yaml.partial").symlink_to(victim)  # the old fixed temporary name
    target.symlink_to(victim)
    result = CliRunner().invoke(main, ["--lang", "en", "deck", "from-anki", str(package),
                                       "-o", str(target)],
                                env={"STUDYAPP_HOME": str(tmp_path / "home"),
                                     "STUDYAPP_DB": None})
    assert result.exit_code == 0, result.output
    assert victim.read_text(encoding="utf-8") == "precious"
    assert not target.is_symlink() and "HBM3e" in target.read_text(encoding="utf-8")


# Reading: every file a user names is read within its kind's limit, and only if it is a
# regular file (checked on the opened descriptor, before a byte is read).

def test_a_device_is_refused_before_anything_is_read() -> None:
    with pytest.raises(FileRefused, match="not a regular file") as refused:
        read_regular(Path("/dev/zero"), 1000)
    assert refused.value.reason == "not_regular"


def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path: Path) -> None:
    fifo = tmp_path / "export.json"
    os.mkfifo(fifo)
    outcome: list[BaseException] = []
    reader = threading.Thread(target=lambda: _refusal(fifo, outcome), daemon=True)
    reader.start()
    reader.join(timeout=10)
    if reader.is_alive():  # unblock the reader so the test run can end
        with open(fifo, "wb"):
            pass
        pytest.fail("opening a FIFO waited for a writer")
    assert isinstance(outcome[0], FileRefused) and outcome[0].reason == "not_regular"


def _refusal(path: Path, outcome: list[BaseException]) -> None:
    try:
        read_regular(path, 1000)
    except BaseException as exc:  # the test inspects it
        outcome.append(exc)


def test_a_socket_is_refused_as_not_a_regular_file(tmp_path: Path) -> None:
    import socket

    path = tmp_path / "s.json"
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(path))
        with pytest.raises(FileRefused, match="not a regular file"):
            read_regular(path, 1000)


def test_a_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(FileRefused) as refused:
        read_regular(tmp_path, 1000)
    assert refused.value.reason == "not_regular"


def test_a_file_over_the_limit_is_refused_by_its_size(tmp_path: Path) -> None:
    big = tmp_path / "big.json"
    with big.open("wb") as fh:
        fh.truncate(3_000_001)
    with pytest.raises(FileRefused, match=r"is 3 MB, over the progress file limit of 3 MB"):
        read_regular(big, 3_000_000, what="progress file")
    assert read_regular(big, 3_000_001) == bytes(3_000_001)


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs Linux's /proc")
def test_a_file_that_reports_no_size_is_read_only_up_to_the_limit() -> None:
    """Files in /proc claim 0 bytes: the limit holds on what is read, not what is claimed."""
    assert Path("/proc/self/status").stat().st_size == 0
    with pytest.raises(FileRefused, match="is larger, over the file limit of 10 bytes"):
        read_regular(Path("/proc/self/status"), 10)


def test_sizes_are_said_in_the_units_of_the_limits() -> None:
    assert [describe_size(n) for n in (200_000_000, 5_000_000, 4_000_000_000, 12)] == [
        "200 MB", "5 MB", "4 GB", "12 bytes"]


def _studyapp(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The ``studyapp`` command in its own process, with 1.5 GB of address space at most."""
    def limit_memory() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (1_500_000_000, 1_500_000_000))

    env = {**os.environ, "STUDYAPP_HOME": str(tmp_path / "home"), "PYTHONPATH": str(ROOT)}
    env.pop("STUDYAPP_DB", None)
    return subprocess.run([sys.executable, "-m", "studyapp.cli", "--lang", "en", *args],
                          capture_output=True, text=True, env=env, timeout=120,
                          preexec_fn=limit_memory, check=False)


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
@pytest.mark.parametrize("command", [["import"], ["deck", "from-anki", "--dry-run"],
                                     ["deck", "add"], ["deck", "validate"],
                                     ["catalog", "validate"], ["deck", "publish"],
                                     ["calc", "fit", "--model-config"],
                                     ["generate", "--audit", "--deck"]])
def test_endless_devices_are_refused_at_once_in_one_line(tmp_path: Path,
                                                         command: list[str]) -> None:
    started = time.monotonic()
    done = _studyapp(tmp_path, *command, "/dev/zero")
    assert done.returncode == 1, done.stderr
    assert time.monotonic() - started < 60
    lines = (done.stdout + done.stderr).strip().splitlines()
    assert "not a regular file" in lines[0], lines
    assert len(lines) == 1 or "checked: 1 problem" in lines[1]  # validate's summary
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("command", [["import"], ["deck", "from-anki", "--dry-run"],
                                     ["deck", "add"]])
def test_a_fifo_given_on_the_command_line_is_refused_at_once(tmp_path: Path,
                                                             command: list[str]) -> None:
    fifo = tmp_path / "pipe.apkg"
    os.mkfifo(fifo)
    done = _studyapp(tmp_path, *command, str(fifo))
    assert done.returncode == 1
    assert "not a regular file" in done.stdout + done.stderr


def test_an_oversized_progress_file_is_refused_unread_with_the_limit(tmp_path: Path) -> None:
    big = tmp_path / "progress.json"
    with big.open("wb") as fh:  # sparse: no disk is used
        fh.truncate(MAX_IMPORT_BYTES + 1)
    done = _studyapp(tmp_path, "import", str(big))
    assert done.returncode == 1
    assert done.stderr.strip() == (f"studyapp: {big} is 200 MB, over the progress file limit "
                                   f"of 200 MB; it was not read")


def test_an_oversized_anki_package_is_refused_unopened(tmp_path: Path) -> None:
    from studyapp.anki.from_anki import MAX_PACKAGE_BYTES, AnkiPackageError, convert_package

    big = tmp_path / "huge.apkg"
    with big.open("wb") as fh:
        fh.write(b"PK\x03\x04")
        fh.truncate(MAX_PACKAGE_BYTES + 1)
    with pytest.raises(AnkiPackageError, match="over the Anki package limit of 4 GB"):
        convert_package(big, language="en")


def test_a_deck_over_its_limit_is_refused_with_its_size(tmp_path: Path) -> None:
    deck = tmp_path / "big.yaml"
    with deck.open("wb") as fh:
        fh.truncate(MAX_DECK_BYTES + 10)
    with pytest.raises(DeckError) as refused:
        load_deck(deck)
    assert "5000010 bytes; decks over 5 MB" in refused.value.problems[0].render("en")


# Writing: a failed or interrupted export leaves no temporary file behind.

class _FillsUp:
    """A file whose disk fills after ``room`` bytes, or that is interrupted there."""

    def __init__(self, handle: IO[Any], room: int, error: BaseException) -> None:
        self._handle, self._room, self._error = handle, room, error

    def write(self, data: Any) -> int:
        if self._room - len(data) < 0:
            raise self._error
        self._room -= len(data)
        return int(self._handle.write(data))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._handle, name)

    def __enter__(self) -> _FillsUp:
        return self

    def __exit__(self, *exc: object) -> None:
        self._handle.close()


def _failing_writes(monkeypatch: pytest.MonkeyPatch, error: BaseException,
                    room: int = 2000) -> None:
    """Every file ``replacing`` opens fails with ``error`` once ``room`` bytes are written."""
    real = os.fdopen

    def fdopen(fd: int, *args: Any, **kwargs: Any) -> _FillsUp:
        return _FillsUp(real(fd, *args, **kwargs), room, error)

    monkeypatch.setattr(files.os, "fdopen", fdopen)


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def _some_progress(home: Path) -> None:
    """A profile with answers, so that an export has more than a few bytes to write."""
    result = CliRunner().invoke(main, ["--lang", "en", "import", str(_progress_file(home))],
                                env={"STUDYAPP_HOME": str(home), "STUDYAPP_DB": None})
    assert result.exit_code == 0, result.output


def _progress_file(home: Path) -> Path:
    home.mkdir(parents=True, exist_ok=True)
    reviews = [{"uid": f"u{i}", "deck_id": "d", "card_key": f"c{i % 50}", "post": "intro",
                "reviewed_at": f"2026-01-{1 + i % 28:02d}T10:00:00+00:00", "rating": 3,
                "correct": True, "duration_ms": 1000, "state_before": 2, "prompt": "p" * 200,
                "response": "r", "expected": "e", "lang": "en"} for i in range(300)]
    cards = [{"deck_id": "d", "card_key": f"c{i}", "post": "intro", "stage": 2,
              "stability": 3.0, "difficulty": 5.0, "due": "2026-02-01T10:00:00+00:00",
              "last_review": "2026-01-28T10:00:00+00:00", "reps": 6} for i in range(50)]
    path = home / "in.json"
    path.write_text(json.dumps({"format": "studyapp-progress", "version": 1, "profile": "x",
                                "cards": cards, "reviews": reviews}), encoding="utf-8")
    return path


@pytest.mark.parametrize("fmt", ["json", "csv", "apkg"])
@pytest.mark.parametrize("error", [OSError(errno.ENOSPC, "No space left on device"),
                                   KeyboardInterrupt()], ids=["disk-full", "interrupted"])
def test_an_export_that_fails_midway_leaves_no_partial_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fmt: str, error: BaseException) -> None:
    home = tmp_path / "home"
    _some_progress(home)
    out = tmp_path / "out"
    out.mkdir()
    private_tmp = tmp_path / "tmp"
    private_tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(private_tmp))
    _failing_writes(monkeypatch, error)
    result = export(tmp_path, fmt, out / f"progress.{fmt}")
    assert result.exit_code != 0
    if isinstance(error, OSError):
        assert "No space left on device" in result.output
    assert _leftovers(out) == []
    assert _leftovers(private_tmp) == []


def test_an_anki_export_leaves_nothing_in_the_temporary_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """genanki's own writer keeps its collection file in the temporary folder for ever."""
    private_tmp = tmp_path / "tmp"
    private_tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(private_tmp))
    target = tmp_path / "cards.apkg"
    result = export(tmp_path, "apkg", target)
    assert result.exit_code == 0, result.output
    assert _leftovers(private_tmp) == []
    with zipfile.ZipFile(target) as package:
        assert {"collection.anki2", "media"} <= set(package.namelist())


@pytest.mark.parametrize("error", [OSError(errno.ENOSPC, "No space left on device"),
                                   KeyboardInterrupt()], ids=["disk-full", "interrupted"])
def test_a_backup_that_fails_leaves_no_partial_copy(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, error: BaseException) -> None:
    home = tmp_path / "home"
    _some_progress(home)
    out = tmp_path / "out"
    out.mkdir()

    def fsync(fd: int) -> None:
        raise error

    monkeypatch.setattr(backup.os, "fsync", fsync)
    result = CliRunner().invoke(main, ["backup", "-o", str(out / "copy.sqlite3")],
                                env={"STUDYAPP_HOME": str(home), "STUDYAPP_DB": None})
    assert result.exit_code != 0
    assert _leftovers(out) == []


def test_deck_from_anki_that_fails_midway_leaves_no_partial_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import genanki

    deck = genanki.Deck(2059400113, "Full")
    for n in range(200):
        deck.add_note(genanki.Note(model=genanki.BASIC_MODEL,
                                   fields=[f"Which memory {n}?", "HBM3e " * 20]))
    package = tmp_path / "full.apkg"
    genanki.Package(deck).write_to_file(str(package))
    out = tmp_path / "out"
    out.mkdir()
    _failing_writes(monkeypatch, OSError(errno.ENOSPC, "No space left on device"))
    result = CliRunner().invoke(main, ["--lang", "en", "deck", "from-anki", str(package),
                                       "-o", str(out / "deck.yaml")],
                                env={"STUDYAPP_HOME": str(tmp_path / "home"),
                                     "STUDYAPP_DB": None})
    assert result.exit_code != 0
    assert "No space left on device" in result.output
    assert _leftovers(out) == []


SLOW_EXPORT = """
import sys, time
import studyapp.progress.profile_files as progress_files

def export_progress(service, out, fmt):
    out.write("x" * 1000)
    out.flush()
    time.sleep(60)
    return 0

progress_files.export_progress = export_progress
from studyapp.cli import main
main(["export", "-o", sys.argv[1]])
"""


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["TERM", "HUP"])
def test_an_export_ended_by_a_signal_removes_its_temporary_file(tmp_path: Path,
                                                                signum: int) -> None:
    out = tmp_path / "out"
    out.mkdir()
    env = {**os.environ, "STUDYAPP_HOME": str(tmp_path / "home"), "PYTHONPATH": str(ROOT)}
    env.pop("STUDYAPP_DB", None)
    proc = subprocess.Popen([sys.executable, "-c", SLOW_EXPORT, str(out / "progress.json")],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not any(p.name.endswith(".partial") for p in out.iterdir()):
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.05)
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 1, err
    assert _leftovers(out) == []


def test_a_temporary_file_left_by_a_killed_export_goes_with_the_next_one(
        tmp_path: Path) -> None:
    """``kill -9`` runs no clean-up: the next write into the folder removes what it left."""
    target = tmp_path / "progress.json"
    stale = tmp_path / ".progress.json.k3_9zq1a.partial"
    stale.write_bytes(b"half" * 1000)
    os.utime(stale, (time.time() - 2 * 3600,) * 2)
    fresh = tmp_path / ".progress.json.abcdefgh.partial"  # another write under way
    fresh.write_bytes(b"half")
    other = tmp_path / ".other.json.k3_9zq1a.partial"  # a killed export to another file
    other.write_bytes(b"half")
    os.utime(other, (time.time() - 2 * 3600,) * 2)
    unlike = tmp_path / ".progress.json.k3_9zq1.partial"  # not a name studyapp writes
    unlike.write_bytes(b"kept")
    os.utime(unlike, (time.time() - 2 * 3600,) * 2)
    victim = tmp_path / "victim"
    victim.write_text("precious", encoding="utf-8")
    link = tmp_path / ".progress.json.linkxxxx.partial"
    link.symlink_to(victim)
    os.utime(link, (time.time() - 2 * 3600,) * 2, follow_symlinks=False)
    with replacing(target) as handle:
        handle.write("{}")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [fresh.name, unlike.name, link.name, "progress.json", "victim"])
    assert victim.read_text(encoding="utf-8") == "precious"
