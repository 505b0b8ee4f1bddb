"""A slip is named only when it is true: declared for the card, and the answer sits on its
value alone.

For every generator family and every numeric step of every scenario: each declared slip's
value is named as that slip and no other (or, where another declared slip leaves the same
factor, as none: the answer cannot tell which was made); answers 2–10% off name no slip
unless one applies, and say how far off instead.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import pytest

from studyapp.i18n import t
from studyapp.questions.diagnosis import slip_candidates
from studyapp.questions.generators import Family, registered_families
from studyapp.questions.grading import Verdict, grade
from studyapp.questions.model import Kind, Question, Tolerance
from studyapp.questions.scenario import grade_part

SEEDS = range(16)
OFF = (-0.1, -0.07, -0.045, -0.025, 0.025, 0.045, 0.07, 0.1)
"""Answers 2.5% to 10% off: near misses, not slips."""


ALWAYS_TIED = {
    "scenario-long-context": "its KV cache is BF16: K only and one byte a value both halve it",
}
"""Families whose declared slips always leave the same factor: none can be named alone."""


def typed(value: float, unit: str | None) -> str:
    """A number any language reads the same way: scientific notation, decimal point."""
    return f"{value:.9e} {unit or ''}".strip()


def _graded(family: Family) -> Iterator[tuple[str, Question, object]]:
    """(label, numeric question, how to grade an answer to it) for each instance and step."""
    for seed in SEEDS:
        question = family.generate(seed, "en", {})
        if question.kind is Kind.NUMERIC:
            yield f"{family.name}@{seed}", question, lambda text, q=question: grade(q, text)
        for index, part in enumerate(question.parts):
            if part.question.kind is Kind.NUMERIC:
                yield (f"{family.name}@{seed}/{part.name}", part.question,
                       lambda text, q=question, i=index: grade_part(q, i, text, []).verdict)


def _numeric_families() -> list[str]:
    return [name for name, family in registered_families().items()
            if family.kind in (Kind.NUMERIC, Kind.SCENARIO)]


def _declared_values(question: Question) -> list[tuple[str, float]]:
    own, _ = slip_candidates(question)
    return [(c.key, c.ratio) for c in own]


def _near(a: float, b: float, rel: float) -> bool:
    return math.isclose(a, b, rel_tol=rel)


@pytest.mark.parametrize("name", _numeric_families())
def test_each_declared_slip_is_named_as_itself_and_no_other(name: str) -> None:
    tried, shown = 0, False
    for label, question, grade_it in _graded(registered_families()[name]):
        answer = float(question.answer)  # type: ignore[arg-type]
        tolerance = question.tolerance or Tolerance()
        declared = _declared_values(question)
        shown = shown or bool(declared)
        for key, ratio in declared:
            value = answer * ratio
            if tolerance.accepts(answer, value) or answer == 0:
                continue  # the slip leaves a right answer (a factor inside the tolerance)
            others = [k for k, r in declared if k != key and _near(r, ratio, 0.02)]
            verdict: Verdict = grade_it(typed(value, None))  # type: ignore[operator]
            assert verdict.correct is False, label
            if not others:
                assert verdict.slips == (key,), (label, key, ratio, verdict.message)
                tried += 1
            elif all(_near(r, ratio, 0.001) for k, r in declared if k in others):
                assert verdict.slips == (), (label, key, others, verdict.message)
    if name not in ALWAYS_TIED:
        assert tried or not shown, f"no instance of {name} shows one of its slips alone"


@pytest.mark.parametrize("name", _numeric_families())
def test_near_misses_name_no_slip_and_say_how_far_off(name: str) -> None:
    checked = 0
    for label, question, grade_it in _graded(registered_families()[name]):
        answer = float(question.answer)  # type: ignore[arg-type]
        tolerance = question.tolerance or Tolerance()
        own, common = slip_candidates(question)
        for off in OFF:
            value = answer * (1 + off)
            if tolerance.accepts(answer, value) or answer == 0:
                continue
            if any(_near(1 + off, c.ratio, 0.01) for c in (*own, *common)):
                continue  # a slip applies there (GB for GiB is 7.4%): named, rightly
            verdict: Verdict = grade_it(typed(value, None))  # type: ignore[operator]
            assert verdict.correct is False and verdict.slips == (), (label, off, verdict)
            percent = f"{abs(off) * 100:.2g}"
            key = "grading.off.low" if off < 0 else "grading.off.high"
            assert verdict.message.endswith(t(key, "en", percent=percent)), (label, verdict)
            checked += 1
    assert checked


def _numeric(answer: float, unit: str) -> Question:
    return Question(kind=Kind.NUMERIC, post="intro", prompt="?", explanation="",
                    answer=answer, unit=unit, tolerance=Tolerance(relative=0.02))


def test_a_time_24_percent_low_is_not_called_kib() -> None:
    """An all-reduce time answered 2.4% low (1/1.024): a time is not measured in bytes, so
    no KB/KiB slip; the answer is told how far off."""
    verdict = grade(_numeric(10.0, "ms"), f"{10 / 1.024:.6f}")
    assert verdict.correct is False and verdict.slips == ()
    assert verdict.message.endswith(t("grading.off.low", "en", percent="2.3"))
    assert grade(_numeric(10.0, "ms"), "80").slips == ()  # ×8 is bits only for bytes
    assert grade(_numeric(10.0, "GB/s"), "80").slips == ("bits",)


def test_the_binary_slip_follows_the_answers_prefix() -> None:
    """GB and GiB differ by 1.024³ = 1.0737; ×1.024² (MB for MiB) is no slip in a GB answer,
    so a MoE's 1.05 off is not "decimal versus binary"."""
    assert grade(_numeric(100.0, "GB"), f"{100 / 1.024**3:.6f}").slips == ("binary",)
    assert grade(_numeric(100.0, "GB"), f"{100 / 1.024**2:.6f}").slips == ()
    assert grade(_numeric(100.0, "GB"), "105.2").slips == ()
    assert grade(_numeric(100.0, "MB"), f"{100 / 1.024**2:.6f}").slips == ("binary",)


