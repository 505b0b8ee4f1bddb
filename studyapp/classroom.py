"""The classroom service: every profile of a database, or exported files, as a class.

Mastery per student and post, the questions students miss most the first
time, and who has the most overdue cards. The faces (``studyapp class
report``, the TUI's class screen) call ``class_report_for``.
"""

from __future__ import annotations

import math
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, Protocol

from studyapp import locations
from studyapp.catalog.posts import POST_SLUGS
from studyapp.progress import count_mastered, mastery_age, mastery_places, round_or_none
from studyapp.srs.scheduler import SchedulerSettings
from studyapp.store import Store, open_store
from studyapp.store import classroom as db
from studyapp.store.classroom import QuestionRow
from studyapp.store.progress import deck_choices, ensure_profile
from studyapp.store.progress_files import import_progress, read_export
from studyapp.store.stats import mastered_keys
from studyapp.study.held import record_abandoned_in

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
    decks: tuple[tuple[str, float], ...] = ()
    """Mastery per deck the student studies, other than the post decks (course decks,
    installed and published decks), whatever posts their cards name."""

    @property
    def accuracy(self) -> float | None:
        return self.correct / self.reviews if self.reviews else None


RETEACH_BELOW = 0.5
"""A card goes on the reteach list when fewer than half of the students got it right the
first time."""
TOP_ANSWERS = 3
"""The most common wrong answers (and named slips) listed per card."""


class ClassFilterError(ValueError):
    """``--only`` or ``--exclude`` names a profile the database does not have."""

    def __init__(self, name: str, known: Sequence[str]) -> None:
        self.name, self.known = name, tuple(known)
        listed = ", ".join(known) or "none"
        super().__init__(f"no profile named {name!r} in this database (profiles: {listed})")


@dataclass(frozen=True)
class ItemReport:
    """One card across the class: first-try accuracy, common wrong answers, named slips."""

    deck_id: str
    card_key: str
    post: str
    prompt: str
    students: int
    first_try_accuracy: float
    reviews: int
    correct: int
    wrong: int
    answers: tuple[tuple[str, int], ...]
    """The most common wrong answers with how many times each was given."""
    slips: tuple[tuple[str, int], ...]
    """Named slips (the card's or the generator's) with how many wrong answers showed each."""

    @property
    def accuracy(self) -> float | None:
        return self.correct / self.reviews if self.reviews else None

    def share(self, count: int) -> float:
        """``count`` as a share of this card's wrong answers."""
        return count / self.wrong if self.wrong else 0.0

    def as_json(self) -> dict[str, Any]:
        return {
            "deck": self.deck_id, "card": self.card_key, "post": self.post,
            "prompt": self.prompt, "students": self.students,
            "first_try_accuracy": round(self.first_try_accuracy, 4), "reviews": self.reviews,
            "accuracy": round_or_none(self.accuracy), "wrong": self.wrong,
            "wrong_answers": [{"answer": a, "count": n, "share": round(self.share(n), 4)}
                              for a, n in self.answers],
            "slips": [{"slip": name, "count": n, "share": round(self.share(n), 4)}
                      for name, n in self.slips],
        }


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

    @property
    def reteach(self) -> tuple[ItemReport, ...]:
        """Cards most of the class got wrong the first time (``RETEACH_BELOW``)."""
        return tuple(i for i in self.items if i.first_try_accuracy < RETEACH_BELOW)

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
                "decks": {deck: round(m, 4) for deck, m in s.decks},
            } for s in self.students],
            "hardest_questions": [{
                "deck": q.deck_id, "card": q.card_key, "post": q.post, "students": q.students,
                "first_try_accuracy": round(q.first_try_accuracy, 4), "reviews": q.reviews,
                "accuracy": round_or_none(q.correct / q.reviews if q.reviews else None),
            } for q in self.hardest],
            "most_overdue": [{"name": s.name, "overdue": s.overdue} for s in self.most_overdue],
            "items": [item.as_json() for item in self.items],
            "reteach": [{"deck": i.deck_id, "card": i.card_key, "prompt": i.prompt}
                        for i in self.reteach],
        }

    def item_rows(self) -> list[dict[str, Any]]:
        """One row per card (the item table), for spreadsheets."""
        reteach = {(i.deck_id, i.card_key) for i in self.reteach}
        return [{
            "deck": i.deck_id, "card": i.card_key, "post": i.post, "prompt": i.prompt,
            "students": i.students, "first_try_accuracy": round(i.first_try_accuracy, 4),
            "reviews": i.reviews, "accuracy": round_or_none(i.accuracy), "wrong": i.wrong,
            "wrong_answers": "; ".join(f"{a} ({i.share(n):.0%})" for a, n in i.answers),
            "slips": "; ".join(f"{name} ({i.share(n):.0%})" for name, n in i.slips),
            "reteach": (i.deck_id, i.card_key) in reteach,
        } for i in self.items]

    def csv_rows(self) -> list[dict[str, Any]]:
        """One row per student and post (the mastery grid), for spreadsheets."""
        rows = []
        for s in self.students:
            places = [(post, "", m) for post, m in s.mastery] + [("", d, m) for d, m in s.decks]
            for post, deck, mastery in places:
                rows.append({"student": s.name, "post": post, "mastery": round(mastery, 4),
                             "reviews": s.reviews, "accuracy": round_or_none(s.accuracy),
                             "cards_seen": s.cards_seen, "overdue": s.overdue, "deck": deck})
        return rows


