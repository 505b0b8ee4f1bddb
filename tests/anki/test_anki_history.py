"""History comes along: Anki's review log and FSRS memory states, due dates as Anki has them."""

from __future__ import annotations

import json
import sqlite3
import zipfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner

from studyapp.cli import main
from studyapp.srs.calendar import day_start, local_zone

pytest.importorskip("anki.collection")
from anki_fixtures import FORMATS, export, studied_collection


def run(tmp_path: Path, *args: str) -> tuple[int, str]:
    db = f"sqlite:///{tmp_path / 'study.sqlite3'}"
    result = CliRunner().invoke(main, ["--db", db, "--lang", "en", *args])
    return result.exit_code, result.output


@pytest.fixture(params=FORMATS)
def studied(tmp_path: Path, request: pytest.FixtureRequest
            ) -> tuple[Path, dict[str, dict[str, object]], int]:
    """The package (in either format), Anki's own view of every card (by studyapp card key),
    Anki's review count."""
    col = studied_collection(tmp_path)
    try:
        anki_view = {}
        for card_id in col.find_cards(""):
            card = col.get_card(card_id)
            stats = col.card_stats_data(card_id)
            anki_view[f"note-{card.nid}-{card.ord + 1}"] = {
                "type": card.type, "queue": card.queue, "due": card.due,
                "stability": card.memory_state.stability if card.memory_state else None,
                "difficulty": card.memory_state.difficulty if card.memory_state else None,
                "due_date": stats.due_date if stats.HasField("due_date") else None,
                "reps": card.reps, "lapses": card.lapses, "crt": col.crt,
            }
        reviews = col.db.scalar("SELECT count() FROM revlog")
        package = export(col, tmp_path / "studied.apkg", history=True, form=request.param)
    finally:
        col.close()
    return package, anki_view, reviews


def stored(tmp_path: Path) -> dict[str, dict[str, object]]:
    with sqlite3.connect(tmp_path / "study.sqlite3") as db:
        db.row_factory = sqlite3.Row
        return {r["card_key"]: dict(r) for r in db.execute("SELECT * FROM card_states")}


def parse(value: object) -> datetime:
    moment = datetime.fromisoformat(str(value))
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def test_import_brings_reviews_memory_states_and_anki_due_dates(
        tmp_path: Path, studied: tuple[Path, dict[str, dict[str, object]], int]) -> None:
    package, anki_view, anki_reviews = studied
    code, output = run(tmp_path, "import", str(package))
    assert code == 0, output
    assert f"{anki_reviews} reviews added" in output
    cards = stored(tmp_path)
    answered = {k: v for k, v in anki_view.items() if v["type"] != 0}
    assert answered and set(answered) <= set(cards)
    with sqlite3.connect(tmp_path / "study.sqlite3") as db:
        assert db.execute("SELECT count() FROM review_logs").fetchone()[0] == anki_reviews
    for key, anki in answered.items():
        mine = cards[key]
        assert mine["state"] == anki["type"]  # learning 1, review 2, relearning 3
        assert mine["stability"] == pytest.approx(anki["stability"], abs=1e-3)
        assert mine["difficulty"] == pytest.approx(anki["difficulty"], abs=1e-3)
        assert (mine["reps"], mine["lapses"]) == (anki["reps"], anki["lapses"])
        due = parse(mine["due"])
        if anki["queue"] in (1, 4) or (anki["queue"] == -1 and int(anki["due"]) > 10**9):
            assert due == datetime.fromtimestamp(int(anki["due"]), UTC)  # to the second
        else:  # a review: from the start of the Anki day it is due on (calendar days on)
            first_day = datetime.fromtimestamp(int(anki["crt"]), UTC).astimezone(
                local_zone()).date()
            start = day_start(first_day + timedelta(days=int(anki["due"])))
            assert due == start
            if anki["due_date"] is not None:  # Anki's card info shows a time on that day
                shown = datetime.fromtimestamp(int(anki["due_date"]), UTC)
                assert start <= shown < start + timedelta(days=1)
    assert any(v["suspended"] for v in cards.values())
    # a second import adds nothing
    code, output = run(tmp_path, "import", str(package))
    assert code == 0 and "0 reviews added" in output and f"{anki_reviews} already there" in output


def test_stats_see_the_imported_history(
        tmp_path: Path, studied: tuple[Path, dict[str, dict[str, object]], int]) -> None:
    package, _, anki_reviews = studied
    assert run(tmp_path, "import", str(package))[0] == 0
    code, output = run(tmp_path, "stats", "--json")
    assert code == 0, output
    assert json.loads(output)["reviews_total"] == anki_reviews


