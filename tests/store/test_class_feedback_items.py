"""Authored slips and per-choice feedback: shown in study, recorded with the answer, and
counted in the class report's item table.

Four students study one deck through the study loop (the same session the TUI
and plain mode drive). The deck is then edited so its slips and feedback are
gone: the report still names them, because the study loop recorded them.
"""

from __future__ import annotations

import csv
import io
import json
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

from click.testing import CliRunner

from studyapp.cli import main
from studyapp.srs import Rating
from studyapp.study import ANSWER_SLIPS, PICKED_CHOICE, SessionKind, StudyConfig, StudyService

NOW = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)

DECK = """\
deck: kv-feedback
title: KV feedback
language: en
post: hbm-kv-cache
cards:
  - id: kv-token
    type: numeric
    prompt: "80 layers, 8 KV heads of 128, bf16: KV cache per token in KB?"
    answer: "2 * 80 * 8 * 128 * 2 / 1e3"
    unit: KB
    slips:
      - name: k-only
        answer: "80 * 8 * 128 * 2 / 1e3"
        message: "You counted K but not V: double it."
  - id: memory
    type: choice
    prompt: "Which memory does the H200 use?"
    choices: [HBM3, HBM3e, GDDR7, LPDDR5X]
    answer: HBM3e
    feedback: ["HBM3 is the H100's memory.", null, "GDDR7 is for graphics cards.", null]
"""

# student: (answer to kv-token, the choice picked for memory)
CLASS = {
    "ana": ("163.84", "GDDR7"),      # the K-only slip; GDDR7 (with feedback)
    "bo": ("163.84 KB", "GDDR7"),    # the same slip, with its unit; GDDR7 again
    "cy": ("327.68", "HBM3"),        # right; HBM3 (with feedback)
    "dee": ("2621.44", "LPDDR5X"),   # bits for bytes (a generic slip); no feedback
}


def _study(url: str, deck: Path, name: str, kv: str, memory: str) -> list[str]:
    """One student's session through the study loop; the messages each answer got."""
    svc = StudyService(StudyConfig(db_url=url, profile=name, lang="en", clock=lambda: NOW,
                                   extra_decks=(deck,)))
    said = []
    try:
        session = svc.start(SessionKind.DECK, deck="kv-feedback", seed=7)
        answered: set[str] = set()
        while answered != {"kv-token", "memory"}:
            presented = session.next()
            assert presented is not None
            if presented.card_key in answered:
                session.skip()
                continue
            if presented.card_key == "memory":
                # typed by its number in the order shown, as a student would
                number = presented.question.choices.index(memory) + 1
                outcome = session.submit(str(number))
            else:
                outcome = session.submit(kv)
            said.append(outcome.verdict.message)
            if outcome.verdict.correct:
                session.rate(Rating.GOOD)
            answered.add(presented.card_key)
    finally:
        svc.close()
    return said


def _class_studies(tmp_path: Path) -> tuple[Path, Path, str, dict[str, list[str]]]:
    """The deck file, the class's database and its URL, once every student of ``CLASS``
    has studied; with the messages each one's answers got."""
    deck = tmp_path / "kv-feedback.yaml"
    deck.write_text(DECK, encoding="utf-8")
    db = tmp_path / "class.sqlite3"
    url = f"sqlite:///{db}"
    said = {name: _study(url, deck, name, kv, memory) for name, (kv, memory) in CLASS.items()}
    return deck, db, url, said


