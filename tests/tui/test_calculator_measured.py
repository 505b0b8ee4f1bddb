"""The calculator screen sets a published measurement of the same setup beside the
theory, in the words ``calc`` prints, and offers its efficiency instead of the typed one.

Figures (content/measurements.yaml):
- NVIDIA NIM 1.8.0, Llama 3.3 70B FP8 on 2 H100 SXM, one stream, 5,000 tokens in:
  51.67 tokens/s (https://docs.nvidia.com/nim/benchmarking/llm/1.0.0/performance);
  the datasheet ceiling the entry reads it against is 94.97 tokens/s.
- Transformer Engine FP8, GPT-2 XL on one H100 SXM: 490 TFLOPS of the 1,979 dense FP8
  peak (https://github.com/ROCm/TransformerEngine/issues/72).
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

WORDS = {
    "en": {"measured": "measured:", "decode": "measured: 51.67 tokens/s — docs.nvidia.com, "
                                               "2025-06-01",
           "train": "measured: 490 TFLOPS — TransformerEngine#72, 2024-10-17",
           "share": "24.8% of the datasheet's 1,979 TFLOPS",
           "used": "efficiency used: 24.8%, measured (h100-sxm-te-fp8-gpt2xl)"},
    "es": {"measured": "medido:", "decode": "medido: 51,67 tokens/s — docs.nvidia.com, "
                                             "2025-06-01",
           "train": "medido: 490 TFLOPS — TransformerEngine#72, 2024-10-17",
           "share": "24,8 % de los 1979 TFLOPS de la ficha técnica",
           "used": "eficiencia usada: 24,8 %, la medida (h100-sxm-te-fp8-gpt2xl)"},
}


def text_of(app: StudyApp, selector: str) -> str:
    return str(app.screen.query_one(selector, Static).render())


def panes(app: StudyApp) -> str:
    return "\n".join(text_of(app, pane) for pane in
                     ("#fit-result", "#decode-result", "#train-result"))


@pytest.mark.parametrize("lang", ["en", "es"])
async def test_the_panes_show_what_was_measured_on_the_same_setup(app_factory: AppFactory,
                                                                  lang: str) -> None:
    words = WORDS[lang]
    app = app_factory(lang=lang)
    async with app.run_test(size=(120, 60)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen)
                         and app.screen.overview is not None)
        await pilot.press("k")
        await wait_until(pilot, lambda: isinstance(app.screen, CalculatorScreen)
                         and app.screen.catalog is not None)
        await wait_until(pilot, lambda: "TFLOPS" in text_of(app, "#train-result"))
        # Llama 3.1 70B in BF16 on H200: nobody in the catalog measured it
        assert words["measured"] not in panes(app)
        efficiency = app.screen.query_one("#efficiency", Select)
        assert [value for _, value in efficiency._options] == ["typed"]

        app.screen.query_one("#gpu", Select).value = "h100-sxm"
        app.screen.query_one("#dtype", Select).value = "fp8"
        app.screen.query_one("#gpus", Input).value = "2"
        await wait_until(pilot, lambda: words["decode"] in text_of(app, "#decode-result"))
        train = text_of(app, "#train-result")
        assert words["train"] in train and words["share"] in train
        assert words["used"] not in train
        assert words["measured"] not in text_of(app, "#fit-result")
        measured = [label for label, value in efficiency._options if value == "measured"]
        assert len(measured) == 1 and "TransformerEngine#72 2024-10-17" in str(measured[0])
        assert "docs.nvidia.com 2025-06-01" in str(measured[0])

        before = text_of(app, "#train-result")
        decode_before = text_of(app, "#decode-result").split("\n")[0]
        efficiency.value = "measured"
        await wait_until(pilot, lambda: words["used"] in text_of(app, "#train-result"))
        assert text_of(app, "#train-result") != before  # the days follow the measured MFU
        # the decode step streams at the measured share of the bandwidth (54.4%)
        assert text_of(app, "#decode-result").split("\n")[0] != decode_before

        # vLLM's start-up log for Qwen3 235B-A22B FP8 on 4 H100: 178,880 tokens of KV
        # cache (https://github.com/vllm-project/vllm/issues/21348)
        app.screen.query_one("#model", Select).value = "qwen3-235b-a22b"
        app.screen.query_one("#gpus", Input).value = "4"
        await wait_until(pilot, lambda: "vllm#21348, 2025-07-22" in text_of(app, "#fit-result"))
        assert words["measured"] in text_of(app, "#fit-result")
        assert ("178,880" if lang == "en" else "178\u202f880") in text_of(app, "#fit-result")

        app.screen.query_one("#gpus", Input).value = "3"  # no run on 3 GPUs
        await wait_until(pilot, lambda: words["decode"] not in text_of(app, "#decode-result"))
        assert words["measured"] not in text_of(app, "#decode-result")
