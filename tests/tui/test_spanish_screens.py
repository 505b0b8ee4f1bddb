"""Spanish screens write numbers the Spanish way and keep no English words:
decimal comma, thin-space thousands, translated Select prompt and keys."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from textual.widgets import DataTable, Label, Select, Static
from tui_helpers import wait_until

from studyapp.catalog.posts import POST_SLUGS, figures_rows, load_post
from studyapp.questions.formatting import THIN_SPACE
from studyapp.tui.app import StudyApp
from studyapp.tui.screens.calculator import CalculatorScreen, number
from studyapp.tui.screens.home import HomeScreen, clamp_lines
from studyapp.tui.screens.post import PostScreen, column_widths, figure_labels

AppFactory = Callable[..., StudyApp]


def text_of(app: StudyApp, selector: str) -> str:
    return str(app.screen.query_one(selector, Static).render())


async def open_calculator(pilot: object, app: StudyApp) -> CalculatorScreen:
    await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen)  # type: ignore[arg-type]
                     and app.screen.overview is not None)
    await pilot.press("k")  # type: ignore[attr-defined]
    await wait_until(pilot, lambda: isinstance(app.screen, CalculatorScreen)  # type: ignore[arg-type]
                     and app.screen.catalog is not None)
    assert isinstance(app.screen, CalculatorScreen)
    return app.screen


def test_number_in_spanish() -> None:
    assert number(2.68, "es") == "2,68"
    assert number(184319.4, "es") == f"184{THIN_SPACE}319"
    assert number(6.3e24, "es") == "6,3e24"
    assert number(2.68) == "2.68" and number(184319.4) == "184,319"  # English as before


async def test_calculator_in_spanish_uses_decimal_comma(app_factory: AppFactory) -> None:
    app = app_factory(lang="es")
    async with app.run_test(size=(80, 24)) as pilot:
        await open_calculator(pilot, app)
        # Llama 3.1 70B, 8192 tokens bf16: 327,680 B/token × 8192 = 2.68 GB; H200 4.8 TB/s
        assert "2,68 GB" in text_of(app, "#kv-result")
        assert "33,4 tokens/s" in text_of(app, "#decode-result")
        assert "4,8 TB/s" in text_of(app, "#decode-result")
        assert "2.68" not in text_of(app, "#fit-result")


async def test_calculator_in_spanish_has_no_english_widgets(app_factory: AppFactory) -> None:
    app = app_factory(lang="es")
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_calculator(pilot, app)
        assert screen.query_one("#model", Select).prompt == "Elegir"
        tokens_label = next(label for label in screen.query(".calc-label").results(Label)
                            if "Tokens" in str(label.render()))
        assert str(tokens_label.render()) == "Tokens de entren."
        assert tokens_label.size.width >= len("Tokens de entren.")  # not cut to "Tokens de"
        await pilot.press("enter")  # open the model list
        await pilot.pause()
        shown = {b.binding.description for b in screen.active_bindings.values()
                 if b.binding.show}
        assert "Cerrar lista" in shown and "Dismiss menu" not in shown


@pytest.mark.parametrize("lang", ["es", "en"])
@pytest.mark.parametrize("slug", [p for p in POST_SLUGS if load_post(p, "es").figures])
def test_figures_fit_80_columns_as_a_table(slug: str, lang: str) -> None:
    """Every key-figures table fits 80 columns whole: no ``BF16 TFLO`` cut mid-word."""
    rows = figures_rows(load_post(slug, lang), labels=figure_labels(lang))
    widths = column_widths(rows, 80)
    assert widths is not None
    assert sum(widths) + 2 * len(widths) + 4 <= 80
    columns = list(zip(*rows, strict=True))
    for index, (column, width) in enumerate(zip(columns, widths, strict=True)):
        values = column[1:] if index else ()  # names wrap at spaces, figures never do
        assert all(len(value) <= width for value in values)
        assert all(len(word) <= width for cell in column for word in cell.split())


async def test_post_figures_stack_when_the_table_cannot_fit(app_factory: AppFactory) -> None:
    app = app_factory(lang="es")
    async with app.run_test(size=(60, 20)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen))
        app.push_screen(PostScreen("blackwell"))
        await wait_until(pilot, lambda: isinstance(app.screen, PostScreen)
                         and bool(app.screen.figure_rows))
        assert app.screen.has_class("-stacked-figures")
        stacked = text_of(app, "#figures-stacked")
        assert "NVIDIA B200" in stacked
        assert re.search(r"Ancho de banda \(TB/s\) +8\n", stacked)
        assert "4,8" in stacked  # H200 SXM 4.8 TB/s (nvidia.com/h200), Spanish comma
        await pilot.resize_terminal(80, 24)
        await wait_until(pilot, lambda: not app.screen.has_class("-stacked-figures"))
        table = app.screen.query_one("#figures", DataTable)
        assert table.header_height > 1  # headers wrap instead of being cut


def test_clamp_lines_ends_a_cut_tagline_with_an_ellipsis() -> None:
    tagline = ("Memoria, aceleradores, servidores, red y almacenamiento: dónde encaja cada "
               "pieza antes de estudiarlas una a una.")
    assert clamp_lines(tagline, 78) == ("Memoria, aceleradores, servidores, red y "
                                        "almacenamiento: dónde encaja cada\n"
                                        "pieza antes de estudiarlas una a una.")
    cut = clamp_lines(tagline, 40)
    assert cut.count("\n") == 1 and cut.endswith("…")
    assert all(len(line) <= 40 for line in cut.splitlines())


async def test_home_shows_the_whole_tagline_at_80_columns(app_factory: AppFactory) -> None:
    app = app_factory(lang="es")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen)
                         and app.screen.selected is not None)
        preview = app.screen.query_one("#preview", Static)
        assert preview.content_size.height == 2
        assert str(preview.render()).endswith("antes de estudiarlas una a una.")
