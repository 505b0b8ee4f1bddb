"""The session's own screens: what the summary counts, quitting with an answer typed,
and "review due" serving only what is due."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from textual.widgets import Input, Label, Static
from tui_helpers import answer, fixed_clock, right_answer, wait_until, wrong_answer

from studyapp.tui.app import StudyApp
from studyapp.tui.screens.home import HomeScreen
from studyapp.tui.screens.message import ConfirmScreen
from studyapp.tui.screens.post import PostScreen
from studyapp.tui.screens.progress_format import duration
from studyapp.tui.screens.question import QuestionScreen
from studyapp.tui.screens.summary import SummaryScreen

AppFactory = Callable[..., StudyApp]


def phase(app: StudyApp) -> str | None:
    screen = app.screen
    return screen.phase if isinstance(screen, QuestionScreen) else None


def one_intro_card_in_learning(db_path: Path) -> None:
    """Another post's card answered wrong earlier: it comes back within the hour."""
    from studyapp.study import SessionKind, StudyConfig, StudyService

    service = StudyService(StudyConfig(db_url=f"sqlite:///{db_path}", profile="default",
                                       lang="en", clock=fixed_clock))
    session = service.start(SessionKind.POST, post="intro", seed=1)
    presented = session.next()
    assert presented is not None
    from tui_helpers import wrong_answer as wrong

    session.submit(wrong(presented.question))
    service.close()


def text_of(screen: SummaryScreen, selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


async def test_summary_says_which_lines_count_this_session_and_which_the_profile(
        app_factory: AppFactory, db_path: Path) -> None:
    one_intro_card_in_learning(db_path)
    app = app_factory(study={"post": "h100", "limit": 2})
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, PostScreen))
        await pilot.press("enter")
        for _ in range(2):
            await wait_until(pilot, lambda: phase(app) == "asking")
            screen = app.screen
            assert isinstance(screen, QuestionScreen) and screen.presented is not None
            question = screen.presented.question
            await answer(pilot, right_answer(question), question.kind)
            await wait_until(pilot, lambda: phase(app) == "feedback")
            await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, SummaryScreen))
        summary = app.screen
        assert isinstance(summary, SummaryScreen)
        labels = [str(label.render()) for label in summary.query(Label)]
        assert "This session" in labels and "All your cards" in labels
        # this session's two cards, apart from the profile's three (the intro card too)
        assert text_of(summary, "#summary-next").splitlines()[1] == "2 within the hour"
        assert text_of(summary, "#summary-profile").startswith("3 cards within the hour")
        # time studied as progress and stats sum it: the answers' durations
        with sqlite3.connect(db_path) as connection:
            (ms,) = connection.execute(
                "SELECT SUM(r.duration_ms) FROM review_logs r "
                "JOIN card_states c ON c.id = r.card_id "
                "WHERE c.deck_id = 'post-h100'").fetchone()
        assert text_of(summary, "#summary-time") == f"Time studied: {duration(ms)}"


async def test_ctrl_q_with_an_answer_typed_asks_first(app_factory: AppFactory) -> None:
    app = app_factory(study={"post": "hbm-kv-cache"})
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, PostScreen))
        await pilot.press("enter")
        await wait_until(pilot, lambda: phase(app) == "asking")
        screen = app.screen
        assert isinstance(screen, QuestionScreen)
        while not screen.query_one("#response").display:  # a card with an answer field
            assert screen.presented is not None
            question = screen.presented.question
            await answer(pilot, wrong_answer(question), question.kind)
            await wait_until(pilot, lambda: phase(app) == "feedback")
            await pilot.press("enter")
            await wait_until(pilot, lambda: phase(app) == "asking")
        await pilot.press(*"12")
        await pilot.press("ctrl+q")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        assert app.is_running
        await wait_until(pilot, lambda: app.focused is not None and app.focused.id == "confirm-no")
        await pilot.press("enter")  # the focused No: keep answering
        await wait_until(pilot, lambda: phase(app) == "asking")
        assert app.screen.query_one("#response", Input).value == "12"
        await pilot.press("ctrl+q")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("escape")  # keep answering
        await wait_until(pilot, lambda: phase(app) == "asking")
        assert app.screen.query_one("#response", Input).value == "12"
        await pilot.press("ctrl+q")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await wait_until(pilot, lambda: not app.is_running)


