"""``studyapp calc``: the infrastructure calculator (``studyapp.infra``) on the command line."""

from __future__ import annotations

import math
from typing import Any

import click

from studyapp.cli import current_settings, echo_json, fail

DTYPES = ["fp32", "fp16", "bf16", "fp8", "int8", "fp4", "int4"]


def _model_options(f: Any) -> Any:
    """--model ID, or an explicit shape for a model outside the catalog."""
    opts = [
        click.option("--model", "model_id", metavar="ID", help="Model id from the catalog."),
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


def _device_options(f: Any) -> Any:
    """--gpu ID, or explicit figures for a chip outside the catalog."""
    opts = [
        click.option("--gpu", "gpu_id", metavar="ID", help="Accelerator id from the catalog."),
        click.option("--memory-gb", type=click.FloatRange(min=0, min_open=True),
                     help="Memory per device in GB instead of --gpu."),
        click.option("--bandwidth-tb-s", type=click.FloatRange(min=0, min_open=True),
                     help="Memory bandwidth per device in TB/s instead of --gpu."),
        click.option("--tflops", type=click.FloatRange(min=0, min_open=True),
                     help="Dense TFLOPS per device instead of --gpu."),
    ]
    for opt in reversed(opts):
        f = opt(f)
    return f


def _resolve_model(kw: dict[str, Any], need_params: bool = True,
                   need_shape: bool = True) -> Any:
    """A catalog model or explicit numbers; ``need_shape`` False: weights only (context 0)."""
    # loaded when the command runs, so that --help stays fast
    from studyapp.catalog import UnknownIdError, load_catalog
    from studyapp.infra.calc import ModelInput, parse_count
    from studyapp.infra.memory import KVShape
    from studyapp.infra.shapes import kv_shape

    params: float | None = None
    if kw.get("params"):
        try:
            params = parse_count(kw["params"])
        except ValueError as exc:
            fail(str(exc))
    if kw.get("model_id"):
        try:
            model = load_catalog().models[kw["model_id"]]
        except UnknownIdError as exc:
            fail(str(exc))
        shape = kv_shape(model)
        if kw.get("layers") or kw.get("kv_heads") or kw.get("head_dim"):
            shape = KVShape(layers=kw.get("layers") or shape.layers,
                            kv_heads=kw.get("kv_heads") or shape.kv_heads,
                            head_dim=kw.get("head_dim") or shape.head_dim)
        return ModelInput(model.id, params or model.params, shape, model.attention)
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


def _resolve_device(kw: dict[str, Any], need: str) -> Any:
    """need: 'memory', 'bandwidth' or 'flops' (the figure the command uses)."""
    # loaded when the command runs, so that --help stays fast
    from studyapp.catalog import UnknownIdError, load_catalog
    from studyapp.infra.calc import DeviceInput

    memory = kw["memory_gb"] * 1e9 if kw.get("memory_gb") else None
    bandwidth = kw["bandwidth_tb_s"] * 1e12 if kw.get("bandwidth_tb_s") else None
    flops = kw["tflops"] * 1e12 if kw.get("tflops") else None
    label = "custom"
    if kw.get("gpu_id"):
        try:
            gpu = load_catalog().accelerators[kw["gpu_id"]]
        except UnknownIdError as exc:
            fail(str(exc))
        label = gpu.id
        memory = memory or gpu.memory_bytes
        bandwidth = bandwidth or gpu.bandwidth_bytes_s
        if flops is None:
            dtype = kw.get("dtype") or "bf16"
            by_dtype = {"fp8": gpu.fp8_dense_tflops, "int8": gpu.fp8_dense_tflops,
                        "fp4": gpu.fp4_dense_tflops, "int4": gpu.fp4_dense_tflops}
            tflops = by_dtype.get(dtype) or gpu.bf16_dense_tflops
            flops = tflops * 1e12
    figures = {"memory": (memory, "--memory-gb"), "bandwidth": (bandwidth, "--bandwidth-tb-s"),
               "flops": (flops, "--tflops")}
    value, option = figures[need]
    if value is None:
        fail(f"give --gpu ID or {option}")
    return DeviceInput(label, memory, bandwidth, flops)


def _human_number(value: float) -> str:
    """3 significant figures for people ("9.49", "180"); whole numbers from 1,000 up to a
    million, scientific above. JSON keeps the unrounded value."""
    magnitude = abs(value)
    if value == 0:
        return "0"
    if 1e-3 <= magnitude < 1000:
        decimals = max(0, 2 - math.floor(math.log10(magnitude)))
        text = f"{float(f'{value:.3g}'):,.{decimals}f}"
        return text.rstrip("0").rstrip(".") if "." in text else text
    if 1000 <= magnitude < 1e6:
        return f"{value:,.0f}"
    return f"{value:.3g}"


def _print_report(ctx: click.Context, report: dict[str, Any], as_json: bool) -> None:
    if as_json:
        echo_json(report)
        return
    # loaded when the command runs, so that --help stays fast
    from studyapp.i18n import t

    lang = current_settings(ctx).lang
    width = max(len(t(f"calc.{k}", lang)) for k in report)
    for key, value in report.items():
        if isinstance(value, bool):
            shown = t("calc.yes", lang) if value else t("calc.no", lang)
        elif isinstance(value, float):
            shown = _human_number(value)
        else:
            shown = "-" if value is None else str(value)
        click.echo(f"{t(f'calc.{key}', lang):<{width}}  {shown}")


@click.group()
def calc() -> None:
    """Calculator: memory fit, KV cache, decode speed, training, checkpoints, all-reduce."""


@calc.command("fit")
@_model_options
@_device_options
@click.option("--dtype", type=click.Choice(DTYPES), default="bf16", show_default=True)
@click.option("--kv-dtype", type=click.Choice(DTYPES), help="KV cache dtype (default: --dtype).")
@click.option("--context", type=click.IntRange(min=0), default=0, show_default=True,
              help="Tokens per sequence; 0 = weights only.")
@click.option("--batch", type=click.IntRange(min=1), default=1, show_default=True)
@click.option("--gpus", type=click.IntRange(min=1), default=1, show_default=True)
@click.option("--usable-fraction", type=click.FloatRange(0, 1, min_open=True), default=0.9,
              show_default=True, help="Share of memory left for weights and KV cache.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def calc_fit(ctx: click.Context, /, **kw: Any) -> None:
    """Does a model (weights + KV cache) fit on N devices?"""
    # loaded when the command runs, so that --help stays fast
    from studyapp.infra.calc import fit_report

    model = _resolve_model(kw, need_shape=kw["context"] > 0)
    device = _resolve_device(kw, "memory")
    report = fit_report(model, device, dtype=kw["dtype"], kv_dtype=kw["kv_dtype"],
                        context=kw["context"], batch=kw["batch"], gpus=kw["gpus"],
                        usable_fraction=kw["usable_fraction"])
    _print_report(ctx, report, kw["as_json"])


@calc.command("kv")
@_model_options
@click.option("--tokens", "--context", "tokens", type=click.IntRange(min=0), default=1,
              show_default=True, help="Tokens per sequence.")
@click.option("--batch", type=click.IntRange(min=1), default=1, show_default=True)
@click.option("--dtype", type=click.Choice(DTYPES), default="bf16", show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def calc_kv(ctx: click.Context, /, **kw: Any) -> None:
    """KV cache per token and for tokens × batch."""
    # loaded when the command runs, so that --help stays fast
    from studyapp.infra.calc import kv_report

    model = _resolve_model(kw, need_params=False)
    report = kv_report(model, dtype=kw["dtype"], tokens=kw["tokens"], batch=kw["batch"])
    _print_report(ctx, report, kw["as_json"])


@calc.command("decode")
@_model_options
@_device_options
@click.option("--dtype", type=click.Choice(DTYPES), default="bf16", show_default=True)
@click.option("--kv-dtype", type=click.Choice(DTYPES), help="KV cache dtype (default: --dtype).")
@click.option("--batch", type=click.IntRange(min=1), default=1, show_default=True)
@click.option("--context", type=click.IntRange(min=0), default=0, show_default=True,
              help="Tokens in each sequence's KV cache; 0 = weights only.")
@click.option("--gpus", type=click.IntRange(min=1), default=1, show_default=True,
              help="Weights and bandwidth split over N devices.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def calc_decode(ctx: click.Context, /, **kw: Any) -> None:
    """Memory-bandwidth ceiling on decode tokens/s."""
    # loaded when the command runs, so that --help stays fast
    from studyapp.infra.calc import decode_report

    model = _resolve_model(kw, need_shape=kw["context"] > 0)
    device = _resolve_device(kw, "bandwidth")
    report = decode_report(model, device, dtype=kw["dtype"], kv_dtype=kw["kv_dtype"],
                           batch=kw["batch"], context=kw["context"], gpus=kw["gpus"])
    _print_report(ctx, report, kw["as_json"])


@calc.command("train")
@click.option("--params", required=True, metavar="N", help="Parameters (70e9, 70B).")
@click.option("--tokens", required=True, metavar="D", help="Training tokens (15e12, 15T).")
@click.option("--gpu", "gpu_id", metavar="ID", help="Accelerator id (its dense TFLOPS).")
@click.option("--tflops", type=click.FloatRange(min=0, min_open=True),
              help="Dense TFLOPS per device instead of --gpu.")
@click.option("--dtype", type=click.Choice(DTYPES), default="bf16", show_default=True,
              help="Which of the GPU's dense TFLOPS to use.")
@click.option("--gpus", type=click.IntRange(min=1), default=1, show_default=True)
@click.option("--mfu", type=click.FloatRange(0, 1, min_open=True), default=0.4,
              show_default=True, help="Model FLOPs utilisation.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def calc_train(ctx: click.Context, /, **kw: Any) -> None:
    """Training compute 6·N·D and time on K devices."""
    # loaded when the command runs, so that --help stays fast
    from studyapp.infra.calc import parse_count, train_report

    try:
        params, tokens = parse_count(kw["params"]), parse_count(kw["tokens"])
    except ValueError as exc:
        fail(str(exc))
    device = _resolve_device({**kw, "memory_gb": None, "bandwidth_tb_s": None}, "flops")
    report = train_report(params=params, tokens=tokens, flops_per_device=device.flops,
                          gpus=kw["gpus"], mfu=kw["mfu"])
    _print_report(ctx, report, kw["as_json"])


@calc.command("checkpoint")
@click.option("--params", metavar="N", help="Parameters (70e9, 70B).")
@click.option("--model", "model_id", metavar="ID", help="Model id instead of --params.")
@click.option("--bytes-per-param", type=click.FloatRange(min=0, min_open=True), default=14.0,
              show_default=True, help="14 = BF16 weights + FP32 master + Adam m, v.")
@click.option("--write-gb-s", type=click.FloatRange(min=0, min_open=True), required=True,
              help="Sustained write bandwidth in GB/s.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def calc_checkpoint(ctx: click.Context, /, **kw: Any) -> None:
    """Checkpoint size and write time."""
    # loaded when the command runs, so that --help stays fast
    from studyapp.infra.calc import checkpoint_report

    model = _resolve_model({"model_id": kw["model_id"], "params": kw["params"],
                            "layers": 1, "kv_heads": 1, "head_dim": 1})
    report = checkpoint_report(params=model.params, bytes_per_param=kw["bytes_per_param"],
                               write_bytes_s=kw["write_gb_s"] * 1e9)
    _print_report(ctx, report, kw["as_json"])


@calc.command("allreduce")
@click.option("--size-gb", type=click.FloatRange(min=0, min_open=True), required=True,
              help="Data each GPU reduces, in GB.")
@click.option("--gpus", type=click.IntRange(min=1), required=True)
@click.option("--link", metavar="ID", help="Interconnect id (its per-direction bandwidth).")
@click.option("--bandwidth-gb-s", type=click.FloatRange(min=0, min_open=True),
              help="Per-direction bandwidth in GB/s instead of --link.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def calc_allreduce(ctx: click.Context, /, **kw: Any) -> None:
    """Ring all-reduce time: 2(n-1)/n · S / B, B per direction."""
    # loaded when the command runs, so that --help stays fast
    from studyapp.catalog import UnknownIdError, load_catalog
    from studyapp.infra.calc import allreduce_report
    from studyapp.infra.network import per_direction

    bandwidth = kw["bandwidth_gb_s"] * 1e9 if kw["bandwidth_gb_s"] else None
    if kw["link"]:

        try:
            link = load_catalog().interconnects[kw["link"]]
        except UnknownIdError as exc:
            fail(str(exc))
        bandwidth = bandwidth or per_direction(link.bandwidth_gb_s * 1e9, link.direction)
    if bandwidth is None:
        fail("give --link ID or --bandwidth-gb-s")
    report = allreduce_report(size_bytes=kw["size_gb"] * 1e9, gpus=kw["gpus"],
                              bandwidth_bytes_s=bandwidth, link=kw["link"])
    _print_report(ctx, report, kw["as_json"])
