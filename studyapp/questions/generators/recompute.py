"""The audit's second computation of every numeric answer, from the question's given
figures and the catalog: a family whose answer disagrees with it fails the audit.

Each entry goes through ``studyapp.infra`` from the figures the question states, not
through the family's own code path, so a wrong input or unit in a family shows.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from studyapp.i18n import t
from studyapp.infra import (
    RUNTIME_BYTES,
    KVShape,
    attainable_flops,
    checkpoint_bytes,
    cluster_mtbf_seconds,
    decode,
    kv_tokens_per_layer,
    per_direction,
    prefill_seconds,
    ridge_point,
    ring_allreduce_seconds,
    training_flops,
    training_seconds,
    transfer_seconds,
    usable_bytes,
    young_daly_interval,
    zero_shares,
)
from studyapp.infra.collectives import allreduce_time
from studyapp.infra.network import tp_allreduce_bytes
from studyapp.infra.units import GIB, gbit_to_bytes_per_s
from studyapp.questions.generators.drawing import (
    prompt_numbers,
)
from studyapp.questions.model import Question

Given = Mapping[str, float]
_TIME = {"ms": 1e-3, "s": 1.0, "min": 60.0, "h": 3600.0, "days": 86400.0}


def _time(seconds: float, q: Question) -> float:
    return seconds / _TIME[q.unit or "s"]


def _one_way(g: Given) -> float:
    """GB/s each way from the quoted figure: bits / 8, or a both-ways total / 2."""
    if "gbit" in g:
        return _gb_s(g["gbit"])
    if "bidir_gb_s" in g:
        return per_direction(g["bidir_gb_s"], "bidirectional")
    return g["oneway_gb_s"]


def _gb_s(gbit_s: float) -> float:
    """A port's Gb/s as GB/s."""
    return gbit_to_bytes_per_s(gbit_s) / 1e9


def _kv_per_token(g: Given) -> float:
    if "kv_kb" in g:
        return g["kv_kb"] * 1e3
    layers = int(g["layers"])
    if "rank" in g:  # MLA, plus the sparse-attention indexer's key where there is one
        shape = KVShape(layers=layers, kv_lora_rank=int(g["rank"]),
                        qk_rope_head_dim=int(g["rope"]))
        return shape.values_per_token() * g["kv_bytes"] + layers * g.get("index_bytes", 0)
    shape = KVShape(layers=layers, kv_heads=int(g["kv_heads"]), head_dim=int(g["head_dim"]))
    return shape.values_per_token() * g["kv_bytes"]


def _kv_tokens(g: Given) -> float:
    """Mean tokens a layer keeps: the context, or less where some layers keep a window."""
    if "window" not in g:
        return g["context"]
    return kv_tokens_per_layer(int(g["context"]), int(g["window"]), int(g["window_layers"]),
                               int(g["layers"]))


def _required(g: Given) -> float:
    return g["params_b"] * 1e9 * g["bytes"] + _kv_per_token(g) * _kv_tokens(g) * g["batch"]


def _usable(g: Given) -> float:
    """What weights and KV cache get of the stated capacity (10^9-byte GB of the reported
    total): the calculator's budget, total × utilization less the stated runtime."""
    return usable_bytes(g["total_gb"] * 1e9, usable_fraction=g.get("usable", 0.9),
                        runtime_bytes=g["runtime_gb"] * 1e9 if "runtime_gb" in g
                        else RUNTIME_BYTES)


def _total(g: Given, q: Question) -> float:
    total = g["count"] * g["per_chip"]
    scale = {"TB": 1e3, "TB/s": 1e3 if q.params.get("per_chip_unit") == "GB/s" else 1.0,
             "PFLOPS": 1e3, "GiB": 1.0, "GB": 1.0, "GB/s": 1.0}
    return total / scale.get(q.unit or "", 1.0)


def _max_context(g: Given, q: Question) -> float:
    free = _usable(g) - g["params_b"] * 1e9 * g["bytes"]
    per = _kv_per_token(g) * (g["batch"] if "batch" in g else g["context"])
    return float(math.floor(free / per))