@dataclass(frozen=True)
class Publication:
    """What ``deck publish`` did: the version stored, and the cards it removed."""

    version: int
    changed: bool
    removed: tuple[tuple[str, int], ...] = ()
    """Cards of the previous version that this one drops, with how many profiles have
    progress on each (kept, but counted nowhere while the card is gone)."""
    replaced: int | None = None
    """The version this one replaces (None for a deck's first version)."""


class PublishRefused(Exception):
    """A publish that would undo a version its file was not written from.

    ``latest`` is the newest version in the database; ``base`` the one the
    file was written from (None: unknown on this machine, ``--replaces`` says
    it); ``diff`` what differs from the latest version to the file.
    """

    def __init__(self, deck_id: str, latest: db.DeckVersion | None, base: int | None,
                 diff: Sequence[str] = ()) -> None:
        self.deck_id, self.latest, self.base, self.diff = deck_id, latest, base, tuple(diff)
        super().__init__(self.render("en"))

    def render(self, lang: str) -> str:
        from studyapp.i18n import t
        from studyapp.text import visible

        deck = visible(self.deck_id)
        if self.latest is None:
            return t("deck.publish.no_version", lang, deck=deck, version=self.base)
        who = version_author(self.latest, lang)
        when = f"{self.latest.published_at:%Y-%m-%d %H:%M} UTC"
        if self.base is None:
            return t("deck.publish.base_unknown", lang, deck=deck,
                     version=self.latest.version, who=who, when=when)
        if self.base > self.latest.version:
            return t("deck.publish.no_version", lang, deck=deck, version=self.base)
        return t("deck.publish.newer", lang, deck=deck, version=self.latest.version,
                 who=who, when=when, base=self.base)


def version_author(version: db.DeckVersion, lang: str) -> str:
    """Who published a version: profile, and the database login when known."""
    from studyapp.i18n import t
    from studyapp.text import visible

    who = visible(version.published_by or "?")
    if not version.login:
        return who
    return t("deck.history.login", lang, who=who, login=visible(version.login))


def deck_diff(before: str, after: str, before_name: str, after_name: str) -> list[str]:
    """A unified diff of two deck texts, every line printable (texts come from a database)."""
    import difflib

    from studyapp.text import visible

    return [visible(line) for line in difflib.unified_diff(
        before.splitlines(), after.splitlines(), before_name, after_name, lineterm="")]


BASES_FILE = "published-bases.json"
"""In the data folder: per database, the version of each deck this machine last published,
and from which file. A later publish of that file is taken to be written from that version;
another file of the deck has to say which with ``--replaces``."""


def _database_key(store: Store) -> str:
    from studyapp.store.database import display_url

    path = store.sqlite_path()
    return f"sqlite:///{path.resolve()}" if path is not None else display_url(store.url)


