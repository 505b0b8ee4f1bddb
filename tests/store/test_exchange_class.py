"""Export and import (JSON and CSV) are lossless and idempotent; the class report
reads a shared database and exported files alike."""

from __future__ import annotations

import csv
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from store_answers import answer

from studyapp.classroom import class_report, class_report_from_files
from studyapp.store import open_store
from studyapp.store.progress import ensure_profile, mark_post_read, record_answer, review_count
from studyapp.store.progress_files import (
    import_progress,
    iter_records,
    read_export,
    write_csv,
    write_json,
)

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
TOTALS = {"intro": 10, "h100": 5}


def _history(store, name: str, wrong_on: set[str] = frozenset()) -> int:  # type: ignore[no-untyped-def]
    profile = ensure_profile(store, name, {"desired_retention": 0.85}, T0)
    for n in range(6):
        key = f"c{n}"
        post = "intro" if n < 4 else "h100"
        record_answer(store, profile.id, answer(
            "deck", key, T0 + timedelta(minutes=n), post=post, stage=1, stability=0.4,
            correct=key not in wrong_on, rating=1 if key in wrong_on else 3,
            due_in=timedelta(minutes=10)))
        record_answer(store, profile.id, answer(
            "deck", key, T0 + timedelta(days=1, minutes=n), post=post, stability=30.0,
            due_in=timedelta(days=30)))
    mark_post_read(store, profile.id, "intro", T0)
    return profile.id


def _records(store, profile_id: int) -> list[tuple[str, dict]]:  # type: ignore[no-untyped-def, type-arg]
    return sorted(((k, r) for k, r in iter_records(store, profile_id)),
                  key=lambda kr: (kr[0], str(kr[1].get("uid")), str(kr[1].get("card_key")),
                                  str(kr[1].get("post"))))


@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_export_import_round_trip_is_idempotent(db_url: str, tmp_path: Path, fmt: str) -> None:
    source = open_store(f"sqlite:///{tmp_path / 'source.sqlite3'}")
    target = open_store(db_url)
    try:
        ana = _history(source, "ana")
        profile = ensure_profile(source, "ana", {}, T0)
        path = tmp_path / f"ana.{fmt}"
        with path.open("w", encoding="utf-8", newline="") as fh:
            if fmt == "json":
                write_json(source, profile, fh, T0)
            else:
                write_csv(source, profile, fh)
        export = read_export(path)
        assert export.profile == "ana" and len(export.reviews) == 12 and len(export.cards) == 6
        into = ensure_profile(target, "ana", {}, T0)
        first = import_progress(target, into.id, export)
        assert (first.reviews_added, first.cards_added) == (12, 6)
        snapshot = _records(target, into.id)
        again = import_progress(target, into.id, read_export(path))
        assert (again.reviews_added, again.cards_added, again.cards_updated) == (0, 0, 0)
        assert again.reviews_skipped == 12
        assert _records(target, into.id) == snapshot == _records(source, ana)
        review = next(r for k, r in snapshot if k == "review")
        assert review["params"] == {"gpu": "h200-sxm", "batch": 4}
        assert review["response"] == "42" and review["deck_id"] == "deck"
    finally:
        source.close()
        target.close()


@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_marks_and_answer_flags_survive_a_round_trip(tmp_path: Path, fmt: str) -> None:
    """A card's flag, an overruled answer, an answer given with the post open, and a
    card marked before it was ever answered (stage 0) come back as they were."""
    from dataclasses import replace

    from sqlalchemy import update

    from studyapp.store.tables import CardState

    source = open_store(f"sqlite:///{tmp_path / 'source.sqlite3'}")
    target = open_store(f"sqlite:///{tmp_path / 'target.sqlite3'}")
    try:
        profile = ensure_profile(source, "ana", {}, T0)
        record_answer(source, profile.id, replace(
            answer("deck", "overruled", T0), rating=2, overridden=True))
        record_answer(source, profile.id, replace(
            answer("deck", "peeked", T0 + timedelta(minutes=1)), looked_at_post=True))
        record_answer(source, profile.id, replace(
            answer("deck", "marked", T0 + timedelta(minutes=2)),
            state=replace(answer("deck", "marked", T0).state, stage=0)))
        with source.transaction() as session:
            session.execute(update(CardState).where(CardState.card_key == "peeked")
                            .values(flag=3))
        path = tmp_path / f"ana.{fmt}"
        with path.open("w", encoding="utf-8", newline="") as fh:
            (write_json(source, profile, fh, T0 + timedelta(hours=1)) if fmt == "json"
             else write_csv(source, profile, fh))
        into = ensure_profile(target, "ana", {}, T0)
        import_progress(target, into.id, read_export(path))
        records = _records(target, into.id)
        reviews = {r["card_key"]: r for k, r in records if k == "review"}
        cards = {r["card_key"]: r for k, r in records if k == "card"}
        assert reviews["overruled"]["overridden"] and not reviews["overruled"]["looked_at_post"]
        assert reviews["peeked"]["looked_at_post"] and not reviews["peeked"]["overridden"]
        assert cards["peeked"]["flag"] == 3 and cards["overruled"]["flag"] == 0
        assert cards["marked"]["stage"] == 0
    finally:
        source.close()
        target.close()


