"""The glossary screen: the terms the posts use, in both languages, from the palette."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from textual.widgets import DataTable

from studyapp.catalog.glossary import load_glossary, word
from studyapp.tui.app import StudyApp
from studyapp.tui.screens.glossary import GlossaryScreen

AppFactory = Callable[..., StudyApp]


def test_the_glossary_gives_both_words_of_every_concept() -> None:
    terms = load_glossary()
    assert terms and all(term.en and term.es and term.concept for term in terms)
    batch = next(term for term in terms if term.en == "batch")
    assert (word(batch, "es"), word(batch, "en")) == ("lote", "batch")


@pytest.mark.parametrize(("lang", "first", "header"),
                         [("en", ("batch", "lote"), "English"),
                          ("es", ("lote", "batch"), "Español")])
async def test_glossary_lists_the_terms_in_the_interface_language_first(
        app_factory: AppFactory, lang: str, first: tuple[str, str], header: str) -> None:
    app = app_factory(lang=lang)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        title = app.tr("tui.cmd.glossary")
        command = next(c for c in app.get_system_commands(app.screen) if c.title == title)
        command.callback()
        await pilot.pause()
        assert isinstance(app.screen, GlossaryScreen)
        table = app.screen.query_one("#glossary-table", DataTable)
        assert table.row_count == len(load_glossary())
        row = table.get_row_at(0)
        assert (row[0].plain, row[1].plain) == first
        assert str(next(iter(table.columns.values())).label) == header
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, GlossaryScreen)
