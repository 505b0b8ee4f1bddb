"""Benchmarks: building the study queue over 10,000 cards and 1,000,000 logs, and the
time from an answer to the next question, commit included.

Run with ``python -m pytest tests/perf -s`` for full size and the printed
``[perf]`` figures (STUDYAPP_PERF=0: a hundredth of the data, as a smoke test).
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path

from test_stats_perf import NOW, figure, full_size, populate, report, scaled, timed

from studyapp.store import open_store
from studyapp.study import SessionKind, StudyConfig, StudyService

DECK = "queue-bench"


def write_deck(folder: Path, cards: int) -> Path:
    lines = [f"deck: {DECK}\ntitle: Queue benchmark\nlanguage: en\npost: intro\ncards:\n"]
    for n in range(cards):
        lines.append(f"  - id: card-{n:05d}\n    type: truefalse\n"
                     f"    prompt: \"Statement {n} is true.\"\n    answer: true\n"
                     f"    explanation: \"It is.\"\n")
    path = folder / f"{DECK}.yaml"
    path.write_text("".join(lines), encoding="utf-8")
    return path


def test_queue_and_answer_latency(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("STUDYAPP_HOME", str(tmp_path / "home"))
    cards, logs = scaled(10_000), scaled(1_000_000)
    deck = write_deck(tmp_path, cards)
    url = f"sqlite:///{tmp_path / 'queue.sqlite3'}"
    store = open_store(url)
    populate(store, "default", cards, logs, deck=DECK)
    store.close()
    clock_now = [NOW]
    service = StudyService(StudyConfig(db_url=url, profile="default", lang="en",
                                       clock=lambda: clock_now[0], extra_decks=(deck,)))
    try:
        service.overview()  # loads the decks once, as the app does at start
        plan_ms, queue = timed(lambda: service.plan(SessionKind.DUE))
        session = service.start(SessionKind.DUE, seed=1)
        latencies = []
        for _ in range(scaled(200) if full_size() else 20):
            if session.next() is None:
                break
            start = time.perf_counter()
            session.submit("n")  # a wrong answer is recorded (and committed) at once
            session.next()
            latencies.append((time.perf_counter() - start) * 1000)
    finally:
        service.close()
    median = statistics.median(latencies)
    report(f"sqlite: queue over {cards:,} cards / {logs:,} logs: {plan_ms:.0f} ms "
           f"({len(queue)} planned)")
    report(f"sqlite: answer -> next question, commit included: median {median:.1f} ms, "
           f"p95 {sorted(latencies)[int(len(latencies) * 0.95) - 1]:.1f} ms "
           f"over {len(latencies)} answers")
    assert queue and latencies
    if full_size():
        figure("queue-10k-1M-ms", plan_ms, "ms", "<= 20 ms")
        figure("answer-next-ms", median, "ms", "median, stays near 1.5 ms")
