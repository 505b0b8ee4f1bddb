"""Worked explanations show every intermediate figure; wording reads right in both languages.

A learner must be able to redo each step from the explanation alone: the
figures below are recomputed here and looked for in the text.
"""

from __future__ import annotations

import re
from functools import cache

import pytest
from module_caches import let_go_at_module_end

from studyapp.catalog import load_catalog
from studyapp.infra import kv_bytes_per_token, usable_bytes, weights_bytes
from studyapp.infra.shapes import kv_shape
from studyapp.questions.generators import get_family, registered_families
from studyapp.questions.generators.drawing import instance_seed
from studyapp.questions.generators.wording import num, sci
from studyapp.questions.grading import expected_display
from studyapp.questions.model import Question

LANGS = ("es", "en")
RUNS = 200


@cache
def run(name: str, lang: str) -> tuple[Question, ...]:
    family = registered_families()[name]
    return tuple(family.generate(instance_seed(77, i), lang, {}) for i in range(RUNS))


def text(q: Question) -> str:
    return " ".join([q.prompt, q.explanation, *(q.choices or ()), str(q.answer)])


@pytest.mark.parametrize("lang", LANGS)
def test_decode_ceiling_divides_bandwidth_by_the_weight_bytes(lang: str) -> None:
    options = {"models": ["llama-3.1-8b"], "gpus": ["b200"], "dtypes": ["bf16"]}
    q = get_family("decode-ceiling").generate(0, lang, options)
    weights = num(16.06, lang, 4)
    assert f"{weights} GB" in q.explanation  # the weights in GB, not just params × bytes
    # the division with both numbers, in matching units, and its result
    assert f"{num(8000, lang)} GB/s / {weights} GB = {num(498, lang)} tokens/s" in (
        q.explanation)
    assert "10^9" in q.explanation and ("lote 1" if lang == "es" else "batch 1") in q.explanation
    assert q.answer == pytest.approx(8e12 / 16.06e9, rel=1e-4)


@pytest.mark.parametrize("lang", LANGS)
def test_decode_compare_shows_both_ceilings_in_gb_per_s(lang: str) -> None:
    options = {"models": ["llama-3.1-8b"], "gpus": ["b200", "h100-sxm"]}
    q = get_family("decode-compare").generate(0, lang, options)
    weights = num(16.06, lang, 4)
    assert f"{num(8000, lang)} GB/s / {weights} GB" in q.explanation
    assert f"{num(3350, lang)} GB/s / {weights} GB" in q.explanation


@pytest.mark.parametrize("name", ["fits-on-gpu", "min-gpus"])
@pytest.mark.parametrize("lang", LANGS)
def test_kv_step_multiplies_the_per_token_bytes(name: str, lang: str) -> None:
    catalog = load_catalog()
    for q in run(name, lang)[:50]:
        model = catalog.models[q.params["model"]]
        per_token = kv_bytes_per_token(kv_shape(model), q.params["dtype"])
        context = num(q.params["context"], lang)
        if "window" in q.params["given"]:  # some layers keep a window: the mean kept tokens
            g = q.params["given"]
            kept = (g["window_layers"] * min(g["context"], g["window"])
                    + (g["layers"] - g["window_layers"]) * g["context"]) / g["layers"]
            context = num(kept, lang, 6)
        assert f"{num(per_token, lang, 6)} B/token × {context} tokens" in q.explanation


@pytest.mark.parametrize("lang", LANGS)
def test_prefill_divides_flops_by_the_sustained_rate(lang: str) -> None:
    for q in run("prefill-time", lang)[:50]:
        p = q.params
        chip = load_catalog().accelerators[p["gpu"]]
        flops = 2 * p["params_active"] * p["tokens"]
        rate = chip.bf16_dense_tflops * 1e12 * p["utilisation"]
        assert f"({sci(flops, lang, 4)} FLOP) / ({sci(rate, lang, 4)} FLOP/s)" in q.explanation


@pytest.mark.parametrize("lang", LANGS)
def test_max_context_shows_the_quotient_before_rounding(lang: str) -> None:
    word = "redondeado hacia abajo" if lang == "es" else "rounded down"
    for q in run("max-context-that-fits", lang)[:50]:
        assert f"{word}: {num(float(q.answer), lang)}" in q.explanation


