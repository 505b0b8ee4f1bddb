"""Prompts a bilingual deck leaves in one language, as ``deck validate`` warnings.

A deck whose title is given in Spanish and English is read in both. A card (or a
scenario step) whose prompt is written by language but in one of them only still
studies, but a learner in the other language reads it in the one it has, with a
note (``CardSpec.instantiate``). The author is told where, at the prompt's
``line:col``, so the missing text is written before a class meets the note.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from studyapp.decks.problems import Problem, problem_message
from studyapp.decks.schema import LANGUAGES
from studyapp.decks.yaml_source import PathKey, SourceMap


def deck_languages(data: Any) -> tuple[str, ...]:
    """The languages a deck is read in: its title's, when given by language; else its own."""
    title = data.get("title") if isinstance(data, dict) else None
    if isinstance(title, dict):
        given = tuple(lang for lang in LANGUAGES if isinstance(title.get(lang), str))
        if given:
            return given
    language = data.get("language") if isinstance(data, dict) else None
    return (language,) if language in LANGUAGES else ()


def prompt_languages(prompt: Any) -> tuple[str, ...]:
    """The languages a prompt written by language has (none for a plain string: it is in
    the deck's language by choice, as the deck format's example writes its prompts)."""
    if isinstance(prompt, dict):
        return tuple(lang for lang in LANGUAGES if isinstance(prompt.get(lang), str))
    return ()


def _prompts(data: dict[str, Any]) -> Iterator[tuple[str, PathKey, Any]]:
    """Each card's prompt and each scenario step's: the card id, where, and the prompt."""
    cards = data.get("cards")
    if not isinstance(cards, list):
        return
    for index, card in enumerate(cards):
        if not isinstance(card, dict):
            continue
        card_id = str(card.get("id", index))
        if "prompt" in card:
            yield card_id, ("cards", index, "prompt"), card["prompt"]
        parts = card.get("parts")
        for step, part in enumerate(parts if isinstance(parts, list) else []):
            if isinstance(part, dict) and "prompt" in part:
                yield card_id, ("cards", index, "parts", step, "prompt"), part["prompt"]


def missing_language_warnings(path: Path, data: Any, source_map: SourceMap) -> list[Problem]:
    """A warning at each prompt that lacks one of the deck's languages."""
    if not isinstance(data, dict):
        return []
    wanted = deck_languages(data)
    if len(wanted) < 2:
        return []
    found = []
    for card_id, where, prompt in _prompts(data):
        has = prompt_languages(prompt)
        if not has:
            continue
        for missing in (lang for lang in wanted if lang not in has):
            line, col = source_map.value(where)
            message = (problem_message("prompt_missing_en", card=card_id) if missing == "en"
                       else problem_message("prompt_missing_es", card=card_id))
            found.append(Problem.at(path, line, col, message))
    return found


__all__ = ["deck_languages", "missing_language_warnings", "prompt_languages"]
