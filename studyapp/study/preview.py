"""``studyapp deck preview``: a deck's cards as plain text, drawn as study draws them.

A card is shown exactly as a study session shows it when that showing's draw
seed is ``seed``: the same parameters and order of choices (``showing``, the
function study calls too), numbered as every face numbers them. A session
does not give its own ``--seed`` to each card: it draws one seed per showing
from it, in queue order (``StudySession.next``), and stores that seed with
the answer; that stored seed is the one to preview.
Deck text is printed as plain text; nothing here interprets markup.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from studyapp.i18n import t
from studyapp.numbers import format_number
from studyapp.questions.diagnosis import factor_text, slip_candidates
from studyapp.questions.formatting import format_quantity
from studyapp.questions.model import Kind, Question
from studyapp.study.phrases import numbered_choice
from studyapp.study.session import showing

if TYPE_CHECKING:
    from studyapp.decks import CardSpec, Deck


def _answer_text(question: Question, lang: str) -> str:
    from studyapp.questions.grading import expected_display

    if question.kind is Kind.TRUEFALSE:
        return t("decks.true" if question.answer else "decks.false", lang)
    if question.kind is Kind.CHOICE:
        return numbered_choice(question, expected_display(question))
    if question.kind is Kind.NUMERIC and isinstance(question.answer, float):
        tolerance = f" ({question.tolerance.describe(lang)})" if question.tolerance else ""
        return f"{expected_display(question)}{tolerance}"
    return str(question.answer)


def question_lines(card: CardSpec, question: Question, lang: str) -> list[str]:
    """A question as a reader sees it, the right choice marked, with answer and explanation."""
    lines = [f"[{card.id}] {card.type} · {question.post or card.deck}", question.prompt]
    for index, choice in enumerate(question.choices):
        mark = "*" if question.answer_index == index else " "
        lines.append(f"  {mark} {numbered_choice(question, choice)}")
    if question.kind is Kind.SCENARIO:
        for n, part in enumerate(question.parts, 1):
            uses = f" [{', '.join(part.uses)}]" if part.uses else ""
            lines.append(f"  {n}. {part.name}{uses}: {part.question.prompt}")
            lines.append(f"     {t('decks.preview.answer', lang)}: "
                         f"{_answer_text(part.question, lang)}")
            lines += step_slip_lines(part.question, lang)
    else:
        lines.append(f"{t('decks.preview.answer', lang)}: {_answer_text(question, lang)}")
    if question.accept:
        lines.append(f"{t('decks.preview.accept', lang)}: {', '.join(question.accept)}")
    if question.params:
        shown = ", ".join(f"{k}={v}" for k, v in question.params.items())
        lines.append(f"{t('decks.preview.params', lang)}: {shown}")
    lines.append(f"{t('decks.preview.explanation', lang)}: {question.explanation}")
    lines += _feedback_lines(question, lang)
    return lines


def _feedback_lines(question: Question, lang: str) -> list[str]:
    """The author's slips (with the answer each one gives for these numbers) and per-choice
    feedback: what a student who makes that mistake will read."""

    lines = []
    for slip in question.slips:
        if slip.message is None or not isinstance(question.answer, float):
            continue
        resolved = slip.resolve(question.params)
        if resolved is None or not isinstance(resolved.ratio, float):
            continue
        value = format_number(question.answer * resolved.ratio, lang, sig=4)
        unit = f" {question.unit}" if question.unit else ""
        lines.append(f"{t('decks.preview.slip', lang, name=slip.key)}: "
                     f"{value}{unit} → {slip.message}")
    shown = {choice: n for n, choice in enumerate(question.choices)}
    for choice, said in sorted(question.choice_feedback, key=lambda f: shown.get(f[0], 0)):
        lines.append(f"{t('decks.preview.feedback', lang)} "
                     f"{numbered_choice(question, choice)}: {said}")
    return lines


def step_slip_lines(step: Question, lang: str) -> list[str]:
    """A step's slips and the wrong answer each gives for these numbers: its own (the
    author's), then the built-in ones grading names when none of its own matches."""
    if step.kind is not Kind.NUMERIC or not isinstance(step.answer, float):
        return []
    own, common = slip_candidates(step)
    unit, right = step.unit, step.answer

    def value(ratio: float) -> str:
        return format_quantity(right * ratio, unit, lang, 4)

    lines = []
    for slip in own:
        message = slip.message or t(f"grading.slip.{slip.key}", lang,
                                    factor=factor_text(abs(slip.ratio), lang))
        lines.append(f"     {t('decks.preview.slip', lang, name=slip.key)}: "
                     f"{value(slip.ratio)} → {message}")
    named = {round(slip.ratio, 9) for slip in own}
    by_key: dict[str, list[str]] = {}
    for slip in common:
        if slip.key == "prefix" and not 1e-3 <= slip.ratio <= 1e3:
            continue  # ×10⁶ and beyond: the same slip again, listed once as ×1000 and ÷1000
        shadowed = t("decks.preview.slip_shadowed", lang) if round(slip.ratio, 9) in named \
            else ""
        by_key.setdefault(slip.key, []).append(f"{value(slip.ratio)}{shadowed}")
    if by_key:
        listed = "; ".join(f"{key} {', '.join(values)}" for key, values in by_key.items())
        lines.append(f"     {t('decks.preview.built_in_slips', lang)}: {listed}")
    return lines


def preview_lines(deck: Deck, lang: str, seed: int, card_id: str | None = None) -> list[str]:
    """Every card (or one) as shown with draw seed ``seed``; ``KeyError`` for an unknown card."""
    from studyapp.decks import deck_title

    cards = [deck.card(card_id)] if card_id is not None else list(deck.cards)
    lines = [f"{deck.id}: {deck_title(deck, lang)} ({len(deck.cards)})", ""]
    for card in cards:
        lines += question_lines(card, showing(card, seed, lang), lang)
        lines.append("")
    return lines
