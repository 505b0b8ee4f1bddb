"""The questions a class misses most the first time, and the wrong answers given.

A card goes on the reteach list when fewer than half of the students got it
right the first time; its most common wrong answers and named slips are
listed with it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from studyapp.progress import round_or_none
from studyapp.store.classroom import QuestionRow

if TYPE_CHECKING:
    from studyapp.decks import Deck


RETEACH_BELOW = 0.5
"""A card goes on the reteach list when fewer than half of the students got it right the
first time."""

TOP_ANSWERS = 3
"""The most common wrong answers (and named slips) listed per card."""


@dataclass(frozen=True)
class ItemReport:
    """One card across the class: first-try accuracy, common wrong answers, named slips."""

    deck_id: str
    card_key: str
    post: str
    prompt: str
    students: int
    first_try_accuracy: float
    reviews: int
    correct: int
    wrong: int
    answers: tuple[tuple[str, int], ...]
    """The most common wrong answers with how many times each was given."""
    slips: tuple[tuple[str, int], ...]
    """Named slips (the card's or the generator's) with how many wrong answers showed each."""

    @property
    def accuracy(self) -> float | None:
        return self.correct / self.reviews if self.reviews else None

    def share(self, count: int) -> float:
        """``count`` as a share of this card's wrong answers."""
        return count / self.wrong if self.wrong else 0.0

    def as_json(self) -> dict[str, Any]:
        return {
            "deck": self.deck_id, "card": self.card_key, "post": self.post,
            "prompt": self.prompt, "students": self.students,
            "first_try_accuracy": round(self.first_try_accuracy, 4), "reviews": self.reviews,
            "accuracy": round_or_none(self.accuracy), "wrong": self.wrong,
            "wrong_answers": [{"answer": a, "count": n, "share": round(self.share(n), 4)}
                              for a, n in self.answers],
            "slips": [{"slip": name, "count": n, "share": round(self.share(n), 4)}
                      for name, n in self.slips],
        }


def _items(questions: Sequence[QuestionRow], wrong: Mapping[tuple[str, str], Sequence[Any]],
           decks: Sequence[Deck]) -> tuple[ItemReport, ...]:
    """Per card: the question sums, its prompt, its common wrong answers and named slips."""
    from collections import Counter

    specs = {(deck.id, spec.id): spec for deck in decks for spec in deck.cards}
    items = []
    for q in questions:
        spec = specs.get((q.deck_id, q.card_key))
        answers: Counter[str] = Counter()
        slips: Counter[str] = Counter()
        given = wrong.get((q.deck_id, q.card_key), ())
        for answer in given:
            wrong_steps = [step for step in answer.steps if not step.get("correct")]
            if answer.steps:  # a scenario: each wrong step is an answer of its own
                for step in wrong_steps:
                    name = str(step.get("name") or "?")
                    typed = " ".join(str(step.get("given") or step.get("response") or "").split())
                    answers[f"{name}: {typed}"] += answer.count
                    for slip in list(step.get("slips") or ())[:1]:
                        slips[f"{name}: {slip}"] += answer.count
                continue
            answers[_answer_label(spec, answer)] += answer.count
            for name in _slips_of(spec, answer):
                slips[name] += answer.count
        items.append(ItemReport(
            q.deck_id, q.card_key, q.post, _prompt_text(spec), q.students,
            q.first_try_accuracy, q.reviews, q.correct,
            max(q.reviews - q.correct, sum(a.count for a in given)),
            _most_common(answers), _most_common(slips)))
    return tuple(items)


def _answer_label(spec: Any, answer: Any) -> str:
    """How a wrong answer is counted: a choice by its text, a number of an authored card by
    its value in the card's unit (so "163.84" and "163.84 KB" are one answer), else as typed."""
    picked = answer.picked or _picked_choice(spec, answer)
    if picked:
        return " ".join(picked.split())
    typed = " ".join(answer.response.split())
    if spec is not None and spec.type == "numeric":
        from studyapp.numbers import format_number
        from studyapp.questions.grading import value_in_unit

        unit = spec.unit or None
        value = value_in_unit(unit, typed, answer.lang or spec.language)
        if value is not None and math.isfinite(value):
            shown = format_number(value, "en", sig=6, grouping=False)
            return f"{shown} {unit}" if unit else shown
    return typed


def _most_common(counts: Mapping[str, int]) -> tuple[tuple[str, int], ...]:
    """The ``TOP_ANSWERS`` most frequent, ties in alphabetical order (the same report from
    the same answers, whatever order they were stored in)."""
    return tuple(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:TOP_ANSWERS])


def _prompt_text(spec: Any) -> str:
    """A card's prompt as written (its template, before any values are drawn)."""
    if spec is None:
        return ""
    if spec.type == "generated":  # its numbers change at every draw: what it asks
        from studyapp.questions.generators import registered_families

        family = registered_families().get(spec.generator or "")
        described = (family.description.get(spec.language) or family.description.get("en")
                     if family is not None else None)
        return f"{described} ({spec.generator})" if described else f"{spec.generator}"
    return " ".join(spec.text(spec.prompt, spec.language).split())


def _picked_choice(spec: Any, answer: Any) -> str | None:
    """An older wrong choice answer's choice text, by grading it again as it was shown (the
    typed number means another choice at every shuffle)."""
    if spec is None or spec.type != "choice" or answer.seed is None:
        return None
    from studyapp.questions.grading import grade
    from studyapp.study.session import showing

    try:
        given = grade(showing(spec, answer.seed, answer.lang or spec.language),
                      answer.response).given
    except Exception:  # a card changed since the answer: the typed text is kept
        return None
    letter, sep, text = given.partition(") ")
    return text if sep and len(letter) == 1 else None


def _slips_of(spec: Any, answer: Any) -> tuple[str, ...]:
    """The named slips of a stored wrong answer: as the study loop recorded them, or for an
    answer recorded without them, by grading it again as it was shown."""
    if answer.slip:
        return (answer.slip,)
    if answer.noted or spec is None or answer.seed is None:
        return ()
    from studyapp.questions.grading import grade
    from studyapp.study.session import showing

    try:
        question = showing(spec, answer.seed, answer.lang or spec.language)
        return grade(question, answer.response).slips[:1]
    except Exception:  # a card changed since the answer: its slips are not named
        return ()
