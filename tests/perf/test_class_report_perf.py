"""Benchmark: the class report over 200 students x 2,000 answers (400,000) on PostgreSQL,
beside ``SELECT count(*)`` of the same review logs.

The report counts the answers by the verdicts and slips stored with them (revision 0012);
each card's wrong answers and each student's slips are read from covering partial indexes
(revision 0019), and the database computes each card's statistics (facility, SD,
discrimination, the sorted pairing of discriminative efficiency) on first and on all
attempts from ``card_stats`` in one statement (``store.item_figures``): the class's
(student, card) rows read once, ranked once per set, sorted by card once; one row per card
back whatever the class's size. Run with
``python -m pytest tests/perf/test_class_report_perf.py -s`` for full size, the printed
``[perf]`` figures and the command timed end to end in a new process (a hundredth of the
data otherwise, as a smoke test).

Measured on 2 cores shared with other work (December 2026; each figure the median of 3 warm
reports, three runs; ``load`` is the 1-minute load average):

- before (three marks statements, wrong answers and slips read from the log rows):
  1,734 ms beside 77 ms for count(*) (22.4x, load 6.5-7.9); 1,207 / 71 ms (17.0x, load
  5-6); 688 / 44 ms (15.6x, load 3.5-4).
- after: 690 / 103 ms (6.7x, load 6.1); 491 / 80 ms (6.2x, load 6.1); 540 / 77 ms (7.0x,
  load 6.6); 430 / 46 ms (9.4x, load 1.7). ``studyapp class report --json`` in a new
  process (start-up, imports, decks, report): 4.4, 4.1, 2.2 and 1.9 s wall at those loads,
  about 1.3 s of processor (1.5-2.6 s before each set of deck choices was worked out once
  for the class, not per student).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from backends import PG_URL, fresh_pg_schema
from sqlalchemy import insert, select, text
from test_stats_perf import NOW, figure, full_size, report, timed

from studyapp import locations
from studyapp.decks import load_deck
from studyapp.srs.scheduler import SchedulerSettings
from studyapp.store import Store, open_store
from studyapp.store.progress import ensure_profile
from studyapp.store.tables import CardState
from studyapp.store.verdicts import answer_marks

STUDENTS = 200 if full_size() else 4
ANSWERS = 2_000 if full_size() else 200
CARDS = 120
"""Cards of the class's deck: a third true/false, a third numeric, a third choice."""

COLUMNS = ["profile_id", "card_id", "reviewed_at", "rating", "correct", "duration_ms",
           "state_before", "seed", "params", "prompt", "response", "expected", "lang", "uid",
           "verdict", "slip", "carried", "answer"]


def _deck(folder: Path) -> Path:
    lines = ["deck: bench-class\ntitle: Bench class\nlanguage: en\npost: hbm-kv-cache\n"
             "cards:\n"]
    for n in range(CARDS):
        kind = n % 3
        if kind == 0:
            lines.append(f"  - id: card-{n:03d}\n    type: truefalse\n"
                         f"    prompt: \"Fact {n} holds.\"\n    answer: true\n")
        elif kind == 1:
            lines.append(f"  - id: card-{n:03d}\n    type: numeric\n"
                         f"    prompt: \"KV cache {n}, in GB?\"\n    answer: 16\n    unit: GB\n"
                         "    slips:\n      - {name: forgot-v, answer: 8, message: \"K only.\"}\n")
        else:
            lines.append(f"  - id: card-{n:03d}\n    type: choice\n"
                         f"    prompt: \"Memory {n}?\"\n    choices: [HBM3e, GDDR7, LPDDR5X]\n"
                         "    answer: 0\n")
    path = folder / "bench-class.yaml"
    path.write_text("".join(lines), encoding="utf-8")
    return path


WRONG = {0: [("false", None)], 1: [("128", "bits"), ("8", "forgot-v"), ("17.5", None)],
         2: [("2", "GDDR7"), ("3", "LPDDR5X")]}
RIGHT = {0: ["true", "t"], 1: ["16", "16 GB"], 2: ["1"]}


def _answers(profile_id: int, card_ids: dict[int, int], rng: random.Random,
             skill: float) -> Iterator[list[Any]]:
    seen: set[int] = set()
    start = NOW - timedelta(days=60)
    for i in range(ANSWERS):
        n = rng.randrange(CARDS)
        kind = n % 3
        correct = rng.random() < skill
        first = n not in seen
        seen.add(n)
        if correct:
            response, slip = rng.choice(RIGHT[kind]), None
            params: dict[str, Any] = {}
        else:
            response, slip = rng.choice(WRONG[kind])
            params = {"answer_slips": [slip] if slip else []}
            if kind == 2:
                params["picked_choice"] = slip
        marks = answer_marks(correct, params)
        yield [profile_id, card_ids[n], start + timedelta(seconds=i * 2500),
               3 if correct else 1, correct, rng.randint(2000, 40000), 0 if first else 2,
               rng.randrange(2**31), json.dumps(params), f"Card {n}?", response, "16", "en",
               uuid.uuid4().hex, marks["verdict"], marks["slip"], marks["carried"],
               marks["answer"]]


