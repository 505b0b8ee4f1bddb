"""Money and counted things are units: ``$``, ``€``, ``requests``, ``users``, ``tokens``."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from studyapp.cli import main
from studyapp.questions.grading import grade
from studyapp.questions.model import Kind, Question, Tolerance
from studyapp.questions.units import (
    COUNT,
    EUR,
    REQUEST_RATE,
    REQUESTS,
    TOKENS,
    USD,
    USD_RATE,
    USERS,
    parse_quantity,
    resolve_unit,
    unit_entries,
)


def numeric(answer: float, unit: str | None, lang: str = "en") -> Question:
    return Question(kind=Kind.NUMERIC, post="h200", prompt="?", explanation="", answer=answer,
                    unit=unit, tolerance=Tolerance(relative=0.02), lang=lang)


@pytest.mark.parametrize(("text", "lang", "expect", "value", "dimension"), [
    ("$3", "en", USD, 3.0, USD),
    ("3 $", "en", USD, 3.0, USD),
    ("$3.5M", "en", USD, 3.5e6, USD),
    ("2.5M USD", "en", USD, 2.5e6, USD),
    ("-$4", "en", USD, -4.0, USD),
    ("€1,5", "es", EUR, 1.5, EUR),
    ("12 euros", "es", EUR, 12.0, EUR),
    ("300 requests", "en", REQUESTS, 300.0, REQUESTS),
    ("2k peticiones", "es", REQUESTS, 2000.0, REQUESTS),
    ("20 req/s", "en", REQUEST_RATE, 20.0, REQUEST_RATE),
    ("12 requests per second", "en", REQUEST_RATE, 12.0, REQUEST_RATE),
    ("1.2M users", "en", USERS, 1.2e6, USERS),
    ("8K tokens", "en", TOKENS, 8000.0, TOKENS),
    ("64 users", "en", COUNT, 64.0, COUNT),  # a plain "how many" still takes it
])
def test_money_and_counts_read_as_units(text: str, lang: str, expect: str, value: float,
                                        dimension: str) -> None:
    quantity = parse_quantity(text, lang, expect)
    assert quantity.value == pytest.approx(value)
    assert quantity.dimension == dimension


@pytest.mark.parametrize("unit", ["$", "€", "requests", "tokens", "users", "USD", "requests/s"])
def test_a_card_may_name_them(unit: str) -> None:
    resolve_unit(unit)  # no UnknownUnit


@pytest.mark.parametrize(("unit", "answer", "typed", "said"), [
    ("$", 12.0, "12 €", "That is an amount in euros; the question asks for an amount in"
                        " dollars ($)."),
    ("requests", 300.0, "300 users", "That is a number of users; the question asks for a number"
                                     " of requests (requests)."),
    ("users", 50.0, "50 GB", "That is a size; the question asks for a number of users (users)."),
])
def test_an_answer_in_the_wrong_unit_still_says_so(unit: str, answer: float, typed: str,
                                                   said: str) -> None:
    verdict = grade(numeric(answer, unit), typed)
    assert verdict.retry and verdict.correct is None
    assert verdict.message == said


@pytest.mark.parametrize(("unit", "typed"), [("$", "$12"), ("$", "12 dollars"), ("€", "€12"),
                                             ("requests", "12 requests"), ("users", "12")])
def test_the_right_amount_is_right(unit: str, typed: str) -> None:
    assert grade(numeric(12.0, unit), typed).correct


def test_every_unit_is_listed_with_its_dimension_and_names() -> None:
    entries = {entry.symbol: entry for entry in unit_entries()}
    assert entries["$"].dimension == USD and "dollars" in entries["$"].aliases
    assert entries["GB"].dimension == "size" and "gigabytes" in entries["GB"].aliases
    assert entries["Gb"].dimension == "size" and "gigabits" in entries["Gb"].aliases
    assert {"$", "€", "requests", "tokens", "users"} <= set(entries)


@pytest.mark.parametrize(("lang", "header", "money"), [
    ("en", "Units that a numeric card's `unit:` may name", "money (US dollars)"),
    ("es", "Unidades que puede nombrar", "dinero (dólares)"),
])
def test_deck_validate_units_lists_them_in_the_learners_language(
        lang: str, header: str, money: str) -> None:
    result = CliRunner().invoke(main, ["--lang", lang, "deck", "validate", "--units"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith(header)
    dollar = next(line for line in lines if line.startswith("$ "))
    assert money in dollar and "USD" in dollar
    assert any(line.startswith("Gb ") and "gigabit" in line for line in lines)


def test_deck_validate_without_paths_or_units_is_a_usage_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["--lang", "en", "deck", "validate"])
    assert result.exit_code == 2


# A GPU-hour price times the GPUs is dollars an hour (the cost scenario's fourth step).
@pytest.mark.parametrize(("text", "lang"), [
    ("6 USD/h", "en"), ("$6/h", "en"), ("6 $/h", "en"), ("$6 per hour", "en"),
    ("$6 an hour", "en"), ("6 dollars an hour", "en"), ("0.1 $/min", "en"), ("$0.1/min", "en"),
    ("6 dólares por hora", "es"), ("6 dólares a la hora", "es"), ("6 $/h", "es"),
])
def test_money_an_hour_is_a_rate(text: str, lang: str) -> None:
    q = parse_quantity(text, lang, USD_RATE)
    assert q.dimension == USD_RATE
    assert q.value == pytest.approx(6 / 3600)


@pytest.mark.parametrize("typed", ["$6", "6 $", "6 dollars", "6", "$6/h", "144 $/day"])
def test_an_hourly_cost_in_dollars_takes_the_amount_or_the_rate(typed: str) -> None:
    verdict = grade(numeric(6.0, "USD/h"), typed)
    assert verdict.correct is True, verdict.message


@pytest.mark.parametrize(("typed", "named"), [("6 €/h", "euros"), ("6 GB", "size"),
                                              ("$6/GB", "")])
def test_an_hourly_cost_in_other_units_is_asked_again(typed: str, named: str) -> None:
    verdict = grade(numeric(6.0, "USD/h"), typed)
    assert verdict.correct is None and verdict.retry
    assert named in verdict.message


def test_a_million_dollars_an_hour_keeps_its_multiplier() -> None:
    assert parse_quantity("$3.5M/h", "en", USD_RATE).value == pytest.approx(3.5e6 / 3600)
