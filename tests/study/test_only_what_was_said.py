"""Only what the learner said is logged.

A self-graded (recall) card whose answer was shown says nothing until it is
rated, as in Anki: leaving it (end of plain input, the service closed by a
closed tab, ctrl+q or SIGTERM) records nothing and the card stays due. A
scenario left after a wrong step is logged as the steps answered, Again,
with their answers and slips, so the class report sees them; one left after
right steps only says nothing. An answer a killed app held is counted by
``stats``, the progress screen and the class report at once.
"""

from __future__ import annotations

import io
import json
import socket
import sqlite3
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

from click.testing import CliRunner
from recall_decks import write_recall_deck

from studyapp.plain import run_plain
from studyapp.questions.model import Kind, Question
from studyapp.srs import Rating
from studyapp.study import (
    ANSWER_SLIPS,
    SCENARIO_PARTS,
    SessionKind,
    StudyConfig,
    StudyService,
    StudySession,
)

NOW = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)

SCENARIO_DECK = """deck: scenario-drill
title: Scenario drill
language: en
post: hgx
cards:
  - {id: serve, type: generated, generator: scenario-serving}
"""


def alone(svc: StudyService, deck_id: str) -> StudyService:
    """The learner studies ``deck_id`` alone: the post decks' one-step cards, which a
    scenario waits for until seen (``study.ladders``), are not in their collection."""
    for other in svc.deck_list():
        if other.deck_id != deck_id:
            svc.set_deck_enabled(other.deck_id, False)
    return svc


def service(tmp_path: Path, deck: Path, profile: str = "ana") -> StudyService:
    url = f"sqlite:///{tmp_path / 'study.sqlite3'}"
    svc = StudyService(StudyConfig(db_url=url, profile=profile, lang="en", clock=lambda: NOW,
                                   extra_decks=(deck,)))
    return alone(svc, "scenario-drill") if deck.name in ("drill.yaml", "two.yaml") else svc


def rows(tmp_path: Path, sql: str) -> list[tuple[object, ...]]:
    with sqlite3.connect(tmp_path / "study.sqlite3") as db:
        return list(db.execute(sql))


def logs(tmp_path: Path) -> list[tuple[object, ...]]:
    return rows(tmp_path, "SELECT rating, correct, response, params FROM review_logs ORDER BY id")


def held(tmp_path: Path) -> list[tuple[object, ...]]:
    return rows(tmp_path, "SELECT id, answer FROM held_answers")


def scenario_deck(tmp_path: Path) -> Path:
    deck = tmp_path / "drill.yaml"
    deck.write_text(SCENARIO_DECK, encoding="utf-8")
    return deck


def right(question: Question, index: int) -> str:
    part = question.parts[index].question
    if part.kind is Kind.CHOICE:
        return str(part.choices.index(str(part.answer)) + 1)
    return f"{part.answer:.6g}"


def half_kv(question: Question) -> str:
    """Step 2 answered in MB but written as GB: wrong, with the slip ``prefix`` (in BF16 K
    only and one byte a value both halve it, so halving names no cause)."""
    kv = question.parts[1].question.answer
    assert isinstance(kv, float)
    return f"{kv * 1000:.5g} GB"


def wrong_first(question: Question) -> str:
    """Step 1 (the weights) answered three times too big: wrong."""
    weights = question.parts[0].question.answer
    assert isinstance(weights, float)
    return f"{round(weights * 3)} GB"


def scenario(tmp_path: Path) -> tuple[StudyService, StudySession, Question]:
    svc = service(tmp_path, scenario_deck(tmp_path))
    session = svc.start(SessionKind.DECK, deck="scenario-drill", seed=2, limit=1)
    presented = session.next()
    assert presented is not None and presented.question.kind is Kind.SCENARIO
    return svc, session, presented.question


def plain(session: StudySession, lines: list[str]) -> str:
    out = io.StringIO()
    run_plain(session, stdin=io.StringIO("".join(f"{line}\n" for line in lines)), stdout=out)
    return out.getvalue()


# ---------------------------------------------------------------- a recall card shown, unrated


def test_plain_end_of_input_after_the_answer_is_shown_logs_nothing(tmp_path: Path) -> None:
    deck = write_recall_deck(tmp_path)
    svc = service(tmp_path, deck)
    session = svc.start(SessionKind.DECK, deck="recall-keys")
    out = plain(session, [""])  # Enter shows the answer, then the input ends
    svc.close()
    assert "Answer: data, tensor and pipeline" in out
    assert "End of input: not rated, so nothing was recorded; the card stays due." in out
    assert "rated Good" not in out
    assert logs(tmp_path) == [] and held(tmp_path) == []
    again = service(tmp_path, deck)  # still due: the next sitting asks it
    try:
        presented = again.start(SessionKind.DECK, deck="recall-keys").next()
        assert presented is not None and presented.card_key == "axes"
    finally:
        again.close()


