"""Plain-text reports for the ``studyapp deck`` commands.

Kept here, next to the loader, so the command line stays a thin shell and
tests can check the text without running click. Deck text is printed as
plain text; nothing here interprets markup.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from studyapp.decks.library import DeckListing
from studyapp.decks.loader import deck_files, validate_paths
from studyapp.decks.model import CardSpec, Deck, deck_title
from studyapp.i18n import t
from studyapp.questions.model import Kind, Question


def validation_report(paths: Sequence[Path], lang: str) -> tuple[list[str], int]:
    """One line per problem, then a summary; exit code 1 if any problem, else 0."""
    files = sum(1 for _ in deck_files(list(paths)))
    problems = validate_paths(paths)
    lines = [p.render(lang) for p in problems]
    if problems:
        lines.append(t("decks.summary.problems", lang, files=files, problems=len(problems)))
        return lines, 1
    lines.append(t("decks.summary.clean", lang, files=files))
    return lines, 0


def _answer_text(question: Question, lang: str) -> str:
    answer = question.answer
    if question.kind is Kind.TRUEFALSE:
        return t("decks.true" if answer else "decks.false", lang)
    if question.kind is Kind.NUMERIC and isinstance(answer, float):
        from studyapp.questions.grading import expected_display

        tolerance = f" ({question.tolerance.describe()})" if question.tolerance else ""
        return f"{expected_display(question)}{tolerance}"
    return str(answer)


def question_lines(card: CardSpec, question: Question, lang: str) -> list[str]:
    """A question as a reader sees it, with answer and explanation."""
    lines = [f"[{card.id}] {card.type} · {question.post}", question.prompt]
    for index, choice in enumerate(question.choices):
        mark = "*" if question.answer_index == index else " "
        lines.append(f"  {mark} {chr(ord('a') + index)}) {choice}")
    lines.append(f"{t('decks.preview.answer', lang)}: {_answer_text(question, lang)}")
    if question.accept:
        lines.append(f"{t('decks.preview.accept', lang)}: {', '.join(question.accept)}")
    if question.params:
        shown = ", ".join(f"{k}={v}" for k, v in question.params.items())
        lines.append(f"{t('decks.preview.params', lang)}: {shown}")
    lines.append(f"{t('decks.preview.explanation', lang)}: {question.explanation}")
    return lines


def preview_lines(deck: Deck, lang: str, seed: int, card_id: str | None = None) -> list[str]:
    """Every card (or one) instantiated with ``seed``; ``KeyError`` for an unknown card."""
    cards = [deck.card(card_id)] if card_id is not None else list(deck.cards)
    lines = [f"{deck.id}: {deck_title(deck, lang)} ({len(deck.cards)})", ""]
    for card in cards:
        lines += question_lines(card, card.instantiate(seed, lang), lang)
        lines.append("")
    return lines


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


def listing_json(listings: Sequence[DeckListing]) -> list[dict[str, object]]:
    """Listings as JSON-ready objects (``studyapp deck list --json``)."""
    return [
        {
            "id": listing.id,
            "source": listing.source,
            "path": str(listing.path),
            "status": "ok" if listing.ok else "broken",
            "cards": len(listing.deck.cards) if listing.deck is not None else None,
            "title": dict(listing.deck.title) if listing.deck is not None else None,
            "problems": [str(p) for p in listing.problems],  # English, as CI reads them
        }
        for listing in listings
    ]