async def test_ctrl_q_with_nothing_typed_quits_at_once(app_factory: AppFactory) -> None:
    app = app_factory(study={"post": "h200"})
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, PostScreen))
        await pilot.press("enter")
        await wait_until(pilot, lambda: phase(app) == "asking")
        await pilot.press("ctrl+q")
        await wait_until(pilot, lambda: not app.is_running)


async def test_review_due_from_home_asks_no_new_card(app_factory: AppFactory,
                                                     db_path: Path) -> None:
    one_intro_card_in_learning(db_path)
    app = app_factory()
    async with app.run_test(size=(80, 24)) as pilot:
        home = app.screen
        assert isinstance(home, HomeScreen)
        await wait_until(pilot, lambda: home.overview is not None)
        await pilot.press("r")
        await wait_until(pilot, lambda: phase(app) == "asking")
        screen = app.screen
        assert isinstance(screen, QuestionScreen) and screen.presented is not None
        assert screen.presented.question.post == "intro"
        session = screen.session
        assert session is not None and screen.kind == "review"
        # the intro card is the only one due: no new card from any post waits behind it
        assert [item.card_key for item in session.queue] == []
        assert session.total == 1


async def test_ratings_stay_in_sight_below_a_long_solution(app_factory: AppFactory,
                                                           db_path: Path) -> None:
    """At 60x20 the solution overflows the card; the ratings are still on screen."""
    from textual.widgets import Button

    from studyapp.study import StudyConfig, StudyService

    # the post's authored choice cards first: the first question is a long choice
    service = StudyService(StudyConfig(db_url=f"sqlite:///{db_path}", profile="default",
                                       lang="en", clock=fixed_clock))
    service.update_settings(new_card_order="authored-first")
    service.close()
    app = app_factory(study={"post": "nvlink-infiniband"})
    async with app.run_test(size=(60, 20)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, PostScreen))
        await pilot.press("enter")
        await wait_until(pilot, lambda: phase(app) == "asking")
        screen = app.screen
        assert isinstance(screen, QuestionScreen) and screen.presented is not None
        question = screen.presented.question
        await answer(pilot, right_answer(question), question.kind)
        await wait_until(pilot, lambda: phase(app) == "feedback")
        await pilot.pause()
        card = screen.query_one("#card")
        assert card.max_scroll_y > 0  # the solution does not fit
        for button in screen.query(Button).results(Button):
            if not button.display:
                continue  # not offered for this answer
            region = button.region
            assert region.height > 0
            widget, _ = screen.get_widget_at(region.x + 1, region.y)
            assert widget is button, button.id
        # the choice answered is shown by its number, cut to fit the line
        comparison = str(screen.query_one("#comparison", Static).render())
        assert re.match(r"Your answer: \d\) .*…\nExpected: \d\) ", comparison)


async def _header_after_one_answer(app: StudyApp, size: tuple[int, int]) -> tuple[str, str]:
    async with app.run_test(size=size) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, PostScreen))
        await pilot.press("enter")
        await wait_until(pilot, lambda: phase(app) == "asking")
        screen = app.screen
        assert isinstance(screen, QuestionScreen) and screen.presented is not None
        question = screen.presented.question
        await answer(pilot, right_answer(question), question.kind)
        await wait_until(pilot, lambda: phase(app) == "feedback")
        await pilot.press("enter")
        await wait_until(pilot, lambda: phase(app) == "asking" and screen.answered == 1)
        line = str(screen.query_one("#session-line", Label).render())
        score = str(screen.query_one("#session-score", Label).render())
        return line, score


@pytest.mark.parametrize("lang", ["en", "es"])
@pytest.mark.parametrize("size", [(80, 24), (60, 20)])
async def test_the_session_header_fits_beside_the_score(app_factory: AppFactory, lang: str,
                                                        size: tuple[int, int]) -> None:
    app = app_factory(lang=lang, study={"post": "storage-checkpoints"})
    line, score = await _header_after_one_answer(app, size)
    assert score in ("1/1 right", "1/1 bien")
    assert len(line) + 2 + len(score) <= size[0] - 2, line  # no clipped word
    assert line.startswith("[2/")
    kinds = ("multiple choice", "true or false", "numeric", "short answer", "opción múltiple",
             "verdadero o falso", "numérica", "respuesta corta")
    assert line.endswith(kinds), line  # the kind is whole; the post title gave way
