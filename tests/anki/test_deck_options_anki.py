"""Anki deck options (presets) come in per deck, in both package formats, and go back out.

The packages are built by Anki itself (the ``anki`` package, 26.9.3); what
comes back from an export is read by Anki too.
"""

from __future__ import annotations

import json
import sqlite3
import zipfile
from pathlib import Path
from typing import Any

import pytest
import zstandard
from click.testing import CliRunner

from studyapp.anki.anki_collection import read_collection
from studyapp.anki.anki_options import package_options, preset_options
from studyapp.anki.anki_presets import preset_fields
from studyapp.anki.apkg import select_cards, write_apkg
from studyapp.cli import main
from studyapp.decks import load_deck
from studyapp.srs.deck_options import (
    DeckOptions,
    DeckOptionsError,
    deck_settings,
    with_deck_options,
)
from studyapp.srs.scheduler import SchedulerSettings

anki_collection = pytest.importorskip("anki.collection")
from anki.import_export_pb2 import (  # noqa: E402
    ImportAnkiPackageOptions,
    ImportAnkiPackageRequest,
)
from anki_fixtures import FORMATS, add, export  # noqa: E402

# FSRS-6 parameters as Anki 26 shows a fitted preset (21 numbers, within fsrs's bounds)
PARAMS6 = [0.2, 1.2, 3.3, 16.0, 7.1, 0.5, 1.4, 0.01, 1.5, 0.1, 0.9, 1.9, 0.1, 0.3, 2.2,
           0.2, 2.9, 0.5, 0.6, 0.1, 0.15]
PARAMS5 = PARAMS6[:19]


def _collection(folder: Path, *, retention: float = 0.95, params: str = "fsrsParams6",
                rollover: int | None = None) -> Any:
    """A collection with two decks: "Physics" on its own preset, "Chemistry" on Default."""
    col = anki_collection.Collection(str(folder / "options.anki2"))
    if rollover is not None:
        col.set_config("rollover", rollover)
    physics = col.decks.id("Physics")
    col.decks.id("Chemistry")
    preset = col.decks.get_config(col.decks.add_config_returning_id("Hard facts"))
    preset["desiredRetention"] = retention
    preset[params] = PARAMS6 if params == "fsrsParams6" else PARAMS5
    preset["new"].update(delays=[2.0, 15.0], perDay=7, bury=True)
    preset["rev"].update(perDay=150, maxIvl=400, bury=False)
    preset["lapse"].update(delays=[5.0], leechFails=5, leechAction=0)
    preset["buryInterdayLearning"] = True
    col.decks.update_config(preset)
    deck = col.decks.get(physics)
    deck["conf"] = preset["id"]
    col.decks.save(deck)
    add(col, "Basic", "Physics", Front="Speed of light?", Back="299792458 m/s")
    add(col, "Basic", "Chemistry", Front="Water?", Back="H2O")
    return col


@pytest.mark.parametrize("form", FORMATS)
def test_every_preset_field_comes_in_from_both_formats(tmp_path: Path, form: str) -> None:
    col = _collection(tmp_path)
    package = export(col, tmp_path / f"options-{form}.apkg", history=True, form=form)
    col.close()
    collection = read_collection(package)
    found = package_options(collection.deck_configs, collection.deck_names,
                            {"physics": "Physics", "chemistry": "Chemistry"})
    assert found.refused == []
    physics = found.decks["physics"]
    assert physics.preset == "Hard facts"
    assert physics.parameters == tuple(PARAMS6)
    assert physics.desired_retention == 0.95
    assert physics.learning_steps_s == (120, 900)  # 2 and 15 minutes
    assert physics.relearning_steps_s == (300,)
    assert (physics.new_per_day, physics.reviews_per_day) == (7, 150)
    assert physics.maximum_interval_days == 400
    assert (physics.leech_lapses, physics.leech_action) == (5, "suspend")
    assert (physics.bury_new, physics.bury_reviews, physics.bury_interday) == (True, False, True)
    chemistry = found.decks["chemistry"]  # Anki's Default preset: Anki's defaults come along
    assert chemistry.preset == "Default"
    assert (chemistry.new_per_day, chemistry.reviews_per_day) == (20, 200)
    assert chemistry.learning_steps_s == (60, 600) and chemistry.leech_action == "tag"
    assert chemistry.parameters is None  # FSRS never fitted: the profile's parameters


