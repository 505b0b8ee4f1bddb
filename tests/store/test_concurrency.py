"""No answer is ever lost: many students at once, two processes on one SQLite file,
and a session killed with SIGKILL keeps exactly what was answered."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
from deck_cache import with_checked_decks
from store_answers import write_deck

from studyapp.store import open_store
from studyapp.store.progress import ensure_profile, review_count
from studyapp.study import SessionKind, StudyConfig, StudyService

STUDENTS = 20
ANSWERS = 15


def _studyapp() -> list[str]:
    exe = Path(sys.executable).with_name("studyapp")
    if exe.exists():
        return [str(exe)]
    return [sys.executable, "-c", "from studyapp.cli import main; main()"]


def test_twenty_students_answering_at_once(db_url: str, tmp_path: Path) -> None:
    deck = write_deck(tmp_path)
    open_store(db_url).close()  # the instructor creates the class database first
    barrier = threading.Barrier(STUDENTS)
    answered: dict[str, int] = {}
    errors: list[BaseException] = []

    def student(name: str) -> None:
        service = StudyService(StudyConfig(db_url=db_url, profile=name, lang="en",
                                           extra_decks=(deck,)))
        try:
            session = service.start(SessionKind.DECK, deck="store-drill", limit=ANSWERS, seed=1)
            barrier.wait(timeout=60)
            while session.next() is not None:
                outcome = session.submit("n")
                assert outcome.recorded
            answered[name] = session.answered
        except BaseException as exc:  # reported by the main thread
            errors.append(exc)
        finally:
            service.close()

    threads = [threading.Thread(target=student, args=(f"student-{n:02d}",))
               for n in range(STUDENTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert not errors, errors
    assert sorted(answered.values()) == [ANSWERS] * STUDENTS
    store = open_store(db_url)
    try:
        for name, count in answered.items():
            profile = ensure_profile(store, name, {}, _now())
            assert review_count(store, profile.id) == count, name
    finally:
        store.close()


def _now() -> datetime:
    return datetime.now(UTC)


def test_two_processes_on_one_sqlite_file_lose_nothing(tmp_path: Path) -> None:
    deck = write_deck(tmp_path)
    db = tmp_path / "shared.sqlite3"
    url = f"sqlite:///{db}"
    open_store(url).close()
    env = dict(os.environ, STUDYAPP_HOME=str(with_checked_decks(tmp_path / "home")))
    command = [*_studyapp(), "--db", url, "--lang", "en", "study", "--plain", "--deck",
               str(deck), "--limit", "120"]
    procs = [subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=env) for _ in range(2)]
    outputs = [p.communicate("n\n" * 400, timeout=300) for p in procs]
    totals = []
    for proc, (out, err) in zip(procs, outputs, strict=True):
        assert proc.returncode == 0, err
        found = re.search(r"^session:\s*(\d+)\s+answered", out, re.M)
        assert found, out[-300:]
        totals.append(int(found.group(1)))
    assert totals == [120, 120]
    store = open_store(url)
    try:
        profile = ensure_profile(store, "default", {}, _now())
        assert review_count(store, profile.id) == sum(totals)
    finally:
        store.close()


@pytest.mark.parametrize("k", [1, 7])
def test_sigkill_keeps_exactly_the_answers_given(tmp_path: Path, k: int) -> None:
    deck = write_deck(tmp_path)
    url = f"sqlite:///{tmp_path / 'killed.sqlite3'}"
    env = dict(os.environ, STUDYAPP_HOME=str(with_checked_decks(tmp_path / "home")),
               PYTHONUNBUFFERED="1")
    proc = subprocess.Popen([*_studyapp(), "--db", url, "--lang", "en", "study", "--plain",
                             "--deck", str(deck)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    assert proc.stdin is not None and proc.stdout is not None
    seen = bytearray()
    lock = threading.Lock()

    def reader() -> None:
        assert proc.stdout is not None
        while chunk := os.read(proc.stdout.fileno(), 4096):
            with lock:
                seen.extend(chunk)

    threading.Thread(target=reader, daemon=True).start()
    deadline = time.monotonic() + 120
    answered = 0
    try:
        while True:
            with lock:
                headers = len(re.findall(rb"^\[\d+/\d+\]", bytes(seen), re.M))
            if headers > answered:
                if answered == k:  # question k+1 is on screen: k answers are committed
                    break
                proc.stdin.write(b"n\n")
                proc.stdin.flush()
                answered += 1
            assert time.monotonic() < deadline, bytes(seen)[-500:]
            time.sleep(0.01)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == -signal.SIGKILL
    store = open_store(url)
    try:
        profile = ensure_profile(store, "default", {}, _now())
        assert review_count(store, profile.id) == k
    finally:
        store.close()


def test_same_cards_answered_from_many_processes_keep_reps_equal_to_logs(
        db_url: str, tmp_path: Path) -> None:
    """Each answer builds on the card as stored inside its own write: nothing is lost."""
    from sqlalchemy import create_engine, text

    deck = write_deck(tmp_path, cards=3, deck_id="hot-cards")
    open_store(db_url).close()
    workers, answers = 4, 30
    barrier = threading.Barrier(workers)
    errors: list[BaseException] = []

    def learner(seed: int) -> None:
        service = StudyService(StudyConfig(db_url=db_url, profile="shared", lang="en",
                                           extra_decks=(deck,)))
        try:
            session = service.start(SessionKind.DECK, deck="hot-cards", limit=answers,
                                    seed=seed)
            barrier.wait(timeout=60)
            while session.next() is not None:
                assert session.submit("n").recorded
            assert session.answered == answers
        except BaseException as exc:  # reported by the main thread
            errors.append(exc)
        finally:
            service.close()

    threads = [threading.Thread(target=learner, args=(n,)) for n in range(workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert not errors, errors
    engine = create_engine(db_url)
    try:
        with engine.connect() as conn:
            rows = conn.execute(text(
                "SELECT c.card_key, c.reps, c.lapses, count(l.id) FROM card_states c "
                "JOIN review_logs l ON l.card_id = c.id GROUP BY c.id, c.card_key, c.reps, "
                "c.lapses")).all()
    finally:
        engine.dispose()
    assert sum(r[3] for r in rows) == workers * answers
    assert {r[0]: r[1] for r in rows} == {r[0]: r[3] for r in rows}


def test_a_profile_created_by_another_process_meanwhile_is_read_not_an_error(
        db_url: str) -> None:
    """Two first runs at once: the one whose insert loses the race reads the winner's row.

    Only PostgreSQL can interleave them: a SQLite write transaction holds the
    file's write lock from its first statement, so the other run waits instead.
    """
    if db_url.startswith("sqlite"):
        pytest.skip("SQLite serialises the two writers; no race to lose")
    from sqlalchemy import event, insert
    from sqlalchemy.orm import Session

    from studyapp.store.tables import Profile

    store = open_store(db_url)
    other = open_store(db_url)
    try:
        raced: list[bool] = []

        def the_other_process_wins(session: Session, *_: object) -> None:
            if raced:
                return
            raced.append(True)
            with other.transaction() as theirs:
                theirs.execute(insert(Profile).values(name="shared", created_at=_now(),
                                                      settings={"theirs": True}))

        event.listen(Session, "before_flush", the_other_process_wins)
        try:
            profile = ensure_profile(store, "shared", {"mine": True}, _now())
        finally:
            event.remove(Session, "before_flush", the_other_process_wins)
        assert raced and profile.name == "shared" and profile.settings == {"theirs": True}
        assert ensure_profile(store, "shared", {}, _now()).id == profile.id
    finally:
        other.close()
        store.close()
