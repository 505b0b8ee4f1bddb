"""Item analysis: each card across the class, with Moodle's statistics and what to do.

Per card, on first attempts and on all attempts, the facility index, standard
deviation, discrimination index and discriminative efficiency (``item_stats``);
every distinct answer given, in the card's unit, with its count and the slip it
was named as; steps right from a student's own wrong earlier step counted as
right-from-carried, apart from right and wrong, naming no slip; overrides and
mean time. The flags (``check the key``, ``reteach``, ``too easy``) come first.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from studyapp.classroom.item_stats import CHECK_KEY, RETEACH, ItemStats, flags, stats_from_sums
from studyapp.progress import round_or_none
from studyapp.questions.formatting import unit_after
from studyapp.store.item_answers import ResponseCount, StepsAnswer, UnnamedWrong
from studyapp.store.item_figures import ItemSums, MarkSums
from studyapp.store.verdicts import RIGHT

if TYPE_CHECKING:
    from studyapp.decks import Deck


RETEACH_BELOW = 0.5
"""A card is hard for the class when fewer than half of the students got it right the first
time (``item_stats.LOW_FACILITY``): reteach it, or check its key."""

TOP_ANSWERS = 3
"""The most common wrong answers (and named slips) listed per card in the table."""

CARRIED = "carried"
"""A response's verdict when it is a step right from the student's own wrong earlier step."""


@dataclass(frozen=True)
class Response:
    """One distinct answer to a card: how it was judged, how often, the slip it showed."""

    answer: str
    verdict: str
    """``right``, ``wrong`` or ``carried`` (a step right from a carried-forward answer)."""
    count: int
    slip: str = ""

    def as_json(self) -> dict[str, Any]:
        return {"answer": self.answer, "verdict": self.verdict, "count": self.count,
                "slip": self.slip or None}


@dataclass(frozen=True)
class ItemReport:
    """One card across the class: its statistics, answers, named slips and flags."""

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
    first: ItemStats | None = None
    """Moodle's statistics on each student's first attempt."""
    every: ItemStats | None = None
    """The same on all attempts."""
    responses: tuple[Response, ...] = ()
    """Every distinct answer, most frequent first."""
    overrides: int = 0
    carried: int = 0
    """Answers with a step right from the student's own wrong earlier step."""
    mean_time_s: float | None = None
    flags: tuple[str, ...] = ()
    self_graded: bool = False
    """A recall card: the learner rates their own recall and types nothing, so it has no
    wrong answers to list (its misses count in ``wrong`` all the same)."""

    @property
    def lists_wrong_answers(self) -> bool:
        """Whether the wrong-answers table has a row for it: missed, and typed answers."""
        return self.wrong > 0 and not self.self_graded

    @property
    def accuracy(self) -> float | None:
        return self.correct / self.reviews if self.reviews else None

    def share(self, count: int) -> float:
        """``count`` as a share of this card's wrong answers (a scenario's: of its wrong
        steps, which outnumber its wrong answers when a step goes wrong in a scenario
        answered right from there on)."""
        wrong = max(self.wrong, sum(r.count for r in self.responses if r.verdict == "wrong"))
        return count / wrong if wrong else 0.0

    def as_json(self) -> dict[str, Any]:
        return {
            "deck": self.deck_id, "card": self.card_key, "post": self.post,
            "prompt": self.prompt, "flags": list(self.flags), "students": self.students,
            "first_try_accuracy": round(self.first_try_accuracy, 4), "reviews": self.reviews,
            "accuracy": round_or_none(self.accuracy), "wrong": self.wrong,
            "first_attempts": self.first.as_json() if self.first else None,
            "all_attempts": self.every.as_json() if self.every else None,
            "overrides": self.overrides, "carried": self.carried,
            "mean_time_s": None if self.mean_time_s is None else round(self.mean_time_s, 1),
            "responses": [r.as_json() for r in self.responses],
            "wrong_answers": [{"answer": a, "count": n, "share": round(self.share(n), 4)}
                              for a, n in self.answers],
            "slips": [{"slip": name, "count": n, "share": round(self.share(n), 4)}
                      for name, n in self.slips],
        }