@pytest.mark.parametrize("form", FORMATS)
def test_fsrs5_parameters_become_fsrs6_with_fsrs5_decay(tmp_path: Path, form: str) -> None:
    col = _collection(tmp_path, params="fsrsParams5")
    package = export(col, tmp_path / "five.apkg", history=True, form=form)
    col.close()
    collection = read_collection(package)
    found = package_options(collection.deck_configs, collection.deck_names,
                            {"physics": "Physics"})
    assert found.decks["physics"].parameters == (*PARAMS5, 0.0, 0.5)


@pytest.mark.parametrize("retention", [0.85, 0.95])
def test_the_retention_tried_reaches_that_deck_only(tmp_path: Path, retention: float) -> None:
    col = _collection(tmp_path, retention=retention)
    package = export(col, tmp_path / "retention.apkg", history=True)
    col.close()
    collection = read_collection(package)
    options = package_options(collection.deck_configs, collection.deck_names,
                              {"physics": "Physics"}).decks["physics"]
    settings = with_deck_options(SchedulerSettings(), "physics", options)
    assert deck_settings(settings, "physics").desired_retention == retention
    assert deck_settings(settings, "chemistry").desired_retention == 0.9  # the profile's


HOSTILE = [
    ({"desiredRetention": 1.5}, "desired retention: 1.5 is outside 0.7–0.99"),
    ({"desiredRetention": "0.9; DROP"}, "desired retention: '0.9; DROP' is not a number"),
    ({"new": {"perDay": -5}}, "new per day: -5 is outside 0–10000"),
    ({"new": {"delays": "1m"}}, "learning steps (s): '1m' is not a list of steps"),
    ({"new": {"delays": [1e300]}}, "learning steps (s): 6e+301 is outside"),
    ({"rev": {"maxIvl": 10**9}}, "maximum interval (days): 1e+09 is outside 1–36500"),
    ({"lapse": {"leechAction": 7}}, "leech action: 7 is not one of suspend, tag"),
    ({"lapse": {"leechFails": 0}}, "leech threshold: 0 is outside 1–1000"),
    ({"rev": {"bury": "yes"}}, "bury reviews: 'yes' is not true or false"),
    ({"fsrsParams6": [1e9] * 21}, "parameters: w0 = 1e+09 is outside"),
    ({"fsrsParams6": [0.5] * 20}, "parameters: 20 numbers; FSRS-6 has 21"),
    ({"fsrsWeights": [0.5] * 17}, "FSRS-4.5 parameters (17)"),
    ({"new": [1, 2]}, "'new' is not a group of options"),
]


@pytest.mark.parametrize(("change", "said"), HOSTILE)
def test_a_hostile_preset_is_refused_naming_the_field(change: dict[str, Any], said: str) -> None:
    preset: dict[str, Any] = {"name": "Evil\x1b[31m preset", "new": {}, "rev": {}, "lapse": {}}
    for key, value in change.items():
        if isinstance(value, dict) and isinstance(preset.get(key), dict):
            preset[key].update(value)
        else:
            preset[key] = value
    with pytest.raises(DeckOptionsError) as refused:
        preset_options(preset, "Anki preset 'x'")
    assert said in str(refused.value)
    assert "\n" not in str(refused.value) and "\x1b" not in str(refused.value)


def _tamper_dconf(package: Path, target: Path, change: dict[str, Any]) -> Path:
    """The package with the "Hard facts" preset changed inside its schema 11 collection."""
    with zipfile.ZipFile(package) as source:
        members = {name: source.read(name) for name in source.namelist()}
    work = target.with_suffix(".anki21")
    work.write_bytes(members["collection.anki21"])
    with sqlite3.connect(work) as db:
        dconf = json.loads(db.execute("SELECT dconf FROM col").fetchone()[0])
        for preset in dconf.values():
            if preset["name"] == "Hard facts":
                preset.update(change)
        db.execute("UPDATE col SET dconf = ?", (json.dumps(dconf),))
    members["collection.anki21"] = work.read_bytes()
    with zipfile.ZipFile(target, "w") as out:
        for name, data in members.items():
            out.writestr(name, data)
    return target


