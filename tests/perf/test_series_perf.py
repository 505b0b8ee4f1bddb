"""Benchmark: the progress charts' series over 1,000,000 review logs.

Run with ``python -m pytest tests/perf/test_series_perf.py -s`` for full-size data and
the printed ``[perf]`` figure; with STUDYAPP_PERF=0 the same code runs on a hundredth of
the data, as a smoke test.
"""

from __future__ import annotations

from sqlalchemy.engine import make_url
from test_stats_perf import NOW, bench_url, figure, full_size, populate, report, scaled, timed

from studyapp.store import open_store

__all__ = ["bench_url"]  # the fixture, shared with the stats benchmark


def test_progress_series_with_a_million_logs(bench_url: str) -> None:
    from studyapp.progress.series import progress_series
    from studyapp.study import StudyConfig, StudyService

    cards, logs = scaled(10_000), scaled(1_000_000)
    store = open_store(bench_url)
    populate(store, "bench", cards, logs)
    store.close()
    backend = make_url(bench_url).get_backend_name()
    service = StudyService(StudyConfig(db_url=bench_url, profile="bench", lang="en",
                                       clock=lambda: NOW))
    try:
        ms, series = timed(lambda: progress_series(service))
    finally:
        service.close()
    report(f"{backend}: series over {logs:,} logs and {cards:,} cards: {ms:.0f} ms "
           f"({len(series.points)} {series.period}s)")
    if backend == "sqlite" and full_size():
        figure("series-1M-ms", ms, "ms", "<= 150 ms on SQLite")
    assert series.period == "week" and len(series.points) == 26
    assert sum(p.reviews for p in series.points) > 0
    assert any(p.retention is not None for p in series.points)
