"""A mock exam: a timed paper across posts, no feedback until it is handed in.

The paper mixes methods (numbers drawn fresh), facts and at least one
scenario when the posts have one, one card per family, the posts taken in
turn. While it runs, an answer is only checked for being readable (a number
in a unit of the right kind): whether it is right stays hidden. Handing it in,
or the time running out, grades everything at once: a score per post and per
misconception (the traps the questions set, and how many caught the learner),
each question with its worked solution. The schedule is untouched unless the
learner asks for the answers to count as reviews.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from studyapp.i18n import t
from studyapp.numbers import format_number
from studyapp.questions.generators import registered_families
from studyapp.questions.grading import Verdict, grade
from studyapp.questions.misconceptions import misconception_of
from studyapp.questions.model import Kind, Question
from studyapp.questions.scenario import PartVerdict, grade_part
from studyapp.study.curriculum import CurriculumCard
from studyapp.study.showing import showing
from studyapp.text import visible

DEFAULT_COUNT = 20
DEFAULT_MINUTES = 30.0

METHOD = "method"
FACT = "fact"
SCENARIO = "scenario"
ROLES = (METHOD, FACT, SCENARIO)


class TimeUp(Exception):
    """An answer given after the paper's time ran out: it is not taken."""


@dataclass(frozen=True)
class ExamItem:
    """One question on the paper: the card it came from, its role and the showing drawn."""

    key: tuple[str, str]
    post: str
    role: str
    question: Question
    seed: int


@dataclass
class _Answer:
    response: str | None = None
    verdict: Verdict | None = None
    steps: list[PartVerdict] = field(default_factory=list)
    step_responses: list[str] = field(default_factory=list)


def role_of(card: CurriculumCard, question: Question) -> str:
    """Scenario, method (a generated computation with fresh numbers) or fact."""
    if question.kind is Kind.SCENARIO:
        return SCENARIO
    if card.generated and not card.fact:
        return METHOD
    return FACT


def planned_role(card: CurriculumCard) -> str | None:
    """The role ``card``'s questions take, known from the card alone (its family's kind or
    its type): None for a self-graded card, or one whose family is not loaded."""
    kind: Kind | None = card.spec.kind
    if kind is None:  # generated: the family says what its questions are
        family = registered_families().get(card.template)
        if family is None:
            return None
        kind = family.kind
    if kind is Kind.RECALL:
        return None  # self-graded: nothing to grade at the end
    if kind is Kind.SCENARIO:
        return SCENARIO
    return METHOD if card.generated and not card.fact else FACT


def draw_paper(cards: Iterable[CurriculumCard], posts: Sequence[str], *, count: int,
               seed: int, lang: str) -> list[ExamItem]:
    """Up to ``count`` questions over ``posts``: one scenario first when any exists, then the
    posts in turn, each giving a method and a fact alternately; one card per family or fact.

    Cards are sorted into roles without drawing them; only the questions the paper
    takes are drawn. Fewer come back when the posts hold fewer different cards.
    """
    rng = random.Random(f"exam/{seed}")
    by_post: dict[str, dict[str, list[tuple[int, CurriculumCard]]]] = {
        p: defaultdict(list) for p in posts}
    for n, card in enumerate(sorted(cards, key=lambda c: c.order)):
        pools = by_post.get(card.spec.post)
        role = planned_role(card) if pools is not None else None
        if pools is not None and role is not None:
            pools[role].append((n, card))
    for pools in by_post.values():
        for pool in pools.values():
            rng.shuffle(pool)
    paper: list[ExamItem] = []
    used: set[str] = set()

    def drawn(n: int, card: CurriculumCard, post: str) -> ExamItem | None:
        draw = random.Random(f"exam/{seed}/{n}").getrandbits(63)
        try:
            question = showing(card.spec, draw, lang)
        except Exception:  # a card that cannot be drawn stays off the paper, as in a session
            return None
        if question.kind is Kind.RECALL:
            return None
        return ExamItem(card.key, post, role_of(card, question), question, draw)

    def take(post: str, role: str) -> bool:
        pool = by_post[post][role]
        while pool:
            n, card = pool.pop()
            if card.template in used:  # a family, or an authored card, asked already
                continue
            item = drawn(n, card, post)
            if item is None or _family(item) in used:
                continue
            used.update((card.template, _family(item)))
            paper.append(item)
            return True
        return False

    scenario_posts = [p for p in posts if by_post[p][SCENARIO]]
    if scenario_posts and count >= 3:
        take(rng.choice(scenario_posts), SCENARIO)
    turn = 0
    while len(paper) < count:
        placed = False
        for post in posts:
            if len(paper) >= count:
                break
            first, second = (METHOD, FACT) if turn % 2 == 0 else (FACT, METHOD)
            if take(post, first) or take(post, second) or take(post, SCENARIO):
                placed = True
        turn += 1
        if not placed:
            break
    return paper


