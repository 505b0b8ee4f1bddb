"""Units and numbers as learners type them: tables of what each reads as."""

from __future__ import annotations

import math

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from studyapp.questions.formatting import THIN_SPACE, format_number, format_quantity
from studyapp.questions.grading import grade
from studyapp.questions.model import Kind, Question
from studyapp.questions.units import (
    AmbiguousUnit,
    DimensionMismatch,
    UnitError,
    UnknownUnit,
    UnparsableAnswer,
    convert,
    dimension_of,
    parse_number,
    parse_quantity,
)

GB = 1e9


@pytest.mark.parametrize(
    ("text", "lang", "expect", "value", "dimension"),
    [
        ("140", "en", None, 140, None),
        ("140 GB", "en", None, 140 * GB, "size"),
        ("140GB", "en", None, 140 * GB, "size"),
        ("1.4e11 B", "en", None, 1.4e11, "size"),
        ("1,4e11 B", "es", None, 1.4e11, "size"),
        ("1.4 × 10^11 B", "en", None, 1.4e11, "size"),
        ("1.4·10¹¹ B", "en", None, 1.4e11, "size"),
        ("130.4 GiB", "en", None, 130.4 * 2**30, "size"),
        ("1 TiB", "en", None, 2**40, "size"),
        ("8 Gb", "en", None, 1 * GB, "size"),
        ("8 Gbit", "en", None, 1 * GB, "size"),
        ("1 kB", "en", None, 1000, "size"),
        ("1 KB", "en", None, 1000, "size"),
        ("3 gigabytes", "en", None, 3 * GB, "size"),
        ("50 GB/s", "en", None, 50 * GB, "bandwidth"),
        ("400 Gb/s", "en", None, 50 * GB, "bandwidth"),
        ("400 Gbps", "en", None, 50 * GB, "bandwidth"),
        ("400 gbps", "en", None, 50 * GB, "bandwidth"),
        ("50 GBps", "en", None, 50 * GB, "bandwidth"),
        ("50 GB per second", "en", None, 50 * GB, "bandwidth"),
        ("50 GB por segundo", "es", None, 50 * GB, "bandwidth"),
        ("4.8 TB/s", "en", None, 4.8e12, "bandwidth"),
        ("1 GiB/s", "en", None, 2**30, "bandwidth"),
        ("3.2 ms", "en", None, 3.2e-3, "time"),
        ("3,2 ms", "es", None, 3.2e-3, "time"),
        ("12 h", "en", None, 12 * 3600, "time"),
        ("12h", "en", None, 12 * 3600, "time"),
        ("2 days", "en", None, 2 * 86400, "time"),
        ("2 días", "es", None, 2 * 86400, "time"),
        ("1 week", "en", None, 7 * 86400, "time"),
        ("5 µs", "en", None, 5e-6, "time"),
        ("5 us", "en", None, 5e-6, "time"),
        ("90 min", "en", None, 5400, "time"),
        ("1 h 30 min", "en", None, 5400, "time"),
        ("1h30min", "en", None, 5400, "time"),
        ("2 días y 3 h", "es", None, 183600, "time"),
        ("989 TFLOPS", "en", None, 989e12, "flop_rate"),
        ("989 TFLOP/s", "en", None, 989e12, "flop_rate"),
        ("989 TFLOPs", "en", "flop_rate", 989e12, "flop_rate"),
        ("6e23 FLOP", "en", None, 6e23, "flop"),
        ("6e23 FLOPs", "en", "flop", 6e23, "flop"),
        ("3.6 ZFLOP", "en", None, 3.6e21, "flop"),
        ("1.2 kW", "en", None, 1200, "power"),
        ("1,2 kW", "es", None, 1200, "power"),
        ("700 W", "en", None, 700, "power"),
        ("10 kWh", "en", None, 3.6e7, "energy"),
        ("70B params", "en", None, 70e9, "params"),
        ("70B", "en", "params", 70e9, "params"),
        ("70 billion", "en", "params", 70e9, "params"),
        ("70 mil millones", "es", "params", 70e9, "params"),
        ("1 billón", "es", "tokens", 1e12, "tokens"),
        ("1.5T tokens", "en", None, 1.5e12, "tokens"),
        ("15T", "en", "tokens", 15e12, "tokens"),
        ("1,2k tokens/s", "es", None, 1200, "token_rate"),
        ("3M", "en", "token_rate", 3e6, "token_rate"),
        ("8 GPUs", "en", "count", 8, "count"),
        ("8k GPUs", "en", "count", 8000, "count"),
        ("3.5x", "en", None, 3.5, "ratio"),
        ("40%", "en", None, 0.4, "ratio"),
        ("70B", "en", "size", 70, "size"),  # B is a byte unless a count is expected
        ("70B", "en", None, 70, "size"),
    ],
)
def test_parse_quantity(
    text: str, lang: str, expect: str | None, value: float, dimension: str | None
) -> None:
    q = parse_quantity(text, lang, expect)
    assert q.dimension == dimension
    assert math.isclose(q.value, value, rel_tol=1e-12)


