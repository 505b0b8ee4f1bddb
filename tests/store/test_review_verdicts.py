"""Each answer's verdict, named slip, carried-forward steps and picked choice are stored
with it (revision 0012): when it is given, when it is imported, and for the answers
a database held before the upgrade."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime, timedelta

from sqlalchemy import select, text
from store_answers import answer

from studyapp.store import HEAD, REVISIONS, open_store
from studyapp.store.progress import ensure_profile, record_answer
from studyapp.store.tables import ReviewLog

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
OLDER = REVISIONS[REVISIONS.index("0012_review_verdicts") - 1]

SCENARIO_PARTS = [  # step 1 wrong (a slip), step 2 right from the learner's own step 1
    {"name": "weights", "correct": False, "carried": False, "slips": ["bits for bytes"]},
    {"name": "kv", "correct": False, "carried": True, "slips": ["bits for bytes"]},
    {"name": "total", "correct": True, "carried": False, "slips": []},
]


def _marks(store: object) -> list[tuple[str, str | None, int, str | None]]:
    with store.sessions() as session:  # type: ignore[attr-defined]
        return [tuple(r) for r in session.execute(  # type: ignore[misc]
            select(ReviewLog.verdict, ReviewLog.slip, ReviewLog.carried, ReviewLog.answer)
            .order_by(ReviewLog.id))]


def test_an_answer_is_stored_with_its_verdict_slip_and_carried_steps(db_url: str) -> None:
    store = open_store(db_url)
    try:
        ana = ensure_profile(store, "ana", {}, T0)
        base = answer("d", "c1", T0)
        record_answer(store, ana.id, base)
        record_answer(store, ana.id, replace(
            base, card_key="c2", correct=False,
            params={"answer_slips": ["GB for GiB"], "picked_choice": "HBM3"}))
        record_answer(store, ana.id, replace(base, card_key="c3", correct=False, params={}))
        record_answer(store, ana.id, replace(base, card_key="c5", correct=False,
                                             params={"answer_slips": []}))
        record_answer(store, ana.id, replace(base, card_key="c4", correct=True,
                                             params={"parts": SCENARIO_PARTS}))
        assert _marks(store) == [
            ("right", "", 0, None),
            ("wrong", "GB for GiB", 0, "HBM3"),
            ("wrong", None, 0, None),  # no note of its slips: named later by grading it again
            ("wrong", "", 0, None),  # noted as showing no slip
            ("right", "", 1, None),  # the carried step names no slip
        ]
    finally:
        store.close()


def test_the_upgrade_fills_in_the_answers_stored_before(db_url: str) -> None:
    store = open_store(db_url, migrate_to=OLDER)
    try:
        ana = ensure_profile(store, "ana", {}, T0)
        rows = [(True, {"gpu": "h100"}), (False, {"answer_slips": ["GB for GiB"]}),
                (False, {"batch": 4}), (False, {"parts": SCENARIO_PARTS})]
        with store.transaction() as session:
            for n, (correct, params) in enumerate(rows):
                session.execute(text(
                    "INSERT INTO card_states (profile_id, deck_id, card_key, post, state, due, "
                    "reps, lapses, suspended, leech, created_at, flag) VALUES (:p, 'd', :k, "
                    "'intro', 2, :at, 1, 0, :no, :no, :at, 0)"),
                    {"p": ana.id, "k": f"c{n}", "at": T0, "no": False})
                session.execute(text(
                    "INSERT INTO review_logs (profile_id, card_id, reviewed_at, rating, correct, "
                    "uid, overridden, looked_at_post, state_before, params) SELECT :p, id, :at, "
                    "3, :ok, :uid, :no, :no, 0, :params FROM card_states WHERE card_key = :k"),
                    {"p": ana.id, "at": T0 + timedelta(minutes=n), "ok": correct,
                     "uid": f"u{n}", "no": False, "params": json.dumps(params), "k": f"c{n}"})
    finally:
        store.close()
    store = open_store(db_url, upgrade=True)
    try:
        from studyapp.store.database import current_revision

        assert current_revision(store.engine) == HEAD
        assert _marks(store) == [
            ("right", "", 0, None),
            ("wrong", "GB for GiB", 0, None),
            ("wrong", None, 0, None),  # stored before slips were noted: named by grading again
            ("wrong", "weights: bits for bytes", 1, None),
        ]
    finally:
        store.close()
