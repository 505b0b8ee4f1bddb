"""Settings: where progress lives, whose it is, and the language, resolved once.

Both faces build on this: the command line resolves its options and
environment into a ``Settings``, the terminal app receives one, and each turns
it into a study service. Nothing here imports click, Textual or the database
code, so resolving settings costs nothing at start-up and touches no file.
"""

from __future__ import annotations

import locale
import os
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from studyapp import locations

LANGS = ("es", "en")
DEFAULT_PROFILE = "default"


@dataclass(frozen=True)
class Settings:
    """What every command and screen needs to know about where and who."""

    db_url: str | None
    """Database URL as given (None: SQLite in the user data folder)."""
    profile: str
    lang: str
    lang_chosen: bool = True
    """Was the language chosen on the command line? Then it wins over the one the
    learner saved in the app's settings screen."""

    @property
    def url(self) -> str:
        """The database URL in use: the given one, else STUDYAPP_DB, else the default file."""
        return self.db_url or locations.default_db_url()


def default_lang() -> str:
    """``es*`` locales get Spanish, everything else English."""
    for var in ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE"):
        value = os.environ.get(var)
        if value:
            return "es" if value.lower().startswith("es") else "en"
    try:
        code = locale.getlocale()[0] or ""
    except ValueError:
        code = ""
    return "es" if code.lower().startswith("es") else "en"


def resolve_settings(db_url: str | None = None, profile: str = DEFAULT_PROFILE,
                     lang: str | None = None) -> Settings:
    """Settings from what the user gave; a missing language comes from the locale."""
    return Settings(db_url=db_url, profile=profile, lang=lang or default_lang(),
                    lang_chosen=lang is not None)


def backup_path(now: datetime) -> Path:
    """Where ``studyapp backup`` writes when no file is given."""
    return locations.data_dir() / "backups" / f"studyapp-{now:%Y%m%dT%H%M%SZ}.sqlite3"


__all__ = ["DEFAULT_PROFILE", "LANGS", "Settings", "backup_path", "default_lang",
           "resolve_settings"]