@pytest.mark.parametrize(
    ("text", "lang", "value", "alternative"),
    [
        ("1,5", "es", 1.5, None),
        ("1,5", "en", 1.5, None),  # a comma before one digit cannot group thousands
        ("1.5", "es", 1.5, None),
        ("1.234,5", "es", 1234.5, None),
        ("1.234,5", "en", 1234.5, None),  # both marks: the structure decides
        ("1,234.5", "en", 1234.5, None),
        ("1,234.5", "es", 1234.5, None),
        ("1 234,5", "es", 1234.5, None),
        (f"1{THIN_SPACE}234,5", "es", 1234.5, None),
        ("1\u00a0234.5", "en", 1234.5, None),
        ("12 345 678", "en", 12345678, None),
        ("1,500", "en", 1500, 1.5),  # the language's convention, other reading kept
        ("1,234", "es", 1.234, 1234),
        ("1.234", "es", 1234, 1.234),
        ("1.234", "en", 1.234, 1234),
        ("1.234.567", "es", 1234567, None),
        ("1,234,567", "en", 1234567, None),
        ("0,500", "en", 0.5, None),  # a leading zero group is never thousands
        ("1234,567", "en", 1234.567, None),  # a 4-digit group is never thousands
        (".5", "en", 0.5, None),
        (",5", "es", 0.5, None),
        ("-3.2", "en", -3.2, None),
        ("−3,2", "es", -3.2, None),
        ("~140", "en", 140, None),
        ("1.234e3", "es", 1234, None),  # before an exponent one mark is decimal
        ("1,234e3", "en", 1234, None),
    ],
)
def test_parse_number(text: str, lang: str, value: float, alternative: float | None) -> None:
    got, other, rest = parse_number(text, lang)
    assert rest == ""
    assert math.isclose(got, value, rel_tol=1e-12)
    if alternative is None:
        assert other is None
    else:
        assert other is not None and math.isclose(other, alternative, rel_tol=1e-12)


@pytest.mark.parametrize(
    "text",
    ["", "abc", "GB", "1,23.4", "1.2,3", "2 3000", "1 23", "1.2.3", "1e999", "1e99999999", "--5"],
)
def test_unparsable(text: str) -> None:
    with pytest.raises(UnparsableAnswer):
        parse_quantity(text, "en")


@pytest.mark.parametrize(
    ("text", "candidates"),
    [
        ("5 gb", {"GB", "Gb"}),  # all lowercase: byte or bit is not guessed
        ("5 mb", {"MB", "Mb"}),
        ("5 kb", {"KB", "Kb"}),
        ("5 gb/s", {"GB/s", "Gb/s"}),
        ("5 mw", {"mW", "MW"}),
        ("5 tflops", {"TFLOP", "TFLOP/s"}),
    ],
)
def test_ambiguous_units(text: str, candidates: set[str]) -> None:
    with pytest.raises(AmbiguousUnit) as info:
        parse_quantity(text, "en")
    assert set(info.value.candidates) == candidates