def test_deck_from_anki_with_history_writes_the_deck_and_the_history(
        tmp_path: Path, studied: tuple[Path, dict[str, dict[str, object]], int]) -> None:
    package, _, anki_reviews = studied
    code, output = run(tmp_path, "deck", "from-anki", str(package), "-o",
                       str(tmp_path / "studied.yaml"), "--with-history")
    assert code == 0, output
    assert (tmp_path / "studied.yaml").exists()
    assert f"{anki_reviews} reviews added" in output


def test_import_of_a_binary_file_never_shows_a_codec_error(tmp_path: Path) -> None:
    binary = tmp_path / "course.json"
    binary.write_bytes(b"\xdb\x00\xff" * 100)
    code, output = run(tmp_path, "import", str(binary))
    assert code == 1 and "codec" not in output and "Anki package" in output
    not_anki = tmp_path / "other.apkg"
    import zipfile
    with zipfile.ZipFile(not_anki, "w") as archive:
        archive.writestr("readme.txt", "hello")
    code, output = run(tmp_path, "import", str(not_anki))
    assert code == 1 and "not an Anki package" in output and "Traceback" not in output


def test_a_deck_goes_from_anki_to_studyapp_and_back_with_nothing_lost(
        tmp_path: Path, studied: tuple[Path, dict[str, dict[str, object]], int]) -> None:
    from anki.collection import Collection
    from anki.import_export_pb2 import ImportAnkiPackageOptions, ImportAnkiPackageRequest

    package, anki_view, anki_reviews = studied
    assert run(tmp_path, "import", str(package))[0] == 0
    # study in studyapp: every card due now (Anki's learning cards), rated Good
    db = f"sqlite:///{tmp_path / 'study.sqlite3'}"
    result = CliRunner().invoke(main, ["--db", db, "--lang", "en", "study", "--plain",
                                       "--deck", "studied", "--limit", "3"],
                                input="Answer 0\n\n" * 3)
    assert result.exit_code == 0, result.output
    with sqlite3.connect(tmp_path / "study.sqlite3") as conn:
        total = conn.execute("SELECT count() FROM review_logs").fetchone()[0]
    assert total > anki_reviews  # Anki's reviews and the new ones, together
    back = tmp_path / "back.apkg"
    code, output = run(tmp_path, "export", "--format", "apkg", "-o", str(back),
                       "--deck", "studied")
    assert code == 0, output
    col = Collection(str(tmp_path / "again.anki2"))
    try:
        col.import_anki_package(ImportAnkiPackageRequest(
            package_path=str(back), options=ImportAnkiPackageOptions()))
        pairs = {(col.get_note(n)["Prompt"], col.get_note(n)["Answer"])
                 for n in col.find_notes("")}
    finally:
        col.close()
    assert pairs == {(f"Question {i}", f"Answer {i}") for i in range(len(anki_view))}


DATA = Path(__file__).parent / "data"


@pytest.mark.parametrize("package", ["studied-days.apkg", "studied-days-anki21b.apkg",
                                     "studied-days-anki21b.colpkg"])
def test_twelve_days_in_anki_come_due_on_the_days_anki_shows(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, package: str) -> None:
    """A collection studied in Anki 26 with FSRS over twelve days, across the end of summer
    time (recorded by make_anki_history.py, exported in both formats): every card keeps
    Anki's stage, memory state and counts, and is due on the day Anki's card info shows, in
    the learner's time zone."""
    from zoneinfo import ZoneInfo

    from studyapp.srs.calendar import study_day

    anki = json.loads((DATA / "studied-days.json").read_text(encoding="utf-8"))
    monkeypatch.setenv("TZ", anki["zone"])
    zone = ZoneInfo(anki["zone"])
    code, output = run(tmp_path, "import", str(DATA / package))
    assert code == 0, output
    assert f"{anki['reviews']} reviews added" in output
    cards = stored(tmp_path)
    with sqlite3.connect(tmp_path / "study.sqlite3") as db:
        assert db.execute("SELECT count() FROM review_logs").fetchone()[0] == anki["reviews"]
    for where, seen in anki["cards"].items():
        note, ordinal = where.split(":")
        mine = cards.get(f"note-{note}-{int(ordinal) + 1}") or cards[
            f"note-{note}-c{int(ordinal) + 1}"]
        assert mine["state"] == seen["type"], where
        assert mine["stability"] == pytest.approx(seen["stability"], abs=1e-3), where
        assert mine["difficulty"] == pytest.approx(seen["difficulty"], abs=1e-3), where
        assert (mine["reps"], mine["lapses"], mine["flag"]) == (
            seen["reps"], seen["lapses"], seen["flag"]), where
        assert bool(mine["suspended"]) == (seen["queue"] == -1), where
        due = parse(mine["due"])
        if seen["type"] == 2:  # a review: the day Anki shows, from its first hour
            assert study_day(due, 4, zone).isoformat() == seen["due_day"], where
            assert due.astimezone(zone).hour == 4, where
        else:  # a learning step: to the second
            assert due == datetime.fromtimestamp(seen["due"], UTC), where
    assert {c["type"] for c in anki["cards"].values()} == {1, 2}


