"""The progress screen lists the misconceptions the learner holds, and ``m`` drills one;
the summary names a sitting's slips."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from test_progress_screens import open_progress, table
from textual.widgets import Static
from tui_helpers import FIXED_NOW, wait_until

from studyapp.questions.model import Question
from studyapp.study import SessionKind, StudyConfig, StudyService
from studyapp.tui.screens.question import QuestionScreen

# FIXED_NOW is a UTC moment: study days and dates are read in UTC, whatever hour the
# suite runs at (a zone ten hours west showed the day before)
pytestmark = pytest.mark.utc_days

FAMILIES = ("kv-cache-per-token", "kv-cache-total", "max-context-that-fits")
DECK = "deck: k-only\ntitle: K and V\nlanguage: en\npost: hbm-kv-cache\ncards:\n" + "".join(
    f"  - {{id: {family}-{n}, type: generated, generator: {family}}}\n"
    for n in range(3) for family in FAMILIES)


def k_only(question: Question) -> str | None:
    """The answer a learner who counts K only gives (None when the draw sets no such trap)."""
    slip = next((s for s in question.slips if s.key == "kv_pair"), None)
    if slip is None or not isinstance(slip.ratio, float):
        return None
    return f"{float(question.answer) * slip.ratio:.6g}"


def slip_k_only(tmp_path: Path, db_path: Path) -> int:
    """An hour before the app's clock, K only on every card whose grading names it."""
    deck = tmp_path / "k-only.yaml"
    deck.write_text(DECK, encoding="utf-8")
    service = StudyService(StudyConfig(db_url=f"sqlite:///{db_path}", profile="default",
                                       clock=lambda: FIXED_NOW - timedelta(hours=1),
                                       extra_decks=(deck,)))
    session = service.start(SessionKind.DECK, deck="k-only", seed=4)
    slipped: set[str] = set()
    while (presented := session.next()) is not None:
        q = presented.question
        wrong = k_only(q) if presented.card_key not in slipped else None
        outcome = session.submit(wrong if wrong is not None else f"{float(q.answer):.6g}")
        if wrong is not None and outcome.verdict is not None and outcome.verdict.slips:
            slipped.add(presented.card_key)
        if outcome.needs_rating:
            session.rate()
    session.finish()
    service.close()
    return len(slipped)


async def test_a_held_misconception_is_listed_and_m_drills_it(
        app_factory: Any, tmp_path: Path, db_path: Path) -> None:
    assert slip_k_only(tmp_path, db_path) >= 2
    app = app_factory()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_progress(pilot)
        rows = table(app, "#misconceptions-table")
        assert rows.display and rows.row_count >= 1
        first = [str(cell) for cell in rows.get_row_at(0)]
        assert first[0] == "counts K only"
        assert first[1].endswith(" cards") and first[2] == "2026-03-02"
        assert screen.drill_target() == "k_only"
        await pilot.press("m")
        await wait_until(pilot, lambda: isinstance(app.screen, QuestionScreen))
        question = app.screen
        assert isinstance(question, QuestionScreen)
        assert question.misconception == "k_only" and question.kind == "practice"
        await wait_until(pilot, lambda: question.session is not None)
        assert question.session is not None and question.session.practice


async def test_no_misconception_shows_no_panel_and_no_drill(app_factory: Any) -> None:
    app = app_factory()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_progress(pilot)
        assert not table(app, "#misconceptions-table").display
        assert not screen.query_one("#misconceptions-title").display
        assert screen.drill_target() is None
        await pilot.press("m")
        await pilot.pause()
        assert app.screen is screen


async def test_the_summary_names_the_sitting_slips(app_factory: Any) -> None:
    """The end of a sitting with two K-only slips on two cards says so, in plain text."""
    from studyapp.study import SessionTally
    from studyapp.tui.screens.summary import SummaryScreen

    tally = SessionTally(5, 3, timedelta(minutes=4), (), practice=False,
                         misconceptions=(("k_only", 2, 2),))
    app = app_factory(lang="es")
    async with app.run_test(size=(80, 24)) as pilot:
        await app.push_screen(SummaryScreen(tally))
        await pilot.pause()
        shown = str(app.screen.query_one("#summary-slips", Static).render())
        assert shown == "Contaste solo K dos veces en esta sesión, en dos tarjetas distintas."
