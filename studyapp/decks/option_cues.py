"""Whether the right option of a choice stands out, measured against chance.

A reader who never studied can still score by picking the option that looks
different: the longest, the second-longest (once writers learn to avoid the
longest), the shortest, the only one with a figure, the only plural. Each of
those is a *mark*: a test on one option among the card's options.

Chance is read from each card's own options. If the right option were a
uniform pick among the k options, the card would show mark ``m`` with
probability p = (options that show m) / k: 1/k for a unique longest option, 0
when two options tie for longest, 1 when every option is as long. Over n
cards, the number that show ``m`` is then a sum of independent Bernoulli(p_i)
draws (a Poisson binomial); its exact distribution is computed, and a count
outside its central 99% (the 0.5% and 99.5% quantiles) says the writer's
choice of distractors, not chance, decides where the answer sits. Too few is
a cue as well: a reader who learns "never the longest" eliminates an option.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

Options = Sequence[str]
Mark = Callable[[Options, int, str], bool]
"""Whether option ``index`` of the options shows the mark, in language ``lang``."""

CONFIDENCE = 0.99
"""The central share of the chance distribution a count may fall in."""


def _length(text: str) -> int:
    return len(" ".join(text.split()))


def longest(options: Options, index: int, lang: str) -> bool:
    """No other option is longer (characters, spaces collapsed)."""
    size = _length(options[index])
    return all(_length(o) <= size for o in options)


def second_longest(options: Options, index: int, lang: str) -> bool:
    """Exactly one other option is longer."""
    size = _length(options[index])
    return sum(_length(o) > size for o in options) == 1


def shortest(options: Options, index: int, lang: str) -> bool:
    """No other option is shorter."""
    size = _length(options[index])
    return all(_length(o) >= size for o in options)


_DIGIT = re.compile(r"\d")


def only_with_number(options: Options, index: int, lang: str) -> bool:
    """The option has a figure and no other option has one."""
    return (_DIGIT.search(options[index]) is not None
            and sum(_DIGIT.search(o) is not None for o in options) == 1)


_LEAD_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)
_SKIP = {
    "en": {"the", "a", "an", "it", "its", "is", "are", "they", "because", "of", "and",
           "only", "just", "about", "yes", "no", "not", "with", "without", "both",
           "all", "each", "per", "one", "to", "in", "on", "by", "for", "from", "at",
           "than", "more", "less", "that", "this", "as", "so", "same", "always"},
    "es": {"el", "la", "lo", "un", "una", "es", "son", "porque", "de", "del", "y", "e",
           "solo", "sólo", "unas", "sí", "no", "con", "sin", "ambos", "ambas", "cada", "por",
           "a", "al", "en", "que", "más", "menos", "se", "su", "sus", "para", "como",
           "mismo", "misma", "todo", "toda", "todos", "todas", "siempre", "ni"},
}
_PLURAL_ARTICLES = {"en": {"these", "those", "two", "three", "four", "several", "many"},
                    "es": {"los", "las", "unos", "unas", "dos", "tres", "cuatro", "varios",
                           "varias", "muchos", "muchas"}}
_NOT_PLURAL = {"en": ("ss", "us", "is"),
               "es": ("ás", "és", "ís", "ós", "ús", "is", "us", "sis")}
_UNIT_WORDS = {"gb", "tb", "mb", "gib", "tib", "flops", "tflops", "pflops", "gbe", "ms", "us",
               "ns", "s", "w", "kw", "bf", "fp", "hbm", "pcie", "nvlink", "roce", "tops"}


def grammatical_number(text: str, lang: str) -> str | None:
    """"plural" or "singular" by the option's first noun-like word; None without words.

    A heuristic, good for short options: a plural determiner or a number above
    one before the first word says plural; else the first word that is not an
    article, a pronoun, a preposition or a unit is plural when it ends in -s
    (not -ss, -us, -is, and in Spanish not a stressed -ás/-és).
    """
    skip, plural_words = _SKIP.get(lang, _SKIP["en"]), _PLURAL_ARTICLES.get(lang, set())
    lead = re.match(r"\s*[≈~]?\s*(\d[\d.,]*)\s+([^\W\d_]+)", text)
    unit = lead is not None and (lead.group(2).lower() in _UNIT_WORDS or lead.group(2).isupper())
    if lead is not None and not unit:
        figure = lead.group(1).replace(",", "").replace(".", "")
        return "singular" if figure == "1" else "plural"
    for word in _LEAD_WORD.findall(text):
        low = word.lower()
        if low in plural_words:
            return "plural"
        if low in skip or low in _UNIT_WORDS or len(low) < 3 or word.isupper():
            continue
        if low.endswith("s") and not low.endswith(_NOT_PLURAL.get(lang, _NOT_PLURAL["en"])):
            return "plural"
        return "singular"
    return None


def lone_grammatical_number(options: Options, index: int, lang: str) -> bool:
    """The option is the only plural among singulars, or the only singular among plurals."""
    if len(options) < 3:
        return False
    numbers = [grammatical_number(o, lang) for o in options]
    mine = numbers[index]
    if mine is None or None in numbers:
        return False
    return sum(n == mine for n in numbers) == 1


MARKS: dict[str, Mark] = {
    "longest": longest,
    "second_longest": second_longest,
    "shortest": shortest,
    "only_with_number": only_with_number,
    "lone_grammatical_number": lone_grammatical_number,
}
"""Every mark measured, by name."""


def _poisson_binomial(chances: Sequence[float]) -> list[float]:
    """P(count = c) for c in 0..n, for independent draws with these chances."""
    dist = [1.0]
    for p in chances:
        nxt = [0.0] * (len(dist) + 1)
        for c, q in enumerate(dist):
            nxt[c] += q * (1 - p)
            nxt[c + 1] += q * p
        dist = nxt
    return dist


def central_bounds(chances: Sequence[float], confidence: float = CONFIDENCE) -> tuple[int, int]:
    """The smallest and largest counts inside the central ``confidence`` of chance."""
    dist = _poisson_binomial(chances)
    tail = (1 - confidence) / 2
    total, low = 0.0, 0
    for c, q in enumerate(dist):
        total += q
        if total > tail:
            low = c
            break
    total, high = 0.0, len(dist) - 1
    for c in range(len(dist) - 1, -1, -1):
        total += dist[c]
        if total > tail:
            high = c
            break
    return low, high


@dataclass(frozen=True)
class MarkRate:
    """How many cards' right option shows a mark, against what chance allows."""

    mark: str
    count: int
    cards: int
    """Cards where some option shows the mark (the others cannot show it by any pick)."""
    expected: float
    low: int
    high: int

    @property
    def share(self) -> float:
        return self.count / self.cards if self.cards else 0.0

    @property
    def chance(self) -> float:
        return self.expected / self.cards if self.cards else 0.0

    @property
    def outside(self) -> bool:
        return not self.low <= self.count <= self.high

    def __str__(self) -> str:
        return (f"{self.mark}: {self.count}/{self.cards} ({100 * self.share:.0f}%), chance "
                f"{self.expected:.1f} ({100 * self.chance:.0f}%), 99% bounds "
                f"[{self.low}, {self.high}]")


def mark_rate(name: str, cards: Iterable[tuple[Options, int]], lang: str) -> MarkRate:
    """The count of cards whose right option shows mark ``name``, with chance's bounds."""
    mark = MARKS[name]
    chances: list[float] = []
    count = 0
    for options, right in cards:
        if len(options) < 2:
            continue
        p = sum(mark(options, n, lang) for n in range(len(options))) / len(options)
        if p == 0:
            continue
        chances.append(p)
        count += mark(options, right, lang)
    low, high = central_bounds(chances)
    return MarkRate(name, count, len(chances), sum(chances), low, high)


def mark_rates(cards: Sequence[tuple[Options, int]], lang: str) -> list[MarkRate]:
    return [mark_rate(name, cards, lang) for name in MARKS]