def _family(item: ExamItem) -> str:
    """Cards that ask the same thing: a generator family or an authored card's fact."""
    q = item.question
    return q.family or f"{item.key[0]}/{item.key[1]}"


class ExamSheet:
    """The learner's answers to one paper while its time runs."""

    def __init__(self, items: Sequence[ExamItem], started_at: datetime, minutes: float) -> None:
        self.items = tuple(items)
        self.started_at = started_at
        self.deadline = started_at + timedelta(minutes=minutes)
        self.minutes = minutes
        self._answers = [_Answer() for _ in self.items]
        self.handed_in_at: datetime | None = None

    def left(self, now: datetime) -> timedelta:
        """Time left (zero once it has run out)."""
        return max(self.deadline - now, timedelta(0))

    def step(self, index: int) -> int:
        """The scenario step waiting for an answer on item ``index`` (0 for other questions)."""
        return len(self._answers[index].steps)

    def answered(self, index: int) -> bool:
        item, answer = self.items[index], self._answers[index]
        if item.question.kind is Kind.SCENARIO:
            return len(answer.steps) == len(item.question.parts)
        return answer.verdict is not None

    def answer(self, index: int, response: str, now: datetime) -> str | None:
        """Take an answer (a scenario's next step); a message when it must be given again.

        Only an unreadable answer is refused (not a number, a unit of the wrong
        kind): whether it is right is not said until the paper is handed in.
        """
        if now > self.deadline or self.handed_in_at is not None:
            raise TimeUp
        item, answer = self.items[index], self._answers[index]
        q = item.question
        if q.kind is Kind.SCENARIO:
            step = grade_part(q, len(answer.steps), response, answer.steps)
            if step.retry:
                return step.verdict.message
            answer.steps.append(step)
            answer.step_responses.append(response)
            return None
        verdict = grade(q, response)
        if verdict.retry:
            return verdict.message
        answer.response, answer.verdict = response, verdict
        return None

    def hand_in(self, now: datetime) -> ExamResult:
        """Grade the whole paper; questions left unanswered count as wrong."""
        self.handed_in_at = min(now, self.deadline)
        marks = [_mark(item, answer) for item, answer in zip(self.items, self._answers,
                                                             strict=True)]
        return ExamResult(self.started_at, self.handed_in_at, self.minutes, tuple(marks))


@dataclass(frozen=True)
class ItemMark:
    """One question handed in: its credit (0 to 1), the answer and what it showed."""

    item: ExamItem
    credit: float
    answered: bool
    responses: tuple[str, ...]
    expected: tuple[str, ...]
    slips: tuple[str, ...]
    """Slips the answer showed (a scenario's steps' too)."""
    traps: tuple[tuple[str, bool], ...]
    """(misconception, avoided) for each trap met: a question or step that set it and was
    answered right (avoided) or with its slip (caught). A blank or otherwise wrong answer
    says nothing about the misconception."""


def _traps(question: Question, verdict: Verdict | None) -> list[tuple[str, bool]]:
    if verdict is None or verdict.correct is None:
        return []
    fell = {misconception_of(k).key for k in verdict.slips[:1]}
    if verdict.correct:
        return [(key, True) for key in dict.fromkeys(misconception_of(s.key).key
                                                      for s in question.slips)]
    return [(key, False) for key in fell]


def _mark(item: ExamItem, answer: _Answer) -> ItemMark:
    q = item.question
    if q.kind is Kind.SCENARIO:
        steps = answer.steps
        right = sum(1 for s in steps if s.correct)
        credit = right / len(q.parts) if q.parts else 0.0
        slips = tuple(k for s in steps if not s.correct and not s.carried
                      for k in s.verdict.slips[:1])
        traps = [t for s in steps if not s.carried
                 for t in _traps(q.parts[s.index].question, s.verdict)]
        return ItemMark(item, credit, bool(steps), tuple(s.verdict.given for s in steps),
                        tuple(s.verdict.expected for s in steps), slips, tuple(traps))
    verdict = answer.verdict
    if verdict is None:
        return ItemMark(item, 0.0, False, (), (), (), ())
    credit = 1.0 if verdict.correct else 0.0
    return ItemMark(item, credit, True, (verdict.given,), (verdict.expected,),
                    tuple(verdict.slips[:1]), tuple(_traps(q, verdict)))