ROUND_TRIP_DECK = """\
deck: trip
title: Trip
language: en
post: h200
cards:
  - id: memory
    type: text
    prompt: "Which memory does the H200 use?"
    answer: HBM3e
  - id: capacity
    type: text
    prompt: "HBM capacity of one H100 SXM, in GB?"
    answer: "80"
  - id: gen-fits
    type: generated
    generator: fits-on-gpu
"""


@pytest.mark.parametrize("form", FORMATS)
def test_cards_studied_in_anki_come_back_to_the_same_cards_with_every_answer(
        tmp_path: Path, form: str) -> None:
    """Studied here, exported, studied in Anki (which starts them afresh), imported back:
    Anki's answers join the cards they came from (the draws of a generated card too), no
    second deck appears, and each schedule is rebuilt from all the answers."""
    from anki.collection import Collection, ExportAnkiPackageOptions
    from anki.import_export_pb2 import ImportAnkiPackageOptions, ImportAnkiPackageRequest

    deck = tmp_path / "trip.yaml"
    deck.write_text(ROUND_TRIP_DECK, encoding="utf-8")
    assert run(tmp_path, "deck", "add", str(deck))[0] == 0
    db = f"sqlite:///{tmp_path / 'study.sqlite3'}"
    studied = CliRunner().invoke(main, ["--db", db, "--lang", "en", "study", "--plain",
                                        "--deck", "trip", "--limit", "2", "--seed", "1"],
                                 input="y\n\nHBM3e\n\n80\n\n")
    assert studied.exit_code == 0, studied.output
    before = {k: v["reps"] for k, v in stored(tmp_path).items()}
    here = sum(before.values())
    assert here == 2, studied.output
    package = tmp_path / "trip.apkg"
    assert run(tmp_path, "export", "--format", "apkg", "-o", str(package), "--deck", "trip",
               "--instances", "3")[0] == 0
    col = Collection(str(tmp_path / "anki.anki2"))
    try:
        col.set_config("fsrs", True)
        col.import_anki_package(ImportAnkiPackageRequest(
            package_path=str(package), options=ImportAnkiPackageOptions()))
        col.decks.select(col.decks.id("studyapp::Trip"))
        in_anki = 0
        while (card := col.sched.getCard()) is not None and in_anki < 30:
            card.start_timer()
            col.sched.answerCard(card, 3)
            in_anki += 1
        back = tmp_path / "from-anki.apkg"
        col.export_anki_package(out_path=str(back), limit=None, options=ExportAnkiPackageOptions(
            legacy=form == "legacy", with_scheduling=True, with_media=True,
            with_deck_configs=True))
    finally:
        col.close()
    assert in_anki >= 3
    code, output = run(tmp_path, "import", str(back))
    assert code == 0, output
    assert "3 note(s) exported from decks you have here go back to their cards" in output
    assert "Installed deck" not in output
    assert "worked out again from all their answers, here and in Anki" in output
    cards = stored(tmp_path)
    assert set(cards) == {"memory", "capacity", "gen-fits"}
    with sqlite3.connect(tmp_path / "study.sqlite3") as conn:
        assert conn.execute("SELECT count() FROM review_logs").fetchone()[0] == here + in_anki
        decks = {r[0] for r in conn.execute("SELECT DISTINCT deck_id FROM card_states")}
    assert decks == {"trip"}
    for key, reps in before.items():  # answered here, then in Anki: all counted
        assert cards[key]["reps"] > reps, key
    assert cards["gen-fits"]["reps"] >= 1  # the draws answered in Anki: one card here
    assert sum(c["reps"] for c in cards.values()) == here + in_anki
    code, output = run(tmp_path, "import", str(back))
    assert code == 0 and "0 reviews added" in output


@pytest.mark.parametrize("form", FORMATS)
def test_a_collection_package_brings_its_history_too(tmp_path: Path, form: str) -> None:
    """A .colpkg (File › Export › Collection), "Support older Anki versions" ticked or in
    Anki's current format, its default."""
    col = studied_collection(tmp_path)
    reviews = col.db.scalar("SELECT count() FROM revlog")
    target = tmp_path / "studied.colpkg"
    col.export_collection_package(str(target), include_media=True,
                                  legacy=form == "legacy")  # closes it
    with zipfile.ZipFile(target) as archive:
        assert ("collection.anki21b" in archive.namelist()) == (form == "anki21b")
    code, output = run(tmp_path, "import", str(target))
    assert code == 0, output
    assert f"{reviews} reviews added" in output and "Installed deck studied" in output
