"""Quality gate for every generator family: 1,000 seeded instances each.

Every instance must be well formed in both languages, keep its margin, and
agree with ``studyapp.infra`` recomputed here from the instance's params.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping
from functools import cache
from typing import Any

import pytest
from module_caches import let_go_at_module_end

from studyapp.catalog import load_catalog
from studyapp.infra import (
    checkpoint_bytes,
    cluster_mtbf_seconds,
    decode,
    fit,
    kv_bytes_per_token,
    kv_cache_bytes,
    kv_tokens_per_layer,
    max_tokens_that_fit,
    min_devices,
    prefill_seconds,
    ridge_point,
    ring_allreduce_seconds,
    training_flops,
    training_memory_bytes,
    training_seconds,
    transfer_seconds,
    usable_bytes,
    weights_bytes,
    young_daly_interval,
)
from studyapp.infra.collectives import (
    SCALE_UP_LATENCY_S,
    allreduce_time,
    bus_bandwidth,
    network_bus_bandwidth,
    scale_up_efficiency,
)
from studyapp.infra.compute import ADAM_MIXED_BYTES_PER_PARAM
from studyapp.infra.network import mesh_bandwidth, tp_allreduce_bytes
from studyapp.infra.shapes import active_params, kv_shape, one_way_bytes_s
from studyapp.questions.generators import registered_families
from studyapp.questions.generators.drawing import instance_seed
from studyapp.questions.generators.families.conceptual import choice_label
from studyapp.questions.model import Kind, Question

INSTANCES = 1000
POSTS = {"intro", "hbm-kv-cache", "h100", "h200", "blackwell", "mi350", "tpu", "trainium",
         "gaudi", "hgx", "nvlink-infiniband", "storage-checkpoints"}
PLACEHOLDER = re.compile(r"\{[A-Za-z_][A-Za-z0-9_.]*\}")
GB, TB = 1e9, 1e12


SPANISH_INSTANCES = 250
"""Draws compared across languages (the language never changes a draw): a quarter of
the English ones, which are all checked; the quality gate reads Spanish draws too."""


@cache
def instances(name: str, lang: str, count: int = INSTANCES) -> tuple[Question, ...]:
    family = registered_families()[name]
    return tuple(family.generate(instance_seed(2024, i), lang, {}) for i in range(count))


def in_unit(value_si: float, unit: str | None) -> float:
    scale = {"GB": GB, "TB": TB, "KB": 1e3, "GiB": 2**30, "ms": 1e-3, "s": 1.0, "min": 60.0,
             "days": 86400.0, "TB/s": TB, "GB/s": GB, "PFLOPS": 1e15, "TFLOPS": 1e12}
    return value_si / scale[unit] if unit in scale else value_si


def _model(p: Mapping[str, Any]) -> Any:
    return load_catalog().models[p["model"]]


def _gpu(p: Mapping[str, Any], key: str = "gpu") -> Any:
    return load_catalog().accelerators[p[key]]


def _fit(p: Mapping[str, Any]) -> Any:
    m, g = _model(p), _gpu(p)
    tokens: float = p["context"]
    if m.sliding_window and m.sliding_window_layers:
        # gpt-oss (18 of 36 layers keep 128 tokens), Llama 4 (36 of 48 keep an 8,192 chunk):
        # the other layers keep the whole context
        tokens = kv_tokens_per_layer(p["context"], m.sliding_window, m.sliding_window_layers,
                                     m.layers)
    return fit(m.params, p["dtype"], kv_shape(m), g.memory_bytes, context=tokens,
               batch=p["batch"])


def _tp_bus(gpu_id: str) -> float:
    """NCCL's bus bandwidth on the chip's NVLink: its per-direction rate × the nccl-tests share."""
    chip = load_catalog().accelerators[gpu_id]
    return bus_bandwidth((chip.scale_up_gb_s or 0) * GB / 2,
                         scale_up_eff=scale_up_efficiency(chip.scale_up))


def _allreduce_bandwidth(p: dict[str, Any]) -> float:
    """A full mesh (Infinity Fabric) uses n − 1 of its links at once; across nodes NCCL runs
    one ring per network card, so a node's cards add up; otherwise one link."""
    link = load_catalog().interconnects[p["link"]]
    if link.per_peer_gb_s and link.peers:
        return mesh_bandwidth(_one_way(p["link"]) * link.peers, link.peers, p["gpus"])
    if p["nodes"] > 1:
        return network_bus_bandwidth(p["cards"], _one_way(p["link"]), card_efficiency=1.0)
    return _one_way(p["link"])