def _bases() -> dict[str, Any]:
    import json

    from studyapp.locations import data_dir

    try:
        found = json.loads((data_dir() / BASES_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


def recorded_base(store: Store, deck_id: str, source: Path) -> int | None:
    """The version of ``deck_id`` this machine last published into ``store`` from the file
    ``source``, if it did."""
    decks = _bases().get(_database_key(store), {})
    found = decks.get(deck_id) if isinstance(decks, dict) else None
    if not isinstance(found, dict) or found.get("file") != str(source.resolve()):
        return None
    version = found.get("version")
    return version if isinstance(version, int) and not isinstance(version, bool) else None


def _record_base(store: Store, deck_id: str, version: int, source: Path) -> None:
    """Remember ``version`` as this machine's latest publish of the deck, from ``source``
    (best effort: without it, the next publish from here asks for ``--replaces``)."""
    import contextlib
    import json

    from studyapp.files import write_text_replacing
    from studyapp.locations import data_dir

    bases = _bases()
    key = _database_key(store)
    mine = bases.get(key)
    bases[key] = {**(mine if isinstance(mine, dict) else {}),
                  deck_id: {"version": version, "file": str(source.resolve())}}
    with contextlib.suppress(OSError):
        data_dir().mkdir(parents=True, exist_ok=True)
        write_text_replacing(data_dir() / BASES_FILE, json.dumps(bases, indent=1))


def publish_deck_file(service: ClassSource, deck: Deck, content: str, *, by: str | None,
                      replaces: int | None = None) -> Publication:
    """Store a validated deck's text in the service's database as its next version.

    The file is taken to be written from version ``replaces`` when given,
    else from the version this machine last published from the same file
    (``recorded_base``: the deck's path);
    a deck never published needs neither. When the database holds another
    latest version, ``PublishRefused`` says which, with what differs, and
    nothing is stored: the file would undo it.
    """
    store = service.store
    latest = db.latest_version(store, deck.id)
    base = replaces
    if base is None and latest is not None:  # a deck never published needs no base
        base = (latest.version if latest.content == content
                else recorded_base(store, deck.id, deck.path))
    return _publish(service, deck, content, base, by, latest, str(deck.path), deck.path)


def _publish(service: ClassSource, deck: Deck, content: str, base: int | None,
             by: str | None, latest: db.DeckVersion | None, label: str,
             source: Path | None = None) -> Publication:
    """Publish ``content`` on ``base``; a refusal's diff names the new text ``label``."""
    store, deck_id = service.store, deck.id
    try:
        version, changed = db.publish_version(store, deck_id, content, service.now(),
                                              base=base, by=by, cards=len(deck.cards))
    except db.NewerVersion as exc:
        newest = db.latest_version(store, deck_id) if exc.latest is not None else None
        diff = [] if newest is None else deck_diff(
            newest.content, content, f"{deck_id} version {newest.version}", label)
        raise PublishRefused(deck_id, exc.latest, base, diff) from None
    if source is not None:  # a rollback's text is no file's: the next publish says its base
        _record_base(store, deck_id, version, source)
    _remember_published(deck, content)
    if latest is None or not changed:
        return Publication(version, changed)
    kept = {spec.id for spec in deck.cards}
    gone = [key for key in _card_ids(latest.content) if key not in kept]
    studied = db.profiles_per_card(store, deck_id, gone) if gone else {}
    return Publication(version, changed, tuple((key, studied.get(key, 0)) for key in gone),
                       replaced=latest.version)


def _remember_published(deck: Deck, content: str) -> None:
    """The published text, checked as ``deck``, kept in this machine's deck cache: the next
    command here loads it without checking it again."""
    from studyapp.study.published import remember_published

    remember_published(deck, content)


def deck_history(service: ClassSource, deck_id: str) -> list[db.DeckVersion]:
    """Every version of a published deck, oldest first (``UnknownIdError`` if none)."""
    versions = db.deck_versions(service.store, deck_id)
    if not versions:
        _unknown(service, deck_id)
    return [v if v.cards is not None else
            db.DeckVersion(v.deck_id, v.version, v.published_at, v.published_by, v.login,
                           _count_cards(service, deck_id, v.version))
            for v in versions]


def _count_cards(service: ClassSource, deck_id: str, version: int) -> int | None:
    """Cards of a version carried over from before versions kept their count."""
    found = db.deck_version(service.store, deck_id, version)
    return None if found is None else len(_card_ids(found.content))


def _unknown(service: ClassSource, deck_id: str) -> NoReturn:
    from studyapp.catalog import UnknownIdError

    known = sorted({d.deck_id for d in db.stored_decks(service.store)})
    raise UnknownIdError("published deck", deck_id, known)


def stored_version(service: ClassSource, deck_id: str, version: int) -> db.DeckVersion:
    """One version with its text; ``UnknownIdError`` names the versions there are."""
    found = db.deck_version(service.store, deck_id, version)
    if found is None:
        from studyapp.catalog import UnknownIdError

        versions = [str(v.version) for v in deck_history(service, deck_id)]
        raise UnknownIdError("deck version", str(version), versions)
    return found


def rollback_deck(service: ClassSource, deck_id: str, version: int, *,
                  by: str | None) -> tuple[Publication, Deck]:
    """Publish version ``version``'s text again, as the next version, and the deck it holds.

    The text is checked again as any deck is (the catalog may have changed
    since it was published): ``DeckError`` lists what no longer holds.
    """
    old = stored_version(service, deck_id, version)
    latest = db.latest_version(service.store, deck_id)
    deck = _checked_text(old.content)
    if deck.id != deck_id:
        from studyapp.catalog import UnknownIdError

        raise UnknownIdError("published deck", deck_id, [deck.id])
    return _publish(service, deck, old.content, None if latest is None else latest.version,
                    by, latest, f"{deck_id} version {version}"), deck


def _checked_text(content: str) -> Deck:
    """The deck a stored text holds, checked as a file is."""
    from studyapp.decks import load_deck

    with tempfile.TemporaryDirectory(prefix="studyapp-version.") as folder:
        path = Path(folder) / "version.yaml"
        path.write_text(content, encoding="utf-8")
        return load_deck(path)


def _card_ids(content: str) -> list[str]:
    """The card ids of a stored deck's text (read as a deck file is: aliases cannot make
    a small text huge)."""
    from studyapp.decks.yaml_source import parse_yaml

    data = parse_yaml(content).data
    cards = data.get("cards") if isinstance(data, dict) else None
    return [str(c["id"]) for c in cards or () if isinstance(c, dict) and "id" in c]


@dataclass(frozen=True)
class Unpublished:
    """What ``deck unpublish`` did: the version removed, and how many profiles keep their
    progress on the deck's cards."""

    deck_id: str
    version: int
    profiles: int


class NotPublishedError(LookupError):
    """``deck unpublish`` names a deck this database has not published."""

    def __init__(self, deck_id: str, published: Sequence[str]) -> None:
        self.deck_id, self.published = deck_id, tuple(published)
        super().__init__(f"no deck {deck_id!r} is published in this database")


def unpublish_deck(service: ClassSource, deck_id: str) -> Unpublished:
    """Remove a published deck from the service's database; the students' history stays."""
    version = db.unpublish_deck(service.store, deck_id)
    if version is None:
        raise NotPublishedError(deck_id, [d.deck_id for d in db.stored_decks(service.store)])
    return Unpublished(deck_id, version, db.profiles_studying(service.store, deck_id))


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
                                          ()))
    else:
        # the cards each student masters, matched to the decks as they are now: a card
        # since removed from its deck counts nowhere, as it counts in no total
        keys: dict[int, set[tuple[str, str]]] = {}
        for age in set(ages.values()):
            keys.update(mastered_keys(store, [p for p, a in ages.items() if a == age], now,
                                      age, deck_ids={deck.id for deck in decks}))
        for row in rows:
            studied = _studied(decks, deck_choices(store, row.profile_id))
            per_post, per_deck = count_mastered(keys.get(row.profile_id, ()),
                                                mastery_places(studied))
            mastery = tuple((post, per_post.get(post, 0) / total if total else 0.0)
                            for post, total in studied_card_totals(studied, None).items())
            deck_mastery = tuple((deck, per_deck.get(deck, 0) / total if total else 0.0)
                                 for deck, total in studied_deck_totals(studied, None).items())
            students.append(StudentReport(row.name, row.reviews, row.correct, row.cards_seen,
                                          row.overdue, row.time_ms, row.last_review, mastery,
                                          deck_mastery))
    overdue = sorted((s for s in students if s.overdue), key=lambda s: (-s.overdue, s.name))
    questions = db.hardest_questions(store, None, profile_ids=profile_ids)
    known = {(deck.id, spec.id) for deck in decks or () for spec in deck.cards}
    # a card since removed from its deck is not taught any more: nothing to reteach
    deck_ids = {deck.id for deck in decks or ()}
    questions = [q for q in questions
                 if q.deck_id not in deck_ids or (q.deck_id, q.card_key) in known]
    wrong = db.wrong_answers(store, profile_ids,
                             regrade={(q.deck_id, q.card_key) for q in questions} & known)
    items = _items(questions, wrong, decks or ())
    return ClassReport(now, source, tuple(students), tuple(questions[:top]),
                       tuple(overdue[:top]), items, not_excluded)


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


