"""Formulas, templates, parameters and tolerances stay within bounds: a deck that asks for
a number past them is refused at ``path:line:col`` when it is checked, quickly and without
a traceback, by ``deck validate`` and ``deck preview`` alike."""

from __future__ import annotations

import math
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from deck_texts import HEADER, write

from studyapp.cli import main
from studyapp.decks import validate_paths
from studyapp.decks.formula import (
    MAX_MAGNITUDE,
    FormulaError,
    evaluate,
    format_value,
    number,
    parse_template,
    render,
)


@pytest.mark.parametrize("formula", [
    "10 ** 1000",
    "ceil(1e308) * ceil(1e308)",
    "1e308",
    "10 ** 31",
    "-(10 ** 31)",
    "1e30 * 10",
    "exp(700)",
    "2.0 ** 200",
    "big + 1",
    "huge / 1",
    "nan + 1",
    "inf - 1",
])
def test_numbers_past_the_bound_are_refused(formula: str) -> None:
    names = {"big": 10**40, "huge": 1e300, "nan": math.nan, "inf": math.inf}
    start = time.monotonic()
    with pytest.raises(FormulaError) as info:
        evaluate(formula, names)
    assert time.monotonic() - start < 1
    text = str(info.value)
    assert "too large" in text or "overflows" in text or "inf/NaN" in text, text


def test_numbers_up_to_the_bound_are_kept() -> None:
    assert MAX_MAGNITUDE == 1e30
    assert evaluate("10 ** 30", {}) == 10**30
    assert evaluate("-1e30", {}) == -1e30
    # the largest figures of the field (training compute, ~4e25 FLOPs) fit with room
    assert evaluate("6 * params * tokens", {"params": 405e9, "tokens": 15.6e12}) == pytest.approx(
        3.79e25, rel=1e-2)


def test_an_answer_too_large_for_a_float_is_named_not_raised() -> None:
    with pytest.raises(FormulaError, match="too large"):
        number(10**400)
    with pytest.raises(FormulaError, match="too large"):
        number(1e300)


@pytest.mark.parametrize("template", ["{10**1000:e}", "{10**1000:,}", "{1e308:f}",
                                      "{x * 1e30:.3f}"])
def test_a_template_never_prints_a_number_past_the_bound(template: str) -> None:
    with pytest.raises(FormulaError, match="too large"):
        render(template, {"x": 1e5})


@pytest.mark.parametrize("template", ["{x:.5000f}", "{x:10000}", "{x:>1000,.2f}"])
def test_format_specs_that_print_thousands_of_characters_are_refused(template: str) -> None:
    with pytest.raises(FormulaError, match="asks for more than 100 characters"):
        parse_template(template)


def test_a_value_past_the_bound_is_named_in_a_few_characters() -> None:
    assert format_value(10**1000) == "1.0e+1000"
    assert format_value(-(10**45) * 7) == "-7.0e+45"
    assert format_value(1e300) == "1e+300"
    assert len(format_value(1e29)) < 40  # within the bound: written out as before


def _card(body: str) -> str:
    return HEADER + "  - id: a\n    type: numeric\n" + body


