"""Grade an answer the way a person writes it.

``grade`` never raises for anything a learner can type. When an answer
cannot be judged fairly (empty, a unit of another dimension, an ambiguous
unit or number) the verdict has ``correct=None`` and ``retry=True``: the
learner is asked again and nothing is recorded, because marking a
misunderstanding of the input as a wrong answer would teach nothing.

The grade is of the skill asked, not of the typing: on a conversion question
(``Question.conversion``) the converter must not do the learner's work, so
an answer in another unit is sent back ("answer in GB/s"); a wrong number
off by a telling factor names the slip (K and V, bits and bytes, GB and
GiB...) and stays wrong; a short text answer ignores case, spacing,
punctuation and a leading article, and accepts one slip of a key. Every answer
is read through ``studyapp.text.typed_answer`` first: a zero-width space or a
BOM that a paste left in it is not the learner's.
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass

from studyapp.i18n import t
from studyapp.questions.diagnosis import Target, diagnose, target_of, unit_scale
from studyapp.questions.formatting import format_number, format_quantity
from studyapp.questions.model import DEFAULT_TOLERANCE, Kind, Question
from studyapp.questions.units import (
    COUNT,
    AmbiguousUnit,
    Quantity,
    UnitError,
    UnknownUnit,
    UnparsableAnswer,
    parse_quantity,
)
from studyapp.text import typed_answer


@dataclass(frozen=True)
class Verdict:
    """The outcome of one answer.

    ``correct`` is None when the answer was not graded (``retry`` is then
    True and ``expected`` is empty, so asking again does not give the answer
    away). ``given`` is what the learner answered, normalised and, for
    numbers, converted to the question's unit; ``message`` is in the
    question's language.
    """

    correct: bool | None
    message: str
    given: str
    expected: str
    retry: bool = False
    slips: tuple[str, ...] = ()
    """Keys of the slips a wrong number shows (``kv_pair``, ``bits``...), most specific first."""
    typo: bool = False
    """A text answer accepted although one letter was off."""


_MAX_SIG = 17
_LETTERS = "abcdefghijklmnopqrstuvwxyz"
_TRUE_WORDS = frozenset({"y", "yes", "t", "true", "s", "si", "v", "verdadero", "cierto", "verdad"})
_FALSE_WORDS = frozenset({"n", "no", "f", "false", "falso"})


def grade(question: Question, response: str) -> Verdict:
    """Judge ``response`` to ``question`` (see the module docstring for retries)."""
    if question.kind is Kind.RECALL:  # self-graded: whatever was typed, show the answer
        return recall_verdict(question, response)
    text = typed_answer(response)
    if not text:
        return _ask_again(question, "", t("grading.empty", question.lang))
    if question.kind is Kind.NUMERIC:
        return _grade_numeric(question, text)
    if question.kind is Kind.CHOICE:
        return _grade_choice(question, text)
    if question.kind is Kind.TRUEFALSE:
        return _grade_truefalse(question, text)
    return _grade_text(question, text)


def recall_verdict(question: Question, response: str = "") -> Verdict:
    """A self-graded card's answer, shown for the learner to rate (Again counts as wrong)."""
    answer = str(question.answer)
    return Verdict(correct=True, message=t("anki.recall.answer", question.lang, answer=answer),
                   given=typed_answer(response), expected=answer)


def expected_display(question: Question) -> str:
    """The right answer as shown to the learner; a numeric one grades correct if typed back."""
    if question.kind is Kind.NUMERIC:
        return _expected_numeric(question)[0]
    if question.kind is Kind.CHOICE:
        index = _answer_index(question)
        if index is None:
            return str(question.answer)
        return f"{_LETTERS[index]}) {question.choices[index]}"
    if question.kind is Kind.TRUEFALSE:
        return _truefalse_word(question, bool(question.answer))
    return str(question.answer)


def numeric_value(question: Question, response: str) -> float | None:
    """A numeric answer as a number in the question's unit (None when it cannot be read)."""
    target = target_of(question)
    text = typed_answer(response)
    return _reads_as(text, target, question.lang) if text else None


