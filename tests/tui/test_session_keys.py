"""Keys that cannot cost a learner: stray Enter, Esc while typing, v/f, four ratings.

Pilot tests asserting on what was saved (review_logs) and on the screen's state.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from textual.widgets import Button, Input, OptionList
from tui_helpers import review_rows, wait_until

from studyapp.questions.model import Kind
from studyapp.srs.scheduler import Rating
from studyapp.tui.app import StudyApp
from studyapp.tui.screens.home import HomeScreen
from studyapp.tui.screens.message import ConfirmScreen
from studyapp.tui.screens.question import QuestionScreen
from studyapp.tui.screens.summary import SummaryScreen

AppFactory = Callable[..., StudyApp]

CHOICES = """deck: choices
title: Choices
language: en
post: h200
cards:
""" + "".join(f"""  - id: c{i}
    type: choice
    prompt: "Choice question number {i}?"
    choices: [alpha {i}, beta {i}, gamma {i}, delta {i}]
    answer: gamma {i}
""" for i in range(1, 5))

MIXED = """deck: mixed
title: Mixed
language: es
post: h200
cards:
  - {id: tf, type: truefalse, prompt: "La H200 SXM tiene 141 GB.", answer: true}
  - {id: tf2, type: truefalse, prompt: "La H200 SXM tiene 80 GB.", answer: false}
  - {id: typed, type: text, prompt: "¿Qué memoria usa la H200?", answer: HBM3e}
