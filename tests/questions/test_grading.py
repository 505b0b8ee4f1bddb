"""Grading tables (every example in docs/architecture.md "Questions") and properties."""

from __future__ import annotations

import re

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from studyapp.questions.formatting import format_number, format_quantity
from studyapp.questions.grading import Verdict, expected_display, grade
from studyapp.questions.model import Kind, Question, Tolerance
from studyapp.questions.units import convert


def numeric(
    answer: float, unit: str | None, lang: str = "en", tolerance: Tolerance | None = None
) -> Question:
    return Question(
        kind=Kind.NUMERIC,
        post="h200",
        prompt="?",
        explanation="",
        answer=answer,
        unit=unit,
        tolerance=tolerance,
        lang=lang,
    )


# H200: 141 GB HBM3e; a 70B model in bf16 needs 140 GB of weights.
@pytest.mark.parametrize(
    ("answer", "unit", "lang", "response", "correct"),
    [
        (140, "GB", "en", "140", True),
        (140, "GB", "en", "140 GB", True),
        (140, "GB", "en", "1.4e11 B", True),
        (140, "GB", "en", "130.4 GiB", True),
        (140, "GB", "en", "140GB", True),
        (140, "GB", "en", "1,120 Gb", True),
        (140, "GB", "en", "0.14 TB", True),
        (140, "GB", "en", "142", True),  # within the default 2%
        (140, "GB", "en", "143", False),
        (140, "GB", "en", "140 MB", False),
        (1.5, "s", "es", "1,5", True),
        (1.5, "s", "es", "1.5", True),  # a dot before one digit cannot group thousands
        (1234.5, "KB", "es", "1.234,5", True),
        (1234.5, "KB", "en", "1,234.5", True),
        (1234.5, "KB", "es", "1 234,5", True),
        # NVLink 4 per direction: 50 GB/s per link is 400 Gb/s.
        (50, "GB/s", "en", "50 GB/s", True),
        (50, "GB/s", "en", "400 Gb/s", True),
        (50, "GB/s", "en", "400 Gbps", True),
        (50, "GB/s", "en", "400", False),
        (400, "Gb/s", "en", "50 GB/s", True),
        (3.2, "ms", "en", "3.2 ms", True),
        (3.2, "ms", "en", "3200 µs", True),
        (3.2, "ms", "en", "0.0032 s", True),
        (12, "h", "en", "12 h", True),
        (12, "h", "en", "0.5 days", True),
        (48, "h", "en", "2 days", True),
        (1.5, "h", "en", "1 h 30 min", True),
        (2, "days", "es", "2 días", True),
        (2, "days", "es", "48 h", True),
        # H100 SXM dense BF16: 989 TFLOPS (NVIDIA datasheet).
        (989, "TFLOPS", "en", "989 TFLOPS", True),
        (989, "TFLOPS", "en", "989 TFLOP/s", True),
        (989, "TFLOPS", "en", "0.989 PFLOPS", True),
        (989, "TFLOPS", "en", "989 TFLOPs", True),
        (1.2, "kW", "en", "1.2 kW", True),
        (1.2, "kW", "en", "1200 W", True),
        (1.2, "kW", "es", "1,2 kW", True),
        (70e9, "params", "en", "70B", True),
        (70e9, "params", "en", "70B params", True),
        (70e9, "params", "en", "70 billion", True),
        (70e9, "params", "es", "70 mil millones", True),
        (15e12, "tokens", "en", "15T tokens", True),
        (8, None, "en", "8", True),
        (8, None, "en", "8 GPUs", True),
        (8, "GPUs", "en", "8 gpus", True),
        (3.5, "x", "en", "3.5x", True),
        (40, "%", "en", "0.4x", True),
    ],
)
def test_numeric(answer: float, unit: str | None, lang: str, response: str, correct: bool) -> None:
    verdict = grade(numeric(answer, unit, lang), response)
    assert verdict.correct is correct, verdict
    assert verdict.retry is False
    assert verdict.expected


def test_given_keeps_the_learners_unit_and_shows_the_question_unit() -> None:
    verdict = grade(numeric(140, "GB"), "130.4 GiB")
    assert verdict.given == "130.4 GiB (140 GB)"  # what was typed, then what it is in GB
    assert verdict.expected == "140 GB"
    assert grade(numeric(140, "GB"), "140").given == "140 GB"  # a bare number: the unit asked
    spanish = grade(numeric(32.1, "GB", "es"), "29,9 GiB")
    assert spanish.given == "29,9 GiB (32,1 GB)"


