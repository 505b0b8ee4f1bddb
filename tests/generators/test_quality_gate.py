"""Quality gate: every family and every post deck's generated card, a few hundred draws each.

The measures are those of ``studyapp generate --audit``: a post deck's cards
name the post's own hardware; yes/no answers are balanced and decided by a
quantity within 0.5-2x of its threshold; 40 draws give at least 10 distinct
questions; the prompt states every figure the answer depends on, the answer
re-computed from those figures alone agrees, the value shown as expected
appears in the worked solution, and no numeric answer is a number the prompt
already writes.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from studyapp.decks.generated import deck_targets
from studyapp.questions.generators import registered_families
from studyapp.questions.generators.audit import (
    DRAWS,
    RECOMPUTE,
    Target,
    chips_named,
    family_targets,
    measure,
    on_topic,
)
from studyapp.questions.model import Kind

DECKS = Path(__file__).resolve().parents[2] / "decks"
POST_DECKS = sorted((DECKS / "posts").glob("*.yaml"))
DECK_CARDS = deck_targets(POST_DECKS + sorted((DECKS / "examples").glob("*.yaml")))


@pytest.mark.parametrize("target", family_targets(), ids=lambda t: t.label)
def test_family_passes_the_gate(target: Target) -> None:
    row = measure(target.label, target.family, target.options, None, DRAWS)
    assert row.ok, row.problems


@pytest.mark.parametrize("target", family_targets(), ids=lambda t: t.label)
def test_family_passes_the_gate_in_spanish(target: Target) -> None:
    row = measure(target.label, target.family, target.options, None, 80, lang="es")
    assert row.ok, row.problems


@pytest.mark.parametrize("target", DECK_CARDS, ids=lambda t: t.label)
def test_post_deck_card_passes_the_gate(target: Target) -> None:
    row = measure(target.label, target.family, target.options, target.post, DRAWS)
    assert row.ok, row.problems


def test_every_post_deck_has_generated_cards_under_the_gate() -> None:
    assert len(POST_DECKS) == 12
    assert {t.post for t in DECK_CARDS} >= {"h100", "h200", "blackwell", "mi350", "tpu",
                                            "trainium", "gaudi", "hgx"}


def test_every_numeric_and_yes_no_family_is_recomputed() -> None:
    for name, family in registered_families().items():
        if family.kind in (Kind.NUMERIC, Kind.TRUEFALSE):
            assert name in RECOMPUTE or family.recompute is not None, name


def test_the_gate_catches_an_off_topic_card() -> None:
    """The open pool the H200 deck used to have fails the gate; its own chip passes."""
    fits = registered_families()["fits-on-gpu"]
    open_pool = measure("open", fits, {}, "h200", 100)
    assert any("on-topic" in p for p in open_pool.problems)
    own = measure("own", fits, {"gpus": ["h200-sxm"]}, "h200", 100)
    assert not any("on-topic" in p for p in own.problems)


def test_the_gate_catches_a_missing_figure() -> None:
    """A prompt that drops a figure its answer needs is caught."""
    from dataclasses import replace

    weights = registered_families()["weights-size"]

    def no_bytes(seed: int, lang: str, options: object) -> object:
        q = weights.generate(seed, lang, {})
        return replace(q, prompt=q.prompt.split(",")[0] + ". How many GB?")

    row = measure("cut", replace(weights, generate=no_bytes), {}, None, 50)  # type: ignore[arg-type]
    assert any("figures stated" in p for p in row.problems)


def test_chip_names_are_recognised() -> None:
    assert chips_named("NVIDIA H200 SXM against the H100 SXM") == {"h200-sxm", "h100-sxm"}
    assert chips_named("2 × NVIDIA GB200 NVL72") == {"gb200"}
    assert chips_named("The AWS trn2.48xlarge") == {"trainium2"}
    assert on_topic("Does Llama 3.1 8B fit?", "h200")
    assert not on_topic("Does it fit on one NVIDIA B200?", "h200")
    assert on_topic("The NVIDIA H200 SXM against other chips: ... B200", "h200")
