"""The overview: what home, a post, a deck and a course screen count and show.

Per-post and per-deck counts, today's numbers, the cards of a post, the deck
list with this profile's switches, and what a post or deck offers once today's
new cards are done. Reads the card index, session planning and the database.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING

from studyapp.catalog.posts import POST_SLUGS, list_posts
from studyapp.decks import deck_title
from studyapp.decks.deck_model import summary_key
from studyapp.decks.text import markdown_line
from studyapp.srs.calendar import day_bounds
from studyapp.srs.scheduler import CardStage
from studyapp.study.curriculum import CurriculumCard, deck_kind, sibling_answered
from studyapp.study.index import deck_files
from studyapp.study.planning import one_per_family
from studyapp.study.views import (
    SOON,
    ComingBack,
    CourseProgress,
    CourseView,
    DeckRow,
    Overview,
    PostCard,
    PostCards,
    PostOffer,
    PostProgress,
    SessionKind,
)

if TYPE_CHECKING:
    from studyapp.store.progress import CardRow
    from studyapp.study.answering import Answering
    from studyapp.study.ground import StudyGround
    from studyapp.study.index import CardIndex
    from studyapp.study.planning import SessionPlanner

EMPTY_COUNTS = {"total": 0, "new": 0, "learning": 0, "review": 0, "due": 0, "held": 0,
                "waiting": 0}


class StudyOverview:
    """Counts and lists for the screens that are not a sitting; it caches nothing."""

    def __init__(self, ground: StudyGround, index: CardIndex, planner: SessionPlanner,
                 answering: Answering, streak: Callable[[], int]) -> None:
        self._ground = ground
        self._index = index
        self._planner = planner
        self._answering = answering
        self._streak = streak
        """Consecutive study days (``progress.streak_days``, which reads the whole service)."""

    def card_states(self) -> dict[tuple[str, str], CardRow]:
        """Every stored card of the profile by (deck id, card id)."""
        from studyapp.store.progress import card_states  # SQLAlchemy: on first use

        return card_states(self._ground.store, self._ground.profile.id)

    def coming_back(self) -> ComingBack:
        """Learning cards due within the hour, and the soonest (stored due times)."""
        from studyapp.store.progress import learning_due_times  # SQLAlchemy: on first use

        ground = self._ground
        now = ground.now()

        def read() -> list[datetime]:
            live = self._index.active_keys  # the decks studied: read from the database once
            return [due for key, due in learning_due_times(ground.store, ground.profile.id, now)
                    if key in live]

        times: list[datetime] = self._answering.or_while_away(read, [])
        soon = sum(1 for due in times if due <= now + SOON)
        return ComingBack(soon, times[0] if times else None, now)

    def overview(self, lang: str, *, with_streak: bool = True) -> Overview:
        """Per-post counts and today's numbers for the home screen."""
        from studyapp.store.progress import (  # SQLAlchemy: on first use
            answer_counts,
            card_summaries,
            not_new_keys,
            posts_read,
        )

        ground, index = self._ground, self._index
        read = posts_read(ground.store, ground.profile.id)
        now = ground.now()
        start, end = day_bounds(now, ground.settings.day_rollover_hour)
        rows = card_summaries(ground.store, ground.profile.id, end, now)
        live = index.active_keys
        buried_facts = self._planner.facts_answered(start, end)
        ready = self._planner.ready(not_new_keys(ground.store, ground.profile.id, now))
        new_waiting = 0
        waiting_by_deck: dict[str, int] = {}
        per_post: dict[str, dict[str, int]] = {}
        per_deck: dict[str, int] = {}
        fresh: dict[str, list[CurriculumCard]] = {}  # new, not held: what a session may ask
        taken: dict[str, set[str]] = {}  # facts a due card puts in the session first
        for card in index.active_cards:
            per_deck[card.deck.id] = per_deck.get(card.deck.id, 0) + 1
            place = card.spec.post if card.deck.post is not None else summary_key(card.deck.id)
            counts = per_post.setdefault(place, dict(EMPTY_COUNTS))
            counts["total"] += 1
            row = rows.get(card.key)
            if row is None or (row.stage == CardStage.NEW and not row.suspended):
                counts["new"] += 1  # stage 0: marked (flagged, buried) or reset, never answered
                if (self._planner.per_deck.rules(card.deck.id).bury_new
                        and sibling_answered(card, buried_facts)):  # the deck's bury option
                    counts["held"] += 1
                    continue
                fresh.setdefault(place, []).append(card)
                if ready(card):  # not a scenario before the families it chains are seen
                    new_waiting += 1
                    waiting_by_deck[card.deck.id] = waiting_by_deck.get(card.deck.id, 0) + 1
                continue
            if row.suspended:
                continue
            counts["review" if row.stage == CardStage.REVIEW else "learning"] += 1
            if row.due:
                counts["due"] += 1
                if card.fact:
                    taken.setdefault(place, set()).add(card.fact)
        for place, cards in fresh.items():
            offered = self._offered(place, cards, taken.get(place, set()), ready)
            counts = per_post[place]
            counts["waiting"] = counts["new"] - counts["held"] - offered
        due_today = sum(1 for key, r in rows.items()
                        if key in live and not r.suspended and r.due)
        new_done, _, answers = answer_counts(ground.store, ground.profile.id, start, end)
        posts = []
        for post in list_posts(lang):
            c = per_post.get(post.slug, EMPTY_COUNTS)
            posts.append(PostProgress(post.slug, post.title, post.section, post.order,
                                      post.tagline, read=post.slug in read, **c))
        courses = []
        for deck in index.decks:
            found = per_post.get(summary_key(deck.id))
            if deck.post is not None or found is None:
                continue
            view = self.course_view(deck.id, lang)
            tagline = markdown_line(view.summary)
            courses.append(CourseProgress(deck.id, view.title, view.course, tagline,
                                          read=summary_key(deck.id) in read, **found))
        streak = self._streak() if with_streak else 0
        new_left = self._new_left(max(0, self._planner.new_limit_today() - new_done),
                                  per_deck, waiting_by_deck, start, end)
        return Overview(tuple(posts), due_today, new_left, answers, new_done,
                        streak, new_waiting, self.coming_back(),
                        tuple(sorted(courses, key=lambda c: (c.course.casefold(),
                                                             c.title.casefold()))),
                        tuple((d.id, deck_title(d, lang), per_deck[d.id], deck_kind(d))
                              for d in index.decks if d.id in per_deck))

    def _new_left(self, left: int, decks: Iterable[str], waiting: Mapping[str, int],
                  start: datetime, end: datetime) -> int:
        """New cards a session can still bring today: the profile's limit, and within it
        each deck with a limit of its own at most that limit's room and its waiting new
        cards, as the session's queue keeps them (``SessionPlanner.session_queue``)."""
        own = self._planner.per_deck.limits_left(start, end)
        if not own:
            return left
        room = 0
        for deck_id in decks:
            limits = own.get(deck_id)
            if limits is None:  # the profile's limit alone: it may take all the room
                return left
            room += min(limits[0], waiting.get(deck_id, 0))
        return min(left, room)

    def _offered(self, place: str, cards: list[CurriculumCard], taken: set[str],
                 ready: Callable[[CurriculumCard], bool]) -> int:
        """How many of a post's (or course deck's) new cards its session asks, limits aside:
        as ``SessionPlanner.session_queue`` takes them, those its post teaches, ready, one per
        generator family and one per fact (a fact a due card asks already waits)."""
        course = summary_key("")
        if place in POST_SLUGS:
            scope: Collection[tuple[str, str]] | None = self._index.session_cards(
                None, place).keys
        elif place.startswith(course):
            scope = self._index.session_cards(place.removeprefix(course), None).keys
        else:  # a deck filed under a post this version does not know: all its cards
            scope = None
        rules = self._planner.per_deck.rules
        asked = one_per_family(
            c for c in cards if (scope is None or c.key in scope) and ready(c)
            and not (rules(c.deck.id).bury_new and c.fact and c.fact in taken))
        facts = set(taken)
        offered = 0
        for card in asked:
            if card.fact and rules(card.deck.id).bury_new:
                if card.fact in facts:
                    continue
                facts.add(card.fact)
            offered += 1
        return offered

    def post_offer(self, slug: str) -> PostOffer:
        """What the post screen offers: more new cards when today's are done while the
        post has some, the new cards held for a sibling answered today, the next mix."""
        overview = self.overview(self._ground.config.lang, with_streak=False)
        post = next((p for p in overview.posts if p.slug == slug), None)
        if post is None:
            return PostOffer(False, 0, None)
        return PostOffer(overview.new_left == 0 and post.offered > 0, post.held,
                         self._planner.next_session_mix(slug))

    def new_limit_blocks(self, deck_id: str) -> bool:
        """Whether the deck has nothing to ask only because today's new cards are done.

        Then a face offers what home and the post screen offer: more new cards
        today, or practice.
        """
        queue = self._planner.session_queue(SessionKind.DECK, deck=deck_id)
        if queue.main or queue.learning:
            return False
        if self.overview(self._ground.config.lang, with_streak=False).new_left > 0:
            return False
        deck = next((d for d in self._index.decks if d.id == deck_id), None)
        if deck is None:
            return False
        rows = self.card_states()
        return any((row := rows.get((deck_id, spec.id))) is None
                   or (row.stage == CardStage.NEW and not row.suspended) for spec in deck.cards)

    def deck_rows(self, lang: str) -> list[DeckRow]:
        """Every deck file found, loaded or broken, with this profile's switch on each."""
        choices = {info.deck_id: info for info in self._index.deck_list(lang)}
        return [replace(row, enabled=choices[row.deck_id].enabled,
                        kind=choices[row.deck_id].kind)
                if row.ok and row.deck_id in choices else row for row in deck_files(lang)]

    def post_cards(self, slug: str) -> PostCards:
        """The post's cards in every deck that loads, with their stored state."""
        rows = self.card_states()
        cards = []
        for deck in self._index.decks:
            for spec in deck.cards:
                if spec.post != slug:
                    continue
                row = rows.get((deck.id, spec.id))
                if row is None:
                    cards.append(PostCard(deck.id, spec.id, str(spec.type), 0, None, None, 0, 0,
                                          False, False))
                else:
                    cards.append(PostCard(deck.id, spec.id, str(spec.type), row.stage, row.due,
                                          row.stability, row.lapses, row.reps, row.suspended,
                                          row.leech))
        return PostCards(self._ground.now(), tuple(cards))

    # -- courses and what was read ----------------------------------------------

    def course_view(self, deck_id: str, lang: str) -> CourseView:
        """A deck's title, course and summary in ``lang`` (``UnknownIdError`` for an unknown
        deck); a deck without a summary has an empty one."""
        from studyapp.decks.deck_model import pick_language

        deck = self._index.find_deck(deck_id)
        title = deck_title(deck, lang)
        course = pick_language(deck.course, lang, deck.language) if deck.course else title
        summary = pick_language(deck.summary, lang, deck.language) if deck.summary else ""
        return CourseView(deck.id, title, course, summary)

    def summary_first(self, deck_id: str) -> bool:
        """Whether a deck's summary is to be read before its first session (it has one,
        and this learner has not read it yet)."""
        deck = self._index.find_deck(deck_id)
        return bool(deck.summary) and not self.has_read(summary_key(deck.id))

    def read_post(self, slug: str) -> None:
        """Remember that the learner opened a post's summary (or a deck's: its summary key)."""
        from studyapp.store.progress import mark_post_read  # SQLAlchemy: on first use

        if self._ground.read_only:
            return
        mark_post_read(self._ground.store, self._ground.profile.id, slug, self._ground.now())

    def has_read(self, slug: str) -> bool:
        from studyapp.store.progress import posts_read  # SQLAlchemy: on first use

        return slug in posts_read(self._ground.store, self._ground.profile.id)
