"""Course decks: a deck that names no post, with its own title, course and summary.

Its summary is read before its first session (plain mode and the app), the home
screen lists it under its course, and its mastery is counted per deck (``stats``
and the class report), not mixed into a post's.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from deck_texts import write

from studyapp.cli import main
from studyapp.decks import load_deck, validate_paths

COURSE = """\
deck: serving-course
title: {en: "Serving LLMs, week 1", es: "Servir LLMs, semana 1"}
course: {en: "AI infrastructure 101", es: "Infraestructura IA 101"}
summary:
  en: |
    # Week 1: memory for serving

    The **KV cache** holds keys and values for every token.
  es: |
    # Semana 1: memoria para servir

    La **KV cache** guarda claves y valores de cada token.
language: en
cards:
  - id: kv-grows
    type: truefalse
    prompt: "The KV cache grows with context length."
    answer: true
  - id: hbm-h200
    type: choice
    post: h200
    prompt: "Which memory does the H200 use?"
    choices: [HBM3, HBM3e]
    answer: HBM3e
  - id: gen-kv
    type: generated
    generator: kv-cache-total
"""


def test_a_deck_without_a_post_loads_with_its_course_and_summary(tmp_path: Path) -> None:
    path = write(tmp_path, COURSE, "course.yaml")
    assert validate_paths([path]) == []
    deck = load_deck(path)
    assert deck.post is None
    assert deck.course == {"en": "AI infrastructure 101", "es": "Infraestructura IA 101"}
    assert deck.summary is not None and "**KV cache**" in deck.summary["en"]
    # an authored card belongs to the deck alone; one that names a post keeps it;
    # a generated card takes its family's post
    assert [c.post for c in deck.cards] == ["", "h200", "hbm-kv-cache"]


def test_a_misspelt_post_or_course_field_is_still_reported(tmp_path: Path) -> None:
    bad = COURSE.replace("course:", "coarse:").replace("    post: h200", "    post: h20")
    messages = [p.message for p in validate_paths([write(tmp_path, bad, "bad.yaml")])]
    assert any("unknown key 'coarse'; did you mean 'course'" in m for m in messages), messages
    assert any("'h20'" in m and "h200" in m for m in messages), messages


def _cli(home: Path, *args: str, stdin: str = "") -> str:
    result = CliRunner().invoke(main, ["--lang", "en", *args], input=stdin,
                                env={"STUDYAPP_HOME": str(home)})
    assert result.exit_code == 0, result.output
    return result.output


def test_plain_study_shows_the_summary_once_and_names_the_deck(tmp_path: Path) -> None:
    home = tmp_path / "home"
    _cli(home, "deck", "add", str(write(tmp_path, COURSE, "course.yaml")))
    first = _cli(home, "study", "--deck", "serving-course", "--plain", "--limit", "1",
                 "--seed", "1", stdin="")
    lines = first.splitlines()
    assert lines[:3] == ["Serving LLMs, week 1", "AI infrastructure 101", ""]
    assert "Week 1: memory for serving" in lines and "#" not in first.split("[1/")[0]
    assert "The KV cache holds keys and values for every token." in first  # no ** left
    again = _cli(home, "study", "--deck", "serving-course", "--plain", "--limit", "1",
                 "--seed", "1", stdin="")
    assert "Week 1: memory for serving" not in again
    # the header names the course deck for its own cards (never an empty post)
    headers = [line for line in (first + again).splitlines() if line.startswith("[1/")]
    assert headers and all(" ·  · " not in h for h in headers)
    answered = _cli(home, "study", "--deck", "serving-course", "--plain", "--limit", "3",
                    "--seed", "1", stdin="y\n\n2\n\n1\n\n")
    assert "Serving LLMs, week 1 · true or false" in answered


def test_a_course_deck_exports_to_anki_without_a_post(tmp_path: Path) -> None:
    home = tmp_path / "home"
    _cli(home, "deck", "add", str(write(tmp_path, COURSE, "course.yaml")))
    out = _cli(home, "export", "--format", "apkg", "-o", str(tmp_path / "c.apkg"),
               "--deck", "serving-course")
    assert "Exported 3 notes" in out and (tmp_path / "c.apkg").stat().st_size > 0


def test_the_home_screen_tagline_of_a_course_is_its_summary_without_markdown(
        tmp_path: Path) -> None:
    from studyapp.study import StudyConfig, StudyService

    text = COURSE.replace("    # Week 1: memory for serving\n\n", "")
    path = write(tmp_path, text, "course.yaml")
    svc = StudyService(StudyConfig(db_url=f"sqlite:///{tmp_path / 'p.sqlite3'}", lang="en",
                                   extra_decks=(path,)))
    try:
        course = next(c for c in svc.overview().courses if c.deck_id == "serving-course")
    finally:
        svc.close()
    assert course.tagline == "The KV cache holds keys and values for every token."


def test_a_course_decks_cards_count_in_its_own_mastery_not_their_posts(
        tmp_path: Path) -> None:
    """hbm-h200 names the post h200, yet it is a course card: the home screen counts it
    under the course, and so do stats and the class report (one figure everywhere)."""
    from datetime import UTC, datetime, timedelta

    from studyapp.classroom import class_report_for
    from studyapp.progress.stats import learner_stats
    from studyapp.store.progress import Answer, NewState, record_answer
    from studyapp.study import StudyConfig, StudyService

    now = datetime.now(UTC)
    path = write(tmp_path, COURSE, "course.yaml")
    svc = StudyService(StudyConfig(db_url=f"sqlite:///{tmp_path / 'p.sqlite3'}", lang="en",
                                   clock=lambda: now, extra_decks=(path,)))
    try:
        at = now - timedelta(hours=1)
        for card in ("hbm-h200", "kv-grows"):  # both in review, mastered for weeks
            record_answer(svc.store, svc.profile.id, Answer(
                deck_id="serving-course", card_key=card, post="h200", family=None,
                state=NewState(2, None, 30.0, 5.0, at + timedelta(days=30), at, 1, 0, False),
                reviewed_at=at, rating=3, correct=True, duration_ms=4000, seed=7, params=None,
                prompt="p", response="true", expected="true", lang="en"))
        record_answer(svc.store, svc.profile.id, Answer(  # a wrong first answer: an item
            deck_id="serving-course", card_key="gen-kv", post="hbm-kv-cache", family=None,
            state=NewState(1, 0, 1.0, 5.0, at + timedelta(minutes=1), at, 1, 0, False),
            reviewed_at=at, rating=1, correct=False, duration_ms=4000, seed=7, params=None,
            prompt="p", response="3 GB", expected="4 GB", lang="en"))
        stats = learner_stats(svc)
        report, _ = class_report_for(svc)
        home = svc.overview()
    finally:
        svc.close()
    h200 = next(p for p in stats.posts if p.slug == "h200")
    assert h200.mastered == 0 and h200.total == next(
        p for p in home.posts if p.slug == "h200").total
    course = next(d for d in stats.decks if d.deck_id == "serving-course")
    assert (course.total, course.mastered) == (3, 2)
    student = report.students[0]
    assert dict(student.mastery)["h200"] == 0.0
    assert dict(student.decks)["serving-course"] == pytest.approx(2 / 3)
    # a generated card's prompt in the item table says what its family asks
    item = next(i for i in report.items if i.card_key == "gen-kv")
    assert item.prompt == "Total KV cache for a context and a batch (GB) (kv-cache-total)"