def test_import_merges_newer_card_states(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'a.sqlite3'}")
    try:
        pid = _history(store, "ana")
        profile = ensure_profile(store, "ana", {}, T0)
        path = tmp_path / "old.json"
        with path.open("w", encoding="utf-8") as fh:
            write_json(store, profile, fh, T0)
        # studying goes on after the export; importing the older file changes nothing
        record_answer(store, pid, answer("deck", "c0", T0 + timedelta(days=40), stability=80.0))
        before = _records(store, pid)
        result = import_progress(store, pid, read_export(path))
        assert result.cards_updated == 0 and result.reviews_added == 0
        assert _records(store, pid) == before
        assert review_count(store, pid) == 13
    finally:
        store.close()


def test_bad_export_file_is_refused(tmp_path: Path) -> None:
    from studyapp.store import StoreError

    path = tmp_path / "notes.txt"
    path.write_text("hello\nworld\n", encoding="utf-8")
    with pytest.raises(StoreError):
        read_export(path)
    path.write_text('{"format": "something-else"}', encoding="utf-8")
    with pytest.raises(StoreError):
        read_export(path)


def test_class_report_from_database_and_from_files(db_url: str, tmp_path: Path) -> None:
    store = open_store(db_url)
    files = []
    try:
        for name, wrong in [("ana", set()), ("ben", {"c0", "c1"}), ("eva", {"c0"})]:
            _history(store, name, wrong)
            profile = ensure_profile(store, name, {}, T0)
            path = tmp_path / f"{name}.json"
            with path.open("w", encoding="utf-8") as fh:
                write_json(store, profile, fh, T0)
            files.append(path)
        now = T0 + timedelta(days=2)
        from_db = class_report(store, TOTALS, now)
    finally:
        store.close()
    from_files = class_report_from_files(files, TOTALS, now)
    for report in (from_db, from_files):
        data = report.as_json()
        assert [s["name"] for s in data["students"]] == ["ana", "ben", "eva"]
        ana = data["students"][0]
        assert ana["reviews"] == 12 and ana["accuracy"] == 1.0
        # 30-day stability reviewed a day ago: recall is above 0.9, so mastered
        assert ana["mastery"] == {"intro": 0.4, "h100": 0.4}
        hardest = data["hardest_questions"]
        assert (hardest[0]["card"], hardest[0]["first_try_accuracy"]) == ("c0", round(1 / 3, 4))
        assert hardest[1]["card"] == "c1" and hardest[1]["students"] == 3
        assert data["most_overdue"] == []
    later = class_report_from_files(files, TOTALS, T0 + timedelta(days=60))
    assert {s["name"]: s["overdue"] for s in later.as_json()["most_overdue"]} == \
        {"ana": 6, "ben": 6, "eva": 6}
    rows = from_files.csv_rows()
    assert len(rows) == 3 * len(TOTALS) and rows[0]["student"] == "ana"


def _implicit_flags(store) -> dict[str, bool]:  # type: ignore[no-untyped-def]
    from sqlalchemy import select

    from studyapp.store.tables import CardState, ReviewLog

    with store.sessions() as session:
        return {key: bool(flag) for key, flag in session.execute(
            select(CardState.card_key, ReviewLog.implicit)
            .join(CardState, CardState.id == ReviewLog.card_id))}


@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_a_review_a_scenario_step_gave_stays_implicit_through_a_round_trip(
        tmp_path: Path, fmt: str) -> None:
    """A one-step card's review counted from a scenario's step is no answer to that card
    (no stage of its own, not in the answer counts): imported, it must stay so. A file
    written before the flag was exported imports its reviews as answers, as they were."""
    from dataclasses import replace

    source = open_store(f"sqlite:///{tmp_path / 'source.sqlite3'}")
    target = open_store(f"sqlite:///{tmp_path / 'target.sqlite3'}")
    older = open_store(f"sqlite:///{tmp_path / 'older.sqlite3'}")
    try:
        profile = ensure_profile(source, "ana", {}, T0)
        record_answer(source, profile.id, answer("deck", "asked", T0))
        record_answer(source, profile.id, replace(
            answer("deck", "stepped", T0 + timedelta(minutes=1)), implicit=True))
        path = tmp_path / f"ana.{fmt}"
        with path.open("w", encoding="utf-8", newline="") as fh:
            (write_json(source, profile, fh, T0 + timedelta(hours=1)) if fmt == "json"
             else write_csv(source, profile, fh))
        import_progress(target, ensure_profile(target, "ana", {}, T0).id, read_export(path))
        assert _implicit_flags(target) == _implicit_flags(source) == {
            "asked": False, "stepped": True}
        # the same file as an older studyapp wrote it: no implicit field at all
        text = path.read_text(encoding="utf-8")
        if fmt == "json":
            data = json.loads(text)
            for review in data["reviews"]:
                del review["implicit"]
            path.write_text(json.dumps(data), encoding="utf-8")
        else:
            rows = list(csv.DictReader(text.splitlines()))
            fields = [f for f in rows[0] if f != "implicit"]
            with path.open("w", encoding="utf-8", newline="") as fh:
                writer = csv.DictWriter(fh, fields, extrasaction="ignore")
                writer.writeheader()
                writer.writerows(rows)
        result = import_progress(older, ensure_profile(older, "ana", {}, T0).id,
                                 read_export(path))
        assert result.reviews_added == 2
        assert _implicit_flags(older) == {"asked": False, "stepped": False}
    finally:
        source.close()
        target.close()
        older.close()