@pytest.mark.parametrize(
    ("lang", "message"),
    [
        ("en", "That is a bandwidth; the question asks for a size (GB)."),
        ("es", "Eso es un ancho de banda; la pregunta pide un tamaño (GB)."),
    ],
)
def test_wrong_dimension_asks_again(lang: str, message: str) -> None:
    verdict = grade(numeric(140, "GB", lang), "50 GB/s")
    assert verdict == Verdict(
        correct=None, message=message, given="50 GB/s", expected="", retry=True
    )


@pytest.mark.parametrize(
    ("unit", "response", "fragment"),
    [
        ("GB", "3 ms", "a time"),
        ("ms", "3 GB", "a size"),
        ("TFLOPS", "989 TFLOP", "an amount of compute"),
        ("FLOP", "989 TFLOPS", "a compute rate"),
        ("kW", "1.2 kWh", "an energy"),
        (None, "8 GB", "a size"),
    ],
)
def test_other_dimensions(unit: str | None, response: str, fragment: str) -> None:
    verdict = grade(numeric(1, unit), response)
    assert verdict.correct is None and verdict.retry
    assert fragment in verdict.message


@pytest.mark.parametrize(
    ("lang", "response", "fragment"),
    [
        ("en", "", "Type an answer"),
        ("es", "   ", "Escribe"),
        ("en", "lots", "Can't read"),
        ("es", "muchos", "No se puede leer"),
        ("en", "140 furlongs", "Unknown unit"),
        ("en", "140 gb", "GB or Gb"),
        ("es", "140 gb", "GB o Gb"),
    ],
)
def test_not_graded(lang: str, response: str, fragment: str) -> None:
    verdict = grade(numeric(140, "GB", lang), response)
    assert verdict.correct is None and verdict.retry and verdict.expected == ""
    assert fragment in verdict.message


def test_ambiguous_separator_asks_instead_of_marking_wrong() -> None:
    # Spanish reads "1.234" as 1234; when 1.234 is the answer, ask.
    verdict = grade(numeric(1.234, "GB", "es"), "1.234")
    assert verdict.correct is None
    assert "1234" in verdict.message and "1,234" in verdict.message
    # When the language's reading is right, there is nothing to ask.
    assert grade(numeric(1234, "GB", "es"), "1.234").correct is True
    assert grade(numeric(1500, "GB", "en"), "1,500").correct is True
    # Neither reading right: plainly wrong.
    assert grade(numeric(7, "GB", "es"), "1.234").correct is False


def test_absolute_tolerance() -> None:
    q = numeric(512, "KB", tolerance=Tolerance(relative=None, absolute=0.5))
    assert grade(q, "512.4").correct is True
    assert grade(q, "513").correct is False
    assert grade(q, "0.5124 MB").correct is True


@pytest.mark.parametrize(
    ("response", "hint"),
    [("1120", "bits versus bytes"), ("140000", "prefix"), ("150.3", "GiB")],
)
def test_hints_for_telling_factors(response: str, hint: str) -> None:
    verdict = grade(numeric(140, "GB"), response)
    assert verdict.correct is False
    assert hint in verdict.message


# ---------------------------------------------------------------- choice

HBM = ("HBM3", "HBM3e", "GDDR7", "LPDDR5X")


def choice(answer: str = "HBM3e", choices: tuple[str, ...] = HBM, lang: str = "en") -> Question:
    return Question(
        kind=Kind.CHOICE,
        post="h200",
        prompt="Which memory does the H200 use?",
        explanation="",
        answer=answer,
        choices=choices,
        lang=lang,
    )


@pytest.mark.parametrize(
    ("response", "correct"),
    [
        ("2", True),
        ("b", True),
        ("B", True),
        ("b)", True),
        ("(b)", True),
        ("HBM3e", True),
        (" hbm3E ", True),
        ("hbm 3e", True),
        ("1", False),
        ("a", False),
        ("HBM3", False),
        ("d", False),
        ("5", None),
        ("e", None),
        ("HBM4", None),
    ],
)
def test_choice(response: str, correct: bool | None) -> None:
    verdict = grade(choice(), response)
    assert verdict.correct is correct
    if correct is not None:
        assert verdict.expected == "b) HBM3e"  # the stored form; faces show "2) HBM3e"


@pytest.mark.parametrize("lang", ["en", "es"])
def test_wrong_choice_feedback_names_choices_by_number(lang: str) -> None:
    from studyapp.study import numbered_choice

    q = choice(lang=lang)
    verdict = grade(q, "a")
    assert "2) HBM3e" in verdict.message and "b)" not in verdict.message
    # the faces show given and expected by number too
    assert numbered_choice(q, verdict.given) == "1) HBM3"
    assert numbered_choice(q, verdict.expected) == "2) HBM3e"


