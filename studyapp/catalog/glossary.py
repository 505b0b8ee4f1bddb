"""The glossary (``content/i18n/glossary.yaml``): one term per concept in each language.

Authors follow it (``tests/test_glossary.py`` checks posts, decks and
generated questions against it); learners read it in the glossary screen,
a term in their language next to the other language's.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import yaml

from studyapp import locations

LANGS = ("es", "en")


@dataclass(frozen=True)
class Term:
    """One concept: what it means (in English) and its chosen word in each language."""

    concept: str
    """What it means, in English: ``batch (sequences served together)``."""
    en: str
    es: str


def word(term: Term, lang: str) -> str:
    """The term's word in ``lang`` (``es`` or ``en``)."""
    return term.es if lang == "es" else term.en


@cache
def load_glossary() -> tuple[Term, ...]:
    """Every term, in the file's order (read once per process)."""
    path = locations.content_dir() / "i18n" / "glossary.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    return tuple(Term(concept=str(entry["concept"]), en=str(entry["en"]), es=str(entry["es"]))
                 for entry in data["terms"])


__all__ = ["LANGS", "Term", "load_glossary", "word"]