# ---------------------------------------------------------------- helpers


def _ask_again(question: Question, given: str, message: str) -> Verdict:
    return Verdict(correct=None, message=message, given=given, expected="", retry=True)


def _judged(
    question: Question, correct: bool, given: str, expected: str, hint: str = "",
    slips: tuple[str, ...] = (), named: str = "",
) -> Verdict:
    """A graded verdict; ``named`` is the answer as the message says it (else ``expected``)."""
    lang = question.lang
    if correct:
        message = t("grading.correct", lang)
    else:
        message = t("grading.wrong", lang, expected=named or expected)
        if hint:
            message = f"{message} {hint}"
    return Verdict(correct=correct, message=message, given=given, expected=expected,
                   slips=slips)


def _fold(text: str) -> str:
    """Case-, accent- and space-insensitive form (``HBM3e`` = ``hbm 3E`` = ``HBM-3e``)."""
    decomposed = unicodedata.normalize("NFKD", typed_answer(text))
    plain = "".join(c for c in decomposed if not unicodedata.combining(c))
    plain = re.sub(r"[\s\-_]+", "", plain.casefold())
    return plain.rstrip(".!")


# ---------------------------------------------------------------- numeric


def value_in_unit(unit: str | None, response: str, lang: str) -> float | None:
    """A typed answer as a number in ``unit``, as grading reads it (None when it cannot be
    read or is in another dimension): the class report counts "163.84" and "0.16384 MB"
    on a KB card as one answer."""
    target = Target(unit or None, *unit_scale(unit or None), math.nan, DEFAULT_TOLERANCE)
    text = typed_answer(response)
    return _reads_as(text, target, lang) if text else None


def _in_target_unit(q: Quantity, target: Target) -> float:
    """A bare number is already in the question's unit."""
    return q.number if q.dimension is None else q.in_unit(target.factor)


def _reads_as(text: str, target: Target, lang: str) -> float | None:
    try:
        q = parse_quantity(text, lang, target.dimension)
    except UnitError:
        return None
    if q.dimension not in (None, target.dimension):
        return None
    return _in_target_unit(q, target)


def _expected_numeric(question: Question) -> tuple[str, int]:
    """The expected value with the fewest figures (at least 3) that still grade correct."""
    target = target_of(question)
    if not math.isfinite(target.value):
        return str(question.answer), 3
    for suffix in (True, False):  # 70B params, or 7e10 params when a suffix loses precision
        for sig in range(3, _MAX_SIG + 1):
            shown = format_quantity(
                target.value, target.unit, question.lang, sig, count_suffix=suffix
            )
            back = _reads_as(shown, target, question.lang)
            if back is not None and target.tolerance.accepts(target.value, back):
                return shown, sig
    return format_quantity(target.value, target.unit, question.lang, _MAX_SIG), _MAX_SIG


def _dimension_name(dimension: str | None, lang: str) -> str:
    return t(f"grading.dim.{dimension or COUNT}", lang)


