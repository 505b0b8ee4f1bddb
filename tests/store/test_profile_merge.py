"""Merging two copies of one profile (export one, import it into the other) replays
the union of their answers through FSRS in time order: reps equal the answers and
the schedule reflects every one of them, whichever copy was newer."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from studyapp.progress.profile_files import export_file, import_file
from studyapp.srs.scheduler import Memory, Rating, Scheduler, SchedulerSettings
from studyapp.store.progress import Answer, NewState, card_states, record_answer, review_count
from studyapp.study import StudyConfig, StudyService
from studyapp.study.held import memory_of

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def scheduler() -> Scheduler:
    """The default scheduler in the zone the test runs in (the service reads the same)."""
    return Scheduler(SchedulerSettings())


def service(path: Path, clock: datetime) -> StudyService:
    return StudyService(StudyConfig(db_url=f"sqlite:///{path}", profile="ana", lang="en",
                                    clock=lambda: clock))


def answer(svc: StudyService, card: str, at: datetime, rating: Rating) -> None:
    def state_for(row: object) -> NewState:
        after = scheduler().review(memory_of(row), rating, at)  # type: ignore[arg-type]
        return NewState(int(after.stage), after.step, after.stability, after.difficulty,
                        after.due or at, after.last_review or at, after.reps, after.lapses,
                        False)

    record_answer(svc.store, svc.profile.id, Answer(
        deck_id="post-intro", card_key=card, post="intro", family=None, state=None,
        reviewed_at=at, rating=int(rating), correct=rating > Rating.AGAIN), state_for)


def test_two_copies_merge_into_one_history_and_one_schedule(tmp_path: Path) -> None:
    first, second = tmp_path / "laptop.sqlite3", tmp_path / "desktop.sqlite3"
    shared = [(T0, Rating.GOOD), (T0 + timedelta(days=1), Rating.GOOD),
              (T0 + timedelta(days=4), Rating.HARD)]
    laptop = service(first, T0 + timedelta(days=10))
    for at, rating in shared:
        answer(laptop, "gen-kv", at, rating)
    export_file(laptop, tmp_path / "copy.json", "json")
    desktop = service(second, T0 + timedelta(days=10))
    import_file(desktop, tmp_path / "copy.json")  # the copy: same answers on both
    answer(desktop, "gen-kv", T0 + timedelta(days=9), Rating.AGAIN)  # only on the desktop
    answer(laptop, "gen-kv", T0 + timedelta(days=8), Rating.EASY)  # only on the laptop
    export_file(desktop, tmp_path / "desktop.json", "json")
    desktop.close()

    result = import_file(laptop, tmp_path / "desktop.json")
    assert result.reviews_added == 1 and result.cards_replayed == 1
    state = card_states(laptop.store, laptop.profile.id)[("post-intro", "gen-kv")]
    assert review_count(laptop.store, laptop.profile.id) == 5 == state.reps

    union = sorted([*shared, (T0 + timedelta(days=8), Rating.EASY),
                    (T0 + timedelta(days=9), Rating.AGAIN)])
    memory = Memory(card_id=state.id)
    replayed = scheduler()
    for at, rating in union:
        memory = replayed.review(memory, rating, at)
    assert state.stability is not None and memory.stability is not None
    assert abs(state.stability - memory.stability) < 1e-9
    assert state.due == memory.due and state.lapses == memory.lapses == 1
    assert state.last_review == T0 + timedelta(days=9)

    again = import_file(laptop, tmp_path / "desktop.json")  # importing twice changes nothing
    assert again.reviews_added == 0 and again.cards_replayed == 0
    assert card_states(laptop.store, laptop.profile.id)[("post-intro", "gen-kv")] == state
    laptop.close()


def moved_sooner(svc: StudyService, card: str, at: datetime) -> None:
    """A scenario's wrong step on the card (``study.ladders``): an implicit Again that only
    brings it back on the next study day, no lapse."""
    def state_for(row: object) -> NewState:
        memory = memory_of(row)  # type: ignore[arg-type]
        return NewState(int(memory.stage), memory.step, memory.stability, memory.difficulty,
                        at + timedelta(days=1), memory.last_review or at, memory.reps,
                        memory.lapses, False)

    record_answer(svc.store, svc.profile.id, Answer(
        deck_id="post-intro", card_key=card, post="intro", family=None, state=None,
        reviewed_at=at, rating=int(Rating.AGAIN), correct=False, implicit=True), state_for)


def test_a_wrong_scenario_step_is_no_lapse_when_two_copies_merge(tmp_path: Path) -> None:
    """Replayed after a merge, the card's history is read as the optimizer reads it: a
    wrong step's implicit Again moved only the due date and is no answer to replay."""
    first, second = tmp_path / "laptop.sqlite3", tmp_path / "desktop.sqlite3"
    shared = [(T0, Rating.GOOD), (T0 + timedelta(days=1), Rating.GOOD)]
    laptop = service(first, T0 + timedelta(days=10))
    for at, rating in shared:
        answer(laptop, "gen-kv", at, rating)
    export_file(laptop, tmp_path / "copy.json", "json")
    desktop = service(second, T0 + timedelta(days=10))
    import_file(desktop, tmp_path / "copy.json")
    moved_sooner(desktop, "gen-kv", T0 + timedelta(days=5))  # only on the desktop
    answer(laptop, "gen-kv", T0 + timedelta(days=4), Rating.EASY)  # only on the laptop
    export_file(desktop, tmp_path / "desktop.json", "json")
    desktop.close()

    result = import_file(laptop, tmp_path / "desktop.json")
    assert result.reviews_added == 1  # the step is in the log, as the desktop kept it
    state = card_states(laptop.store, laptop.profile.id)[("post-intro", "gen-kv")]
    memory = Memory(card_id=state.id)
    replayed = scheduler()
    for at, rating in sorted([*shared, (T0 + timedelta(days=4), Rating.EASY)]):
        memory = replayed.review(memory, rating, at)
    assert state.lapses == memory.lapses == 0
    assert state.stability is not None and memory.stability is not None
    assert abs(state.stability - memory.stability) < 1e-9
    laptop.close()