def test_slips_and_choice_feedback_are_recorded_and_counted_in_the_item_table(
        tmp_path: Path) -> None:
    deck, db, url, said = _class_studies(tmp_path)
    # the study loop shows the authored messages
    assert any("You counted K but not V" in m for m in said["ana"])
    assert any("GDDR7 is for graphics cards." in m for m in said["bo"])
    assert any("HBM3 is the H100's memory." in m for m in said["cy"])
    # and records what each wrong answer showed
    with sqlite3.connect(db) as conn:
        notes = [json.loads(p) for (p,) in conn.execute(
            "SELECT params FROM review_logs WHERE correct = 0 ORDER BY id")]
    assert sorted(tuple(n.get(ANSWER_SLIPS, [])) for n in notes) == sorted(
        [("k-only",), ("k-only",), ("bits",), ("GDDR7",), ("GDDR7",), ("HBM3",), ()])
    assert sorted(n[PICKED_CHOICE] for n in notes if PICKED_CHOICE in n) == [
        "GDDR7", "GDDR7", "HBM3", "LPDDR5X"]

    # the instructor removes the slips and feedback: what was recorded is still counted
    deck.write_text(DECK.split("    slips:")[0] + DECK.split("message: \"You counted K but "
                                                           "not V: double it.\"\n")[1]
                    .replace('    feedback: ["HBM3 is the H100\'s memory.", null, "GDDR7 is '
                             'for graphics cards.", null]\n', ""), encoding="utf-8")
    env = {"STUDYAPP_HOME": str(tmp_path / "home"), "STUDYAPP_DB": url, "COLUMNS": "120"}
    added = CliRunner().invoke(main, ["--lang", "en", "deck", "add", str(deck)], env=env)
    assert added.exit_code == 0, added.output
    report = CliRunner().invoke(main, ["--lang", "en", "class", "report", "--json"], env=env)
    assert report.exit_code == 0, report.output
    items = {i["card"]: i for i in json.loads(report.output)["items"]}
    kv = items["kv-token"]
    assert kv["students"] == 4 and kv["first_try_accuracy"] == 0.25 and kv["wrong"] == 3
    assert [(s["slip"], s["count"]) for s in kv["slips"]] == [("k-only", 2), ("bits", 1)]
    # "163.84" and "163.84 KB" are one wrong answer, in the card's unit
    assert [(a["answer"], a["count"]) for a in kv["wrong_answers"]] == [
        ("163.84 KB", 2), ("2621.44 KB", 1)]
    memory = items["memory"]
    assert memory["first_try_accuracy"] == 0.0 and memory["wrong"] == 4
    # choices are counted by their text, whatever number the shuffle gave them
    assert [(a["answer"], a["count"]) for a in memory["wrong_answers"]] == [
        ("GDDR7", 2), ("HBM3", 1), ("LPDDR5X", 1)]
    assert [(s["slip"], s["share"]) for s in memory["slips"]] == [("GDDR7", 0.5), ("HBM3", 0.25)]
    assert {r["card"] for r in json.loads(report.output)["reteach"]} == {"kv-token", "memory"}

    as_csv = CliRunner().invoke(main, ["--lang", "en", "class", "report", "--csv"], env=env)
    assert as_csv.exit_code == 0, as_csv.output
    table = as_csv.output.replace("\r\n", "\n").split("\n\n", 1)[1]
    rows = {r["card"]: r for r in csv.DictReader(io.StringIO(table))}
    assert rows["kv-token"]["slips"] == "k-only (67%); bits (33%)"
    assert rows["memory"]["wrong_answers"] == "GDDR7 (50%); HBM3 (25%); LPDDR5X (25%)"
    assert rows["memory"]["slips"] == "GDDR7 (50%); HBM3 (25%)"
    assert rows["memory"]["prompt"] == "Which memory does the H200 use?"
    assert rows["memory"]["reteach"] == "True"


def test_answers_stored_without_their_slips_are_graded_again_for_the_item_table(
        tmp_path: Path) -> None:
    """Answers from before the study loop noted slips still count under the slip's name."""
    deck, db, url, _ = _class_studies(tmp_path)
    with sqlite3.connect(db) as conn:
        conn.execute(f"UPDATE review_logs SET params = json_remove(params, '$.{ANSWER_SLIPS}')")
        left = conn.execute("SELECT count(*) FROM review_logs WHERE correct = 0 AND "
                            f"json_extract(params, '$.{ANSWER_SLIPS}') IS NOT NULL").fetchone()
    assert left == (0,)
    env = {"STUDYAPP_HOME": str(tmp_path / "home"), "STUDYAPP_DB": url, "COLUMNS": "120"}
    added = CliRunner().invoke(main, ["--lang", "en", "deck", "add", str(deck)], env=env)
    assert added.exit_code == 0, added.output
    report = CliRunner().invoke(main, ["--lang", "en", "class", "report", "--json",
                                       "--exclude", "dee"], env=env)
    assert report.exit_code == 0, report.output
    items = {i["card"]: i for i in json.loads(report.output)["items"]}
    # ana and bo gave the K-only answer; graded again against the deck they name its slip
    assert [(s["slip"], s["count"]) for s in items["kv-token"]["slips"]] == [("k-only", 2)]
    assert items["kv-token"]["wrong"] == 2
    assert [(a["answer"], a["count"]) for a in items["memory"]["wrong_answers"]] == [
        ("GDDR7", 2), ("HBM3", 1)]


def test_deck_preview_shows_the_authored_slips_and_choice_feedback(tmp_path: Path) -> None:
    """What a student who makes the mistake will read, for the instructor to check."""
    deck = tmp_path / "kv-feedback.yaml"
    deck.write_text(DECK, encoding="utf-8")
    result = CliRunner().invoke(main, ["--lang", "en", "deck", "preview", str(deck),
                                       "--seed", "1"],
                                env={"STUDYAPP_HOME": str(tmp_path / "home")})
    assert result.exit_code == 0, result.output
    # 2 × 80 × 8 × 128 × 2 B = 327.68 KB; without V, half of it
    assert "Slip k-only: 163.8 KB → You counted K but not V: double it." in result.output
    lines = [line for line in result.output.splitlines() if line.startswith("Feedback on")]
    assert sorted(line.split(") ", 1)[1] for line in lines) == [
        "GDDR7: GDDR7 is for graphics cards.", "HBM3: HBM3 is the H100's memory."]
    numbers = [int(line.removeprefix("Feedback on ").split(")")[0]) for line in lines]
    assert numbers == sorted(numbers)  # in the order the choices are shown
