"""A course deck in the app: listed on home under its course, its summary before its first
session, its title in the question's header, and its summary again with ctrl+o."""

from __future__ import annotations

from collections.abc import Callable

from textual.widgets import Label, Markdown
from tui_helpers import wait_until

from studyapp import locations
from studyapp.tui.app import StudyApp
from studyapp.tui.screens.course import CourseScreen
from studyapp.tui.screens.home import HomeScreen
from studyapp.tui.screens.question import QuestionScreen
from studyapp.tui.widgets.post_row import CourseRow

AppFactory = Callable[..., StudyApp]

COURSE = """\
deck: serving-course
title: Serving LLMs, week 1
course: "AI infrastructure [b]101[/b]"
summary: |
  # Week 1: memory for serving

  The **KV cache** holds keys and values. [@click=app.quit]Not an action[/]
language: en
cards:
  - id: kv-grows
    type: truefalse
    prompt: "The KV cache grows with context length."
    answer: true
"""


def _install() -> None:
    folder = locations.user_decks_dir()
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "serving-course.yaml").write_text(COURSE, encoding="utf-8")


async def test_home_lists_the_course_and_its_summary_comes_first(
        app_factory: AppFactory) -> None:
    _install()
    app = app_factory()
    async with app.run_test(size=(80, 24)) as pilot:
        home = app.screen
        assert isinstance(home, HomeScreen)
        await wait_until(pilot, lambda: bool(home.query(CourseRow)))
        row = home.query_one(CourseRow)
        assert row.deck_id == "serving-course" and row.progress is not None
        assert row.progress.total == 1 and row.progress.new == 1
        headings = [str(label.render()) for label in home.query(".course-part").results(Label)]
        assert headings == ["Course: AI infrastructure [b]101[/b]"]  # literal, never markup
        row.focus()
        await pilot.press("s")
        await wait_until(pilot, lambda: isinstance(app.screen, CourseScreen))
        course = app.screen
        await wait_until(pilot, lambda: "Week 1" in course.query_one(Markdown).source)
        assert "[@click=app.quit]" in course.query_one(Markdown).source
        assert course.query_one("#read-first", Label) is not None
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, QuestionScreen)
                         and app.screen.presented is not None)
        question = app.screen
        assert isinstance(question, QuestionScreen)
        assert "Serving LLMs, week 1 · true or false" in str(question.head.line.render())
        await pilot.press("ctrl+o")
        await wait_until(pilot, lambda: isinstance(app.screen, CourseScreen))
        assert not app.screen.check_action("study", ())  # from a question: only back
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is question)
        assert app.is_running
    # read once: the next session goes straight to the questions
    again = app_factory()
    async with again.run_test(size=(80, 24)) as pilot:
        again.study_course("serving-course")
        await wait_until(pilot, lambda: isinstance(again.screen, QuestionScreen))
