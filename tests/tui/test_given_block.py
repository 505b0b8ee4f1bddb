"""A card's Given block: shown above the prompt, as plain text, readable at 80×24.

The per-watt card gives each chip's figure and TDP in its Given block; the TUI shows it
under a "Given" heading before the prompt, and plain mode prints it as lines; text in it
is never read as markup.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from textual.widgets import Static
from tui_helpers import wait_until

from studyapp.questions.generators import get_family
from studyapp.questions.model import Question
from studyapp.tui.app import StudyApp
from studyapp.tui.screens.question import QuestionScreen

AppFactory = Callable[..., StudyApp]

DECK = """deck: given-block
title: Given block
language: en
post: gaudi
cards:
  - {id: per-watt, type: generated, generator: perf-per-watt}
"""


def _text(widget: Static) -> str:
    return " ".join(str(widget.render()).split())


async def test_the_given_block_is_shown_above_the_prompt_at_80x24(
        app_factory: AppFactory, tmp_path: Path) -> None:
    deck = tmp_path / "given.yaml"
    deck.write_text(DECK, encoding="utf-8")
    app = app_factory(study={"deck": str(deck)})
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, QuestionScreen)
                         and app.screen.phase == "asking")
        screen = app.screen
        assert isinstance(screen, QuestionScreen) and screen.presented is not None
        question = screen.presented.question
        assert len(question.given) == 4  # one line a chip
        card = screen.card
        await pilot.pause(0.1)
        shown = _text(card.given)
        assert card.given.display and shown.startswith("Given")
        for line in question.given:
            assert " ".join(line.split()) in shown
        assert card.given.region.y < card.prompt.region.y  # before the question
        assert card.given.size.width <= card.scrollable_content_region.width
        assert card.scrollable_content_region.contains_region(card.given.region)  # in sight

        marked = replace(question, given=("[bold]80 GB[/bold] [@click=app.quit]x",))
        card.show_question(marked)
        await pilot.pause(0.1)
        assert "[bold]80 GB[/bold] [@click=app.quit]x" in _text(card.given)

        card.show_question(replace(question, given=()))
        await pilot.pause(0.1)
        assert not card.given.display  # no block for a card that gives nothing


def _per_watt() -> Question:
    return get_family("perf-per-watt").generate(3, "en", {})


def test_plain_mode_prints_the_given_block_before_the_prompt() -> None:
    from studyapp.plain import render_question
    from studyapp.srs.scheduler import CardStage
    from studyapp.study import Presented

    question = replace(_per_watt(), given=("A100: 2,039 GB/s \x1b[31m, 400 W", "[b]x[/b]"))
    lines = render_question(Presented(1, 1, "gaudi", "per-watt", question, CardStage.NEW), "en")
    given = lines.index("Given:")
    assert lines[given + 1] == "  - A100: 2,039 GB/s \\x1b[31m, 400 W"  # escaped, not run
    assert lines[given + 2] == "  - [b]x[/b]"
    assert lines[given + 3] == question.prompt
    assert all(len(line) <= 80 or line == question.prompt for line in lines[given:given + 3])
