"""Pilot tests for grading on the question screen: "I was right", the post cap, replayed choices.

Asserted on what the database holds after the keys, as the schedule will see it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

from textual.widgets import Button, Static
from tui_helpers import answer, wait_until

from studyapp.questions.model import Kind
from studyapp.tui.app import StudyApp
from studyapp.tui.screens.card_detail import CardDetailScreen
from studyapp.tui.screens.post import PostScreen
from studyapp.tui.screens.question import QuestionScreen

AppFactory = Callable[..., StudyApp]

DECK = """deck: grading-keys
title: {en: "Grading keys", es: "Teclas"}
language: en
post: nvlink-infiniband
cards:
  - id: fabric
    type: text
    prompt: {en: "Which scale-out fabric does NDR belong to?", es: "¿A qué red pertenece NDR?"}
    answer: {en: "InfiniBand", es: "InfiniBand"}
  - id: byte
    type: choice
    prompt: {en: "Which one is a byte?", es: "¿Cuál es un byte?"}
    choices: [8 bits, 4 bits, 16 bits, 2 bits]
    answer: 0
"""


def deck_file(tmp_path: Path) -> Path:
    path = tmp_path / "keys.yaml"
    path.write_text(DECK, encoding="utf-8")
    return path


def rows(db_path: Path) -> list[tuple[str, int, int, int, int]]:
    with sqlite3.connect(db_path) as db:
        return list(db.execute(
            "SELECT c.card_key, r.rating, r.correct, r.overridden, r.looked_at_post "
            "FROM review_logs r JOIN card_states c ON c.id = r.card_id ORDER BY r.id"))


def phase(app: StudyApp, name: str, card: str | None = None) -> bool:
    screen = app.screen
    return (isinstance(screen, QuestionScreen) and screen.phase == name
            and (card is None or (screen.presented is not None
                                  and screen.presented.card_key == card)))


async def reach(pilot, app: StudyApp, card: str) -> QuestionScreen:  # type: ignore[no-untyped-def]
    """Answer wrong whatever comes before ``card`` (at most a few questions)."""
    for _ in range(4):
        await wait_until(pilot, lambda: phase(app, "asking"))
        screen = app.screen
        assert isinstance(screen, QuestionScreen) and screen.presented is not None
        if screen.presented.card_key == card:
            return screen
        question = screen.presented.question
        await answer(pilot, "zzz" if question.kind is Kind.TEXT else "1", question.kind)
        await wait_until(pilot, lambda: phase(app, "feedback"))
        await pilot.press("enter" if not screen.outcome or not screen.outcome.needs_rating
                          else "1")
    raise AssertionError(f"{card} never asked")


async def test_i_was_right_key_overrules_a_wrong_verdict(app_factory: AppFactory,
                                                         tmp_path: Path, db_path: Path) -> None:
    app = app_factory(study={"deck": str(deck_file(tmp_path))})
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await reach(pilot, app, "fabric")
        assert not screen.check_action("overrule", ())  # not while asking: "i" is a letter
        await answer(pilot, "Ethernet", Kind.TEXT)
        await wait_until(pilot, lambda: phase(app, "feedback"))
        assert rows(db_path)[-1] == ("fabric", 1, 0, 0, 0)
        assert screen.check_action("overrule", ())
        shown = {b.binding.description: b.enabled for b in screen.active_bindings.values()
                 if b.binding.show}
        assert shown.get("I was right") is True  # in the footer
        await pilot.press("i")
        await wait_until(pilot, lambda: rows(db_path)[-1][1:] == (2, 1, 1, 0))
        assert len([r for r in rows(db_path) if r[0] == "fabric"]) == 1
        await wait_until(pilot, lambda: "Kept as right" in str(
            screen.query_one("#verdict").render()))
        assert not screen.check_action("overrule", ())
        await pilot.press("i")  # a second press does nothing
        await pilot.pause()
        assert len(rows(db_path)) == len({r for r in rows(db_path)})


async def test_post_opened_while_asking_caps_the_rating_at_hard(
        app_factory: AppFactory, tmp_path: Path, db_path: Path) -> None:
    app = app_factory(study={"deck": str(deck_file(tmp_path))}, lang="es")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await reach(pilot, app, "fabric")
        await pilot.press("ctrl+o")
        await wait_until(pilot, lambda: isinstance(app.screen, PostScreen))
        await pilot.press("escape")
        await wait_until(pilot, lambda: phase(app, "asking", "fabric"))
        await answer(pilot, "la Infiniband", Kind.TEXT)
        await wait_until(pilot, lambda: phase(app, "feedback"))
        ratings = [b.id for b in screen.query(Button)
                   if b.id and b.id.startswith("rate-") and b.display]
        assert ratings == ["rate-again", "rate-hard"]  # Good and Easy are not offered
        await pilot.press("4")  # Easy's key does nothing now
        await pilot.pause()
        assert phase(app, "feedback")
        await pilot.press("enter")  # the focused button: Hard
        await wait_until(pilot, lambda: bool(rows(db_path))
                         and rows(db_path)[-1][0] == "fabric")
        assert rows(db_path)[-1] == ("fabric", 2, 1, 0, 1)


async def test_card_detail_replays_the_choices_in_the_order_seen(
        app_factory: AppFactory, tmp_path: Path) -> None:
    app = app_factory(study={"deck": str(deck_file(tmp_path))})
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await reach(pilot, app, "byte")
        assert screen.presented is not None
        shown = list(screen.presented.question.choices)
        await pilot.press(str(shown.index("8 bits") + 1))
        await wait_until(pilot, lambda: phase(app, "feedback"))
        await pilot.press("enter")
        await pilot.pause()
        await app.push_screen(CardDetailScreen("grading-keys", "byte"))
        detail = app.screen
        assert isinstance(detail, CardDetailScreen)
        await wait_until(pilot, lambda: detail.loaded)
        text = str(detail.query_one("#card-answers", Static).render())
        expected = "  ".join(f"{n}) {c}" for n, c in enumerate(shown, 1))
        assert f"Choices as shown: {expected}" in text


async def test_one_click_picks_a_choice_and_a_second_click_sends_it(
        app_factory: AppFactory, tmp_path: Path) -> None:
    """A stray click (or a tap in the browser) must not record an answer."""
    from textual.widgets import OptionList

    from studyapp.tui.screens.question import QuestionScreen

    deck = tmp_path / "click.yaml"
    deck.write_text("deck: click\ntitle: Click\nlanguage: en\npost: hbm-kv-cache\ncards:\n"
                    "  - id: byte\n    type: choice\n    prompt: {en: Which one is a byte?}\n"
                    "    choices: [8 bits, 4 bits, 16 bits, 2 bits]\n    answer: 0\n",
                    encoding="utf-8")
    app = app_factory(study={"deck": str(deck)})
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, QuestionScreen)
                         and app.screen.phase == "asking")
        screen = app.screen
        choices = screen.query_one("#choices", OptionList)
        await wait_until(pilot, lambda: choices.option_count == 4 and choices.region.height)
        await pilot.pause(0.3)  # drawn, so a click finds the option under the pointer
        inside = (choices.content_region.x - choices.region.x + 3,
                  choices.content_region.y - choices.region.y)  # the first choice's line
        await pilot.click(choices, offset=inside)
        await wait_until(pilot, lambda: choices.highlighted == 0)
        await pilot.pause(0.3)
        assert screen.phase == "asking"  # picked, not sent
        await pilot.click(choices, offset=inside)
        await wait_until(pilot, lambda: screen.phase == "feedback")