def test_context_settles_flops_casing() -> None:
    assert parse_quantity("5 tflops", "en", "flop_rate").dimension == "flop_rate"
    assert parse_quantity("5 tflops", "en", "flop").dimension == "flop"


def test_other_casing_when_unique() -> None:
    assert parse_quantity("3 MS", "en").value == pytest.approx(3e-3)
    assert parse_quantity("3 KW", "en").value == 3000
    assert parse_quantity("3 GB/S", "en").value == 3e9


def test_unknown_unit() -> None:
    with pytest.raises(UnknownUnit) as info:
        parse_quantity("5 furlongs", "en", "size")
    assert info.value.unit == "furlongs"


@pytest.mark.parametrize(
    ("value", "source", "target", "result"),
    [
        (50, "GB/s", "Gb/s", 400),  # NVLink-style figures: bytes vs bits per second
        (140, "GB", "GiB", 140e9 / 2**30),
        (1, "day", "h", 24),
        (989, "TFLOPS", "PFLOP/s", 0.989),
        (1.2, "kW", "W", 1200),
        (1, "PFLOP/s-day", "FLOP", 8.64e19),
    ],
)
def test_convert(value: float, source: str, target: str, result: float) -> None:
    assert convert(value, source, target) == pytest.approx(result)


def test_convert_refuses_other_dimension() -> None:
    with pytest.raises(DimensionMismatch):
        convert(1, "GB/s", "GB")


@pytest.mark.parametrize(
    ("unit", "dimension"),
    [
        ("GB", "size"),
        ("Gb/s", "bandwidth"),
        ("ms", "time"),
        ("TFLOPS", "flop_rate"),
        ("FLOP", "flop"),
        ("kW", "power"),
        ("tokens/s", "token_rate"),
        ("params", "params"),
        ("%", "ratio"),
    ],
)
def test_dimension_of(unit: str, dimension: str) -> None:
    assert dimension_of(unit) == dimension


@pytest.mark.parametrize(
    ("value", "lang", "sig", "text"),
    [
        (140, "en", 3, "140"),
        (130.385, "en", 3, "130"),
        (1.5, "es", 3, "1,5"),
        (1234.56, "en", 4, "1,235"),
        (1234.56, "es", 4, "1235"),  # RAE: no grouping below five digits
        (12345.6, "es", 5, f"12{THIN_SPACE}346"),
        (12345.6, "en", 6, "12,345.6"),
        (1.4e11, "en", 3, "1.4e11"),
        (1.4e11, "es", 3, "1,4e11"),
        (0.0012345, "es", 3, "0,00123"),
        (999.7, "en", 3, "1,000"),
        (-3.25, "es", 3, "-3,25"),
        (0, "en", 3, "0"),
    ],
)
def test_format_number(value: float, lang: str, sig: int, text: str) -> None:
    assert format_number(value, lang, sig) == text


@pytest.mark.parametrize(
    ("value", "unit", "lang", "text"),
    [
        (140, "GB", "en", "140 GB"),
        (2, "days", "es", "2 días"),
        (70e9, "params", "en", "70B params"),
        (1.5e12, "tokens", "es", "1,5T tokens"),
        (8, None, "en", "8"),
    ],
)
def test_format_quantity(value: float, unit: str | None, lang: str, text: str) -> None:
    assert format_quantity(value, unit, lang) == text


