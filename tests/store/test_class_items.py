"""Item analysis: per card first-try accuracy, common wrong answers, named slips, reteach."""

from __future__ import annotations

import csv
import io
import json
import os
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner
from store_answers import answer

from studyapp.classroom import ClassFilterError, class_report
from studyapp.cli import main
from studyapp.decks import load_deck
from studyapp.store import open_store
from studyapp.store.progress import ensure_profile, record_answer

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
NOW = T0 + timedelta(days=1)

DECK = """\
deck: kv-class
title: KV class
language: en
post: hbm-kv-cache
cards:
  - id: kv-size
    type: numeric
    prompt: "KV cache of one token, in GB?"
    answer: 16
    unit: GB
    slips:
      - {name: forgot-v, answer: 8, message: "You counted K but not V."}
  - id: easy
    type: truefalse
    prompt: "HBM is memory."
    answer: true
"""

# (student, answer to kv-size, right on easy)
CLASS = [("ana", "128", True), ("bo", "0.128 TB", True), ("cy", "8", True), ("dee", "16", True),
         ("default", "16", False)]


def _class(db_url: str, tmp_path: Path) -> list[object]:
    path = tmp_path / "kv-class.yaml"
    path.write_text(DECK, encoding="utf-8")
    deck = load_deck(path)
    store = open_store(db_url)
    try:
        for n, (name, given, easy_ok) in enumerate(CLASS):
            profile = ensure_profile(store, name, {}, T0)
            at = T0 + timedelta(minutes=n)
            base = answer(deck.id, "kv-size", at, post="hbm-kv-cache", stage=0, reps=0)
            record_answer(store, profile.id, replace(
                base, response=given, expected="16 GB", correct=given == "16",
                rating=3 if given == "16" else 1, seed=0, params=None))
            base = answer(deck.id, "easy", at, post="hbm-kv-cache", stage=0, reps=0)
            record_answer(store, profile.id, replace(
                base, response="true" if easy_ok else "false", correct=easy_ok, seed=0,
                params=None))
    finally:
        store.close()
    return [deck]


def _report(db_url: str, decks: list[object], **kw: object):  # type: ignore[no-untyped-def]
    store = open_store(db_url)
    try:
        return class_report(store, {"hbm-kv-cache": 2}, NOW, decks=decks, **kw)  # type: ignore[arg-type]
    finally:
        store.close()


def test_items_count_wrong_answers_slips_and_reteach(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'class.sqlite3'}"
    decks = _class(url, tmp_path)
    report = _report(url, decks, exclude=["default"])
    assert [s.name for s in report.students] == ["ana", "bo", "cy", "dee"]
    kv = next(i for i in report.items if i.card_key == "kv-size")
    assert kv.students == 4 and kv.first_try_accuracy == 0.25
    # the same value counted as one answer, in the card's unit, however it was typed
    assert kv.answers == (("128 GB", 2), ("8 GB", 1))
    assert kv.share(2) == pytest.approx(2 / 3)
    # 128 GB for 16 GB: bits for bytes (a generic slip); 8 GB: the card's own slip
    assert kv.slips == (("bits", 2), ("forgot-v", 1))
    assert [(i.card_key, i.prompt) for i in report.reteach] == [
        ("kv-size", "KV cache of one token, in GB?")]
    easy = next(i for i in report.items if i.card_key == "easy")
    assert easy.first_try_accuracy == 1.0 and easy.wrong == 0
    # the default profile counted in: its wrong "easy" answer appears
    everyone = _report(url, decks)
    assert next(i for i in everyone.items if i.card_key == "easy").wrong == 1
    only = _report(url, decks, only=["ana", "dee"])
    assert [s.name for s in only.students] == ["ana", "dee"]
    assert next(i for i in only.items if i.card_key == "kv-size").first_try_accuracy == 0.5
    with pytest.raises(ClassFilterError, match="no profile named 'eve'"):
        _report(url, decks, only=["eve"])
    # leaving out a profile the class does not have leaves everyone in, with a note
    absent = _report(url, decks, exclude=["eve"])
    assert absent.not_excluded == ("eve",)
    assert [s.name for s in absent.students] == [s.name for s in everyone.students]
    assert report.not_excluded == ()


def test_class_report_command_prints_reteach_and_csv_items(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'class.sqlite3'}"
    _class(url, tmp_path)
    home = tmp_path / "home"
    env = {"STUDYAPP_HOME": str(home), "STUDYAPP_DB": url, "COLUMNS": "100"}
    run = CliRunner().invoke(main, ["--lang", "en", "deck", "add",
                                    str(tmp_path / "kv-class.yaml")], env=env)
    assert run.exit_code == 0, run.output
    result = CliRunner().invoke(main, ["--lang", "en", "class", "report", "--exclude",
                                       "default"], env=env)
    assert result.exit_code == 0, result.output
    assert "kv-class/kv-size (25% first try, 4 students): KV cache of one token, in GB?" \
        in result.output
    assert "128 GB (67%)" in result.output and "bits (67%)" in result.output
    # learning cards are not overdue: the section says so instead of an empty table
    assert "none: no student has a card a day or more past due" in result.output
    as_csv = CliRunner().invoke(main, ["--lang", "en", "class", "report", "--csv",
                                       "--exclude", "default"], env=env).output
    grid, items = as_csv.split("\n\n", 1) if "\n\n" in as_csv else as_csv.split("\r\n\r\n", 1)
    rows = list(csv.DictReader(io.StringIO(items)))
    kv = next(r for r in rows if r["card"] == "kv-size")
    assert kv["first_try_accuracy"] == "0.25" and kv["reteach"] == "True"
    assert kv["wrong_answers"] == "128 GB (67%); 8 GB (33%)"
    assert kv["slips"] == "bits (67%); forgot-v (33%)"
    assert "default" not in grid
    bad = CliRunner().invoke(main, ["--lang", "en", "class", "report", "--only", "eve"],
                             env=env)
    assert bad.exit_code != 0 and "no profile named 'eve'" in bad.output
    assert "Traceback" not in bad.output
    # in Spanish at 80 columns: headings translated, every slip whole (none cropped)
    spanish = CliRunner().invoke(main, ["--lang", "es", "class", "report", "--exclude",
                                        "default", "--exclude", "nadie"],
                                 env={**env, "COLUMNS": "80"})
    assert spanish.exit_code == 0, spanish.output
    assert "Volver a explicar" in spanish.stdout and "despistes" in spanish.stdout
    assert "(25% al primer intento, 4 estudiantes)" in spanish.stdout
    assert "forgot-v (33%)" in spanish.stdout and "128 GB (67%)" in spanish.stdout
    assert max(len(line) for line in spanish.stdout.splitlines()) <= 80
    assert "nota: no hay ningún perfil llamado 'nadie'" in spanish.stderr
    # a class set up without the default profile: --exclude default still reports, with a note
    typo = CliRunner().invoke(main, ["--lang", "en", "class", "report", "--exclude", "evee",
                                     "--json"], env=env)
    assert typo.exit_code == 0, typo.output
    assert "note: no profile named 'evee' to exclude" in typo.stderr
    assert json.loads(typo.stdout)["students"]
    assert os.environ.get("STUDYAPP_DB") != url


