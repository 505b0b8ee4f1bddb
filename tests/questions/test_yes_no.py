"""A yes/no question ("Does it fit?") is answered Yes or No, not True or False."""

from __future__ import annotations

import pytest

from studyapp.questions.generators import get_family
from studyapp.questions.grading import expected_display, grade
from studyapp.questions.model import Kind, Question

YES_NO_FAMILIES = ("fits-on-gpu", "compute-or-memory-bound")


@pytest.mark.parametrize("family", YES_NO_FAMILIES)
@pytest.mark.parametrize(("lang", "yes", "no"), [("en", "yes", "no"), ("es", "sí", "no")])
def test_generated_yes_no_questions_read_yes_and_no(family: str, lang: str, yes: str,
                                                      no: str) -> None:
    seen = set()
    for seed in range(40):
        q = get_family(family).generate(seed, lang, {})
        assert q.prompt.rstrip().endswith("?") or "?" in q.prompt
        assert q.yes_no
        assert q.answer_words == ("yes", "no")
        shown = expected_display(q)
        assert shown == (yes if q.answer else no)
        verdict = grade(q, "y" if q.answer else "n")
        assert verdict.correct
        assert verdict.expected == shown
        assert verdict.given == shown
        seen.add(bool(q.answer))
    assert seen == {True, False}


def test_a_true_or_false_statement_keeps_true_and_false() -> None:
    q = Question(kind=Kind.TRUEFALSE, post="h100", prompt="The H100 SXM has 80 GB.",
                 explanation="80 GB of HBM3.", answer=True, lang="en")
    assert not q.yes_no
    assert q.answer_words == ("true", "false")
    assert expected_display(q) == "true"
