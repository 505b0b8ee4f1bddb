"""The class report: every profile of a database, or exported files, as a class.

Mastery per student and post, the questions students miss most the first
time (``items``), and who has the most overdue cards. The faces (``studyapp
class report``, the TUI's class screen) call ``class_report_for``.
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from studyapp import locations
from studyapp.catalog.posts import POST_SLUGS
from studyapp.classroom.item_stats import CHECK_KEY, RETEACH, THRESHOLDS
from studyapp.classroom.items import ItemReport, build_items, flagged
from studyapp.classroom.misconceptions import ClassMisconception, class_misconceptions
from studyapp.classroom.source import ClassSource
from studyapp.progress import count_mastered, mastery_age, mastery_places, round_or_none
from studyapp.srs.scheduler import SchedulerSettings
from studyapp.store import Store, item_answers, item_figures, open_store
from studyapp.store import classroom as db
from studyapp.store.mastery import mastered_keys
from studyapp.store.progress import ensure_profile
from studyapp.store.progress_files import import_progress, read_export
from studyapp.study.held import record_abandoned_in

if TYPE_CHECKING:
    from studyapp.decks import Deck


ABSENT_AFTER_DAYS = 7
"""A student with no answer for a week is flagged absent."""


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
    decks: tuple[tuple[str, float], ...] = ()
    """Mastery per deck the student studies, other than the post decks (course decks,
    installed and published decks), whatever posts their cards name."""
    study_days: int = 0
    """Days with answers in the week before the report."""
    away_days: int | None = None
    """Whole days since the student's last answer (None: never answered)."""

    @property
    def absent(self) -> bool:
        """Away a week or more (or never started): the instructor should ask after them."""
        return self.away_days is None or self.away_days >= ABSENT_AFTER_DAYS

    @property
    def accuracy(self) -> float | None:
        return self.correct / self.reviews if self.reviews else None


class ClassFilterError(ValueError):
    """``--only`` or ``--exclude`` names a profile the database does not have."""

    def __init__(self, name: str, known: Sequence[str]) -> None:
        self.name, self.known = name, tuple(known)
        listed = ", ".join(known) or "none"
        super().__init__(f"no profile named {name!r} in this database (profiles: {listed})")


