"""The card index: the decks that load, their cards, and which of them a profile studies.

Built once per process from the deck files (and decks published into the
database), and kept until an operation reports that the decks
(``Changes.DECKS``) or the decks studied (``Changes.STUDY_SET``) changed.
"""

from __future__ import annotations

import gc
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from studyapp import locations
from studyapp.catalog import UnknownIdError
from studyapp.catalog.posts import POST_SLUGS
from studyapp.decks import CardSpec, Deck, deck_title, discover_decks, load_deck
from studyapp.decks.cues import expected_answers, gives_away
from studyapp.decks.deck_loader import collector_paused
from studyapp.study.changes import Changes, cached_until
from studyapp.study.curriculum import CardSelection, CurriculumCard, deck_kind, deck_on_by_default
from studyapp.study.scope import in_scope
from studyapp.study.views import DeckChoiceInfo, DeckRow, NoSuchItem

if TYPE_CHECKING:
    from studyapp.store.cards import CardRef
    from studyapp.study.ground import StudyGround
    from studyapp.study.host import CardKey


def deck_files(lang: str) -> list[DeckRow]:
    """Every deck file found, loaded or broken (it reads YAML: run it off the event loop)."""
    from studyapp.decks.deck_report import draw_problem_lines

    builtin = locations.builtin_decks_dir()
    rows: list[DeckRow] = []
    for listing in discover_decks():
        path = listing.path
        shown = (f"{builtin.name}/{path.relative_to(builtin)}" if path.is_relative_to(builtin)
                 else str(path))
        deck = listing.deck
        problems = tuple(problem.render(lang) for problem in listing.problems)
        if deck is not None:
            rows.append(DeckRow(deck.id, deck_title(deck, lang), len(deck.cards),
                                listing.source, shown, deck.post or "", problems,
                                skipped=tuple(draw_problem_lines(deck.id, lang))))
        else:
            rows.append(DeckRow(listing.id, path.name, 0, listing.source, shown, "",
                                problems or ("?",)))
    return rows


