"""``studyapp calc``: the infrastructure calculator (``studyapp.infra``) on the command line."""

from __future__ import annotations

from typing import Any

import click

from studyapp import catalog
from studyapp.cli import current_settings, echo_json, fail
from studyapp.cli.calc_flags import (
    context_flags,
    decode_flags,
    print_flagged,
    tp_flags,
)
from studyapp.cli.calc_inputs import (
    allreduce_scale_up,
    count_option,
    device_options,
    figure_status,
    model_options,
    resolve_device,
    resolve_dtypes,
    resolve_model,
)
from studyapp.cli.calc_measured import (
    chosen_measurement,
    explicit,
    measured_efficiency,
    measured_options,
    print_measured,
    t_calc,
    with_measured,
)
from studyapp.cli.calc_plot import decode_charts, fit_charts, plot_option, print_charts, with_charts
from studyapp.infra.calc import (
    allreduce_report,
    checkpoint_report,
    cost_report,
    decode_report,
    fit_report,
    kv_report,
    tp_report,
    train_report,
)
from studyapp.infra.measured import CalcSetup
from studyapp.infra.memory import ACTIVATION_PEAK_BYTES, NON_TORCH_BYTES
from studyapp.infra.network import mesh_bandwidth, per_direction
from studyapp.numbers import format_count, format_figure, format_number

DTYPES = ["fp32", "fp16", "bf16", "fp8", "int8", "fp4", "int4"]


def _print_report(ctx: click.Context, report: dict[str, Any], as_json: bool,
                  labels: dict[str, str] | None = None) -> None:
    """JSON, or one labelled line per key; ``labels`` renames a key's label where the same
    key means something else in this report (``dtype`` of the KV cache in ``calc kv``)."""
    if as_json:
        echo_json(report)
        return
    # the message tables load YAML (about 9 ms) that --help and --json never need
    from studyapp.i18n import strings, t

    lang = current_settings(ctx).lang
    # the measurement has its own lines, after (print_measured)
    report = {k: v for k, v in report.items()
              if k not in ("measured", "efficiency_from", "charts")}
    names = {k: (labels or {}).get(k, f"calc.{k}") for k in report}
    width = max(len(t(names[k], lang)) for k in report)
    for key, value in report.items():
        if isinstance(value, bool):
            shown = t("calc.yes", lang) if value else t("calc.no", lang)
        elif isinstance(value, float):  # 3 significant figures ("9.49"); JSON keeps all
            shown = format_figure(value, lang)
        elif isinstance(value, int):  # "8192" in English as always; "327 680" in Spanish
            shown = format_count(value, lang, grouping=False)
        elif isinstance(value, dict):  # figure_status: field -> status, in words
            shown = ", ".join(f"{k} ({t(f'catalog.status.{v}', lang)})"
                              for k, v in value.items())
        elif isinstance(value, str) and f"calc.value.{value}" in strings(lang):
            shown = t(f"calc.value.{value}", lang)  # a word such as "ring", not an id
        else:
            shown = "-" if value is None else str(value)
        click.echo(f"{t(names[key], lang):<{width}}  {shown}")


def _with_status(report: dict[str, Any], status: dict[str, str]) -> dict[str, Any]:
    """The report, with ``figure_status`` (field -> announced or estimated) when it used a
    catalog figure that is not published or measured."""
    return {**report, "figure_status": status} if status else report


@click.group()
def calc() -> None:
    """Calculator: memory fit, KV cache, decode speed, training, checkpoints, all-reduce,
    serving cost and tensor-parallel traffic."""


@calc.command("fit")
@model_options
@device_options
@click.option("--dtype", type=click.Choice(DTYPES),
              help="Weights dtype (default: as the model publishes them, else bf16).")
@click.option("--kv-dtype", type=click.Choice(DTYPES),
              help="KV cache dtype (default: --dtype if given, else bf16).")
@click.option("--context", type=click.IntRange(min=0), default=0, show_default=True,
              help="Tokens per sequence; 0 = weights only.")