def _one_way(link_id: str) -> float:
    """A link's bytes/s each way to one peer (a mesh: one link reaches one peer)."""
    return one_way_bytes_s(load_catalog().interconnects[link_id])


def _max_context(p: Mapping[str, Any]) -> float:
    m, g = _model(p), _gpu(p)
    free = usable_bytes(g.memory_bytes) - weights_bytes(m.params, p["dtype"])
    if p["solve_for"] == "context":
        return max_tokens_that_fit(free, kv_shape(m), p["kv_dtype"], p["batch"])
    per_sequence = kv_bytes_per_token(kv_shape(m), p["kv_dtype"]) * p["context"]
    return float(math.floor(free / per_sequence))


def _system_total(p: Mapping[str, Any]) -> float:
    g = _gpu(p)
    n = p["gpus"]
    if p["quantity"] == "memory":  # HBM totals in its real unit: the vendor's GB are GiB
        return float(g.nominal_memory_bytes * n)
    return float({"memory": g.memory_bytes * n, "bandwidth": g.bandwidth_bytes_s * n,
            "scale_up": (g.scale_up_gb_s or 0) * GB * n,
            "bf16": g.bf16_dense_tflops * 1e12 * n}[p["quantity"]])


def _tpu_pod(p: Mapping[str, Any]) -> float:
    g = _gpu(p)
    if p["ask"] == "chips":
        return min_devices(weights_bytes(_model(p).params, "bf16"), g.memory_bytes)
    if p["ask"] == "memory":
        return float(g.nominal_memory_bytes * p["pod_chips"])
    return float(g.bf16_dense_tflops * 1e12 * p["pod_chips"])


NUMERIC: dict[str, Callable[[Mapping[str, Any]], float]] = {
    "weights-size": lambda p: weights_bytes(p["params"], p["dtype"]),
    "gb-vs-gib": lambda p: (p["size_gb"] * GB if p["direction"] == "gb-to-gib"
                            else p["given"]["mib"] * 2**20 if p["direction"] == "mib-to-gib"
                            else p["given"]["mib_gb"] * 2**20 if p["direction"] == "mib-to-gb"
                            else p["size_gib"] * 2**30),
    "kv-cache-per-token": lambda p: kv_bytes_per_token(kv_shape(_model(p)), p["kv_dtype"]),
    "kv-cache-total": lambda p: kv_cache_bytes(kv_shape(_model(p)), p["kv_dtype"],
                                               p["context"], p["batch"]),
    "min-gpus": lambda p: _fit(p).min_devices,
    "max-context-that-fits": _max_context,
    # batch 1: a mixture of experts reads its active parameters (memory-bound everywhere)
    "decode-ceiling": lambda p: decode(weights_bytes(active_params(_model(p)), p["dtype"]),
                                       0, _gpu(p).bandwidth_bytes_s).tokens_per_s,
    "decode-compare": lambda p: (_gpu(p, "fast_gpu").bandwidth_bytes_s
                                 / _gpu(p, "slow_gpu").bandwidth_bytes_s),
    "ridge-point": lambda p: (p["intensity"] * _gpu(p).bandwidth_bytes_s if p["ask"] == "attainable"
                              else ridge_point(p["tflops"] * 1e12, _gpu(p).bandwidth_bytes_s)),
    "prefill-time": lambda p: prefill_seconds(p["params_active"], p["tokens"],
                                              _gpu(p).bf16_dense_tflops * 1e12,
                                              p["utilisation"]),
    "training-days": lambda p: training_seconds(training_flops(p["params"], p["tokens"]),
                                                _gpu(p).bf16_dense_tflops * 1e12, p["gpus"],
                                                p["mfu"]),
    "training-memory": lambda p: (
        float(min_devices(training_memory_bytes(p["params"]), _gpu(p).memory_bytes))
        if p.get("ask") == "fewest"
        else training_memory_bytes(p["params"], ADAM_MIXED_BYTES_PER_PARAM, p["zero_stage"],
                                   p["devices"])),
    "checkpoint-write": lambda p: (checkpoint_bytes(p["params"]) if p["ask"] == "size"
                                   else transfer_seconds(checkpoint_bytes(p["params"]),
                                                         p["write_gb_s"] * GB)),
    "weights-load-time": lambda p: transfer_seconds(weights_bytes(p["params"], p["dtype"]),
                                                    p["read_gb_s"] * GB),
    "checkpoint-interval": lambda p: young_daly_interval(
        p["checkpoint_seconds"], cluster_mtbf_seconds(p["device_mtbf_hours"] * 3600, p["gpus"])),
    "link-transfer": lambda p: transfer_seconds(p["size_gb"] * GB, _one_way(p["link"])),
    "bits-vs-bytes": lambda p: p["gbit_s"] * 1e9 / 8 * p["ports"],
    "ring-allreduce": lambda p: ring_allreduce_seconds(p["size_bytes"], p["gpus"],
                                                       _allreduce_bandwidth(p)),
    "tp-allreduce": lambda p: allreduce_time(
        tp_allreduce_bytes(p["batch"], load_catalog().models[p["model"]].hidden_size, 2),
        p["tp"], _tp_bus(p["gpu"]), calls=2 * load_catalog().models[p["model"]].layers,
        latency_s=SCALE_UP_LATENCY_S).seconds,
    "gaudi-ethernet": lambda p: (p["port_gbit_s"] * 1e9 / 8 * p["ports"] * p["chips"]
                                 * (2 if p["both_ways"] else 1)),
    "hgx-node-totals": _system_total,
    "nvl72-rack-totals": _system_total,
    "trainium-server-totals": _system_total,
    "tpu-pod": _tpu_pod,
}