def _grade_numeric(question: Question, text: str) -> Verdict:
    lang = question.lang
    target = target_of(question)
    example = format_quantity(12.5, target.unit, lang)
    try:
        q = parse_quantity(text, lang, target.dimension)
    except AmbiguousUnit as exc:
        options = f" {t('grading.or', lang)} ".join(exc.candidates)
        message = t("grading.ambiguous_unit", lang, unit=exc.unit, options=options)
        if any(c.rstrip("/s").endswith(("B", "b")) for c in exc.candidates):
            message = f"{message} {t('grading.bits_note', lang)}"
        return _ask_again(question, text, message)
    except UnknownUnit as exc:
        return _ask_again(
            question, text, t("grading.unknown_unit", lang, unit=exc.unit, example=example)
        )
    except UnparsableAnswer:
        return _ask_again(question, text, t("grading.unparsable", lang, text=text, example=example))
    if q.dimension is not None and q.dimension != target.dimension:
        wanted = _dimension_name(target.dimension, lang)
        if target.unit:
            wanted = f"{wanted} ({target.unit})"
        given_name = _dimension_name(q.dimension, lang)
        message = t("grading.wrong_dimension", lang, given=given_name, expected=wanted)
        return _ask_again(question, text, message)
    if question.conversion and q.dimension is not None and target.unit \
            and not math.isclose(q.factor, target.factor, rel_tol=1e-12):
        # Converting is the skill asked: the converter must not do it for the learner.
        return _ask_again(question, text, t("grading.answer_in", lang, unit=target.unit))

    given_value = _in_target_unit(q, target)
    expected_text, sig = _expected_numeric(question)
    correct = math.isfinite(target.value) and target.tolerance.accepts(target.value, given_value)
    if not correct and q.alternative is not None and q.value != 0:
        # "1.234" in Spanish reads 1234; if 1.234 was right, ask rather than mark wrong.
        ratio = q.alternative / q.value
        if target.tolerance.accepts(target.value, given_value * ratio):
            message = t(
                "grading.ambiguous_number",
                lang,
                text=text,
                reading=format_number(q.number, lang, 6, grouping=False),
                alternative=format_number(q.number * ratio, lang, 6, grouping=False),
            )
            return _ask_again(question, text, message)
    given_text = _given_numeric(given_value, target, lang, sig, expected_text, correct)
    if q.dimension is not None and q.unit and target.unit \
            and not math.isclose(q.factor, target.factor, rel_tol=1e-12):
        # the learner's own unit first: "29,9 GiB (32,1 GB)", never only the converted value
        own = format_quantity(q.number, q.unit, lang, max(sig, 4))
        given_text = f"{own} ({given_text})"
    slips: tuple[tuple[str, str], ...] = ()
    if not correct:
        slips = diagnose(question, given_value, target)
    hint = " ".join(message for _, message in slips)
    return _judged(question, correct, given_text, expected_text, hint,
                   tuple(key for key, _ in slips if key))


def _given_numeric(
    value: float, target: Target, lang: str, sig: int, expected: str, correct: bool
) -> str:
    """The answer in the question's unit, with enough figures to differ from a wrong expected."""
    sig = max(sig, 4)
    shown = format_quantity(value, target.unit, lang, sig)
    while not correct and shown == expected and sig < _MAX_SIG:
        sig += 1
        shown = format_quantity(value, target.unit, lang, sig)
    return shown


# ---------------------------------------------------------------- choice


def _answer_index(question: Question) -> int | None:
    if not isinstance(question.answer, str):
        return None
    if question.answer in question.choices:
        return question.choices.index(question.answer)
    folded = _fold(question.answer)
    for i, choice in enumerate(question.choices):
        if _fold(choice) == folded:
            return i
    return None


def _grade_choice(question: Question, text: str) -> Verdict:
    lang = question.lang
    count = len(question.choices)
    picked: set[int] = set()
    folded = _fold(text)
    for i, choice in enumerate(question.choices):
        if _fold(choice) == folded:
            picked.add(i)
    token = re.sub(r"^[(\[]?\s*(\w+)\s*[)\].:]?$", r"\1", text.strip()).lower()
    if token.isascii() and token.isdigit() and 1 <= int(token) <= count:
        picked.add(int(token) - 1)
    if len(token) == 1 and token in _LETTERS[:count]:
        picked.add(_LETTERS.index(token))
    if not picked:
        last = _LETTERS[max(count, 1) - 1]
        return _ask_again(question, text, t("grading.choice_invalid", lang, count=count, last=last))
    if len(picked) > 1:
        options = ", ".join(_numbered(question, i) for i in sorted(picked))
        return _ask_again(question, text, t("grading.choice_ambiguous", lang, options=options))
    index = picked.pop()
    answer = _answer_index(question)
    given = f"{_LETTERS[index]}) {question.choices[index]}"
    named = "" if answer is None else _numbered(question, answer)
    feedback = dict(question.choice_feedback).get(question.choices[index], "")
    if index == answer or not feedback:
        return _judged(question, index == answer, given, expected_display(question),
                       named=named)
    return _judged(question, False, given, expected_display(question), feedback,
                   (question.choices[index],), named=named)


