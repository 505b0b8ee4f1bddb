"""Slips the families declare next to their formulas (Numbas' "alternative answers").

Each is a :class:`~studyapp.questions.model.Slip`: the factor a likely wrong
turn leaves in the answer, computed from the instance's params where it
depends on them. Grading names the slip when a wrong answer shows it; the
answer stays wrong. Messages are ``grading.slip.<key>`` in the i18n files.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from studyapp.catalog import load_catalog
from studyapp.infra import kv_bytes_per_token, usable_bytes, weights_bytes
from studyapp.infra.shapes import kv_shape
from studyapp.infra.units import GB, GIB, dtype_bytes
from studyapp.questions.model import Slip

GIB_PER_GB = GIB / GB  # 1.073741824


def dtype_size(param: str) -> tuple[Slip, Slip]:
    """The two ways a data type's size goes wrong: values counted as bytes (one byte each:
    ×1/b), and every type sized as BF16's 2 bytes (FP8's cache at ×2)."""
    return (Slip("dtype_bytes", lambda p: 1 / dtype_bytes(str(p[param]))),
            Slip("dtype_bf16", lambda p: 2 / dtype_bytes(str(p[param]))))


def _kv_pair(params: Mapping[str, Any]) -> float | None:
    """Half the cache when only K is counted; MLA stores one latent, no K/V pair."""
    attention = params.get("attention")
    if attention is None:
        attention = load_catalog().models[str(params["model"])].attention
    return None if attention == "mla" else 0.5


KV_PAIR = Slip("kv_pair", _kv_pair)
"""Counted only K, not K and V."""

BITS = Slip("bits", 8.0, symmetric=True)
"""Bits read as bytes, or bytes as bits."""

SPARSE_PEAK = Slip("sparse", 2.0)
"""A peak FLOP/s figure quoted with 2:4 sparsity: twice the dense one."""

SPARSE_TIME = Slip("sparse", 0.5)
"""A time computed from the sparse peak: half the dense one."""

FORWARD_ONLY = Slip("forward_only", 1 / 3)
"""2·N·D, the forward pass alone, for training's 6·N·D: a third."""

MFU_LEFT_OUT = Slip("mfu_left_out", lambda p: float(p["mfu"]))
"""A training time at the chips' peak, the MFU left out: shorter by the MFU."""


def _bidirectional(params: Mapping[str, Any]) -> bool:
    direction = params.get("direction")
    if direction is None:
        direction = load_catalog().interconnects[str(params["link"])].direction
    return direction == "bidirectional"


BOTH_WAYS_TIME = Slip("per_direction", lambda p: 0.5 if _bidirectional(p) else None)
"""A time over a link's both-directions total instead of one direction: half."""

BOTH_WAYS_RATE = Slip("per_direction", 2.0)
"""A per-direction rate answered as both directions summed."""

ONE_PORT = Slip("one_port", lambda p: 1 / int(p["ports"]) if int(p["ports"]) > 1 else None)
"""One port's bandwidth instead of all of them."""

GIB_SAME_NUMBER = Slip(
    "gib_same_number",
    lambda p: {"gb-to-gib": GIB_PER_GB, "mib-to-gib": 1024 / 1e3}.get(
        p["direction"], 1 / GIB_PER_GB))
"""GB written as GiB (or back) without converting."""

GIB_WRONG_WAY = Slip(
    "gib_wrong_way",
    lambda p: {"gb-to-gib": GIB_PER_GB**2, "mib-to-gib": None}.get(
        p["direction"], GIB_PER_GB**-2))
"""Multiplied by 1.074 where dividing was right, or the reverse."""


def ring_factor_of(count: str) -> Any:
    """The ring slip's ratio for a ring of ``params[count]`` chips: n / (2(n-1))."""
    def ratio(params: Mapping[str, Any]) -> float:
        n = int(params[count])
        return n / (2 * (n - 1))
    return ratio


RING_FACTOR = Slip("ring_factor", ring_factor_of("gpus"))
"""The gradients sent once instead of 2(n-1)/n times."""

RING_HALF = Slip("ring_half", 0.5)
"""(n-1)/n for 2(n-1)/n: the reduce-scatter without the all-gather, the ×2 forgotten."""

BF16_AS_PARAMS = Slip("dtype_bytes", 0.5)
"""BF16 gradients sized as one byte per parameter."""


def _system_quantity(quantity: str, ratio: float) -> Any:
    return lambda p: ratio if p.get("quantity") == quantity else None


SYSTEM_SLIPS = (
    Slip("per_direction", _system_quantity("scale_up", 0.5)),
    Slip("sparse", _system_quantity("bf16", 2.0)),
    Slip("one_device", lambda p: 1 / int(p["gpus"])),
)
"""A system total: one direction of the scale-up link, sparse peak, or one chip's figure."""


def _memory(params: Mapping[str, Any]) -> tuple[float, float, float]:
    """Usable HBM, weights and KV cache of a fit instance, in bytes (from the catalog)."""

    catalog = load_catalog()
    model = catalog.models[str(params["model"])]
    chip = catalog.accelerators[str(params["gpu"])]
    usable = usable_bytes(chip.memory_bytes, usable_fraction=float(params.get(
        "usable_fraction", 0.9)))
    weights = weights_bytes(model.params, str(params["dtype"]))
    kv_dtype = str(params.get("kv_dtype") or params["dtype"])
    context, batch = params.get("context"), params.get("batch")
    kv = (kv_bytes_per_token(kv_shape(model), kv_dtype) * int(context) * int(batch)
          if context and batch else 0.0)
    return usable, weights, kv


def _weights_left_out(params: Mapping[str, Any]) -> float | None:
    """The whole usable memory given to the KV cache: the weights not subtracted."""
    usable, weights, _ = _memory(params)
    return usable / (usable - weights) if usable > weights else None


def _kv_left_out(params: Mapping[str, Any]) -> float | None:
    """Devices for the weights alone, the KV cache forgotten."""
    usable, weights, kv = _memory(params)
    alone, both = math.ceil(weights / usable), math.ceil((weights + kv) / usable)
    return alone / both if both else None


KV_PAIR_ROOM = Slip("kv_pair", lambda p: None if _kv_pair(p) is None else 2.0)
"""Room for twice the tokens when only K is counted, not K and V."""

WEIGHTS_LEFT_OUT = Slip("weights_left_out", _weights_left_out)
"""The KV cache given all the memory, as if the weights took none."""

KV_LEFT_OUT = Slip("kv_left_out", _kv_left_out)
"""Devices counted for the weights only: weights versus weights + KV cache."""

WEIGHTS_ONLY_CHECKPOINT = Slip(
    "weights_only_checkpoint", lambda p: 2.0 / float(p["bytes_per_param"]))
"""A checkpoint sized as BF16 weights (2 bytes per parameter) instead of the full state."""


def _moe_share(params: Mapping[str, Any]) -> float | None:
    """A mixture of experts' active parameters over its total (None for a dense model)."""
    model = load_catalog().models[str(params["model"])]
    active = model.active_params_b
    return active / model.params_b if active and active < model.params_b else None


MOE_ACTIVE_WEIGHTS = Slip("moe_active", _moe_share)
"""A mixture of experts' weights sized from its active parameters: every expert is stored."""

MOE_TOTAL_COMPUTE = Slip("moe_total", lambda p: None if (s := _moe_share(p)) is None else 1 / s)
"""Compute counted over every expert: each token only runs the active parameters."""
