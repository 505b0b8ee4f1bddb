"""Loaded decks: typed, read-only, ready to turn cards into questions.

A ``Deck`` is what the loader returns once every check passed. Its cards are
``CardSpec``\\ s; ``CardSpec.instantiate(seed, lang)`` gives a ``Question``
(a template draws fresh parameters for every seed, so a learner practises the
method, not one number).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from studyapp.decks.formula import (
    EntryView,
    Formula,
    FormulaError,
    Value,
    evaluate,
    format_value,
    number,
    parse_formula,
    render,
)
from studyapp.decks.problems import DeckError, Problem, problem_message
from studyapp.decks.worked_line import worked_line
from studyapp.i18n import t
from studyapp.questions.model import Kind, Question, Slip, Tolerance

CardType = Literal["choice", "truefalse", "numeric", "text", "generated", "recall",
                   "scenario"]
DeckSource = Literal["builtin", "user", "file", "published"]
"""Where a deck comes from; ``published`` only names a listing of a deck stored in the
database (``deck publish``), which loads from its copy in the data folder as ``user``."""
Localized = Mapping[str, str]


def pick_language(text: Localized, lang: str, fallback: str) -> str:
    """``text`` in ``lang``, else in the deck's language, else in any language."""
    for candidate in (lang, fallback):
        value = text.get(candidate)
        if value is not None:
            return value
    return next(iter(text.values()), "")


@dataclass(frozen=True)
class ParamSpec:
    """How one template parameter is drawn.

    ``kind``: ``constant`` (one value), ``pick`` (one of ``values``),
    ``range`` (``start + k*step`` up to ``stop``), ``catalog`` (one of the
    matching entries in ``values``, bound as an ``EntryView``).
    """

    kind: Literal["constant", "pick", "range", "catalog"]
    values: tuple[Value, ...] = ()
    start: float = 0
    stop: float = 0
    step: float = 1
    integral: bool = True

    @property
    def range_count(self) -> int:
        return int((self.stop - self.start) / self.step + 1e-9) + 1

    def range_value(self, k: int) -> int | float:
        value = self.start + k * self.step
        return round(value) if self.integral else round(value, 12)

    def draw(self, rng: random.Random) -> Value:
        if self.kind == "range":
            return self.range_value(rng.randrange(self.range_count))
        if self.kind == "constant":
            return self.values[0]
        return rng.choice(self.values)

    def candidates(self, limit: int, rng: random.Random) -> list[Value]:
        """Values worth trying when checking formulas: all, or the ends plus a sample."""
        if self.kind != "range":
            return list(self.values)
        count = self.range_count
        if count <= limit:
            return [self.range_value(k) for k in range(count)]
        picks = {0, count - 1, *(rng.randrange(count) for _ in range(limit - 2))}
        return [self.range_value(k) for k in sorted(picks)]


REDRAWS = 20


def redraw_seed(seed: int, attempt: int) -> int:
    """The ``attempt``-th replacement draw for ``seed`` (fixed, so showings repeat)."""
    return (seed * 1_000_003 + attempt * 7_919) % (2**63)


def draw_params(params: Mapping[str, ParamSpec], seed: int) -> dict[str, Value]:
    """One value per parameter, in declaration order, from ``random.Random(seed)``."""
    rng = random.Random(seed)
    return {name: spec.draw(rng) for name, spec in params.items()}


def shown_params(values: Mapping[str, Value]) -> dict[str, Any]:
    """Drawn values as stored with a question: catalog entries by their id."""
    return {k: (v.id if isinstance(v, EntryView) else v) for k, v in values.items()}


@dataclass(frozen=True)
class AuthoredSlip:
    """A numeric card's common wrong answer: ``answer`` (a number or formula) and ``message``."""

    name: str
    answer: int | float | str
    message: Localized


@dataclass(frozen=True)
class PartSpec:
    """One step of an authored scenario, as written (``answer`` a number or a formula)."""

    name: str
    prompt: Localized
    answer: int | float | str
    unit: str | None = None
    tolerance: Tolerance | None = None
    explanation: Localized | None = None
    method: Localized | None = None
    slips: tuple[Slip, ...] = ()
    signed: bool = False  # the step's answer may be negative


