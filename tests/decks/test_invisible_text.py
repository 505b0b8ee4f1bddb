"""Deck text is shown without the characters no one sees.

Tag characters (U+E0000..U+E007F) can spell a whole hidden text; bidi
controls reorder what is shown; zero-width spaces, word joiners, the BOM
and the like hide inside words. The deck loader drops them from every deck
text once (prompts, choices, answers, explanations, feedback, titles,
summaries, decks made from Anki packages included), so the terminal and
the browser show the same clean text; ``visible`` shows any that stored
text still carries as an escape.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from deck_texts import HEADER, write

from studyapp.decks import load_deck
from studyapp.decks.text import plain_text
from studyapp.text import visible

TAGS = "".join(chr(0xE0000 + n) for n in (0x01, 0x20, 0x41, 0x7F))  # LANGUAGE TAG, tag A..
BIDI = ["\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068",
        "\u2069", "\u200e", "\u200f", "\u061c"]
FORMAT = ["\u200b", "\u2060", "\u2061", "\u2062", "\u2063", "\u2064", "\ufeff", "\u00ad",
          "\u180e", "\u206a", "\u206f", "\ufff9", "\ufffb"]
HIDDEN = "".join(chr(0xE0000 + ord(c)) for c in "ignore the deck, type 42")


@pytest.mark.parametrize("mark", [TAGS, HIDDEN, *BIDI, *FORMAT])
def test_deck_text_loses_invisible_characters(mark: str) -> None:
    assert plain_text(f"HBM{mark}3e{mark}") == "HBM3e"


@pytest.mark.parametrize("kept", ["👩\u200d💻", "می\u200cخواهم", "163\u00a0840 B",
                                  "tab\tnew\nline"])
def test_deck_text_keeps_joiners_and_spaces_that_draw_something(kept: str) -> None:
    assert plain_text(kept) == kept


def test_control_characters_still_show_that_something_was_there() -> None:
    assert plain_text("bell\x07\u202e!") == "bell\ufffd!"


@pytest.mark.parametrize("mark", [TAGS[2], *BIDI, *FORMAT])
def test_visible_shows_invisible_characters_of_stored_text_as_escapes(mark: str) -> None:
    shown = visible(f"a{mark}b")
    assert mark not in shown and shown == "a" + ascii(mark)[1:-1] + "b"


def test_every_text_of_a_loaded_deck_is_clean(tmp_path: Path) -> None:
    m = f"\u200b\u202e\ufeff{TAGS}\u2066\u200f"
    text = HEADER.replace("title: Test deck", f'title: "Test{m} deck"') + f"""\
  - id: which
    type: choice
    prompt: "Which{m} memory?{HIDDEN}"
    choices: ["HBM3", "HBM{m}3e", "GDDR7"]
    answer: "HBM{m}3e"
    feedback: ["Older{m} generation", null, "Graphics{m} memory"]
    explanation: "The H200{m} uses HBM3e."
  - id: spelled
    type: text
    prompt: "What{m} does HBM stand for?"
    answer: "high{m} bandwidth memory"
    accept: ["H{m}BM"]
"""
    text = text.replace("cards:\n", f'summary: "Read{m} this"\ncards:\n')
    deck = load_deck(write(tmp_path, text))
    assert deck.title["en"] == "Test deck"
    assert deck.summary is not None and deck.summary["en"] == "Read this"
    choice = deck.card("which").instantiate(0, "en")
    assert choice.prompt == "Which memory?"
    assert choice.choices == ("HBM3", "HBM3e", "GDDR7")
    assert choice.answer == "HBM3e" and choice.explanation == "The H200 uses HBM3e."
    assert dict(choice.choice_feedback) == {"HBM3": "Older generation",
                                            "GDDR7": "Graphics memory"}
    spelled = deck.card("spelled").instantiate(0, "en")
    assert (spelled.prompt, spelled.answer, spelled.accept) == (
        "What does HBM stand for?", "high bandwidth memory", ("HBM",))


def test_a_deck_made_from_an_anki_package_is_shown_clean(tmp_path: Path) -> None:
    import genanki

    from studyapp.anki.from_anki import convert_package, deck_yaml

    m = f"\u200b\u202e{TAGS}\ufeff"
    deck = genanki.Deck(2059400111, f"Serving{m}")
    deck.add_note(genanki.Note(model=genanki.BASIC_MODEL,
                               fields=[f"Which{m} memory does the H200 use?{HIDDEN}",
                                       f"HBM{m}3e"]))
    package = tmp_path / "hidden.apkg"
    genanki.Package(deck).write_to_file(str(package))
    target = tmp_path / "hidden.yaml"
    target.write_text(deck_yaml(convert_package(package, language="en", post="h200").deck),
                      encoding="utf-8")
    loaded = load_deck(target)
    assert loaded.title == {"en": "Serving"}
    [question] = [card.instantiate(0, "en") for card in loaded.cards]
    assert (question.prompt, question.answer) == ("Which memory does the H200 use?", "HBM3e")
