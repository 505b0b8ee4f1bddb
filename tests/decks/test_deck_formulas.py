"""Safe formulas: arithmetic on params and catalog fields, nothing else."""

from __future__ import annotations

import time

import pytest

from studyapp.decks.formula import (
    DTYPE_BYTES,
    EntryView,
    FormulaError,
    Value,
    evaluate,
    parse_template,
    render,
)

GPU = EntryView("accelerators", {"id": "h200-sxm", "name": "NVIDIA H200 SXM",
                                 "memory_gb": 141.0, "fp4_dense_tflops": None})  # fmt: skip
NAMES: dict[str, Value] = {
    "layers": 80, "kv_heads": 8, "head_dim": 128, "dtype": "bf16", "gpu": GPU,
}  # fmt: skip


@pytest.mark.parametrize(
    ("formula", "expected"),
    [
        ("2 * layers * kv_heads * head_dim * bytes(dtype) / 1e3", 327.68),
        ("gpu.memory_gb * 0.9", 126.9),
        ("ceil(gpu.memory_gb / 80)", 2),
        ("floor(2.7) + round(2.25, 1) + abs(-1)", 5.2),
        ("min(1, 2, 3) + max(4, 5)", 6),
        ("sqrt(16) + log2(8) + log10(1000) + log(exp(1))", 11),
        ("2 ** 10", 1024),
        ("layers if dtype == 'bf16' else 0", 80),
        ("gpu.memory_gb > 100 and layers >= 80", True),
    ],
)
def test_arithmetic(formula: str, expected: float) -> None:
    assert evaluate(formula, NAMES) == pytest.approx(expected)


def test_bytes_per_dtype_match_design() -> None:
    assert dict(DTYPE_BYTES) == {"fp32": 4, "fp16": 2, "bf16": 2, "fp8": 1, "int8": 1,
                                 "fp4": 0.5, "int4": 0.5}  # fmt: skip
    assert evaluate("bytes('INT4')", {}) == 0.5
    with pytest.raises(FormulaError, match="bytes\\(\\) takes a dtype"):
        evaluate("bytes('fp6')", {})


@pytest.mark.parametrize(
    ("formula", "words"),
    [
        ("__import__('os').system('ls')", "only these functions can be called"),
        ("__import__('os')", "not available"),
        ("eval('1')", "not available"),
        ("exec('x=1')", "not available"),
        ("open('/etc/passwd')", "not available"),
        ("gpu.__class__", "not allowed"),
        ("gpu._fields", "not allowed"),
        ("gpu.__dict__", "not allowed"),
        ("layers.__class__.__mro__", "not allowed"),
        ("dtype.upper", "only catalog draws"),
        ("(1).real", "only a parameter's fields"),
        ("gpu.field('memory_gb')", "only these functions can be called"),
        ("gpu.memory_gb.hex()", "only these functions can be called"),
        ("[x for x in 'abc']", "comprehensions is not allowed"),
        ("lambda: 1", "lambda is not allowed"),
        ("dtype[0]", "indexing"),
        ("f'{layers}'", "f-strings"),
        ("(x := 1)", "assignment"),
        ("9 ** 9 ** 9", "exponent"),
        ("10 ** 10 ** 10", "exponent"),
        ("(10 ** 900) ** 900", "too large"),
        ("2.0 ** 1000 * 2.0 ** 1000", "too large"),
        ("2.0 ** 1000", "too large"),
        ("'a' * 10 ** 6", "text cannot be used in *"),
        ("round(5, -10 ** 9)", "round() takes a whole number of digits"),
        ("1 / 0", "division by zero"),
        ("sqrt(-1)", "fails"),
        ("(-8) ** 0.5", "not a real number"),
        ("gpu * 2", "a catalog entry cannot be used"),
        ("gpu.memroy_gb", "did you mean memory_gb"),
        ("gpu.fp4_dense_tflops * 2", "has no value for 'fp4_dense_tflops'"),
        ("nope + 1", "unknown name 'nope'"),
        ("max(layers=1)", "positional arguments only"),
        ("1; 2", "syntax"),
        ("x" * 600, "longer than"),
        ("+".join(["1"] * 150), "more than 200 parts"),
    ],
)
def test_unsafe_or_broken_formulas_are_refused(formula: str, words: str) -> None:
    start = time.monotonic()
    with pytest.raises(FormulaError) as info:
        evaluate(formula, NAMES)
    assert words in str(info.value)
    assert time.monotonic() - start < 1


def test_entry_view_is_read_only() -> None:
    with pytest.raises(AttributeError):
        GPU.memory_gb = 1  # type: ignore[attr-defined]
    assert str(GPU) == "NVIDIA H200 SXM"
    assert f"{GPU}" == "NVIDIA H200 SXM"


def test_templates() -> None:
    assert render("{gpu} has {gpu.memory_gb} GB", NAMES) == "NVIDIA H200 SXM has 141 GB"
    assert render("{{literal}} {layers:,} {1/3:.2f} {1/3}", {"layers": 1000}) == (
        "{literal} 1,000 0.33 0.3333"
    )
    assert render("{x:.1f}", {"x": 1.25}, lang="es") == "1,2"
    assert render("{t} {f}", {"t": True, "f": False}, {True: "sí", False: "no"}) == "sí no"
    assert render("{1e11} {1.4e11 / 3}", {}) == "100000000000 46666666666.67"


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("{x", "never closed"),
        ("x}", "single }"),
        ("{}", "empty formula"),
        ("{x:{y}}", "nested"),
        ("{x!r}", "syntax"),
        ("{x:>1000}", "more than 100 characters"),
        ("{x:%s}", "not allowed"),
    ],
)
def test_bad_templates(text: str, words: str) -> None:
    with pytest.raises(FormulaError) as info:
        parse_template(text)
    assert words in str(info.value)


def test_format_that_does_not_fit_the_value() -> None:
    with pytest.raises(FormulaError, match="does not fit"):
        render("{dtype:.2f}", {"dtype": "bf16"})