@dataclass(frozen=True)
class ClassReport:
    """Per student and per post mastery, hardest questions, most overdue students."""

    generated_at: datetime
    source: str
    students: tuple[StudentReport, ...]
    hardest: tuple[Any, ...]  # store.db.QuestionRow
    most_overdue: tuple[StudentReport, ...]
    items: tuple[ItemReport, ...] = ()
    """Every card answered by the class, hardest (lowest first-try accuracy) first."""
    not_excluded: tuple[str, ...] = ()
    """``exclude`` names the database has no profile for (nothing to leave out: a note)."""
    misconceptions: tuple[ClassMisconception, ...] = ()
    """The misconceptions students showed, most holders first (``classroom.misconceptions``)."""

    @property
    def reteach(self) -> tuple[ItemReport, ...]:
        """Cards most of the class got wrong the first time, the strong students less often
        than the weak (``item_stats.flags``)."""
        return flagged(self.items, RETEACH)

    @property
    def check_key(self) -> tuple[ItemReport, ...]:
        """Cards most of the class got wrong the first time, the strong students as often as
        the weak (or more often, against the rest of the deck), or many overruled: the key is
        the first suspect."""
        return flagged(self.items, CHECK_KEY)

    @property
    def posts(self) -> tuple[str, ...]:
        """The posts the class studies, in the students' order (catalogue order): the per-post
        rows of every face (text grid, ``--json``, CSV, TUI), none at 0 for a post a
        course-deck class never opened."""
        return studied_posts(self, list(dict.fromkeys(
            post for s in self.students for post, _ in s.mastery)))

    def as_json(self, lang: str = "en") -> dict[str, Any]:
        studied = set(self.posts)
        return {
            "generated_at": self.generated_at.isoformat(),
            "source": self.source,
            "students": [{
                "name": s.name, "reviews": s.reviews, "accuracy": round_or_none(s.accuracy),
                "cards_seen": s.cards_seen, "overdue": s.overdue,
                "time_s": round(s.time_ms / 1000, 1),
                "last_review": s.last_review.isoformat() if s.last_review else None,
                "mastery": {post: round(m, 4) for post, m in s.mastery if post in studied},
                "decks": {deck: round(m, 4) for deck, m in s.decks},
                "study_days_last_week": s.study_days, "days_since_activity": s.away_days,
                "absent": s.absent,
            } for s in self.students],
            "absent": [s.name for s in self.students if s.absent],
            "hardest_questions": [{
                "deck": q.deck_id, "card": q.card_key, "post": q.post, "students": q.students,
                "first_try_accuracy": round(q.first_try_accuracy, 4), "reviews": q.reviews,
                "accuracy": round_or_none(q.correct / q.reviews if q.reviews else None),
            } for q in self.hardest],
            "most_overdue": [{"name": s.name, "overdue": s.overdue} for s in self.most_overdue],
            "items": [item.as_json() for item in self.items],
            "reteach": [{"deck": i.deck_id, "card": i.card_key, "prompt": i.prompt}
                        for i in self.reteach],
            "check_key": [{"deck": i.deck_id, "card": i.card_key, "prompt": i.prompt}
                          for i in self.check_key],
            "thresholds": dict(THRESHOLDS),
            "misconceptions": [m.as_json(lang) for m in self.misconceptions],
        }

    def item_rows(self) -> list[dict[str, Any]]:
        """One row per card (the item table), for spreadsheets."""
        reteach = {(i.deck_id, i.card_key) for i in self.reteach}
        return [{
            "flags": "; ".join(i.flags),
            "deck": i.deck_id, "card": i.card_key, "post": i.post, "prompt": i.prompt,
            "students": i.students, "first_try_accuracy": round(i.first_try_accuracy, 4),
            "reviews": i.reviews, "accuracy": round_or_none(i.accuracy), "wrong": i.wrong,
            "wrong_answers": "; ".join(f"{a} ({i.share(n):.0%})" for a, n in i.answers),
            "slips": "; ".join(f"{name} ({i.share(n):.0%})" for name, n in i.slips),
            "reteach": (i.deck_id, i.card_key) in reteach,
            "facility": _stat(i.first, "facility"), "sd": _stat(i.first, "sd"),
            "discrimination_index": _stat(i.first, "discrimination_index"),
            "discriminative_efficiency": _stat(i.first, "discriminative_efficiency"),
            "facility_all": _stat(i.every, "facility"),
            "discrimination_index_all": _stat(i.every, "discrimination_index"),
            "overrides": i.overrides, "carried": i.carried,
            "mean_time_s": None if i.mean_time_s is None else round(i.mean_time_s, 1),
        } for i in self.items]

    def csv_rows(self) -> list[dict[str, Any]]:
        """One row per student and post the class studies (the mastery grid, as the text
        report shows it: no rows of 0% for posts a course-deck class never opened)."""
        rows = []
        studied = set(self.posts)
        for s in self.students:
            places = [(post, "", m) for post, m in s.mastery if post in studied] + [
                ("", d, m) for d, m in s.decks]
            for post, deck, mastery in places:
                rows.append({"student": s.name, "post": post, "mastery": round(mastery, 4),
                             "reviews": s.reviews, "accuracy": round_or_none(s.accuracy),
                             "cards_seen": s.cards_seen, "overdue": s.overdue, "deck": deck})
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
    totals = dict.fromkeys(POST_SLUGS, 0)
    for post, _ in mastery_places(_studied(decks, choices)).values():
        if post in totals:  # a course deck's cards count under it alone, as on the home screen
            totals[post] += 1
    return totals


def _studied(decks: Sequence[Deck], choices: Mapping[str, bool] | None) -> list[Deck]:
    """The decks a learner studies (``None``: every deck)."""
    from studyapp.study import deck_kind, deck_on_by_default

    return [deck for deck in decks
            if choices is None or deck_kind(deck) == "file"
            or choices.get(deck.id, deck_on_by_default(deck))]


def studied_deck_totals(decks: Sequence[Deck], choices: Mapping[str, bool] | None
                        ) -> dict[str, int]:
    """Cards per deck a learner studies, post decks left out (their post's line says it)."""
    from studyapp.study import deck_kind

    return {deck.id: len(deck.cards) for deck in _studied(decks, choices)
            if deck_kind(deck) != "post"}


class _Plan(NamedTuple):
    """What a set of deck choices studies: each card's place, cards per post and per deck."""

    places: dict[tuple[str, str], tuple[str | None, str]]
    post_totals: dict[str, int]
    deck_totals: dict[str, int]


