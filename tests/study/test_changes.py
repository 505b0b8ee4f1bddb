"""Caches of the study service are dropped by what an operation reports it changed.

Every cache declares the changes that make it stale (``cached_until``); an
operation reports what it changed, and exactly the caches depending on that
are read again. Nothing keeps a list of cache names by hand.
"""

from __future__ import annotations

import inspect
from functools import cached_property
from pathlib import Path

import pytest
from test_service import Clock, right_answer

from studyapp.srs import Rating
from studyapp.study import (
    SessionKind,
    StudyConfig,
    StudyService,
    answering,
    index,
    overview,
    planning,
    service,
)
from studyapp.study.changes import CachedUntil, Changes, cached_until, caches_of, forget

DECK = ("deck: drill\ntitle: Drill\nlanguage: en\npost: intro\ncards:\n"
        "  - id: one\n    type: truefalse\n    prompt: HBM is stacked DRAM.\n"
        "    answer: true\n")


class Reads:
    """A toy owner of caches, counting how often each is worked out."""

    def __init__(self) -> None:
        self.reads: dict[str, int] = {}

    def _read(self, name: str) -> str:
        self.reads[name] = self.reads.get(name, 0) + 1
        return name

    @cached_until(Changes.DECKS)
    def cards(self) -> str:
        return self._read("cards")

    @cached_until(Changes.DECKS | Changes.STUDY_SET)
    def studied(self) -> str:
        return self._read("studied")

    @cached_until(Changes.CONFIG)
    def limits(self) -> str:
        return self._read("limits")

    @cached_until(Changes.NONE)
    def files(self) -> str:
        return self._read("files")


def warm(owner: object) -> set[str]:
    """Work out every cache ``owner`` declares; their names."""
    names = set(caches_of(type(owner)))
    for name in names:
        getattr(owner, name)
    return names


def held(owner: object) -> set[str]:
    return set(caches_of(type(owner))) & set(vars(owner))


@pytest.mark.parametrize(("changes", "dropped"), [
    (Changes.DECKS, {"cards", "studied"}),
    (Changes.STUDY_SET, {"studied"}),
    (Changes.CONFIG, {"limits"}),
    (Changes.SCHEDULE, set()),
    (Changes.NONE, set()),
    (Changes.DECKS | Changes.CONFIG, {"cards", "studied", "limits"}),
])
def test_a_change_drops_exactly_the_caches_depending_on_it(
        changes: Changes, dropped: set[str]) -> None:
    owner = Reads()
    names = warm(owner)
    assert set(forget(owner, changes)) == dropped
    assert held(owner) == names - dropped
    warm(owner)  # what was dropped is worked out again, and only that
    assert {name for name, count in owner.reads.items() if count == 2} == dropped


def service_with_deck(tmp_path: Path) -> StudyService:
    deck = tmp_path / "drill.yaml"
    deck.write_text(DECK, encoding="utf-8")
    url = f"sqlite:///{tmp_path / 'study.sqlite3'}"
    return StudyService(StudyConfig(db_url=url, profile="ana", lang="en", clock=Clock(),
                                    extra_decks=(deck,)))


def parts(svc: StudyService) -> dict[str, object]:
    return {"service": svc, "index": svc.index, "answering": svc.answering,
            "planner": svc.planner, "overviews": svc.overviews}


def warm_all(svc: StudyService) -> dict[tuple[str, str], object]:
    """Every cache of every part worked out: its value by (part, cache)."""
    return {(name, cache): getattr(part, cache)
            for name, part in parts(svc).items() for cache in warm(part)}


def dropped(svc: StudyService, before: dict[tuple[str, str], object]) -> set[tuple[str, str]]:
    """The caches no longer holding the value they held (dropped, or worked out again)."""
    return {(name, cache) for name, cache in before
            if vars(parts(svc)[name]).get(cache) is not before[(name, cache)]}


def stale(svc: StudyService, changes: Changes) -> set[tuple[str, str]]:
    """The caches ``changes`` make stale, by the declarations alone."""
    return {(name, cache) for name, part in parts(svc).items()
            for cache, stale_on in caches_of(type(part)).items() if stale_on & changes}


def test_each_operation_drops_exactly_the_caches_its_change_makes_stale(
        tmp_path: Path) -> None:
    svc = service_with_deck(tmp_path)
    try:
        drill = svc.find_deck("drill")

        before = warm_all(svc)
        svc.replace_deck(drill)
        assert dropped(svc, before) == stale(svc, Changes.DECKS)
        assert {("index", "cards"), ("index", "by_key"), ("index", "active_cards"),
                ("index", "selections")} <= stale(svc, Changes.DECKS)
        assert not {("index", "deck_choices"), ("service", "settings")} & stale(
            svc, Changes.DECKS)

        before = warm_all(svc)
        svc.set_deck_enabled("drill", True)
        assert dropped(svc, before) == stale(svc, Changes.STUDY_SET)
        assert {("index", "deck_choices"), ("index", "active_keys")} <= stale(
            svc, Changes.STUDY_SET)
        assert ("index", "by_key") not in stale(svc, Changes.STUDY_SET)

        before = warm_all(svc)
        svc.update_settings(new_per_day=3)
        assert dropped(svc, before) == stale(svc, Changes.CONFIG)
        assert ("service", "scheduler") in stale(svc, Changes.CONFIG)
        assert svc.settings.new_per_day == 3 and svc.new_limit_today() == 3

        before = warm_all(svc)
        session = svc.start(SessionKind.DECK, deck="drill", seed=1)
        presented = session.next()
        assert presented is not None
        if session.submit(right_answer(presented.question)).needs_rating:
            session.rate(Rating.GOOD)
        assert session.answered == 1
        # an answer changes the misconceptions held, nothing the decks or settings hold
        assert dropped(svc, before) == stale(svc, Changes.SCHEDULE) == {
            ("planner", "_targeted_by_day")}
    finally:
        svc.close()


def test_a_deck_replaced_is_seen_by_every_part(tmp_path: Path) -> None:
    """The card index, planning and the overview read the new deck at once."""
    svc = service_with_deck(tmp_path)
    try:
        drill = svc.find_deck("drill")
        assert [i.card_key for i in svc.plan(SessionKind.DECK, deck="drill")] == ["one"]
        second = drill.cards[0].__class__(**{**vars(drill.cards[0]), "id": "two"})
        svc.replace_deck(drill.__class__(**{**vars(drill), "cards": (*drill.cards, second)}))
        assert [i.card_key for i in svc.plan(SessionKind.DECK, deck="drill")] == ["one", "two"]
        assert svc.card("drill", "two").id == "two"
        totals = {deck_id: total for deck_id, _, total, _ in svc.overview().deck_totals}
        assert totals["drill"] == 2
    finally:
        svc.close()


def test_every_cache_of_the_service_says_what_makes_it_stale() -> None:
    """A cache without a declaration would never be dropped: none may be added."""
    for module in (service, index, planning, overview, answering):
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ != module.__name__:
                continue
            for name, attr in vars(cls).items():
                if isinstance(attr, cached_property):
                    assert isinstance(attr, CachedUntil), f"{cls.__name__}.{name}"
