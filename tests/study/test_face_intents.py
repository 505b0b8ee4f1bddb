"""What the screens ask of the service, each a named method, called here without Textual."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from recall_decks import PNG
from test_service import Clock, answer_all, right_answer, service, wrong_answer

from studyapp.srs import CardStage, Rating
from studyapp.study import SessionKind, StudyConfig, StudyService, StudySession

DIAGRAMS = ("deck: diagrams\ntitle: Diagrams\nlanguage: en\npost: hbm-kv-cache\ncards: "
        '[{id: stack, type: recall, answer: HBM, prompt: "Stacked? [image: hbm.png]"}]\n')


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def svc(tmp_path: Path, clock: Clock) -> Iterator[StudyService]:
    studying = service(tmp_path, clock)
    yield studying
    studying.close()


def test_deck_titles_follow_the_language_and_list_every_loaded_deck(svc: StudyService) -> None:
    english = svc.deck_titles("en")
    spanish = svc.deck_titles("es")
    assert [deck_id for deck_id, _ in english] == [d.id for d in svc.decks]
    assert [deck_id for deck_id, _ in spanish] == [d.id for d in svc.decks]
    assert english != spanish  # the built-in decks are titled in both languages


def test_deck_rows_carry_the_profiles_switches(svc: StudyService) -> None:
    rows = {row.deck_id: row for row in svc.deck_rows("en")}
    choices = {info.deck_id: info for info in svc.deck_list("en")}
    assert rows["post-h200"].ok and rows["post-h200"].enabled
    assert rows["post-h200"].kind == "post"
    for deck_id, info in choices.items():
        if deck_id in rows and rows[deck_id].ok:
            assert rows[deck_id].enabled is info.enabled
    svc.set_deck_enabled("post-h200", False)
    assert not {r.deck_id: r for r in svc.deck_rows("en")}["post-h200"].enabled


def test_the_new_limit_blocks_a_deck_only_when_new_cards_wait(svc: StudyService) -> None:
    assert svc.new_limit_blocks("post-h200") is False  # new cards can be studied today
    svc.update_settings(new_per_day=0)
    assert svc.new_limit_blocks("post-h200") is True
    svc.study_more_new(5)
    assert svc.new_limit_blocks("post-h200") is False


def test_post_offer_says_when_the_limit_stops_a_post(svc: StudyService) -> None:
    offer = svc.post_offer("h200")
    assert offer.limit_reached is False and offer.held == 0
    assert offer.mix is not None and offer.mix.new > 0
    svc.update_settings(new_per_day=0)
    limit_reached, held, mix = svc.post_offer("h200")
    assert limit_reached is True and held == 0
    assert mix is not None and mix.new == 0
    assert svc.post_offer("no-such-post") == (False, 0, None)


def test_recovered_answers_are_given_once_with_the_overview(svc: StudyService) -> None:
    assert svc.profile is not None
    svc.recovered.append("How much is 6 × 7?")
    overview, recovered = svc.overview_and_recovered("en")
    assert recovered == ["How much is 6 × 7?"]
    assert overview == svc.overview("en")
    assert svc.overview_and_recovered("en")[1] == []


def test_post_cards_join_every_card_of_the_post_with_its_state(svc: StudyService,
                                                               clock: Clock) -> None:
    before = svc.post_cards("h200")
    assert before.now == clock.now
    assert before.cards and all(not card.stored for card in before.cards)
    expected = {(d.id, s.id) for d in svc.decks for s in d.cards if s.post == "h200"}
    assert {(c.deck_id, c.card_key) for c in before.cards} == expected
    answer_all(svc, SessionKind.POST, post="h200", limit=2)
    after = svc.post_cards("h200")
    stored = [card for card in after.cards if card.stored]
    assert len(stored) == 2
    assert all(card.reps == 1 and card.due is not None for card in stored)


def test_progress_view_marks_the_suspended_leeches(svc: StudyService, clock: Clock) -> None:
    from studyapp.store.progress import Answer, NewState, record_answer

    at = clock.now
    record_answer(svc.store, svc.profile.id, Answer(
        deck_id="hand", card_key="weak", post="h100", family=None,
        state=NewState(2, None, 1.0, 9.0, at, at, 12, 9, True), reviewed_at=at, rating=1,
        correct=False))
    view = svc.progress_view()
    assert [(c.deck_id, c.card_key) for c in view.stats.leeches] == [("hand", "weak")]
    assert view.suspended == frozenset()
    assert svc.set_suspended("hand", "weak", True)
    view = svc.progress_view()
    assert [(c.deck_id, c.card_key) for c in view.stats.leeches] == [("hand", "weak")]
    assert view.suspended == {("hand", "weak")}


def test_card_images_are_found_in_the_decks_media_folder(tmp_path: Path) -> None:
    deck = tmp_path / "diagrams.yaml"
    deck.write_text(DIAGRAMS, encoding="utf-8")
    (tmp_path / "diagrams.media").mkdir()
    (tmp_path / "diagrams.media" / "hbm.png").write_bytes(PNG)
    (tmp_path / "diagrams.media" / "stack.png").write_bytes(b"<svg><script>1</script></svg>")
    svc = StudyService(StudyConfig(db_url=f"sqlite:///{tmp_path / 'p.sqlite3'}", lang="en",
                                   extra_decks=(deck,)))
    try:
        texts = ["Stacked? [image: hbm.png] [image: missing.png] [image: stack.png]"]
        found = svc.card_images("diagrams", "stack", texts)
        assert [(i.path, i.mime_type, i.data) for i in found.shown] == [
            (tmp_path / "diagrams.media" / "hbm.png", "image/png", PNG)]
        assert [(name, why.key) for name, why in found.refused] == [
            ("stack.png", "decks.problem.media_not_raster")]  # checked where it is shown
        nothing = svc.card_images("diagrams", "stack", ["no image"])
        assert nothing.shown == [] and nothing.refused == []
    finally:
        svc.close()


def test_one_call_per_intent_returns_the_counts_the_screen_shows(svc: StudyService) -> None:
    session = svc.start(SessionKind.POST, post="h200", limit=2, seed=4)
    advanced = session.advance()
    assert advanced is not None and advanced.presented is not None
    assert (advanced.can_undo, advanced.answered, advanced.correct) == (False, 0, 0)
    outcome, can_undo, notices = session.respond(right_answer(advanced.presented.question))
    assert outcome.needs_rating and can_undo is False  # nothing recorded yet
    assert notices == ()  # nothing to say: the database is there

    def good(s: StudySession) -> bool:
        s.rate(Rating.GOOD)
        return True

    rated = session.advance(good)
    assert rated is not None and (rated.can_undo, rated.answered, rated.correct) == (
        True, 1, 1)
    assert session.advance(lambda s: False) is None  # nothing done: nothing asked
    assert rated.presented is not None
    session.respond(wrong_answer(rated.presented.question))
    tally = session.tally("en")
    assert (tally.answered, tally.correct, tally.practice) == (2, 1, False)
    assert len(tally.comes_back) == 2 and tally.coming_back is not None
    practice = svc.start(SessionKind.PRACTICE, post="h200", limit=1, seed=4)
    first = practice.next()
    assert first is not None
    practice.respond(right_answer(first.question))
    summary = practice.tally("en")
    assert summary.practice and summary.comes_back == () and summary.coming_back is None


def test_continue_choice_waits_for_learning_steps_due_later(svc: StudyService) -> None:
    svc.update_settings(new_per_day=1, learn_ahead_min=0)
    session = svc.start(SessionKind.POST, post="h200", seed=1)
    presented = session.next()
    assert presented is not None
    session.submit(wrong_answer(presented.question))  # Again: a learning step
    assert session.next() is None
    choice = svc.continue_choice("h200", ["h200"])
    assert choice is not None and choice[0] == "wait"
    stored = svc.card_states()[(presented.deck_id, presented.card_key)]
    assert stored.stage != CardStage.NEW
    assert choice[1] == stored.due.isoformat()
