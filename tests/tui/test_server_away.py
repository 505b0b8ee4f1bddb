"""The terminal app says in one line when the class database goes away and when it is back.

The session goes on meanwhile: the answer is kept on this machine, the
next question is shown, and the kept answers reach the database once the
server answers again. The server is taken away by making the store's calls
fail as a lost server makes them fail (``ServerAway``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tui_helpers import answer, review_rows, right_answer, wait_until, wrong_answer

from studyapp.i18n import t
from studyapp.store import ServerAway
from studyapp.study import StudyService
from studyapp.tui.app import StudyApp
from studyapp.tui.screens.post import PostScreen
from studyapp.tui.screens.question import QuestionScreen

AppFactory = Callable[..., StudyApp]


class Server:
    """The store's server, which the test can take away and bring back."""

    def __init__(self) -> None:
        self.away = False

    def take(self, service: StudyService) -> None:
        reach = service.store.reach

        def maybe_away(work: Callable[[int], Any]) -> Any:
            if self.away:
                raise ServerAway("connection refused")
            return reach(work)

        service.store.reach = maybe_away  # type: ignore[method-assign]


def notices(app: StudyApp) -> list[str]:
    return [str(n.message) for n in app._notifications]


def asking(app: StudyApp) -> bool:
    screen = app.screen
    return isinstance(screen, QuestionScreen) and screen.phase == "asking"


def in_feedback(app: StudyApp) -> bool:
    screen = app.screen
    return isinstance(screen, QuestionScreen) and screen.phase == "feedback"


async def test_the_question_screen_says_the_server_is_away_then_that_answers_were_sent(
        app_factory: AppFactory, db_path: Path) -> None:
    app = app_factory(study={"post": "h100", "limit": 3})
    server = Server()
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, PostScreen))
        await pilot.press("enter")
        await wait_until(pilot, lambda: asking(app))
        await app.backend.call(server.take)
        server.away = True
        screen = app.screen
        assert isinstance(screen, QuestionScreen) and screen.presented is not None
        await answer(pilot, wrong_answer(screen.presented.question),
                     screen.presented.question.kind)
        await wait_until(pilot, lambda: in_feedback(app))
        assert screen.outcome is not None and screen.outcome.recorded
        await wait_until(pilot, lambda: t("study.server_away", "en") in notices(app))
        assert review_rows(db_path) == []  # kept on this machine
        await pilot.press("enter")  # the next question is shown all the same
        await wait_until(pilot, lambda: asking(app))

        server.away = False
        assert screen.presented is not None
        question = screen.presented.question
        await answer(pilot, right_answer(question), question.kind)
        await wait_until(pilot, lambda: in_feedback(app))
        await pilot.press("enter")  # Good: the kept answer is sent first
        await wait_until(pilot, lambda: t("study.kept_sent_one", "en") in notices(app))
        await wait_until(pilot, lambda: len(review_rows(db_path)) == 2)
    assert [row[3] for row in review_rows(db_path)] == [0, 1]  # wrong, then right
