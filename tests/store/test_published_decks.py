"""Decks published into a shared database: studied and reported without deck files."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner
from store_answers import answer, course_deck

from studyapp.classroom import class_report_for
from studyapp.cli import main
from studyapp.store.progress import record_answer
from studyapp.study import StudyConfig, StudyService

NOW = datetime.now(UTC)

COURSE = course_deck(4)


def _service(url: str, home: Path, name: str, monkeypatch: pytest.MonkeyPatch) -> StudyService:
    monkeypatch.setenv("STUDYAPP_HOME", str(home))
    return StudyService(StudyConfig(db_url=url, lang="en", clock=lambda: NOW, profile=name))


@pytest.mark.postgres
def test_a_class_on_postgres_where_the_reporting_machine_has_no_deck_files(
        pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = tmp_path / "instructor" / "course-kv.yaml"
    source.parent.mkdir()
    source.write_text(COURSE, encoding="utf-8")
    env = {"STUDYAPP_HOME": str(tmp_path / "instructor-home"), "STUDYAPP_DB": pg_url}
    published = CliRunner().invoke(main, ["--lang", "en", "--profile", "teacher", "deck",
                                          "publish", str(source)], env=env)
    assert published.exit_code == 0, published.output
    assert "published version 1 (4 cards)" in published.output
    again = CliRunner().invoke(main, ["--lang", "en", "--profile", "teacher", "deck",
                                      "publish", str(source)], env=env)
    assert "unchanged, still version 1" in again.output
    source.unlink()  # nobody has the file any more
    for n, name in enumerate(["ana", "bo", "cy", "dee", "eve"]):
        svc = _service(pg_url, tmp_path / f"home-{name}", name, monkeypatch)
        try:
            deck = next(d for d in svc.decks if d.id == "course-kv")
            for k, spec in enumerate(deck.cards[: n + 1 if n < 4 else 4]):
                record_answer(svc.store, svc.profile.id, answer(
                    deck.id, spec.id, NOW - timedelta(hours=1, minutes=k),
                    post="hbm-kv-cache", stability=30.0, due_in=timedelta(days=30),
                    correct=k != 1, rating=3 if k != 1 else 1))
        finally:
            svc.close()
    reporter = _service(pg_url, tmp_path / "reporting-machine", "teacher", monkeypatch)
    try:
        assert not (tmp_path / "reporting-machine" / "data" / "decks").exists()
        report, _ = class_report_for(reporter)
        stats_of = {}
        for name in ["ana", "eve"]:
            from studyapp.progress.stats import learner_stats
            svc = _service(pg_url, tmp_path / f"home-{name}", name, monkeypatch)
            try:
                stats_of[name] = {p.slug: round(p.mastery, 4) for p in learner_stats(svc).posts}
            finally:
                svc.close()
    finally:
        reporter.close()
    data = report.as_json()
    mastery = {s["name"]: s["mastery"]["hbm-kv-cache"] for s in data["students"]}
    assert set(mastery) == {"ana", "bo", "cy", "dee", "eve"}
    assert mastery["ana"] == stats_of["ana"]["hbm-kv-cache"]
    assert mastery["eve"] == stats_of["eve"]["hbm-kv-cache"] > mastery["ana"]
    prompts = {i["card"]: i["prompt"] for i in data["items"]}
    assert prompts["fact-1"] == "KV fact 1 holds."  # prompt text from the stored deck


def _published_v1(tmp_path: Path) -> tuple[str, Path, dict[str, str], list[str]]:
    """COURSE published as version 1 into a new SQLite class: the database URL, the
    source file, the instructor's environment and the publish command, to run again."""
    url = f"sqlite:///{tmp_path / 'class.sqlite3'}"
    source = tmp_path / "course-kv.yaml"
    source.write_text(COURSE, encoding="utf-8")
    env = {"STUDYAPP_HOME": str(tmp_path / "instructor-home"), "STUDYAPP_DB": url}
    publish = ["--lang", "en", "--profile", "teacher", "deck", "publish", str(source)]
    assert "published version 1" in CliRunner().invoke(main, publish, env=env).output
    return url, source, env, publish


