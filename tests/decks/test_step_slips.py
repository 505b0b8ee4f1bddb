"""A scenario step's authored slips: factor = wrong ÷ right, checked against the step's
numbers at ``path:line:col``, and named before the built-in slips when they match."""

from __future__ import annotations

from pathlib import Path

import pytest
from deck_texts import write

from studyapp.decks import load_deck, validate_paths
from studyapp.questions.scenario import grade_part

DECK = """\
deck: split-weights
title: Split weights
language: en
post: hgx
cards:
  - id: split
    type: scenario
    prompt: "A {params_b}B model in BF16 is split over {gpus} GPUs."
    params:
      params_b: [8, 70]
      gpus: 8
    parts:
      - name: weights
        prompt: "All the weights, in GB?"
        answer: "params_b * 2"
        unit: GB
      - name: per_gpu
        prompt: "Per GPU, in GB?"
        answer: "weights / gpus"
        unit: GB
      - name: read
        prompt: "Bytes all GPUs read per token, in GB?"
        answer: "per_gpu * gpus"
        unit: GB
        slips:
          - {key: one_device, factor: 0.125, answer: "per_gpu"}
"""
SLIP = "          - {key: one_device, factor: 0.125, answer: \"per_gpu\"}\n"


def problems(tmp_path: Path, text: str) -> list[str]:
    return [p.render("en") for p in validate_paths([write(tmp_path, text)])]


def with_slips(*lines: str) -> str:
    if not lines:
        return DECK.replace("        slips:\n" + SLIP, "")
    return DECK.replace(SLIP, "".join(f"          - {line}\n" for line in lines))


def test_the_documented_example_is_clean(tmp_path: Path) -> None:
    assert problems(tmp_path, DECK) == []


def test_a_factor_written_right_over_wrong_says_what_it_would_have_to_be(
        tmp_path: Path) -> None:
    found = problems(tmp_path, with_slips('{key: one_device, factor: 8, answer: "per_gpu"}'))
    # the first draw: params_b=8 → weights 16 GB, per GPU 2 GB; the slip's answer 2 ÷ 16
    assert found == [f"{tmp_path / 'deck.yaml'}:26:13: factor 8 is the wrong way round: "
                     "a factor is the wrong answer ÷ the right one, here 2 GB ÷ 16 GB, so "
                     "the factor would have to be 0.125 (with params_b=8, gpus=8)"]


def test_a_factor_that_does_not_give_the_slips_answer(tmp_path: Path) -> None:
    found = problems(tmp_path, with_slips('{key: one_device, factor: 0.5, answer: "per_gpu"}'))
    assert found == [f"{tmp_path / 'deck.yaml'}:26:13: factor 0.5 does not give the slip's "
                     "answer: 2 GB ÷ 16 GB means the factor would have to be 0.125 "
                     "(with params_b=8, gpus=8)"]


def test_a_factor_inside_the_tolerance_is_refused(tmp_path: Path) -> None:
    found = problems(tmp_path, with_slips("{key: one_device, factor: 1.01}"))
    assert found == [f"{tmp_path / 'deck.yaml'}:26:13: factor 1.01 gives 16.16 GB, within the "
                     "step's tolerance (±2%) of the right 16 GB (with params_b=8, gpus=8): "
                     "a learner making this slip is marked right"]


def test_a_slip_that_is_another_ones_reciprocal_is_refused(tmp_path: Path) -> None:
    found = problems(tmp_path, with_slips("{key: one_device, factor: 0.125}",
                                          "{key: bits, factor: 8, symmetric: true}"))
    assert found == [f"{tmp_path / 'deck.yaml'}:27:13: slip 'bits' (factor 8) gives the same "
                     "answer as slip 'one_device' (factor 0.125): grading could name neither"]


def test_a_slip_answer_that_is_the_right_answer_is_refused(tmp_path: Path) -> None:
    found = problems(tmp_path, with_slips('{key: one_device, factor: 0.125, answer: "read"}'))
    assert found == [f"{tmp_path / 'deck.yaml'}:26:13: the slip's answer 'read' gives 16 GB, "
                     "the right answer itself (with params_b=8, gpus=8): a slip's answer is "
                     "the wrong one"]


def test_an_unknown_name_in_a_slips_answer_is_placed_at_it(tmp_path: Path) -> None:
    found = problems(tmp_path, with_slips('{key: one_device, factor: 0.125, answer: "per_gpus"}'))
    assert len(found) == 1
    assert found[0].startswith(f"{tmp_path / 'deck.yaml'}:26:54: unknown name 'per_gpus'")


def test_the_wrong_way_round_problem_reads_in_spanish(tmp_path: Path) -> None:
    path = write(tmp_path, with_slips('{key: one_device, factor: 8, answer: "per_gpu"}'))
    [problem] = validate_paths([path])
    assert problem.render("es").endswith(
        "el factor 8 está al revés: un factor es la respuesta equivocada ÷ la correcta, "
        "aquí 2 GB ÷ 16 GB, así que el factor tendría que ser 0.125 (con params_b=8, gpus=8)")


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_an_authored_slip_is_named_before_a_built_in_one_with_the_same_value(
        tmp_path: Path, seed: int) -> None:
    """One GPU's share of 8 is also bits read as bytes (÷8), a global slip of every
    quantity in bytes: the step's own slip is the one named."""
    q = load_deck(write(tmp_path, DECK)).card("split").instantiate(seed, "en")
    read = q.parts[2].question
    assert isinstance(read.answer, float)
    verdict = grade_part(q, 2, f"{read.answer / 8:g} GB", []).verdict
    assert verdict.correct is False
    assert verdict.slips == ("one_device",)
    assert "that is for one device" in verdict.message
    # without the authored slip the same answer names the global one
    bare = load_deck(write(tmp_path, with_slips())).card("split").instantiate(seed, "en")
    assert grade_part(bare, 2, f"{read.answer / 8:g} GB", []).verdict.slips == ("bits",)


def test_deck_preview_lists_each_steps_slips_with_the_answer_each_gives(
        tmp_path: Path) -> None:
    """What a class will see: the step's own slip with its message, then the built-in
    ones for a quantity in GB (sign, ×1000, bits, GiB), the one its own slip shadows marked."""
    from click.testing import CliRunner

    from studyapp.cli import main

    path = write(tmp_path, DECK)
    result = CliRunner().invoke(main, ["--lang", "en", "deck", "preview", str(path),
                                       "--seed", "1"])
    assert result.exit_code == 0, result.output
    q = load_deck(path).card("split").instantiate(1, "en")
    assert q.params["params_b"] == 8  # 16 GB in all, 2 GB per GPU
    lines = result.output.splitlines()
    read = lines.index("  3. read [per_gpu]: Bytes all GPUs read per token, in GB?")
    assert lines[read + 1:read + 4] == [
        "     Answer: 16 GB (±2%)",
        "     Slip one_device: 2 GB → Off by ×8: that is for one device; count every device.",
        "     Built-in slips: sign -16 GB; prefix 16,000 GB, 0.016 GB; bits 128 GB, "
        "2 GB (its own slip is named first); binary 17.18 GB, 14.9 GB",
    ]
    weights = lines.index("  1. weights: All the weights, in GB?")
    assert lines[weights + 2] == ("     Built-in slips: sign -16 GB; prefix 16,000 GB, "
                                  "0.016 GB; bits 128 GB, 2 GB; binary 17.18 GB, 14.9 GB")