def test_a_closed_tab_or_ctrl_q_after_the_answer_is_shown_logs_nothing(tmp_path: Path) -> None:
    svc = service(tmp_path, write_recall_deck(tmp_path))
    session = svc.start(SessionKind.DECK, deck="recall-keys")
    assert session.next() is not None
    outcome = session.submit("")
    assert outcome.needs_rating and outcome.verdict.correct
    assert held(tmp_path) == []  # nothing said yet: nothing held for a killed app either
    assert session.settle() is None
    svc.close()  # what a closed tab, ctrl+q and SIGTERM do
    assert session.answered == 0
    assert logs(tmp_path) == [] and held(tmp_path) == []


def test_a_recall_card_rated_is_logged_as_rated(tmp_path: Path) -> None:
    svc = service(tmp_path, write_recall_deck(tmp_path))
    session = svc.start(SessionKind.DECK, deck="recall-keys")
    out = plain(session, ["", "2"])
    svc.close()
    assert "not rated" not in out
    assert [(rating, correct) for rating, correct, *_ in logs(tmp_path)] == [(2, 1)]


# ---------------------------------------------------------------- a scenario left unfinished


def test_plain_end_of_input_after_a_wrong_step_logs_the_steps_as_again(tmp_path: Path) -> None:
    svc, session, q = scenario(tmp_path)
    out = plain(session, [right(q, 0), half_kv(q)])
    svc.close()
    assert "End of input: the steps answered were recorded as Again" in out
    [(rating, correct, response, params)] = logs(tmp_path)
    assert (rating, correct) == (int(Rating.AGAIN), 0)
    assert response == f"{right(q, 0)} | {half_kv(q)}"
    logged = json.loads(str(params))
    steps = logged[SCENARIO_PARTS]
    assert [s["correct"] for s in steps] == [True, False]  # the steps answered, no more
    assert steps[1]["slips"] == ["prefix"] and steps[1]["response"] == half_kv(q)
    assert logged[ANSWER_SLIPS] == ["prefix"]  # what the class report's item analysis reads
    assert held(tmp_path) == []


def test_plain_end_of_input_after_right_steps_only_logs_nothing(tmp_path: Path) -> None:
    svc, session, q = scenario(tmp_path)
    out = plain(session, [right(q, 0), right(q, 1)])
    svc.close()
    assert "recorded as Again" not in out
    assert logs(tmp_path) == [] and held(tmp_path) == []


def test_closing_the_service_after_a_wrong_step_logs_the_steps_as_again(tmp_path: Path) -> None:
    svc, session, q = scenario(tmp_path)
    session.submit(right(q, 0))
    session.submit(half_kv(q))
    session.submit(right(q, 2))
    svc.close()  # the tab closed
    [(rating, correct, _, params)] = logs(tmp_path)
    assert (rating, correct) == (int(Rating.AGAIN), 0)
    assert len(json.loads(str(params))[SCENARIO_PARTS]) == 3
    assert session.answered == 1 and session.correct == 0


def test_a_practice_scenario_left_after_a_wrong_step_stores_nothing(tmp_path: Path) -> None:
    svc = service(tmp_path, scenario_deck(tmp_path))
    session = svc.start(SessionKind.PRACTICE, deck="scenario-drill", seed=2, limit=1)
    presented = session.next()
    assert presented is not None
    session.submit(wrong_first(presented.question))
    assert session.settle() is Rating.AGAIN  # counted for the sitting only
    svc.close()
    assert logs(tmp_path) == [] and held(tmp_path) == []


def dead_holder() -> dict[str, object]:
    """A holder on this machine whose process has ended."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return {"host": socket.gethostname(), "pid": child.pid, "started": "gone"}


def orphan_held_answers(tmp_path: Path) -> None:
    """Every held answer's app is taken for gone: what SIGKILL leaves behind."""
    holder = json.dumps(dead_holder())
    with sqlite3.connect(tmp_path / "study.sqlite3") as db:
        db.execute("UPDATE held_answers SET answer = json_set(answer, '$.holder', json(?))",
                   (holder,))


def test_a_wrong_step_survives_a_killed_app_as_again(tmp_path: Path) -> None:
    svc, session, q = scenario(tmp_path)
    session.submit(right(q, 0))
    assert held(tmp_path) == []  # right steps only: nothing said about the card yet
    session.submit(half_kv(q))
    assert len(held(tmp_path)) == 1
    session.submit(right(q, 2))
    [(_, answer)] = held(tmp_path)  # replaced at each step, never two
    assert len(json.loads(str(answer))["params"][SCENARIO_PARTS]) == 3
    orphan_held_answers(tmp_path)  # the app is killed here: nothing more is written
    svc._sessions.clear()
    svc.close()
    assert logs(tmp_path) == []
    after = service(tmp_path, scenario_deck(tmp_path))
    try:
        assert after.profile is not None and len(after.recovered) == 1
    finally:
        after.close()
    [(rating, correct, _, params)] = logs(tmp_path)
    assert (rating, correct) == (int(Rating.AGAIN), 0)
    assert len(json.loads(str(params))[SCENARIO_PARTS]) == 3


