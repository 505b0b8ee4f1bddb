"""A post's session asks only what its post and the posts before it teach.

Walks the course in order: every idea ``content/concepts.yaml`` says a post
teaches is found in that post's summary in both languages; every family and
every card of the built-in decks needs only ideas its post, or an earlier
one, teaches; draws are narrowed to values in scope. The learners' cases: MLA
in the HBM session, ZeRO-3 in the storage session, the ridge point before the
H100 post.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from studyapp.catalog import load_catalog
from studyapp.catalog.posts import POST_SLUGS, load_post
from studyapp.decks import CardSpec, discover_decks
from studyapp.questions.generators import registered_families
from studyapp.study import SessionKind, StudyConfig, StudyService
from studyapp.study.scope import (
    NOWHERE,
    card_concepts,
    concept_map,
    in_scope_for,
    mentioned,
    says,
    scoped,
    value_concepts,
)
from studyapp.study.showing import showing

NOW = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
DRAWS = 6
"""Showings drawn per built-in generated card and language."""

UNASKED_FAMILIES = {"scenario-training"}
"""Families no session asks: one of their steps needs ZeRO-3, which no post teaches."""


def post_cards() -> list[CardSpec]:
    """Every card of the built-in post decks."""
    return [card for listing in discover_decks() if listing.deck is not None
            and listing.deck.id.startswith("post-") for card in listing.deck.cards]


def names(ideas: set[str] | frozenset[str]) -> list[str]:
    concepts = concept_map().concepts
    return sorted(f"{idea} ({concepts[idea].post})" for idea in ideas)


@pytest.mark.parametrize("lang", ["en", "es"])
def test_every_idea_is_in_the_summary_of_the_post_that_claims_to_teach_it(lang: str) -> None:
    missing = []
    for concept in concept_map().concepts.values():
        assert concept.names.get(lang), concept.id
        assert concept.keywords.get(lang), concept.id
        if concept.post == NOWHERE:
            continue
        assert concept.post in POST_SLUGS, concept.id
        post = load_post(concept.post, lang)
        text = "\n".join([post.title, post.tagline, post.body])
        if not any(says(text, word) for word in concept.keywords[lang]):
            missing.append((concept.id, concept.post, concept.keywords[lang]))
    assert not missing


def test_the_words_are_whole_words() -> None:
    assert says("the HBM3E stacks", "HBM3E")
    assert not says("procesa", "RoCE") and says("RDMA (RoCE) ports", "roce")
    assert says("6 × N ×\n  D", "6 × N × D")  # a line break in the summary
    assert not says("ZeRO-3", "ZeRO")  # the stage is its own idea


def test_every_family_declares_what_it_asks_with_ideas_the_map_knows() -> None:
    found = concept_map()
    assert set(registered_families()) <= set(found.families), (
        set(registered_families()) - set(found.families))
    known = set(found.concepts)
    for family, ideas in found.families.items():
        assert family in registered_families(), family
        assert ideas and ideas <= known, (family, ideas - known)
    for rule in found.draws:
        assert rule.concept in known and rule.within <= known, rule
    for ideas in found.cards.values():
        assert ideas <= known


def test_each_family_is_asked_from_its_own_post_or_by_no_session() -> None:
    """A family's post (where its questions link) teaches what it asks, save the families
    that need an idea no post teaches: those are the ones no session asks."""
    families = concept_map().families
    out = {name: families[name] - in_scope_for(family.post)
           for name, family in registered_families().items()}
    out = {name: ideas for name, ideas in out.items() if ideas}
    assert set(out) == UNASKED_FAMILIES, out
    assert all(concept_map().concepts[i].post == NOWHERE
               for name in UNASKED_FAMILIES for i in out[name] if i == "zero-2-3")


def test_the_scope_grows_post_by_post() -> None:
    before: frozenset[str] = frozenset()
    adding = 0
    for post in POST_SLUGS:
        now = in_scope_for(post)
        assert before <= now, post
        adding += before < now
        before = now
    assert adding >= 10  # the H200 post applies what came before; nearly every other adds
    assert "ridge-point" not in in_scope_for("hbm-kv-cache")
    assert "ridge-point" in in_scope_for("h100") and "ridge-point" in in_scope_for("h200")
    untaught = {c.id for c in concept_map().concepts.values() if c.post == NOWHERE}
    assert {"mla", "zero-2-3"} <= untaught and not untaught & in_scope_for(POST_SLUGS[-1])


def test_walk_the_course_every_built_in_card_asks_what_its_post_has_taught() -> None:
    cards = post_cards()
    assert len(cards) > 150
    out = [(card.deck, card.id, card.post, names(card_concepts(card) - in_scope_for(card.post)))
           for card in cards if not card_concepts(card) <= in_scope_for(card.post)]
    assert not out
    assert all(scoped(card) is not None for card in cards)


def test_a_written_card_uses_the_ideas_its_prompt_and_right_choice_name() -> None:
    card = CardSpec(id="mla", type="text", post="hbm-kv-cache", deck="d", language="en",
                    prompt={"en": "DeepSeek-V3 uses MLA: what does it store per token?"})
    assert "mla" in card_concepts(card) and scoped(card) is None
    choice = CardSpec(id="c", type="choice", post="intro", deck="d", language="en",
                      prompt={"en": "Which figure is quoted?"},
                      choices=({"en": "dense"}, {"en": "with sparsity (twice)"},
                               {"en": "the ridge point"}), answer=0)
    assert "ridge-point" not in card_concepts(choice)  # a wrong choice may name it
    assert scoped(choice) is choice


def test_drawn_values_stay_within_what_the_post_taught() -> None:
    catalog = load_catalog()
    untaught = {c.id for c in concept_map().concepts.values() if c.post == NOWHERE}
    for card in post_cards():
        if card.type != "generated" or card.generator is None:
            continue
        taught = in_scope_for(card.post)
        for seed in range(DRAWS):
            for lang in ("en", "es"):
                question = showing(card, 7919 * seed + 1, lang)
                drawn = set()
                model = question.params.get("model")
                if isinstance(model, str) and model in catalog.models:
                    drawn |= value_concepts(card.generator, "models", model)
                if "zero_stage" in question.params:
                    drawn |= value_concepts(card.generator, "zero_stages",
                                            question.params["zero_stage"])
                texts = [question.prompt, *(part.question.prompt for part in question.parts)]
                said = mentioned(texts, (lang,)) & untaught
                assert drawn <= taught and not said, (card.deck, card.id, seed, lang,
                                                      drawn - taught, said)


# -- the learners' cases, through a session ----------------------------------------------

CASES = """deck: scope-cases
title: Scope cases
language: en
post: hbm-kv-cache
cards:
  - {id: ridge-early, type: generated, generator: ridge-point}
  - {id: ridge-later, post: h200, type: generated, generator: ridge-point}
  - id: kv-deepseek
    type: generated
    generator: kv-cache-per-token
    options: {models: [deepseek-v3, kimi-k2]}
  - id: kv-mixed
    type: generated
    generator: kv-cache-per-token
    options: {models: [deepseek-v3, llama-3.1-70b]}
  - {id: zero-late, post: storage-checkpoints, type: generated, generator: training-memory}
  - {id: zero3-steps, post: storage-checkpoints, type: generated, generator: scenario-training}
