"""What the calculator's charts show, as numbers: a chip's roofline with a workload's
prefill and decode on it, memory against context and against batch with the chip's
budget, tokens/s against batch with the bound that holds.

Pure data for any face: the TUI draws it with textual-plotext, ``calc --plot`` with
plotext, ``--json`` prints it, and a plain or piped terminal reads it as a table.
Every figure comes from the calculator's own functions (``decode_report``,
``ServingBudget``, ``attainable_flops``), so a chart never disagrees with the report
beside it. Names are ids (``roof-memory``, ``decode``); faces put them in words.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from studyapp.infra.calc import DeviceInput, ModelInput, decode_report
from studyapp.infra.compute import attainable_flops, forward_flops, moe_params_read, ridge_point
from studyapp.infra.memory import (
    ACTIVATION_PEAK_BYTES,
    DEFAULT_USABLE_FRACTION,
    NON_TORCH_BYTES,
    ServingBudget,
    kv_bytes_per_token,
    kv_cache_bytes,
)
from studyapp.infra.units import GB

BATCHES = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)
"""The batches the batch charts sample: powers of two, as serving engines size them."""
SHORTEST_CONTEXT = 512
"""The first context the memory chart samples (tokens)."""


@dataclass(frozen=True)
class Series:
    """One line: ``name`` an id the faces put in words; y values may be None (not drawn)."""

    name: str
    x: tuple[float, ...]
    y: tuple[float, ...]


@dataclass(frozen=True)
class Point:
    """One marked point: the workload's prefill or decode, a fit's limit."""

    name: str
    x: float
    y: float
    bound: str | None = None
    """``memory`` or ``compute``: the roof the point sits under."""


@dataclass(frozen=True)
class Level:
    """A horizontal (``axis`` y) or vertical (``axis`` x) line at ``value``."""

    name: str
    value: float
    axis: str = "y"


@dataclass(frozen=True)
class Chart:
    """One chart: axes (a unit each, log or not), lines, marked points and levels."""

    kind: str
    x_unit: str
    y_unit: str
    x_log: bool
    y_log: bool
    series: tuple[Series, ...]
    points: tuple[Point, ...] = ()
    levels: tuple[Level, ...] = ()
    facts: dict[str, Any] = field(default_factory=dict)
    """The figures the chart is about (the ridge point, the longest context that fits…)."""

    def as_json(self) -> dict[str, Any]:
        """The chart's data for ``--json`` (lists, not tuples)."""
        data = asdict(self)
        for series in data["series"]:
            series["x"], series["y"] = list(series["x"]), list(series["y"])
        return data


def _geometric(low: float, high: float, steps: int) -> tuple[float, ...]:
    ratio = (high / low) ** (1 / (steps - 1))
    return tuple(low * ratio**i for i in range(steps))


def roofline(model: ModelInput, device: DeviceInput, *, dtype: str, kv_dtype: str,
             batch: int, context: int) -> Chart:
    """The chip's two roofs (memory bandwidth × intensity, the dense peak) meeting at the
    ridge point, with a decode step at ``batch`` and the prefill of ``batch`` prompts of
    ``context`` tokens under them (per chip: splitting over GPUs changes neither).

    Decode: the step's FLOPs over the bytes it reads (``decode_report``). Prefill:
    2 × active parameters × prompt tokens over the weights read (all the experts a
    mixture touches) and the KV cache written; no prefill point at context 0."""
    assert device.flops is not None and device.bandwidth_bytes_s is not None
    peak, bandwidth = device.flops, device.bandwidth_bytes_s
    ridge = ridge_point(peak, bandwidth)
    step = decode_report(model, device, dtype=dtype, kv_dtype=kv_dtype, batch=batch,
                         context=context, gpus=1)
    points = [_on_roof("decode", step["flops_per_step"] / step["bytes_per_step"], peak,
                       bandwidth)]
    if context > 0 and model.shape is not None and model.params is not None:
        tokens = context * batch
        active = model.active_params or model.params
        read = model.params if active == model.params else moe_params_read(
            model.params, active, tokens, model.experts, model.experts_per_token)
        moved = model.weights_in(dtype, read)[0] + kv_cache_bytes(
            model.shape, kv_dtype, model.kv_tokens(context), batch)
        points.append(_on_roof("prefill", forward_flops(active, tokens) / moved, peak,
                               bandwidth))
    # from 1 FLOP/B to past the ridge and past every point, so the roof runs under each
    low = min(1.0, *(p.x for p in points))
    high = max(ridge * 30, 1e4, *(p.x * 1.5 for p in points))
    intensities = _geometric(low, high, 41)
    roof = tuple(attainable_flops(i, peak, bandwidth) / 1e12 for i in intensities)
    return Chart("roofline", "FLOP/B", "TFLOPS", x_log=True, y_log=True,
                 series=(Series("roof", intensities, roof),), points=tuple(points),
                 levels=(Level("ridge", ridge, axis="x"),),
                 facts={"chip": device.label, "model": model.label,
                        "ridge_flop_per_byte": ridge, "peak_tflops": peak / 1e12,
                        "bandwidth_tb_s": bandwidth / 1e12, "batch": batch,
                        "context": context})


