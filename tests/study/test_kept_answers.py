"""Answers given while the class database's server is away are kept on this machine.

Every answer, right or wrong, is kept in a file and written, oldest first,
when the server is back, each exactly once; the session goes on meanwhile
and says so in one line. The server is taken away here by making the
store's calls fail as a lost server makes them fail (``ServerAway``); the
test with a real PostgreSQL stopped and started is ``test_server_outage.py``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from studyapp.i18n import t
from studyapp.store import ServerAway, Store, open_store
from studyapp.study import SessionKind, StudyConfig, StudyService, StudySession

CARDS = "\n".join(f"""  - id: times-{n}
    type: numeric
    prompt: {{en: "How much is {n} × 7?", es: "¿Cuánto es {n} × 7?"}}
    answer: "{n * 7}"
    tolerance: 0""" for n in range(1, 9))
DECK = f"""deck: kept
title: Kept answers
language: en
post: hbm-kv-cache
cards:
{CARDS}
"""
NOW = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


class Server:
    """The store's server, which the test can take away and bring back."""

    def __init__(self, store: Store) -> None:
        self.away = False
        self.calls = 0
        self._reach = store.reach

    def reach(self, work: Callable[[int], Any]) -> Any:
        self.calls += 1
        if self.away:
            raise ServerAway("connection refused")
        return self._reach(work)


@pytest.fixture
def deck(tmp_path: Path) -> Path:
    path = tmp_path / "kept.yaml"
    path.write_text(DECK, encoding="utf-8")
    return path


def open_service(url: str, deck: Path, clock: list[datetime]) -> tuple[StudyService, Server]:
    svc = StudyService(StudyConfig(db_url=url, lang="en", clock=lambda: clock[0],
                                   extra_decks=(deck,)))
    server = Server(svc.store)
    svc.store.reach = server.reach  # type: ignore[method-assign]
    return svc, server


def answer(session: StudySession, *, right: bool) -> None:
    presented = session.next()
    assert presented is not None
    n = int(re.search(r"(\d+) × 7", presented.question.prompt).group(1))  # type: ignore[union-attr]
    outcome = session.submit(str(n * 7 if right else n * 7 + 1000))
    if outcome.needs_rating:
        session.rate()


def logged(url: str) -> tuple[int, int]:
    """Answers in the database, and how many of them right."""
    from sqlalchemy import select

    from studyapp.store.tables import ReviewLog

    store = open_store(url)
    try:
        with store.sessions() as s:
            correct = s.execute(select(ReviewLog.correct)).scalars().all()
        return len(correct), sum(correct)
    finally:
        store.close()


def kept_files(home: Path) -> list[Path]:
    return sorted(home.rglob("kept-answers/*.json"))


def test_answers_given_while_away_are_kept_then_sent_once_when_back(
        tmp_path: Path, deck: Path, _isolated_home: Path) -> None:
    url = f"sqlite:///{tmp_path / 'k.sqlite3'}"
    clock = [NOW]
    svc, server = open_service(url, deck, clock)
    try:
        session = svc.start(SessionKind.DECK, deck="kept")
        answer(session, right=True)
        assert session.notices() == ()

        server.away = True
        answer(session, right=False)  # recorded as Again: kept
        assert session.notices() == (t("study.server_away", "en"),)
        answer(session, right=True)  # held while waiting for its rating, then rated: kept
        answer(session, right=False)
        assert session.notices() == ()  # said once per outage
        assert session.answered == 4
        [kept] = kept_files(_isolated_home)
        assert len(json.loads(kept.read_text())["answers"]) == 3
        assert kept.stat().st_mode & 0o077 == 0  # the learner's answers: theirs only
        assert logged(url) == (1, 1)

        server.away = False
        answer(session, right=True)  # the kept ones go first, then this one
        assert session.notices() == (t("study.kept_sent", "en", count=3),)
        assert kept_files(_isolated_home) == []
        assert logged(url) == (5, 3)
        assert session.tally("en").notices == ()
    finally:
        svc.close()
    assert logged(url) == (5, 3)


def test_an_undo_while_away_takes_the_kept_answer_back(tmp_path: Path, deck: Path,
                                                       _isolated_home: Path) -> None:
    url = f"sqlite:///{tmp_path / 'k.sqlite3'}"
    svc, server = open_service(url, deck, [NOW])
    try:
        session = svc.start(SessionKind.DECK, deck="kept")
        server.away = True
        answer(session, right=False)
        answer(session, right=True)
        assert session.undo() and session.answered == 1
        assert session.notices() == (t("study.server_away", "en"),)
        [kept] = kept_files(_isolated_home)
        assert len(json.loads(kept.read_text())["answers"]) == 1
        server.away = False
        assert session.tally("en").notices == (t("study.kept_sent_one", "en"),)
    finally:
        svc.close()
    assert logged(url) == (1, 0)


