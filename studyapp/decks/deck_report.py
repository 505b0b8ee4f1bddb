"""Plain-text reports for the ``studyapp deck`` commands.

Kept here, next to the loader, so the command line stays a thin shell and
tests can check the text without running click. Deck text is printed as
plain text; nothing here interprets markup.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from studyapp.decks.deck_loader import deck_files, read_deck_bytes, validate_paths
from studyapp.decks.deck_model import deck_title
from studyapp.decks.language_check import missing_language_warnings
from studyapp.decks.library import DeckListing
from studyapp.decks.problems import DeckError, Problem
from studyapp.decks.yaml_source import parse_yaml
from studyapp.i18n import t


def validation_report(paths: Sequence[Path], lang: str) -> tuple[list[str], int]:
    """One line per problem, then warnings, then a summary; exit code 1 if any problem.

    Warnings (``path:line:col: warning: …``) are cues a learner could answer
    from without the skill: the right choice the longest or the only one
    with a qualifier, a card whose text gives another card's answer away; and a
    prompt a bilingual deck leaves in one language. They do not fail the check.
    """
    files = sum(1 for _ in deck_files(list(paths)))
    problems = validate_paths(paths)
    lines = [p.render(lang) for p in problems]
    warnings = path_warnings(paths, {p.path for p in problems})
    word = t("decks.warning", lang)
    lines += [f"{w.path}:{w.line}:{w.col}: {word}: {w.message_in(lang)}" for w in warnings]
    if problems:
        lines.append(t("decks.summary.problems", lang, files=files, problems=len(problems)))
        return lines, 1
    if warnings:
        lines.append(t("decks.summary.warnings", lang, files=files, warnings=len(warnings)))
        return lines, 0
    lines.append(t("decks.summary.clean", lang, files=files))
    return lines, 0


def path_warnings(paths: Sequence[Path], broken: set[Path]) -> list[Problem]:
    """Cue and give-away warnings of every deck under ``paths`` that loads."""
    from studyapp.decks.cues import deck_warnings
    from studyapp.decks.deck_loader import load_deck

    found: list[Problem] = []
    for path in deck_files([Path(p) for p in paths]):
        if path in broken or not path.exists():
            continue
        try:
            deck = load_deck(path)
        except DeckError:
            continue
        found += sorted({*deck_warnings(deck), *file_language_warnings(path)})
    return found


def file_language_warnings(path: Path) -> list[Problem]:
    """The prompts of one deck file that lack one of its languages, as warnings."""
    try:
        text = read_deck_bytes(path).decode("utf-8-sig")
    except (DeckError, UnicodeDecodeError):
        return []  # its problems say why
    parsed = parse_yaml(text)
    return missing_language_warnings(path, parsed.data, parsed.source_map)


def listing_lines(listings: Sequence[DeckListing], lang: str) -> list[str]:
    """One line per deck: id, source, card count, ok/broken, title, path."""
    if not listings:
        return [t("decks.list.empty", lang)]
    rows: list[tuple[str, ...]] = []
    for listing in listings:
        if listing.deck is not None:
            count = t("decks.list.cards", lang, count=len(listing.deck.cards))
            status = t("decks.list.ok", lang)
            title = deck_title(listing.deck, lang)
        else:
            count = t("decks.list.problems", lang, count=len(listing.problems))
            status = t("decks.list.broken", lang)
            title = ""
        rows.append((listing.id, listing.source, count, status, title, str(listing.path)))
    widths = [max(len(row[i]) for row in rows) for i in range(5)]
    return ["  ".join([*(c.ljust(w) for c, w in zip(row[:5], widths, strict=True)), row[5]])
            for row in rows]  # fmt: skip


def draw_problem_lines(deck_id: str, lang: str) -> list[str]:
    """The deck's draws that failed at study time and were skipped (indented lines)."""
    from studyapp.decks.draw_log import draw_problems

    return [t("decks.list.draw_problem", lang, times=p.times, card=p.card, where=p.where,
              message=p.message) for p in draw_problems().get(deck_id, [])]  # fmt: skip


def listing_json(listings: Sequence[DeckListing]) -> list[dict[str, object]]:
    """Listings as JSON-ready objects (``studyapp deck list --json``)."""
    from studyapp.decks.draw_log import draw_problems

    logged = draw_problems()
    return [
        {
            "id": listing.id,
            "source": listing.source,
            "path": str(listing.path),
            "status": "ok" if listing.ok else "broken",
            "cards": len(listing.deck.cards) if listing.deck is not None else None,
            "title": dict(listing.deck.title) if listing.deck is not None else None,
            "problems": [str(p) for p in listing.problems],  # English, as CI reads them
            "draw_problems": [{"card": p.card, "where": p.where, "message": p.message,
                               "times": p.times} for p in logged.get(listing.id, [])],
        }
        for listing in listings
    ]
