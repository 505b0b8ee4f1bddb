"""A sitting's slips, named at its end: "You counted K only twice ... on two different cards"."""

from __future__ import annotations

import io
from pathlib import Path

from test_learner_misconceptions import Clock, k_only, setup

from studyapp.study import SessionKind, StudyService, StudySession, slips_text


def sit(service: StudyService, slips: int) -> tuple[StudySession, int]:
    """A sitting over the K-only deck slipping K only on the first ``slips`` cards whose
    grading names the slip (once each; a card whose draw sets no such trap is answered
    right); returns the session and the slips made."""
    session = service.start(SessionKind.DECK, deck="k-only", seed=4)
    slipped: set[str] = set()
    while (presented := session.next()) is not None:
        q = presented.question
        wrong = (k_only(q) if len(slipped) < slips and presented.card_key not in slipped
                 else None)
        outcome = session.submit(wrong if wrong is not None else f"{float(q.answer):.6g}")
        if wrong is not None and outcome.verdict is not None and outcome.verdict.slips:
            slipped.add(presented.card_key)
        if outcome.needs_rating:
            session.rate()
    return session, len(slipped)


def test_the_tally_counts_each_misconception_slips_and_cards(tmp_path: Path) -> None:
    service = setup(tmp_path, Clock())
    session, made = sit(service, 2)
    assert made == 2
    tally = session.tally("en")
    assert tally.misconceptions == (("k_only", 2, 2),)
    line = slips_text(*tally.misconceptions[0], "en")
    assert line == "You counted K only twice in this session, on two different cards."
    assert slips_text("k_only", 1, 1, "es") == (
        "Contaste solo K una vez en esta sesión, en una tarjeta.")
    service.close()


def test_a_sitting_without_slips_names_none(tmp_path: Path) -> None:
    service = setup(tmp_path, Clock())
    session, _ = sit(service, 0)
    assert session.tally("en").misconceptions == ()
    service.close()


def test_a_misconception_without_its_own_words_is_named(tmp_path: Path) -> None:
    assert slips_text("bits_as_bytes", 3, 2, "en") == (
        "You slipped into “bits as bytes” 3 times in this session, on two different cards.")
    assert slips_text("bits_as_bytes", 3, 3, "es") == (
        "Caíste en «bits por bytes» 3 veces en esta sesión, en 3 tarjetas distintas.")


def test_the_plain_loop_ends_naming_the_slips(tmp_path: Path) -> None:
    """The plain loop's end line names them too (the answers given here, then end of input)."""
    from studyapp.plain import run_plain

    service = setup(tmp_path, Clock())
    session, _ = sit(service, 2)
    out = io.StringIO()
    run_plain(session, stdin=io.StringIO(""), stdout=out)
    assert "You counted K only twice in this session, on two different cards." in out.getvalue()
    service.close()
