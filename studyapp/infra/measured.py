"""The published measurement that matches a calculation, set beside the theory.

The calculator computes from datasheet peaks and a default efficiency (an MFU of 40%,
the bus bandwidth share nccl-tests reach on a ring). Where someone has run the same
setup — the chip, the collective over the same GPUs, the matmul dtype, the model and
engine — the measured figure says how far the theory is from a real run, and its
efficiency can replace the default one (``calc … --efficiency measured``).

Pure: reads catalog entries already loaded, no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from studyapp.infra.calc_charts import Chart, Level, Point

if TYPE_CHECKING:  # the schema needs pydantic; this module only reads its fields
    from studyapp.catalog.measurements import Measurement

KINDS_OF_COMMAND: dict[str, tuple[str, ...]] = {
    "train": ("training-tflops", "matmul-tflops"),
    "decode": ("decode-throughput",),
    "fit": ("kv-cache-tokens", "kv-cache-memory"),
    "allreduce": ("allreduce-busbw",),
}
"""The kinds of measurement each ``calc`` command is read against, the first preferred:
a training run's TFLOPS is an MFU, the best matmul (MAMF) only its ceiling."""

EFFICIENCY_COMMANDS = ("train", "decode", "allreduce")
"""Commands whose default efficiency a measured one can replace (MFU, bandwidth share,
bus bandwidth share); a fit has none."""


@dataclass(frozen=True)
class CalcSetup:
    """What a ``calc`` command computed: the facts a measurement's setup must share."""

    command: str
    chip: str | None
    dtype: str | None = None
    model: str | None = None
    gpus: int = 1
    batch: int = 1
    context: int = 0
    nodes: int = 1


def _setup_int(measurement: Measurement, key: str, default: int) -> int | None:
    value = measurement.setup.get(key, default)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def matches(measurement: Measurement, setup: CalcSetup) -> bool:
    """Whether ``measurement`` was taken on the setup a command computed.

    Train: the chip and the dtype. Decode: chip, model, weights dtype, tensor parallel
    = GPUs and concurrency = batch. Fit: chip, model, weights dtype, tensor parallel.
    All-reduce: chip, GPUs in all and nodes."""
    if setup.chip is None or measurement.chip != setup.chip:
        return False
    if measurement.kind not in KINDS_OF_COMMAND.get(setup.command, ()):
        return False
    given = measurement.setup
    if setup.command == "train":
        return given.get("dtype") == setup.dtype
    if setup.command == "allreduce":
        return measurement.chips == setup.gpus and measurement.nodes == setup.nodes
    same_model = given.get("model") == setup.model and given.get("weights") == setup.dtype
    same_split = _setup_int(measurement, "tensor_parallel", 1) == setup.gpus
    if setup.command == "decode":
        return same_model and same_split and _setup_int(measurement, "concurrency", 1) \
            == setup.batch
    return same_model and same_split


def _rank(measurement: Measurement, setup: CalcSetup) -> tuple[int, int, int, int]:
    """Sort key, best first: the preferred kind, a run over a maintainer's figure, the
    prompt length nearest the context (decode), the newest."""
    kinds = KINDS_OF_COMMAND[setup.command]
    prompt = _setup_int(measurement, "input_tokens", 0) or 0
    return (kinds.index(measurement.kind), measurement.stated_by != "measured",
            abs(prompt - setup.context) if setup.command == "decode" else 0,
            -measurement.date.toordinal())


def matching(measurements: Iterable[Measurement], setup: CalcSetup) -> list[Measurement]:
    """Every measurement of this setup, best first (see :func:`_rank`)."""
    found = [m for m in measurements if matches(m, setup)]
    return sorted(found, key=lambda m: _rank(m, setup))


def pick(measurements: Sequence[Measurement], setup: CalcSetup,
         wanted: str | None = None) -> Measurement | None:
    """The best match, or the one named ``wanted`` if it matches (None otherwise)."""
    found = matching(measurements, setup)
    if wanted is not None:
        found = [m for m in found if m.id == wanted]
    return found[0] if found else None