def class_report(store: Store, totals: dict[str, int], now: datetime, *, source: str = "database",
                 top: int = 20, decks: Sequence[Deck] | None = None,
                 only: Sequence[str] = (), exclude: Sequence[str] = ()) -> ClassReport:
    """The class report over every profile of ``store`` (or those ``only`` names, less
    those ``exclude`` names; ``ClassFilterError`` for an ``only`` name the database lacks,
    while an ``exclude`` name it lacks leaves nothing out and is listed in
    ``not_excluded``, so the README's ``--exclude default`` works on any class).

    Mastery is defined as ``stats`` defines it: mastered cards (recall still
    at the threshold on the student's own forgetting curve) over the cards of
    the decks the student studies. Without ``decks`` every student is counted
    against ``totals``.
    """
    profile_ids, not_excluded = _picked(store, only, exclude)
    rows = db.students(store, now, profile_ids)
    settings = db.profile_settings(store)
    ages = {row.profile_id: _mastery_age(settings.get(row.profile_id, {})) for row in rows}
    students = []
    if decks is None:  # no decks known: every student against the same totals
        mastered: dict[tuple[int, str], int] = {}
        for age in set(ages.values()):
            found = db.mastery_by_post(store, now, age)
            mastered.update({key: n for key, n in found.items() if ages.get(key[0]) == age})
        for row in rows:
            mastery = tuple((post, min(1.0, mastered.get((row.profile_id, post), 0) / total)
                             if total else 0.0) for post, total in totals.items())
            students.append(StudentReport(row.name, row.reviews, row.correct, row.cards_seen,
                                          row.overdue, row.time_ms, row.last_review, mastery,
                                          (), row.study_days, _away(row.last_review, now)))
    else:
        # the cards each student masters, matched to the decks as they are now: a card
        # since removed from its deck counts nowhere, as it counts in no total
        keys: dict[int, set[tuple[str, str]]] = {}
        for age in set(ages.values()):
            keys.update(mastered_keys(store, [p for p, a in ages.items() if a == age], now,
                                      age, deck_ids={deck.id for deck in decks}))
        choices = item_answers.deck_choices_by_profile(store)
        # a class shares a few sets of deck choices: each set's decks, places and totals
        # are worked out once (a deck's kind resolves its path), not once per student
        plans: dict[frozenset[tuple[str, bool]], _Plan] = {}
        for row in rows:
            own = choices.get(row.profile_id, {})
            plan = plans.get(frozenset(own.items()))
            if plan is None:
                studied = _studied(decks, own)
                plan = plans[frozenset(own.items())] = _Plan(
                    mastery_places(studied), studied_card_totals(studied, None),
                    studied_deck_totals(studied, None))
            per_post, per_deck = count_mastered(keys.get(row.profile_id, ()), plan.places)
            mastery = tuple((post, per_post.get(post, 0) / total if total else 0.0)
                            for post, total in plan.post_totals.items())
            deck_mastery = tuple((deck, per_deck.get(deck, 0) / total if total else 0.0)
                                 for deck, total in plan.deck_totals.items())
            students.append(StudentReport(row.name, row.reviews, row.correct, row.cards_seen,
                                          row.overdue, row.time_ms, row.last_review, mastery,
                                          deck_mastery, row.study_days,
                                          _away(row.last_review, now)))
    overdue = sorted((s for s in students if s.overdue), key=lambda s: (-s.overdue, s.name))
    items = _item_analysis(store, profile_ids, decks or ())
    questions = [db.QuestionRow(i.deck_id, i.card_key, i.post, i.students,
                                round(i.first_try_accuracy * i.students), i.reviews, i.correct)
                 for i in items if i.students]
    return ClassReport(now, source, tuple(students), tuple(questions[:top]),
                       tuple(overdue[:top]), items, not_excluded,
                       class_misconceptions(store, now, profile_ids))


