"""A scenario in a study session: one card, one schedule, every step in the log."""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

from studyapp.questions.model import Kind, Question
from studyapp.srs import Rating
from studyapp.study import (
    SCENARIO_OUTCOME,
    SCENARIO_PARTS,
    Outcome,
    SessionKind,
    StudyConfig,
    StudyService,
    StudySession,
)

NOW = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)

DECK = """deck: scenario-drill
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


def service(tmp_path: Path) -> StudyService:
    deck = tmp_path / "drill.yaml"
    deck.write_text(DECK, encoding="utf-8")
    url = f"sqlite:///{tmp_path / 'study.sqlite3'}"
    return alone(StudyService(StudyConfig(db_url=url, profile="ana", clock=lambda: NOW,
                                          extra_decks=(deck,))), "scenario-drill")


def logs(tmp_path: Path) -> list[tuple[int, int, int, str]]:
    with sqlite3.connect(tmp_path / "study.sqlite3") as db:
        return list(db.execute("SELECT rating, correct, looked_at_post, params FROM review_logs"
                               " ORDER BY id"))


def right(question: Question, index: int) -> str:
    part = question.parts[index].question
    if part.kind is Kind.CHOICE:
        return str(part.choices.index(str(part.answer)) + 1)
    return f"{part.answer:.6g}"


def scenario_session(tmp_path: Path) -> tuple[StudyService, StudySession, Question]:
    """A session on the drill deck (seed 2) and the scenario it asks first."""
    svc = service(tmp_path)
    session = svc.start(SessionKind.DECK, deck="scenario-drill", seed=2)
    presented = session.next()
    assert presented is not None
    return svc, session, presented.question


def submit_right_from(session: StudySession, question: Question, start: int) -> Outcome:
    """Answer every step from ``start`` on right; the outcome of the last."""
    outcome = None
    for i in range(start, len(question.parts)):
        outcome = session.submit(right(question, i))
    assert outcome is not None
    return outcome


def test_all_steps_right_is_one_pass_the_learner_rates(tmp_path: Path) -> None:
    svc, session, q = scenario_session(tmp_path)
    assert q.kind is Kind.SCENARIO
    for i in range(len(q.parts)):
        assert session.part_index == i
        outcome = session.submit(right(q, i))
        assert outcome.part is not None and outcome.part.correct
        assert outcome.parts_left == len(q.parts) - i - 1
        assert not outcome.recorded
    assert outcome.needs_rating and outcome.max_rating is Rating.EASY
    assert logs(tmp_path) == []  # nothing stored until rated
    session.rate(Rating.GOOD)
    [(rating, correct, looked, params)] = logs(tmp_path)
    assert (rating, correct, looked) == (int(Rating.GOOD), 1, 0)
    steps = json.loads(params)[SCENARIO_PARTS]
    assert [s["name"] for s in steps] == [p.name for p in q.parts]
    assert all(s["correct"] for s in steps)
    svc.close()


def test_one_wrong_step_passes_at_hard_and_the_log_keeps_its_slip(tmp_path: Path) -> None:
    """One step of six wrong: the card passes, Hard at most, and the log names the step and
    the one-step family it computes as (kv-cache-per-token), to bring back sooner."""
    svc, session, q = scenario_session(tmp_path)
    kv = q.parts[1].question.answer
    assert isinstance(kv, float)
    session.submit(right(q, 0))
    second = session.submit(f"{kv * 1000:.5g} GB")  # MB written as GB
    assert second.part is not None and second.part.correct is False
    assert "prefix" in second.part.verdict.slips
    outcome = submit_right_from(session, q, 2)
    assert not outcome.recorded and outcome.needs_rating
    assert outcome.verdict.correct is True and outcome.max_rating is Rating.HARD
    session.rate(Rating.GOOD)
    [(rating, correct, _, params)] = logs(tmp_path)
    assert (rating, correct) == (int(Rating.HARD), 1)
    said = json.loads(params)[SCENARIO_OUTCOME]
    assert said == {"rating": "hard", "wrong": ["kv_user"], "weak": ["kv-cache-per-token"],
                    "rounded": []}
    steps = json.loads(params)[SCENARIO_PARTS]
    assert steps[1]["correct"] is False and steps[1]["slips"] == ["prefix"]
    assert steps[1]["response"] == f"{kv * 1000:.5g} GB"
    svc.close()


def test_a_step_hint_caps_the_scenario_at_hard(tmp_path: Path) -> None:
    svc, session, q = scenario_session(tmp_path)
    session.submit(right(q, 0))
    method = session.show_method()
    assert method == q.parts[1].method and "2 (K and V)" in method
    outcome = submit_right_from(session, q, 1)
    assert outcome.needs_rating and outcome.max_rating is Rating.HARD
    session.rate(Rating.EASY)
    [(rating, correct, looked, params)] = logs(tmp_path)
    assert (rating, correct, looked) == (int(Rating.HARD), 1, 1)
    assert [s["hint"] for s in json.loads(params)[SCENARIO_PARTS]][:2] == [False, True]
    svc.close()


def test_an_unreadable_step_is_asked_again(tmp_path: Path) -> None:
    svc = service(tmp_path)
    session = svc.start(SessionKind.DECK, deck="scenario-drill", seed=2)
    assert session.next() is not None
    outcome = session.submit("three seconds")
    assert outcome.verdict.retry and session.part_index == 0
    svc.close()


# ---------------------------------------------------------------- plain mode


def plain_run(tmp_path: Path, lines: list[str]) -> str:
    import io

    from studyapp.plain import run_plain

    svc = service(tmp_path)
    session = svc.start(SessionKind.DECK, deck="scenario-drill", seed=2, limit=1)
    out = io.StringIO()
    run_plain(session, stdin=io.StringIO("".join(f"{line}\n" for line in lines)), stdout=out)
    svc.close()
    return out.getvalue()


def scenario_at_seed_2(tmp_path: Path) -> Question:
    svc, _, question = scenario_session(tmp_path / "peek")
    svc.close()
    return question


def test_plain_mode_asks_a_whole_scenario_line_by_line(tmp_path: Path) -> None:
    (tmp_path / "peek").mkdir()
    q = scenario_at_seed_2(tmp_path)
    weights = q.parts[0].question.answer
    kv = q.parts[1].question.answer
    assert isinstance(weights, float) and isinstance(kv, float)
    mine = round(weights * 3)  # a wrong step 1 ...
    total = mine + q.params["users"] * kv  # ... and step 3 right from it
    assert abs(total / q.parts[2].question.answer - 1) > 0.05  # not right on its own
    lines = [str(mine), right(q, 1), "?", f"{total:.5g}",
             *(right(q, i) for i in range(3, len(q.parts)))]
    text = plain_run(tmp_path, lines)
    assert text.splitlines()[1].startswith("[1/1] ")
    for n in range(1, len(q.parts) + 1):
        assert f"step {n}/{len(q.parts)}: " in text
    assert f"Your answer: {mine} GB · expected:" in text
    assert f"Right from your {mine} GB; the true value was" in text
    assert "Method: Total = weights + users × KV per user." in text
    assert "Worked solution:" in text and "\n1. Weights = " in text
    assert f"{len(q.parts) - 2} of {len(q.parts)} steps right." in text
    # one step wrong, the next right from it: the card passes, Hard at most
    assert text.rstrip().endswith("session: 1 answered, 1 correct")
    [(rating, correct, looked, params)] = logs(tmp_path)
    assert (rating, correct, looked) == (int(Rating.HARD), 1, 1)
    # card history, stats --card and the card screen list the steps from the log
    from studyapp.study.phrases import logged_parts

    history = logged_parts(json.loads(params), "en")
    assert history[0].startswith(f"1. weights: {mine} GB ✗ (expected ")
    assert "right from an earlier answer" in history[2] and "method shown" in history[2]


def test_plain_mode_rates_a_scenario_all_right(tmp_path: Path) -> None:
    (tmp_path / "peek").mkdir()
    q = scenario_at_seed_2(tmp_path)
    text = plain_run(tmp_path, [*(right(q, i) for i in range(len(q.parts))), "4"])
    assert f"All {len(q.parts)} steps right." in text and "How easy was it?" in text
    assert text.rstrip().endswith("session: 1 answered, 1 correct")
    [(rating, correct, _, _)] = logs(tmp_path)
    assert (rating, correct) == (int(Rating.EASY), 1)


def test_several_steps_in_one_answer_one_a_line(tmp_path: Path) -> None:
    svc, session, q = scenario_session(tmp_path)
    outcome = session.submit("\n".join(right(q, i) for i in range(3)))
    assert outcome.parts_left == len(q.parts) - 3 and session.part_index == 3
    again = session.submit("not a number\n" + right(q, 4))
    assert again.verdict.retry and session.part_index == 3  # stopped at the unreadable line
    outcome = session.submit("\n".join(right(q, i) for i in range(3, len(q.parts))))
    assert outcome.verdict.correct and outcome.needs_rating
    svc.close()


def test_stats_card_lists_each_step_of_a_scenario_answer(tmp_path: Path) -> None:
    """`stats --card` prints, under the answer, one line a step: the answer, ✓ or ✗ with the
    true value, a named slip; `--json` keeps the steps in the answer's params."""
    from click.testing import CliRunner

    from studyapp.cli import main

    svc, session, q = scenario_session(tmp_path)
    kv = q.parts[1].question.answer
    assert isinstance(kv, float)
    session.submit(right(q, 0))
    session.submit(f"{kv * 1000:.5g} GB")  # MB written as GB: the prefix slip
    submit_right_from(session, q, 2)
    svc.close()
    url = f"sqlite:///{tmp_path / 'study.sqlite3'}"
    runner = CliRunner()
    result = runner.invoke(main, ["--db", url, "--profile", "ana", "--lang", "en", "stats",
                                  "--card", "scenario-drill/serve"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    steps = [line.strip() for line in lines if line.startswith("    ")]
    assert len(steps) == len(q.parts)
    assert steps[0].startswith("1. weights: ") and steps[0].endswith("✓")
    assert steps[1].startswith("2. kv_user: ") and " GB ✗ (expected " in steps[1]
    assert steps[1].endswith("slip: prefix")
    result = runner.invoke(main, ["--db", url, "--profile", "ana", "stats", "--card",
                                  "scenario-drill/serve", "--json"])
    assert result.exit_code == 0, result.output
    [last] = json.loads(result.output)["last"]
    assert [s["correct"] for s in last["params"][SCENARIO_PARTS]][:2] == [True, False]
    assert last["params"][SCENARIO_PARTS][1]["slips"] == ["prefix"]


def test_a_scenario_rated_after_a_wrong_step_leaves_no_held_copy(tmp_path: Path) -> None:
    """The steps' Again copy, held from the wrong step on, goes when the passed scenario is
    held for its rating: left over, it was later recorded as a second answer (Again) of
    the same card the next time the profile's progress was read."""
    svc, session, q = scenario_session(tmp_path)
    kv = q.parts[1].question.answer
    assert isinstance(kv, float)
    session.submit(right(q, 0))
    session.submit(f"{kv * 1000:.5g} GB")  # a wrong step: the steps are held as Again
    submit_right_from(session, q, 2)
    session.rate(Rating.GOOD)
    with sqlite3.connect(tmp_path / "study.sqlite3") as db:
        assert db.execute("SELECT count(*) FROM held_answers").fetchone() == (0,)
    assert [(r, c) for r, c, _, _ in logs(tmp_path)] == [(int(Rating.HARD), 1)]
    svc.close()


def test_a_step_shown_and_a_step_missed_say_why_hard_is_the_best(tmp_path: Path) -> None:
    """After "?" on one step and a miss on another, the cap is the method's, not "you
    opened the post" (the post was never opened)."""
    svc, session, q = scenario_session(tmp_path)
    kv = q.parts[1].question.answer
    assert isinstance(kv, float)
    session.submit(right(q, 0))
    session.submit(f"{kv * 1000:.5g} GB")  # a wrong step
    assert session.show_method() == q.parts[2].method
    outcome = submit_right_from(session, q, 2)
    assert outcome.max_rating is Rating.HARD
    assert outcome.capped_by_method and not outcome.capped_by_step
    session.rate(Rating.HARD)
    svc.close()


def test_a_step_missed_without_the_method_says_the_step_went_wrong(tmp_path: Path) -> None:
    svc, session, q = scenario_session(tmp_path)
    kv = q.parts[1].question.answer
    assert isinstance(kv, float)
    session.submit(right(q, 0))
    session.submit(f"{kv * 1000:.5g} GB")
    outcome = submit_right_from(session, q, 2)
    assert outcome.capped_by_step and not outcome.capped_by_method
    session.rate(Rating.HARD)
    svc.close()
