"""The app's own strings (``content/i18n/tui.<lang>.yaml``), read with the C YAML loader.

The home screen needs its labels before anything else is loaded, so the
app reads only its own table here (a millisecond) instead of every area's
table; any other key falls back to ``studyapp.i18n.t``.

Why not ``studyapp.i18n`` directly: reading every area's table costs about
14 ms more before the first paint (7.5 ms against 22 ms, measured with Textual
already imported); sharing it is worth it only under 5 ms.
"""

from __future__ import annotations

from functools import cache

import yaml

from studyapp import locations

try:  # both are safe loaders; the C one is many times faster
    from yaml import CSafeLoader as SafeLoader
except ImportError:  # pragma: no cover - PyYAML without libyaml
    from yaml import SafeLoader  # type: ignore[assignment]


@cache
def table(lang: str) -> dict[str, str]:
    """Every ``tui.*`` string in ``lang`` (empty when the file is missing)."""
    path = locations.content_dir() / "i18n" / f"tui.{lang}.yaml"
    try:
        with path.open(encoding="utf-8") as fh:
            data = yaml.load(fh, Loader=SafeLoader) or {}
    except OSError:
        return {}
    return {str(key): str(value) for key, value in data.items()}


def t(key: str, lang: str, /, **fields: object) -> str:
    """The string for ``key`` in ``lang``, like ``studyapp.i18n.t``."""
    text = table(lang).get(key) or table("en").get(key)
    if text is None:
        from studyapp.i18n import t as shared_t

        return shared_t(key, lang, **fields)
    return text.format(**fields) if fields else text
