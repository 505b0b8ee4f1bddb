"""Where the right option sits is chance: not by length, figures or grammatical number.

Over every authored choice card (decks/posts and decks/examples) and every
generated choice question (each choice family at pinned seeds, with its
default options and each deck card's options), in English and in Spanish,
the number of cards whose right option is the longest, the second-longest,
the shortest, the only one with a figure, or the only plural (or singular)
must fall inside the central 99% of what chance gives.

Chance, per card: if the right option were a uniform pick among the card's k
options, the card shows a mark with probability p = (options showing it) / k
(1/k for a unique longest, 0 for a tie at the top). The count over n cards is
then Poisson-binomial; the bounds are its exact 0.5% and 99.5% quantiles
(``studyapp.decks.option_cues.central_bounds``). For n cards of k options with
no ties that is the binomial(n, 1/k) interval: for 125 four-option cards,
[19, 44] around an expected 31.

Generated questions are pinned by their own seeds (``SEEDS``), and the same
question drawn twice (a family with few items) counts once, so the sample
does not depend on the order of the catalog or of the families.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator
from pathlib import Path

import pytest
from module_caches import let_go_at_module_end

from studyapp import locations
from studyapp.decks import load_deck
from studyapp.decks.cues import choice_texts
from studyapp.decks.deck_model import Deck
from studyapp.decks.option_cues import (
    MARKS,
    central_bounds,
    grammatical_number,
    lone_grammatical_number,
    mark_rate,
    only_with_number,
    second_longest,
)
from studyapp.questions.generators import registered_families
from studyapp.questions.model import Kind

LANGS = ("en", "es")
SEEDS = tuple(range(60))
"""The draws of each choice family that are measured, pinned by seed."""
LONG = 20
"""Options all this long or longer: where length shows most."""

Card = tuple[str, list[str], int]


def deck_paths() -> list[Path]:
    return sorted(locations.builtin_decks_dir().rglob("*.yaml"))


@functools.cache
def builtin_decks() -> tuple[tuple[Path, Deck], ...]:
    """Every built-in deck, loaded once for the module (the tests only read them)."""
    return tuple((path, load_deck(path)) for path in deck_paths())


@functools.cache
def authored(lang: str) -> list[Card]:
    found: list[Card] = []
    for path, deck in builtin_decks():
        for card in deck.cards:
            texts = choice_texts(card, lang)
            if texts is not None:
                found.append((f"{path.name}:{card.id}", *texts))
    return found


def _generated(lang: str) -> Iterator[Card]:
    option_sets: dict[str, list[dict[str, object]]] = {}
    for _, deck in builtin_decks():
        for card in deck.cards:
            if card.generator:
                option_sets.setdefault(card.generator, [{}]).append(dict(card.options))
    for name, family in sorted(registered_families().items()):
        if family.kind is not Kind.CHOICE:
            continue
        for options in option_sets.get(name, [{}]):
            for seed in SEEDS:
                question = family.generate(seed, lang, options)
                choices = list(question.choices)
                yield f"{name}#{seed}", choices, choices.index(str(question.answer))


@functools.cache
def generated(lang: str) -> list[Card]:
    """Each distinct question once (prompt aside: the options and the right one)."""
    first: dict[tuple[tuple[str, ...], int], str] = {}
    for where, choices, right in _generated(lang):
        first.setdefault((tuple(choices), right), where)
    return [(where, list(choices), right) for (choices, right), where in sorted(first.items())]


SOURCES = {"authored": authored, "generated": generated}


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("source", sorted(SOURCES))
@pytest.mark.parametrize("mark", sorted(MARKS))
def test_where_the_right_option_sits_is_chance(mark: str, source: str, lang: str) -> None:
    cards = SOURCES[source](lang)
    assert len(cards) > 100
    rate = mark_rate(mark, [(options, right) for _, options, right in cards], lang)
    shown = [where for where, options, right in cards if MARKS[mark](options, right, lang)]
    assert not rate.outside, (str(rate), shown)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("mark", ["longest", "second_longest", "shortest"])
def test_among_long_authored_options_length_is_chance(mark: str, lang: str) -> None:
    """Where the writer wrote every option as a phrase, length shows most. (Generated
    families with fixed labels are measured with the rest, above.)"""
    cards = [(options, right) for _, options, right in authored(lang)
             if all(len(o) >= LONG for o in options)]
    assert len(cards) > 30
    rate = mark_rate(mark, cards, lang)
    assert not rate.outside, str(rate)


def _binomial_bounds(n: int, p: float) -> tuple[int, int]:
    """The central 99% of binomial(n, p), from the formula (an independent check)."""
    pmf = [math.comb(n, c) * p**c * (1 - p) ** (n - c) for c in range(n + 1)]
    low = next(c for c in range(n + 1) if sum(pmf[: c + 1]) > 0.005)
    high = next(c for c in range(n, -1, -1) if sum(pmf[c:]) > 0.005)
    return low, high


def test_the_bounds_are_the_binomial_interval_when_no_option_ties() -> None:
    assert central_bounds([0.25] * 125) == _binomial_bounds(125, 0.25) == (19, 44)
    assert central_bounds([1 / 3] * 40) == _binomial_bounds(40, 1 / 3)
    # a card that shows the mark whatever the pick adds one to both bounds
    low, high = central_bounds([0.25] * 125 + [1.0])
    assert (low, high) == (20, 45)


def test_a_writer_who_avoids_the_longest_is_caught() -> None:
    """The right option second-longest on every card: 100% against a chance of 25%."""
    cued = [(["16 GB of HBM3", "24 GB of HBM3e (8-high)", "36 GB of HBM3e", "8 GB"], 2)] * 40
    rate = mark_rate("second_longest", cued, "en")
    assert rate.outside and rate.count == 40 and rate.high < 20
    # never second-longest is a cue as well: the reader strikes that option out
    never = [(["16 GB of HBM3", "24 GB of HBM3e (8-high)", "36 GB of HBM3e", "8 GB"], 0)] * 40
    assert mark_rate("second_longest", never, "en").outside
    assert second_longest(cued[0][0], 2, "en") and not second_longest(cued[0][0], 1, "en")


def test_a_lone_figure_and_a_lone_plural_are_marks() -> None:
    assert only_with_number(["Liquid", "Air", "Oil", "2 fans"], 3, "en")
    assert not only_with_number(["1 fan", "Air", "Oil", "2 fans"], 3, "en")
    plural = ["Liquid cooling", "Air cooling", "Oil immersion", "Two fans"]
    assert lone_grammatical_number(plural, 3, "en")
    assert not lone_grammatical_number(plural, 0, "en")


@pytest.mark.parametrize(("text", "lang", "number"), [
    ("24 ports of 200 GbE", "en", "plural"),
    ("1 Grace CPU and 2 Blackwell GPUs", "en", "singular"),
    ("Liquid cooling", "en", "singular"),
    ("The keys and the values", "en", "plural"),
    ("Data and pipeline parallelism", "en", "singular"),
    ("Los pesos una vez por cada secuencia del lote", "es", "plural"),
    ("La media de lectura y escritura, 9,8 GB/s", "es", "singular"),
    ("Refrigeración líquida", "es", "singular"),
    ("Datos de entrenamiento en cada paso", "es", "plural"),
    ("Más TFLOPS", "es", None),
    ("3,35 TB/s", "es", None),
])
def test_grammatical_number_reads_the_first_noun(text: str, lang: str,
                                                 number: str | None) -> None:
    assert grammatical_number(text, lang) == number


_forget_decks = let_go_at_module_end(builtin_decks, authored, generated)
