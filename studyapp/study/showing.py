"""A card's showing: drawn with its seed, its choices shuffled, and what its answer logs.

``deck preview --seed`` and the class report draw a past showing again through
``showing``; the params stored with an answer (``_logged_params``) say what was shown.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from studyapp.questions.grading import Verdict
from studyapp.questions.model import Kind, Question
from studyapp.questions.scenario import PartVerdict
from studyapp.study.scope import scoped
from studyapp.study.views import ANSWER_SLIPS, PICKED_CHOICE, SHOWN_CHOICES

if TYPE_CHECKING:
    from studyapp.decks import CardSpec


def asked(question: Question) -> tuple[str, frozenset[str]]:
    """What makes two showings the same question: the prompt and the set of choices."""
    return question.prompt, frozenset(question.choices)


def showing(card: CardSpec, seed: int, lang: str) -> Question:
    """The question shown for ``card`` with draw seed ``seed``: its parameters and choice order.

    ``seed`` is stored with the answer, so ``deck preview --seed`` shows a past
    showing again through this same function.
    """
    card = scoped(card) or card  # drawn only from values its post has taught
    return shuffle_choices(card.instantiate(seed, lang), seed)


def shuffle_choices(question: Question, seed: int | None) -> Question:
    """The choices in a fresh order for this showing, so the position is never the memory.

    The answer is kept by its text, so grading is unchanged; the order shown
    is stored with the answer (``SHOWN_CHOICES``) and replayed from there.
    """
    if question.kind is not Kind.CHOICE or len(question.choices) < 2:
        return question
    choices = list(question.choices)
    random.Random(f"choices/{seed}").shuffle(choices)
    return replace(question, choices=tuple(choices))


def _logged_params(question: Question) -> Any:
    """Params as stored with an answer, plus the choices in the order shown."""
    params = _jsonable(question.params)
    if question.kind is Kind.CHOICE:
        params = {**params, SHOWN_CHOICES: list(question.choices)}
    return params


def _wrong_answer_notes(question: Question, verdict: Verdict) -> dict[str, Any]:
    """What a wrong answer showed, kept with it for the class report's item analysis:
    its named slips and, for a choice card, the text of the choice picked."""
    if verdict.correct:
        return {}
    notes: dict[str, Any] = {ANSWER_SLIPS: list(verdict.slips)}  # none is a note too
    if question.kind is Kind.CHOICE:
        letter, sep, text = verdict.given.partition(") ")
        if sep and len(letter) == 1 and text in question.choices:
            notes[PICKED_CHOICE] = text
    return notes


def avoided_traps(question: Question, verdict: Verdict,
                  steps: Sequence[PartVerdict] = ()) -> list[str]:
    """The slips a right answer could have shown and did not (a scenario: those of its steps
    answered right, not those right only from a carried-forward answer)."""
    if steps:
        keys = [slip.key for step in steps if step.correct and not step.carried
                for slip in question.parts[step.index].question.slips]
    else:
        keys = [slip.key for slip in question.slips] if verdict.correct else []
    return list(dict.fromkeys(keys))


def _jsonable(value: Any) -> Any:
    """Params as plain JSON (catalog entries by id, numbers as numbers)."""
    if isinstance(value, dict) or hasattr(value, "items"):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    entry_id = getattr(value, "id", None)
    return str(entry_id) if entry_id is not None else str(value)