@dataclass(frozen=True)
class Score:
    """Credit over questions (or traps) for one post or misconception."""

    key: str
    credit: float
    out_of: int

    @property
    def share(self) -> float:
        return self.credit / self.out_of if self.out_of else 0.0


@dataclass(frozen=True)
class ExamResult:
    """A paper handed in: when, and every question's mark."""

    started_at: datetime
    handed_in_at: datetime
    minutes: float
    marks: tuple[ItemMark, ...]

    @property
    def credit(self) -> float:
        return sum(m.credit for m in self.marks)

    @property
    def share(self) -> float:
        return self.credit / len(self.marks) if self.marks else 0.0

    def by_post(self) -> list[Score]:
        credit: dict[str, float] = defaultdict(float)
        count: dict[str, int] = defaultdict(int)
        for m in self.marks:
            credit[m.item.post] += m.credit
            count[m.item.post] += 1
        return [Score(p, credit[p], count[p]) for p in count]

    def by_misconception(self) -> list[Score]:
        """Per misconception the paper met: traps avoided over traps met, worst first."""
        met: dict[str, int] = defaultdict(int)
        avoided: dict[str, int] = defaultdict(int)
        for m in self.marks:
            for key, ok in m.traps:
                met[key] += 1
                avoided[key] += ok
        scores = [Score(k, float(avoided[k]), met[k]) for k in met]
        scores.sort(key=lambda s: (s.share, s.key))
        return scores

    def as_json(self) -> dict[str, Any]:
        return {
            "started_at": self.started_at.isoformat(),
            "handed_in_at": self.handed_in_at.isoformat(),
            "minutes": self.minutes,
            "score": round(self.credit, 3),
            "out_of": len(self.marks),
            "share": round(self.share, 4),
            "posts": [{"post": s.key, "score": round(s.credit, 3), "out_of": s.out_of}
                      for s in self.by_post()],
            "misconceptions": [{"misconception": s.key, "avoided": round(s.credit),
                                "met": s.out_of} for s in self.by_misconception()],
            "questions": [{"deck": m.item.key[0], "card": m.item.key[1], "post": m.item.post,
                           "role": m.item.role, "seed": m.item.seed,
                           "prompt": m.item.question.prompt, "answered": m.answered,
                           "credit": round(m.credit, 3), "responses": list(m.responses),
                           "expected": list(m.expected), "slips": list(m.slips),
                           "solution": m.item.question.explanation}
                          for m in self.marks],
        }


def result_lines(result: ExamResult, lang: str) -> list[str]:
    """The handed-in paper as text: the score, per post, per misconception, then each question."""
    def pct(share: float) -> str:
        return f"{format_number(share * 100, lang, 3)}%"

    lines = [t("exam.result.score", lang, score=format_number(result.credit, lang, 3),
               total=len(result.marks), share=pct(result.share)), "",
             t("exam.result.posts", lang)]
    lines += [f"  {s.key}: {format_number(s.credit, lang, 3)}/{s.out_of}"
              for s in result.by_post()]
    tested = result.by_misconception()
    if tested:
        lines += ["", t("exam.result.misconceptions", lang)]
        lines += [t("exam.result.misconception", lang, name=misconception_of(s.key).name(lang),
                    avoided=int(s.credit), met=s.out_of) for s in tested]
    for n, mark in enumerate(result.marks, 1):
        q = mark.item.question
        lines += ["", f"[{n}/{len(result.marks)}] {visible(q.prompt)}"]
        if not mark.answered:
            lines.append(t("exam.result.blank", lang))
        else:
            lines.append(t("exam.result.answer", lang, given=visible(" · ".join(mark.responses)),
                           expected=visible(" · ".join(mark.expected)),
                           credit=format_number(mark.credit, lang, 2)))
        if q.explanation:
            lines += [t("plain.explanation", lang), visible(q.explanation)]
    return lines


__all__ = [
    "DEFAULT_COUNT", "DEFAULT_MINUTES", "FACT", "METHOD", "ROLES", "SCENARIO", "ExamItem",
    "ExamResult", "ExamSheet", "ItemMark", "Score", "TimeUp", "draw_paper", "planned_role",
    "result_lines", "role_of",
]