def _on_roof(name: str, intensity: float, peak: float, bandwidth: float) -> Point:
    bound = "compute" if intensity >= ridge_point(peak, bandwidth) else "memory"
    return Point(name, intensity, attainable_flops(intensity, peak, bandwidth) / 1e12, bound)


def _budget(model: ModelInput, device: DeviceInput, dtype: str, gpus: int,
            usable_fraction: float, runtime: tuple[float, float] | None) -> ServingBudget:
    """One device's memory as vLLM splits it, the weights spread over ``gpus``;
    ``runtime``: (activation peak, non-torch) bytes, default vLLM's measured ones."""
    assert device.memory_bytes is not None
    activation, non_torch = runtime or (ACTIVATION_PEAK_BYTES, NON_TORCH_BYTES)
    return ServingBudget(total_bytes=device.memory_bytes, utilization=usable_fraction,
                         weights_bytes=model.weights_in(dtype)[0] / gpus,
                         activation_peak_bytes=activation, non_torch_bytes=non_torch)


def _memory_levels(budget: ServingBudget) -> tuple[Level, ...]:
    usable = budget.budget_bytes - budget.runtime_bytes
    return (Level("memory", budget.total_bytes / GB), Level("usable", usable / GB))


def memory_against_context(model: ModelInput, device: DeviceInput, *, dtype: str,
                           kv_dtype: str, batch: int, context: int, gpus: int = 1,
                           usable_fraction: float = DEFAULT_USABLE_FRACTION,
        runtime: tuple[float, float] | None = None) -> Chart:
    """Weights + KV cache per device (GB) as the context grows, at ``batch``, under the
    chip's budget line (what vLLM leaves weights and cache: memory × utilization less
    the activation peak and non-torch memory); ``facts`` has the longest context
    that fits."""
    assert model.shape is not None
    budget = _budget(model, device, dtype, gpus, usable_fraction, runtime)
    longest = max(model.context_length or 0, context, SHORTEST_CONTEXT * 2)
    contexts = _doubling(SHORTEST_CONTEXT, longest, context)
    per_token = kv_bytes_per_token(model.shape, kv_dtype) * batch / gpus
    need = tuple((budget.weights_bytes + per_token * model.kv_tokens(int(c))) / GB
                 for c in contexts)
    weights = tuple(budget.weights_bytes / GB for _ in contexts)
    fits = budget.kv_cache_bytes // per_token if budget.kv_cache_bytes > 0 else 0
    return Chart("memory-context", "tokens", "GB", x_log=True, y_log=False,
                 series=(Series("weights", contexts, weights),
                         Series("weights-kv", contexts, need)),
                 points=(Point("chosen", context, _at(contexts, need, context)),)
                 if context else (),
                 levels=_memory_levels(budget),
                 facts={"chip": device.label, "model": model.label,
                        "longest_context": int(fits) if model.sliding_window is None
                        else None, "batch": batch, "gpus": gpus,
                        "kv_cache_room_gb": budget.kv_cache_bytes / GB})