"""


def service(tmp_path: Path) -> StudyService:
    deck = tmp_path / "cases.yaml"
    deck.write_text(CASES, encoding="utf-8")
    url = f"sqlite:///{tmp_path / 'study.sqlite3'}"
    return StudyService(StudyConfig(db_url=url, profile="ana", lang="en", clock=lambda: NOW,
                                    extra_decks=(deck,)))


def planned(svc: StudyService, post: str | None = None) -> set[str]:
    kind = SessionKind.POST if post else SessionKind.DECK
    deck = None if post else "scope-cases"
    return {item.card_key for item in svc.plan(kind, post=post, deck=deck)
            if item.deck_id == "scope-cases"}


def test_a_session_plans_only_the_cards_its_post_has_taught(tmp_path: Path) -> None:
    svc = service(tmp_path)
    # no ridge point before the H100 post, no MLA-only card, no ZeRO-3 steps
    assert planned(svc) == {"ridge-later", "kv-mixed", "zero-late"}
    assert not planned(svc, "hbm-kv-cache") & {"ridge-early", "kv-deepseek"}
    assert not planned(svc, "storage-checkpoints") & {"zero3-steps"}


def test_the_hbm_session_never_draws_mla_and_the_storage_session_never_zero_3(
        tmp_path: Path) -> None:
    svc = service(tmp_path)
    for post, key, field, banned in (("hbm-kv-cache", "kv-mixed", "model", {"deepseek-v3"}),
                                     ("storage-checkpoints", "zero-late", "zero_stage", {2, 3})):
        session = svc.start(SessionKind.POST, post=post)
        seen = set()
        for seed in range(40):
            question = showing(svc.card("scope-cases", key), seed, "en")
            seen.add(question.params[field])
            assert "ZeRO-3" not in question.prompt and "MLA" not in question.prompt
        assert seen and not seen & banned, (post, seen)
        assert session.next() is not None
    svc.close()
