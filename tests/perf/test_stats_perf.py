"""Benchmarks: stats over 1,000,000 review logs, the class report, database size.

Run with ``python -m pytest tests/perf -s`` to get full-size data and the
printed ``[perf]`` figures; benchmarks report, they do not fail on time. With
STUDYAPP_PERF=0 the same code runs on a hundredth of the data, as a smoke
test. PostgreSQL runs too when STUDYAPP_TEST_PG is set (figures are SQLite's).
"""

from __future__ import annotations

import json
import os
import random
import statistics
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from backends import PG_URL, fresh_pg_schema
from sqlalchemy import insert, select, text
from sqlalchemy.engine import make_url

from studyapp.catalog.posts import POST_SLUGS
from studyapp.srs.scheduler import SchedulerSettings
from studyapp.store import Store, open_store
from studyapp.store.progress import ensure_profile
from studyapp.store.tables import CardState, ReviewLog
from studyapp.store.verdicts import answer_marks

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)


def full_size() -> bool:
    """Full-size data when the benchmarks are asked for by path (or STUDYAPP_PERF=1)."""
    if os.environ.get("STUDYAPP_PERF") in ("0", "1"):
        return os.environ["STUDYAPP_PERF"] == "1"
    return any("tests/perf" in arg.replace("\\", "/") for arg in sys.argv[1:])


SCALE = 1.0 if full_size() else 0.01


def scaled(n: int) -> int:
    return max(10, int(n * SCALE))


def timed(fn: Callable[[], Any], repeat: int = 5) -> tuple[float, Any]:
    """Median wall time in ms over ``repeat`` warm runs, and the last result."""
    result = fn()  # warm caches
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), result


def report(line: str) -> None:
    """A detail line beside the figures (backend, sizes, load time)."""
    print(f"\n[perf-detail] {line}", flush=True)


def figure(name: str, value: float, unit: str, goal: str) -> None:
    """One benchmark figure, as docs/architecture.md fixes it.

    The line reads ``[perf] NAME: VALUE UNIT (goal ...)``.
    """
    shown = f"{value:.2f}" if unit == "x" else f"{value:.1f}" if value < 100 else f"{value:.0f}"
    print(f"\n[perf] {name}: {shown} {unit} (goal {goal})", flush=True)


# -- data -------------------------------------------------------------------------

def _previous(stability: float, last: datetime) -> dict[str, Any]:
    return {"stage": 2, "step": None, "stability": stability, "difficulty": 5.3,
            "due": (last + timedelta(days=stability)).isoformat(),
            "last_review": last.isoformat(), "reps": 4, "lapses": 0, "suspended": False,
            "leech": False}


def card_rows(profile_id: int, cards: int, deck: str, rng: random.Random) -> list[dict[str, Any]]:
    """Card states as a learner would have them: mostly review, some learning, a few leeches."""
    rows = []
    for n in range(cards):
        state = rng.choices((1, 2, 3), weights=(10, 85, 5))[0]
        stability = rng.uniform(0.5, 3) if state != 2 else rng.lognormvariate(2.5, 1.0)
        last = NOW - timedelta(days=rng.uniform(0, min(stability * 1.5, 300)))
        lapses = rng.choices((0, 1, 2, 9), weights=(80, 12, 6, 2))[0]
        rows.append({"profile_id": profile_id, "deck_id": deck, "card_key": f"card-{n:05d}",
                     "post": POST_SLUGS[n % len(POST_SLUGS)], "family": None, "state": state,
                     "step": 0 if state != 2 else None, "stability": stability,
                     "difficulty": rng.uniform(1, 10),
                     "due": last + timedelta(days=stability), "last_review": last,
                     "reps": 5, "lapses": lapses, "suspended": n % 97 == 0,
                     "leech": lapses >= 8, "created_at": NOW - timedelta(days=400)})
    return rows


def log_rows(profile_id: int, card_ids: list[int], logs: int, days: int,
             rng: random.Random) -> Iterator[dict[str, Any]]:
    """Chronological review logs spread over ``days``, each card's first one a new card."""
    seen: set[int] = set()
    step = days * 86400 / logs
    start = NOW - timedelta(days=days)
    for i in range(logs):
        card_id = card_ids[rng.randrange(len(card_ids))]
        at = start + timedelta(seconds=i * step)
        correct = rng.random() < 0.87
        first = card_id not in seen
        seen.add(card_id)
        stability = rng.lognormvariate(2.3, 1.0)
        params = {"gpu": "h200-sxm", "model": "llama-3.1-70b", "batch": 4,
                  **({} if correct else {"answer_slips": []})}
        yield {"profile_id": profile_id, "card_id": card_id, "reviewed_at": at,
               "rating": (3 if rng.random() < 0.8 else 2) if correct else 1,
               "correct": correct, "duration_ms": rng.randint(2000, 40000),
               "state_before": 0 if first else 2, "previous": None if first else
               _previous(stability, at - timedelta(days=stability)),
               "seed": rng.randrange(2**31), "params": params, **answer_marks(correct, params),
               "prompt": "Does llama-3.1-70b in bf16 with a 8192-token context and batch 4 "
                         "fit on one H200 SXM (141 GB)?",
               "response": "no", "expected": "no", "lang": "en", "uid": uuid.uuid4().hex}