@pytest.mark.parametrize("lang", LANGS)
def test_system_totals_show_the_sum_before_the_unit_change(lang: str) -> None:
    options = {"systems": ["hgx-h200"], "quantities": ["memory"]}
    q = get_family("hgx-node-totals").generate(0, lang, options)
    assert f"8 × 141 GiB = {num(1128, lang)}" in q.explanation  # HBM GB are GiB
    options = {"systems": ["hgx-h200"], "quantities": ["scale_up"]}
    q = get_family("hgx-node-totals").generate(0, lang, options)
    assert "900 GB/s / 2 = 450 GB/s" in q.explanation


@pytest.mark.parametrize("lang", LANGS)
def test_training_days_divide_seconds_by_seconds_per_day(lang: str) -> None:
    q = run("training-days", lang)[0]
    assert f"/ {num(86400, lang)} s" in q.explanation


@pytest.mark.parametrize("lang", LANGS)
def test_young_daly_names_the_checkpoint_cost(lang: str) -> None:
    q = run("checkpoint-interval", lang)[0]
    assert f"C = {num(q.params['checkpoint_seconds'], lang)} s" in q.explanation


@pytest.mark.parametrize("name", list(registered_families()))
@pytest.mark.parametrize("lang", LANGS)
def test_no_raw_message_key_reaches_the_learner(name: str, lang: str) -> None:
    for q in run(name, lang):
        assert not re.search(r"\bgen\.[a-z]", text(q)), text(q)


@pytest.mark.parametrize("name", list(registered_families()))
def test_dtypes_are_upper_case_in_prose(name: str) -> None:
    for lang in LANGS:
        for q in run(name, lang):
            assert not re.search(r"\b(bf16|fp8|fp16|fp32|fp4|int4|int8)\b",
                                 q.prompt + " " + q.explanation), q.prompt


@pytest.mark.parametrize("name", list(registered_families()))
def test_spanish_text_has_no_english_leftovers(name: str) -> None:
    english = re.compile(r"\b(also|runtime|framework|bridge|torus|gen|the|with|of|per)\b")
    for q in run(name, "es"):
        assert not english.search(text(q)), text(q)


def test_a_single_sequence_is_singular() -> None:
    options = {"batches": [1]}
    for lang, wrong in (("es", "1 secuencias"), ("en", "1 sequences")):
        for seed in range(20):
            q = get_family("kv-cache-total").generate(seed, lang, options)
            assert wrong not in q.prompt + q.explanation


def test_fit_question_agrees_with_its_subject() -> None:
    q = get_family("fits-on-gpu").generate(0, "en", {})
    assert q.prompt.startswith("Does ")
    assert get_family("fits-on-gpu").generate(0, "es", {}).prompt.startswith("¿Cabe ")


@pytest.mark.parametrize("lang", LANGS)
def test_bottleneck_answers_the_limit_of_each_scenario(lang: str) -> None:
    """The worded scenarios, still drawn when a card names them."""
    limit = {"decode": "res_bandwidth", "prefill": "res_compute", "capacity": "res_capacity",
             "network": "res_network", "storage": "res_storage", "scale_up": "res_scale_up"}
    from studyapp.i18n import t

    catalog = load_catalog()
    family = get_family("bottleneck")
    for i in range(RUNS):
        q = family.generate(instance_seed(77, i), lang, {"scenarios": list(limit)})
        scenario = q.params["scenario"]
        assert q.answer == t(f"gen.neck.{limit[scenario]}", lang)
        if scenario in ("decode", "prefill"):  # else "memory capacity" would be right too
            model = catalog.models[q.params["model"]]
            chip = catalog.accelerators[q.params["gpu"]]
            assert weights_bytes(model.params, "bf16") <= usable_bytes(chip.memory_bytes)


@pytest.mark.parametrize("lang", LANGS)
def test_bottleneck_from_numbers_is_the_limit_the_numbers_give(lang: str) -> None:
    """Recomputed from the drawn setup: capacity when weights + KV cache exceed 90% of
    HBM, else compute when FLOPs per byte read pass the ridge point, else bandwidth;
    each limit drawn about as often, none a close call."""
    from collections import Counter

    from studyapp.i18n import t

    catalog = load_catalog()
    seen: Counter[str] = Counter()
    for q in run("bottleneck", lang):
        p = q.params
        model, chip = catalog.models[p["model"]], catalog.accelerators[p["gpu"]]
        weights = weights_bytes(model.params, "bf16")
        kv = kv_bytes_per_token(kv_shape(model), "bf16") * p["context"] * p["batch"]
        tokens = p["batch"] if p["scenario"] == "serve-decode" else p["batch"] * p["context"]
        intensity = 2 * model.params * tokens / (weights + kv)
        ridge = chip.bf16_dense_tflops * 1e12 / chip.bandwidth_bytes_s
        binds = ("capacity" if weights + kv > usable_bytes(chip.memory_bytes)
                 else "compute" if intensity > ridge else "bandwidth")
        assert q.answer == t(f"gen.neck.res_{binds}", lang), q.prompt
        if binds != "capacity":
            assert max(intensity, ridge) >= 1.5 * min(intensity, ridge)
        seen[binds] += 1
    assert min(seen.values()) >= RUNS / 6, seen