@click.option("--batch", type=click.IntRange(min=1), default=1, show_default=True)
@click.option("--gpus", type=click.IntRange(min=1), default=1, show_default=True)
@click.option("--usable-fraction", type=click.FloatRange(0, 1, min_open=True), default=0.9,
              show_default=True,
              help="vLLM's gpu_memory_utilization: the share of memory the engine may use.")
@click.option("--activation-peak-gib", type=click.FloatRange(min=0),
              default=ACTIVATION_PEAK_BYTES / 2**30, show_default=True,
              help="Activation peak per device that comes out of the budget "
                   "(vLLM's start-up log; default measured for Llama 3 8B on an H100).")
@click.option("--non-torch-gib", type=click.FloatRange(min=0),
              default=NON_TORCH_BYTES / 2**30, show_default=True,
              help="Memory outside PyTorch per device (CUDA runtime, NCCL) that comes out "
                   "of the budget.")
@measured_options(efficiency=False)
@plot_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def calc_fit(ctx: click.Context, /, **kw: Any) -> None:
    """Does a model (weights + KV cache) fit on N devices, and how many tokens of KV cache
    are left, as vLLM's start-up log counts them?"""
    model = resolve_model(kw, need_shape=kw["context"] > 0)
    resolve_dtypes(kw, model)
    device = resolve_device(kw, "memory")
    assert device.memory_bytes is not None
    activation, non_torch = kw["activation_peak_gib"] * 2**30, kw["non_torch_gib"] * 2**30
    if device.memory_bytes * kw["usable_fraction"] <= activation + non_torch:
        from studyapp.i18n import t

        lang = current_settings(ctx).lang
        fail(t("calc.budget_too_small", lang, fraction=kw["usable_fraction"],
               memory=format_figure(device.memory_bytes / 1e9, lang),
               runtime=format_figure((activation + non_torch) / 1e9, lang)))
    report = fit_report(model, device, dtype=kw["dtype"], kv_dtype=kw["kv_dtype"],
                        context=kw["context"], batch=kw["batch"], gpus=kw["gpus"],
                        usable_fraction=kw["usable_fraction"], activation_peak_bytes=activation,
                        non_torch_bytes=non_torch)
    setup = CalcSetup("fit", kw["gpu_id"], dtype=kw["dtype"], model=model.label,
                      gpus=kw["gpus"], batch=kw["batch"], context=kw["context"])
    report = with_measured(report, chosen_measurement(ctx, kw, setup), None)
    charts, missing = (fit_charts(model, device, kw, (activation, non_torch)) if kw["plot"]
                       else ([], []))
    if kw["plot"] and kw["as_json"]:
        report = with_charts(report, charts)
    # the warnings before the KV cache line, which ends the text as vLLM's log does
    print_flagged(ctx, _print_report, _with_status(report, figure_status(kw, device, "memory")),
                  context_flags(model, kw["context"]), kw["as_json"])
    if not kw["as_json"] and report["max_concurrency"] is not None:
        from studyapp.i18n import t

        lang = current_settings(ctx).lang
        click.echo(t("calc.kv_capacity", lang,
                     tokens=format_count(report["kv_cache_tokens"], lang),
                     request=format_count(report["concurrency_tokens"], lang),
                     concurrency=format_number(report["max_concurrency"], lang, 9)))
    if not kw["as_json"]:
        print_measured(ctx, report)
        if kw["plot"]:
            print_charts(ctx, charts, missing)


@calc.command("kv")
@model_options
@click.option("--tokens", "--context", "tokens", type=click.IntRange(min=0), default=1,
              show_default=True, help="Tokens per sequence.")