def test_choice_number_that_is_also_a_choice_text_asks() -> None:
    q = choice(answer="4", choices=("1", "2", "4", "8"))
    assert grade(q, "c").correct is True
    verdict = grade(q, "2")  # choice b) "2" or the 2nd choice? both are b) here
    assert verdict.correct is False
    verdict = grade(q, "1")  # a) "1" is also the 1st: same choice, no ambiguity
    assert verdict.correct is False
    verdict = grade(q, "4")  # c) "4" by text, d) "8" by number
    assert verdict.correct is None and "3) 4" in verdict.message and "4) 8" in verdict.message


# ---------------------------------------------------------------- true/false


def truefalse(answer: bool, lang: str = "en") -> Question:
    return Question(
        kind=Kind.TRUEFALSE, post="h100", prompt="?", explanation="", answer=answer, lang=lang
    )


@pytest.mark.parametrize(
    "word",
    ["y", "Y", "yes", "t", "true", "True", "s", "sí", "si", "Sí", "v", "verdadero", "cierto"],
)
def test_true_words(word: str) -> None:
    assert grade(truefalse(True), word).correct is True
    assert grade(truefalse(False), word).correct is False


@pytest.mark.parametrize("word", ["n", "N", "no", "No", "f", "false", "falso", "FALSO"])
def test_false_words(word: str) -> None:
    assert grade(truefalse(False), word).correct is True
    assert grade(truefalse(True), word).correct is False


@pytest.mark.parametrize("word", ["1", "0", "maybe", "quizá", "yes no"])
def test_truefalse_refuses_other_words(word: str) -> None:
    verdict = grade(truefalse(True, "es"), word)
    assert verdict.correct is None and "verdadero/falso" in verdict.message


def test_truefalse_display() -> None:
    assert grade(truefalse(True, "es"), "s").expected == "verdadero"
    assert grade(truefalse(False, "en"), "n").given == "false"


# ---------------------------------------------------------------- text


def text_question(answer: str, accept: tuple[str, ...] = (), lang: str = "es") -> Question:
    return Question(
        kind=Kind.TEXT,
        post="h200",
        prompt="?",
        explanation="",
        answer=answer,
        accept=accept,
        lang=lang,
    )


@pytest.mark.parametrize(
    ("response", "correct"),
    [
        ("memoria de alto ancho de banda", True),
        ("Memoria de Alto Ancho de Banda", True),
        ("memória de álto ancho de banda", True),
        ("  memoria  de alto ancho de banda ", True),
        ("HBM", True),
        ("hbm", True),
        ("GDDR", False),
    ],
)
def test_text(response: str, correct: bool) -> None:
    q = text_question("Memoria de alto ancho de banda", accept=("HBM",))
    verdict = grade(q, response)
    assert verdict.correct is correct
    assert verdict.expected == "Memoria de alto ancho de banda"


def test_text_accents_in_the_answer() -> None:
    q = text_question("Conmutación de paquetes")
    assert grade(q, "Conmutación de paquetes").typo is False
    missed = grade(q, "conmutacion de paquetes")  # a long answer off only in its accents
    assert missed.correct is True and missed.typo is True
    assert "Conmutación de paquetes" in missed.message


@pytest.mark.parametrize(("answer", "typed"), [
    ("año", "ano"),  # year, not anus
    ("rẻ", "rè"),  # Vietnamese: cheap, not the other tone
    ("está", "esta"),
    ("NVLink / NVSwitch", "NVLink"),  # one half of an answer is not the answer
])
def test_diacritics_and_whole_answers_count(answer: str, typed: str) -> None:
    assert grade(text_question(answer), typed).correct is False


@pytest.mark.parametrize("typed", ["AÑO", " año ", "Año.", "el año"])
def test_case_spacing_and_articles_do_not_count(typed: str) -> None:
    verdict = grade(text_question("año"), typed)
    assert verdict.correct is True and not verdict.typo


def test_a_decomposed_accent_is_the_same_letter() -> None:
    # "año" typed as n + U+0303 COMBINING TILDE (some keyboards) is still "año"
    assert grade(text_question("año"), "an\u0303o").correct is True


# ---------------------------------------------------------------- properties

