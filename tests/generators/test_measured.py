"""Predict, then check: every published measurement each family asks, in both languages.

The prediction a step expects is held against the datasheet figure the entry itself
records (``theory``), and the share against the entry's own ``efficiency``: a
family that predicted from another figure than the one the measurement is read
against fails here. The KV-cache arithmetic is held against the engines' own logs.
"""

from __future__ import annotations

import pytest

from studyapp.catalog import load_catalog
from studyapp.catalog.measurements import Measurement
from studyapp.i18n import t
from studyapp.infra import forward_flops, kv_bytes_per_token
from studyapp.infra.shapes import kv_shape
from studyapp.questions.generators import registered_families
from studyapp.questions.generators.context import DrawContext
from studyapp.questions.generators.families.measured import (
    ALLREDUCE,
    DECODE,
    KV,
    MATMUL,
    PREDICTS,
    Predict,
    pool,
    pool_size,
    question_of,
)
from studyapp.questions.model import Kind, Question
from studyapp.questions.scenario import grade_part

LANGS = ("en", "es")


def cases(family: Predict) -> list[tuple[Measurement, str]]:
    return [(m, lang) for m in pool(family) for lang in LANGS]


def steps(q: Question) -> dict[str, object]:
    return {p.name: p.question.answer for p in q.parts}


def check_common(q: Question, m: Measurement, lang: str) -> None:
    """The share step names the source and its year; the last step's answer is the
    entry's gap, among the choices; the worked chain shows the source's address."""
    assert q.kind is Kind.SCENARIO and q.params["measurement"] == m.id
    share = next(p for p in q.parts if p.name == "efficiency")
    assert str(m.date.year) in share.question.prompt
    assert str(m.sources[0]) in q.explanation
    cause = q.parts[-1].question
    assert cause.kind is Kind.CHOICE
    assert cause.answer == t(f"scen.gap.{m.gap}", lang)
    assert cause.choices.count(cause.answer) == 1 and len(cause.choices) == 4
    assert m.efficiency is not None
    assert share.question.answer == pytest.approx(m.efficiency * 100, rel=1e-3)


@pytest.mark.parametrize(("m", "lang"), cases(ALLREDUCE), ids=lambda v: getattr(v, "id", v))
def test_allreduce_predicts_the_one_way_link_the_entry_is_read_against(
        m: Measurement, lang: str) -> None:
    q = question_of(ALLREDUCE, DrawContext(1, lang), m)
    # NVLink 4: 900 GB/s both ways, 450 each (nvidia.com/en-us/data-center/h100)
    assert steps(q)["theory"] == pytest.approx(m.theory)
    check_common(q, m, lang)


@pytest.mark.parametrize(("m", "lang"), cases(MATMUL), ids=lambda v: getattr(v, "id", v))
def test_matmul_predicts_the_time_at_the_peak_the_entry_is_read_against(
        m: Measurement, lang: str) -> None:
    q = question_of(MATMUL, DrawContext(1, lang), m)
    rows, cols, inner = (int(x) for x in str(m.setup["best_shape"]).split("x"))
    assert m.theory is not None and m.efficiency is not None
    ideal = forward_flops(cols * inner, rows) / (m.theory * 1e12) * 1e6
    a = steps(q)
    assert a["ideal_us"] == pytest.approx(ideal, rel=1e-4)
    assert a["measured_us"] == pytest.approx(ideal / m.efficiency, rel=1e-4)
    check_common(q, m, lang)


@pytest.mark.parametrize(("m", "lang"), cases(KV), ids=lambda v: getattr(v, "id", v))
def test_kv_estimate_and_the_engines_log(m: Measurement, lang: str) -> None:
    q = question_of(KV, DrawContext(1, lang), m)
    a = steps(q)
    measured_share = m.value / float(a["tokens"])  # type: ignore[arg-type]
    assert a["efficiency"] == pytest.approx(measured_share * 100, rel=1e-3)
    assert 0 < measured_share < 1  # the engine never holds more than the estimate
    assert q.parts[-1].question.answer == t(f"scen.gap.{m.gap}", lang)