def _numbered(question: Question, index: int) -> str:
    """A choice as the faces list it, by number ("2) HBM3e"), so feedback names it the same way.

    ``given`` and ``expected`` keep the stored form ("b) HBM3e", as review
    logs have it); the faces number those with ``study.numbered_choice``.
    """
    return f"{index + 1}) {question.choices[index]}"


# ---------------------------------------------------------------- true/false


def _grade_truefalse(question: Question, text: str) -> Verdict:
    lang = question.lang
    word = _fold(text)
    if word in _TRUE_WORDS:
        said = True
    elif word in _FALSE_WORDS:
        said = False
    else:
        return _ask_again(question, text, t("grading.truefalse_invalid", lang))
    given = _truefalse_word(question, said)
    return _judged(question, said == bool(question.answer), given, expected_display(question))


def _truefalse_word(question: Question, value: bool) -> str:
    """"yes" for a question that asks, "true" for a claim to judge; in the question's language."""
    yes, no = question.answer_words
    return t(f"grading.{yes if value else no}", question.lang)


# ---------------------------------------------------------------- text


_ARTICLES = {"en": frozenset({"a", "an", "the"}),
             "es": frozenset({"el", "la", "los", "las", "un", "una"})}
_TYPO_MIN_LENGTH = 5


def _fold_text(text: str, lang: str, *, accents: bool = True) -> str:
    """A short answer without case, spacing, punctuation or a leading article (an
    accepted answer as a typed one: without zero-width characters); without its
    accents and other diacritics too when ``accents`` is False."""
    decomposed = unicodedata.normalize("NFKD", typed_answer(text))
    if not accents:
        decomposed = "".join(c for c in decomposed if not unicodedata.combining(c))
    plain = unicodedata.normalize("NFC", decomposed.casefold())
    words = ["".join(c for c in word if not unicodedata.category(c).startswith("P"))
             for word in plain.split()]
    words = [word for word in words if word]
    if len(words) > 1 and words[0] in _ARTICLES.get(lang, _ARTICLES["en"]):
        words = words[1:]
    return "".join(words).replace("_", "")


def _one_edit_apart(a: str, b: str) -> bool:
    """Damerau-Levenshtein distance exactly 1: one letter added, dropped, changed or swapped."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) > len(b):
        a, b = b, a
    i = 0
    while i < len(a) and a[i] == b[i]:
        i += 1
    if len(a) < len(b):  # one letter added
        return a[i:] == b[i + 1 :]
    if a[i + 1 :] == b[i + 1 :]:  # one letter changed
        return True
    return a[i : i + 2] == b[i : i + 2][::-1] and a[i + 2 :] == b[i + 2 :]  # two swapped


def _typo_allowed(accepted: str) -> bool:
    """Long words only; never numbers or ids like h100 or mi300x, where one letter is the fact."""
    return len(accepted) >= _TYPO_MIN_LENGTH and not any(c.isdigit() for c in accepted)


def _grade_text(question: Question, text: str) -> Verdict:
    """Right when the answer is an accepted one, diacritics included (``año`` is not
    ``ano``, Vietnamese ``rẻ`` is not ``rè``); case, spacing and punctuation never
    count. A long answer (five letters or more, no digits) one letter off, or off
    only in its accents, is right with the spelling shown, as a typo."""
    lang = question.lang
    answers = (str(question.answer), *question.accept)
    accepted = {_fold_text(a, lang) for a in answers} - {""}
    given = _fold_text(text, lang)
    expected = expected_display(question)
    if given in accepted:
        return _judged(question, True, text, expected)
    bare = _fold_text(text, lang, accents=False)
    if not any(c.isdigit() for c in given) and (any(
            _typo_allowed(a) and _one_edit_apart(given, a) for a in accepted) or any(
            _typo_allowed(a) and bare == _fold_text(a, lang, accents=False)
            for a in answers)):
        return Verdict(correct=True, message=t("grading.typo", lang, expected=expected),
                       given=text, expected=expected, typo=True)
    return _judged(question, False, text, expected)


__all__ = ["Verdict", "expected_display", "grade", "numeric_value", "value_in_unit"]
