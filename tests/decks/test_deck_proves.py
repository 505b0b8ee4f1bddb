"""Validation checks every parameter value that can make a formula fail."""

from __future__ import annotations

from pathlib import Path

from deck_texts import HEADER, write

from studyapp.decks import validate_paths
from studyapp.decks.deck_model import ParamSpec
from studyapp.decks.field_checks import check_combinations, space_size


def _card(answer: str, params: str) -> str:
    return HEADER + f"""\
  - id: c
    type: numeric
    prompt: "p"
    params: {params}
    answer: "{answer}"
"""


def test_zero_position_sweep_finds_every_k(tmp_path: Path) -> None:
    """The zero of a denominator anywhere in the range is found: 100 of 100."""
    found = 0
    for k in range(1, 101):
        problems = validate_paths([write(tmp_path, _card(f"1 / abs(n - {k})",
                                                         "{n: {min: 1, max: 100}}"))])
        if any(f"n={k}" in p.message for p in problems):
            found += 1
    assert found == 100


def test_zero_in_a_large_space_is_found_by_the_sweep(tmp_path: Path) -> None:
    """Beyond 10^5 combinations each parameter is swept with the others at their ends."""
    params = "{n: {min: 0, max: 100000}, m: {min: 1, max: 1000}}"
    problems = validate_paths([write(tmp_path, _card("m / abs(n - 31337)", params))])
    assert any("n=31337" in p.message for p in problems), problems


def test_two_parameter_zero_found_exhaustively(tmp_path: Path) -> None:
    params = "{a: {min: 1, max: 300}, b: {min: 1, max: 300}}"
    problems = validate_paths([write(tmp_path, _card("1 / abs(a * b - 4187)", params))])
    # 4187 = 53 * 79: only the full product meets it
    assert any("a=53" in p.message and "b=79" in p.message for p in problems), problems


def test_small_space_is_every_combination() -> None:
    params = {"a": ParamSpec(kind="range", start=1, stop=50), "b": ParamSpec(kind="pick",
                                                                            values=(1, 2, 3))}
    combos = list(check_combinations(params))
    assert space_size(params) == 150
    assert len({(c["a"], c["b"]) for c in combos}) == 150


def test_formulas_are_checked_only_over_the_names_they_read(tmp_path: Path) -> None:
    """An unrelated large parameter does not multiply the work (fast, still exhaustive)."""
    params = "{n: {min: 1, max: 100}, big: {min: 0, max: 999999}}"
    problems = validate_paths([write(tmp_path, _card("1 / abs(n - 77)", params))])
    assert any("n=77" in p.message for p in problems)