def _best(p: Mapping[str, Any], score: Callable[[Any], float]) -> tuple[str, float, float]:
    chips = [load_catalog().accelerators[i] for i in p["gpus"]]
    ranked = sorted(chips, key=score, reverse=True)
    return ranked[0].name, score(ranked[0]), score(ranked[1])


def check_choice(name: str, q: Question) -> None:
    p = q.params
    catalog = load_catalog()
    if name == "chip-ranking":
        best, first, second = _best(p, lambda c: float(getattr(c, p["metric"]) or 0))
        assert q.answer == choice_label(best) and first >= 1.1 * second
    elif name == "perf-per-watt":
        def score(c: Any) -> float:
            figure = c.bf16_dense_tflops if p["metric"] == "tflops" else c.memory_bandwidth_tb_s
            return float(figure / c.tdp_w)
        best, first, second = _best(p, score)
        assert q.answer == best and first >= 1.1 * second
    elif name == "memory-type":
        assert q.answer == catalog.accelerators[p["gpu"]].memory_type
    elif name == "low-precision-speedup":
        chip = catalog.accelerators[p["gpu"]]
        low = getattr(chip, f"{p['precision']}_dense_tflops")
        assert p["low_tflops"] == low
        if low is not None:
            assert abs(low / chip.bf16_dense_tflops - p["speedup"]) <= 0.1 * p["speedup"]
    elif name == "dense-vs-sparse":
        chip = catalog.accelerators[p["gpu"]]
        assert p["dense_tflops"] == getattr(chip, f"{p['precision']}_dense_tflops")
        # the vendor's printed headline, about twice the dense figure (2:4 sparsity)
        assert p["sparse_tflops"] == (chip.sparse_headline_tflops or {})[p["precision"]]
        assert p["sparse_tflops"] == pytest.approx(2 * p["dense_tflops"], rel=0.03)


def check_truefalse(name: str, q: Question) -> None:
    p = q.params
    if name == "fits-on-gpu":
        result = _fit(p)
        assert q.answer == result.fits
        if p["margin_kept"]:
            gap = abs(result.required_bytes - result.available_bytes)
            assert gap >= 0.1 * min(result.required_bytes, result.available_bytes) * (1 - 1e-9)
    elif name == "compute-or-memory-bound":
        chip = load_catalog().accelerators[p["gpu"]]
        peak = getattr(chip, f"{p['precision']}_dense_tflops")
        ridge = ridge_point(peak * 1e12, chip.bandwidth_bytes_s)
        intensity = p["intensity_flop_per_byte"]
        assert q.answer == (intensity >= ridge)
        assert abs(intensity - ridge) >= 0.1 * min(intensity, ridge) or "10" in q.explanation