def _populate(store: Store) -> None:
    engine = store.write_engine or store.engine
    rng = random.Random(7)
    for s in range(STUDENTS):
        profile = ensure_profile(store, f"student-{s:03d}", SchedulerSettings().to_dict(), NOW)
        with engine.begin() as conn:
            conn.execute(insert(CardState), [{
                "profile_id": profile.id, "deck_id": "bench-class", "card_key": f"card-{n:03d}",
                "post": "hbm-kv-cache", "family": None, "state": rng.choice((1, 2, 2, 2, 3)),
                "step": None, "stability": rng.uniform(1, 40), "difficulty": 5.0,
                "due": NOW - timedelta(days=rng.uniform(-20, 10)),
                "last_review": NOW - timedelta(days=3), "reps": 3, "lapses": 0,
                "suspended": False, "leech": False, "created_at": NOW - timedelta(days=60)}
                for n in range(CARDS)])
            ids = dict(conn.execute(select(CardState.card_key, CardState.id)
                                    .where(CardState.profile_id == profile.id)).all())
        card_ids = {n: ids[f"card-{n:03d}"] for n in range(CARDS)}
        raw = store.engine.raw_connection()
        try:
            cursor = raw.cursor()
            with cursor.copy(  # type: ignore[attr-defined]
                    f"COPY review_logs ({', '.join(COLUMNS)}) FROM STDIN") as copy:
                for row in _answers(profile.id, card_ids, rng, rng.uniform(0.6, 0.95)):
                    copy.write_row(row)
            raw.commit()
        finally:
            raw.close()
    with store.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        conn.execute(text("VACUUM ANALYZE"))


@pytest.fixture
def pg_bench(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    monkeypatch.setenv("STUDYAPP_HOME", str(tmp_path / "home"))
    if not PG_URL:
        pytest.skip("STUDYAPP_TEST_PG is not set")
    with fresh_pg_schema() as url:
        yield url


def test_class_report_200_students_by_2000_answers(pg_bench: str, tmp_path: Path) -> None:
    from studyapp.classroom import class_report
    from studyapp.classroom.misconceptions import class_misconceptions

    deck = load_deck(_deck(tmp_path))
    store = open_store(pg_bench)
    try:
        start = time.perf_counter()
        _populate(store)
        load_s = time.perf_counter() - start

        def count() -> int:
            with store.sessions() as session:
                return int(session.execute(text("SELECT count(*) FROM review_logs")).scalar_one())

        count_ms, total = timed(count, repeat=3)
        ms, result = timed(lambda: class_report(store, {"hbm-kv-cache": CARDS}, NOW,
                                                decks=[deck]), repeat=3)
        held_ms, held = timed(lambda: class_misconceptions(store, NOW), repeat=3)
    finally:
        store.close()
    report(f"postgresql: class report, {STUDENTS} students x {ANSWERS:,} answers: {ms:.0f} ms; "
           f"SELECT count(*) {count_ms:.0f} ms ({ms / max(count_ms, 0.1):.1f}x); "
           f"loaded in {load_s:.1f} s; misconceptions (one grouped query) {held_ms:.0f} ms; "
           f"load average {os.getloadavg()[0]:.1f}")
    if full_size():  # the command as an instructor runs it: start-up, imports, decks, report
        command_ms, items = _command(pg_bench, deck.path)
        report(f"postgresql: studyapp class report --json, a new process each time: "
               f"{command_ms:.0f} ms (median of 3)")
        assert items == CARDS
    if full_size():
        figure("class-report-200x2000-pg-ms", ms, "ms", "<= 1000 ms on PostgreSQL")
        assert ms < 5000, "the class report is back to grading answers one at a time"
    assert total == STUDENTS * ANSWERS
    assert held and held == result.misconceptions  # every student slips: some misconception
    assert len(result.students) == STUDENTS
    assert sum(i.reviews for i in result.items) == total
    numeric = [i for i in result.items if int(i.card_key[-3:]) % 3 == 1]
    assert {r.answer for i in numeric for r in i.responses} == {"16 GB", "128 GB", "8 GB",
                                                                  "17.5 GB"}
    assert {s for i in numeric for s, _ in i.slips} <= {"bits", "forgot-v"}


def _command(url: str, deck: Path) -> tuple[float, int]:
    """Median wall time in ms of ``studyapp class report --json`` over 3 runs, the deck
    installed as a file (no regrade), and the items the last run listed."""
    decks = locations.user_decks_dir()
    decks.mkdir(parents=True, exist_ok=True)
    shutil.copy(deck, decks / deck.name)
    env = {**os.environ, "STUDYAPP_DB": url}
    times, items = [], 0
    for _ in range(3):
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "studyapp", "class", "report", "--json"],
                              env=env, capture_output=True, text=True, check=False)
        times.append((time.perf_counter() - start) * 1000)
        assert done.returncode == 0, done.stderr
        items = len(json.loads(done.stdout)["items"])
    return statistics.median(times), items
