"""Benchmark: a command's start with a legal 8,000-card deck installed, against one without.

Every command loads the installed decks; ``studyapp stats --json`` is timed
as a learner runs it (a new process each time), median of RUNS, the two
homes alternating. The first start with the deck fills the deck cache and
is reported apart. Run with ``python -m pytest tests/perf/test_big_deck_perf.py -s``.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from test_stats_perf import figure, report

CARDS = 8000
RUNS = int(os.environ.get("BIG_DECK_RUNS", "5"))


def write_big_deck(path: Path) -> None:
    """Numeric cards with params and formulas, as an instructor's drill deck is written."""
    lines = ["deck: big-drill", "title: {en: Big drill, es: Práctica grande}", "language: en",
             "post: hbm-kv-cache", "cards:"]
    for n in range(CARDS):
        lines += [f"  - id: kv-{n:05d}", "    type: numeric",
                  f"    prompt: 'Card {n}: {{layers}} layers, {{kv_heads}} KV heads, "
                  "{dtype}: KB per token?'",
                  "    params: {layers: [32, 80], kv_heads: [8, 16], dtype: [bf16, fp8]}",
                  "    answer: '2 * layers * kv_heads * 128 * bytes(dtype) / 1e3'",
                  "    unit: KB"]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def run_stats(home: Path) -> float:
    """Seconds for ``studyapp stats --json`` in a new process."""
    env = {**os.environ, "STUDYAPP_HOME": str(home), "XDG_CACHE_HOME": str(home / "cache")}
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "studyapp", "stats", "--json"], env=env,
                          capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    assert done.returncode == 0, done.stderr
    return elapsed


def test_start_with_a_big_deck_installed(tmp_path: Path) -> None:
    plain, loaded = tmp_path / "plain", tmp_path / "loaded"
    decks = loaded / "data" / "decks"
    decks.mkdir(parents=True)
    deck = decks / "big-drill.yaml"
    write_big_deck(deck)
    run_stats(plain)  # creates the database
    first = run_stats(loaded)  # creates the database and validates the deck once
    without, with_deck = [], []
    for _ in range(RUNS):
        without.append(run_stats(plain))
        with_deck.append(run_stats(loaded))
    ratio = statistics.median(with_deck) / statistics.median(without)
    report(f"stats start: without deck {statistics.median(without):.2f} s, with the "
           f"{CARDS:,}-card deck ({deck.stat().st_size / 1e6:.1f} MB) "
           f"{statistics.median(with_deck):.2f} s, first start with it {first:.2f} s")
    figure("big-deck-start-ratio", ratio, "x", "<= 1.2x")
