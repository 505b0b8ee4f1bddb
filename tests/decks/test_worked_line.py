"""A step without a written explanation: its formula with the values put in and the result
in the step's unit, to three significant figures (never Python's float digits)."""

from __future__ import annotations

from pathlib import Path

import pytest
from deck_texts import write

from studyapp.decks import load_deck
from studyapp.decks.formula import evaluate
from studyapp.decks.worked_line import powers_of_ten, worked_line

# Llama 3 70B was pretrained on over 15T tokens (https://ai.meta.com/blog/meta-llama-3/);
# training compute ≈ 6·N·D = 6 × 70e9 × 15e12 = 6.3e24 FLOP.
TRAINING = """\
deck: training
title: Training
language: en
post: intro
cards:
  - id: flops
    type: scenario
    prompt: "A {p}B model trained on {t}T tokens, on {gpus} GPUs."
    params: {p: 70, t: 15, gpus: 1024}
    parts:
      - name: flop
        prompt: "Training compute, in FLOP?"
        answer: "6 * p * 1e9 * t * 1e12"
        unit: FLOP
      - name: per_gpu
        prompt: "FLOP per GPU?"
        answer: "flop / gpus"
        unit: FLOP
      - name: days
        prompt: "Days at 400 TFLOP/s per GPU?"
        answer: "per_gpu / (400e12 * 86400)"
        unit: days
"""


def line(formula: str, env: dict[str, object], unit: str | None, lang: str = "en",
         steps: dict[str, str | None] | None = None) -> str:
    value = float(evaluate(formula, env))  # type: ignore[arg-type]
    return worked_line(formula, env, value, unit, lang, steps)  # type: ignore[arg-type]


def test_the_training_step_reads_as_a_person_writes_it(tmp_path: Path) -> None:
    question = load_deck(write(tmp_path, TRAINING)).card("flops").instantiate(0, "en")
    assert question.explanation.splitlines() == [
        "1. 6 × 70B × 15T = 6.3 × 10²⁴ FLOP",
        "2. 6.3 × 10²⁴ FLOP / 1,024 = 6.15 × 10²¹ FLOP",
        "3. 6.15 × 10²¹ FLOP / (4 × 10¹⁴ × 86,400) = 178 days",
    ]
    spanish = load_deck(write(tmp_path, TRAINING)).card("flops").instantiate(0, "es")
    assert spanish.explanation.splitlines()[0] == "1. 6 × 70B × 15T = 6,3 × 10²⁴ FLOP"
    assert spanish.explanation.splitlines()[2].endswith("= 178 días")


@pytest.mark.parametrize(("formula", "env", "unit", "shown"), [
    ("weights + users * kv_gb", {"weights": 140.0, "users": 16, "kv_gb": 1.25}, "GB",
     "140 GB + 16 × 1.25 = 160 GB"),
    ("a - (b - c)", {"a": 10, "b": 4, "c": 1}, None, "10 − (4 − 1) = 7"),
    ("(a - b) - c", {"a": 10, "b": 4, "c": 1}, None, "10 − 4 − 1 = 5"),
    ("a / (b * c)", {"a": 10, "b": 4, "c": 1}, None, "10 / (4 × 1) = 2.5"),
    ("(a + b) * c", {"a": 1, "b": 2, "c": 4}, None, "(1 + 2) × 4 = 12"),
    ("2 ** 10 / x", {"x": 4}, "KB", "2¹⁰ / 4 = 256 KB"),
    ("x / 3", {"x": 1}, "s", "1 / 3 = 0.333 s"),
    ("ceil(total / (mem * 0.9))", {"total": 160.0, "mem": 80}, None,
     "ceil(160 GB / (80 × 0.9)) = 3"),
    ("42", {}, "GB", "42 GB"),
])
def test_values_operators_and_brackets(formula: str, env: dict[str, object], unit: str | None,
                                       shown: str) -> None:
    steps = {name: "GB" for name in ("weights", "total") if name in env}
    assert line(formula, env, unit, steps=steps) == shown


def test_a_count_reads_with_its_suffix() -> None:
    """As every answer of a count is shown (70B params), the parser reads it back."""
    assert line("p * 1e9", {"p": 70}, "params") == "70B = 70B params"
    assert line("t * 1e12", {"t": 15}, "tokens") == "15T = 15T tokens"


def test_powers_of_ten_read_as_written() -> None:
    assert powers_of_ten("6.3e24 FLOP") == "6.3 × 10²⁴ FLOP"
    assert powers_of_ten("1e-4 s") == "10⁻⁴ s"
    assert powers_of_ten("3,28e-4 s") == "3,28 × 10⁻⁴ s"