Key = tuple[str, str]


def build_items(sums: Sequence[ItemSums], first: Mapping[Key, MarkSums],
                every: Mapping[Key, MarkSums], responses: Sequence[ResponseCount],
                steps: Sequence[StepsAnswer], unnamed: Sequence[UnnamedWrong],
                decks: Sequence[Deck]) -> tuple[ItemReport, ...]:
    """Per card: the sums and Moodle's statistics (both computed by the database,
    ``store.item_figures``), every answer with its slip, the flags; hardest (lowest
    first-attempt facility) first."""
    specs = {(deck.id, spec.id): spec for deck in decks for spec in deck.cards}
    named = _named_again(unnamed, specs)
    answered = _responses(responses, steps, named, specs)
    items = []
    for row in sums:
        key = (row.deck_id, row.card_key)
        spec = specs.get(key)
        on_first, on_all = stats_from_sums(first.get(key)), stats_from_sums(every.get(key))
        students, ok = row.students, row.right
        given = answered.get(key, ())
        listed = sum(r.count for r in given if r.verdict == RIGHT)
        if ok > listed:  # the right answers, counted per card: as the key says it
            given = (*given, Response(_key_label(spec), RIGHT, ok - listed))
        wrong_n: Counter[str] = Counter()
        for r in given:
            if r.verdict == "wrong" and r.answer:
                wrong_n[r.answer] += r.count
        slips: Counter[str] = Counter()
        for r in given:
            if r.verdict == "wrong" and r.slip:
                slips[r.slip] += r.count
        items.append(ItemReport(
            key[0], key[1], row.post, _prompt_text(spec), students,
            row.first_right / students if students else 0.0, row.answers, ok,
            row.answers - ok, _most_common(wrong_n), _most_common(slips), on_first, on_all,
            tuple(sorted(given, key=lambda r: (-r.count, r.verdict, r.answer))),
            row.overrides, row.carried,
            row.duration_ms / row.timed / 1000 if row.timed else None,
            flags(on_first, row.overrides),
            self_graded=spec is not None and spec.type == "recall"))
    items.sort(key=lambda i: (i.first_try_accuracy if i.students else 2.0, -i.students,
                              i.deck_id, i.card_key))
    return tuple(items)


def _responses(counts: Sequence[ResponseCount], steps: Sequence[StepsAnswer],
               named: Mapping[tuple[Key, str, str | None], Counter[str]],
               specs: Mapping[Key, Any]) -> dict[Key, tuple[Response, ...]]:
    """Every distinct answer per card, in the card's unit, with its verdict and slip."""
    found: dict[Key, Counter[tuple[str, str, str]]] = {}
    labels: dict[tuple[Key, str | None, str | None, str | None, str], str] = {}
    scenarios = {(s.deck_id, s.card_key) for s in steps}
    for c in counts:
        key = (c.deck_id, c.card_key)
        spec = specs.get(key)
        tally = found.setdefault(key, Counter())
        if key in scenarios or (spec is not None and spec.type == "scenario"):
            continue  # counted by its steps below
        label_key = (key, c.response, c.lang, c.picked, c.verdict)
        label = labels.get(label_key)
        if label is None:
            label = labels[label_key] = _answer_label(spec, c)
        if c.slip is None:  # an older answer: named by grading it again
            again = named.get((key, c.response or "", c.lang), Counter())
            left = c.count
            for slip, n in again.most_common():
                take = min(n, left)
                if take:
                    tally[(label, c.verdict, slip)] += take
                    left -= take
            if left:
                tally[(label, c.verdict, "")] += left
        else:
            tally[(label, c.verdict, c.slip)] += c.count
    for answer in steps:
        tally = found.setdefault((answer.deck_id, answer.card_key), Counter())
        for step in answer.steps:
            name = str(step.get("name") or "?")
            typed = " ".join(str(step.get("given") or step.get("response") or "").split())
            if step.get("carried"):  # right from the student's own earlier step: no slip
                tally[(f"{name}: {typed}", CARRIED, "")] += answer.count
            elif not step.get("correct"):
                slip = next(iter(step.get("slips") or ()), "")
                tally[(f"{name}: {typed}", "wrong", f"{name}: {slip}" if slip else "")] += \
                    answer.count
    return {key: tuple(Response(a, v, n, s) for (a, v, s), n in tally.items() if n)
            for key, tally in found.items()}