"""


def question_screen(app: StudyApp) -> QuestionScreen:
    screen = app.screen
    assert isinstance(screen, QuestionScreen)
    return screen


def right_letter(app: StudyApp) -> str:
    """The key of the right choice as shown (choices are shuffled at every showing)."""
    presented = question_screen(app).presented
    assert presented is not None
    index = presented.question.answer_index
    assert index is not None
    return "abcdef"[index]


def phase(app: StudyApp) -> str | None:
    screen = app.screen
    return screen.phase if isinstance(screen, QuestionScreen) else None


async def test_a_stray_enter_never_answers_the_next_choice(app_factory: AppFactory,
                                                           tmp_path: Path, db_path: Path) -> None:
    deck = tmp_path / "choices.yaml"
    deck.write_text(CHOICES, encoding="utf-8")
    app = app_factory(study={"deck": str(deck)})
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: phase(app) == "asking")
        choices = app.screen.query_one("#choices", OptionList)
        assert choices.highlighted is None, "no option is preselected"
        await pilot.press("enter")  # nothing chosen: nothing happens
        await pilot.pause(0.2)
        assert phase(app) == "asking" and review_rows(db_path) == []
        await pilot.press(right_letter(app))
        await wait_until(pilot, lambda: phase(app) == "feedback")
        ratings = [b.id for b in app.screen.query("#ratings Button").results(Button) if b.display]
        assert ratings == ["rate-again", "rate-hard", "rate-good", "rate-easy"]
        assert "I guessed" in str(app.screen.query_one("#rate-again", Button).label)
        first = question_screen(app).presented
        await pilot.press("enter")  # Good
        await wait_until(pilot, lambda: phase(app) == "asking"
                         and question_screen(app).presented is not first)
        await pilot.press("enter")  # the stray one
        await pilot.pause(0.3)
        assert phase(app) == "asking"
        assert [(card, rating) for _, card, rating, _, _ in review_rows(db_path)] == [
            (first.card_key, 3)]  # type: ignore[union-attr]
        # a rating only by the keys shown for it: 1 on the feedback is "I guessed" (Again)
        await pilot.press(right_letter(app))
        await wait_until(pilot, lambda: phase(app) == "feedback")
        await pilot.press("1")
        await wait_until(pilot, lambda: len(review_rows(db_path)) == 2)
        assert review_rows(db_path)[-1][2:4] == (1, 1)  # Again, though the answer was right


async def test_esc_clears_a_typed_answer_first_then_ends(app_factory: AppFactory,
                                                         tmp_path: Path, db_path: Path) -> None:
    deck = tmp_path / "mixed.yaml"
    deck.write_text(MIXED, encoding="utf-8")
    app = app_factory(lang="es", study={"deck": str(deck)})
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: phase(app) == "asking")
        for _ in range(3):
            presented = question_screen(app).presented
            assert presented is not None
            if presented.question.kind is Kind.TEXT:
                break
            # Spanish true/false by v (verdadero) or f (falso)
            await pilot.press("v" if presented.question.answer else "f")
            await wait_until(pilot, lambda: phase(app) == "feedback")
            assert question_screen(app).outcome.verdict.correct  # type: ignore[union-attr]
            await pilot.press("enter")
            await wait_until(pilot, lambda: phase(app) == "asking")
        answered = len(review_rows(db_path))
        assert answered == 2
        field = app.screen.query_one("#response", Input)
        await pilot.press(*"HBM")
        assert field.value == "HBM"
        await pilot.press("escape")
        assert field.value == "" and phase(app) == "asking"  # cleared, still asking
        # ending while an answer is typed asks first
        await pilot.press(*"HB")
        question_screen(app).action_end()
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("escape")  # keep answering
        await wait_until(pilot, lambda: phase(app) == "asking")
        assert app.screen.query_one("#response", Input).value == "HB"
        await pilot.press("escape", "escape")  # clear, then end: answers exist, nothing asked
        await wait_until(pilot, lambda: isinstance(app.screen, SummaryScreen))
        assert len(review_rows(db_path)) == answered


async def test_decks_screen_switches_an_example_deck_on(app_factory: AppFactory) -> None:
    from studyapp.tui.screens.decks import DecksScreen

    app = app_factory()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen))
        await pilot.press("d")
        await wait_until(pilot, lambda: isinstance(app.screen, DecksScreen) and app.screen.rows)
        screen = app.screen
        assert isinstance(screen, DecksScreen)
        example = next(r for r in screen.rows if r.deck_id == "numeric-drill")
        assert not example.enabled and example.kind == "example"
        assert all(r.enabled for r in screen.rows if r.kind == "post")
        from textual.widgets import DataTable

        screen.query_one(DataTable).move_cursor(row=screen.rows.index(example))
        await pilot.pause()
        await pilot.press("space")
        await wait_until(pilot, lambda: next(r for r in screen.rows
                                             if r.deck_id == "numeric-drill").enabled)
        enabled = await app.backend.call(
            lambda service: {d.deck_id: d.enabled for d in service.deck_list()})
        assert enabled["numeric-drill"]


async def test_a_rating_key_and_enter_together_rate_once(app_factory: AppFactory,
                                                         tmp_path: Path, db_path: Path) -> None:
    """"3" then Enter in one burst: one Good, the next question asked, no error."""
    deck = tmp_path / "choices.yaml"
    deck.write_text(CHOICES, encoding="utf-8")
    app = app_factory(study={"deck": str(deck)})
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: phase(app) == "asking")
        first = question_screen(app).presented
        await pilot.press(right_letter(app))
        await wait_until(pilot, lambda: phase(app) == "feedback")
        session = question_screen(app).session
        assert session is not None
        rate = session.rate

        def slow_rate(rating: Rating = Rating.GOOD) -> None:  # a busy disk
            time.sleep(0.3)
            rate(rating)

        session.rate = slow_rate  # type: ignore[method-assign]
        await pilot.press("3", "enter")  # Enter arrives while "3" is being saved
        await wait_until(pilot, lambda: phase(app) == "asking"
                         and question_screen(app).presented is not first)
        await pilot.pause(0.3)
        assert phase(app) == "asking"
        assert [(card, rating) for _, card, rating, _, _ in review_rows(db_path)] == [
            (first.card_key, 3)]  # type: ignore[union-attr]
        assert app.return_code is None and not app._exception  # nothing crashed
