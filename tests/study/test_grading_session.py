"""The grading half of a study session: "I was right", shuffled choices, the post look cap.

Each test reads what the service stored, since that is what schedules the
learner's next review and what the card-detail view replays.
"""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest

from studyapp.srs import Rating
from studyapp.srs.scheduler import CardStage
from studyapp.study import SHOWN_CHOICES, SessionKind, StudyConfig, StudyService

NOW = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)

DECK = """deck: grading-drill
title: {en: "Grading drill", es: "Práctica"}
language: en
post: nvlink-infiniband
cards:
  - id: fabric
    type: text
    prompt: {en: "Which scale-out fabric does NDR belong to?", es: "¿A qué red pertenece NDR?"}
    answer: {en: "InfiniBand", es: "InfiniBand"}
  - id: six
    type: choice
    prompt: {en: "Which one is a byte?", es: "¿Cuál es un byte?"}
    choices: [8 bits, 4 bits, 16 bits, 2 bits, 1 bit, 32 bits]
    answer: 0
"""


def service(tmp_path: Path, lang: str = "en") -> StudyService:
    deck = tmp_path / "drill.yaml"
    deck.write_text(DECK, encoding="utf-8")
    url = f"sqlite:///{tmp_path / 'study.sqlite3'}"
    return StudyService(StudyConfig(db_url=url, profile="ana", lang=lang, clock=lambda: NOW,
                                    extra_decks=(deck,)))


def logs(tmp_path: Path) -> list[tuple[int, int, int, int, str | None, str | None]]:
    with sqlite3.connect(tmp_path / "study.sqlite3") as db:
        return list(db.execute("SELECT rating, correct, overridden, looked_at_post, response, "
                               "params FROM review_logs ORDER BY id"))


def first(svc: StudyService, card: str, kind: SessionKind = SessionKind.DECK, seed: int = 1):  # type: ignore[no-untyped-def]
    session = svc.start(kind, deck="grading-drill", seed=seed)
    while (presented := session.next()) is not None:
        if presented.card_key == card:
            return session, presented
        session.skip()
        if all(item.card_key != card for item in session.queue):
            break
    raise AssertionError(f"card {card} not asked")


# ---------------------------------------------------------------- "I was right"


@pytest.mark.parametrize("lang", ["en", "es"])
def test_i_was_right_turns_again_into_hard_and_marks_the_log(tmp_path: Path,
                                                             lang: str) -> None:
    svc = service(tmp_path, lang)
    session, _ = first(svc, "fabric")
    outcome = session.submit("Ethernet")
    assert outcome.verdict.correct is False and outcome.recorded and outcome.can_overrule
    assert [row[:4] for row in logs(tmp_path)] == [(1, 0, 0, 0)]
    assert session.overrule()
    assert [row[:4] for row in logs(tmp_path)] == [(int(Rating.HARD), 1, 1, 0)]
    assert logs(tmp_path)[0][4] == "Ethernet"  # what was typed is kept
    assert session.answered == 1 and session.correct == 1
    assert not session.can_overrule and not session.overrule()  # once only
    from studyapp.store.progress import card_state

    row = card_state(svc.store, svc.profile.id, "grading-drill", "fabric")
    assert row is not None and row.reps == 1 and row.lapses == 0
    assert row.stage != CardStage.NEW
    svc.close()


def test_a_right_answer_or_the_next_question_cannot_be_overruled(tmp_path: Path) -> None:
    svc = service(tmp_path)
    session, _ = first(svc, "fabric")
    outcome = session.submit("infiniband")
    assert outcome.verdict.correct and not outcome.can_overrule and not session.can_overrule
    session.rate(Rating.GOOD)
    session2, presented = first(svc, "six", seed=2)
    wrong = next(n for n, c in enumerate(presented.question.choices, 1) if c != "8 bits")
    assert session2.submit(str(wrong)).verdict.correct is False
    shown = session2.next()  # plain mode: "!" at the next prompt still overrules
    assert shown is not None and session2.can_overrule
    for response in ("1", "true", "x"):  # answering the next question closes the door
        verdict = session2.submit(response).verdict
        if verdict.correct is not None:
            break
    held = session2._overrulable  # only the newest answer, if wrong, may be overruled now
    assert (held is None) if verdict.correct else (held is not None
                                                   and held.pending.presented is shown)
    svc.close()


def test_overrule_in_practice_counts_right_and_stores_nothing(tmp_path: Path) -> None:
    svc = service(tmp_path)
    session, _ = first(svc, "fabric", SessionKind.PRACTICE)
    outcome = session.submit("Ethernet")
    assert outcome.can_overrule and not outcome.recorded
    assert session.overrule()
    assert session.answered == 1 and session.correct == 1
    assert logs(tmp_path) == []
    svc.close()


# ---------------------------------------------------------------- shuffled choices