RECOMPUTE: dict[str, Callable[[Given, Question], float]] = {
    "weights-size": lambda g, q: g["params_b"] * g["bytes"] * (1e3 if q.unit == "MB" else 1.0),
    "gb-vs-gib": lambda g, q: (g["gb"] * 1e9 / GIB if "gb" in g
                               else g["mib"] / 1024 if "mib" in g
                               else g["mib_gb"] * 2**20 / 1e9 if "mib_gb" in g
                               else g["gib"] * GIB / 1e9),
    "kv-cache-per-token": lambda g, q: _kv_per_token(g) / 1e3,
    "kv-cache-total": lambda g, q: _kv_per_token(g) * g["context"] * g["batch"] / 1e9,
    "fits-on-gpu": lambda g, q: _required(g) / _usable(g),
    "min-gpus": lambda g, q: float(math.ceil(_required(g) / _usable(g))),
    "max-context-that-fits": _max_context,
    "decode-ceiling": lambda g, q: decode(
        g.get("active_b", g.get("params_b", math.nan)) * 1e9 * g["bytes"], 0.0,
        g["bandwidth_tb_s"] * 1e12).tokens_per_s,
    "decode-compare": lambda g, q: g["fast_bw"] / g["slow_bw"],
    "ridge-point": lambda g, q: (attainable_flops(g["intensity"], g["tflops"],
                                                  g["bandwidth_tb_s"])
                                 if "intensity" in g
                                 else ridge_point(g["tflops"], g["bandwidth_tb_s"])),
    # a decode step's intensity, 2 FLOPs per weight per sequence over its bytes, against
    # the ridge
    "compute-or-memory-bound": lambda g, q: (2 * g["batch"] / g["bytes"])
    / ridge_point(g["tflops"], g["bandwidth_tb_s"]),
    "prefill-time": lambda g, q: _time(prefill_seconds(g["active_b"] * 1e9, g["tokens"],
                                                       g["tflops"] * 1e12, g["utilisation"]), q),
    "training-days": lambda g, q: training_seconds(
        training_flops(g["active_b"] * 1e9, g["tokens_t"] * 1e12), g["tflops"] * 1e12,
        int(g["count"]), g["mfu"]) / 86400,
    "training-memory": lambda g, q: (
        float(math.ceil(g["params_b"] * 1e9 * _zero_bytes(g) / _usable(g))) if "total_gb" in g
        else g["params_b"] * _zero_bytes(g)),
    "checkpoint-write": lambda g, q: (
        checkpoint_bytes(g["params_b"] * 1e9, g["bytes"]) / (1e12 if q.unit == "TB" else 1e9)
        if q.params.get("ask") == "size"
        else _time(transfer_seconds(checkpoint_bytes(g["params_b"] * 1e9, g["bytes"]),
                                    g["write_gb_s"] * 1e9), q)),
    "checkpoint-interval": lambda g, q: young_daly_interval(
        g["write_s"], cluster_mtbf_seconds(g["device_hours"] * 3600, int(g["count"]))) / 60,
    "link-transfer": lambda g, q: _time(transfer_seconds(g["size_gb"], _one_way(g)), q),
    "bits-vs-bytes": lambda g, q: _gb_s(g["gbit"]) * g.get("count", 1),
    "ring-allreduce": lambda g, q: _ring_allreduce(g, q),
    # two all-reduces per layer, each its latency plus 2(n−1)/n × batch × hidden × 2 B
    "tp-allreduce": lambda g, q: allreduce_time(
        tp_allreduce_bytes(int(g["batch"]), int(g["hidden"]), 2), int(g["tp"]),
        g["bus_gb_s"] * 1e9, calls=2 * int(g["layers"]),
        latency_s=g["latency_us"] * 1e-6).seconds * 1e3,
    "gaudi-ethernet": lambda g, q: g["count"] * _gb_s(g["gbit"]) * g.get("chips", 1)
    * (2 if q.params.get("both_ways") else 1),
    "hgx-node-totals": _total,
    "nvl72-rack-totals": _total,
    "trainium-server-totals": _total,
    "tpu-pod": lambda g, q: (float(math.ceil(g["params_b"] * 2e9 / _usable(g)))
                             if "params_b" in g else _total(g, q)),
}
"""Each family's answer from the figures its prompt states (in the answer's unit;
for yes/no kinds the deciding ratio, whose side of 1 is the answer)."""


