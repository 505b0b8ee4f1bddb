"""Published decks and their versions: publish, history, rollback, unpublish.

Every version is kept; a publish names the version its file was written
from, and a file written from an older one is refused with what differs.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from studyapp.classroom.regrade import Regrade, regrade_deck
from studyapp.classroom.source import ClassSource
from studyapp.store import Store
from studyapp.store import classroom as db

if TYPE_CHECKING:
    from studyapp.decks import Deck


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
    regraded: Regrade | None = None
    """The class's stored answers graded again against this version's keys."""


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
                       replaced=latest.version, regraded=regrade_deck(store, deck))


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