class CardIndex:
    """Every card of the decks that load, indexed by key and fact, and the studied ones."""

    def __init__(self, ground: StudyGround) -> None:
        self._ground = ground

    @cached_until(Changes.NONE)
    def decks(self) -> list[Deck]:
        """Every deck that loads (built-in, the user's, and --deck files); edited in place
        when a deck is replaced, never read again."""
        config = self._ground.config
        with collector_paused():  # tens of thousands of objects, all kept: see cards
            found = [listing.deck for listing in discover_decks() if listing.deck is not None]
            # decks published into the database replace files of the same id
            from studyapp.study.published import published_decks

            for deck in published_decks(self._ground.store, config.lang):
                found = [d for d in found if d.id != deck.id] + [deck]
            for path in config.extra_decks:
                deck = load_deck(path)
                found = [d for d in found if d.id != deck.id] + [deck]
        return found

    @cached_until(Changes.DECKS)
    def cards(self) -> list[CurriculumCard]:
        """Every card of every deck that loads, with its place in the curriculum."""
        order = {slug: n for n, slug in enumerate(POST_SLUGS)}
        cards: list[CurriculumCard] = []
        # Decks, catalog and posts live as long as the process: no collection while
        # they are read and indexed (with an 8,000-card deck, passes over the deck
        # just read tripled the time to index it), and then out of the collector's
        # reach, whose full passes over them cost tens of ms in the middle of a queue.
        with collector_paused():
            for deck_order, deck in enumerate(self.decks):
                for card_order, spec in enumerate(deck.cards):
                    cards.append(CurriculumCard(deck, spec, order.get(spec.post, 99),
                                                deck_order, card_order))
        gc.freeze()
        return cards

    @cached_until(Changes.DECKS)
    def by_key(self) -> dict[tuple[str, str], CurriculumCard]:
        return {card.key: card for card in self.cards}

    @cached_until(Changes.DECKS)
    def by_fact(self) -> dict[str, set[tuple[str, str]]]:
        facts: dict[str, set[tuple[str, str]]] = {}
        for card in self.cards:
            if card.fact:
                facts.setdefault(card.fact, set()).add(card.key)
        return facts

    @cached_until(Changes.DECKS)
    def written_answers(self
                        ) -> dict[tuple[str, str], list[tuple[tuple[str, str], list[str]]]]:
        """(deck, language) → each written card's key and expected answers (filled as asked)."""
        return {}

    @cached_until(Changes.STUDY_SET)
    def deck_choices(self) -> dict[str, bool]:
        """The profile's switch on each deck it turned on or off."""
        from studyapp.store.progress import deck_choices  # SQLAlchemy: on first use

        return deck_choices(self._ground.store, self._ground.profile.id)

    @cached_until(Changes.DECKS | Changes.STUDY_SET)
    def active_cards(self) -> list[CurriculumCard]:
        """Cards of the decks this learner studies (what home, review and posts count)."""
        enabled = {d.id for d in self.decks if self.deck_enabled(d)}
        return [c for c in self.cards if c.deck.id in enabled]

    @cached_until(Changes.DECKS | Changes.STUDY_SET)
    def active_keys(self) -> set[tuple[str, str]]:
        return {c.key for c in self.active_cards}

    @cached_until(Changes.DECKS | Changes.STUDY_SET)
    def selections(self) -> dict[tuple[str | None, str | None], CardSelection]:
        """Session card sets by (deck id, post), filled as sessions ask for them."""
        return {}

    # -- decks --------------------------------------------------------------

    def find_deck(self, ref: str) -> Deck:
        """A deck by id, or by path to a YAML file."""
        for deck in self.decks:
            if deck.id == ref:
                return deck
        path = Path(ref)
        if path.suffix in (".yaml", ".yml") and path.exists():
            deck = load_deck(path)
            # the file replaces a loaded deck of its id, as --deck does: never two of one id
            self.decks[:] = [d for d in self.decks if d.id != deck.id] + [deck]
            self._ground.changed(Changes.DECKS)
            return deck
        raise UnknownIdError("deck", ref, [d.id for d in self.decks])

    def deck_title_of(self, deck_id: str, lang: str) -> str:
        """A deck's title in ``lang`` (its id when no deck of that id loads)."""
        for deck in self.decks:
            if deck.id == deck_id:
                return deck_title(deck, lang)
        return deck_id

    def replace_deck(self, deck: Deck) -> None:
        """Swap in a deck edited while the app runs; its cards keep their progress."""
        self.decks[:] = [d for d in self.decks if d.id != deck.id] + [deck]
        self._ground.changed(Changes.DECKS)

    def deck_titles(self, lang: str) -> list[tuple[str, str]]:
        """(deck id, title) of every deck that loads, in the language asked for."""
        return [(deck.id, deck_title(deck, lang)) for deck in self.decks]

    def deck_enabled(self, deck: Deck) -> bool:
        if deck_kind(deck) == "file":  # given on the command line: studied
            return True
        return self.deck_choices.get(deck.id, deck_on_by_default(deck))

    def deck_list(self, lang: str) -> list[DeckChoiceInfo]:
        return [DeckChoiceInfo(d.id, deck_title(d, lang), deck_kind(d), len(d.cards),
                               self.deck_enabled(d)) for d in self.decks]

    def set_deck_enabled(self, deck_id: str, enabled: bool) -> DeckChoiceInfo:
        """Switch a deck on or off for this profile (``UnknownIdError`` if none has that id)."""
        from studyapp.store.progress import set_deck_choice  # SQLAlchemy: on first use

        deck = next((d for d in self.decks if d.id == deck_id), None)
        if deck is None:
            raise UnknownIdError("deck", deck_id, [d.id for d in self.decks])
        ground = self._ground
        set_deck_choice(ground.store, ground.profile.id, deck.id, enabled, ground.now())
        ground.changed(Changes.STUDY_SET)
        return next(info for info in self.deck_list(ground.config.lang)
                    if info.deck_id == deck_id)

    def mastery_places(self) -> dict[tuple[str, str], tuple[str | None, str]]:
        """Each card of the decks studied: the post its mastery counts under and its deck
        (``progress.mastery_places``, which the class report uses for every student)."""
        from studyapp.progress import mastery_places

        return mastery_places([d for d in self.decks if self.deck_enabled(d)])

    # -- cards --------------------------------------------------------------

    def card(self, deck_id: str, card_key: str) -> CardSpec:
        card = self.by_key.get((deck_id, card_key))
        if card is None:
            raise NoSuchItem(f"{deck_id}/{card_key}")
        return card.spec

    def card_refs(self, keys: Iterable[CardKey]) -> list[CardRef]:
        """The store's references to these cards (cards of no loaded deck left out)."""
        from studyapp.store.cards import CardRef  # SQLAlchemy: on first use

        refs = []
        for deck_id, card_key in keys:
            card = self.by_key.get((deck_id, card_key))
            if card is not None:
                refs.append(CardRef(deck_id, card_key, card.spec.post,
                                    getattr(card.spec, "generator", None)))
        return refs

    def siblings(self, deck_id: str, card_key: str) -> set[tuple[str, str]]:
        """Other cards sharing this card's fact."""
        card = self.by_key.get((deck_id, card_key))
        if card is None or not card.fact:
            return set()
        return self.by_fact[card.fact] - {card.key}

    def given_away(self, deck_id: str, texts: Iterable[str], lang: str) -> set[tuple[str, str]]:
        """Written cards of the deck whose expected answer these texts state.

        A drawn question states its chip's figures ("141 GB of HBM3e"): a written card
        asking that figure would be answered by it, so the session puts it off a day.
        """
        shown = [text for text in texts if text]
        answers = self.written_answers.get((deck_id, lang))
        if answers is None:  # worked out once per deck and language
            answers = [(card.key, found) for card in self.cards
                       if card.deck.id == deck_id and not card.generated
                       and (found := expected_answers(card.spec, lang))]
            self.written_answers[(deck_id, lang)] = answers
        return {key for key, found in answers
                if any(gives_away(text, a) for text in shown for a in found)}

    def session_cards(self, deck: str | None, post: str | None) -> CardSelection:
        """The cards a session over a deck or post asks from (a deck asked for by name is
        studied whether or not it is switched on): those whose post, or an earlier one,
        teaches what they ask."""
        wanted = self.find_deck(deck).id if deck is not None else None  # may load a deck file
        if post is not None and post not in POST_SLUGS:
            raise UnknownIdError("post", post, list(POST_SLUGS))
        selection = self.selections.get((wanted, post))
        if selection is None:
            cards: list[CurriculumCard] = (self.active_cards if wanted is None else
                                           [c for c in self.cards if c.deck.id == wanted])
            if post is not None:
                cards = [c for c in cards if c.spec.post == post]
            # only what the card's post, or an earlier one, teaches (study/scope.py)
            cards = [c for c in cards if in_scope(c.spec)]
            selection = self.selections[(wanted, post)] = CardSelection.of(cards)
        return selection