def _item_analysis(store: Store, profile_ids: set[int] | None, decks: Sequence[Deck]
                   ) -> tuple[ItemReport, ...]:
    """Every card answered, from the verdicts stored with the answers (set-based SQL)."""
    known = {(deck.id, spec.id) for deck in decks for spec in deck.cards}
    scenarios = {(deck.id, spec.id) for deck in decks for spec in deck.cards
                 if spec.type == "scenario" or (spec.type == "generated" and spec.generator
                                                and _is_scenario(spec.generator))}
    # a card since removed from its deck is not taught any more: nothing to reteach
    deck_ids = {deck.id for deck in decks}

    def taught(row: Any) -> bool:
        return row.deck_id not in deck_ids or (row.deck_id, row.card_key) in known

    untaught = {key for key in item_figures.card_keys(store, deck_ids) if key not in known}
    sums = item_figures.item_sums(store, profile_ids, untaught)
    first, every = item_figures.mark_sums(store, profile_ids, untaught)
    responses = [r for r in item_answers.response_counts(store, profile_ids) if taught(r)]
    # a scenario whose deck is not loaded still shows by its carried-forward steps
    scenarios |= {(r.deck_id, r.card_key) for r in responses if r.carried}
    steps = item_answers.scenario_steps(store, scenarios, profile_ids)
    unnamed = [r for r in item_answers.unnamed_wrong(store, profile_ids)
               if (r.deck_id, r.card_key) in known]
    return build_items(sums, first, every, responses, steps, unnamed, decks)


def _is_scenario(generator: str) -> bool:
    from studyapp.questions.generators import registered_families
    from studyapp.questions.model import Kind

    family = registered_families().get(generator)
    return family is not None and family.kind is Kind.SCENARIO


def _stat(stats: Any, name: str) -> float | None:
    value = getattr(stats, name, None) if stats is not None else None
    return None if value is None else round(value, 4)


def _away(last: datetime | None, now: datetime) -> int | None:
    return None if last is None else max(0, (now - last).days)


def _picked(store: Store, only: Sequence[str], exclude: Sequence[str]
            ) -> tuple[set[int] | None, tuple[str, ...]]:
    """The profile ids the report covers (None: every profile), and the ``exclude`` names
    with no profile in the database."""
    if not only and not exclude:
        return None, ()
    names = db.profile_names(store)
    for name in only:
        if name not in names:
            raise ClassFilterError(name, sorted(names))
    picked = {names[n] for n in only} if only else set(names.values())
    return (picked - {names[n] for n in exclude if n in names},
            tuple(n for n in exclude if n not in names))


def _mastery_age(settings: dict[str, Any]) -> float:
    """The age, in stabilities, a card of this student stays mastered (their own FSRS curve)."""
    try:
        return mastery_age(SchedulerSettings.from_dict(settings))
    except (TypeError, ValueError, KeyError):  # settings from an older or hand-edited export
        return mastery_age(SchedulerSettings())


def class_report_from_files(paths: list[Path], totals: dict[str, int], now: datetime, *,
                            top: int = 20, decks: Sequence[Deck] | None = None,
                            only: Sequence[str] = (), exclude: Sequence[str] = ()
                            ) -> ClassReport:
    """The class report over exported files: each file becomes one student.

    The files are imported into a temporary SQLite database, so the report
    runs the very same queries as over a shared database.
    """
    with tempfile.TemporaryDirectory(prefix="studyapp-class.") as tmp:
        store = open_store(locations.sqlite_url(Path(tmp) / "class.sqlite3"))
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
                                top=top, decks=decks, only=only, exclude=exclude)
        finally:
            store.close()


def class_report_for(service: ClassSource, files: Sequence[Path] = (), *, top: int = 20,
                     only: Sequence[str] = (), exclude: Sequence[str] = ()
                     ) -> tuple[ClassReport, tuple[str, ...]]:
    """The report over the service's database, or over ``files`` when given, and the
    posts in catalogue order (the report's columns)."""
    if not files:
        from studyapp.study.roles import check_report_allowed

        check_report_allowed(service.store)
    totals = deck_card_totals(service)
    if files:
        report = class_report_from_files(list(files), totals, service.now(), top=top,
                                         decks=service.decks, only=only, exclude=exclude)
    else:
        record_abandoned_in(service.store, service.now())  # a killed app's answers
        report = class_report(service.store, totals, service.now(), top=top,
                              decks=service.decks, only=only, exclude=exclude)
    return report, studied_posts(report, tuple(totals))


def studied_posts(report: ClassReport, posts: Sequence[str]) -> tuple[str, ...]:
    """The posts the class studies (a card answered or mastered there), in catalogue order:
    a course-deck class gets no rows of 0% for the posts it never opened."""
    studied = {i.post for i in report.items} | {
        post for s in report.students for post, m in s.mastery if m > 0}
    return tuple(post for post in posts if post in studied)


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