def test_choices_are_shuffled_per_showing_stored_and_graded_by_what_was_shown(
        tmp_path: Path) -> None:
    svc = service(tmp_path)
    orders = set()
    for seed in range(1, 9):
        session = svc.start(SessionKind.PRACTICE, deck="grading-drill", seed=seed)
        while (presented := session.next()) is not None:
            if presented.card_key == "six":
                break
            session.submit("x")
            session.skip()
        assert presented is not None
        shown = presented.question.choices
        assert sorted(shown) == sorted(["8 bits", "4 bits", "16 bits", "2 bits", "1 bit",
                                        "32 bits"])
        orders.add(shown)
        assert session.submit(str(shown.index("8 bits") + 1)).verdict.correct is True
    assert len(orders) >= 5  # the position is never the memory


def test_the_shown_order_is_logged_and_the_same_seed_replays_it(tmp_path: Path) -> None:
    svc = service(tmp_path)
    session, presented = first(svc, "six", seed=4)
    shown = list(presented.question.choices)
    wrong = next(n for n, c in enumerate(shown, 1) if c != "8 bits")
    outcome = session.submit(str(wrong))
    assert outcome.verdict.correct is False
    assert outcome.verdict.expected == f"{'abcdef'[shown.index('8 bits')]}) 8 bits"
    params = json.loads(logs(tmp_path)[0][5] or "{}")
    assert params[SHOWN_CHOICES] == shown
    assert logs(tmp_path)[0][4] == str(wrong)  # the number typed, read against that order
    svc.close()
    (tmp_path / "again").mkdir()
    again = service(tmp_path / "again")  # a fresh learner: same seed, same showing order
    _, replay = first(again, "six", seed=4)
    assert list(replay.question.choices) == shown
    again.close()


# ---------------------------------------------------------------- the post during a question


def test_opening_the_post_caps_the_rating_at_hard(tmp_path: Path) -> None:
    svc = service(tmp_path)
    session, _ = first(svc, "fabric")
    assert session.look_at_post()
    outcome = session.submit("InfiniBand")
    assert outcome.verdict.correct and outcome.needs_rating
    assert outcome.max_rating is Rating.HARD
    session.rate(Rating.EASY)  # a key the screen did not offer cannot rate higher
    assert [row[:4] for row in logs(tmp_path)] == [(int(Rating.HARD), 1, 0, 1)]
    assert not session.look_at_post()  # nothing is waiting now
    svc.close()


def test_looking_after_answering_does_not_cap(tmp_path: Path) -> None:
    svc = service(tmp_path)
    session, _ = first(svc, "fabric")
    outcome = session.submit("InfiniBand")
    assert not session.look_at_post()  # already graded: reading the post now is studying
    assert outcome.max_rating is Rating.EASY
    session.rate(Rating.EASY)
    assert [row[:4] for row in logs(tmp_path)] == [(int(Rating.EASY), 1, 0, 0)]
    svc.close()


def test_a_wrong_answer_after_looking_is_logged_as_looked(tmp_path: Path) -> None:
    svc = service(tmp_path)
    session, _ = first(svc, "fabric")
    session.look_at_post()
    session.submit("Ethernet")
    assert [row[:4] for row in logs(tmp_path)] == [(int(Rating.AGAIN), 0, 0, 1)]
    svc.close()


# ---------------------------------------------------------------- plain mode


@pytest.mark.parametrize("lang", ["en", "es"])
def test_plain_mode_takes_an_exclamation_mark_as_i_was_right(tmp_path: Path,
                                                             lang: str) -> None:
    import io

    from studyapp.i18n import t
    from studyapp.plain import run_plain

    svc = service(tmp_path, lang)
    session, _ = first(svc, "fabric")
    session.skip()  # put it back: run_plain asks it first
    session.queue.main.insert(0, session.queue.main.pop())
    out = io.StringIO()
    run_plain(session, stdin=io.StringIO("Ethernet\n!\n"), stdout=out)
    text = out.getvalue()
    assert t("plain.continue", lang) in text  # the prompt says how
    assert t("plain.overruled", lang) in text
    assert [row[:4] for row in logs(tmp_path)] == [(int(Rating.HARD), 1, 1, 0)]
    svc.close()


def test_plain_mode_says_a_conversion_wants_its_unit(tmp_path: Path) -> None:
    import io

    from studyapp.plain import run_plain

    deck = tmp_path / "conv.yaml"
    deck.write_text("deck: conv\ntitle: Conv\nlanguage: en\npost: nvlink-infiniband\n"
                    "cards:\n  - {id: bits, type: generated, generator: bits-vs-bytes}\n",
                    encoding="utf-8")
    url = f"sqlite:///{tmp_path / 'conv.sqlite3'}"
    svc = StudyService(StudyConfig(db_url=url, lang="en", clock=lambda: NOW,
                                   extra_decks=(deck,)))
    session = svc.start(SessionKind.DECK, deck="conv", seed=1)
    out = io.StringIO()
    run_plain(session, stdin=io.StringIO("400 Gb/s\n"), stdout=out)
    text = out.getvalue()
    assert "Answer in GB/s: a number, or the number with GB/s." in text
    assert "Answer in GB/s: converting is the question." in text
    assert "Correct" not in text
    svc.close()