def _items(questions: Sequence[QuestionRow], wrong: Mapping[tuple[str, str], Sequence[Any]],
           decks: Sequence[Deck]) -> tuple[ItemReport, ...]:
    """Per card: the question sums, its prompt, its common wrong answers and named slips."""
    from collections import Counter

    specs = {(deck.id, spec.id): spec for deck in decks for spec in deck.cards}
    items = []
    for q in questions:
        spec = specs.get((q.deck_id, q.card_key))
        answers: Counter[str] = Counter()
        slips: Counter[str] = Counter()
        given = wrong.get((q.deck_id, q.card_key), ())
        for answer in given:
            wrong_steps = [step for step in answer.steps if not step.get("correct")]
            if answer.steps:  # a scenario: each wrong step is an answer of its own
                for step in wrong_steps:
                    name = str(step.get("name") or "?")
                    typed = " ".join(str(step.get("given") or step.get("response") or "").split())
                    answers[f"{name}: {typed}"] += answer.count
                    for slip in list(step.get("slips") or ())[:1]:
                        slips[f"{name}: {slip}"] += answer.count
                continue
            answers[_answer_label(spec, answer)] += answer.count
            for name in _slips_of(spec, answer):
                slips[name] += answer.count
        items.append(ItemReport(
            q.deck_id, q.card_key, q.post, _prompt_text(spec), q.students,
            q.first_try_accuracy, q.reviews, q.correct,
            max(q.reviews - q.correct, sum(a.count for a in given)),
            _most_common(answers), _most_common(slips)))
    return tuple(items)


