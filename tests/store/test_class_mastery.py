"""The class report's mastery is the one ``stats`` shows for the same learner,
from the shared database and from the learner's exported file."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from store_answers import answer

from studyapp.classroom import class_report_for
from studyapp.progress.stats import learner_stats
from studyapp.store.progress import record_answer
from studyapp.store.progress_files import write_json
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


def _exports(tmp_path: Path, names: list[str], now: datetime) -> list[Path]:
    """One exported file per learner, each with four H200 cards, the first overdue
    (a review card due 47 hours ago: overdue counts cards a day or more late)."""
    files = []
    start = now - timedelta(days=2)
    for name in names:
        svc = StudyService(StudyConfig(db_url=f"sqlite:///{tmp_path / (name + '.sqlite3')}",
                                       lang="en", clock=lambda: now, profile=name))
        try:
            deck = next(d for d in svc.decks if d.id == "post-h200")
            for n, spec in enumerate(deck.cards[:4]):
                record_answer(svc.store, svc.profile.id, answer(
                    deck.id, spec.id, start + timedelta(minutes=n), post="h200",
                    stability=30.0, due_in=timedelta(hours=1 if n == 0 else 24 * 30)))
            path = tmp_path / f"{name}.json"
            with path.open("w", encoding="utf-8") as fh:
                write_json(svc.store, svc.profile, fh, now)
            files.append(path)
        finally:
            svc.close()
    return files


def test_class_report_fits_80_columns_without_cutting_figures(tmp_path: Path) -> None:
    import json

    from click.testing import CliRunner

    from studyapp.cli import main

    names = [f"student-number-{n:02d}" for n in range(7)]
    files = [str(p) for p in _exports(tmp_path, names, datetime.now(UTC))]  # the command's clock
    env = {"STUDYAPP_HOME": str(tmp_path / "home"), "COLUMNS": "80"}
    result = CliRunner().invoke(main, ["--lang", "en", "class", "report", *files], env=env)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert max(len(line) for line in lines) <= 80
    assert "…" not in result.output
    for name in names:  # every name in full in the students table
        assert any(line.strip().startswith(name) for line in lines)
    h200 = [line for line in lines if line.strip().startswith("h200 ")]
    from studyapp import locations
    from studyapp.decks import load_deck

    cards = len(load_deck(locations.builtin_decks_dir() / "posts" / "h200.yaml").cards)
    share = f"{round(100 * 4 / cards)}%"  # 4 cards answered of the post's, in blocks
    assert len(h200) >= 2 and all(share in line for line in h200), (share, h200)
    overdue_at = lines.index("Students with the most overdue cards")
    assert [line.split()[-1] for line in lines[overdue_at + 3:]] == ["1"] * len(names)
    data = json.loads(CliRunner().invoke(
        main, ["--lang", "en", "class", "report", "--json", *files], env=env).output)
    assert [s["overdue"] for s in data["most_overdue"]] == [1] * len(names)
