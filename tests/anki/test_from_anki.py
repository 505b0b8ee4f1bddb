"""An instructor's Anki deck (made here with genanki) becomes a studyapp deck that validates."""

from __future__ import annotations

import zipfile
from pathlib import Path

import genanki
import pytest

from studyapp.anki.from_anki import (
    AnkiPackageError,
    accepted_answers,
    convert_package,
    deck_yaml,
    html_to_text,
)
from studyapp.decks import load_deck
from studyapp.decks.deck_report import validation_report


def _package(tmp_path: Path) -> Path:
    deck = genanki.Deck(2059400110, "Course::Serving <i>LLMs</i>")
    deck.add_note(genanki.Note(
        model=genanki.BASIC_MODEL,
        fields=["Which memory does the <b>H200</b> use?<br><img src='h200.png'>",
                "HBM3e (HBM 3e)"]))
    deck.add_note(genanki.Note(
        model=genanki.BASIC_AND_REVERSED_CARD_MODEL,
        fields=["InfiniBand NDR per port", "400 Gb/s; 50 GB/s"]))
    deck.add_note(genanki.Note(  # optional reverse left empty: one card
        model=genanki.BASIC_OPTIONAL_REVERSED_CARD_MODEL, fields=["HBM", "High Bandwidth Memory",
                                                                  ""]))
    deck.add_note(genanki.Note(
        model=genanki.CLOZE_MODEL,
        fields=["The {{c1::H100}} has {{c2::80::GB}} GB &amp; a {brace}[sound:gpu.mp3]",
                "From the <a href='x'>post</a>"]))
    deck.add_note(genanki.Note(model=genanki.BASIC_MODEL, fields=["Empty back", ""]))
    path = tmp_path / "course.apkg"
    genanki.Package(deck).write_to_file(str(path))
    return path


def test_basic_reversed_and_cloze_notes_become_a_deck_that_validates(tmp_path: Path) -> None:
    conversion = convert_package(_package(tmp_path), language="en", post="h200")
    assert conversion.notes == 4 and conversion.cards == 6
    assert conversion.media_skipped == 0  # the sound and the image are named in the card
    assert conversion.sounds == {"course-serving-i-llms-i": ["gpu.mp3"]}
    assert conversion.images == {"course-serving-i-llms-i": ["h200.png"]}
    assert sum(conversion.skipped_notes.values()) == 1  # the note without an answer
    target = tmp_path / "course.yaml"
    target.write_text(deck_yaml(conversion.deck), encoding="utf-8")
    lines, code = validation_report([target], "en")
    assert code == 0, lines
    deck = load_deck(target)
    assert deck.title == {"en": "Course › Serving <i>LLMs</i>"} and deck.post == "h200"
    questions = [card.instantiate(0, "en") for card in deck.cards]
    by_prompt = {q.prompt: q for q in questions}
    basic = by_prompt["Which memory does the H200 use?\n[image: h200.png]"]
    assert basic.answer == "HBM3e (HBM 3e)" and basic.accept == ()  # an aside is no variant
    forward = by_prompt["InfiniBand NDR per port"]
    assert forward.answer == "400 Gb/s; 50 GB/s" and forward.accept == ()
    assert by_prompt["400 Gb/s; 50 GB/s"].answer == "InfiniBand NDR per port"  # reversed
    assert by_prompt["HBM"].answer == "High Bandwidth Memory"
    assert "High Bandwidth Memory" not in by_prompt  # the optional reverse was not asked for
    first = by_prompt["The [...] has 80 GB & a {brace} [audio: gpu.mp3]"]
    assert first.answer == "H100"
    assert first.explanation == "The H100 has 80 GB & a {brace} [audio: gpu.mp3]\nFrom the post"
    assert by_prompt["The H100 has [GB] GB & a {brace} [audio: gpu.mp3]"].answer == "80"