def memory_against_batch(model: ModelInput, device: DeviceInput, *, dtype: str,
                         kv_dtype: str, batch: int, context: int, gpus: int = 1,
                         usable_fraction: float = DEFAULT_USABLE_FRACTION,
        runtime: tuple[float, float] | None = None) -> Chart:
    """Weights + KV cache per device (GB) as the batch grows at ``context`` tokens each,
    under the budget line; ``facts`` has the largest batch that fits."""
    assert model.shape is not None
    budget = _budget(model, device, dtype, gpus, usable_fraction, runtime)
    per_sequence = kv_cache_bytes(model.shape, kv_dtype, model.kv_tokens(context)) / gpus
    fitting = budget.kv_cache_bytes / per_sequence if per_sequence > 0 else BATCHES[-1]
    # the batches up to twice the largest that fits, so the budget line stays in sight
    batches = tuple(float(b) for b in sorted({*(b for b in BATCHES if b <= max(2 * fitting, 8)),
                                              batch}))
    need = tuple((budget.weights_bytes + per_sequence * b) / GB for b in batches)
    weights = tuple(budget.weights_bytes / GB for _ in batches)
    largest = (int(budget.kv_cache_bytes // per_sequence)
               if per_sequence > 0 and budget.kv_cache_bytes > 0 else None)
    return Chart("memory-batch", "batch", "GB", x_log=True, y_log=False,
                 series=(Series("weights", batches, weights),
                         Series("weights-kv", batches, need)),
                 points=(Point("chosen", batch, _at(batches, need, batch)),),
                 levels=_memory_levels(budget),
                 facts={"chip": device.label, "model": model.label,
                        "largest_batch": largest, "context": context, "gpus": gpus,
                        "kv_cache_room_gb": budget.kv_cache_bytes / GB})


def throughput_against_batch(model: ModelInput, device: DeviceInput, *, dtype: str,
                             kv_dtype: str, batch: int, context: int, gpus: int = 1,
                             mfu: float = 1.0, bandwidth_efficiency: float = 1.0) -> Chart:
    """Decode tokens/s (all sequences) against batch, split where the bound changes:
    the memory-bound part grows with the batch, the compute-bound part stays flat;
    ``facts`` has the first batch that is compute-bound."""
    batches = tuple(sorted({*BATCHES, batch}))
    steps = [decode_report(model, device, dtype=dtype, kv_dtype=kv_dtype, batch=b,
                           context=context, gpus=gpus, mfu=mfu,
                           bandwidth_efficiency=bandwidth_efficiency) for b in batches]
    xs = tuple(float(b) for b in batches)
    memory = tuple(s["tokens_per_s"] for s in steps if s["bound"] == "memory")
    compute = tuple(s["tokens_per_s"] for s in steps if s["bound"] == "compute")
    first = next((b for b, s in zip(batches, steps, strict=True) if s["bound"] == "compute"),
                 None)
    series = [Series("memory-bound", xs[:len(memory)], memory)]
    if compute:  # joined to the last memory-bound point so the line is unbroken
        start = max(len(memory) - 1, 0)
        series.append(Series("compute-bound", xs[start:],
                             (*memory[start:], *compute)))
    chosen = steps[batches.index(batch)]
    return Chart("throughput-batch", "batch", "tokens/s", x_log=True, y_log=True,
                 series=tuple(series),
                 points=(Point("chosen", batch, chosen["tokens_per_s"], chosen["bound"]),),
                 facts={"chip": device.label, "model": model.label,
                        "first_compute_bound_batch": first, "context": context,
                        "gpus": gpus, "bounds": [s["bound"] for s in steps]})


def _doubling(low: int, high: int, extra: int) -> tuple[float, ...]:
    values = {float(low)}
    while low < high:
        low = min(low * 2, high)
        values.add(float(low))
    if extra:
        values.add(float(extra))
    return tuple(sorted(values))


def _at(xs: tuple[float, ...], ys: tuple[float, ...], x: float) -> float:
    return ys[xs.index(float(x))]