def test_the_kv_bytes_per_token_match_the_engines_logs() -> None:
    """vLLM issue 21348 (Qwen3-235B-A22B-FP8, 4 × H100): vLLM logs "Available KV cache
    memory: 8.11 GiB" and "GPU KV cache size: 178,880 tokens"; SGLang logs 367,404
    tokens, "K size: 8.23 GB, V size: 8.23 GB" (GiB). With the catalog's shape (94
    layers, 4 KV heads of 128, BF16) a GPU keeps a quarter of 192,512 bytes a token."""
    cat = load_catalog()
    per_gpu = kv_bytes_per_token(kv_shape(cat.models["qwen3-235b-a22b"]), "bf16") / 4
    vllm = {m.id: m for m in cat.measurements}["h100-sxm-vllm-qwen3-235b-fp8-tp4-tokens"]
    sglang = {m.id: m for m in cat.measurements}["h100-sxm-sglang-qwen3-235b-fp8-tp4-tokens"]
    assert vllm.value * per_gpu <= 8.11 * 2**30  # whole blocks inside what was available
    assert vllm.value * per_gpu == pytest.approx(8.11 * 2**30, rel=0.02)
    assert sglang.value * per_gpu == pytest.approx((8.23 + 8.23) * 2**30, rel=0.005)


@pytest.mark.parametrize(("m", "lang"), cases(DECODE), ids=lambda v: getattr(v, "id", v))
def test_decode_ceiling_is_the_entrys_theory(m: Measurement, lang: str) -> None:
    q = question_of(DECODE, DrawContext(1, lang), m)
    # 2 × 3.35 TB/s / 70.55 GB of FP8 weights = 95.0 tokens/s (Llama 3.1 70B on 2 H100)
    assert steps(q)["ceiling"] == pytest.approx(m.theory, rel=1e-3)
    check_common(q, m, lang)


@pytest.mark.parametrize("family", PREDICTS, ids=lambda f: f.name)
def test_every_family_has_measurements_and_speaks_both_languages(family: Predict) -> None:
    assert pool(family), family.name
    registered = registered_families()[family.name]
    for seed in range(8):
        en, es = (registered.generate(seed, lang, {}) for lang in LANGS)
        assert en.params == es.params and en.prompt != es.prompt
        assert [p.question.answer for p in en.parts[:-1]] == \
            [p.question.answer for p in es.parts[:-1]]


def test_the_gpus_option_narrows_the_pool_and_an_empty_one_is_refused() -> None:
    assert pool_size("measured-matmul", {"gpus": ["gaudi2", "gaudi3"]}) == 2
    family = registered_families()["measured-matmul"]
    q = family.generate(3, "en", {"gpus": ["gaudi3"]})
    assert q.params["gpu"] == "gaudi3"
    with pytest.raises(LookupError):
        family.generate(3, "en", {"gpus": ["tpu-v5e"]})
    assert pool_size("weights-size") is None


@pytest.mark.parametrize("response", ["106.7", "106.7 %", "106.7%"])
def test_the_share_is_answered_as_a_percentage(response: str) -> None:
    """480 of 450 GB/s is 106.7% (NVIDIA/nccl-tests issue 212: NVLS peak on 8 H100)."""
    peak = {m.id: m for m in load_catalog().measurements}["h100-sxm-allreduce-nvls-peak"]
    q = question_of(ALLREDUCE, DrawContext(1, "en"), peak)
    theory = grade_part(q, 0, "450", [])
    share = grade_part(q, 1, response, [theory])
    assert theory.correct and share.correct


def test_a_wrong_prediction_carries_into_the_share() -> None:
    """Predicting the both-ways 900 GB/s, 480 GB/s is 53.3% of it: right from the learner's
    own prediction, wrong against the true one."""
    peak = {m.id: m for m in load_catalog().measurements}["h100-sxm-allreduce-nvls-peak"]
    q = question_of(ALLREDUCE, DrawContext(1, "en"), peak)
    theory = grade_part(q, 0, "900", [])
    share = grade_part(q, 1, "53.3", [theory])
    assert not theory.correct and share.carried and not share.correct


def test_the_right_cause_moves_among_the_choices() -> None:
    """Every KV entry's cause is the engine's own memory: were the choices in one order,
    the first would always be right."""
    m = pool(KV)[0]
    places = set()
    for seed in range(20):
        cause = question_of(KV, DrawContext(seed, "en"), m).parts[-1].question
        places.add(cause.choices.index(str(cause.answer)))
    assert len(places) >= 3
