"""Spanish screens write numbers the Spanish way and keep no English words:
decimal comma, thin-space thousands, translated Select prompt and keys."""

from __future__ import annotations

from collections.abc import Callable

from textual.widgets import Label, Select, Static
from tui_helpers import wait_until

from studyapp.questions.formatting import THIN_SPACE
from studyapp.tui.app import StudyApp
from studyapp.tui.screens.calculator import CalculatorScreen, number
from studyapp.tui.screens.home import HomeScreen

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