def test_no_dense_fp8_figure_only_where_the_chip_has_no_fp8() -> None:
    """Gaudi 2 runs FP8 without an official dense figure: it must not teach "none"."""
    for seed in range(300):
        q = get_family("low-precision-speedup").generate(seed, "en", {"precisions": ["fp8"]})
        if q.params["low_tflops"] is None:
            assert q.params["gpu"] in ("a100-80gb", "tpu-v5e")


def test_ring_stays_within_its_scale_up_domain() -> None:
    for seed in range(100):
        q = get_family("ring-allreduce").generate(
            seed, "en", {"links": ["infinity-fabric-mi300"], "gpu_counts": [2, 8, 64, 256]})
        assert q.params["gpus"] <= 8


def test_nvidia_scale_up_answer_holds_for_bridged_cards() -> None:
    """H200 NVL and H100 PCIe join over NVLink bridges, not NVSwitch."""
    for gpu in ("h200-nvl", "h100-pcie"):
        q = get_family("scale-up-fabric").generate(0, "en", {"gpus": [gpu]})
        assert q.answer == "NVLink"


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize(("link", "named", "not_named"), [
    ("infinity-fabric-mi300", "Infinity Fabric", "NVLink"),
    ("infinity-fabric-mi350", "Infinity Fabric", "NVLink"),
    ("nvlink-4", "NVLink", "Infinity Fabric"),
    ("ib-ndr", "NVLink", "dominio NVLink a la red"),
])
def test_ring_explanation_names_the_fabric_of_its_link(lang: str, link: str, named: str,
                                                        not_named: str) -> None:
    """A ring over AMD's mesh leaves an Infinity Fabric domain, not an NVLink one."""
    for seed in range(10):
        q = get_family("ring-allreduce").generate(seed, lang, {"links": [link]})
        assert named in q.explanation
        assert not_named not in q.explanation
        assert ("NVLink domain" in q.explanation) == (link == "nvlink-4") or lang == "es"
        assert ("dominio NVLink" in q.explanation) == (link == "nvlink-4") or lang == "en"


@pytest.mark.parametrize("lang", LANGS)
def test_bottleneck_keeps_tensor_parallelism_in_any_scale_up_domain(lang: str) -> None:
    """It lists NVLink, Infinity Fabric and ICI, so the domain is not NVLink's alone."""
    for q in run("bottleneck", lang):
        assert "NVLink domain" not in q.explanation
        assert "dominio NVLink" not in q.explanation


NUMERIC_FAMILIES = [name for name, family in registered_families().items()
                    if family.kind.value == "numeric"]


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", NUMERIC_FAMILIES)
def test_expected_line_and_worked_solution_round_one_value_alike(name: str, lang: str) -> None:
    """"Expected: 506 ms" above a solution ending "= 505 ms" tells the learner two answers."""
    for i in range(150):
        q = registered_families()[name].generate(instance_seed(11, i), lang, {})
        expected = expected_display(q).replace("\u202f", " ").replace("\u00a0", " ")
        number = re.search(r"\d[\d., ]*", expected)
        assert number is not None
        figure = number.group(0).strip().rstrip(".,")
        assert figure in q.explanation.replace("\u202f", " ").replace("\u00a0", " "), (
            expected, q.explanation)


KV_FIGURE = re.compile(r"(\d[\d.,]*) KB")


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", ["fits-on-gpu", "min-gpus", "max-context-that-fits",
                                  "kv-cache-total"])
def test_kv_per_token_reads_alike_in_prompt_and_solution(name: str, lang: str) -> None:
    """"262.144 KB" in the prompt above "= 262 KB" in the solution: one figure, one rounding."""
    for q in run(name, lang):
        in_prompt = KV_FIGURE.findall(q.prompt)
        assert len(in_prompt) == 1, q.prompt
        assert f"= {in_prompt[0]} KB" in q.explanation, (q.prompt, q.explanation)


_forget_draws = let_go_at_module_end(run)
