"""UI strings in Spanish and English.

Strings live in ``content/i18n/<area>.<lang>.yaml`` (flat ``key: text`` maps,
keys namespaced like ``home.title``); every area has both languages with the
same keys (a test checks it). ``t()`` formats with ``str.format`` fields.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from studyapp import content_cache, locations
from studyapp.config import LANGS, default_lang

__all__ = ["LANGS", "default_lang", "field_labels", "i18n_dir", "strings", "t", "unit_label"]


def i18n_dir() -> Path:
    return locations.content_dir() / "i18n"


@cache
def strings(lang: str) -> dict[str, str]:
    """All UI strings for ``lang``, merged from every area file (kept as JSON between
    starts: ``content_cache``)."""
    paths = sorted(i18n_dir().glob(f"*.{lang}.yaml"))
    return content_cache.kept(f"strings.{lang}", paths, lambda: read_strings(paths),
                              to_json=dict, from_json=content_cache.string_table)


def read_strings(paths: list[Path]) -> dict[str, str]:
    """The area files ``paths`` merged into one table, later files winning."""
    # PyYAML costs 10 ms of the app's start, which reads the strings' JSON copy instead
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # the C loader when libyaml is there
    merged: dict[str, str] = {}
    for path in paths:
        with path.open("rb") as fh:
            data = yaml.load(fh, Loader=loader) or {}
        for key, value in data.items():
            merged[str(key)] = str(value)
    return merged


def t(key: str, lang: str, /, **fields: object) -> str:
    """The string for ``key`` in ``lang`` (falls back to English, then the key)."""
    table = strings(lang)
    text = table.get(key)
    if text is None:
        text = strings("en").get(key, key)
    return text.format(**fields) if fields else text


def unit_label(unit: str, lang: str) -> str:
    """A unit as a sentence names it: "GB" stays "GB", a ratio's "x" is "times (×)"
    ("Answer in x" reads as a variable). ``unit.say.<unit>`` keys, else the unit."""
    key = f"unit.say.{unit}"
    return t(key, lang) if key in strings(lang) or key in strings("en") else unit


def field_labels(lang: str) -> dict[str, str]:
    """Catalog field names as table headers (``field.<name>`` keys)."""
    prefix = "field."
    labels = {k[len(prefix):]: v for k, v in strings("en").items() if k.startswith(prefix)}
    labels.update({k[len(prefix):]: v for k, v in strings(lang).items() if k.startswith(prefix)})
    return labels
