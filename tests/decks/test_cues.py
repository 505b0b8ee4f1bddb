"""No cue in a question: choices that cannot be guessed, no card that answers another.

Measured over every built-in deck (posts and examples) and every generator
family that asks a choice, in both languages:

- where the right option sits by length, figures and grammatical number is
  measured against chance in ``test_option_cues.py``;
- no qualifier (a parenthesis, a unit, words such as "both directions" or
  "de altura") is said only by the right option;
- no card's prompt or explanation holds another card's expected answer in
  the same deck unless the two share a fact (siblings are never asked on
  the same day).

``deck validate`` warns an instructor about the same cues, at path:line:col.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from pathlib import Path

import pytest
from module_caches import let_go_at_module_end

from studyapp import locations
from studyapp.decks import load_deck
from studyapp.decks.cues import (
    LONGEST_MARGIN,
    choice_texts,
    give_aways,
    gives_away,
    lone_qualifier,
    longest_rate,
)
from studyapp.decks.deck_model import Deck
from studyapp.decks.deck_report import validation_report
from studyapp.questions.generators import registered_families
from studyapp.questions.model import Kind

LANGS = ("en", "es")
SEEDS = range(60)


def deck_paths() -> list[Path]:
    return sorted(locations.builtin_decks_dir().rglob("*.yaml"))


@functools.cache
def builtin_decks() -> tuple[tuple[Path, Deck], ...]:
    """Every built-in deck, loaded once for the module (the tests only read them)."""
    return tuple((path, load_deck(path)) for path in deck_paths())


def authored_choices(lang: str) -> Iterator[tuple[str, list[str], int]]:
    for path, deck in builtin_decks():
        for card in deck.cards:
            texts = choice_texts(card, lang)
            if texts is not None:
                yield f"{path.name}:{card.id}", *texts


def generated_choices(lang: str) -> Iterator[tuple[str, list[str], int]]:
    """Every choice family, with its default options and with each deck card's options."""
    option_sets: dict[str, list[dict[str, object]]] = {}
    for _, deck in builtin_decks():
        for card in deck.cards:
            if card.generator:
                option_sets.setdefault(card.generator, [{}]).append(dict(card.options))
    for name, family in registered_families().items():
        if family.kind is not Kind.CHOICE:
            continue
        for options in option_sets.get(name, [{}]):
            for seed in SEEDS:
                question = family.generate(seed, lang, options)
                choices = list(question.choices)
                yield f"{name}#{seed}", choices, choices.index(str(question.answer))


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("source", [authored_choices, generated_choices])
def test_no_qualifier_is_said_only_by_the_right_option(source, lang) -> None:
    found = sorted({(where.split("#")[0], q) for where, options, right in source(lang)
                    if (q := lone_qualifier(options, right)) is not None})
    assert not found, found


def test_the_statistic_fails_above_the_bound() -> None:
    # the right option always the longest: 100% against a chance of 25%
    cue = [(["16 GB", "24 GB", "36 GB", "48 GB (12-high)"], 3)] * 20
    assert longest_rate(cue).too_high
    # at chance plus 10 points exactly, not yet
    mixed = cue[:7] + [(["16 GB (8-high)", "24 GB", "36 GB", "48 GB"], 3)] * 13
    rate = longest_rate(mixed)
    assert rate.share == pytest.approx(0.35) and not rate.too_high
    assert rate.chance + LONGEST_MARGIN == pytest.approx(0.35)


def test_qualifiers_only_in_the_right_option_are_named() -> None:
    assert lone_qualifier(["NVLink 5, 1.8 TB/s per GPU", "NVLink 4, 900 GB/s per GPU (both "
                           "directions)", "NVLink 3, 600 GB/s per GPU"], 1) == "(both directions)"
    assert lone_qualifier(["24 GB (8 chips de altura)", "16 GB (8 de altura)",
                           "36 GB (8 de altura)"], 0) == "chips"
    assert lone_qualifier(["HBM3e", "HBM3", "GDDR7"], 0) is None


def test_no_card_gives_another_cards_answer_away() -> None:
    found = [f"{path.name}: {g.giver.id} ({g.field}, {g.lang}) gives {g.taker.id} "
             f"({g.answer!r})" for path, deck in builtin_decks() for g in give_aways(deck)]
    assert not found, found


def test_a_short_range_or_figure_counts_as_given_away() -> None:
    """The full-state checkpoint card's answer is "≈ 12–14" bytes per parameter: a later
    card saying "the checkpoint (12–14 bytes per parameter)" gives it away, short as it is;
    a short word or number ("HBM", "8") alone does not count."""
    assert gives_away("That is why the checkpoint (12–14 bytes per parameter) is smaller",
                      "≈ 12–14")
    assert gives_away("entre 12,5-14 bytes", "12,5-14")
    assert not gives_away("from 112–140 GB", "12–14")  # inside a longer range
    assert not gives_away("HBM carries 8 stacks", "HBM")
    assert not gives_away("HBM carries 8 stacks", "8")
    # a short answer with a figure names one chip's fact: the H200's HBM3e, the H100's 80 GB
    assert gives_away("one NVIDIA H200 SXM (141 GB of HBM3e; 90% usable)", "HBM3e")
    assert gives_away("Which memory type does the 80 GB H100 SXM use?", "80 GB")
    assert not gives_away("the B200 runs FP4", "FP4")


CUED = """deck: cued
title: Cued
language: en
post: h200
cards:
  - id: nvlink
    type: choice
    prompt: "Which link does the H200 have?"
    choices: ["NVLink 5, 1.8 TB/s", "NVLink 4, 900 GB/s (both directions)", "NVLink 3, 600 GB/s"]
    answer: 1
  - id: capacity
    type: numeric
    prompt: "How much HBM does the H200 SXM have?"
    answer: 141
    unit: GB
  - id: stacks
    type: truefalse
    prompt: "The H200 carries six HBM3e stacks."
    answer: true
    explanation: "Six stacks of 24 GB, 141 GB usable."
"""


def test_deck_validate_warns_an_instructor_at_the_card(tmp_path: Path) -> None:
    path = tmp_path / "cued.yaml"
    path.write_text(CUED, encoding="utf-8")
    lines, code = validation_report([path], "en")
    assert code == 0  # warnings do not fail the deck
    assert any(line.startswith(f"{path}:6:5: warning: only the right choice says "
                               '"(both directions)"') for line in lines), lines
    assert any(line.startswith(f"{path}:16:5: warning: this card's explanation (en) gives "
                               "away the answer of card 'capacity'") for line in lines), lines
    assert lines[-1].endswith("no problems, 2 warning(s)")
    spanish, _ = validation_report([path], "es")
    assert any(": aviso: solo la opción correcta dice" in line for line in spanish), spanish
    # siblings may give each other away: they are never asked on the same day
    path.write_text(CUED.replace("unit: GB", "unit: GB\n    fact: h200-memory").replace(
        "answer: true", "answer: true\n    fact: h200-memory"), encoding="utf-8")
    lines, _ = validation_report([path], "en")
    assert not any("gives away" in line for line in lines), lines


_forget_decks = let_go_at_module_end(builtin_decks)
