"""What ``studyapp calc`` computes with: a catalog model or chip, or explicit numbers.

Every calc command takes either a catalog id (``--model``, ``--gpu``) or the figures
themselves, so a learner can try a model or chip the catalog does not have.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import click

from studyapp import catalog
from studyapp.cli import current_settings, fail
from studyapp.infra.calc import DeviceInput, ModelInput, parse_count
from studyapp.infra.memory import KVShape
from studyapp.infra.network import mesh_bandwidth, per_direction
from studyapp.infra.shapes import model_input

WEIGHT_ONLY = ("fp8", "int8", "fp4", "int4")
"""Weights a chip without their units still serves (weight-only quantisation): read in
their own bytes, computed at the BF16 rate, and the report says so."""


def model_options(f: Any) -> Any:
    """--model ID, or an explicit shape for a model outside the catalog."""
    opts = [
        click.option("--model", "model_id", metavar="ID", help="Model id from the catalog."),
        click.option("--model-config", "model_config", metavar="FILE",
                     type=click.Path(dir_okay=False),
                     help="A Hugging Face config.json instead of --model (Llama, Mistral, "
                          "Mixtral, Qwen2/3, Qwen3-MoE, DeepSeek-V3, Kimi K2, gpt-oss, "
                          "Llama 4)."),
        click.option("--params", metavar="N",
                     help="Parameter count instead of --model (70e9, 70B)."),
        click.option("--layers", type=click.IntRange(min=1), help="Transformer layers."),
        click.option("--kv-heads", type=click.IntRange(min=1), help="KV heads (GQA)."),
        click.option("--head-dim", type=click.IntRange(min=1), help="Head dimension."),
        click.option("--kv-lora-rank", type=click.IntRange(min=1), help="MLA latent rank."),
        click.option("--qk-rope-head-dim", type=click.IntRange(min=0), help="MLA RoPE key dim."),
    ]
    for opt in reversed(opts):
        f = opt(f)
    return f


def device_options(f: Any) -> Any:
    """--gpu ID, or explicit figures for a chip outside the catalog."""
    opts = [
        click.option("--gpu", "gpu_id", metavar="ID", help="Accelerator id from the catalog."),
        click.option("--memory-gb", type=click.FloatRange(min=0, min_open=True),
                     help="Memory per device in GB (10^9 bytes) instead of --gpu."),
        click.option("--memory-gib", type=click.FloatRange(min=0, min_open=True),
                     help="Memory per device in GiB (2^30 bytes: HBM as vendors print it)."),
        click.option("--bandwidth-tb-s", type=click.FloatRange(min=0, min_open=True),
                     help="Memory bandwidth per device in TB/s instead of --gpu."),
        click.option("--tflops", type=click.FloatRange(min=0, min_open=True),
                     help="Dense TFLOPS per device instead of --gpu."),
    ]
    for opt in reversed(opts):
        f = opt(f)
    return f


def count_option(option: str, text: str) -> float:
    """``parse_count`` for a command-line option: a bad count names the option."""
    try:
        return parse_count(text)
    except ValueError as exc:
        fail(f"{option}: {exc}")


def resolve_model(kw: dict[str, Any], need_params: bool = True,
                   need_shape: bool = True) -> ModelInput:
    """A catalog model or explicit numbers; ``need_shape`` False: weights only (context 0)."""
    params: float | None = None
    if kw.get("params"):
        params = count_option("--params", kw["params"])
    if kw.get("model_id") or kw.get("model_config"):
        if kw.get("model_id") and kw.get("model_config"):
            fail("give --model ID or --model-config FILE, not both")
        if kw.get("model_config"):
            from pathlib import Path

            from studyapp.catalog.hf_config import load_model_config

            model = load_model_config(Path(kw["model_config"]))  # a bad file: one line
        else:
            # an unknown id ends as one line in the user's language (LazyGroup)
            model = catalog.load_catalog().models[kw["model_id"]]
        base = model_input(model)
        shape = base.shape
        if shape and (kw.get("layers") or kw.get("kv_heads") or kw.get("head_dim")):
            shape = KVShape(layers=kw.get("layers") or shape.layers,
                            kv_heads=kw.get("kv_heads") or shape.kv_heads,
                            head_dim=kw.get("head_dim") or shape.head_dim)
        if params is None:
            return replace(base, shape=shape)
        # another parameter count: neither the active share nor the checkpoint holds
        return replace(base, params=params, shape=shape, active_params=None,
                       checkpoint_bytes=None)
    layers = kw.get("layers")
    if kw.get("kv_lora_rank"):
        if not layers:
            fail("an MLA shape needs --layers, --kv-lora-rank and --qk-rope-head-dim")
        shape = KVShape(layers=layers, kv_lora_rank=kw["kv_lora_rank"],
                        qk_rope_head_dim=kw.get("qk_rope_head_dim") or 0)
        attention = "mla"
    elif not need_shape and not (layers or kw.get("kv_heads") or kw.get("head_dim")):
        if params is None:
            fail("give --model ID or --params N (for example 70e9 or 70B)")
        return ModelInput("custom", params, None, "none")
    else:
        if not (layers and kw.get("kv_heads") and kw.get("head_dim")):
            fail("give --model ID, or --layers, --kv-heads and --head-dim")
        shape = KVShape(layers=layers, kv_heads=kw["kv_heads"], head_dim=kw["head_dim"])
        attention = "gqa"
    if need_params and params is None:
        fail("give --model ID or --params N (for example 70e9 or 70B)")
    return ModelInput("custom", params, shape, attention)


def resolve_dtypes(kw: dict[str, Any], model: ModelInput) -> None:
    """Fill ``--dtype`` and ``--kv-dtype`` left out: the weights as the model publishes them
    (gpt-oss MXFP4, DeepSeek FP8), else BF16; the KV cache in ``--dtype`` when it was given,
    else BF16 (a quantised checkpoint still keeps its cache in BF16)."""
    given = kw.get("dtype")
    kw["dtype"] = given or model.weights_dtype or "bf16"
    if not kw.get("kv_dtype"):
        kw["kv_dtype"] = given or "bf16"


def resolve_device(kw: dict[str, Any], need: str) -> DeviceInput:
    """need: 'memory', 'bandwidth' or 'flops' (the figure the command uses)."""
    memory = kw["memory_gb"] * 1e9 if kw.get("memory_gb") else None
    basis = "given-gb" if memory else None
    driver_mib = None
    if kw.get("memory_gib"):
        memory, basis = kw["memory_gib"] * 2**30, "given-gib"
    bandwidth = kw["bandwidth_tb_s"] * 1e12 if kw.get("bandwidth_tb_s") else None
    flops = kw["tflops"] * 1e12 if kw.get("tflops") else None
    label = "custom"
    compute_dtype = None
    if kw.get("gpu_id"):
        gpu = catalog.load_catalog().accelerators[kw["gpu_id"]]  # unknown: as the model's
        label = gpu.id
        if memory is None:
            memory, basis, driver_mib = gpu.memory_bytes, memory_basis(gpu), gpu.driver_memory_mib
        bandwidth = bandwidth or gpu.bandwidth_bytes_s
        if flops is None:
            dtype = kw.get("dtype") or "bf16"
            tflops = gpu.dense_tflops(dtype)
            if tflops is None and dtype in WEIGHT_ONLY and need != "flops":
                # narrower weights dequantised to BF16: that rate, and the report says so
                tflops, compute_dtype = gpu.bf16_dense_tflops, "bf16"
            if tflops is None and need != "memory":
                # a run in a precision the chip has no rate for, or weights wider than
                # BF16 (FP32 is not computed at the BF16 rate): refused, naming both
                from studyapp.i18n import t  # the message tables: only on this error

                lang = current_settings(click.get_current_context()).lang
                fail(t("calc.no_rate", lang, chip=gpu.name, dtype=dtype,
                       rates=", ".join(d for d in ("bf16", "fp8", "fp4")
                                       if gpu.dense_tflops(d) is not None)))
            flops = tflops * 1e12 if tflops is not None else None  # a fit uses no rate
    figures = {"memory": (memory, "--memory-gb"), "bandwidth": (bandwidth, "--bandwidth-tb-s"),
               "flops": (flops, "--tflops")}
    value, option = figures[need]
    if value is None:
        fail(f"give --gpu ID or {option}")
    return DeviceInput(label, memory, bandwidth, flops, basis, driver_mib, compute_dtype)


RATE_FIELDS = {"bf16": "bf16_dense_tflops", "fp16": "bf16_dense_tflops",
               "fp8": "fp8_dense_tflops", "int8": "fp8_dense_tflops",
               "fp4": "fp4_dense_tflops", "int4": "fp4_dense_tflops"}


def figure_status(kw: dict[str, Any], device: DeviceInput, *uses: str) -> dict[str, str]:
    """The catalog figures a report used that are announced or estimated, by field (empty
    for explicit numbers and for published or measured figures), so no estimate is used
    in silence. ``uses``: 'memory', 'bandwidth', 'flops'."""
    if not kw.get("gpu_id"):
        return {}
    gpu = catalog.load_catalog().accelerators[kw["gpu_id"]]
    fields = []
    if "memory" in uses and not (kw.get("memory_gb") or kw.get("memory_gib")):
        fields.append("driver_memory_mib" if gpu.driver_memory_mib is not None else "memory_gb")
    if "bandwidth" in uses and not kw.get("bandwidth_tb_s"):
        fields.append("memory_bandwidth_tb_s")
    if "flops" in uses and not kw.get("tflops") and device.flops is not None:
        rate = device.compute_dtype or kw.get("dtype") or "bf16"
        fields.append(RATE_FIELDS.get(rate, "bf16_dense_tflops"))
    return {f: gpu.figure_status(f) for f in fields if not gpu.is_fact(f)}


def memory_basis(gpu: Any) -> str:
    """How a catalog chip's capacity is read: ``driver-total`` (the total nvidia-smi or
    rocm-smi reports), ``vendor-gib`` (HBM "GB" read as GiB) or ``vendor-gb``."""
    if gpu.driver_memory_mib is not None:
        return "driver-total"
    return "vendor-gib" if gpu.memory_unit == "GiB" else "vendor-gb"


def allreduce_scale_up(link_id: str | None, system_id: str | None,
                       gpus: int) -> tuple[float | None, int | None]:
    """(per-direction bytes/s, mesh links used at once) of the link inside one node.

    A full mesh (Infinity Fabric) gives a group of ``gpus`` n − 1 of its links; a Gaudi box
    whose chips are joined by their own Ethernet ports (HLS-3: 21 ports per chip to its
    7 peers) is a mesh too, at the system's scale-up total per chip."""
    cat = catalog.load_catalog()
    system = cat.systems[system_id] if system_id else None
    if not link_id:
        return None, None
    link = cat.interconnects[link_id]  # an unknown id ends as one line (LazyGroup)
    if link.peers and link.per_peer_gb_s:  # a full mesh: n − 1 links at most
        total = per_direction(link.bandwidth_gb_s * 1e9, link.direction)
        return mesh_bandwidth(total, link.peers, gpus), min(max(gpus - 1, 1), link.peers)
    if (system and link.kind == "scale-out" and system.aggregate_scale_up_gb_s
            and link_id == system.interconnect):
        peers = system.gpus - 1
        total = system.aggregate_scale_up_gb_s * 1e9 / system.gpus / 2
        return mesh_bandwidth(total, peers, gpus), min(max(gpus - 1, 1), peers)
    return per_direction(link.bandwidth_gb_s * 1e9, link.direction), None