def test_a_new_version_keeps_progress_on_the_cards_it_keeps(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Version 2 rewords one card and drops another: the reworded card keeps its history,
    every student studies the new text, and nobody needs the file."""
    url, source, env, publish = _published_v1(tmp_path)
    svc = _service(url, tmp_path / "home-ana", "ana", monkeypatch)
    try:
        for card in ("fact-0", "fact-1"):
            record_answer(svc.store, svc.profile.id, answer(
                "course-kv", card, NOW - timedelta(hours=1), post="hbm-kv-cache",
                stability=30.0, due_in=timedelta(days=30)))
    finally:
        svc.close()
    source.write_text(COURSE.replace("KV fact 0 holds.", "KV fact zero holds, reworded.")
                      .replace("  - id: fact-3\n    type: truefalse\n"
                               "    prompt: \"KV fact 3 holds.\"\n    answer: true\n", ""),
                      encoding="utf-8")
    second = CliRunner().invoke(main, publish, env=env)
    assert second.exit_code == 0 and "published version 2 (3 cards)" in second.output
    source.unlink()
    # a student's machine lists the published deck (its id for study --deck), no file needed
    listed = CliRunner().invoke(main, ["--lang", "en", "--profile", "ana", "deck", "list",
                                       "--json"],
                                env={"STUDYAPP_HOME": str(tmp_path / "home-bo"),
                                     "STUDYAPP_DB": url})
    entry = next(e for e in json.loads(listed.output) if e["id"] == "course-kv")
    assert (entry["source"], entry["cards"], entry["enabled"]) == ("published", 3, True)
    svc = _service(url, tmp_path / "home-ana", "ana", monkeypatch)
    try:
        deck = next(d for d in svc.decks if d.id == "course-kv")
        assert [c.id for c in deck.cards] == ["fact-0", "fact-1", "fact-2"]
        assert deck.card("fact-0").prompt == {"en": "KV fact zero holds, reworded."}
        from studyapp.store.progress import card_state

        kept = card_state(svc.store, svc.profile.id, "course-kv", "fact-0")
        assert kept is not None and kept.reps == 1 and kept.stability == 30.0
        from studyapp.progress.stats import learner_stats

        decks = {d.deck_id: d for d in learner_stats(svc).decks}
        assert decks["course-kv"].total == 3 and decks["course-kv"].mastered == 2
    finally:
        svc.close()


def test_a_card_a_new_version_removes_counts_nowhere(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Mastery, stats and the reteach list follow the deck as it is now: a card removed
    from it, mastered or missed, is in no total and no numerator."""
    url, source, env, publish = _published_v1(tmp_path)
    for name in ("ana", "bo"):
        svc = _service(url, tmp_path / f"home-{name}", name, monkeypatch)
        try:
            for card in ("fact-0", "fact-3"):  # both mastered; fact-3 missed the first time
                record_answer(svc.store, svc.profile.id, answer(
                    "course-kv", card, NOW - timedelta(hours=1), post="hbm-kv-cache",
                    stability=30.0, due_in=timedelta(days=30), correct=card == "fact-0",
                    rating=3 if card == "fact-0" else 1))
        finally:
            svc.close()
    source.write_text(COURSE.replace("  - id: fact-3\n    type: truefalse\n"
                                     "    prompt: \"KV fact 3 holds.\"\n    answer: true\n",
                                     ""), encoding="utf-8")
    second = CliRunner().invoke(main, publish, env=env)
    assert "published version 2 (3 cards)" in second.output, second.output
    # the instructor is told which card went, and who had studied it
    assert "removed fact-3: 2 profile(s) studied it" in second.output
    svc = _service(url, tmp_path / "home-ana", "ana", monkeypatch)
    try:
        from studyapp.progress.stats import learner_stats

        stats = learner_stats(svc)
        report, _ = class_report_for(svc)
    finally:
        svc.close()
    decks = {d.deck_id: d for d in stats.decks}
    assert (decks["course-kv"].total, decks["course-kv"].mastered) == (3, 1)
    ana = next(s for s in report.students if s.name == "ana")
    assert dict(ana.decks)["course-kv"] == pytest.approx(1 / 3)
    kv = next(p for p in stats.posts if p.slug == "hbm-kv-cache")
    assert dict(ana.mastery)["hbm-kv-cache"] == pytest.approx(kv.mastery)
    assert kv.mastered == 1
    assert "fact-3" not in {i.card_key for i in report.items}
    assert "fact-3" not in {q.card_key for q in report.hardest}
