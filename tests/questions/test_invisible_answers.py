"""Answers are read through one cleaning: what a paste leaves unseen is not the learner's.

A zero-width space, non-joiner, joiner, word joiner or BOM in an answer (a
copy from a web page, a file written by Notepad, an input method) is
ignored by every grading path: numbers, choices, true/false, short texts,
scenario steps and the value a later step carries forward.
"""

from __future__ import annotations

import pytest

from studyapp.questions.grading import grade, numeric_value, value_in_unit
from studyapp.questions.model import Kind, Question
from studyapp.text import ZERO_WIDTH, typed_answer

INVISIBLE_IN_ANSWERS = ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff"]


def question(kind: Kind, answer: object, **more: object) -> Question:
    return Question(kind=kind, post="h200", prompt="?", explanation="", answer=answer,
                    lang="en", **more)  # type: ignore[arg-type]


def test_the_set_is_the_one_the_answers_lose() -> None:
    assert set(ZERO_WIDTH) == set(INVISIBLE_IN_ANSWERS)
    assert typed_answer(" \ufeff1\u200b4\u200c0\u200d \u2060GB\n") == "140 GB"


@pytest.mark.parametrize("mark", INVISIBLE_IN_ANSWERS)
@pytest.mark.parametrize(("kind", "answer", "more", "response"), [
    (Kind.NUMERIC, 140.0, {"unit": "GB"}, "{m}140{m} GB{m}"),
    (Kind.NUMERIC, 140.0, {"unit": "GB"}, "14{m}0"),
    (Kind.CHOICE, "HBM3e", {"choices": ("HBM3", "HBM3e", "GDDR7")}, "{m}2"),
    (Kind.CHOICE, "HBM3e", {"choices": ("HBM3", "HBM3e", "GDDR7")}, "b{m}"),
    (Kind.CHOICE, "HBM3e", {"choices": ("HBM3", "HBM3e", "GDDR7")}, "HBM{m}3e"),
    (Kind.TRUEFALSE, True, {}, "{m}yes"),
    (Kind.TRUEFALSE, False, {}, "n{m}"),
    (Kind.TEXT, "tensor parallelism", {}, "{m}tensor{m} parallelism"),
    (Kind.TEXT, "HBM{m}3e", {}, "HBM3e"),  # the accepted answer is read the same way
])
def test_zero_width_characters_and_a_bom_are_ignored_in_answers(
        mark: str, kind: Kind, answer: object, more: dict[str, object], response: str) -> None:
    if isinstance(answer, str):
        answer = answer.replace("{m}", mark)
    verdict = grade(question(kind, answer, **more), response.replace("{m}", mark))
    assert verdict.correct is True, verdict
    assert mark not in verdict.given


@pytest.mark.parametrize("mark", INVISIBLE_IN_ANSWERS)
def test_a_wrong_answer_stays_wrong_and_an_invisible_one_is_empty(mark: str) -> None:
    q = question(Kind.NUMERIC, 140.0, unit="GB")
    assert grade(q, f"{mark}150 GB").correct is False
    empty = grade(q, f" {mark}{mark} ")
    assert empty.correct is None and empty.retry  # nothing typed: asked again


@pytest.mark.parametrize("mark", INVISIBLE_IN_ANSWERS)
def test_a_number_a_later_step_carries_is_read_the_same(mark: str) -> None:
    q = question(Kind.NUMERIC, 140.0, unit="GB")
    assert numeric_value(q, f"{mark}140{mark}") == pytest.approx(140)
    assert value_in_unit("KB", f"163.84{mark}", "en") == pytest.approx(163.84)


def test_a_recall_answer_keeps_what_was_typed_without_the_marks() -> None:
    verdict = grade(question(Kind.RECALL, "data, tensor, pipeline"), "\ufeffdata\u200b")
    assert verdict.given == "data"