@given(
    # no figure the app shows is subnormal: below 2.2e-308 a float keeps fewer figures
    value=st.floats(min_value=-1e18, max_value=1e18, allow_nan=False, allow_subnormal=False),
    lang=st.sampled_from(["en", "es"]),
    sig=st.integers(min_value=1, max_value=17),
)
@example(value=10.5, lang="en", sig=2)  # a half: 11, away from zero
@example(value=70.55, lang="es", sig=3)  # stored as 70.5499…, read as 70.55: 70,6
def test_formatted_numbers_read_back(value: float, lang: str, sig: int) -> None:
    text = format_number(value, lang, sig)
    got, _, rest = parse_number(text, lang)
    assert rest == ""
    if value == 0:
        assert got == 0
        return
    # what is read back is the value to ``sig`` figures: within half a unit of the
    # last figure kept (halves go away from zero, 10.5 → 11, as the learner rounds)
    # and no further figure written
    last = 10.0 ** (math.floor(math.log10(abs(value))) - sig + 1)
    assert abs(got - value) <= 0.5 * last + 1e-12 * abs(value)
    assert abs(got / last - round(got / last)) <= 1e-6 * max(1.0, abs(got / last))


@given(st.text(max_size=40), st.sampled_from(["en", "es"]))
def test_junk_raises_only_unit_errors(text: str, lang: str) -> None:
    for expect in (None, "size", "count", "params"):
        try:
            q = parse_quantity(text, lang, expect)
        except UnitError:
            continue
        assert math.isfinite(q.value)


@pytest.mark.parametrize(
    ("value", "unit", "lang", "text"),
    [
        (1, "GPUs", "en", "1 GPU"),
        (2, "GPUs", "en", "2 GPUs"),
        (1.5, "GPUs", "en", "1.5 GPUs"),
        # Spain writes an acronym the same in the plural: "2 GPU" (RAE, "siglas")
        (1, "GPUs", "es", "1 GPU"),
        (2, "GPUs", "es", "2 GPU"),
        (1, "days", "en", "1 day"),
        (1, "days", "es", "1 día"),
        (1, "días", "en", "1 day"),
        (1.5, "days", "es", "1,5 días"),
        (1, "tokens", "en", "1 token"),
        (1, "sequences", "es", "1 secuencia"),
        (3, "sequences", "es", "3 secuencias"),
        (1, "nodes", "es", "1 nodo"),
        (1, "users", "es", "1 usuario"),
        (64, "users", "es", "64 usuarios"),
        (-1, "hours", "en", "-1 hour"),
        (1e6, "tokens", "en", "1M tokens"),
        (1, "GB", "en", "1 GB"),
        (1, "x", "es", "1 x"),
    ],
)
def test_a_unit_agrees_with_the_number_before_it(
        value: float, unit: str, lang: str, text: str) -> None:
    """"Your answer: 1 GPUs" reads wrong: one takes the singular, every other number the
    plural, in English and as Spanish is written in Spain."""
    assert format_quantity(value, unit, lang) == text


@pytest.mark.parametrize("unit", ["GPUs", "days", "tokens", "sequences", "nodes", "users",
                                  "hours", "params", "layers"])
@pytest.mark.parametrize("lang", ["en", "es"])
def test_one_of_a_unit_reads_back_as_one(unit: str, lang: str) -> None:
    question = Question(kind=Kind.NUMERIC, post="h200", prompt="?", explanation="", answer=1,
                        unit=unit, lang=lang)
    shown = format_quantity(1, unit, lang)
    verdict = grade(question, shown)
    assert verdict.correct is True, (shown, verdict)
    assert verdict.given == verdict.expected == shown


@pytest.mark.parametrize(("lang", "given", "expected"), [("en", "1 GPU", "4 GPUs"),
                                                         ("es", "1 GPU", "4 GPU")])
def test_feedback_words_the_answer_with_its_unit_agreeing(
        lang: str, given: str, expected: str) -> None:
    """The feedback's "Your answer: 1 GPU" and "the answer is 4 GPUs" (a scenario's fewest-
    GPUs step asks in GPUs)."""
    question = Question(kind=Kind.NUMERIC, post="h200", prompt="?", explanation="", answer=4,
                        unit="GPUs", lang=lang)
    verdict = grade(question, "1")
    assert (verdict.given, verdict.expected) == (given, expected)
    assert expected in verdict.message
