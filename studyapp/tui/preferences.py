"""The app's own settings file: language, theme, key remaps, last post studied.

Scheduler settings (daily limits, retention) belong to the learner's profile
in the database; what lives here only changes how the app looks and feels.
Stored as JSON in ``locations.config_dir()``, written only when it changes.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from studyapp import locations
from studyapp.files import write_text_replacing

FILE_NAME = "tui.json"


@dataclass(frozen=True)
class Preferences:
    """What the learner chose in the settings screen (None: not chosen yet)."""

    language: str | None = None
    theme: str | None = None
    keymap: dict[str, str] = field(default_factory=dict)
    """Binding id → keys, e.g. ``{"home.study": "space"}``."""
    last_post: str | None = None
    """The post of the last session, for "continue where I left off"."""
    class_left_out: tuple[str, ...] = ()
    """Profiles the class screen leaves out (``default``, test profiles), as
    ``class report --exclude`` does; a name a database lacks leaves nothing out."""

    def with_changes(self, **changes: Any) -> Preferences:
        return replace(self, **changes)


def preferences_path() -> Path:
    return locations.config_dir() / FILE_NAME


def _as_preferences(data: object) -> Preferences:
    """Keep only well-formed fields: a hand-edited file never stops the app."""
    if not isinstance(data, dict):
        return Preferences()
    language = data.get("language")
    theme = data.get("theme")
    keymap = data.get("keymap")
    last_post = data.get("last_post")
    left_out = data.get("class_left_out")
    return Preferences(
        language=language if language in ("es", "en") else None,
        theme=theme if isinstance(theme, str) and theme else None,
        keymap={str(k): str(v) for k, v in keymap.items() if isinstance(v, str)}
        if isinstance(keymap, dict) else {},
        last_post=last_post if isinstance(last_post, str) else None,
        class_left_out=tuple(dict.fromkeys(n for n in left_out if isinstance(n, str)))
        if isinstance(left_out, list) else (),
    )


def load_preferences(path: Path | None = None) -> Preferences:
    """The saved preferences, or defaults when the file is missing or unreadable."""
    path = path or preferences_path()
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return Preferences()
    try:
        return _as_preferences(json.loads(text))
    except ValueError:
        return Preferences()


def _serialise(prefs: Preferences) -> str:
    return json.dumps(asdict(prefs), ensure_ascii=False, indent=2, sort_keys=True) + "\n"


def save_preferences(prefs: Preferences, path: Path | None = None) -> bool:
    """Write the file if its content would change; True when written."""
    path = path or preferences_path()
    text = _serialise(prefs)
    try:
        if path.read_text(encoding="utf-8") == text:
            return False
    except OSError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text_replacing(path, text)
    return True
