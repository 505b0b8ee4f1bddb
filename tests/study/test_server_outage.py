"""The class database's server stops in the middle of a plain session, then comes back.

A private PostgreSQL cluster is made in a temporary folder (never the
shared test server: this one is stopped and started). ``studyapp study
--plain`` answers cards, the server stops (``pg_ctl stop -m fast``), more
cards are answered right and wrong, the server starts again, more are
answered, and the session ends: every answer is in the database, once,
and the learner was told what happened, one line each time.
"""

from __future__ import annotations

import os
import pwd
import re
import select
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from deck_cache import with_checked_decks

from studyapp.i18n import t
from studyapp.store.database import PROBE_EVERY

pytestmark = [pytest.mark.postgres, pytest.mark.slow]

CARDS = "\n".join(f"""  - id: times-{n}
    type: numeric
    prompt: {{en: "How much is {n} × 7?", es: "¿Cuánto es {n} × 7?"}}
    answer: "{n * 7}"
    tolerance: 0""" for n in range(1, 13))
DECK = f"""deck: outage
title: Outage
language: en
post: hbm-kv-cache
cards:
{CARDS}
"""
QUESTION = re.compile(rb"How much is (\d+) \xc3\x97 7\?\n[^\n]*\n> $")


def _pg_bin() -> Path | None:
    """The newest PostgreSQL server programs installed (Debian's layout, or on PATH)."""
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"),
                   key=lambda p: [int(x) for x in re.findall(r"\d+", p.parent.parent.name)])
    if found:
        return found[-1].parent
    on_path = shutil.which("pg_ctl")
    if on_path and shutil.which("initdb"):
        return Path(on_path).parent
    return None


@dataclass
class Cluster:
    """A private PostgreSQL server that the test may stop and start."""

    bin: Path
    data: Path
    work: Path
    port: int
    owner: list[str]  # runuser -u postgres -- when run as root (initdb refuses root)

    @property
    def url(self) -> str:
        return f"postgresql+psycopg://studyapp:studyapp@127.0.0.1:{self.port}/studyapp_outage"

    def ctl(self, *args: str) -> None:
        subprocess.run([*self.owner, str(self.bin / "pg_ctl"), "-D", str(self.data), *args],
                       check=True, capture_output=True, timeout=120)

    def start(self) -> None:
        self.ctl("-l", str(self.work / "postgres.log"), "-w", "-t", "60", "-o",
                 f"-h 127.0.0.1 -p {self.port} -k {self.work} -c fsync=off", "start")

    def stop(self) -> None:
        self.ctl("-m", "fast", "-w", "stop")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def cluster() -> Iterator[Cluster]:
    pg_bin = _pg_bin()
    if pg_bin is None or not (pg_bin / "initdb").exists():
        pytest.skip("PostgreSQL's initdb and pg_ctl are not installed")
    pytest.importorskip("psycopg")
    work = Path(tempfile.mkdtemp(prefix="studyapp-outage-"))
    owner: list[str] = []
    if os.geteuid() == 0:
        try:
            postgres = pwd.getpwnam("postgres")
        except KeyError:
            shutil.rmtree(work)
            pytest.skip("run as root with no postgres user to run the server as")
        if shutil.which("runuser") is None:
            shutil.rmtree(work)
            pytest.skip("run as root without runuser to start the server as postgres")
        os.chown(work, postgres.pw_uid, postgres.pw_gid)
        work.chmod(0o755)
        owner = ["runuser", "-u", "postgres", "--"]
    server = Cluster(pg_bin, work / "data", work, _free_port(), owner)
    made = subprocess.run([*owner, str(pg_bin / "initdb"), "-D", str(server.data), "-U",
                           "postgres", "--auth=trust", "-E", "UTF8", "--locale=C.UTF-8"],
                          capture_output=True, text=True, timeout=300)
    if made.returncode != 0:
        shutil.rmtree(work, ignore_errors=True)
        pytest.skip(f"initdb cannot run here: {made.stderr.strip()[:200]}")
    try:
        server.start()
        from sqlalchemy import create_engine, text

        admin = create_engine(f"postgresql+psycopg://postgres@127.0.0.1:{server.port}/postgres",
                              isolation_level="AUTOCOMMIT")
        try:
            with admin.connect() as conn:
                conn.execute(text("CREATE ROLE studyapp LOGIN PASSWORD 'studyapp'"))
                conn.execute(text("CREATE DATABASE studyapp_outage OWNER studyapp"))
        finally:
            admin.dispose()
        yield server
    finally:
        subprocess.run([*owner, str(pg_bin / "pg_ctl"), "-D", str(server.data), "-m",
                        "immediate", "stop"], capture_output=True, timeout=120)
        shutil.rmtree(work, ignore_errors=True)


