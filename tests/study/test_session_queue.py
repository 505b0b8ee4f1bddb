"""Scheduling inside a sitting, as Anki's v3 scheduler does it, on a fake clock.

A learning card comes back when it is due and not before, unless nothing
else waits and it is due within the learn-ahead limit (Anki's default
20 minutes, rslib/src/scheduler/queue/mod.rs ``get_queued_card``). Siblings
(cards sharing a fact) are buried until the next 04:00 rollover. The header
``[n/N]`` never grows; returning cards are counted apart.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from test_service import Clock, right_answer, service, wrong_answer

from studyapp.srs import CardStage, QueueItem, Rating
from studyapp.srs.queue import SessionQueue
from studyapp.study import SessionKind, StudyService, coming_back_text

NOW = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)

SIBLING_DECK = """deck: siblings
title: Siblings
language: en
post: h200
cards:
  - {id: capacity, type: truefalse, prompt: "The H200 SXM has 141 GB.", answer: true,
     fact: h200-capacity}
  - {id: capacity-back, type: text, prompt: "141 GB is the memory of which NVIDIA GPU?",
     answer: H200, fact: h200-capacity}
  - {id: bandwidth, type: truefalse, prompt: "The H200 SXM has 4.8 TB/s.", answer: true}
  - {id: bits, type: generated, generator: bits-vs-bytes}
  - {id: bits-again, type: generated, generator: bits-vs-bytes}
