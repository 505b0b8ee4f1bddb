"""The cards a learner can study: every deck card with its place in the curriculum."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from studyapp import locations
from studyapp.decks import CardSpec, Deck
from studyapp.questions.generators import registered_families


@dataclass
class CurriculumCard:
    """A deck card with its place in the curriculum (keys computed once: queues are hot)."""

    deck: Deck
    spec: CardSpec
    post_order: int
    deck_order: int
    card_order: int
    key: tuple[str, str] = field(init=False)
    template: str = field(init=False)
    order: tuple[int, int, int] = field(init=False)
    fact: str | None = field(init=False)
    generated: bool = field(init=False)
    """Drawn by a generator family: a numeric question with fresh numbers at each showing."""

    def __post_init__(self) -> None:
        self.key = (self.deck.id, self.spec.id)
        self.order = (self.post_order, self.deck_order, self.card_order)
        generator = getattr(self.spec, "generator", None)
        self.generated = bool(generator)
        self.template = str(generator) if generator else f"{self.deck.id}/{self.spec.id}"
        fact = getattr(self.spec, "fact", None)
        if fact:
            self.fact = family_fact(str(fact)) or str(fact)
        else:
            self.fact = family_fact(str(generator)) if generator else None


def sibling_answered(card: CurriculumCard, answered: dict[str, set[tuple[str, str]]]) -> bool:
    """Another card of this one's fact was answered today: this one is buried."""
    if not card.fact:
        return False
    keys = answered.get(card.fact)
    return keys is not None and (len(keys) > 1 or (len(keys) == 1 and card.key not in keys))


@dataclass(frozen=True)
class CardSelection:
    """The cards a session draws from, indexed once per set of decks (queues are hot)."""

    cards: tuple[CurriculumCard, ...]
    """In curriculum order (post, deck, card): new cards are taken in this order."""
    by_key: dict[tuple[str, str], CurriculumCard]
    keys: frozenset[tuple[str, str]]

    @classmethod
    def of(cls, cards: Iterable[CurriculumCard]) -> CardSelection:
        ordered = tuple(sorted(cards, key=lambda c: c.order))
        by_key = {card.key: card for card in ordered}
        return cls(ordered, by_key, frozenset(by_key))

    def in_order(self, keys: set[tuple[str, str]] | frozenset[tuple[str, str]]
                 ) -> Iterable[CurriculumCard]:
        """The cards with these keys, in curriculum order (few keys: no pass over all)."""
        if len(keys) * 8 < len(self.cards):
            return sorted((self.by_key[key] for key in keys), key=lambda c: c.order)
        return (card for card in self.cards if card.key in keys)


def family_fact(name: str) -> str | None:
    """The fact a generator family's cards share (both directions of a conversion).

    A deck card whose ``fact:`` names such a family (``fact: bits-vs-bytes``)
    shares that fact, so an authored NDR-to-GB/s card and a generated
    bits-vs-bytes card are siblings.
    """
    family = registered_families().get(name)
    return family.fact if family is not None else None


def deck_kind(deck: Deck) -> str:
    """post (built in, one per post), example (decks/examples), published (stored in the
    database by ``deck publish``), installed, or file."""
    if deck.source == "builtin":
        examples = locations.builtin_decks_dir() / "examples"
        return "example" if deck.path.is_relative_to(examples) else "post"
    if deck.source == "user" and deck.path.is_relative_to(locations.data_dir() / "published"):
        return "published"
    return "installed" if deck.source == "user" else "file"


def deck_on_by_default(deck: Deck) -> bool:
    """Post decks and installed decks are studied; the examples wait to be switched on."""
    return deck_kind(deck) != "example"