@dataclass(frozen=True)
class CardSpec:
    """One card of a deck, as written; ``instantiate`` makes it a ``Question``.

    Text fields are mappings by language (a plain string in the file is
    stored under the deck's ``language``). ``answer`` is, by type: choice →
    0-based index of the right choice; truefalse → bool or a formula;
    numeric → a number or a formula; text → text by language; generated →
    ``None``.
    """

    id: str
    type: CardType
    post: str
    deck: str
    language: str
    prompt: Localized = field(default_factory=dict)
    explanation: Localized | None = None
    choices: tuple[Localized, ...] = ()
    answer: int | float | bool | str | Localized | None = None
    accept: tuple[Localized, ...] = ()
    params: Mapping[str, ParamSpec] = field(default_factory=dict)
    unit: str | None = None
    tolerance: Tolerance | None = None
    signed: bool = False
    """Numeric cards: the answer may be negative (``signed: true``)."""
    generator: str | None = None
    options: Mapping[str, Any] = field(default_factory=dict)
    slips: tuple[AuthoredSlip, ...] = ()
    """Numeric cards: common wrong answers, each with the author's message."""
    feedback: tuple[Localized | None, ...] = ()
    """Choice cards: what to tell a student who picks each choice (by position)."""
    tags: tuple[str, ...] = ()
    """Words to find the card by (``cards tag:NAME``); ``a::b`` nests, as in Anki."""
    fact: str | None = None
    """Siblings share a fact (``fact:`` in the file; a generated card inherits its family's)."""
    parts: tuple[PartSpec, ...] = ()
    """A scenario's steps, in order."""
    languages: tuple[str, ...] = ()
    """The languages its deck is read in (its title's); a prompt written by language that
    misses one of them is shown in the other with a note."""
    by_language: frozenset[str] = frozenset()
    """The prompts written by language: ``""`` for the card's, a step's name for a step's
    (a plain string is in the deck's language by choice, and gets no note)."""
    anki_guid: str | None = None
    """The guid of the Anki note the card came from (``anki: {guid}``), kept on export."""
    anki_cloze: str | None = None
    """That note's cloze text, when it was a cloze note: its cards go back as one note."""
    path: Path = Path()
    line: int = 1
    col: int = 1

    @property
    def kind(self) -> Kind | None:
        """The question kind a static or template card gives (``None`` for generated)."""
        return None if self.type == "generated" else Kind(self.type)

    @property
    def is_template(self) -> bool:
        """True if reviews draw new values (parameters or a generator)."""
        return self.type == "generated" or any(p.kind != "constant" for p in self.params.values())

    def text(self, value: Localized, lang: str) -> str:
        return pick_language(value, lang, self.language)

    def prompt_text(self, which: str, prompt: Localized, rendered: str, lang: str) -> str:
        """A rendered prompt (``which``: ``""`` or a step's name), with a note when it is
        shown in another language than ``lang`` ("(shown in Spanish: no English text)"),
        so a missing translation is seen."""
        if (lang in prompt or not prompt or lang not in self.languages
                or which not in self.by_language):
            return rendered
        shown = self.language if self.language in prompt else next(iter(prompt))
        return f"{rendered}\n{t(f'decks.fallback_note.{shown}', lang)}"

    def instantiate(self, seed: int, lang: str) -> Question:
        """The question for ``seed`` in ``lang``; ``DeckError`` if a formula fails.

        Validation checks every combination of a small parameter space and
        sweeps larger ones, so a failure here is a value it could not reach:
        that draw is skipped and logged (``studyapp.decks.draw_log``, shown by
        ``deck list`` and the Decks screen), and the next of a fixed series of
        draws is taken, so the same seed always gives the same question.
        """
        try:
            if self.type == "generated":
                return self._generated(seed, lang)
            if self.type == "scenario":
                return self._scenario(seed, lang)
            return self._authored(seed, lang)
        except FormulaError as exc:
            failure = exc
        words = problem_message("card_fails", id=self.id, detail=failure.message)
        problem = Problem.at(self.path, self.line, self.col, words)
        if self.type != "generated" and self.is_template:
            from studyapp.decks import draw_log

            drawn = ", ".join(f"{k}={format_value(v)}"
                              for k, v in draw_params(self.params, seed).items())
            draw_log.record(self.deck, self.id, f"{self.path}:{self.line}:{self.col}",
                            f"{failure.message} ({drawn})")
            for attempt in range(1, REDRAWS + 1):
                try:
                    return replace(self._authored(redraw_seed(seed, attempt), lang), seed=seed)
                except FormulaError:
                    continue
        raise DeckError([problem]) from None

    def _generated(self, seed: int, lang: str) -> Question:
        from studyapp.questions.generators import get_family

        assert self.generator is not None
        question = get_family(self.generator).generate(seed, lang, self.options)
        return replace(question, post=self.post, family=self.generator, seed=seed, lang=lang)

    def _authored(self, seed: int, lang: str) -> Question:
        words = bool_words(lang)
        names: dict[str, Value] = draw_params(self.params, seed)
        kind = Kind(self.type)
        choices: tuple[str, ...] = ()
        accept: tuple[str, ...] = ()
        answer: float | bool | str
        answer_shown: Value
        if kind is Kind.CHOICE:
            choices = tuple(render(self.text(c, lang), names, words, lang) for c in self.choices)
            assert isinstance(self.answer, int)
            answer = answer_shown = choices[self.answer]
        elif kind is Kind.TRUEFALSE:
            answer = answer_shown = truth(self.answer, names)
        elif kind is Kind.NUMERIC:
            answer = answer_shown = numeric_answer(self.answer, names, signed=self.signed)
        else:
            assert isinstance(self.answer, Mapping)
            answer = answer_shown = render(self.text(self.answer, lang), names, words, lang)
            variants = [self.answer, *self.accept]
            texts = [v for variant in variants for v in variant.values()]
            rendered = [render(v, names, words, lang) for v in texts]
            accept = tuple(dict.fromkeys(r for r in rendered if r != answer))
        names_with_answer = {**names, "answer": answer_shown}
        prompt = self.prompt_text(
            "", self.prompt, render(self.text(self.prompt, lang), names, words, lang), lang)
        if self.explanation is not None:
            explanation = render(
                self.text(self.explanation, lang), names_with_answer, words, lang
            )
        else:
            explanation = self._default_explanation(answer_shown, words, lang, names)
        return Question(
            kind=kind,
            post=self.post,
            prompt=prompt,
            explanation=explanation,
            answer=answer,
            choices=choices,
            accept=accept,
            unit=self.unit if kind is Kind.NUMERIC else None,
            tolerance=self.tolerance if kind is Kind.NUMERIC else None,
            params=shown_params(names),
            family=None,
            seed=seed,
            lang=lang,
            slips=self._slips(answer, names, words, lang) if kind is Kind.NUMERIC else (),
            choice_feedback=tuple(
                (choices[i], render(self.text(note, lang), names, words, lang))
                for i, note in enumerate(self.feedback) if note is not None and i < len(choices)),
        )

    def _slips(self, answer: object, names: Mapping[str, Value], words: Mapping[bool, str],
               lang: str) -> tuple[Slip, ...]:
        """The authored slips of this draw, as grading's ``Slip``\\ s (ratio to the answer).

        A slip whose value cannot be computed for this draw, or equals the
        answer, is left out: it cannot be told from a right answer.
        """
        found = []
        for slip in self.slips:
            try:
                value = (number(evaluate(slip.answer, names)) if isinstance(slip.answer, str)
                         else float(slip.answer))
                message = render(self.text(slip.message, lang), names, words, lang)
            except FormulaError:
                continue
            if not isinstance(answer, float | int) or answer == 0:
                continue
            resolved = Slip(slip.name, value / float(answer), message=message).resolve({})
            if resolved is not None:
                found.append(resolved)
        return tuple(found)

    def _scenario(self, seed: int, lang: str) -> Question:
        """The steps computed in order, each from the params and the earlier steps' values."""
        from studyapp.questions.scenario import Step, build_parts, run_chain, worked_chain

        words = bool_words(lang)
        names: dict[str, Value] = draw_params(self.params, seed)
        steps = [Step(part.name, _part_formula(part.answer, part.signed), part.unit,
                      uses=tuple(_part_uses(part.answer, [p.name for p in self.parts[:i]])),
                      tolerance=part.tolerance or Tolerance(relative=0.02), slips=part.slips)
                 for i, part in enumerate(self.parts)]
        env = run_chain(steps, names)
        step_units = {part.name: part.unit for part in self.parts}
        prompts, methods, solutions = {}, {}, {}
        for part in self.parts:
            shown = render(self.text(part.prompt, lang), names, words, lang)
            prompts[part.name] = self.prompt_text(part.name, part.prompt, shown, lang)
            if part.method is not None:
                methods[part.name] = render(self.text(part.method, lang), names, words, lang)
            bound = {**env, "answer": env[part.name]}
            if part.explanation is not None:
                solutions[part.name] = render(self.text(part.explanation, lang), bound, words,
                                              lang)
            else:
                solutions[part.name] = worked_line(part.answer, env, float(env[part.name]),
                                                   part.unit, lang, step_units)
        parts, _ = build_parts(steps, names, post=self.post, family=None, seed=seed, lang=lang,
                               prompts=prompts, methods=methods, solutions=solutions)
        question = Question(kind=Kind.SCENARIO, post=self.post,
                            prompt=self.prompt_text("", self.prompt, render(
                                self.text(self.prompt, lang), names, words, lang), lang),
                            explanation="", answer=str(len(parts)), parts=parts,
                            params=shown_params(names), seed=seed, lang=lang)
        return replace(question, explanation=worked_chain(question))

    def _default_explanation(self, answer: Value, words: Mapping[bool, str], lang: str,
                             names: Mapping[str, Value]) -> str:
        if self.type == "numeric" and isinstance(answer, int | float) \
                and not isinstance(answer, bool):
            return worked_line(str(self.answer), names, float(answer), self.unit, lang)
        return format_value(answer, "", words, lang)