def run(tmp_path: Path, *args: str) -> tuple[int, str]:
    db = f"sqlite:///{tmp_path / 'study.sqlite3'}"
    result = CliRunner().invoke(main, ["--db", db, "--lang", "en", *args])
    return result.exit_code, result.output


def test_a_hostile_package_imports_its_cards_and_says_why_its_options_are_left_out(
        tmp_path: Path) -> None:
    col = _collection(tmp_path)
    good = export(col, tmp_path / "good.apkg", history=True)
    col.close()
    evil = _tamper_dconf(good, tmp_path / "evil.apkg", {"desiredRetention": float("inf")})
    code, output = run(tmp_path, "import", str(evil))
    assert code == 0, output
    assert "Traceback" not in output
    assert "Anki deck options left out: Anki preset 'Hard facts': desired retention: inf is " \
           "not a finite number" in output
    code, output = run(tmp_path, "stats", "--json")
    options = json.loads(output)["deck_options"]
    assert "physics" not in options  # follows the profile


def test_import_sets_the_rollover_of_a_new_profile_and_only_says_it_later(
        tmp_path: Path) -> None:
    col = _collection(tmp_path, rollover=2)
    col.decks.select(col.decks.id("Physics"))
    card = col.sched.getCard()
    card.start_timer()
    col.sched.answerCard(card, 3)  # one review in Anki: the history brings an answer along
    package = tmp_path / "whole.colpkg"
    col.export_collection_package(str(package), include_media=False, legacy=True)
    code, output = run(tmp_path, "import", str(package))
    assert code == 0, output
    assert "The study day now rolls over at 2:00, as in Anki." in output
    assert "Deck options from Anki for 2 deck(s) (presets: Default, Hard facts)" in output
    stats = json.loads(run(tmp_path, "stats", "--json")[1])
    physics = stats["deck_options"]["physics"]
    assert physics["preset"] == "Hard facts" and physics["desired_retention"] == 0.95
    assert physics["learning_steps_s"] == [120, 900] and physics["leech_action"] == "suspend"
    assert stats["reviews_total"] == 1
    # the profile now has answers: a package with another rollover changes nothing, says so
    col = anki_collection.Collection(str(tmp_path / "options.anki2"))
    col.set_config("rollover", 5)
    again = tmp_path / "again.colpkg"
    col.export_collection_package(str(again), include_media=False, legacy=True)
    code, output = run(tmp_path, "import", str(again))
    assert code == 0, output
    assert "Anki's day rolls over at 5:00, this profile's at 2:00 (kept" in output


DECK = """\
deck: export-drill
title: Drill
language: en
post: h200
cards:
  - id: memory-type
    type: text
    prompt: "Which memory does the H200 use?"
    answer: HBM3e
  - id: gen-fits
    type: generated
    generator: fits-on-gpu
"""


