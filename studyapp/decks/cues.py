"""Cues a question should not carry: choices that point at the answer, cards that give
another card's answer away.

- The right option is the longest more often than chance: over a set of
  choice cards, the share whose right option is the longest (strictly) may
  exceed the mean of 1/k (k options) by at most ``LONGEST_MARGIN``.
- A qualifier only in the right option: words ("both directions", "chips",
  "de altura"), a parenthesis or a unit that the right option has and no
  wrong one, when the wrong options are otherwise the right one's words.
- A give-away: a card's prompt or explanation contains another card's
  expected answer (same deck) and the two do not share a fact (a naming
  card, a term without figures, asked before the cards that use the term is
  not given away by them).

``deck validate`` reports these as warnings (``path:line:col: warning: …``);
tests hold the built-in decks and the generator families to them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from studyapp.decks.deck_model import CardSpec, Deck
from studyapp.decks.problems import Problem, ProblemMessage, problem_message

LONGEST_MARGIN = 0.10
"""How far above chance the right option may be the longest (10 points)."""
MIN_CARDS_FOR_RATE = 5
"""A deck's longest-option rate is judged from this many choice cards."""

_WORD = re.compile(r"[^\W\d_]+(?:[-/][^\W\d_]+)*", re.UNICODE)
_UNIT = re.compile(r"(?<![\w.])(?:\d[\d.,]*\s*)(GB/s|TB/s|Gb/s|Tb/s|GiB|TiB|GB|TB|MB|KB|"
                   r"TFLOPS|PFLOPS|FLOPS|W|kW|ms|µs|us|ns|s|%|x|×)(?![\w/])")


def words(text: str) -> set[str]:
    """The words of an option, lower case, numbers left out."""
    return {w.lower() for w in _WORD.findall(text)}


def units(text: str) -> set[str]:
    return {m.group(1) for m in _UNIT.finditer(text)}


def right_is_longest(options: Sequence[str], right: int) -> bool:
    """The right option is longer than every other one."""
    size = len(options[right].strip())
    return all(len(o.strip()) < size for n, o in enumerate(options) if n != right)


def lone_qualifier(options: Sequence[str], right: int) -> str | None:
    """What only the right option says, when the wrong ones are otherwise its words."""
    answer = options[right]
    others = [o for n, o in enumerate(options) if n != right]
    if not others:
        return None
    if "(" in answer and not any("(" in o for o in others):
        inside = answer[answer.index("("):]
        return inside[: inside.index(")") + 1] if ")" in inside else inside
    mine = units(answer)
    theirs = set().union(*(units(o) for o in others))
    if mine and not theirs and any(re.search(r"\d", o) for o in others):
        return sorted(mine)[0]
    own = words(answer)
    shared = [words(o) for o in others]
    if all(ws and ws < own for ws in shared):
        extra = own - set().union(*shared)
        if extra:
            return " ".join(sorted(extra))
    return None


@dataclass(frozen=True)
class LongestRate:
    """How often the right option is the longest, against chance."""

    longest: int
    cards: int
    chance: float
    """Expected share by chance: the mean of 1/k over the cards."""

    @property
    def share(self) -> float:
        return self.longest / self.cards if self.cards else 0.0

    @property
    def too_high(self) -> bool:
        return self.cards > 0 and self.share > self.chance + LONGEST_MARGIN


def longest_rate(items: Iterable[tuple[Sequence[str], int]]) -> LongestRate:
    """The rate over (options, right index) pairs."""
    longest = cards = 0
    chance = 0.0
    for options, right in items:
        if len(options) < 2:
            continue
        cards += 1
        chance += 1 / len(options)
        longest += right_is_longest(options, right)
    return LongestRate(longest, cards, chance / cards if cards else 0.0)


def choice_texts(card: CardSpec, lang: str) -> tuple[list[str], int] | None:
    """An authored choice card's options in ``lang`` and the right one's index."""
    if card.type != "choice" or not isinstance(card.answer, int) or card.params:
        return None
    return [card.text(c, lang) for c in card.choices], card.answer


def expected_answers(card: CardSpec, lang: str) -> list[str]:
    """What a card expects, as text that could be given away elsewhere."""
    if card.params or card.type == "generated":
        return []
    if card.type == "choice":
        texts = choice_texts(card, lang)
        return [texts[0][texts[1]]] if texts else []
    if card.type == "text" and card.answer is not None:
        answer = card.answer
        found = [card.text(answer, lang) if isinstance(answer, dict) else str(answer)]
        return found
    if card.type == "numeric" and isinstance(card.answer, int | float) and card.unit:
        number = f"{card.answer:,.6g}" if abs(card.answer) < 1e6 else f"{card.answer:,.0f}"
        if lang == "es":
            number = number.replace(",", " ").replace(".", ",").replace(" ", "")
        return [f"{number} {card.unit}"]
    return []


_MIN_GIVEAWAY = 6
"""Answers shorter than this ("HBM", "8") are too common to count as given away..."""
_MIN_FIGURE = 5
"""...unless they carry a figure: "80 GB", "700 W", "HBM3e" name one chip's fact."""
_RANGE = re.compile(r"\d+(?:[.,]\d+)?\s*[–-]\s*\d+(?:[.,]\d+)?")
"""A range of figures ("12–14") is specific however short: it counts."""


def _norm(text: str) -> str:
    return " ".join(text.lower().split())


def _wanted(answer: str) -> str | None:
    """The phrase an answer is looked for as, or None when it is too common to count."""
    wanted = _norm(answer).rstrip(".").lstrip("≈~ ")
    specific = (len(wanted) >= _MIN_GIVEAWAY or _RANGE.fullmatch(wanted) is not None
                or (len(wanted) >= _MIN_FIGURE and re.search(r"\d", wanted) is not None))
    return wanted if specific else None


