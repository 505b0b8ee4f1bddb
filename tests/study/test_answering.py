"""Answering: what a sitting records, each write reporting that the schedule changed."""

from __future__ import annotations

from pathlib import Path

from study_parts import answer, drill_service
from test_service import Clock

from studyapp.srs import Rating
from studyapp.srs.scheduler import CardStage
from studyapp.study.changes import Changes


def test_an_answer_recorded_and_taken_back_each_report_the_schedule(tmp_path: Path) -> None:
    clock = Clock()
    svc = drill_service(tmp_path, clock)
    try:
        answering = svc.answering
        assert answering.intervals("drill", "alone")  # a new card: every rating has one
        log_id, after = answering.record_answer(answer(svc, clock, "alone", Rating.GOOD))
        assert log_id > 0 and after.stage is not CardStage.NEW
        assert svc.reported == [Changes.SCHEDULE]
        assert answering.due_times([("drill", "alone")]) == [after.due]
        assert answering.undo_answer(log_id)
        assert svc.reported == [Changes.SCHEDULE, Changes.SCHEDULE]
        assert answering.due_times([("drill", "alone")]) == []  # never answered again
        assert not answering.undo_answer(log_id)  # taken back once
    finally:
        svc.close()


def test_a_held_answer_is_recorded_once_with_its_rating(tmp_path: Path) -> None:
    clock = Clock()
    svc = drill_service(tmp_path, clock)
    try:
        answering = svc.answering
        held = answering.hold_answer(answer(svc, clock, "alone", Rating.GOOD))
        assert held > 0 and svc.reported == []  # held, not recorded: nothing changed yet
        log_id, _ = answering.record_answer(answer(svc, clock, "alone", Rating.EASY, held))
        assert log_id > 0
    finally:
        svc.close()
    again = drill_service(tmp_path, clock)
    try:
        again.record_abandoned()
        assert again.take_recovered() == []  # the held copy went with the recorded answer
    finally:
        again.close()


def test_a_held_answer_released_is_never_recorded(tmp_path: Path) -> None:
    clock = Clock()
    svc = drill_service(tmp_path, clock)
    try:
        held = svc.answering.hold_answer(answer(svc, clock, "alone", Rating.GOOD))
        svc.answering.release_answer(held)
    finally:
        svc.close()
    again = drill_service(tmp_path, clock)
    try:
        again.record_abandoned()
        assert again.take_recovered() == []
        assert again.answering.due_times([("drill", "alone")]) == []
    finally:
        again.close()


def test_burying_suspending_and_bringing_back_report_the_schedule(tmp_path: Path) -> None:
    clock = Clock()
    svc = drill_service(tmp_path, clock)
    try:
        answering = svc.answering
        _, after = answering.record_answer(answer(svc, clock, "alone", Rating.AGAIN))
        svc.reported.clear()
        keys = {("drill", "alone")}
        answering.bury_for_today(keys)
        answering.unbury(keys)
        assert answering.set_suspended("drill", "alone", True)
        assert svc.reported == [Changes.SCHEDULE] * 3
        assert answering.due_times(keys) == []  # suspended: left out
        answering.set_suspended("drill", "alone", False)
        assert answering.due_times(keys) == [after.due]
    finally:
        svc.close()
