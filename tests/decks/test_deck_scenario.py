"""Authored scenarios: ``type: scenario`` with ``parts:``, checked at ``path:line:col``."""

from __future__ import annotations

from pathlib import Path

import pytest

from studyapp.decks import DeckError, load_deck
from studyapp.questions.model import Kind
from studyapp.questions.scenario import grade_part

GOOD = """\
deck: serving-drill
title: Serving drill
language: en
post: hgx
cards:
  - id: serve
    type: scenario
    prompt: "Serve {params_b}B in BF16 to {users} users, {kv_gb} GB of KV each, on {gpu.name}."
    params:
      params_b: [8, 70]
      users: [16, 32, 64]
      kv_gb: 1.25
      gpu: {from: accelerators, where: {id: [h100-sxm, h200-sxm]}}
    parts:
      - name: weights
        prompt: "Weights, in GB?"
        answer: "params_b * 2"
        unit: GB
        method: "Parameters × 2 bytes."
        explanation: "{params_b}B × 2 B = {answer} GB"
        slips: [{key: dtype_bytes, factor: 2, symmetric: true}]
      - name: total
        prompt: "Weights and every user's KV cache, in GB?"
        answer: "weights + users * kv_gb"
        unit: GB
        explanation: "{weights} GB + {users} × {kv_gb} GB = {answer} GB"
      - name: gpus
        prompt: "Fewest GPUs, 90% of memory usable?"
        answer: "ceil(total / (gpu.memory_gb * 0.9))"
        tolerance: 0
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "deck.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_an_authored_scenario_chains_its_steps(tmp_path: Path) -> None:
    card = load_deck(write(tmp_path, GOOD)).card("serve")
    assert card.type == "scenario" and card.is_template
    q = card.instantiate(3, "en")
    assert q.kind is Kind.SCENARIO and [p.name for p in q.parts] == ["weights", "total", "gpus"]
    assert [p.uses for p in q.parts] == [(), ("weights",), ("total",)]
    params_b, users = q.params["params_b"], q.params["users"]
    assert q.parts[0].question.answer == params_b * 2
    assert q.parts[1].question.answer == pytest.approx(params_b * 2 + users * 1.25)
    assert q.parts[0].method == "Parameters × 2 bytes."
    assert q.explanation.splitlines()[1] == (
        f"2. {params_b * 2:g} GB + {users} × 1.25 GB = {params_b * 2 + users * 1.25:g} GB")
    # error carried forward works for authored steps too
    first = grade_part(q, 0, f"{params_b * 3} GB", [])
    assert first.correct is False
    second = grade_part(q, 1, f"{params_b * 3 + users * 1.25:g}", [first])
    assert second.carried and "Right from your" in second.verdict.message
    slip = grade_part(q, 0, f"{params_b} GB", [])
    assert "dtype_bytes" in slip.verdict.slips


def test_a_bad_step_formula_is_reported_at_its_line(tmp_path: Path) -> None:
    bad = GOOD.replace('answer: "weights + users * kv_gb"', 'answer: "wieghts + users * kv_gb"')
    with pytest.raises(DeckError) as caught:
        load_deck(write(tmp_path, bad))
    [problem] = caught.value.problems
    text = problem.render("en")
    assert text.startswith(f"{tmp_path / 'deck.yaml'}:24:17: unknown name 'wieghts'")
    assert "did you mean 'weights'" in text


def test_a_step_that_uses_a_later_step_is_refused(tmp_path: Path) -> None:
    bad = GOOD.replace('answer: "params_b * 2"', 'answer: "total / 2"')
    with pytest.raises(DeckError) as caught:
        load_deck(write(tmp_path, bad))
    assert ":17:17: unknown name 'total'" in caught.value.problems[0].render("en")


def test_a_step_failing_for_some_draw_names_the_values(tmp_path: Path) -> None:
    bad = GOOD.replace('answer: "weights + users * kv_gb"', 'answer: "weights / (users - 16)"')
    with pytest.raises(DeckError) as caught:
        load_deck(write(tmp_path, bad))
    text = caught.value.problems[0].render("en")
    assert ":24:17: " in text and "users=16" in text


def test_unknown_slips_and_too_few_steps(tmp_path: Path) -> None:
    bad = GOOD.replace("key: dtype_bytes", "key: dtype_byte")
    with pytest.raises(DeckError) as caught:
        load_deck(write(tmp_path, bad))
    assert "unknown slip 'dtype_byte'; did you mean 'dtype_bytes'" in \
        caught.value.problems[0].render("en")
    short = GOOD[: GOOD.index("      - name: gpus")]
    with pytest.raises(DeckError) as caught:
        load_deck(write(tmp_path, short))
    assert ":15:7: needs at least 3" in caught.value.problems[0].render("en")


def test_deck_preview_lists_the_steps_and_validate_names_the_bad_line(tmp_path: Path) -> None:
    """What the instructor runs: `deck preview` shows each step with the earlier steps it
    uses and its answer; `deck validate` reports a bad step formula at path:line:col, exit 1."""
    from click.testing import CliRunner

    from studyapp.cli import main

    runner = CliRunner()
    path = write(tmp_path, GOOD)
    result = runner.invoke(main, ["--lang", "en", "deck", "preview", str(path), "--seed", "3"])
    assert result.exit_code == 0, result.output
    q = load_deck(path).card("serve").instantiate(3, "en")
    lines = result.output.splitlines()
    assert "  1. weights: Weights, in GB?" in lines
    assert "  2. total [weights]: Weights and every user's KV cache, in GB?" in lines
    assert "  3. gpus [total]: Fewest GPUs, 90% of memory usable?" in lines
    assert f"     Answer: {q.parts[1].question.answer:g} GB (±2%)" in lines
    bad = write(tmp_path, GOOD.replace('"weights + users * kv_gb"', '"wieghts + users * kv_gb"'))
    result = runner.invoke(main, ["--lang", "en", "deck", "validate", str(bad)])
    assert result.exit_code == 1
    assert f"{bad}:24:17: unknown name 'wieghts'" in result.output
    assert "Traceback" not in result.output