@click.option("--batch", type=click.IntRange(min=1), default=1, show_default=True)
@click.option("--dtype", type=click.Choice(DTYPES), default="bf16", show_default=True,
              help="KV cache dtype.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def calc_kv(ctx: click.Context, /, **kw: Any) -> None:
    """KV cache per token and for tokens × batch."""
    model = resolve_model(kw, need_params=False)
    report = kv_report(model, dtype=kw["dtype"], tokens=kw["tokens"], batch=kw["batch"])
    print_flagged(ctx, _print_report, report, context_flags(model, kw["tokens"]), kw["as_json"],
                  labels={"dtype": "calc.kv_dtype"})


@calc.command("decode")
@model_options
@device_options
@click.option("--dtype", type=click.Choice(DTYPES),
              help="Weights dtype (default: as the model publishes them, else bf16).")
@click.option("--kv-dtype", type=click.Choice(DTYPES),
              help="KV cache dtype (default: --dtype if given, else bf16).")
@click.option("--batch", type=click.IntRange(min=1), default=1, show_default=True)
@click.option("--context", type=click.IntRange(min=0), default=0, show_default=True,
              help="Tokens in each sequence's KV cache; 0 = weights only.")
@click.option("--gpus", type=click.IntRange(min=1), default=1, show_default=True,
              help="Weights, bandwidth and compute split over N devices.")
@click.option("--mfu", type=click.FloatRange(0, 1, min_open=True), default=1.0,
              show_default=True, help="Share of the dense peak the step reaches.")
@measured_options()
@plot_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def calc_decode(ctx: click.Context, /, **kw: Any) -> None:
    """Decode tokens/s: the larger of memory time and compute time per step."""
    model = resolve_model(kw, need_shape=kw["context"] > 0)
    resolve_dtypes(kw, model)
    device = resolve_device(kw, "bandwidth")
    setup = CalcSetup("decode", kw["gpu_id"], dtype=kw["dtype"], model=model.label,
                      gpus=kw["gpus"], batch=kw["batch"], context=kw["context"])
    chosen = chosen_measurement(ctx, kw, setup)
    efficiency = measured_efficiency(kw, chosen)
    report = decode_report(model, device, dtype=kw["dtype"], kv_dtype=kw["kv_dtype"],
                           batch=kw["batch"], context=kw["context"], gpus=kw["gpus"],
                           mfu=kw["mfu"], bandwidth_efficiency=efficiency or 1.0)
    report = with_measured(report, chosen, efficiency)
    charts, missing = (decode_charts(model, device, kw, efficiency or 1.0) if kw["plot"]
                       else ([], []))
    if kw["plot"] and kw["as_json"]:
        report = with_charts(report, charts)
    print_flagged(ctx, _print_report,
                  _with_status(report, figure_status(kw, device, "bandwidth", "flops")),
                  decode_flags(kw, model, device), kw["as_json"])
    if not kw["as_json"]:
        print_measured(ctx, report)
        if kw["plot"]:
            print_charts(ctx, charts, missing)


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
@measured_options()
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def calc_train(ctx: click.Context, /, **kw: Any) -> None:
    """Training compute 6·N·D and time on K devices."""
    params, tokens = count_option("--params", kw["params"]), count_option("--tokens", kw["tokens"])
    device = resolve_device({**kw, "memory_gb": None, "bandwidth_tb_s": None}, "flops")
    assert device.flops is not None  # resolve_device fails for the user without it
    setup = CalcSetup("train", kw["gpu_id"], dtype=kw["dtype"], gpus=kw["gpus"])
    chosen = chosen_measurement(ctx, kw, setup)
    efficiency = measured_efficiency(kw, chosen)
    if efficiency is not None and explicit(ctx, "mfu"):
        fail(t_calc(ctx, "calc.measured.mfu_and_measured"))
    report = train_report(params=params, tokens=tokens, flops_per_device=device.flops,
                          gpus=kw["gpus"], mfu=efficiency or kw["mfu"])
    report = with_measured(report, chosen, efficiency)
    _print_report(ctx, _with_status(report, figure_status(kw, device, "flops")),
                  kw["as_json"])
    if not kw["as_json"]:
        print_measured(ctx, report)


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
    model = resolve_model({"model_id": kw["model_id"], "params": kw["params"],
                           "layers": 1, "kv_heads": 1, "head_dim": 1})
    assert model.params is not None  # resolve_model fails for the user without it
    report = checkpoint_report(params=model.params, bytes_per_param=kw["bytes_per_param"],
                               write_bytes_s=kw["write_gb_s"] * 1e9)
    _print_report(ctx, report, kw["as_json"])


@calc.command("allreduce")
@click.option("--size-gb", type=click.FloatRange(min=0, min_open=True), required=True,
              help="Data each GPU reduces, in GB.")
@click.option("--gpus", type=click.IntRange(min=1),
              help="GPUs in all (default: --nodes × --gpus-per-node).")
@click.option("--link", metavar="ID", help="Interconnect id (its per-direction bandwidth).")
@click.option("--bandwidth-gb-s", type=click.FloatRange(min=0, min_open=True),
              help="Per-direction bandwidth in GB/s instead of --link.")
@click.option("--system", "system_id", metavar="ID",
              help="System id: its GPUs per node, scale-up link and network cards.")
@click.option("--nodes", type=click.IntRange(min=1), default=1, show_default=True,
              help="Nodes the GPUs are spread over.")
@click.option("--gpus-per-node", type=click.IntRange(min=1), help="GPUs in each node.")
@click.option("--cards-per-node", type=click.IntRange(min=1),
              help="Network cards per node; NCCL opens one ring per card.")
@click.option("--card-gbit-s", type=click.FloatRange(min=0, min_open=True),
              help="Each card's line rate in Gb/s (400 for NDR).")
@click.option("--gpu", "gpu_id", metavar="ID",
              help="The accelerator (default: the --system's), to set a published "
                   "measurement beside the theory.")
@measured_options()
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def calc_allreduce(ctx: click.Context, /, **kw: Any) -> None:
    """All-reduce time, α–β: latency + 2(n-1)/n · S / bus bandwidth, B per direction."""
    nodes, per_node = kw["nodes"], kw["gpus_per_node"]
    link_id, cards, card_gbit = kw["link"], kw["cards_per_node"], kw["card_gbit_s"]
    if kw["system_id"]:
        # an unknown id ends as one line in the user's language (LazyGroup)
        system = catalog.load_catalog().systems[kw["system_id"]]
        if not (per_node or kw["gpus"]):
            per_node = system.gpus
        if (per_node or kw["gpus"] // nodes) > system.gpus:
            fail(f"a {system.id} node has {system.gpus} GPUs; give --nodes for more")
        link_id = link_id or system.interconnect
        cards, card_gbit = cards or system.nics_per_node, card_gbit or system.nic_gbit_s
    gpus = kw["gpus"] or (nodes * per_node if per_node else None)
    if gpus is None:
        fail("give --gpus N, or --nodes and --gpus-per-node (or --system ID)")
    if gpus % nodes or (per_node and gpus != nodes * per_node):
        fail(f"{gpus} GPUs do not split evenly into {nodes} nodes"
             + (f" of {per_node}" if per_node else ""))
    if nodes > 1 and not (cards and card_gbit):
        fail("an all-reduce across nodes needs --cards-per-node and --card-gbit-s "
             "(or --system ID)")
    bandwidth, mesh_links = allreduce_scale_up(link_id, kw["system_id"], gpus // nodes)
    if kw["bandwidth_gb_s"]:
        bandwidth, mesh_links = kw["bandwidth_gb_s"] * 1e9, None
    if bandwidth is None:
        fail("give --link ID or --bandwidth-gb-s")
    chip = kw["gpu_id"] or (catalog.load_catalog().systems[kw["system_id"]].accelerator
                            if kw["system_id"] else None)
    if kw["gpu_id"]:
        catalog.load_catalog().accelerators[kw["gpu_id"]]  # an unknown id: one line
    setup = CalcSetup("allreduce", chip, gpus=gpus, nodes=nodes)
    chosen = chosen_measurement(ctx, kw, setup)
    efficiency = measured_efficiency(kw, chosen)
    report = allreduce_report(size_bytes=kw["size_gb"] * 1e9, gpus=gpus,
                              bandwidth_bytes_s=bandwidth, link=link_id,
                              mesh_links=mesh_links, nodes=nodes,
                              cards_per_node=cards, card_gbit_s=card_gbit,
                              efficiency=efficiency)
    report = with_measured(report, chosen, efficiency)
    _print_report(ctx, report, kw["as_json"])
    if not kw["as_json"]:
        print_measured(ctx, report)


@calc.command("cost")
@click.option("--gpu-hour-usd", type=click.FloatRange(min=0, min_open=True), required=True,
              help="Price of one GPU for one hour, in US dollars.")
@click.option("--tokens-per-s", type=click.FloatRange(min=0, min_open=True), required=True,
              help="Tokens per second the whole deployment serves (all sequences).")
@click.option("--gpus", type=click.IntRange(min=1), default=1, show_default=True,
              help="GPUs the deployment rents.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def calc_cost(ctx: click.Context, /, **kw: Any) -> None:
    """Dollars per million tokens: GPUs × $/GPU-hour / (tokens/s × 3600) × 10^6."""
    report = cost_report(gpu_hour_usd=kw["gpu_hour_usd"], tokens_per_s=kw["tokens_per_s"],
                         gpus=kw["gpus"])
    _print_report(ctx, report, kw["as_json"])


@calc.command("tp")
@click.option("--model", "model_id", metavar="ID", help="Model id (its layers and hidden size).")
@click.option("--layers", type=click.IntRange(min=1), help="Layers instead of --model.")
@click.option("--hidden-size", type=click.IntRange(min=1), help="Hidden size instead of --model.")
@click.option("--tp", type=click.IntRange(min=1), required=True,
              help="GPUs the tensor-parallel group splits each layer over.")
@click.option("--batch", type=click.IntRange(min=1), default=1, show_default=True)
@click.option("--dtype", type=click.Choice(DTYPES), default="bf16", show_default=True,
              help="Activation dtype of the all-reduced values.")
@click.option("--gpu", "gpu_id", metavar="ID",
              help="Accelerator id: its scale-up bandwidth (per chip, half each way).")
@click.option("--link", metavar="ID", help="Interconnect id (its per-direction bandwidth).")
@click.option("--bandwidth-gb-s", type=click.FloatRange(min=0, min_open=True),
              help="Per-direction bandwidth in GB/s instead of --gpu or --link.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def calc_tp(ctx: click.Context, /, **kw: Any) -> None:
    """Tensor-parallel all-reduce time per decode step, α–β (2 per layer: latency + bytes)."""
    cat = catalog.load_catalog()
    layers, hidden, label = kw["layers"], kw["hidden_size"], "custom"
    if kw["model_id"]:
        model = cat.models[kw["model_id"]]  # an unknown id ends as one line (LazyGroup)
        layers, hidden, label = layers or model.layers, hidden or model.hidden_size, model.id
    if not (layers and hidden):
        fail("give --model ID, or --layers and --hidden-size")
    bandwidth = kw["bandwidth_gb_s"] * 1e9 if kw["bandwidth_gb_s"] else None
    link_name, mesh_links = kw["link"], None
    if bandwidth is None and kw["link"]:
        link = cat.interconnects[kw["link"]]
        bandwidth = per_direction(link.bandwidth_gb_s * 1e9, link.direction)
        if link.peers and link.per_peer_gb_s:  # a full mesh: n − 1 links at most
            bandwidth = mesh_bandwidth(bandwidth, link.peers, kw["tp"])
            mesh_links = min(max(kw["tp"] - 1, 1), link.peers)
    if bandwidth is None and kw["gpu_id"]:
        gpu = cat.accelerators[kw["gpu_id"]]
        if gpu.scale_up_gb_s is None:
            fail(f"{gpu.id} has no scale-up bandwidth in the catalog; give --bandwidth-gb-s")
        bandwidth, link_name = gpu.scale_up_gb_s * 1e9 / 2, gpu.scale_up
        if gpu.scale_up_peers:  # a full mesh: n − 1 links at most
            bandwidth = mesh_bandwidth(bandwidth, gpu.scale_up_peers, kw["tp"])
            mesh_links = min(max(kw["tp"] - 1, 1), gpu.scale_up_peers)
    if bandwidth is None:
        fail("give --gpu ID, --link ID or --bandwidth-gb-s")
    report = tp_report(layers=layers, hidden_size=hidden, batch=kw["batch"], dtype=kw["dtype"],
                       tp=kw["tp"], bandwidth_bytes_s=bandwidth, link=link_name, model=label,
                       mesh_links=mesh_links)
    print_flagged(ctx, _print_report, report, tp_flags(kw), kw["as_json"],
                  labels={"dtype": "calc.activation_dtype"})