"""


def item(key: str, stage: CardStage = CardStage.NEW, due_min: float | None = None) -> QueueItem:
    due = NOW + timedelta(minutes=due_min) if due_min is not None else None
    return QueueItem("deck", key, "h200", key, stage, due)


# -- the queue alone ---------------------------------------------------------------


def test_a_learning_card_waits_for_its_due_time_while_new_cards_wait() -> None:
    queue = SessionQueue([item("n1"), item("n2")], [item("l1", CardStage.LEARNING, 10)])
    assert queue.pop(NOW).card_key == "n1"  # type: ignore[union-attr]
    assert queue.pop(NOW + timedelta(minutes=9)).card_key == "n2"  # type: ignore[union-attr]
    # the main queue is empty: now learn-ahead may bring l1 back early (within 20 min)
    assert queue.pop(NOW + timedelta(minutes=9)).card_key == "l1"  # type: ignore[union-attr]


def test_a_due_learning_card_goes_before_new_cards() -> None:
    queue = SessionQueue([item("n1")], [item("l1", CardStage.RELEARNING, 10)])
    assert queue.pop(NOW + timedelta(minutes=10)).card_key == "l1"  # type: ignore[union-attr]


def test_learn_ahead_only_within_the_limit_and_only_when_nothing_else_waits() -> None:
    queue = SessionQueue([], [item("l1", CardStage.LEARNING, 25)])
    assert queue.pop(NOW) is None  # 25 min away: beyond the 20-minute limit
    assert queue.pop(NOW, timedelta(minutes=30)).card_key == "l1"  # type: ignore[union-attr]
    queue = SessionQueue([], [item("l1", CardStage.LEARNING, 25)])
    assert queue.pop(NOW + timedelta(minutes=6)).card_key == "l1"  # type: ignore[union-attr]


def test_when_only_learning_cards_are_left_the_same_card_is_not_asked_twice_running() -> None:
    queue = SessionQueue([], [item("l1", CardStage.LEARNING, 1), item("l2", CardStage.LEARNING, 5)])
    chosen = queue.pop(NOW, last=("deck", "l1"))
    assert chosen is not None and chosen.card_key == "l2"


def test_a_card_due_after_the_study_day_does_not_come_back_in_the_session() -> None:
    queue = SessionQueue([], [], cutoff=NOW + timedelta(hours=1))
    assert not queue.requeue(item("l1"), NOW + timedelta(hours=2))
    assert queue.requeue(item("l1"), NOW + timedelta(minutes=10))
    assert queue.next_due() == NOW + timedelta(minutes=10)


# -- sessions on the service, with a fake clock -------------------------------------


def answer(session: object, presented: object, *, right: bool = True,
           rating: Rating = Rating.GOOD) -> None:
    q = presented.question  # type: ignore[attr-defined]
    outcome = session.submit(right_answer(q) if right else wrong_answer(q))  # type: ignore[attr-defined]
    assert outcome.verdict.correct is right
    if outcome.needs_rating:
        session.rate(rating)  # type: ignore[attr-defined]


def test_good_on_a_new_card_does_not_return_before_its_due_time(tmp_path: Path) -> None:
    clock = Clock()
    svc = service(tmp_path, clock)
    session = svc.start(SessionKind.POST, post="h200", seed=3)
    planned = session.total
    assert planned >= 9  # one card per fact
    first = session.next()
    assert first is not None and (first.number, first.total) == (1, planned)
    answer(session, first)  # Good: 10 minutes
    seen = [first.card_key]
    for _ in range(7):  # 5 s per answer: before the 1 minute of Again, the 10 of Good
        clock.advance(seconds=5)
        presented = session.next()
        assert presented is not None and not presented.returning
        assert presented.total <= planned  # N never grows (a card put off a day: one less)
        seen.append(presented.card_key)
        answer(session, presented, right=False)  # Again: 1 minute
    assert len(set(seen)) == len(seen), "no card came back while new cards waited"
    # a minute later the first wrong one is due: it comes before the new cards
    clock.advance(minutes=1)
    back = session.next()
    assert back is not None and back.returning and back.card_key == seen[1]
    assert back.number == 8 and back.learning >= 1


def test_the_session_ends_with_what_comes_back_when_only_later_cards_remain(
        tmp_path: Path) -> None:
    clock = Clock()
    svc = service(tmp_path, clock)
    svc.update_settings(learn_ahead_min=0)
    session = svc.start(SessionKind.POST, post="h200", seed=3, limit=None)
    count = 0
    while (presented := session.next()) is not None:
        assert not presented.returning
        answer(session, presented)  # Good on every new card: each back in 10 min
        clock.advance(seconds=5)
        count += 1
    assert count == session.total
    coming = svc.coming_back()
    assert coming.within_hour == count
    assert coming.next_in is not None and timedelta(minutes=8) < coming.next_in
    text = coming_back_text(coming, "en")
    assert text is not None and text.startswith(f"{count} cards within the hour, next in")
    clock.advance(minutes=10)
    later = svc.start(SessionKind.POST, post="h200", seed=3)
    back = later.next()
    assert back is not None and back.stage is CardStage.LEARNING


def sibling_service(tmp_path: Path, clock: Clock) -> tuple[StudyService, Path]:
    deck = tmp_path / "siblings.yaml"
    deck.write_text(SIBLING_DECK, encoding="utf-8")
    return service(tmp_path, clock), deck


def test_siblings_are_planned_once_and_buried_until_the_rollover(tmp_path: Path) -> None:
    clock = Clock()
    svc, deck = sibling_service(tmp_path, clock)
    session = svc.start(SessionKind.DECK, deck=str(deck), seed=1)
    keys = [i.card_key for i in [*session.queue.learning, *session.queue.main]]
    assert "capacity" in keys and "capacity-back" not in keys  # one per fact
    assert "bits" in keys and "bits-again" not in keys  # a conversion family's fact
    assert session.total == 3
    while (presented := session.next()) is not None:
        answer(session, presented, rating=Rating.EASY)
    clock.advance(hours=1)
    again = svc.start(SessionKind.DECK, deck=str(deck), seed=1)
    assert again.next() is None, "siblings of today's answers wait for tomorrow"
    # next study day (after 04:00): the siblings are new cards again
    clock.advance(days=1)
    tomorrow = svc.start(SessionKind.DECK, deck=str(deck), seed=1)
    keys = {i.card_key for i in [*tomorrow.queue.learning, *tomorrow.queue.main]}
    assert {"capacity-back", "bits-again"} <= keys


def test_answering_a_card_buries_a_stored_sibling(tmp_path: Path) -> None:
    from studyapp.store.progress import card_state

    clock = Clock()
    svc, deck = sibling_service(tmp_path, clock)
    svc.find_deck(str(deck))
    # day 1: both siblings learned (one per day), so both have stored rows
    for _ in range(2):
        session = svc.start(SessionKind.DECK, deck=str(deck), seed=1)
        while (presented := session.next()) is not None:
            answer(session, presented, rating=Rating.EASY)
        clock.advance(days=1)
    back = card_state(svc.store, svc.profile.id, "siblings", "capacity-back")
    assert back is not None
    clock.advance(days=30)  # everything due again
    session = svc.start(SessionKind.DECK, deck=str(deck), seed=1)
    keys = [i.card_key for i in session.queue.main]
    assert sum(k in ("capacity", "capacity-back") for k in keys) == 1
    presented = session.next()
    while presented is not None and presented.card_key not in ("capacity", "capacity-back"):
        answer(session, presented, rating=Rating.EASY)
        presented = session.next()
    assert presented is not None
    answer(session, presented, rating=Rating.EASY)
    other = "capacity-back" if presented.card_key == "capacity" else "capacity"
    row = card_state(svc.store, svc.profile.id, "siblings", other)
    assert row is not None and row.due <= clock.now
    from studyapp.store.progress import due_cards

    due = due_cards(svc.store, svc.profile.id, clock.now + timedelta(hours=1), clock.now)
    due_keys = {*due.learning, *((r.deck_id, r.card_key) for r in due.reviews)}
    assert due_keys  # other cards are due within the hour
    assert ("siblings", other) not in due_keys  # buried: in no queue today


def test_reviewed_today_and_what_comes_back_agree_everywhere(tmp_path: Path) -> None:
    from studyapp.progress import learner_stats

    clock = Clock()
    svc = service(tmp_path, clock)
    session = svc.start(SessionKind.POST, post="h200", seed=2, limit=6)
    answers = 0
    right = True
    cards = set()
    while (presented := session.next()) is not None:
        answer(session, presented, right=right)
        right = not right
        answers += 1
        cards.add(presented.card_key)
        clock.advance(seconds=20)
    assert answers == 6 == session.answered
    overview = svc.overview()
    stats = learner_stats(svc)
    assert overview.reviews_done_today == stats.reviews_today == answers
    assert stats.as_json()["reviews_today"] == answers
    coming = svc.coming_back()
    assert overview.coming_back == coming
    assert stats.as_json()["comes_back"] == {
        "within_hour": coming.within_hour,
        "next_in_s": (round(coming.next_in.total_seconds())
                      if coming.next_in is not None else None)}
    # Good (10 min) and Again (1 min): every card answered is back within the hour;
    # an Again card came back once already (20 s per answer)
    assert coming.within_hour == len(cards) < answers
    assert coming.next_in is not None and coming.next_in <= timedelta(minutes=1)
    waits = session.comes_back()
    assert len(waits) == len(cards) and min(waits) == coming.next_in


def test_study_more_new_cards_raises_today_s_limit_only(tmp_path: Path) -> None:
    clock = Clock()
    svc = service(tmp_path, clock)
    svc.update_settings(new_per_day=3)
    session = svc.start(SessionKind.POST, post="h200", seed=2)
    assert session.total == 3
    while (presented := session.next()) is not None:
        answer(session, presented, rating=Rating.EASY)
    overview = svc.overview()
    assert overview.new_left == 0 and overview.new_limit_reached
    assert svc.study_more_new(5) == 8
    assert svc.overview().new_left == 5
    assert svc.start(SessionKind.POST, post="h200", seed=2).total == 5
    clock.advance(days=1)
    assert svc.new_limit_today() == 3


def test_example_decks_start_switched_off_and_can_be_switched_on(tmp_path: Path) -> None:
    svc = service(tmp_path, Clock())
    decks = {d.deck_id: d for d in svc.deck_list()}
    assert decks["post-h200"].enabled and decks["post-h200"].kind == "post"
    assert not decks["numeric-drill"].enabled and decks["numeric-drill"].kind == "example"
    due = {i.deck_id for i in svc.plan(SessionKind.DUE)}
    assert "numeric-drill" not in due
    assert svc.set_deck_enabled("numeric-drill", True).enabled
    assert "numeric-drill" in {i.deck_id for i in svc.plan(SessionKind.DUE)}
    reopened = service(tmp_path, Clock())
    assert {d.deck_id: d.enabled for d in reopened.deck_list()}["numeric-drill"]
    reopened.set_deck_enabled("post-h200", False)
    assert all(i.deck_id != "post-h200" for i in reopened.plan(SessionKind.DUE))


def test_plain_mode_header_counts_and_spanish_v_f(tmp_path: Path) -> None:
    import io
    import re

    from studyapp.plain import run_plain

    deck = tmp_path / "tf.yaml"
    deck.write_text("""deck: tf
title: TF
language: es
post: h200
cards:
  - {id: a, type: truefalse, prompt: "La H200 SXM tiene 141 GB.", answer: true}
  - {id: b, type: truefalse, prompt: "La H200 SXM tiene 80 GB.", answer: false}
""", encoding="utf-8")
    clock = Clock()
    svc = service(tmp_path, clock)
    svc.update_settings(learn_ahead_min=0)  # both back in 10 min: the session ends
    session = svc.start(SessionKind.DECK, deck=str(deck), seed=1, lang="es")
    replies = ["v", "", "f", ""] if session.queue.main[0].card_key == "a" else ["f", "", "v", ""]
    out = io.StringIO()
    assert run_plain(session, stdin=io.StringIO("\n".join(replies) + "\n"), stdout=out) == 0
    text = out.getvalue()
    headers = re.findall(r"^\[(\d+)/(\d+)\].*$", text, re.M)
    assert headers == [("1", "2"), ("2", "2")]
    lines = text.strip().splitlines()
    assert lines[-1] == "sesión: 2 respondidas, 2 correctas"
    assert lines[-2].startswith("Vuelven: 2 tarjetas en la próxima hora")
