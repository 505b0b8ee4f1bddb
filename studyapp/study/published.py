"""Decks published into the database (``studyapp deck publish``), loaded for study.

A row of ``published_decks`` is whatever anyone with write access to the
database put there, so nothing in it is trusted: its id must be a deck slug
before it names a file, the file is written only inside the ``published``
folder (through a fresh temporary file renamed over it, never through a
planted link), and a deck that does not load, or loads under another id, is
left out with one line on stderr. Every other deck and command keeps working.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from studyapp.deck_ids import is_deck_id
from studyapp.deck_ids import shown_deck_id as shown_id
from studyapp.files import write_text_replacing
from studyapp.i18n import t
from studyapp.locations import data_dir
from studyapp.store import Store
from studyapp.store import classroom as db
from studyapp.text import visible

if TYPE_CHECKING:
    from studyapp.decks import Deck
    from studyapp.decks.problems import Problem

PUBLISHED_FOLDER = "published"
"""The folder of the data folder that published decks are written to, and only it."""


def say_on_stderr(text: str) -> None:
    """One notice line on stderr, as the store's lock-wait notice is said."""
    print(f"studyapp: {text}", file=sys.stderr, flush=True)


def published_decks(store: Store, lang: str = "en",
                    notice: Callable[[str], None] = say_on_stderr) -> list[Deck]:
    """The decks published into ``store`` (``deck publish``), loaded from their stored text.

    Each is written to ``published/<id>.yaml`` in the data folder and loaded
    from there, so problems point at a file the instructor can open. A row
    whose id is not a deck slug, whose deck does not load here, or whose file
    names another deck is skipped with a ``notice``; so is each card with a
    problem (a formula that fails), the deck's other cards kept.
    """
    from studyapp.decks import MAX_DECK_BYTES, DeckError
    from studyapp.decks.problems import problem_message

    found: list[Deck] = []
    folder = data_dir() / PUBLISHED_FOLDER
    for row in db.stored_decks(store):
        if not is_deck_id(row.deck_id):
            notice(t("published.bad_id", lang, id=shown_id(row.deck_id)))
            continue
        size = len(row.content.encode("utf-8", errors="replace"))
        if size > MAX_DECK_BYTES:  # refused before anything is written
            too_large = problem_message("file_too_large", size=size, limit=MAX_DECK_BYTES)
            notice(t("published.skipped", lang, id=row.deck_id, reason=too_large.render(lang)))
            continue
        try:
            path = published_file(folder, row.deck_id, row.content)
            deck, skipped = _checked_once(path)
        except DeckError as exc:
            first = exc.problems[0].render(lang) if exc.problems else ""
            notice(t("published.skipped", lang, id=row.deck_id, reason=visible(first)))
            continue
        except OSError as exc:
            notice(t("published.not_written", lang, id=row.deck_id,
                     reason=visible(exc.strerror or str(exc))))
            continue
        except Exception as exc:  # one stored deck never stops the others
            notice(t("published.skipped", lang, id=row.deck_id,
                     reason=visible(f"{type(exc).__name__}: {exc}"[:200])))
            continue
        if deck.id != row.deck_id:
            notice(t("published.other_id", lang, id=row.deck_id, other=shown_id(deck.id)))
            continue
        for card_id, problem in skipped:
            notice(t("study.card_skipped", lang, card=shown_id(card_id), deck=deck.id,
                     reason=visible(problem.render(lang))))
        found.append(deck)
    return found


def published_file(folder: Path, deck_id: str, content: str) -> Path:
    """``folder/<deck_id>.yaml`` holding ``content``, written only inside ``folder``.

    The path is checked after resolving the folder (``ValueError`` for an id
    that would leave it), and a changed text is written to a temporary file
    in the folder and renamed over the old one: a link planted at the file's
    name is replaced, never followed.
    """

    if not is_deck_id(deck_id):
        raise ValueError(f"not a deck id: {deck_id!r}")
    folder.mkdir(parents=True, exist_ok=True)
    base = folder.resolve(strict=True)
    path = base / f"{deck_id}.yaml"
    if path.parent != base or path.name != f"{deck_id}.yaml":
        raise ValueError(f"not a file of {base}: {path}")
    if path.is_symlink() or not path.is_file() or path.read_text(encoding="utf-8") != content:
        write_text_replacing(path, content)
    return folder / path.name  # as the data folder names it (``deck_kind`` tells it by that)


def _checked_once(path: Path) -> tuple[Deck, list[tuple[str, Problem]]]:
    """A published copy's deck, checked once per text on this machine (the deck cache):
    later commands read the checked deck back instead of evaluating its formulas again.

    A text with problems is loaded without its failing cards (and each is named), so
    one bad card never takes its deck out of every student's study."""
    from studyapp.decks.cache import check_deck_cached
    from studyapp.decks.deck_loader import load_deck_skipping_cards

    deck, problems = check_deck_cached(path, "user")
    if deck is not None and not problems:
        return deck, []
    return load_deck_skipping_cards(path, source="user")


def remember_published(deck: Deck, content: str) -> None:
    """Keep ``deck``, just checked from ``content`` at publish, as this machine's cached check
    of its published copy, so the next command here does not check it again."""
    from studyapp.decks.cache import remember_checked

    if not is_deck_id(deck.id):
        return  # a name the published copies' folder cannot hold as a plain file
    remember_checked(data_dir() / PUBLISHED_FOLDER / f"{deck.id}.yaml", "user",
                     content.encode("utf-8"), deck)