def test_a_moe_sized_from_its_active_parameters_is_named() -> None:
    """Mixtral 8x7B: 46.7B parameters, 12.9B active (Mistral AI's model card): weights from
    the active ones are the moe_active slip, not a unit slip."""
    family = registered_families()["weights-size"]
    question = next(q for q in (family.generate(s, "en", {"models": ["mixtral-8x7b"]})
                                for s in range(20)))
    share = next(s.ratio for s in question.slips if s.key == "moe_active")
    assert isinstance(share, float) and 0.2 < share < 0.35
    verdict = grade(question, typed(float(question.answer) * share,  # type: ignore[arg-type]
                                    question.unit))
    assert verdict.slips == ("moe_active",)


def test_a_ring_answered_without_its_2_is_not_called_the_data_type() -> None:
    """(n−1)/n for 2(n−1)/n halves the time, as one byte a BF16 value and both directions
    do: three slips, one factor; the answer says ×2, no cause."""
    family = registered_families()["ring-allreduce"]
    question = family.generate(0, "en", {})
    answer = float(question.answer)  # type: ignore[arg-type]
    verdict = grade(question, typed(answer / 2, question.unit))
    assert verdict.correct is False and verdict.slips == ()
    assert "data type" not in verdict.message
    assert verdict.message.endswith(t("grading.off.times_low", "en", factor="2"))


@pytest.mark.parametrize("name", [n for n, f in registered_families().items()
                                  if f.kind is Kind.SCENARIO])
def test_a_step_names_the_slips_of_its_one_step_family(name: str) -> None:
    """A scenario step that computes as a one-step family declares that family's slips
    (FP8 KV sized as BF16 is named in the serving step as in kv-cache-per-token)."""
    table = registered_families()
    for seed in range(6):
        question = table[name].generate(seed, "en", {})
        for part in question.parts:
            if not part.like:
                continue
            alone = {s.key for s in table[part.like].slips}
            declared = {s.key for s in part.question.slips}
            assert declared & alone, (name, part.name)  # some resolve for every instance


def test_a_step_missing_a_param_its_familys_slips_read_fails_loudly() -> None:
    """A step that computes as kv-cache-per-token without ``kv_dtype`` in its params would
    drop the dtype slips silently; building it fails instead."""
    from studyapp.questions.generators.families.memory import KV_CACHE_PER_TOKEN
    from studyapp.questions.generators.families.scenarios import like
    from studyapp.questions.scenario import Step, build_parts

    step = like(KV_CACHE_PER_TOKEN, Step("kv", lambda e: 1.0, "GB"))
    with pytest.raises(KeyError, match="kv_dtype"):
        build_parts([step], {"attention": "gqa"}, seed=0, lang="en", prompts={"kv": "?"},
                    methods={}, solutions={})
