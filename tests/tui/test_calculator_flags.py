"""The calculator screen flags what ``calc`` flags (``studyapp.infra.flags``), in the
learner's language, under the figures it still computes.

An HGX H100 joins 8 GPUs (https://www.nvidia.com/en-us/data-center/hgx/); Llama
3.1 70B was published for 131,072 tokens
(https://huggingface.co/meta-llama/Llama-3.1-70B/blob/main/config.json).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from textual.widgets import Input, Select, Static
from tui_helpers import wait_until

from studyapp.tui.app import StudyApp
from studyapp.tui.screens.calculator import CalculatorScreen
from studyapp.tui.screens.home import HomeScreen

AppFactory = Callable[..., StudyApp]

WORDS = {"en": ("8 with its scale-up link", "cannot run as computed", "was published for"),
         "es": ("une 8 con su enlace", "no puede ejecutarse", "se publicó para")}


def text_of(app: StudyApp, selector: str) -> str:
    return str(app.screen.query_one(selector, Static).render())


@pytest.mark.parametrize("lang", ["en", "es"])
async def test_decode_past_the_node_and_past_memory_is_flagged(app_factory: AppFactory,
                                                               lang: str) -> None:
    node, memory, context = WORDS[lang]
    app = app_factory(lang=lang)
    async with app.run_test(size=(100, 60)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen)
                         and app.screen.overview is not None)
        await pilot.press("k")
        await wait_until(pilot, lambda: isinstance(app.screen, CalculatorScreen)
                         and app.screen.catalog is not None)
        app.screen.query_one("#gpu", Select).value = "h100-sxm"
        gpus = app.screen.query_one("#gpus", Input)
        gpus.value = "8"  # 70B in BF16 on 8 H100: fits, one node
        await wait_until(pilot, lambda: "tokens/s" in text_of(app, "#decode-result")
                         or "tokens/s" in text_of(app, "#decode-result").replace(" ", ""))
        await pilot.pause(0.2)
        assert node not in text_of(app, "#decode-result")
        assert memory not in text_of(app, "#decode-result")
        gpus.value = "16"
        await wait_until(pilot, lambda: node in text_of(app, "#decode-result"))
        assert memory not in text_of(app, "#decode-result")
        gpus.value = "8"
        app.screen.query_one("#batch", Input).value = "64"
        app.screen.query_one("#context", Input).value = "131072"
        await wait_until(pilot, lambda: memory in text_of(app, "#decode-result"))
        assert node not in text_of(app, "#decode-result")
        assert context not in text_of(app, "#fit-result")
        app.screen.query_one("#context", Input).value = "131073"
        await wait_until(pilot, lambda: context in text_of(app, "#fit-result"))
