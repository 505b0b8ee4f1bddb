"""Grading the skill asked: conversions, named slips, short answers with a typo.

A conversion question must be answered in the unit it asks for (the converter
must not do the learner's work); a wrong number off by a telling factor names
the slip and stays wrong; a short text answer forgives case, spacing,
punctuation, a leading article and one slip of a key on long words.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import pytest

from studyapp.i18n import t
from studyapp.questions.generators import Family, registered_families
from studyapp.questions.grading import grade
from studyapp.questions.model import Kind, Question, Slip, Tolerance

LANGS = ("en", "es")


def instances(family: Family, lang: str = "en", count: int = 60) -> Iterator[Question]:
    for seed in range(count):
        yield family.generate(seed, lang, {})


def typed(value: float, unit: str | None) -> str:
    """A number any language reads the same way: scientific notation, decimal point."""
    return f"{value:.9e} {unit or ''}".strip()


# ---------------------------------------------------------------- conversions


@pytest.mark.parametrize("lang", LANGS)
def test_bits_vs_bytes_echo_of_the_prompt_is_sent_back_not_graded(lang: str) -> None:
    """Typing back "400 Gb/s" when asked for GB/s is never Correct (issue's example)."""
    family = registered_families()["bits-vs-bytes"]
    seen = 0
    for question in instances(family, lang, 20):
        assert question.conversion
        gbit = float(question.params["gbit_s"])
        for echo in (f"{gbit:g} Gb/s", f"{gbit:g} Gbps", f"{gbit:g} gbit/s"):
            verdict = grade(question, echo)
            assert verdict.correct is None and verdict.retry, echo
            assert verdict.message == t("grading.answer_in", lang, unit="GB/s")
            assert verdict.expected == ""  # asking again does not give the answer away
        seen += 1
        assert grade(question, typed(float(question.answer), "GB/s")).correct is True
        assert grade(question, typed(float(question.answer), None)).correct is True
    assert seen


def test_gb_vs_gib_echo_is_sent_back_in_both_directions() -> None:
    family = registered_families()["gb-vs-gib"]
    directions = set()
    for question in instances(family, "en", 30):
        directions.add(question.params["direction"])
        if question.params["direction"] in ("mib-to-gib", "mib-to-gb"):  # a driver's MiB
            assert grade(question, typed(float(question.answer), question.unit)).correct
            mib = question.params["given"].get("mib") or question.params["given"]["mib_gb"]
            verdict = grade(question, f"{mib:.0f} MiB")
            assert verdict.correct is None and verdict.message == (
                f"Answer in {question.unit}: converting is the question.")
            continue
        given_unit = "GB" if question.unit == "GiB" else "GiB"
        given = (question.params["size_gb"] if given_unit == "GB"
                 else question.params["size_gib"])
        verdict = grade(question, f"{given} {given_unit}")
        assert verdict.correct is None and verdict.message == f"Answer in {question.unit}: " \
            "converting is the question."
        assert grade(question, typed(float(question.answer), question.unit)).correct
    assert {"gb-to-gib", "gib-to-gb"} <= directions


def _bandwidth(conversion: bool) -> Question:
    """NDR: 400 Gb/s = 50 GB/s each way (NVIDIA Quantum-2 InfiniBand data sheet)."""
    return Question(kind=Kind.NUMERIC, post="nvlink-infiniband",
                    prompt="NDR port, GB/s each way?", explanation="400 / 8 = 50",
                    answer=50.0, unit="GB/s", tolerance=Tolerance(relative=0.02),
                    conversion=conversion)


def test_another_unit_is_converted_only_when_the_question_is_not_a_conversion() -> None:
    plain_question, conversion = _bandwidth(False), _bandwidth(True)
    for text in ("400 Gb/s", "50000 MB/s", "0.05 TB/s"):
        assert grade(plain_question, text).correct is True, text
        retry = grade(conversion, text)
        assert retry.correct is None and "GB/s" in retry.message, text
    for text in ("50", "50 GB/s", "50 GBps", "5e1 GB/s"):
        assert grade(conversion, text).correct is True, text
    # another dimension is explained in both cases, never graded
    assert grade(conversion, "50 GB").correct is None


def test_conversion_flag_comes_from_the_family_declaration() -> None:
    table = registered_families()
    declared = {name for name, family in table.items() if family.conversion}
    assert {"bits-vs-bytes", "gb-vs-gib"} <= declared
    for name in declared:
        assert next(instances(table[name], count=1)).conversion
    assert not next(instances(table["weights-size"], count=1)).conversion


# ---------------------------------------------------------------- slips


def _declared() -> list[tuple[str, str]]:
    return sorted({(name, slip.key) for name, family in registered_families().items()
                   for slip in family.slips})


def _alone(question: Question, slip: Slip) -> bool:
    """No other slip of the question leaves the same factor (K only and 1 byte a value, both
    ×½ in BF16): an answer showing it can be told apart."""
    assert isinstance(slip.ratio, float)
    return not any(other.key != slip.key and isinstance(other.ratio, float)
                   and math.isclose(other.ratio, slip.ratio, rel_tol=0.01)
                   for other in question.slips)


def _instance_with(family: Family, key: str, lang: str,
                   alone: bool = True) -> tuple[Question, Slip]:
    for question in instances(family, lang, 120):
        for slip in question.slips:
            assert not callable(slip.ratio)
            tol = question.tolerance or Tolerance()
            answer = float(question.answer)  # type: ignore[arg-type]
            if slip.key == key and _alone(question, slip) is alone \
                    and not tol.accepts(answer, answer * slip.ratio):
                return question, slip
    raise AssertionError(f"no instance of {family.name} shows slip {key}")


def test_families_declare_the_slips_the_issue_names() -> None:
    keys = {key for _, key in _declared()}
    assert {"kv_pair", "per_direction", "sparse", "bits", "gib_same_number",
            "dtype_bytes"} <= keys
    assert {"kv_left_out", "weights_left_out", "weights_only_checkpoint"} <= keys
    for name in ("kv-cache-per-token", "kv-cache-total", "bits-vs-bytes", "gb-vs-gib",
                 "link-transfer", "weights-size", "max-context-that-fits", "min-gpus",
                 "checkpoint-write", "decode-ceiling", "ring-allreduce", "prefill-time"):
        assert registered_families()[name].slips, name


def test_every_numeric_family_declares_its_slips_or_has_none_to_declare() -> None:
    """A family that asks for a number declares the factor slips it can show; the few
    without one say why here."""
    none = {  # no factor a likely wrong turn leaves in the answer
        "decode-compare": "a ratio of two bandwidths: the dtype and the model cancel",
        "training-memory": "ZeRO stages divide by the GPU count, not a fixed factor",
        "checkpoint-interval": "a square root: no slip leaves a fixed factor",
        "tpu-pod": "counts of chips times a per-chip figure",
    }
    from studyapp.questions.model import Kind

    for name, family in registered_families().items():
        if family.kind is Kind.NUMERIC and not family.slips:
            assert name in none, name


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize(("family_name", "key"), _declared())
def test_every_declared_slip_is_named_and_stays_wrong(family_name: str, key: str,
                                                      lang: str) -> None:
    """Named where no other slip of the card leaves the same factor; where one does (a ring's
    ×2, BF16 as one byte, both directions: all ×½), the answer says how far off, no cause."""
    try:
        question, slip = _instance_with(registered_families()[family_name], key, lang)
    except AssertionError:
        question, slip = _instance_with(registered_families()[family_name], key, lang,
                                        alone=False)
        assert isinstance(slip.ratio, float)
        verdict = grade(question, typed(float(question.answer) * slip.ratio,  # type: ignore[arg-type]
                                        question.unit))
        assert verdict.correct is False and verdict.slips == ()
        return
    assert isinstance(slip.ratio, float)
    slipped = float(question.answer) * slip.ratio  # type: ignore[arg-type]
    verdict = grade(question, typed(slipped, question.unit))
    assert verdict.correct is False
    assert key in verdict.slips
    factor = max(slip.ratio, 1 / slip.ratio)
    assert verdict.message.startswith(t("grading.wrong", lang, expected=verdict.expected))
    named = t(f"grading.slip.{key}", lang, factor="§").split("§")[0]
    assert named in verdict.message
    if slip.symmetric:  # the other way round names it too
        other = grade(question, typed(float(question.answer) / slip.ratio,  # type: ignore[arg-type]
                                      question.unit))
        assert other.correct is False and key in other.slips
    assert factor > 1.01


def test_kv_pair_is_not_claimed_for_mla() -> None:
    """MLA caches one latent per token: no K/V pair to halve (DeepSeek-V3 config)."""
    family = registered_families()["kv-cache-per-token"]
    kinds = {q.params["attention"]: q for q in instances(family, "en", 80)}
    assert "mla" in kinds and "gqa" in kinds
    assert "kv_pair" not in {s.key for s in kinds["mla"].slips}
    assert "kv_pair" in {s.key for s in kinds["gqa"].slips}


def test_kv_only_k_reads_as_the_issue_words_it() -> None:
    """Llama 3.1 8B, BF16: 2·32·8·128·2 = 131 072 B = 131.072 KB per token (HF config)."""
    family = registered_families()["kv-cache-per-token"]
    question = next(q for q in instances(family, "en", 200)
                    if q.params["model"] == "llama-3.1-8b" and q.params["kv_dtype"] == "fp8")
    assert math.isclose(float(question.answer), 65.536)  # type: ignore[arg-type]
    verdict = grade(question, "32.768 KB")
    assert verdict.correct is False
    assert "You counted only K, not K and V: ×2." in verdict.message


def _numeric(answer: float, unit: str) -> Question:
    return Question(kind=Kind.NUMERIC, post="intro", prompt="?", explanation="",
                    answer=answer, unit=unit, tolerance=Tolerance(relative=0.02))


@pytest.mark.parametrize(("answer", "unit", "given", "key"), [
    (50.0, "GB/s", "400", "bits"),  # NDR 400 Gb/s = 50 GB/s
    (50.0, "GB/s", "6.25", "bits"),
    (140.0, "GB", "140000", "prefix"),  # Llama 2 70B in BF16: 140 GB
    (140.0, "GB", "0.14", "prefix"),
    (141.0, "GB", "131.3", "binary"),  # H200: 141 GB = 131.3 GiB
    (131.072, "KB", "128", "kib"),  # 131 072 B = 131.072 KB = 128 KiB
])
def test_generic_slips_for_every_numeric_question(answer: float, unit: str, given: str,
                                                  key: str) -> None:
    verdict = grade(_numeric(answer, unit), given)
    assert verdict.correct is False and verdict.slips == (key,)


def test_no_slip_is_named_for_an_unrelated_wrong_number() -> None:
    verdict = grade(_numeric(140.0, "GB"), "97")
    assert verdict.correct is False and verdict.slips == ()
    assert verdict.message == (t("grading.wrong", "en", expected="140 GB") + " "
                               + t("grading.off.times_low", "en", factor="1.443"))  # 140/97


# ---------------------------------------------------------------- short text answers


def _text(answer: str, *accept: str, lang: str = "en") -> Question:
    return Question(kind=Kind.TEXT, post="intro", prompt="?", explanation="", answer=answer,
                    accept=accept, lang=lang)


@pytest.mark.parametrize(("answer", "given", "lang"), [
    ("InfiniBand", "infiniband", "en"),
    ("InfiniBand", "  Infini-Band. ", "en"),
    ("InfiniBand", "the InfiniBand", "en"),
    ("scale-up network", "a scale up network!", "en"),
    ("memoria HBM", "la memoria HBM", "es"),
    ("memoria HBM", "Memoria, HBM", "es"),
    ("HBM3e", "hbm 3E", "en"),
])
def test_case_spacing_punctuation_and_articles_are_ignored(answer: str, given: str,
                                                           lang: str) -> None:
    verdict = grade(_text(answer, lang=lang), given)
    assert verdict.correct is True and not verdict.typo
    assert verdict.message == t("grading.correct", lang)


def test_an_accent_off_is_a_typo_shown_not_ignored() -> None:
    verdict = grade(_text("memoria HBM", lang="es"), "Memória, HBM")
    assert verdict.correct is True and verdict.typo
    assert "memoria HBM" in verdict.message


@pytest.mark.parametrize(("answer", "given"), [
    ("InfiniBand", "Infinibnad"),  # two letters swapped
    ("InfiniBand", "Infiniban"),  # one dropped
    ("InfiniBand", "Infinniband"),  # one added
    ("Ethernet", "Etherbet"),  # one changed
    ("NVLink", "NVLinl"),
])
@pytest.mark.parametrize("lang", LANGS)
def test_one_typo_is_accepted_and_flagged(answer: str, given: str, lang: str) -> None:
    verdict = grade(_text(answer, lang=lang), given)
    assert verdict.correct is True and verdict.typo
    assert verdict.message == t("grading.typo", lang, expected=answer)


@pytest.mark.parametrize(("answer", "given"), [
    ("InfiniBand", "Infinbnad"),  # two edits
    ("TPU", "TPV"),  # too short for a typo
    ("HBM3e", "HBM3"),  # ids with digits: one letter is the fact
    ("H100", "H200"),
    ("MI300X", "MI300A"),
    ("mi300x", "mi300"),
    ("Ethernet", "12345678"),
    ("Ethernet", "Ethernet 2"),
])
def test_typos_are_not_accepted_where_they_change_the_fact(answer: str, given: str) -> None:
    verdict = grade(_text(answer), given)
    assert verdict.correct is False and not verdict.typo


def test_a_typo_in_an_accepted_variant_counts() -> None:
    verdict = grade(_text("RoCE", "RDMA over Ethernet"), "RDMA over Etherent")
    assert verdict.correct is True and verdict.typo
