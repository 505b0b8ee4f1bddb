"""The classroom service: every profile of a database, or exported files, as a class.

Mastery per student and post, the questions students miss most the first
time, and who has the most overdue cards. The faces (``studyapp class
report``, the TUI's class screen) call ``class_report_for``.
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from studyapp.catalog.posts import POST_SLUGS
from studyapp.progress import mastery_age, round_or_none
from studyapp.srs.scheduler import SchedulerSettings
from studyapp.store import Store, open_store
from studyapp.store import classroom as db
from studyapp.store.classroom import QuestionRow
from studyapp.store.exchange import import_progress, read_export
from studyapp.store.progress import deck_choices, ensure_profile

if TYPE_CHECKING:
    from studyapp.decks import Deck


class ClassSource(Protocol):
    """What the class report needs of the study service (``StudyService`` is one)."""

    @property
    def store(self) -> Store: ...
    @property
    def decks(self) -> Sequence[Deck]: ...
    def now(self) -> datetime: ...


@dataclass(frozen=True)
class StudentReport:
    """One student's line in the class report."""

    name: str
    reviews: int
    correct: int
    cards_seen: int
    overdue: int
    time_ms: int
    last_review: datetime | None
    mastery: tuple[tuple[str, float], ...]

    @property
    def accuracy(self) -> float | None:
        return self.correct / self.reviews if self.reviews else None


@dataclass(frozen=True)
class ClassReport:
    """Per student and per post mastery, hardest questions, most overdue students."""

    generated_at: datetime
    source: str
    students: tuple[StudentReport, ...]
    hardest: tuple[Any, ...]  # store.db.QuestionRow
    most_overdue: tuple[StudentReport, ...]

    def as_json(self) -> dict[str, Any]:
        return {
            "generated_at": self.generated_at.isoformat(),
            "source": self.source,
            "students": [{
                "name": s.name, "reviews": s.reviews, "accuracy": round_or_none(s.accuracy),
                "cards_seen": s.cards_seen, "overdue": s.overdue,
                "time_s": round(s.time_ms / 1000, 1),
                "last_review": s.last_review.isoformat() if s.last_review else None,
                "mastery": {post: round(m, 4) for post, m in s.mastery},
            } for s in self.students],
            "hardest_questions": [{
                "deck": q.deck_id, "card": q.card_key, "post": q.post, "students": q.students,
                "first_try_accuracy": round(q.first_try_accuracy, 4), "reviews": q.reviews,
                "accuracy": round_or_none(q.correct / q.reviews if q.reviews else None),
            } for q in self.hardest],
            "most_overdue": [{"name": s.name, "overdue": s.overdue} for s in self.most_overdue],
        }

    def csv_rows(self) -> list[dict[str, Any]]:
        """One row per student and post (the mastery grid), for spreadsheets."""
        rows = []
        for s in self.students:
            for post, mastery in s.mastery:
                rows.append({"student": s.name, "post": post, "mastery": round(mastery, 4),
                             "reviews": s.reviews, "accuracy": round_or_none(s.accuracy),
                             "cards_seen": s.cards_seen, "overdue": s.overdue})
        return rows


def deck_card_totals(service: ClassSource) -> dict[str, int]:
    """Cards per post over the decks the service loads (every post, in catalogue order)."""
    return studied_card_totals(service.decks, None)


def studied_card_totals(decks: Sequence[Deck], choices: Mapping[str, bool] | None
                        ) -> dict[str, int]:
    """Cards per post over the decks a learner studies: mastery's denominator.

    The same cards ``stats`` counts (``StudyService.deck_enabled``): the
    learner's own on/off per deck, else the deck's default, so an example deck
    left off does not lower a student's mastery. ``None`` counts every deck.
    """
    from studyapp.study import deck_kind, deck_on_by_default

    totals = dict.fromkeys(POST_SLUGS, 0)
    for deck in decks:
        if choices is not None and deck_kind(deck) != "file" and not choices.get(
                deck.id, deck_on_by_default(deck)):
            continue
        for spec in deck.cards:
            totals[spec.post] = totals.get(spec.post, 0) + 1
    return totals