def _ring_allreduce(g: Given, q: Question) -> float:
    """2(n−1)/n × gradients over what each GPU sends per direction: one link inside a
    scale-up domain, n − 1 links of a full mesh at once, or every card of a node across
    nodes (one ring per card)."""
    n = g["count"] if "count" in g else g["nodes"] * g["node_gpus"]
    links = min(n - 1, g["peers"]) if "peers" in g else g.get("cards", 1)
    return _time(ring_allreduce_seconds(g["params_b"] * 2, int(n), _one_way(g) * links), q)


def _zero_bytes(g: Given) -> float:
    """Bytes per parameter each device keeps (a model that one device holds: stage 0)."""
    return zero_shares(int(g.get("stage", 0)), int(g.get("devices", 1)), weights=g["w_bytes"],
                       grads=g["g_bytes"], optimizer=g["o_bytes"]).per_param


def _chip(q: Question, key: str = "gpu") -> Any:
    from studyapp.catalog import load_catalog

    return load_catalog().accelerators[str(q.params[key])]


def _lowp_right(q: Question) -> bool:
    """The speed-up from the chip's own dense figures, and an answer that says it."""
    from studyapp.questions.generators.families.accelerators import lowp_speedup

    chip = _chip(q)
    expected = lowp_speedup(chip, str(q.params["precision"]))
    if q.params.get("speedup") != expected:
        return False
    has_rate = expected is not None
    says_none = str(q.answer).startswith(("None", "Ninguna"))
    return has_rate != says_none


def _best_right(q: Question, score: Callable[[Any, str], float]) -> bool:
    from studyapp.catalog import load_catalog

    chips = [load_catalog().accelerators[c] for c in q.params["gpus"]]
    best = max(chips, key=lambda c: score(c, str(q.params["metric"])))
    # a choice names the chip without its parenthesised aside ("Google TPU7x")
    return bool(best.id == q.params["best"]
                and q.answer in (best.name, best.name.split(" (", 1)[0].strip()))


def _rank_score(chip: Any, metric: str) -> float:
    if metric == "memory_gb":
        return float(chip.nominal_memory_bytes)
    return float(getattr(chip, metric) or 0.0)


def _per_watt(chip: Any, metric: str) -> float:
    tdp = chip.tdp_w or math.inf
    return float(chip.bf16_dense_tflops / tdp if metric == "tflops"
                 else chip.memory_bandwidth_tb_s / tdp)


def _sparse_right(q: Question) -> bool:
    """Dense is the catalog's dense figure, the headline the vendor's printed one."""
    chip = _chip(q)
    precision = str(q.params["precision"])
    dense = getattr(chip, f"{precision}_dense_tflops")
    sparse = (chip.sparse_headline_tflops or {}).get(precision)
    want = dense if q.params["ask"] == "dense" else sparse
    written = prompt_numbers(str(q.answer), q.lang)
    return bool(want is not None and written and math.isclose(written[0], want, rel_tol=1e-6))


def _vendor_fact_right(q: Question, field: str, kind: str) -> bool:
    """The answer names the chip's own vendor's link or stack, as its entry lists it."""
    from studyapp.questions.generators.families.conceptual import FABRICS, STACKS

    chip = _chip(q)
    keyword = (FABRICS if kind == "fabric" else STACKS)[chip.vendor]
    listed = getattr(chip, field) or ""
    return bool(keyword.lower() in listed.lower()
                and q.answer == t(f"gen.{kind}.{chip.vendor}", q.lang))


CHOICE_RECOMPUTE: dict[str, Callable[[Question], bool]] = {
    "scale-up-fabric": lambda q: _vendor_fact_right(q, "scale_up", "fabric"),
    "software-stack": lambda q: _vendor_fact_right(q, "software", "stack"),
    "low-precision-speedup": _lowp_right,
    "chip-ranking": lambda q: _best_right(q, _rank_score),
    "perf-per-watt": lambda q: _best_right(q, _per_watt),
    "memory-type": lambda q: q.answer == _chip(q).memory_type,
    "dense-vs-sparse": _sparse_right,
}
"""Choice families whose answer the audit re-derives from the catalog entries it names."""


YES_WHEN_BELOW = {"fits-on-gpu"}
"""Yes/no families whose answer is yes when the deciding ratio is at most 1."""