def test_answers_still_kept_at_exit_are_sent_when_the_profile_opens_again(
        tmp_path: Path, deck: Path, _isolated_home: Path) -> None:
    url = f"sqlite:///{tmp_path / 'k.sqlite3'}"
    svc, server = open_service(url, deck, [NOW])
    try:
        session = svc.start(SessionKind.DECK, deck="kept")
        server.away = True
        answer(session, right=False)
        presented = session.next()
        assert presented is not None
        n = int(re.search(r"(\d+) × 7", presented.question.prompt).group(1))  # type: ignore[union-attr]
        assert session.submit(str(n * 7)).needs_rating  # right, not rated yet
        assert session.tally("en").notices == (t("study.server_away", "en"),
                                               t("study.kept_left_one", "en"))
    finally:
        svc.close()  # the waiting answer is settled as Enter would: kept too
    assert len(json.loads(kept_files(_isolated_home)[0].read_text())["answers"]) == 2
    assert logged(url) == (0, 0)

    again, _ = open_service(url, deck, [NOW + timedelta(minutes=5)])
    try:
        assert again.profile is not None
        assert again.take_notices() == [t("study.kept_sent", "en", count=2)]
    finally:
        again.close()
    assert logged(url) == (2, 1)
    assert kept_files(_isolated_home) == []


def test_an_answer_whose_reply_was_lost_is_written_once(tmp_path: Path, deck: Path,
                                                        _isolated_home: Path) -> None:
    """The commit reached the server, the reply did not: sending it again writes nothing."""
    url = f"sqlite:///{tmp_path / 'k.sqlite3'}"
    svc, server = open_service(url, deck, [NOW])
    try:
        session = svc.start(SessionKind.DECK, deck="kept")
        server.away = True
        answer(session, right=False)
        [kept] = kept_files(_isolated_home)
        copy = kept.read_bytes()
        server.away = False
        answer(session, right=True)
        assert logged(url) == (2, 1)
        assert len(svc.take_notices()) == 2  # away, then sent
        kept.write_bytes(copy)  # as if the file had not been updated after the commit
        svc.send_kept_answers()
        assert svc.take_notices() == [t("study.kept_sent_one", "en")]
    finally:
        svc.close()
    assert logged(url) == (2, 1)


def test_an_unreadable_file_of_kept_answers_is_moved_aside_with_one_line(
        tmp_path: Path, deck: Path, _isolated_home: Path) -> None:
    url = f"sqlite:///{tmp_path / 'k.sqlite3'}"
    svc, server = open_service(url, deck, [NOW])
    try:
        session = svc.start(SessionKind.DECK, deck="kept")
        server.away = True
        answer(session, right=False)
        assert session.notices() == (t("study.server_away", "en"),)
        [kept] = kept_files(_isolated_home)
        data = json.loads(kept.read_text())
        data["answers"][0]["answer"]["rating"] = "four"
        kept.write_text(json.dumps(data))
        server.away = False
        answer(session, right=True)  # the session goes on
        [notice] = session.notices()
        assert notice.startswith("The answers kept on this machine could not be read")
        assert "rating" in notice and ".unreadable" in notice
        assert kept_files(_isolated_home) == []
        assert len(list(kept.parent.glob("*.unreadable"))) == 1
    finally:
        svc.close()
    assert logged(url) == (1, 1)


def test_kept_answers_belong_to_one_database_and_profile() -> None:
    from studyapp.study.outage import kept_answers_path

    url = "postgresql+psycopg://ana:secret@db.example/class"
    assert kept_answers_path(url, "ana") == kept_answers_path(
        "postgresql+psycopg://ana:changed@db.example/class", "ana")  # not the password
    assert kept_answers_path(url, "ana") != kept_answers_path(url, "ben")
    assert kept_answers_path(url, "ana") != kept_answers_path(
        "postgresql+psycopg://ana:secret@db.example/other", "ana")
    assert "secret" not in str(kept_answers_path(url, "ana"))


def held_rows(url: str) -> int:
    from sqlalchemy import func, select

    from studyapp.store.tables import HeldAnswer

    store = open_store(url)
    try:
        with store.sessions() as s:
            return int(s.execute(select(func.count()).select_from(HeldAnswer)).scalar_one())
    finally:
        store.close()


def test_a_right_answer_skipped_while_away_is_released_and_never_recorded(
        tmp_path: Path, deck: Path, _isolated_home: Path) -> None:
    url = f"sqlite:///{tmp_path / 'k.sqlite3'}"
    svc, server = open_service(url, deck, [NOW])
    try:
        session = svc.start(SessionKind.DECK, deck="kept")
        presented = session.next()
        assert presented is not None
        n = int(re.search(r"(\d+) × 7", presented.question.prompt).group(1))  # type: ignore[union-attr]
        assert session.submit(str(n * 7)).needs_rating  # held in the database
        assert held_rows(url) == 1
        server.away = True
        session.skip()  # not to be recorded: released when the server is back
        presented = session.next()
        assert presented is not None
        n = int(re.search(r"(\d+) × 7", presented.question.prompt).group(1))  # type: ignore[union-attr]
        assert session.submit(str(n * 7)).needs_rating  # held on this machine
        session.skip()
        [kept] = kept_files(_isolated_home)
        assert json.loads(kept.read_text())["answers"] == []
        assert json.loads(kept.read_text())["released"] != []
        server.away = False
        answer(session, right=False)
    finally:
        svc.close()
    assert held_rows(url) == 0
    assert logged(url) == (1, 0)  # only the answer given after the skips
    assert kept_files(_isolated_home) == []
