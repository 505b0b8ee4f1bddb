"""One number formatter for every face: ``studyapp calc``'s plain text, the
calculator screen and the questions write the same published figures the same
way in each language (decimal comma and thin-space thousands in Spanish).

Figures:
- H200 SXM: 141 GB, 4.8 TB/s
  (https://raw.githubusercontent.com/mlcommons/inference_results_v4.1/main/closed/NVIDIA/systems/H200-SXM-141GBx8_TRT_MaxQ.json,
  https://www.nvidia.com/en-us/data-center/h200/).
- Llama 3.1 70B: 80 layers, 8 KV heads, head_dim 128, so 2 · 80 · 8 · 128 · 2 B =
  327,680 B of BF16 KV cache per token
  (https://huggingface.co/meta-llama/Llama-3.1-70B/blob/main/config.json).
- H100 SXM BF16 dense 989 TFLOPS (https://glennklockwood.com/garden/processors/h100):
  6 · 70e9 · 15e12 FLOP at 40 % MFU on one GPU is 1.5925e10 s = 184,319 days,
  4.42e6 GPU-hours.
"""

from __future__ import annotations

import pytest

from studyapp.numbers import THIN_SPACE, format_count, format_figure, format_number
from studyapp.questions.formatting import format_quantity
from studyapp.questions.units import parse_quantity
from studyapp.tui.screens.calculator import number

T = THIN_SPACE
DAYS = 6 * 70e9 * 15e12 / (989e12 * 0.4) / 86400  # 184,319.2 days
GPU_HOURS = DAYS * 24  # 4.42e6
KV_PER_TOKEN = 2 * 80 * 8 * 128 * 2  # 327,680 bytes


@pytest.mark.parametrize(("value", "en", "es"), [
    (141.0, "141", "141"),  # H200 memory, GB
    (4.8, "4.8", "4,8"),  # H200 bandwidth, TB/s
    (DAYS, "184,319", f"184{T}319"),  # whole from 1,000 on
    (GPU_HOURS, "4.42e+06", "4,42e6"),  # scientific from a million on
    (140e9 / 141e9 * 100, "99.3", "99,3"),  # 70B BF16 weights as a share of an H200
    (-16.2, "-16.2", "-16,2"),  # a negative margin keeps its sign
])
def test_calc_command_writes_published_figures(value: float, en: str, es: str) -> None:
    assert format_figure(value, "en") == en
    assert format_figure(value, "es") == es


@pytest.mark.parametrize(("value", "en", "es"), [
    (KV_PER_TOKEN, "327680", f"327{T}680"),  # English counts stay as written before
    (8192, "8192", "8192"),  # four digits stay whole in Spanish (RAE)
])
def test_calc_command_writes_counts_ungrouped_in_english(value: int, en: str, es: str) -> None:
    assert format_count(value, "en", grouping=False) == en
    assert format_count(value, "es", grouping=False) == es


@pytest.mark.parametrize(("value", "en", "es"), [
    (141.0, "141", "141"),
    (KV_PER_TOKEN * 8192 / 1e9, "2.68", "2,68"),  # 8192 tokens of Llama 3.1 70B KV, GB
    (4.8e12 / 140e9, "34.3", "34,3"),  # 70B BF16 weights read once a token at 4.8 TB/s
    (DAYS, "184,319", f"184{T}319"),
    (GPU_HOURS, "4,423,660", f"4{T}423{T}660"),  # the screen keeps whole numbers longer
    (6 * 70e9 * 15e12, "6.3e+24", "6,3e24"),  # training FLOP
    (KV_PER_TOKEN / 1e9, "0.000328", "3,28e-4"),  # one token's KV cache in GB
])
def test_calculator_screen_writes_published_figures(value: float, en: str, es: str) -> None:
    assert number(value, "en") == en
    assert number(value, "es") == es


def test_calculator_screen_groups_counts() -> None:
    assert format_count(8192, "en") == "8,192"
    assert format_count(131072, "es") == f"131{T}072"


def test_questions_write_the_same_numbers() -> None:
    assert format_number(141, "es") == "141"
    assert format_number(KV_PER_TOKEN * 8192 / 1e9, "es") == "2,68"
    assert format_quantity(4.8, "TB/s", "es") == "4,8 TB/s"
    assert format_quantity(70e9, "params", "en") == "70B params"


@pytest.mark.parametrize("value", [4.8, DAYS, GPU_HOURS, KV_PER_TOKEN / 1e9, -16.2])
@pytest.mark.parametrize("lang", ["en", "es"])
def test_a_figure_reads_back_in_its_language(value: float, lang: str) -> None:
    shown = format_figure(value, lang)
    assert parse_quantity(shown, lang=lang).value == pytest.approx(value, rel=5e-3)


@pytest.mark.parametrize(("value", "en", "es"), [
    # Llama 3.1 70B has 70.55B parameters (its config); 1 byte each in FP8 is 70.55 GB,
    # which a learner rounds to 70.6, while the binary float 70.5499… would give 70.5.
    (70.55, "70.6", "70,6"),
    (-70.55, "-70.6", "-70,6"),
    (2.675, "2.68", "2,68"),
    (0.1235, "0.124", "0,124"),
])
def test_halves_round_away_from_zero_as_read(value: float, en: str, es: str) -> None:
    assert format_number(value, "en") == en
    assert format_number(value, "es") == es


def test_whole_figures_round_halves_up() -> None:
    assert format_figure(2500.5, "en") == "2,501"
    assert format_figure(4_425_000.0, "en") == "4.43e+06"


def test_the_largest_float_is_written_not_refused() -> None:
    assert format_number(1.7976931348623157e308, "en") == "1.8e308"
    assert format_figure(-1.7976931348623157e308, "es") == "-1,8e308"
