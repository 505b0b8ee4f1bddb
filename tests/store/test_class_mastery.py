"""The class report's mastery is the one ``stats`` shows for the same learner,
from the shared database and from the learner's exported file."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from store_answers import answer

from studyapp.classroom import class_report_for
from studyapp.progress.stats import learner_stats
from studyapp.store.exchange import write_json
from studyapp.store.progress import record_answer
from studyapp.study import StudyConfig, StudyService

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
NOW = T0 + timedelta(days=2)


def test_class_mastery_matches_stats_for_the_same_profile(tmp_path: Path) -> None:
    svc = StudyService(StudyConfig(db_url=f"sqlite:///{tmp_path / 'class.sqlite3'}", lang="en",
                                   clock=lambda: NOW))
    try:
        deck = next(d for d in svc.decks if d.id == "post-h200")
        # the example decks, off by default, also hold H200 cards: they must not count
        assert any(spec.post == "h200" for d in svc.decks if d.id != deck.id
                   for spec in d.cards)
        for n, spec in enumerate(deck.cards[:3]):
            record_answer(svc.store, svc.profile.id, answer(
                deck.id, spec.id, T0 + timedelta(days=1, minutes=n), post="h200",
                stability=30.0, due_in=timedelta(days=30)))
        stats = {p.slug: round(p.mastery, 4) for p in learner_stats(svc).posts}
        path = tmp_path / "learner.json"
        with path.open("w", encoding="utf-8") as fh:
            write_json(svc.store, svc.profile, fh, NOW)
        from_db, _ = class_report_for(svc)
        from_file, _ = class_report_for(svc, [path])
    finally:
        svc.close()
    assert stats["h200"] > 0
    for report in (from_db, from_file):
        (student,) = report.as_json()["students"]
        assert student["mastery"]["h200"] == stats["h200"]
