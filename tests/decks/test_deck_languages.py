"""A bilingual deck's prompt written in one language only: a warning at its line:col, and
in study the text it has, with a note saying so (never a silent switch of language)."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner
from deck_texts import write

from studyapp.cli import main
from studyapp.decks import load_deck
from studyapp.study.session import showing

DECK = """\
deck: bilingual
title: {es: "Memoria", en: "Memory"}
language: es
post: h100
cards:
  - id: hbm-type
    type: truefalse
    prompt: {es: "¿La H100 SXM usa HBM3?"}
    answer: true
  - id: both
    type: truefalse
    prompt: {es: "¿La H200 usa HBM3e?", en: "Does the H200 use HBM3e?"}
    answer: true
  - id: split
    type: scenario
    prompt: {es: "Un modelo de {params_b}B en BF16.", en: "A {params_b}B model in BF16."}
    params: {params_b: [8, 70]}
    parts:
      - {name: weights, prompt: {es: "¿Pesos, en GB?"}, answer: "params_b * 2", unit: GB}
      - {name: fp8, prompt: {en: "In FP8, in GB?", es: "¿En FP8, en GB?"},
         answer: "weights / 2", unit: GB}
      - {name: int4, prompt: {en: "In INT4, in GB?"}, answer: "fp8 / 2", unit: GB}
"""


def validate(path: Path, lang: str) -> list[str]:
    result = CliRunner().invoke(main, ["--lang", lang, "deck", "validate", str(path)])
    assert result.exit_code == 0, result.output
    return result.output.splitlines()


def test_each_prompt_missing_a_language_is_a_warning_at_its_line(tmp_path: Path) -> None:
    path = write(tmp_path, DECK)
    assert validate(path, "en") == [
        f"{path}:8:13: warning: card 'hbm-type': this prompt has no English text, though "
        "the deck is in Spanish and English; study in English shows the Spanish text, "
        "with a note",
        f"{path}:19:33: warning: card 'split': this prompt has no English text, though the "
        "deck is in Spanish and English; study in English shows the Spanish text, with a note",
        f"{path}:22:30: warning: card 'split': this prompt has no Spanish text, though the "
        "deck is in Spanish and English; study in Spanish shows the English text, with a note",
        "1 deck file(s) checked: no problems, 3 warning(s)",
    ]
    assert validate(path, "es")[0] == (
        f"{path}:8:13: aviso: tarjeta 'hbm-type': este enunciado no tiene texto en inglés, "
        "aunque el mazo está en español e inglés; al estudiar en inglés se muestra el texto "
        "en español, con una nota")


def test_a_deck_in_one_language_warns_of_nothing(tmp_path: Path) -> None:
    one = DECK.replace('title: {es: "Memoria", en: "Memory"}', "title: Memoria")
    assert validate(write(tmp_path, one), "en") == [
        "1 deck file(s) checked: no problems"]


def test_study_shows_the_text_it_has_with_a_note(tmp_path: Path) -> None:
    deck = load_deck(write(tmp_path, DECK))
    shown = showing(deck.card("hbm-type"), 1, "en")
    assert shown.prompt == "¿La H100 SXM usa HBM3?\n(shown in Spanish: no English text)"
    assert showing(deck.card("hbm-type"), 1, "es").prompt == "¿La H100 SXM usa HBM3?"
    assert showing(deck.card("both"), 1, "en").prompt == "Does the H200 use HBM3e?"
    steps = showing(deck.card("split"), 1, "es").parts
    assert steps[2].question.prompt == (
        "In INT4, in GB?\n(se muestra en inglés: no hay texto en español)")
    assert steps[1].question.prompt == "¿En FP8, en GB?"
    english = showing(deck.card("split"), 1, "en").parts
    assert english[0].question.prompt == "¿Pesos, en GB?\n(shown in Spanish: no English text)"


def test_a_plain_prompt_is_in_the_decks_language_by_choice(tmp_path: Path) -> None:
    """The deck format's example writes plain prompts under a title in both languages:
    neither a warning nor a note."""
    plain = DECK.replace('prompt: {es: "¿La H100 SXM usa HBM3?"}',
                         'prompt: "¿La H100 SXM usa HBM3?"')
    path = write(tmp_path, plain)
    assert not any("'hbm-type'" in line for line in validate(path, "en"))
    assert showing(load_deck(path).card("hbm-type"), 1, "en").prompt == "¿La H100 SXM usa HBM3?"


def test_a_deck_in_one_language_is_studied_without_a_note(tmp_path: Path) -> None:
    one = DECK.replace('title: {es: "Memoria", en: "Memory"}', "title: Memoria")
    card = load_deck(write(tmp_path, one)).card("hbm-type")
    assert showing(card, 1, "en").prompt == "¿La H100 SXM usa HBM3?"
