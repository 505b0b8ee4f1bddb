"""A yes/no question reads as one in both faces: "yes or no", not "true or false"."""

from __future__ import annotations

from studyapp.i18n import t
from studyapp.questions.model import Kind, Question


def question(yes_no: bool) -> Question:
    return Question(post="h200", kind=Kind.TRUEFALSE, prompt="Does it fit?", answer=True,
                    explanation="", yes_no=yes_no)


def test_the_kind_of_a_yes_no_question_is_named_yes_or_no() -> None:
    assert question(True).kind_name == "yesno"
    assert question(False).kind_name == "truefalse"
    assert t("kind.yesno", "en") == "yes or no" and t("kind.yesno", "es") == "sí o no"
    assert t("tui.kind.yesno", "es") == "sí o no"


def test_plain_mode_asks_a_yes_no_question_with_yes_and_no() -> None:
    from studyapp.plain import render_question
    from studyapp.srs.scheduler import CardStage
    from studyapp.study import Presented

    shown = Presented(1, 1, "h200", "fits", question(True), CardStage.NEW)
    lines = "\n".join(render_question(shown, "en"))
    assert "yes or no" in lines and "y (yes) or n (no)" in lines and "true" not in lines