def test_undo_takes_back_the_held_steps_with_the_card(tmp_path: Path) -> None:
    deck = tmp_path / "two.yaml"
    deck.write_text(SCENARIO_DECK + "  - {id: six, type: numeric, prompt: '6 x 7?', "
                    "answer: '42', tolerance: 0}\n", encoding="utf-8")
    svc = service(tmp_path, deck)
    session = svc.start(SessionKind.DECK, deck="scenario-drill", seed=2)
    first = session.next()
    assert first is not None
    if first.question.kind is Kind.SCENARIO:  # the order depends on the draw
        session.skip()
        first = session.next()
    assert first is not None and first.card_key == "six"
    session.submit("42")
    session.rate()
    presented = session.next()
    assert presented is not None and presented.question.kind is Kind.SCENARIO
    session.submit(wrong_first(presented.question))
    assert len(held(tmp_path)) == 1
    assert session.undo()
    assert held(tmp_path) == []
    svc.close()


# ---------------------------------------------------------------- a killed app's answer, counted


HELD_DECK = """deck: held
title: Held answers
language: en
post: hbm-kv-cache
cards:
  - {id: six-sevens, type: numeric, prompt: "How much is 6 x 7?", answer: "42", tolerance: 0}
"""


def held_right_answer(tmp_path: Path, profile: str = "default") -> Path:
    """A right answer graded, held, and its app killed before the rating."""
    deck = tmp_path / "held.yaml"
    deck.write_text(HELD_DECK, encoding="utf-8")
    svc = service(tmp_path, deck, profile)
    session = svc.start(SessionKind.DECK, deck="held")
    assert session.next() is not None
    assert session.submit("42").needs_rating
    orphan_held_answers(tmp_path)
    svc._sessions.clear()  # killed: nothing settles it
    svc.close()
    assert logs(tmp_path) == [] and len(held(tmp_path)) == 1
    return deck


def test_stats_counts_an_answer_a_killed_app_held(tmp_path: Path) -> None:
    from studyapp.cli import main

    deck = held_right_answer(tmp_path)
    result = CliRunner().invoke(main, ["--db", f"sqlite:///{tmp_path / 'study.sqlite3'}",
                                       "--lang", "en", "stats", "--json"],
                                env={"STUDYAPP_HOME": str(tmp_path / "home")})
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["reviews_total"] == 1 and data["cards_seen"] == 1
    assert held(tmp_path) == []
    assert deck.exists()


def test_the_progress_screen_counts_an_answer_killed_after_the_profile_opened(
        tmp_path: Path) -> None:
    deck = tmp_path / "held.yaml"
    deck.write_text(HELD_DECK, encoding="utf-8")
    reader = service(tmp_path, deck, "default")  # an app already open on the profile
    try:
        assert reader.progress_view().stats.reviews_total == 0
        held_right_answer(tmp_path)  # another app of the profile killed meanwhile
        assert reader.progress_view().stats.reviews_total == 1
        assert reader.take_recovered() == ["How much is 6 x 7?"]
    finally:
        reader.close()
    assert [(rating, correct) for rating, correct, *_ in logs(tmp_path)] == [(3, 1)]


def test_the_class_report_counts_a_students_answer_a_killed_app_held(tmp_path: Path) -> None:
    from studyapp.classroom import class_report_for

    held_right_answer(tmp_path, profile="ana")
    teacher = service(tmp_path, tmp_path / "held.yaml", "teacher")
    try:
        report, _ = class_report_for(teacher)
    finally:
        teacher.close()
    ana = next(s for s in report.students if s.name == "ana")
    assert (ana.reviews, ana.correct) == (1, 1)
    assert held(tmp_path) == []


def test_a_killed_child_not_yet_reaped_holds_nothing(tmp_path: Path) -> None:
    """A server's tab killed with SIGKILL is a zombie until the server reaps it: gone."""
    import os
    import signal
    import time

    from studyapp.store.held import _started, holder_alive

    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        holder = {"host": socket.gethostname(), "pid": child.pid,
                  "started": _started(child.pid)}
        assert holder_alive(holder, NOW, NOW)
        os.kill(child.pid, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while Path(f"/proc/{child.pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z":
            assert time.monotonic() < deadline
            time.sleep(0.01)
        assert not holder_alive(holder, NOW, NOW)
    finally:
        child.kill()
        child.wait()
