"""Benchmark: ``stats`` with a published deck that takes seconds to check, against none.

A published deck is checked when published and on a student's machine the
first time it loads; every later command reads the checked deck from the
deck cache. The deck here needs close to the most formula evaluations a
deck may (``MAX_FORMULA_CHECKS``), so a command that checked it again would
take seconds. ``studyapp stats --json`` runs as a student runs it (a new
process each time), median of RUNS, the two homes alternating; the figures
are processor seconds, which a busy machine does not inflate. Run with
``python -m pytest tests/perf/test_published_deck_perf.py -s``; PostgreSQL
runs too when STUDYAPP_TEST_PG is set.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
from contextlib import ExitStack
from pathlib import Path

from backends import fresh_pg_schema
from test_stats_perf import figure, report, timed

from studyapp.decks.field_checks import MAX_FORMULA_CHECKS

RUNS = int(os.environ.get("PUBLISHED_DECK_RUNS", "5"))
VALUES = MAX_FORMULA_CHECKS // 10
"""Values of each of the two parameters: the answer and the prompt each sweep both, from
either end (0.8 of the limit in all)."""


def slow_deck(path: Path) -> None:
    path.write_text(f"""\
deck: slow-drill
title: Slow drill
language: en
post: hbm-kv-cache
cards:
  - id: sum
    type: numeric
    prompt: "{{a}} + {{b}}?"
    params: {{a: {{min: 1, max: {VALUES}}}, b: {{min: 1, max: {VALUES}}}}}
    answer: a + b
""", encoding="utf-8")


def _cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def studyapp(home: Path, url: str, *args: str) -> float:
    """Processor seconds for ``studyapp ARGS`` in a new process (the wall time on a shared
    machine is mostly waiting for a core)."""
    env = {**os.environ, "STUDYAPP_HOME": str(home), "XDG_CACHE_HOME": str(home / "cache"),
           "STUDYAPP_DB": url}
    start = _cpu()
    done = subprocess.run([sys.executable, "-m", "studyapp", *args], env=env,
                          capture_output=True, text=True, check=False)
    used = _cpu() - start
    assert done.returncode == 0, done.stdout + done.stderr
    return used


def test_stats_with_a_published_deck(db_url: str, tmp_path: Path) -> None:
    deck = tmp_path / "slow-drill.yaml"
    slow_deck(deck)
    with ExitStack() as stack:  # the same backend without the deck
        empty = (f"sqlite:///{tmp_path / 'empty.sqlite3'}" if db_url.startswith("sqlite")
                 else stack.enter_context(fresh_pg_schema()))
        _measure(db_url, empty, deck, tmp_path)


def _measure(db_url: str, empty: str, deck: Path, tmp_path: Path) -> None:
    teacher, student, plain = tmp_path / "teacher", tmp_path / "student", tmp_path / "plain"
    publish = studyapp(teacher, db_url, "--profile", "teacher", "deck", "publish", str(deck))
    studyapp(plain, empty, "stats", "--json")  # creates the database
    first = studyapp(student, db_url, "stats", "--json")  # checks the deck once, on this machine
    without, with_deck = [], []
    for _ in range(RUNS):
        without.append(studyapp(plain, empty, "stats", "--json"))
        with_deck.append(studyapp(student, db_url, "stats", "--json"))
    backend = db_url.split(":", 1)[0]
    report(f"{backend}: published deck needing about {8 * VALUES:,} evaluations: publish "
           f"{publish:.2f} s, a student's first stats {first:.2f} s, then "
           f"{statistics.median(with_deck):.2f} s; stats without it "
           f"{statistics.median(without):.2f} s")
    figure("published-deck-stats-extra-s",
           max(0.0, statistics.median(with_deck) - statistics.median(without)), "s", "< 0.25 s")
    figure("published-deck-stats-ratio",
           statistics.median(with_deck) / statistics.median(without), "x", "<= 1.2x")
    assert first > statistics.median(with_deck) + 0.5  # the check really is skipped
    load = _load_ms(db_url, student)
    figure("published-deck-load-ms", load, "ms", "< 100 ms")


def _load_ms(url: str, home: Path) -> float:
    """Median wall ms to read the published decks with a warm deck cache, in this process."""
    from studyapp.store import open_store
    from studyapp.study.published import published_decks

    previous = {name: os.environ.get(name) for name in ("STUDYAPP_HOME", "XDG_CACHE_HOME")}
    os.environ.update(STUDYAPP_HOME=str(home), XDG_CACHE_HOME=str(home / "cache"))
    store = open_store(url)
    try:
        ms, decks = timed(lambda: published_decks(store))
        assert [deck.id for deck in decks] == ["slow-drill"]
        return ms
    finally:
        store.close()
        for name, value in previous.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