def _part_formula(answer: int | float | str, signed: bool = False) -> Any:
    """A step's answer from the environment of params and earlier steps."""
    return lambda env: numeric_answer(answer, env, signed=signed)


def _part_uses(answer: int | float | str, earlier: list[str]) -> list[str]:
    """The earlier steps a step's formula names."""
    if not isinstance(answer, str):
        return []
    names = parse_formula(answer).names
    return [name for name in earlier if name in names]


def truth(answer: object, names: Mapping[str, Value]) -> bool:
    """A true/false answer: the literal, or a formula that must give true or false."""
    if isinstance(answer, bool):
        return answer
    value = evaluate(str(answer), names)
    if not isinstance(value, bool):
        raise FormulaError(problem_message("formula.answer_not_bool", value=repr(value)))
    return value


def numeric_answer(answer: object, names: Mapping[str, Value], *, signed: bool = False) -> float:
    """A numeric answer: finite, and not negative (sizes, rates and times never are)
    unless the card is ``signed``."""
    value = evaluate(answer, names) if isinstance(answer, str | Formula) else answer
    result = number(value)
    if result < 0 and not signed:
        raise FormulaError(problem_message("formula.answer_negative", value=format_value(result)))
    return result


def bool_words(lang: str) -> Mapping[bool, str]:
    """How true/false read in ``lang`` inside prompts and explanations."""

    return {True: t("decks.true", lang), False: t("decks.false", lang)}


@dataclass(frozen=True)
class Deck:
    """A validated deck; ``title`` by language, ``cards`` in file order."""

    id: str
    title: Localized
    language: str
    post: str | None
    """The post its cards belong to by default; None for a course deck of its own."""
    cards: tuple[CardSpec, ...]
    path: Path
    source: DeckSource = "file"
    course: Localized | None = None
    """The course a deck without a post is listed under (the home screen's heading)."""
    summary: Localized | None = None
    """Markdown read before the deck's first session, as a post's summary is."""

    def card(self, card_id: str) -> CardSpec:
        """The card with ``card_id``; ``KeyError`` if there is none."""
        for card in self.cards:
            if card.id == card_id:
                return card
        raise KeyError(card_id)


def summary_key(deck_id: str) -> str:
    """The key a deck's summary is remembered as read under (beside the posts' slugs)."""
    return f"deck:{deck_id}"


def deck_title(deck: Deck, lang: str) -> str:
    """The deck's title in ``lang`` (falling back to the deck's language, then any)."""
    return pick_language(deck.title, lang, deck.language)