def test_an_exported_deck_carries_its_options_as_an_anki_preset(tmp_path: Path) -> None:
    path = tmp_path / "drill.yaml"
    path.write_text(DECK, encoding="utf-8")
    deck = load_deck(path)
    own = DeckOptions(preset="Hard facts", parameters=tuple(PARAMS6), desired_retention=0.95,
                      learning_steps_s=(120, 900), relearning_steps_s=(300,), new_per_day=7,
                      reviews_per_day=150, maximum_interval_days=400, leech_lapses=5,
                      leech_action="suspend", bury_new=False, bury_reviews=False,
                      bury_interday=True)
    settings = with_deck_options(SchedulerSettings(), deck.id, own)
    target = tmp_path / "drill.apkg"
    write_apkg(select_cards([deck]), target, "en", instances=3,
               settings=settings)
    col = anki_collection.Collection(str(tmp_path / "fresh.anki2"))
    try:
        # "Import any deck presets" and "Import any learning progress" (without the latter
        # Anki leaves the FSRS parameters out: they are the sharer's)
        col.import_anki_package(ImportAnkiPackageRequest(
            package_path=str(target), options=ImportAnkiPackageOptions(
                with_scheduling=True, with_deck_configs=True)))
        drill = col.decks.by_name("studyapp::Drill")["id"]
        preset = col.decks.config_dict_for_deck_id(drill)
    finally:
        col.close()
    assert preset["name"] == "Hard facts"
    assert preset_fields(preset) == {
        "parameters": pytest.approx(PARAMS6), "desired_retention": pytest.approx(0.95),
        "learning_steps_min": [2.0, 15.0], "relearning_steps_min": [5.0],
        "new_per_day": 7, "reviews_per_day": 150, "maximum_interval_days": 400,
        "leech_lapses": 5, "leech_action": 0,
        # the deck holds draws of a generated card: siblings, so burying is on in Anki
        "bury_new": True, "bury_reviews": True, "bury_interday": True}


def test_a_malformed_preset_in_the_current_format_is_left_out_and_named(
        tmp_path: Path) -> None:
    col = _collection(tmp_path)
    good = export(col, tmp_path / "good.apkg", history=True, form="anki21b")
    col.close()
    with zipfile.ZipFile(good) as source:
        members = {name: source.read(name) for name in source.namelist()}
    work = tmp_path / "collection.sqlite"
    work.write_bytes(zstandard.ZstdDecompressor().decompressobj().decompress(
        members["collection.anki21b"]))
    with sqlite3.connect(work) as db:  # a number that never ends: not a protobuf
        db.execute("UPDATE deck_config SET config = ? WHERE id != 1", (b"\xff",))  # not Default
    db.close()
    members["collection.anki21b"] = zstandard.ZstdCompressor().compress(work.read_bytes())
    evil = tmp_path / "evil.apkg"
    with zipfile.ZipFile(evil, "w") as out:
        for name, data in members.items():
            out.writestr(name, data)
    collection = read_collection(evil)  # the cards still read
    found = package_options(collection.deck_configs, collection.deck_names,
                            {"physics": "Physics", "chemistry": "Chemistry"})
    assert found.refused == ["Anki preset 'Hard facts': its settings blob is not a valid protobuf: "
                             "it ends inside a number"]
    assert list(found.decks) == ["chemistry"]


def test_stats_says_each_decks_options_in_a_line(tmp_path: Path) -> None:
    col = _collection(tmp_path)
    package = export(col, tmp_path / "options.apkg", history=True)
    col.close()
    assert run(tmp_path, "import", str(package))[0] == 0
    code, output = run(tmp_path, "stats")
    assert code == 0, output
    assert "physics (Hard facts): retention 0.95 · steps 2m 15m, relearning 5m · 7 new and " \
           "150 reviews a day · longest interval 400 d · leech at 5 lapses: suspend · " \
           "siblings buried: new, interday learning · FSRS parameters: its own" \
           in " ".join(output.split())


@pytest.mark.parametrize("legacy", [True, False])
def test_the_rollover_hour_is_read_from_both_formats(tmp_path: Path, legacy: bool) -> None:
    col = _collection(tmp_path, rollover=2)
    package = tmp_path / "whole.colpkg"
    col.export_collection_package(str(package), include_media=False, legacy=legacy)
    collection = read_collection(package)
    found = package_options(collection.deck_configs, collection.deck_names, {},
                            collection.rollover)
    assert found.rollover == 2 and found.refused == []


@pytest.mark.parametrize("stored", [b"25", b'"4; rm -rf"', b"true", 4.5, b"\xff"])
def test_a_rollover_that_is_no_hour_is_left_out_with_why(stored: object) -> None:
    found = package_options({}, {}, {}, stored)
    assert found.rollover is None
    assert len(found.refused) == 1 and "is not an hour 0–23" in found.refused[0]