def _answer_label(spec: Any, answer: Any) -> str:
    """How a wrong answer is counted: a choice by its text, a number of an authored card by
    its value in the card's unit (so "163.84" and "163.84 KB" are one answer), else as typed."""
    picked = answer.picked or _picked_choice(spec, answer)
    if picked:
        return " ".join(picked.split())
    typed = " ".join(answer.response.split())
    if spec is not None and spec.type == "numeric":
        from studyapp.numbers import format_number
        from studyapp.questions.grading import value_in_unit

        unit = spec.unit or None
        value = value_in_unit(unit, typed, answer.lang or spec.language)
        if value is not None and math.isfinite(value):
            shown = format_number(value, "en", sig=6, grouping=False)
            return f"{shown} {unit}" if unit else shown
    return typed


def _most_common(counts: Mapping[str, int]) -> tuple[tuple[str, int], ...]:
    """The ``TOP_ANSWERS`` most frequent, ties in alphabetical order (the same report from
    the same answers, whatever order they were stored in)."""
    return tuple(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:TOP_ANSWERS])


def _prompt_text(spec: Any) -> str:
    """A card's prompt as written (its template, before any values are drawn)."""
    if spec is None:
        return ""
    if spec.type == "generated":  # its numbers change at every draw: what it asks
        from studyapp.questions.generators import registered_families

        family = registered_families().get(spec.generator or "")
        described = (family.description.get(spec.language) or family.description.get("en")
                     if family is not None else None)
        return f"{described} ({spec.generator})" if described else f"{spec.generator}"
    return " ".join(spec.text(spec.prompt, spec.language).split())


def _picked_choice(spec: Any, answer: Any) -> str | None:
    """An older wrong choice answer's choice text, by grading it again as it was shown (the
    typed number means another choice at every shuffle)."""
    if spec is None or spec.type != "choice" or answer.seed is None:
        return None
    from studyapp.questions.grading import grade
    from studyapp.study.session import showing

    try:
        given = grade(showing(spec, answer.seed, answer.lang or spec.language),
                      answer.response).given
    except Exception:  # a card changed since the answer: the typed text is kept
        return None
    letter, sep, text = given.partition(") ")
    return text if sep and len(letter) == 1 else None


def _slips_of(spec: Any, answer: Any) -> tuple[str, ...]:
    """The named slips of a stored wrong answer: as the study loop recorded them, or for an
    answer recorded without them, by grading it again as it was shown."""
    if answer.slip:
        return (answer.slip,)
    if answer.noted or spec is None or answer.seed is None:
        return ()
    from studyapp.questions.grading import grade
    from studyapp.study.session import showing

    try:
        question = showing(spec, answer.seed, answer.lang or spec.language)
        return grade(question, answer.response).slips[:1]
    except Exception:  # a card changed since the answer: its slips are not named
        return ()


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
    return report, tuple(totals)


__all__ = ["ClassFilterError", "ClassReport", "ClassSource", "ItemReport", "QuestionRow",
           "StudentReport", "class_report", "class_report_for", "class_report_from_files",
           "deck_card_totals"]


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