CASES = [
    # (id, card body, line, col, words)
    ("power", '    prompt: "p"\n    answer: "10**1000"\n', 9, 13, "too large"),
    ("ceil squared", '    prompt: "p"\n    answer: "ceil(1e308)*ceil(1e308)"\n', 9, 13,
     "too large"),
    ("format of a huge power", '    prompt: "What {10**1000:e}?"\n    answer: "1"\n', 8, 13,
     "too large"),
    ("long precision", '    prompt: "What {x:.5000f}?"\n    params:\n      x: [1, 2]\n'
     '    answer: "1"\n', 8, 13, "asks for more than 100 characters"),
    ("wide field", '    prompt: "What {x:10000}?"\n    params:\n      x: [1, 2]\n'
     '    answer: "1"\n', 8, 13, "asks for more than 100 characters"),
    ("tiny step", '    prompt: "p {x}"\n    params:\n      x: {min: 0, max: 1, step: 1.0e-308}\n'
     '    answer: "x"\n', 10, 10, "more than 1000000 values"),
    ("subnormal step", '    prompt: "p {x}"\n    params:\n'
     '      x: {min: 0, max: 1, step: 5.0e-324}\n    answer: "x"\n', 10, 10,
     "more than 1000000 values"),
    ("widest range", '    prompt: "p {x}"\n    params:\n'
     '      x: {min: -1.0e+30, max: 1.0e+30, step: 1.0e-300}\n    answer: "x"\n', 10, 10,
     "more than 1000000 values"),
    ("range past the bound", '    prompt: "p {x}"\n    params:\n'
     '      x: {min: 0, max: 1.0e+300, step: 1.0e+290}\n    answer: "x"\n', 10, 10,
     "at most 1e+30"),
    ("infinite pick", '    prompt: "p {x}"\n    params:\n      x: [1, .inf]\n'
     '    answer: "x"\n', 10, 10, "finite"),
    ("nan constant", '    prompt: "p {x}"\n    params:\n      x: .nan\n'
     '    answer: "x"\n', 10, 10, "finite"),
    ("huge constant", '    prompt: "p {x}"\n    params:\n      x: 1.0e+300\n'
     '    answer: "x * x"\n', 10, 10, "at most 1e+30"),
    ("percent past everything", '    prompt: "p"\n    answer: "3"\n    tolerance: 1e308%\n',
     10, 16, "a relative tolerance is at most 50%"),
    ("percent too wide", '    prompt: "p"\n    answer: "3"\n    tolerance: 60%\n', 10, 16,
     "a relative tolerance is at most 50%"),
    ("absolute past the bound", '    prompt: "p"\n    answer: "3"\n    tolerance: 1.0e+308\n',
     10, 16, "up to 1e+30"),
    ("absolute as text", '    prompt: "p"\n    answer: "3"\n    tolerance: "1e308"\n', 10, 16,
     "up to 1e+30"),
    ("absolute in another unit", '    prompt: "p"\n    answer: "3"\n    unit: GB\n'
     '    tolerance: 1e999 MB\n', 11, 16, "up to 1e+30"),
    ("infinite tolerance", '    prompt: "p"\n    answer: "3"\n    tolerance: .inf\n', 10, 16,
     "up to 1e+30"),
]


@pytest.mark.parametrize(("body", "line", "col", "words"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_each_bound_is_a_problem_at_its_position(tmp_path: Path, body: str, line: int,
                                                 col: int, words: str) -> None:
    start = time.monotonic()
    found = validate_paths([write(tmp_path, _card(body))])
    assert time.monotonic() - start < 10
    assert len(found) == 1, "\n".join(map(str, found))
    assert (found[0].line, found[0].col) == (line, col), str(found[0])
    assert words in found[0].message


@pytest.mark.parametrize("tolerance", ["50%", "0", "0%", "2%", "0.5", "1e30"])
def test_sane_tolerances_are_kept(tmp_path: Path, tolerance: str) -> None:
    body = f'    prompt: "p"\n    answer: "3"\n    tolerance: {tolerance}\n'
    assert validate_paths([write(tmp_path, _card(body))]) == []


@pytest.mark.parametrize("command", ["validate", "preview"])
@pytest.mark.parametrize("case", [c for c in CASES if c[0] in {
    "power", "ceil squared", "format of a huge power", "tiny step", "percent past everything"}],
    ids=lambda c: c[0])
def test_validate_and_preview_say_where_without_a_traceback(
        tmp_path: Path, command: str, case: tuple[str, str, int, int, str]) -> None:
    _, body, line, col, words = case
    path = write(tmp_path, _card(body))
    result = CliRunner().invoke(main, ["--lang", "en", "deck", command, str(path)])
    assert result.exit_code == 1, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert f"{path}:{line}:{col}: " in result.output and words in result.output
    assert "Traceback" not in result.output


def test_the_spanish_words_of_a_bound(tmp_path: Path) -> None:
    path = write(tmp_path, _card('    prompt: "p"\n    answer: "10**1000"\n'))
    result = CliRunner().invoke(main, ["--lang", "es", "deck", "validate", str(path)])
    assert "demasiado grande" in result.output and "1.0e+1000" in result.output