def calculated_in_unit(measurement: Measurement, report: dict[str, Any]) -> float | None:
    """The calculator's own figure for what ``measurement`` measured, in its unit: the
    TFLOPS reached at the MFU, one stream's tokens/s, the KV cache tokens or memory per
    GPU, the bus bandwidth (None where the report has no such figure)."""
    kind = measurement.kind
    if kind in ("training-tflops", "matmul-tflops"):
        return float(report["tflops_per_device"] * report["mfu"])
    if kind == "decode-throughput":
        return float(report["tokens_per_s_per_sequence"])
    if kind == "kv-cache-tokens":
        tokens = report.get("kv_cache_tokens")
        return None if tokens is None else float(tokens)
    if kind == "kv-cache-memory":
        per_gpu = report["kv_cache_room_bytes"] / report["devices"]
        return float(per_gpu) / (2**30 if measurement.unit == "GiB" else 1e9)
    if kind == "allreduce-busbw":
        return float(report["bus_bandwidth_gb_s"])
    return None


def measured_entry(measurement: Measurement, report: dict[str, Any]) -> dict[str, Any]:
    """The ``measured`` object of a ``calc --json`` report.

    ``efficiency`` is the share of the datasheet figure the run reached
    (value / ``theory``); for a measurement with no datasheet figure (a serving
    engine's KV cache) it is value / ``calculated``, this calculation's own figure,
    and ``efficiency_of`` says which."""
    calculated = calculated_in_unit(measurement, report)
    if measurement.theory is not None:
        efficiency, basis = measurement.value / measurement.theory, "theory"
    elif calculated:
        efficiency, basis = measurement.value / calculated, "calculated"
    else:
        efficiency, basis = None, None
    return {
        "id": measurement.id,
        "name": measurement.name,
        "kind": measurement.kind,
        "value": measurement.value,
        "unit": measurement.unit,
        "theory": measurement.theory,
        "calculated": calculated,
        "efficiency": efficiency,
        "efficiency_of": basis,
        "source": str(measurement.sources[0]),
        "sources": [str(url) for url in measurement.sources],
        "date": measurement.date.isoformat(),
        "stated_by": measurement.stated_by,
        "setup": dict(measurement.setup),
        "chips": measurement.chips,
        "nodes": measurement.nodes,
        "gap": measurement.gap,
    }


def setup_words(setup: CalcSetup) -> str:
    """The setup in one line, as its options read (the same in every language), for "no
    measurement matches": ``h100-sxm ×2, llama-3.1-70b, fp8, batch=1``."""
    parts = [f"{setup.chip or '-'} ×{setup.gpus}" if setup.command != "train"
             else setup.chip or "-"]
    parts += [word for word in (setup.model, setup.dtype) if word]
    if setup.command == "decode":
        parts.append(f"batch={setup.batch}")
    if setup.command == "allreduce" and setup.nodes > 1:
        parts.append(f"nodes={setup.nodes}")
    return ", ".join(parts)


def measured_marks(chart: Chart, measurements: Sequence[Measurement], *, dtype: str,
                   gpus: int = 1, batch: int = 1) -> Chart:
    """``chart`` with what was measured on its setup marked beside the theory.

    The roofline gets the best matmul a MAMF sweep reached on the chip in ``dtype``
    (a level under the compute roof); tokens/s against batch, a serving engine's one
    stream at its concurrency; memory against context, the context a serving engine's
    KV cache holds at ``batch``. Each mark's measurement is in ``facts["measured"]``."""
    chip, model = chart.facts.get("chip"), chart.facts.get("model")
    found: Measurement | None = None
    levels, points = list(chart.levels), list(chart.points)
    if chart.kind == "roofline":
        found = next((m for m in measurements if m.kind == "matmul-tflops" and m.chip == chip
                      and m.setup.get("dtype") == dtype), None)
        if found:
            levels.append(Level("measured-matmul", found.value))
    elif chart.kind == "throughput-batch":
        found = pick(measurements, CalcSetup("decode", chip, dtype=dtype, model=model,
                                             gpus=gpus, batch=1,
                                             context=int(chart.facts.get("context", 0))))
        if found:
            streams = _setup_int(found, "concurrency", 1) or 1
            points.append(Point("measured", streams, found.value * streams))
    elif chart.kind == "memory-context":
        found = next((m for m in matching(measurements, CalcSetup(
            "fit", chip, dtype=dtype, model=model, gpus=gpus)) if m.kind == "kv-cache-tokens"),
            None)
        if found:
            levels.append(Level("measured-kv-tokens", found.value / batch, axis="x"))
    if found is None:
        return chart
    mark = {"id": found.id, "value": found.value, "unit": found.unit,
            "source": str(found.sources[0]), "date": found.date.isoformat()}
    return replace(chart, levels=tuple(levels), points=tuple(points),
                   facts={**chart.facts, "measured": mark})