def class_report(store: Store, totals: dict[str, int], now: datetime, *, source: str = "database",
                 top: int = 20, decks: Sequence[Deck] | None = None) -> ClassReport:
    """The class report over every profile of ``store``.

    Mastery is defined as ``stats`` defines it: mastered cards (recall still
    at the threshold on the student's own forgetting curve) over the cards of
    the decks the student studies. Without ``decks`` every student is counted
    against ``totals``.
    """
    rows = db.students(store, now)
    settings = db.profile_settings(store)
    ages = {row.profile_id: _mastery_age(settings.get(row.profile_id, {})) for row in rows}
    mastered: dict[tuple[int, str], int] = {}
    for age in set(ages.values()):
        found = db.mastery_by_post(store, now, age)
        mastered.update({key: n for key, n in found.items() if ages.get(key[0]) == age})
    students = []
    for row in rows:
        studied = (totals if decks is None
                   else studied_card_totals(decks, deck_choices(store, row.profile_id)))
        mastery = tuple((post, min(1.0, mastered.get((row.profile_id, post), 0) / total)
                         if total else 0.0) for post, total in studied.items())
        students.append(StudentReport(row.name, row.reviews, row.correct, row.cards_seen,
                                      row.overdue, row.time_ms, row.last_review, mastery))
    overdue = sorted((s for s in students if s.overdue), key=lambda s: (-s.overdue, s.name))
    return ClassReport(now, source, tuple(students),
                       tuple(db.hardest_questions(store, top)), tuple(overdue[:top]))


def _mastery_age(settings: dict[str, Any]) -> float:
    """The age, in stabilities, a card of this student stays mastered (their own FSRS curve)."""
    try:
        return mastery_age(SchedulerSettings.from_dict(settings))
    except (TypeError, ValueError, KeyError):  # settings from an older or hand-edited export
        return mastery_age(SchedulerSettings())


def class_report_from_files(paths: list[Path], totals: dict[str, int], now: datetime, *,
                            top: int = 20, decks: Sequence[Deck] | None = None) -> ClassReport:
    """The class report over exported files: each file becomes one student.

    The files are imported into a temporary SQLite database, so the report
    runs the very same queries as over a shared database.
    """
    with tempfile.TemporaryDirectory(prefix="studyapp-class.") as tmp:
        store = open_store(f"sqlite:///{Path(tmp) / 'class.sqlite3'}")
        try:
            names: set[str] = set()
            for path in paths:
                export = read_export(path)
                name = export.profile or path.stem
                if name in names:
                    name = f"{name} ({path.name})"
                names.add(name)
                profile = ensure_profile(store, name, export.settings, now)
                import_progress(store, profile.id, export)
            return class_report(store, totals, now, source=", ".join(str(p) for p in paths),
                                top=top, decks=decks)
        finally:
            store.close()


def class_report_for(service: ClassSource, files: Sequence[Path] = (), *,
                     top: int = 20) -> tuple[ClassReport, tuple[str, ...]]:
    """The report over the service's database, or over ``files`` when given, and the
    posts in catalogue order (the report's columns)."""
    totals = deck_card_totals(service)
    if files:
        report = class_report_from_files(list(files), totals, service.now(), top=top,
                                         decks=service.decks)
    else:
        report = class_report(service.store, totals, service.now(), top=top,
                              decks=service.decks)
    return report, tuple(totals)


__all__ = ["ClassReport", "ClassSource", "QuestionRow", "StudentReport", "class_report",
           "class_report_for", "class_report_from_files", "deck_card_totals"]


NAME_WIDTH = 12
"""A student's name heads a mastery column cut to this many characters (the
full name is in the students table above it)."""


def student_blocks(students: Sequence[StudentReport], width: int, post_width: int,
                   gap: int) -> list[list[StudentReport]]:
    """Students in groups whose mastery columns fit ``width`` beside the post names.

    Mastery is turned round (a row per post, a column per student) so that a
    class of any size fits the terminal: as many tables as the width needs.
    ``gap`` is what each column takes besides its text (padding, rule).
    """
    blocks: list[list[StudentReport]] = []
    room = max(width - post_width - gap, 1)
    used = 0
    for student in students:
        column = max(min(len(student.name), NAME_WIDTH), len("100%")) + gap
        if blocks and used + column <= room:
            blocks[-1].append(student)
            used += column
        else:
            blocks.append([student])
            used = column
    return blocks