def gives_away(text: str, answer: str) -> bool:
    """``text`` contains ``answer`` as a phrase (not inside a longer word or number)."""
    wanted = _wanted(answer)
    if wanted is None:
        return False
    pattern = r"(?<![\w.,])" + re.escape(wanted) + r"(?![\w])"
    return re.search(pattern, _norm(text)) is not None


_TOKEN = re.compile(r"\w+|\W")
_WORD_CHAR = re.compile(r"\w")


class AnswerIndex:
    """Many answers looked for in many texts at once, as :func:`gives_away` looks for one.

    A phrase can only start where a word or a single other character starts
    (not after a letter, a digit, ``.`` or ``,``), and it starts with that
    word exactly: so the answers are grouped by their first word, then by
    length, and each place in a text is checked against one group's lengths.
    Checking a deck grows with its size, not with its square.
    """

    def __init__(self, answers: Iterable[str]) -> None:
        self._by_lead: dict[str, dict[int, dict[str, list[int]]]] = {}
        for number, answer in enumerate(answers):
            wanted = _wanted(answer)
            if wanted is None:
                continue
            lead = _TOKEN.match(wanted)
            assert lead is not None  # a specific phrase is never empty
            lengths = self._by_lead.setdefault(lead.group(), {})
            lengths.setdefault(len(wanted), {}).setdefault(wanted, []).append(number)

    def found_in(self, text: str) -> list[int]:
        """The numbers (by position given) of the answers ``text`` gives away, each once."""
        norm = _norm(text)
        found: list[int] = []
        for token in _TOKEN.finditer(norm):
            start = token.start()
            if start and (norm[start - 1] in ".," or _WORD_CHAR.match(norm[start - 1])):
                continue
            for length, phrases in self._by_lead.get(token.group(), {}).items():
                end = start + length
                numbers = phrases.get(norm[start:end])
                if numbers and (end == len(norm) or not _WORD_CHAR.match(norm[end])):
                    found += numbers
        return list(dict.fromkeys(found))


def _taught_first(taker: CardSpec, answer: str, place: dict[str, int], giver: CardSpec) -> bool:
    """A naming card (a term, no figure) asked before the cards that use the term.

    "What is this called?" teaches a word the post's later cards must use
    ("all-reduce", "KV cache"); asked first, the later cards use what it
    taught instead of giving it away.
    """
    return (taker.type == "text" and not re.search(r"\d", answer)
            and place[taker.id] < place[giver.id])


@dataclass(frozen=True)
class GiveAway:
    """``giver``'s text contains ``taker``'s expected answer."""

    giver: CardSpec
    taker: CardSpec
    lang: str
    answer: str
    field: str  # prompt or explanation


def give_aways(deck: Deck, fact_of: dict[str, str | None] | None = None) -> list[GiveAway]:
    """Every card whose prompt or explanation holds another card's answer, unless siblings."""
    facts = fact_of if fact_of is not None else {c.id: c.fact for c in deck.cards}
    place = {card.id: n for n, card in enumerate(deck.cards)}
    found: list[GiveAway] = []
    for lang in ("en", "es"):
        answers = [(card, a) for card in deck.cards for a in expected_answers(card, lang)]
        index = AnswerIndex(a for _, a in answers)
        for giver in deck.cards:
            if giver.type == "generated":
                continue
            texts = {"prompt": giver.text(giver.prompt, lang) if giver.prompt else "",
                     "explanation": (giver.text(giver.explanation, lang)
                                     if giver.explanation else "")}
            where: dict[int, str] = {}  # answer → the first field that gives it away
            for name, text in texts.items():
                for number in index.found_in(text) if text else ():
                    where.setdefault(number, name)
            for number in sorted(where):
                taker, answer = answers[number]
                if taker.id == giver.id:
                    continue
                fact = facts.get(taker.id)
                if fact and fact == facts.get(giver.id):
                    continue
                if _taught_first(taker, answer, place, giver):
                    continue
                found.append(GiveAway(giver, taker, lang, answer, where[number]))
    return found


def deck_warnings(deck: Deck) -> list[Problem]:
    """Cues in a deck's choices and give-aways between its cards, as warnings."""
    warnings: list[Problem] = []
    said: set[tuple[str, str]] = set()

    def warn(card: CardSpec, message: ProblemMessage) -> None:
        warnings.append(Problem.at(card.path, card.line, card.col, message))

    for lang in ("en", "es"):
        choices = [(card, texts) for card in deck.cards
                   if (texts := choice_texts(card, lang)) is not None]
        rate = longest_rate(texts for _, texts in choices)
        if rate.cards >= MIN_CARDS_FOR_RATE and rate.too_high:
            for card, (options, right) in choices:
                if right_is_longest(options, right) and (card.id, "") not in said:
                    said.add((card.id, ""))
                    warn(card, problem_message(
                        "cue_longest", lang=lang, share=round(100 * rate.share),
                        chance=round(100 * rate.chance), margin=round(100 * LONGEST_MARGIN)))
        for card, (options, right) in choices:
            qualifier = lone_qualifier(options, right)
            if qualifier is not None and (card.id, qualifier) not in said:
                said.add((card.id, qualifier))  # a deck in one language: said once
                warn(card, problem_message("cue_qualifier", lang=lang, words=qualifier))
    seen: set[tuple[str, str]] = set()
    for found in give_aways(deck):
        if (found.giver.id, found.taker.id) in seen:
            continue
        seen.add((found.giver.id, found.taker.id))
        warn(found.giver, problem_message("give_away", field=found.field, lang=found.lang,
                                          other=found.taker.id, answer=found.answer))
    return sorted(set(warnings))