class Plain:
    """``studyapp study --plain`` in a child process, read as a learner reads it."""

    def __init__(self, url: str, deck: Path, home: Path, limit: int) -> None:
        # the URL (with its password) in the environment: --db refuses a password
        env = os.environ | {"STUDYAPP_HOME": str(with_checked_decks(home)),
                            "PYTHONUNBUFFERED": "1", "PYTHONPATH": str(Path(__file__).parents[2]),
                            "STUDYAPP_DB": url}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "studyapp", "--lang", "en", "study", "--plain",
             "--deck", str(deck), "--limit", str(limit)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        self.seen = b""
        self.read = 0  # how far the learner has read
        self.given: list[bool] = []

    def read_until(self, pattern: re.Pattern[bytes], timeout: float = 90, *,
                   move_on: bool = True) -> re.Match[bytes]:
        """The next match of ``pattern`` in what is printed; ``move_on``: read past it."""
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        deadline = time.monotonic() + timeout
        while (found := pattern.search(self.seen, self.read)) is None:
            left = deadline - time.monotonic()
            assert left > 0, self.seen.decode(errors="replace")
            ready, _, _ = select.select([fd], [], [], left)
            if ready:
                chunk = os.read(fd, 65536)
                assert chunk, self.seen.decode(errors="replace")
                self.seen += chunk
        if move_on:
            self.read = found.end()
        return found

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line.encode() + b"\n")
        self.proc.stdin.flush()

    def answer(self, *, right: bool) -> None:
        """Answer the question on screen; a right one is rated with Enter."""
        n = int(self.read_until(QUESTION).group(1))
        self.send(str(n * 7 if right else n * 7 + 1000))
        if right:
            self.read_until(re.compile(rb"How easy was it\?[^\n]*\n> $"))
            self.send("")
        self.given.append(right)

    def end(self) -> str:
        """The input ends (the limit is reached too); everything printed."""
        out, err = self.proc.communicate(timeout=120)
        self.seen += out
        assert self.proc.returncode == 0, err.decode(errors="replace")
        assert b"Traceback" not in err, err.decode(errors="replace")
        assert b"database error" not in err, err.decode(errors="replace")
        return self.seen.decode()


def test_a_plain_session_survives_the_server_stopping_and_loses_no_answer(
        cluster: Cluster, tmp_path: Path) -> None:
    deck = tmp_path / "outage.yaml"
    deck.write_text(DECK, encoding="utf-8")
    home = tmp_path / "home"
    plan_before, plan_away, plan_back = [True, False], [True, False, False, True], [True, False]
    total = len(plan_before) + len(plan_away) + len(plan_back)
    learner = Plain(cluster.url, deck, home, limit=total)

    for right in plan_before:
        learner.answer(right=right)
    learner.read_until(QUESTION, move_on=False)  # the last answer is written: next question
    cluster.stop()
    for right in plan_away:
        learner.answer(right=right)
    learner.read_until(QUESTION, move_on=False)
    cluster.start()
    time.sleep(PROBE_EVERY + 0.5)  # the server is tried again once this has passed
    for right in plan_back:
        learner.answer(right=right)
    shown = learner.end()

    assert shown.count(t("study.server_away", "en")) == 1
    assert t("study.kept_sent", "en", count=len(plan_away)) in shown
    assert f"session: {total} answered, {sum(learner.given)} correct" in shown
    assert not list(home.rglob("kept-answers/*.json"))  # nothing left on this machine

    from sqlalchemy import create_engine, text

    engine = create_engine(cluster.url)
    try:
        with engine.connect() as conn:
            logged = conn.execute(text(
                "SELECT correct FROM review_logs ORDER BY reviewed_at, id")).scalars().all()
            held = conn.execute(text("SELECT count(*) FROM held_answers")).scalar_one()
    finally:
        engine.dispose()
    assert logged == learner.given  # every answer, once, in the order given
    assert held == 0


def test_a_session_ended_while_the_server_is_away_sends_its_answers_next_time(
        cluster: Cluster, tmp_path: Path) -> None:
    deck = tmp_path / "outage.yaml"
    deck.write_text(DECK, encoding="utf-8")
    home = tmp_path / "home"
    learner = Plain(cluster.url, deck, home, limit=4)
    learner.answer(right=True)
    learner.read_until(QUESTION, move_on=False)
    cluster.stop()
    for right in (False, True, False):
        learner.answer(right=right)
    shown = learner.end()  # ends while the server is still away: no error, a notice
    assert t("study.kept_left", "en", count=3) in shown
    assert "database error" not in shown
    assert len(list(home.rglob("kept-answers/*.json"))) == 1

    cluster.start()
    again = Plain(cluster.url, deck, home, limit=1)
    again.read_until(QUESTION, move_on=False)
    assert t("study.kept_sent", "en", count=3) in again.seen.decode()
    again.answer(right=True)
    again.end()
    assert not list(home.rglob("kept-answers/*.json"))

    from sqlalchemy import create_engine, text

    engine = create_engine(cluster.url)
    try:
        with engine.connect() as conn:
            logged = conn.execute(text(
                "SELECT correct FROM review_logs ORDER BY reviewed_at, id")).scalars().all()
    finally:
        engine.dispose()
    assert logged == learner.given + again.given
