"""The card browser: find any card, act on the matches, open a card where it is written.

Both faces use it: ``studyapp cards`` and the TUI's browser screen. Cards
come from the decks the study service loads, joined with their stored state
(cards never answered are found too, as new). Searching parses the query
with ``studyapp.cardsearch``; marks and history go through ``studyapp.store``.
Textual-free, SQLAlchemy-free.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from studyapp import locations
from studyapp.cardsearch import CardFacts, SearchContext, fold, parse_query
from studyapp.srs.calendar import day_bounds

if TYPE_CHECKING:
    from studyapp.decks import CardSpec, Deck
    from studyapp.decks.editing import EditPlan
    from studyapp.questions.model import Question
    from studyapp.store.cards import StoredCard
    from studyapp.store.stats import LogLine
    from studyapp.study import StudyService

STAGE_NAMES = {0: "new", 1: "learning", 2: "review", 3: "relearning"}
ACTIONS = ("suspend", "unsuspend", "bury", "unbury", "flag", "reset")
SAMPLE_SEED = 0
"""The seed of the sample instance a template or generated card is shown with."""


@dataclass(frozen=True)
class BrowsedCard:
    """One card as the browser lists it (frozen: widgets receive these)."""

    deck: str
    card: str
    post: str
    family: str | None
    stage: int
    due: datetime | None
    reps: int
    lapses: int
    accuracy: float | None
    flag: int
    suspended: bool
    buried: bool
    leech: bool
    question: str  # the sample instance's prompt, in the learner's language
    stability: float | None
    difficulty: float | None
    retrievability: float | None  # None for a card never answered
    path: Path
    line: int
    source: str  # builtin, user or file
    template: bool  # each review draws new values
    due_today: bool = False  # due before the study day ends: the browser shows the time

    @property
    def key(self) -> tuple[str, str]:
        return (self.deck, self.card)

    @property
    def where(self) -> str:
        """``path:line`` of the card; a built-in deck's path from the decks folder's parent."""
        path = self.path
        if self.source == "builtin":
            root = locations.builtin_decks_dir().parent
            if _inside(path, root):
                path = path.resolve().relative_to(root.resolve())
        return f"{path}:{self.line}"

    @property
    def state(self) -> str:
        return STAGE_NAMES.get(self.stage, "new")

    def as_json(self) -> dict[str, Any]:
        """The ``cards --json`` object (keys are a fixed contract)."""
        return {
            "deck": self.deck, "card": self.card, "post": self.post, "family": self.family,
            "state": self.state,
            "due": self.due.isoformat() if self.due is not None and self.stage else None,
            "reps": self.reps, "lapses": self.lapses,
            "accuracy": None if self.accuracy is None else round(self.accuracy, 4),
            "flag": self.flag, "suspended": self.suspended, "buried": self.buried,
            "question": self.question,
        }


@dataclass(frozen=True)
class CardView:
    """Everything the detail pane shows of one card."""

    card: BrowsedCard
    question: Question | None  # None when the sample instance cannot be drawn
    problem: str | None  # why not
    answers: tuple[LogLine, ...]  # every past answer, newest first


@dataclass(frozen=True)
class EditTarget:
    """Where to open a card in an editor: the file, its line, and whether it was just copied."""

    path: Path
    line: int
    copied_from: Path | None = None


@dataclass(frozen=True)
class Reloaded:
    """The result of reloading a deck after an edit: problems as ``path:line:col: msg``."""

    deck: str
    problems: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not self.problems


class CardBrowser:
    """Search, mark, inspect and edit the cards of one profile."""

    def __init__(self, service: StudyService) -> None:
        self.service = service
        self._samples: dict[tuple[str, str, str], tuple[str, Question | None, str | None]] = {}

    # -- finding -----------------------------------------------------------------

    def context(self) -> SearchContext:
        service = self.service
        now = service.now()
        _, end = day_bounds(now, service.settings.day_rollover_hour)
        from studyapp.catalog.posts import POST_SLUGS

        families = {spec.generator for deck in service.decks for spec in deck.cards
                    if spec.generator}
        return SearchContext(now=now, day_end=end, posts=POST_SLUGS,
                             decks=[d.id for d in service.decks], families=families)

    def search(self, query: str, lang: str | None = None) -> list[BrowsedCard]:
        """Every card of the decks switched on matching ``query``, in curriculum order.

        A query naming ``deck:ID`` searches switched-off decks too. Raises
        ``QueryError`` when the query cannot be read.
        """
        from studyapp.store.cards import stored_cards

        lang = lang or self.service.config.lang
        context = self.context()
        search = parse_query(query, context)
        service = self.service
        stored = stored_cards(service.store, service.profile.id)
        found: list[BrowsedCard] = []
        # switched-off decks (examples start off) stay out of sight, as in every
        # queue and count, unless the query names a deck
        every_deck = "deck:" in query.lower()
        for deck in service.decks:
            if not (every_deck or service.deck_enabled(deck)):
                continue
            for spec in deck.cards:
                card = self._browsed(deck, spec, stored.get((deck.id, spec.id)), lang,
                                     context.now, context.day_end)
                facts = CardFacts(card.deck, card.card, card.post, card.family, card.stage,
                                  card.due, card.reps, card.lapses, card.accuracy, card.flag,
                                  card.suspended, card.buried, card.leech, fold(card.question),
                                  spec.tags)
                if search.matches(facts):
                    found.append(card)
        return found

    def _sample(self, spec: CardSpec, lang: str) -> tuple[str, Question | None, str | None]:
        key = (spec.deck, spec.id, lang)
        if key not in self._samples:
            try:
                question = spec.instantiate(SAMPLE_SEED, lang)
                self._samples[key] = (question.prompt, question, None)
            except Exception as exc:  # a broken template still lists, with its raw text
                raw = spec.text(spec.prompt, lang) if spec.prompt else spec.generator or spec.id
                render = getattr(exc, "render", None)  # a deck problem, in the reader's language
                self._samples[key] = (raw, None, render(lang) if callable(render) else str(exc))
        return self._samples[key]

    def _browsed(self, deck: Deck, spec: CardSpec, row: StoredCard | None, lang: str,
                 now: datetime, day_end: datetime | None = None) -> BrowsedCard:
        text = self._sample(spec, lang)[0]
        family = spec.generator
        if row is None:
            return BrowsedCard(deck.id, spec.id, spec.post, family, 0, None, 0, 0, None, 0,
                               False, False, False, text, None, None, None, spec.path,
                               spec.line, deck.source, spec.is_template)
        accuracy = row.correct / row.answers if row.answers else None
        retrievability = None
        if row.stage and row.stability is not None and row.last_review is not None:
            from studyapp.progress import retrievability as recall

            # in study days, as the scheduler counts the time since a review (Anki)
            elapsed = self.service.scheduler.elapsed_days(row.last_review, now)
            retrievability = recall(self.service.settings, row.stability, elapsed)
        buried = row.buried_until is not None and row.buried_until > now
        end = day_end or self.service.scheduler.day_end(now)
        due_today = row.stage != 0 and row.due < end
        return BrowsedCard(deck.id, spec.id, spec.post, family, row.stage, row.due, row.reps,
                           row.lapses, accuracy, row.flag, row.suspended, buried, row.leech,
                           text, row.stability, row.difficulty, retrievability, spec.path,
                           spec.line, deck.source, spec.is_template, due_today)

    def find(self, deck_id: str, card_key: str, lang: str | None = None) -> BrowsedCard:
        """One card by its ids (``NoSuchItem`` if no loaded deck has it)."""
        from studyapp.store.cards import stored_cards

        spec = self.service.card(deck_id, card_key)
        deck = self.service.find_deck(deck_id)
        row = stored_cards(self.service.store, self.service.profile.id).get((deck_id, card_key))
        return self._browsed(deck, spec, row, lang or self.service.config.lang,
                             self.service.now())

    # -- acting --------------------------------------------------------------------

    def apply(self, cards: Sequence[BrowsedCard], action: str, flag: int = 0) -> int:
        """Suspend, unsuspend, bury (until the next study day), unbury, flag or reset cards.

        Returns how many cards changed. Reset puts cards back to new and keeps
        their answers in the history.
        """
        from studyapp.store.cards import CardRef, Mark, mark_cards

        if action not in ACTIONS:
            raise ValueError(f"unknown action {action!r}")
        if action == "flag" and not 0 <= flag <= 4:
            raise ValueError("flags are 0 (none) to 4")
        service = self.service
        now = service.now()
        _, next_day = day_bounds(now, service.settings.day_rollover_hour)
        refs = [CardRef(c.deck, c.card, c.post, c.family) for c in cards]
        return mark_cards(service.store, service.profile.id, refs, Mark(action), now=now,
                          buried_until=next_day, flag=flag)

    # -- one card ------------------------------------------------------------------

    def view(self, deck_id: str, card_key: str, lang: str | None = None) -> CardView:
        """The card, its sample question and every past answer (newest first)."""
        from studyapp.store.stats import card_detail

        lang = lang or self.service.config.lang
        card = self.find(deck_id, card_key, lang)
        _, question, problem = self._sample(self.service.card(deck_id, card_key), lang)
        detail = card_detail(self.service.store, self.service.profile.id, deck_id, card_key,
                             last=1_000_000)
        return CardView(card, question, problem, detail.logs if detail else ())

    # -- editing -------------------------------------------------------------------

    def edit_target(self, deck_id: str, card_key: str) -> EditTarget:
        """The file and line to edit; a built-in deck is first copied to the user's folder.

        The copy keeps the deck id, so it overrides the built-in deck and every
        card keeps its progress.
        """
        from studyapp.decks.editing import user_copy_of_builtin

        spec = self.service.card(deck_id, card_key)
        deck = self.service.find_deck(deck_id)
        if deck.source != "builtin":
            return EditTarget(spec.path, spec.line)
        return EditTarget(user_copy_of_builtin(deck), spec.line, copied_from=deck.path)

    def edit_plan(self, deck_id: str, card_key: str) -> EditPlan:
        """What the ``$EDITOR`` loop opens for a card: its source file when one is known."""
        from studyapp.decks.editing import plan_edit

        spec = self.service.card(deck_id, card_key)
        return plan_edit(self.service.find_deck(deck_id), spec.line)

    def reload(self, path: Path, deck_id: str, lang: str = "en") -> Reloaded:
        """Validate an edited deck file; when it loads, its cards are live at once.

        A deck with problems leaves the loaded deck as it was.
        """
        from studyapp.decks.deck_loader import check_deck_file

        deck, problems = check_deck_file(path, "user" if _inside(path, _user_decks()) else "file")
        if deck is None or problems:
            return Reloaded(deck_id, tuple(p.render(lang) for p in problems))
        self.service.replace_deck(deck)
        self._samples = {k: v for k, v in self._samples.items() if k[0] != deck.id}
        return Reloaded(deck.id, ())


_BROWSERS: weakref.WeakKeyDictionary[StudyService, CardBrowser] = weakref.WeakKeyDictionary()


def browser_for(service: StudyService) -> CardBrowser:
    """The service's one browser, so sample questions are drawn once per session."""
    browser = _BROWSERS.get(service)
    if browser is None:
        browser = _BROWSERS[service] = CardBrowser(service)
    return browser


def _user_decks() -> Path:
    return locations.user_decks_dir()


def _inside(path: Path, folder: Path) -> bool:
    try:
        path.resolve().relative_to(folder.resolve())
    except ValueError:
        return False
    return True


__all__ = ["ACTIONS", "BrowsedCard", "CardBrowser", "CardView", "EditTarget", "Reloaded",
           "browser_for"]