#: Units a learner may use for each dimension, and the question units to pick from.
UNITS = {
    "size": ["B", "KB", "MB", "GB", "TB", "PB", "KiB", "MiB", "GiB", "TiB", "b", "Mb", "Gb", "Tb"],
    "bandwidth": ["B/s", "MB/s", "GB/s", "TB/s", "GiB/s", "Gb/s", "Tb/s", "Gbps", "GBps"],
    "time": ["ns", "µs", "us", "ms", "s", "min", "h", "days", "week"],
    "flop": ["FLOP", "GFLOP", "TFLOP", "PFLOP", "EFLOP", "ZFLOP"],
    "flop_rate": ["TFLOPS", "PFLOPS", "TFLOP/s", "GFLOP/s", "EFLOPS"],
    "power": ["W", "kW", "MW"],
    "tokens": ["tokens", "M tokens", "B tokens"],
    "params": ["params", "B params"],
    "ratio": ["x", "%"],
}
LANGS = st.sampled_from(["en", "es"])
MAGNITUDES = st.floats(min_value=1e-3, max_value=1e15)


def _ambiguous(number: str) -> bool:
    """One mark followed by exactly three digits reads by the language's convention."""
    return re.fullmatch(r"-?[1-9]\d{0,2}[.,]\d{3}", number) is not None


@st.composite
def unit_pairs(draw: st.DrawFn) -> tuple[str, str]:
    dimension = draw(st.sampled_from(sorted(UNITS)))
    return draw(st.sampled_from(UNITS[dimension])), draw(st.sampled_from(UNITS[dimension]))


@settings(max_examples=400)
@given(value=MAGNITUDES, units=unit_pairs(), lang=LANGS, mark=st.sampled_from([".", ","]))
def test_converted_answer_grades_correct(
    value: float, units: tuple[str, str], lang: str, mark: str
) -> None:
    question_unit, answer_unit = units
    converted = convert(value, question_unit, answer_unit)
    number = format_number(converted, "en", 4, grouping=False).replace(".", mark)
    verdict = grade(numeric(value, question_unit, lang), f"{number} {answer_unit}")
    own_mark = "," if lang == "es" else "."
    if mark != own_mark and _ambiguous(number):
        assert verdict.correct is not False
    else:
        assert verdict.correct is True, (number, answer_unit, verdict)


@settings(max_examples=300)
@given(value=MAGNITUDES, units=unit_pairs(), lang=LANGS)
def test_converted_answer_in_the_language_format_grades_correct(
    value: float, units: tuple[str, str], lang: str
) -> None:
    question_unit, answer_unit = units
    shown = format_quantity(convert(value, question_unit, answer_unit), answer_unit, lang)
    assert grade(numeric(value, question_unit, lang), shown).correct is True, shown


TOLERANCES = st.one_of(
    st.none(),
    st.floats(min_value=1e-6, max_value=0.2).map(lambda r: Tolerance(relative=r)),
    st.floats(min_value=1e-9, max_value=1e3).map(lambda a: Tolerance(relative=None, absolute=a)),
)


@settings(max_examples=400)
@given(
    value=st.one_of(MAGNITUDES, MAGNITUDES.map(lambda v: -v)),
    units=unit_pairs(),
    lang=LANGS,
    tolerance=TOLERANCES,
)
def test_displayed_expected_grades_correct(
    value: float, units: tuple[str, str], lang: str, tolerance: Tolerance | None
) -> None:
    question = numeric(value, units[0], lang, tolerance)
    shown = expected_display(question)
    verdict = grade(question, shown)
    assert verdict.correct is True, (shown, verdict)
    assert verdict.expected == shown


@given(st.integers(min_value=-(10**15), max_value=10**15), LANGS)
def test_displayed_plain_counts_grade_correct(value: int, lang: str) -> None:
    assume(value != 0)
    question = numeric(value, None, lang)
    assert grade(question, expected_display(question)).correct is True


QUESTIONS = [
    numeric(140, "GB"),
    numeric(1.5, "s", "es"),
    numeric(70e9, "params"),
    numeric(8, None),
    numeric(8, "GPUs"),
    choice(),
    choice(answer="4", choices=("1", "2", "4", "8")),
    truefalse(True),
    text_question("HBM3e"),
]


@settings(max_examples=300)
@given(st.text(max_size=60), st.sampled_from(QUESTIONS))
def test_junk_never_raises(response: str, question: Question) -> None:
    verdict = grade(question, response)
    assert isinstance(verdict.message, str) and verdict.message
    assert verdict.retry == (verdict.correct is None)


@settings(max_examples=300)
@given(
    st.text(alphabet="0123456789.,eE+-×x^ _\u00a0\u2009GBbKMiTs/%", max_size=30),
    st.sampled_from(QUESTIONS[:5]),
)
def test_number_like_junk_never_raises(response: str, question: Question) -> None:
    verdict = grade(question, response)
    assert verdict.retry == (verdict.correct is None)
