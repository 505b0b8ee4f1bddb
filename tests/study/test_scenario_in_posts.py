"""Every scenario family is studied in its post: once the learner has seen the families it
chains (``study.ladders``), a session on the post plans it, and the session presents it
as a scenario with its steps (save one that needs an idea no post teaches yet:
``tests/study/test_scope_walk.py``)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from studyapp.questions.generators import registered_families
from studyapp.questions.model import Kind
from studyapp.srs import Rating
from studyapp.study import SessionKind, StudyConfig, StudyService
from studyapp.study.scope import concept_map, in_scope_for
from studyapp.study.showing import showing
from studyapp.study.views import AnsweredCard

NOW = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
SCENARIOS = sorted(name for name, f in registered_families().items()
                   if f.kind is Kind.SCENARIO
                   and concept_map().families[name] <= in_scope_for(f.post))


def see_the_families_it_chains(svc: StudyService, family: str) -> None:
    """Answer one card of each family the scenario chains, as a learner who met them."""
    chained = set(registered_families()[family].prerequisites)
    for card in svc.index.active_cards:
        if card.template in chained:
            chained.discard(card.template)
            question = showing(card.spec, 1, "en")
            svc.record_answer(AnsweredCard(card.deck.id, card.spec.id, question, Rating.GOOD,
                                           True, NOW, "", "", None, {}, "en"))


@pytest.mark.parametrize("family", SCENARIOS)
def test_a_posts_session_holds_its_scenario_once_its_steps_are_met(
        family: str, tmp_path: Path) -> None:
    post = registered_families()[family].post
    svc = StudyService(StudyConfig(db_url=f"sqlite:///{tmp_path / 'study.sqlite3'}",
                                   profile="ana", clock=lambda: NOW))
    try:
        see_the_families_it_chains(svc, family)
        planned = svc.plan(SessionKind.POST, post=post)
        of_family = [n for n, item in enumerate(planned)
                     if svc.card(item.deck_id, item.card_key).generator == family]
        assert of_family, f"{family} is not in a first session on {post}"
        session = svc.start(SessionKind.POST, post=post, seed=1)
        for _ in range(of_family[0] + 1):  # the cards planned before it, skipped
            presented = session.next()
            assert presented is not None
            if presented.question.family == family:
                break
            session.skip()
        assert presented.question.family == family
        assert presented.question.kind is Kind.SCENARIO and presented.question.post == post
        assert 3 <= len(presented.question.parts) <= 6
    finally:
        svc.close()
