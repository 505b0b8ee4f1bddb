"""Formatting the progress screens share: progress, a post's cards, a card, the class.

Kept apart from the screens so that each screen can import it while the
progress screen opens the others (no import cycle between screens).
"""

from __future__ import annotations

from pathlib import Path

from textual.containers import VerticalScroll
from textual.geometry import Region
from textual.widgets import DataTable

from studyapp.i18n import t
from studyapp.progress import CardLine
from studyapp.progress.misconceptions import MisconceptionEstimate
from studyapp.questions.misconceptions import misconception_of

CSS = Path(__file__).parent / "progress.tcss"
LEECH_MARK = "⚑"



def percent(value: float | None) -> str:
    return "—" if value is None else f"{value:.0%}"


def duration(ms: int) -> str:
    """Time studied, short: ``45 s``, ``12 min``, ``3 h 05 min``."""
    seconds = round(ms / 1000)
    if seconds < 60:
        return f"{seconds} s"
    minutes = seconds // 60
    if minutes < 60:
        return f"{minutes} min"
    return f"{minutes // 60} h {minutes % 60:02d} min"


def days_text(days: int, lang: str) -> str:
    return t("tui.stats.days_one", lang) if days == 1 else t("tui.stats.days_many", lang,
                                                               n=days)


def card_name(deck_id: str, card_key: str) -> str:
    return f"{deck_id}/{card_key}"


CARD_COLUMNS_BESIDE = 40
"""What the weak-card tables give the other columns (lapses, accuracy, state, gaps)."""


def card_text_width(screen_width: int) -> int:
    """The prompt column of the weak-card tables: the rest of the screen, 20 to 70."""
    return max(20, min(70, screen_width - CARD_COLUMNS_BESIDE))


def card_text(line: CardLine) -> str:
    """A weak card as a learner knows it: the prompt it last showed, on one line (its id
    when it has none stored)."""
    if line.prompt:
        return " ".join(line.prompt.split())
    return card_name(line.deck_id, line.card_key)


def card_state_text(stage: int, suspended: bool, leech: bool, lang: str) -> str:
    """``review``, ``relearning ⚑`` (a leech), ``suspended ⚑``…, localised."""
    word = t("tui.stats.suspended", lang) if suspended else t(f"tui.stats.stage.{stage}", lang)
    return f"{word} {LEECH_MARK}" if leech else word


def scroll_row_into_view(body: VerticalScroll, table: DataTable[object]) -> None:
    """Tables grow to their full height, so the page scrolls to the cursor instead."""
    if not table.row_count:
        return
    top = table.virtual_region.y + table.header_height + table.cursor_row
    body.scroll_to_region(Region(0, top, 1, 1), animate=False, immediate=True)


def shown_misconceptions(
        estimates: tuple[MisconceptionEstimate, ...]) -> list[MisconceptionEstimate]:
    """Those held and those fading, as ``studyapp stats`` lists them."""
    return [m for m in estimates if m.held or m.faded]


def misconception_cells(m: MisconceptionEstimate, lang: str) -> tuple[str, str, str, str]:
    """Name, "3 on 2 cards", the last slip's date and the trend (or "fading"): plain text."""
    state = t("stats.misconception.faded" if m.faded else f"stats.trend.{m.trend}", lang)
    last = m.last_seen.astimezone().date().isoformat() if m.last_seen else "—"
    return (misconception_of(m.key).name(lang),
            t("stats.misconception.slips", lang, slips=m.slips, cards=m.slip_cards),
            last, state)