def test_a_scenarios_wrong_steps_and_their_slips_are_items_of_the_analysis(
        tmp_path: Path) -> None:
    """A scenario is one card; the table counts which step went wrong and why."""
    url = f"sqlite:///{tmp_path / 'class.sqlite3'}"
    decks = _class(url, tmp_path)
    store = open_store(url)
    try:
        for n, (name, kv_user, slip) in enumerate([("ana", "65.5 GB", "kv_pair"),
                                                   ("bo", "65.5 GB", "kv_pair"),
                                                   ("cy", "300 GB", None)]):
            profile = ensure_profile(store, name, {}, T0)
            steps = [{"name": "weights", "given": "141 GB", "correct": True, "slips": []},
                     {"name": "kv_user", "given": kv_user, "correct": False,
                      "slips": [slip] if slip else []},
                     {"name": "total", "given": "400 GB", "correct": True, "carried": True,
                      "slips": []}]
            base = answer("kv-class", "serve", T0 + timedelta(minutes=10 + n),
                          post="hbm-kv-cache", stage=0, reps=0)
            record_answer(store, profile.id, replace(
                base, response="141 / 65.5 / 400", correct=False, rating=1, seed=0,
                params={"parts": steps}))
    finally:
        store.close()
    # the scenario's deck is not loaded here (kv-class has no "serve" card): its items are
    # still counted from what the study loop stored with each answer
    assert decks
    serve = next(i for i in _report(url, []).items if i.card_key == "serve")
    assert serve.answers[0] == ("kv_user: 65.5 GB", 2)
    assert ("kv_user: 300 GB", 1) in serve.answers
    assert serve.slips == (("kv_user: kv_pair", 2),)


def test_overdue_counts_review_cards_a_day_or_more_late(tmp_path: Path) -> None:
    """A learning card three minutes late or a review card twelve hours late is not
    overdue; a review card 25 hours late is."""
    url = f"sqlite:///{tmp_path / 'class.sqlite3'}"
    store = open_store(url)
    try:
        late = {"learning-3min": (1, timedelta(minutes=3)), "review-12h": (2, timedelta(hours=12)),
                "review-25h": (2, timedelta(hours=25)), "relearning-2h": (3, timedelta(hours=2))}
        for name, (stage, by) in late.items():
            profile = ensure_profile(store, name, {}, T0)
            record_answer(store, profile.id, answer(
                "kv-class", "kv-size", NOW - by - timedelta(days=1), post="hbm-kv-cache",
                stage=stage, due_in=timedelta(days=1)))
    finally:
        store.close()
    report = _report(url, [])
    assert {s.name: s.overdue for s in report.students} == {
        "learning-3min": 0, "review-12h": 0, "review-25h": 1, "relearning-2h": 0}
    assert [s.name for s in report.most_overdue] == ["review-25h"]


def test_a_student_away_a_week_is_absent_with_their_learning_cards_overdue(
        tmp_path: Path) -> None:
    """Away twelve days with learning and relearning cards: every one is overdue, and the
    student is flagged absent; one who studied on three of the last seven days is not."""
    url = f"sqlite:///{tmp_path / 'class.sqlite3'}"
    store = open_store(url)
    try:
        away = ensure_profile(store, "away", {}, T0).id
        gone = NOW - timedelta(days=12)
        for n, stage in enumerate((1, 1, 3)):
            record_answer(store, away, answer("kv-class", f"c{n}", gone, post="hbm-kv-cache",
                                              stage=stage, due_in=timedelta(minutes=10)))
        steady = ensure_profile(store, "steady", {}, T0).id
        for n, days in enumerate((1, 1, 3, 6)):  # three distinct days in the last week
            record_answer(store, steady, answer("kv-class", f"c{n}",
                                                NOW - timedelta(days=days, hours=n),
                                                post="hbm-kv-cache", stage=2,
                                                due_in=timedelta(days=30)))
    finally:
        store.close()
    report = _report(url, [])
    students = {s.name: s for s in report.students}
    assert students["away"].overdue == 3 and students["away"].away_days == 12
    assert students["away"].absent and students["away"].study_days == 0
    assert not students["steady"].absent and students["steady"].study_days == 3
    assert report.as_json()["absent"] == ["away"]