def test_html_is_reduced_to_text() -> None:
    text, media = html_to_text("<div>One&nbsp;<b>two</b></div><div>three<script>x()</script>"
                               "</div><img src=a.png>[sound:b.mp3]")
    assert (text, media) == ("One two\nthree\n[image: a.png] [audio: b.mp3]", 0)
    assert html_to_text("H<sub>2</sub>O, mc<sup>2</sup>, x<sub>ij</sub>")[0] == \
        "H₂O, mc², x_(ij)"
    assert html_to_text("<table><tr><th>GPU</th><th>GB</th></tr>"
                        "<tr><td>H100</td><td>80</td></tr></table>")[0] == "GPU | GB\nH100 | 80"
    assert html_to_text("<ul><li>data</li><li>tensor</li></ul>")[0] == "- data\n- tensor"
    assert html_to_text('<img src="../../etc/passwd">')[0] == "[image: passwd]"


@pytest.mark.parametrize(("answer", "field", "variants"), [
    ("HBM3e", "Back", []),
    ("NVLink (NVLink 4)", "Back", []),  # an aside is not an alternative
    ("400 Gb/s; 50 GB/s", "Back", []),  # nor are two facts
    ("1,5", "Back", []),  # a decimal comma is not a list
    ("InfiniBand / IB", "Back", ["InfiniBand", "IB"]),  # one fabric, named twice
    ("High Bandwidth Memory / HBM", "Back", ["High Bandwidth Memory", "HBM"]),
    ("NVLink / NVSwitch", "Back", []),  # two things: the answer is both
    ("HBM3 / HBM3e", "Back", []),  # two memories, though one name begins the other
    ("data / tensor", "Back", []),
    ("FLOPS / bandwidth", "Definition", []),  # a division in a definition
    ("Ring, 2(N-1)/N", "Text", []),
    (r"\(x / y\)", "Back", []),  # LaTeX is recalled, not typed
])
def test_accepted_answers(answer: str, field: str, variants: list[str]) -> None:
    assert accepted_answers(answer, field) == variants


def test_packages_this_reader_cannot_use_are_refused_in_one_sentence(tmp_path: Path) -> None:
    not_zstd = tmp_path / "newer.apkg"
    with zipfile.ZipFile(not_zstd, "w") as archive:
        archive.writestr("collection.anki21b", b"zstd data")
    with pytest.raises(AnkiPackageError, match="not zstd-compressed as Anki writes it"):
        convert_package(not_zstd, language="en")
    junk = tmp_path / "junk.apkg"
    junk.write_bytes(b"not a zip")
    with pytest.raises(AnkiPackageError, match="not a zip"):
        convert_package(junk, language="en")
    broken = tmp_path / "broken.apkg"
    with zipfile.ZipFile(broken, "w") as archive:
        archive.writestr("collection.anki2", b"not sqlite")
    with pytest.raises(AnkiPackageError, match="cannot be read"):
        convert_package(broken, language="en")


def test_a_deck_exported_by_anki_itself_converts(tmp_path: Path) -> None:
    collection_module = pytest.importorskip("anki.collection")
    col = collection_module.Collection(str(tmp_path / "instructor.anki2"))
    try:
        reversed_type = col.models.by_name("Basic (and reversed card)")
        note = col.new_note(reversed_type)
        note["Front"], note["Back"] = "NVLink 4 per GPU?", "900 GB/s (both directions)"
        col.add_note(note, col.decks.id("Course::Interconnect"))
        cloze = col.new_note(col.models.by_name("Cloze"))
        cloze["Text"] = "InfiniBand {{c1::NDR}} runs at {{c2::400 Gb/s}} per port"
        col.add_note(cloze, col.decks.id("Course::Interconnect"))
        options = collection_module.ExportAnkiPackageOptions
        for legacy in (True, False):
            col.export_anki_package(
                out_path=str(tmp_path / f"legacy-{legacy}.apkg"), limit=None,
                options=options(legacy=legacy, with_scheduling=False, with_media=False,
                                with_deck_configs=False))
    finally:
        col.close()
    conversion = convert_package(tmp_path / "legacy-True.apkg", language="en")
    assert conversion.deck["deck"] == "course-interconnect" and conversion.cards == 4
    prompts = [card["prompt"] for card in conversion.deck["cards"]]
    assert "InfiniBand [...] runs at 400 Gb/s per port" in prompts
    with zipfile.ZipFile(tmp_path / "legacy-False.apkg") as archive:
        assert "collection.anki21b" in archive.namelist()  # Anki's current format
    current = convert_package(tmp_path / "legacy-False.apkg", language="en")
    assert current.decks == conversion.decks  # the same deck, card for card
