"""A newer package of the same collection updates each deck's options and notes' tags in place.

The packages are made by Anki itself (the ``anki`` package, 26.9.3): a preset
changed in Anki between two exports, a note Anki tagged ``leech`` with nothing
else changed.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from studyapp.cli import main
from studyapp.locations import user_decks_dir

pytest.importorskip("anki.collection")
from anki_fixtures import FORMATS, export, studied_collection

# FSRS-6 parameters as Anki 26 shows a fitted preset (21 numbers within fsrs's bounds)
PARAMS6 = [0.2, 1.2, 3.3, 16.0, 7.1, 0.5, 1.4, 0.01, 1.5, 0.1, 0.9, 1.9, 0.1, 0.3, 2.2,
           0.2, 2.9, 0.5, 0.6, 0.1, 0.15]


def run(tmp_path: Path, *args: str) -> tuple[int, str]:
    db = f"sqlite:///{tmp_path / 'study.sqlite3'}"
    result = CliRunner().invoke(main, ["--db", db, "--lang", "en", *args])
    return result.exit_code, result.output


def studied_options(tmp_path: Path) -> dict[str, object]:
    code, output = run(tmp_path, "stats", "--json")
    assert code == 0, output
    options: dict[str, object] = json.loads(output)["deck_options"]["studied"]
    return options


def _preset(col: object) -> dict[str, object]:
    studied = col.decks.get(col.decks.id("Studied"))  # type: ignore[attr-defined]
    return col.decks.get_config(studied["conf"])  # type: ignore[attr-defined,no-any-return]


@pytest.mark.parametrize("form", FORMATS)
def test_a_newer_package_updates_each_decks_options_and_says_what_changed(
        tmp_path: Path, form: str) -> None:
    col = studied_collection(tmp_path, cards=4, answers=6)
    try:
        first = export(col, tmp_path / "first.apkg", history=True, form=form)
        preset = _preset(col)
        preset["desiredRetention"] = 0.93
        preset["fsrsParams6"] = PARAMS6
        preset["new"].update(delays=[3.0, 20.0], perDay=9)  # type: ignore[attr-defined]
        preset["rev"].update(perDay=120, maxIvl=500)  # type: ignore[attr-defined]
        preset["lapse"].update(leechFails=6, leechAction=0)  # type: ignore[attr-defined]
        preset["new"]["bury"] = True  # type: ignore[index]
        preset["buryInterdayLearning"] = True
        col.decks.update_config(preset)
        second = export(col, tmp_path / "second.apkg", history=True, form=form)
    finally:
        col.close()
    code, output = run(tmp_path, "import", str(first))
    assert code == 0, output
    before = studied_options(tmp_path)
    assert before["desired_retention"] == 0.9 and before["new_per_day"] == 20
    code, output = run(tmp_path, "import", str(second))
    assert code == 0, output
    after = studied_options(tmp_path)
    assert after["desired_retention"] == 0.93
    assert after["parameters"] == pytest.approx(PARAMS6)
    assert after["learning_steps_s"] == [180, 1200]
    assert (after["new_per_day"], after["reviews_per_day"]) == (9, 120)
    assert after["maximum_interval_days"] == 500
    assert (after["leech_lapses"], after["leech_action"]) == (6, "suspend")
    assert (after["bury_new"], after["bury_interday"]) == (True, True)
    changed = next(line for line in output.splitlines() if "options changed" in line)
    for said in ("desired retention 0.9 → 0.93", "new per day 20 → 9",
                 "reviews per day 200 → 120", "maximum interval (days) 36500 → 500",
                 "leech threshold 8 → 6", "leech action mark only → suspend",
                 "learning steps (s) 60, 600 → 180, 1200", "FSRS parameters refitted",
                 "bury new no → yes", "bury interday learning no → yes"):
        assert said in changed, (said, changed)
    assert "relearning" not in changed  # unchanged in Anki: not listed
    # (an .apkg carries no rollover hour; a .colpkg's is the profile's first, then only
    # named: test_deck_options_anki.py)
    code, output = run(tmp_path, "import", str(second))
    assert code == 0, output
    assert "options changed" not in output  # the same package again changes nothing


@pytest.mark.parametrize("form", FORMATS)
def test_a_note_whose_only_change_is_annkis_leech_tag_is_updated_and_named(
        tmp_path: Path, form: str) -> None:
    col = studied_collection(tmp_path, cards=4, answers=8)
    try:
        first = export(col, tmp_path / "first.apkg", history=True, form=form)
        studied = [col.get_note(n) for n in col.find_notes("")
                   if col.get_note(n).cards()[0].reps > 0]
        note = studied[0]
        note.tags.append("leech")  # what Anki adds by itself after too many lapses
        col.update_note(note)
        second = export(col, tmp_path / "second.apkg", history=True, form=form)
    finally:
        col.close()
    assert run(tmp_path, "import", str(first))[0] == 0
    code, output = run(tmp_path, "import", str(second))
    assert code == 0, output
    assert "1 note(s) updated, 0 card(s) added" in output
    assert "0 reviews added" in output
    assert f"tags changed on 1 note(s): note-{note.id}-1 (+leech)" in output
    deck = yaml.safe_load((user_decks_dir() / "studied.yaml").read_text(encoding="utf-8"))
    tags = {card["id"]: card.get("tags") for card in deck["cards"]}
    assert tags[f"note-{note.id}-1"] == ["leech"]
    with sqlite3.connect(tmp_path / "study.sqlite3") as db:
        leeches = {key for key, leech in db.execute("SELECT card_key, leech FROM card_states")
                   if leech}
    assert leeches == {f"note-{note.id}-1"}  # the leech mark follows Anki's tag