@pytest.mark.parametrize("name", list(registered_families()))
def test_family_instances_are_sound(name: str) -> None:
    family = registered_families()[name]
    assert family.post in POSTS
    assert set(family.description) >= {"es", "en"}
    kinds_seen = set()
    for q in instances(name, "en"):
        assert q.family == name and q.post == family.post and q.kind is family.kind
        kinds_seen.add(q.kind)
        json.dumps(dict(q.params))  # params stay JSON-serialisable
        assert q.prompt.strip() and q.explanation.strip()
        assert not PLACEHOLDER.search(q.prompt + q.explanation), q.prompt + q.explanation
        if q.kind is Kind.NUMERIC:
            assert isinstance(q.answer, float) and math.isfinite(q.answer)
            expected = in_unit(NUMERIC[name](q.params), q.unit)
            assert q.answer == pytest.approx(expected, rel=1e-4), (q.params, q.unit)
            assert q.tolerance is not None
        elif q.kind is Kind.CHOICE:
            keys = [c.strip().casefold() for c in q.choices]
            assert len(set(keys)) == len(keys) >= 2
            assert q.choices.count(str(q.answer)) == 1
            check_choice(name, q)
        elif q.kind is Kind.SCENARIO:
            assert 3 <= len(q.parts) <= 6  # each step is checked in test_scenarios.py
        else:
            assert isinstance(q.answer, bool)
            check_truefalse(name, q)


@pytest.mark.parametrize("name", list(registered_families()))
def test_family_speaks_spanish(name: str) -> None:
    english = instances(name, "en")[:SPANISH_INSTANCES]
    for q_en, q_es in zip(english, instances(name, "es", SPANISH_INSTANCES), strict=True):
        assert not PLACEHOLDER.search(q_es.prompt + q_es.explanation)
        assert q_es.prompt != q_en.prompt
        assert q_es.params == q_en.params  # the language never changes the draw
        if q_es.kind is Kind.NUMERIC:
            assert q_es.answer == q_en.answer


@pytest.mark.parametrize("name", list(registered_families()))
def test_same_seed_same_question(name: str) -> None:
    family = registered_families()[name]
    for seed in (0, 1, 99, 2**40):
        assert family.generate(seed, "en", {}) == family.generate(seed, "en", {})
    assert len({family.generate(s, "en", {}).prompt for s in range(30)}) > 1


def test_truefalse_families_are_balanced() -> None:
    for name, family in registered_families().items():
        if family.kind is Kind.TRUEFALSE:
            yes = sum(bool(q.answer) for q in instances(name, "en"))
            assert 0.3 * INSTANCES < yes < 0.7 * INSTANCES, (name, yes)


def test_every_post_has_a_family() -> None:
    assert {f.post for f in registered_families().values()} == POSTS
    assert len(registered_families()) >= 20


def test_weights_load_time_matches_the_storage_post() -> None:
    # content/posts/storage-checkpoints.en.md: Llama-3.1-70B's weights, 70.55e9 × 2 =
    # 141.1 GB; read at 40 GB/s they take 141.1 / 40 = 3.5 s (the 70B checkpoint card's
    # "3.5 s from writing only the weights"); a PCIe Gen5 NVMe drive reads about 13 GB/s
    # (Samsung PM1743, 13,000 MB/s), 141.1 / 13 = 10.9 s
    family = registered_families()["weights-load-time"]
    seen: dict[float, float] = {}
    for seed in range(200):
        q = family.generate(seed, "en", {"models": ["llama-3.1-70b"], "dtypes": ["bf16"]})
        seen[q.params["read_gb_s"]] = float(q.answer)
        assert "141.1 GB" in q.explanation
    assert seen[40.0] == pytest.approx(3.53, abs=0.01)
    assert seen[13.0] == pytest.approx(10.85, abs=0.01)


_forget_draws = let_go_at_module_end(instances)
