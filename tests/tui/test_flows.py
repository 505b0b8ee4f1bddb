"""Pilot tests: each flow asserted on state (screen stack, focus, saved reviews)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from textual.widgets import Input, OptionList, Static
from tui_helpers import answer, review_rows, right_answer, wait_until, wrong_answer

from studyapp.questions.model import Kind
from studyapp.tui.app import StudyApp
from studyapp.tui.screens.home import HomeScreen
from studyapp.tui.screens.post import PostScreen
from studyapp.tui.screens.question import QuestionScreen
from studyapp.tui.screens.summary import SummaryScreen
from studyapp.tui.widgets.post_row import PostRow

AppFactory = Callable[..., StudyApp]


def asking(app: StudyApp) -> bool:
    screen = app.screen
    return isinstance(screen, QuestionScreen) and screen.phase == "asking"


def in_feedback(app: StudyApp) -> bool:
    screen = app.screen
    return isinstance(screen, QuestionScreen) and screen.phase == "feedback"


async def test_home_lists_every_post_and_fills_counts(app_factory: AppFactory) -> None:
    app = app_factory()
    async with app.run_test(size=(80, 24)) as pilot:
        home = app.screen
        assert isinstance(home, HomeScreen)
        rows = list(home.query(PostRow))
        assert [row.slug for row in rows][:4] == ["intro", "hbm-kv-cache", "h100", "h200"]
        assert len(rows) == 12
        assert app.focused is rows[0]
        await wait_until(pilot, lambda: home.overview is not None)
        assert all(row.progress is not None for row in rows)
        await pilot.press("down", "down")
        assert app.focused is rows[2]


async def test_study_one_card_end_to_end_saves_the_review(app_factory: AppFactory,
                                                          db_path: Path) -> None:
    """Home → summary first (unread post) → question → right answer → Good → saved."""
    app = app_factory()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.screen.overview is not None)  # type: ignore[attr-defined]
        await pilot.press("down", "down", "down")
        assert isinstance(app.focused, PostRow) and app.focused.slug == "h200"
        await pilot.press("s")
        await wait_until(pilot, lambda: isinstance(app.screen, PostScreen))
        post_screen = app.screen
        assert isinstance(post_screen, PostScreen) and post_screen.then_study
        await pilot.press("enter")
        await wait_until(pilot, lambda: asking(app))
        screen = app.screen
        assert isinstance(screen, QuestionScreen)
        assert [type(s) for s in app.screen_stack] == [HomeScreen, QuestionScreen]
        presented = screen.presented
        assert presented is not None and presented.question.post == "h200"
        await answer(pilot, right_answer(presented.question), presented.question.kind)
        await wait_until(pilot, lambda: in_feedback(app))
        assert screen.outcome is not None and screen.outcome.verdict.correct
        assert screen.outcome.needs_rating
        assert app.focused is not None and app.focused.id == "rate-good"
        await pilot.press("enter")  # Enter = Good
        await wait_until(pilot, lambda: screen.answered == 1 and screen.phase != "feedback")
    rows = review_rows(db_path)
    assert len(rows) == 1
    deck, card, rating, correct, _ = rows[0]
    assert (deck, card) == (presented.deck_id, presented.card_key)
    assert rating == 3 and correct == 1


async def test_wrong_answer_is_recorded_as_again_then_undone(app_factory: AppFactory,
                                                             db_path: Path) -> None:
    app = app_factory(study={"post": "intro"})
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, PostScreen))
        await pilot.press("enter")
        await wait_until(pilot, lambda: asking(app))
        screen = app.screen
        assert isinstance(screen, QuestionScreen) and screen.presented is not None
        first = screen.presented
        await answer(pilot, wrong_answer(first.question), first.question.kind)
        await wait_until(pilot, lambda: in_feedback(app))
        assert screen.outcome is not None and screen.outcome.recorded
        assert not screen.outcome.needs_rating
        assert [row[2] for row in review_rows(db_path)] == [1]  # Again, without a rating
        assert screen.can_undo
        await pilot.press("ctrl+z")
        await wait_until(pilot, lambda: asking(app) and screen.answered == 0)
        assert review_rows(db_path) == []
        assert screen.presented is not None and screen.presented.card_key == first.card_key


async def test_session_summary_after_the_last_question(app_factory: AppFactory) -> None:
    app = app_factory(study={"post": "h100", "limit": 2})
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, PostScreen))
        await pilot.press("enter")
        for _ in range(2):
            await wait_until(pilot, lambda: asking(app))
            screen = app.screen
            assert isinstance(screen, QuestionScreen) and screen.presented is not None
            question = screen.presented.question
            await answer(pilot, right_answer(question), question.kind)
            await wait_until(pilot, lambda: in_feedback(app))
            await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, SummaryScreen))
        summary = app.screen
        assert isinstance(summary, SummaryScreen)
        assert summary.tally.answered == 2 and summary.tally.correct == 2
        assert len(summary.tally.comes_back) == 2
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen))


async def test_post_reachable_while_answering(app_factory: AppFactory) -> None:
    app = app_factory(study={"post": "h200"})
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, PostScreen))
        await pilot.press("enter")
        await wait_until(pilot, lambda: asking(app))
        await pilot.press("ctrl+o")
        await wait_until(pilot, lambda: isinstance(app.screen, PostScreen))
        post_screen = app.screen
        assert isinstance(post_screen, PostScreen) and post_screen.from_question
        assert post_screen.check_action("study", ()) is False
        await pilot.press("escape")
        await wait_until(pilot, lambda: asking(app))


async def test_each_kind_has_its_layout(app_factory: AppFactory) -> None:
    """Answer questions until each kind seen has shown its own answer widget."""
    app = app_factory(study={"post": "intro", "practice": True})
    seen: set[Kind] = set()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, PostScreen))
        await pilot.press("enter")
        for _ in range(24):  # the post's own cards only: its numeric ones come last
            if {Kind.NUMERIC, Kind.CHOICE} <= seen:
                break
            await wait_until(pilot, lambda: asking(app) or isinstance(app.screen, HomeScreen))
            screen = app.screen
            if not isinstance(screen, QuestionScreen) or screen.presented is None:
                break
            question = screen.presented.question
            seen.add(question.kind)
            if question.kind in (Kind.CHOICE, Kind.TRUEFALSE):
                assert isinstance(app.focused, OptionList)
            else:
                assert isinstance(app.focused, Input)
            await answer(pilot, right_answer(question), question.kind)
            await wait_until(pilot, lambda: in_feedback(app))
            await pilot.press("enter")
    assert Kind.NUMERIC in seen and Kind.CHOICE in seen


async def test_second_study_of_a_read_post_goes_straight_to_questions(
        app_factory: AppFactory) -> None:
    app = app_factory()
    async with app.run_test(size=(80, 24)) as pilot:
        app.open_post("tpu")
        await wait_until(pilot, lambda: isinstance(app.screen, PostScreen))
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen))
        app.study_post("tpu")
        await wait_until(pilot, lambda: isinstance(app.screen, QuestionScreen))


async def test_prompt_text_is_never_markup(app_factory: AppFactory, tmp_path: Path) -> None:
    """A deck prompt with [@click=app.quit] and [bold] shows literally and never acts."""
    deck = tmp_path / "hostile.yaml"
    deck.write_text(
        "deck: hostile\n"
        "title: \"[@click=app.quit]Hostile[/]\"\n"
        "language: en\n"
        "post: intro\n"
        "cards:\n"
        "  - id: click\n"
        "    type: choice\n"
        "    prompt: \"[@click=app.quit]Press here[/] and [bold]see[/bold]\"\n"
        "    choices: [\"[@click=app.quit]one[/]\", \"[b]two[/b]\"]\n"
        "    answer: 0\n"
        "    explanation: \"[@click=app.quit]why[/] [red]so[/red]\"\n",
        encoding="utf-8")
    app = app_factory(study={"deck": str(deck)})
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: asking(app))
        prompt = app.screen.query_one("#prompt", Static)
        shown = str(prompt.render())
        assert "[@click=app.quit]Press here[/] and [bold]see[/bold]" in shown
        await pilot.click("#prompt", offset=(2, 0))
        await pilot.pause()
        assert app.is_running
        options = app.screen.query_one(OptionList)
        assert "[@click=app.quit]one[/]" in str(options.get_option_at_index(0).prompt)
        await pilot.press("1")
        await wait_until(pilot, lambda: in_feedback(app))
        explanation = str(app.screen.query_one("#explanation", Static).render())
        assert "[@click=app.quit]why[/] [red]so[/red]" in explanation
        await pilot.click("#explanation", offset=(2, 0))
        await pilot.pause()
        assert app.is_running


async def test_a_wrong_unit_is_explained_then_cleared_once_graded(
        app_factory: AppFactory) -> None:
    """A size given for a rate is not graded; the hint goes once the answer is graded."""
    app = app_factory(study={"post": "h200", "practice": True})
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, PostScreen))
        await pilot.press("enter")
        for _ in range(30):
            await wait_until(pilot, lambda: asking(app) or isinstance(app.screen, HomeScreen))
            screen = app.screen
            if not isinstance(screen, QuestionScreen) or screen.presented is None:
                break
            question = screen.presented.question
            if question.kind is Kind.NUMERIC and question.unit == "tokens/s":
                break
            await answer(pilot, right_answer(question), question.kind)
            await wait_until(pilot, lambda: in_feedback(app))
            await pilot.press("enter")
        else:
            raise AssertionError("no tokens/s question in 30 practice questions")
        assert isinstance(screen, QuestionScreen)
        await answer(pilot, "40 GB", Kind.NUMERIC)
        await wait_until(pilot, lambda: "size" in str(screen.query_one("#retry", Static).content))
        assert asking(app)  # not graded: still asking
        screen.query_one("#response", Input).value = ""
        await answer(pilot, wrong_answer(question), Kind.NUMERIC)
        await wait_until(pilot, lambda: in_feedback(app))
        assert str(screen.query_one("#retry", Static).content).strip() == ""