def _copy_pg(store: Store, rows: Iterator[dict[str, Any]]) -> None:
    """PostgreSQL COPY: the fast way to load a million rows."""
    columns = ["profile_id", "card_id", "reviewed_at", "rating", "correct", "duration_ms",
               "state_before", "previous", "seed", "params", "prompt", "response", "expected",
               "lang", "uid", "verdict", "slip", "carried", "answer"]
    raw = store.engine.raw_connection()
    try:
        cursor = raw.cursor()
        with cursor.copy(f"COPY review_logs ({', '.join(columns)}) FROM STDIN") as copy:  # type: ignore[attr-defined]
            for row in rows:
                copy.write_row([json.dumps(row[c]) if c in ("previous", "params")
                                and row[c] is not None else row[c] for c in columns])
        raw.commit()
    finally:
        raw.close()


def populate(store: Store, name: str, cards: int, logs: int, *, days: int = 730,
             deck: str = "bench", seed: int = 1) -> int:
    """A profile with ``cards`` card states and ``logs`` review logs, loaded in bulk."""
    rng = random.Random(seed)
    profile = ensure_profile(store, name, SchedulerSettings().to_dict(), NOW)
    engine = store.write_engine or store.engine
    with engine.begin() as conn:
        conn.execute(insert(CardState), card_rows(profile.id, cards, deck, rng))
        ids = list(conn.scalars(select(CardState.id).where(CardState.profile_id == profile.id)))
    rows = log_rows(profile.id, ids, logs, days, rng)
    if store.engine.dialect.name == "postgresql":
        _copy_pg(store, rows)
    else:
        batch: list[dict[str, Any]] = []
        with engine.begin() as conn:
            for row in rows:
                batch.append(row)
                if len(batch) == 50_000:
                    conn.execute(insert(ReviewLog), batch)
                    batch = []
            if batch:
                conn.execute(insert(ReviewLog), batch)
    # the steady state autovacuum keeps a live server in: statistics and visibility map;
    # on SQLite, statistics and the write-ahead log folded back, as automatic checkpoints
    # keep it after everyday answers (a bulk load leaves it hundreds of MB long)
    statement = "VACUUM ANALYZE" if store.engine.dialect.name == "postgresql" else "ANALYZE"
    with store.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        conn.execute(text(statement))
        if store.engine.dialect.name == "sqlite":
            conn.execute(text("PRAGMA wal_checkpoint(TRUNCATE)"))
    return profile.id


# -- backends -----------------------------------------------------------------------

@pytest.fixture(params=["sqlite", "postgresql"])
def bench_url(request: pytest.FixtureRequest, tmp_path: Path,
              monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    monkeypatch.setenv("STUDYAPP_HOME", str(tmp_path / "home"))
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'bench.sqlite3'}"
        return
    if not PG_URL:
        pytest.skip("STUDYAPP_TEST_PG is not set")
    with fresh_pg_schema() as url:
        yield url


# -- benchmarks ---------------------------------------------------------------------

def test_learner_stats_with_a_million_logs(bench_url: str) -> None:
    from studyapp.progress import learner_stats
    from studyapp.study import StudyConfig, StudyService

    cards, logs = scaled(10_000), scaled(1_000_000)
    store = open_store(bench_url)
    start = time.perf_counter()
    populate(store, "bench", cards, logs)
    load_s = time.perf_counter() - start
    store.close()
    backend = make_url(bench_url).get_backend_name()
    service = StudyService(StudyConfig(db_url=bench_url, profile="bench", lang="en",
                                       clock=lambda: NOW))
    try:
        ms, stats = timed(lambda: learner_stats(service))
        json_ms, _ = timed(lambda: stats.as_json())
    finally:
        service.close()
    report(f"{backend}: stats over {logs:,} logs and {cards:,} cards: {ms:.0f} ms "
           f"(as JSON +{json_ms:.1f} ms); data loaded in {load_s:.1f} s")
    if backend == "sqlite" and full_size():
        figure("stats-1M-ms", ms, "ms", "<= 100 ms on SQLite")
    assert stats.reviews_total == logs
    assert stats.cards_seen == cards
    assert sum(n for _, n in stats.reviews_per_day) > 0
    assert stats.retention_30d is not None and 0.5 < stats.retention_30d < 1


def test_class_report_thirty_students(bench_url: str) -> None:
    from studyapp.classroom import class_report

    students, reviews = 30, scaled(20_000)
    store = open_store(bench_url)
    try:
        for n in range(students):
            populate(store, f"student-{n:02d}", scaled(600), reviews, days=120, seed=n,
                     deck="class")
        totals = dict.fromkeys(POST_SLUGS, 50)
        ms, result = timed(lambda: class_report(store, totals, NOW), repeat=3)
    finally:
        store.close()
    backend = make_url(bench_url).get_backend_name()
    report(f"{backend}: class report, {students} students x {reviews:,} reviews: {ms:.0f} ms")
    if backend == "sqlite" and full_size():
        figure("class-report-30x20k-ms", ms, "ms", "<= 300 ms on SQLite")
    assert len(result.students) == students
    assert sum(s.reviews for s in result.students) == students * reviews
    assert result.hardest


def test_database_size_per_100k_reviews(tmp_path: Path) -> None:
    path = tmp_path / "size.sqlite3"
    store = open_store(f"sqlite:///{path}")
    logs = scaled(200_000)
    try:
        populate(store, "size", scaled(2_000), logs)
        with store.engine.connect() as conn:
            conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        store.close()
    empty = tmp_path / "empty.sqlite3"
    open_store(f"sqlite:///{empty}").close()
    size = path.stat().st_size - empty.stat().st_size
    per_100k = size / logs * 100_000 / 1e6
    report(f"sqlite: database size {per_100k:.1f} MB per 100,000 reviews "
           f"({size / logs:.0f} bytes per review, with prompt, params and answer)")
    assert per_100k < 200
