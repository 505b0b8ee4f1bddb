"""What the question screen writes: its header line and the answer beside the expected one.

Kept apart from the screen so the screen module stays about layout and keys.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.content import Content

from studyapp.i18n import t
from studyapp.questions.model import Kind
from studyapp.study import numbered_choice, wait_text
from studyapp.tui.text import plain

if TYPE_CHECKING:
    from studyapp.questions.grading import Verdict
    from studyapp.questions.model import Question
    from studyapp.study import Presented


def header_line(presented: Presented, title: str, room: int, lang: str, *,
                practice: bool = False) -> str:
    """``[n/N] practice · +k learning · early · flag · post · kind`` in ``room`` columns.

    The post title gives way first (cut, then left out), then the kind, so
    the line never runs into the score beside it.
    """
    marks = []
    if practice:  # nothing answered here changes the schedule: say so on every card
        marks.append(t("tui.question.practice", lang))
    if presented.learning:
        marks.append(t("tui.question.learning", lang, count=presented.learning))
    if presented.early_by is not None:
        marks.append(t("tui.question.early", lang, wait=wait_text(presented.early_by, lang)))
    if presented.flag:
        marks.append(t("tui.question.flag", lang, flag=presented.flag))
    prefix = f"[{presented.number}/{presented.total}]"
    if marks:
        prefix += " " + " · ".join(marks) + " ·"
    kind = t(f"tui.kind.{presented.question.kind_name}", lang)
    line = f"{prefix} {title} · {kind}"
    if len(line) <= room:
        return line
    left = room - len(f"{prefix}  · {kind}")
    if left >= 8:
        return f"{prefix} {title[: left - 1].rstrip()}… · {kind}"
    line = f"{prefix} {kind}"
    return line if len(line) <= room else prefix.removesuffix(" ·")


def answer_comparison(question: Question, verdict: Verdict, room: int, lang: str) -> Content:
    """"Your answer … Expected …"; a choice by its listed number, cut to ``room`` columns."""
    yours = (t("tui.question.your_answer", lang) + " ", "bold")
    expected = (t("tui.question.expected", lang) + " ", "bold")
    if question.kind is Kind.CHOICE:
        return Content.assemble(
            yours, plain(numbered_choice(question, verdict.given or "—", room)), "\n",
            expected, plain(numbered_choice(question, verdict.expected, room)))
    return Content.assemble(yours, plain(verdict.given or "—"), "    ", expected,
                            plain(verdict.expected))