def _named_again(unnamed: Sequence[UnnamedWrong], specs: Mapping[Key, Any]
                 ) -> dict[tuple[Key, str, str | None], Counter[str]]:
    """The slips of older wrong answers (stored without them), by grading each again."""
    named: dict[tuple[Key, str, str | None], Counter[str]] = {}
    for answer in unnamed:
        key = (answer.deck_id, answer.card_key)
        slips = _slips_of(specs.get(key), answer)
        named.setdefault((key, answer.response, answer.lang), Counter())[
            slips[0] if slips else ""] += 1
    return named


def _answer_label(spec: Any, given: ResponseCount) -> str:
    """How an answer is counted: a choice by its text, a number of an authored card by its
    value in the card's unit (so "163.84" and "163.84 KB" are one answer), a true/false
    answer as the word it means, else as typed; a generated card's answers by verdict."""
    if given.response is None:  # a generated card: new numbers at every draw
        return ""
    if given.picked:
        return " ".join(given.picked.split())
    typed = " ".join(given.response.split())
    if spec is None or not typed:
        return typed
    lang = given.lang or spec.language
    if spec.type == "choice" and given.verdict == RIGHT:
        return _key_text(spec, lang) or typed
    if spec.type == "numeric":
        from studyapp.numbers import format_number
        from studyapp.questions.grading import value_in_unit

        unit = spec.unit or None
        value = value_in_unit(unit, typed, lang)
        if value is not None and math.isfinite(value):
            shown = format_number(value, "en", sig=6, grouping=False)
            return f"{shown} {unit_after(shown, unit, 'en')}" if unit else shown
    if spec.type == "truefalse":
        from studyapp.questions.grading import grade

        try:
            return grade(spec.instantiate(0, lang), typed).given or typed
        except Exception:  # a card changed since the answer: the typed text is kept
            return typed
    return typed


def _key_label(spec: Any) -> str:
    """A card's right answer as its wrong answers are labelled (empty for a card whose
    numbers change at every draw)."""
    if spec is None or spec.is_template or spec.type in ("scenario", "recall"):
        return ""
    try:
        question = spec.instantiate(0, spec.language)
    except Exception:  # a card that no longer draws: unlabelled
        return ""
    if spec.type == "numeric" and isinstance(question.answer, int | float):
        from studyapp.numbers import format_number

        shown = format_number(float(question.answer), "en", sig=6, grouping=False)
        return f"{shown} {unit_after(shown, spec.unit, 'en')}" if spec.unit else shown
    if spec.type == "choice":
        return _key_text(spec, spec.language) or ""
    from studyapp.questions.grading import expected_display

    return expected_display(question)


def _key_text(spec: Any, lang: str) -> str | None:
    """A choice card's right choice, by its text."""
    try:
        question = spec.instantiate(0, lang)
        answer = question.answer
        return str(question.choices[answer]) if isinstance(answer, int) else str(answer)
    except Exception:  # a card that no longer draws: the typed text is kept
        return None


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


def _slips_of(spec: Any, answer: UnnamedWrong) -> tuple[str, ...]:
    """The named slips of an older wrong answer, by grading it again as it was shown."""
    if spec is None or answer.seed is None:
        return ()
    from studyapp.questions.grading import grade
    from studyapp.study.session import showing

    try:
        question = showing(spec, answer.seed, answer.lang or spec.language)
        return grade(question, answer.response).slips[:1]
    except Exception:  # a card changed since the answer: its slips are not named
        return ()


def flagged(items: Sequence[ItemReport], flag: str) -> tuple[ItemReport, ...]:
    """The cards raising ``flag``."""
    return tuple(i for i in items if flag in i.flags)


__all__ = ["CARRIED", "CHECK_KEY", "RETEACH", "RETEACH_BELOW", "ItemReport", "Response",
           "build_items", "flagged"]
