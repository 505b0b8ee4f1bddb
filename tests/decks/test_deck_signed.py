"""``signed: true``: a numeric card whose answer may be negative (a difference, a change)."""

from __future__ import annotations

from pathlib import Path

from deck_texts import HEADER, write

from studyapp.decks import check_deck_file
from studyapp.questions.grading import grade

DIFFERENCE = """\
  - id: diff
    type: numeric
    signed: true
    prompt: "b = {b}, a = {a}: b - a in GB?"
    params:
      a: {min: 1, max: 10}
      b: {min: 1, max: 10}
    answer: "b - a"
    unit: GB
    tolerance: 1%
"""


def test_a_signed_card_validates_and_grades_a_negative_answer(tmp_path: Path) -> None:
    deck, problems = check_deck_file(write(tmp_path, HEADER + DIFFERENCE))
    assert problems == [] and deck is not None
    card = deck.card("diff")
    assert card.signed
    negative = next(q for q in (card.instantiate(seed, "en") for seed in range(200))
                    if isinstance(q.answer, float) and q.answer < 0)
    assert grade(negative, f"{negative.answer:g} GB").correct
    flipped = grade(negative, f"{-negative.answer:g} GB")
    assert not flipped.correct  # the sign counts, and the learner is told it is the sign
    assert flipped.slips == ("sign",) and "wrong sign" in flipped.message


def test_without_signed_a_negative_answer_is_refused_with_the_fix(tmp_path: Path) -> None:
    text = HEADER + DIFFERENCE.replace("    signed: true\n", "")
    deck, problems = check_deck_file(write(tmp_path, text))
    assert deck is None
    assert [p.message for p in problems] == [
        "the answer is negative (-1); a card whose answer may be negative says `signed: true`"
        " (with a=2, b=1)"]


def test_a_signed_constant_answer_may_be_negative(tmp_path: Path) -> None:
    text = HEADER + "  - {id: c, type: numeric, signed: true, prompt: p, answer: -3.5}\n"
    deck, problems = check_deck_file(write(tmp_path, text))
    assert problems == [] and deck is not None
    assert grade(deck.card("c").instantiate(0, "en"), "-3.5").correct


MARGIN = HEADER + """\
  - id: margin
    type: scenario
    prompt: "{gpu.name}: {model_gb} GB of weights."
    params:
      model_gb: [100, 140, 180]
      gpu: {from: accelerators, where: {id: [h100-sxm, h200-sxm]}}
    parts:
      - name: free
        prompt: "Memory left after the weights, in GB (negative if they do not fit)?"
        answer: "gpu.memory_gb - model_gb"
        signed: true
        unit: GB
      - name: whole
        prompt: "Whole GB left?"
        answer: "floor(free)"
        signed: true
        tolerance: 0
      - name: fits
        prompt: "GB over the limit (0 if it fits)?"
        answer: "max(0, -whole)"
        tolerance: 0
"""


def test_a_scenario_step_may_be_signed(tmp_path: Path) -> None:
    deck, problems = check_deck_file(write(tmp_path, MARGIN))
    assert problems == [] and deck is not None
    answers = {q.parts[0].question.answer
               for q in (deck.card("margin").instantiate(seed, "en") for seed in range(60))}
    assert min(answers) < 0 < max(answers)
    unsigned = MARGIN.replace("        signed: true\n        unit: GB\n", "        unit: GB\n")
    deck, problems = check_deck_file(write(tmp_path, unsigned))
    assert deck is None and "the answer is negative" in problems[0].message
