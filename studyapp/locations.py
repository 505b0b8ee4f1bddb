"""Where studyapp keeps user files and finds its shipped content.

Nothing here touches the disk at import time: callers ask for a folder and
create it only when they are about to write there (``--help`` writes nothing).
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import quote

APP_NAME = "studyapp"


def home() -> Path | None:
    """STUDYAPP_HOME redirects every user file (tests, portable installs)."""
    value = os.environ.get("STUDYAPP_HOME")
    return Path(value).expanduser() if value else None


def data_dir() -> Path:
    """Folder for the database and backups."""
    root = home()
    if root is not None:
        return root / "data"
    import platformdirs

    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def config_dir() -> Path:
    """Folder for settings.toml-like user settings."""
    root = home()
    if root is not None:
        return root / "config"
    import platformdirs

    return Path(platformdirs.user_config_dir(APP_NAME, appauthor=False))


def user_decks_dir() -> Path:
    """Decks an instructor or learner installed with ``studyapp deck add``."""
    return data_dir() / "decks"


def default_db_path() -> Path:
    return data_dir() / "studyapp.sqlite3"


def default_db_url() -> str:
    """STUDYAPP_DB wins; else a SQLite file in the user data folder."""
    url = os.environ.get("STUDYAPP_DB")
    if url:
        return url
    return sqlite_url(default_db_path())


def sqlite_url(path: Path) -> str:
    """The URL of the SQLite file ``path``, taken as a path and never as part of a URL.

    A ``?``, ``#`` or ``%41`` in a folder name (``STUDYAPP_HOME``) is escaped,
    so the URL reads back as this very file, not as a shorter path with a
    query; the path is made absolute so that a folder named ``file:...`` is
    not read as an SQLite URI.
    """

    # as SQLAlchemy's URL.create(...).render_as_string() writes it (2.1 reads it back)
    return "sqlite:///" + quote(str(path.absolute()), safe=" +/")


def _package_data() -> Path:
    return Path(__file__).resolve().parent / "_data"


def content_dir() -> Path:
    """Shipped content: the repository's content/ folder, or the wheel's copy."""
    repo = Path(__file__).resolve().parent.parent / "content"
    if (repo / "hardware.yaml").is_file():
        return repo
    return _package_data() / "content"


def builtin_decks_dir() -> Path:
    """Shipped decks: the repository's decks/ folder, or the wheel's copy."""
    repo = Path(__file__).resolve().parent.parent / "decks"
    if (repo / "posts").is_dir():
        return repo
    return _package_data() / "decks"


def cache_dir() -> Path:
    """Folder for files studyapp can rebuild at any time (validated decks)."""
    root = home()
    if root is not None:
        return root / "cache"
    import platformdirs

    return Path(platformdirs.user_cache_dir(APP_NAME, appauthor=False))
