"""The widgets an answer is given with, each saying what was answered as a message.

A choice list, a text field and a "Show answer" button; the question screen
reacts to ``ChoiceList.Chosen``, ``AnswerField.Answered`` and
``RevealButton.Revealed`` instead of to the raw Textual events, so which
raw event counts as an answer (a click on the picked choice, Enter on an
empty field of a self-graded card) is decided here, once.
"""

from __future__ import annotations

import string
from collections.abc import Callable
from typing import Any

from textual import events
from textual.content import Content
from textual.message import Message
from textual.widgets import Button, Input, OptionList
from textual.widgets.option_list import Option

from studyapp.i18n import unit_label
from studyapp.questions.formatting import display_unit
from studyapp.questions.model import Kind, Question
from studyapp.tui.text import plain

LETTERS = string.ascii_lowercase[:9]
"""Choice letters; a to f are keys of the question screen."""

Translate = Callable[..., str]
"""``tr(key, **fields)``: the screen's strings in its language."""


class ChoiceList(OptionList):
    """Choices with nothing preselected: Enter alone never picks option a."""

    class Chosen(Message):
        """The learner picked choice ``index`` (0-based) and sent it."""

        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    def __init__(self, *options: Option, id: str | None = None) -> None:
        super().__init__(*options, id=id)
        self.highlighted = None

    def offer(self, question: Question, tr: Translate) -> str:
        """The choices of a choice or true/false question; returns its hint line."""
        if question.kind is Kind.CHOICE:
            options = [Option(Content(f"{n + 1}) ").append(plain(choice)), id=f"choice-{n}")
                       for n, choice in enumerate(question.choices)]
            hint = tr("tui.question.hint_choice", last=len(question.choices),
                      letter=LETTERS[min(len(question.choices), 6) - 1])
        else:
            yes, no = question.answer_words
            options = [Option(tr(f"tui.question.{yes}_option"), id="choice-true"),
                       Option(tr(f"tui.question.{no}_option"), id="choice-false")]
            hint = tr("tui.question.hint_yesno" if question.yes_no
                      else "tui.question.hint_truefalse")
        self.set_options(options)
        return hint

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.post_message(self.Chosen(event.option_index))

    async def _on_click(self, event: events.Click) -> None:
        """A click picks a choice, a click on the picked one sends it (as Enter would).

        One click answering at once turned a slip of the mouse (or a tap in the
        browser) into a recorded wrong answer.
        """
        event.prevent_default()  # OptionList's own handler would select on the first click
        clicked: int | None = event.style.meta.get("option")
        if clicked is None or self.get_option_at_index(clicked).disabled:
            return
        if self.highlighted == clicked:
            self.action_select()
        else:
            self.highlighted = clicked


class AnswerField(Input):
    """The typed answer: a number with its unit, a short text, or Enter on a recall card."""

    class Answered(Message):
        """The learner sent ``response`` (empty only where the card takes it)."""

        def __init__(self, response: str) -> None:
            super().__init__()
            self.response = response

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.takes_empty = False
        """A self-graded card: Enter with nothing typed shows the answer."""

    def expect(self, question: Question, tr: Translate, lang: str = "en") -> str:
        """Ready the field for ``question`` (a typed kind); returns its hint line, the unit
        named in the learner's language."""
        self.takes_empty = question.kind is Kind.RECALL
        if question.kind is Kind.NUMERIC:
            self.placeholder = tr("tui.question.placeholder_numeric",
                                  example=f"140 {counted(question.unit, lang)}".strip())
            return (tr("tui.question.hint_numeric", unit=unit_label(question.unit, lang))
                    if question.unit
                    else tr("tui.question.hint_number"))
        if question.kind is Kind.RECALL:  # self-graded: Enter shows the answer
            self.placeholder = tr("anki.recall.placeholder")
            return tr("anki.recall.hint_tui")
        self.placeholder = tr("tui.question.placeholder_text")
        return tr("tui.question.hint_text")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if event.value.strip() or self.takes_empty:
            self.post_message(self.Answered(event.value))


class RevealButton(Button):
    """A self-graded card's "Show answer", for a mouse or a tap in the browser."""

    class Revealed(Message):
        """The learner asked to see the answer."""

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.post_message(self.Revealed())


__all__ = ["LETTERS", "AnswerField", "ChoiceList", "RevealButton"]


def counted(unit: str | None, lang: str) -> str:
    """A question's unit as typed after a number: a measuring unit as it is (GB, ms), a
    thing counted in the learner's language (secuencias, nodos)."""
    return display_unit(unit, lang) if unit else ""
