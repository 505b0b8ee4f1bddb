"""A class's roles as the faces use them: setting up, adding logins, and refusals in words.

The server enforces who reads and writes what (``studyapp.store.roles``);
this module only turns its refusals into one line in the reader's language,
and asks first where the server would answer silently (a student's class
report would simply hold no classmates: it is refused instead).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from studyapp.i18n import t
from studyapp.locations import data_dir
from studyapp.srs.scheduler import SchedulerSettings
from studyapp.store import Store, StoreError
from studyapp.store.database import make_engine
from studyapp.store.roles import (
    DECK_TABLES,
    ClassRoles,
    add_login,
    denial,
    login_profile,
    login_url,
    setup_class,
    standing,
)
from studyapp.store.upgrade import Upgrade, upgrade_database

PASSWORD_BYTES = 18
"""A generated password: 18 random bytes, 24 characters of URL-safe text."""
MIN_PASSWORD = 12


class PermissionRefused(StoreError):
    """The database refused this login something that is not its own; ``render`` words it."""

    def __init__(self, key: str, **fields: object) -> None:
        self.key = key
        self.fields = fields
        super().__init__(self.render("en"))

    def render(self, lang: str) -> str:
        return t(f"study.denied.{self.key}", lang, **self.fields)


def refusal(exc: BaseException, lang: str = "en") -> str | None:
    """The server's permission error in ``exc`` as one line, or None for any other error."""
    if isinstance(exc, PermissionRefused):
        return exc.render(lang)
    found = denial(exc)
    if found is None:
        return None
    if found.table in DECK_TABLES:
        return t("study.denied.decks", lang)
    if found.table == "alembic_version" or "must be owner" in found.detail:
        return t("study.denied.schema", lang)
    if found.table is not None and "row-level security" in found.detail:
        return t("study.denied.rows", lang)
    return t("study.denied.other", lang, detail=found.detail)


def profile_refusal(store: Store, exc: BaseException, asked: str) -> PermissionRefused | None:
    """Opening a profile that is not this login's: the refusal, naming the login's own."""
    if denial(exc) is None:
        return None
    own = login_profile(store.engine)
    if own is None:
        return PermissionRefused("no_profile", asked=asked)
    return PermissionRefused("profile", asked=asked, own=own)


def foreign_profile(store: Store, asked: str, lang: str) -> str | None:
    """Why this login may read but not write the profile ``asked``, or None when it may write.

    An instructor's login reads every student's rows (their stats are useful to
    see) and writes only its own; the server would drop such writes silently,
    so the store is told up front and refuses them in words.
    """
    if store.is_sqlite:
        return None
    who, _ = standing(store.engine)
    if who == "owner":
        return None
    own = login_profile(store.engine)
    if own == asked:
        return None
    return t("study.denied.read_only", lang, asked=asked, own=own or "—")


def check_report_allowed(store: Store) -> None:
    """Refuse the class report to a login that is not an instructor (or the owner).

    The server would answer a student's report with only their own rows, a
    report that looks complete and is not; asked first, it is refused plainly.
    """
    who, _ = standing(store.engine)
    if who in ("student", "outsider"):
        own = login_profile(store.engine)
        raise PermissionRefused("report", own=own) if own else PermissionRefused("report_only")


def set_up(url: str) -> ClassRoles:
    """``class setup``: the roles, grants and policies of the class in this database."""
    engine = make_engine(url)
    try:
        return setup_class(engine)
    finally:
        engine.dispose()


@dataclass(frozen=True)
class NewLogin:
    """A login just made: its name, profile, group role and password (shown once)."""

    login: str
    profile: str
    group: str
    password: str
    generated: bool
    url: str
    """The database's URL for this login, without a password: what its owner gives the student."""


def new_password() -> str:
    return secrets.token_urlsafe(PASSWORD_BYTES)


def add_member(url: str, login: str, profile: str | None, password: str | None, *,
               instructor: bool) -> NewLogin:
    """``class add-student`` / ``add-instructor``: a login bound to its profile (made here)."""
    if password is not None and len(password) < MIN_PASSWORD:
        raise StoreError(f"a password needs at least {MIN_PASSWORD} characters")
    chosen = password or new_password()
    profile_name = profile or login
    from studyapp.store import open_store
    from studyapp.store.progress import ensure_profile

    store = open_store(url)
    try:
        roles = add_login(store.engine, login, profile_name, chosen, instructor=instructor)
        ensure_profile(store, profile_name, SchedulerSettings().to_dict(), datetime.now(UTC))
    finally:
        store.close()
    group = roles.instructors if instructor else roles.students
    return NewLogin(login=login, profile=profile_name, group=group, password=chosen,
                    generated=password is None, url=login_url(url, login))


def backups_folder() -> Path:
    """Where ``db upgrade`` keeps its copies: beside the user's other data."""
    return data_dir() / "backups"


def upgrade(url: str, *, backup: bool) -> Upgrade:
    """``db upgrade``: the schema brought up to date after a backup (see ``store.upgrade``)."""
    return upgrade_database(url, backups_folder(), backup=backup)


__all__ = ["NewLogin", "PermissionRefused", "Upgrade", "add_member", "backups_folder",
           "check_report_allowed", "foreign_profile", "new_password", "profile_refusal",
           "refusal", "set_up", "upgrade"]
