"""Published measurements: what a figure is when someone ran the part, not what it is on paper.

A datasheet gives the peak; practitioners live with what nccl-tests, a matmul sweep,
nvidia-smi or a serving engine's start-up log report. Each entry here is one such
published figure with its setup (chips, nodes, software and version, message size,
model…) and its source, so the app can set the theory beside the measurement and
teach the gap. ``theory`` is the datasheet figure the measurement is read against,
in the same unit, where one applies.
"""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import Field, model_validator

from studyapp.catalog.entry import Entry

MeasurementKind = Literal[
    "allreduce-busbw",       # nccl-tests all_reduce_perf bus bandwidth, GB/s
    "network-busbw-per-nic", # bus bandwidth one network card carries across nodes, GB/s
    "p2p-bandwidth",         # GPU to GPU copy bandwidth over the scale-up link, GB/s
    "allreduce-latency",     # time of one small all-reduce, µs
    "matmul-tflops",         # maximum achievable matmul FLOPS (MAMF), TFLOPS
    "training-tflops",       # model FLOPs a training step achieves per chip, TFLOPS
    "driver-memory",         # the total the driver reports (nvidia-smi, rocm-smi), MiB
    "kv-cache-memory",       # KV cache a serving engine allocates per GPU, GiB or GB
    "kv-cache-tokens",       # KV cache a serving engine reports, in tokens
    "decode-throughput",     # tokens one stream generates per second, tokens/s
]
MeasurementUnit = Literal["GB/s", "us", "TFLOPS", "MiB", "GiB", "GB", "tokens", "tokens/s"]
GapCause = Literal[
    "none",                 # the measurement is the datasheet figure
    "latency",              # a fixed start-up cost per operation dominates a small one
    "protocol-overhead",    # headers, flow control and synchronisation take part of the link
    "in-switch-reduction",  # NVLink SHARP reduces in the switch: bus bandwidth above line rate
    "clock-under-load",     # the chip lowers its clock under a sustained load (power, heat)
    "tile-quantization",    # shapes that do not fill whole tiles and waves of the chip
    "software-stack",       # the library or its version leaves performance behind
    "serving-memory",       # the engine keeps activations, graphs and non-torch memory aside
    "reserved-memory",      # the driver and firmware keep part of the memory
    "datasheet-rounding",   # the datasheet prints a round figure in another unit
    "non-matmul-work",      # a training step also runs attention, norms, optimizer, comms
    "step-overhead",        # a decode step also pays kernel launches, attention and sampling
]
"""Why a measurement differs from its datasheet figure: what the predict-then-check
questions ask the learner to name."""

UNIT_OF_KIND: dict[str, tuple[str, ...]] = {
    "allreduce-busbw": ("GB/s",),
    "network-busbw-per-nic": ("GB/s",),
    "p2p-bandwidth": ("GB/s",),
    "allreduce-latency": ("us",),
    "matmul-tflops": ("TFLOPS",),
    "training-tflops": ("TFLOPS",),
    "driver-memory": ("MiB",),
    "kv-cache-memory": ("GiB", "GB"),
    "kv-cache-tokens": ("tokens",),
    "decode-throughput": ("tokens/s",),
}
"""The unit each kind is published in: a figure in another unit is a slip, not a choice."""

Setup = dict[str, str | int | float | bool]


class Measurement(Entry):
    """One published measurement of a catalog chip or system, with its setup."""

    kind: MeasurementKind
    chip: str | None = None
    """The accelerator measured (an id in hardware.yaml), or:"""
    system: str | None = None
    """the system measured, when the figure belongs to a whole node or rack."""
    chips: int = Field(default=1, ge=1, le=100_000)
    nodes: int = Field(default=1, ge=1, le=10_000)
    value: float = Field(gt=0)
    low: float | None = Field(default=None, gt=0)
    high: float | None = Field(default=None, gt=0)
    unit: MeasurementUnit
    theory: float | None = Field(default=None, gt=0)
    date: dt.date
    setup: Setup = Field(default_factory=dict)
    stated_by: Literal["measured", "maintainer"] = "measured"
    """``maintainer``: a figure a project's maintainers give as what a setup reaches."""
    gap: GapCause | None = None
    """The main cause of the gap to the datasheet figure (its justification in ``note``)."""

    @model_validator(mode="after")
    def _consistent(self) -> Measurement:
        if (self.chip is None) == (self.system is None):
            raise ValueError("name the chip or the system measured (one of them)")
        if self.unit not in UNIT_OF_KIND[self.kind]:
            raise ValueError(f"a {self.kind} measurement is in "
                             f"{' or '.join(UNIT_OF_KIND[self.kind])}, not {self.unit}")
        if (self.low is None) != (self.high is None):
            raise ValueError("give both low and high, or neither")
        if self.low is not None and self.high is not None \
                and not self.low <= self.value <= self.high:
            raise ValueError(f"value {self.value:g} is outside low..high "
                             f"({self.low:g}..{self.high:g})")
        return self

    @property
    def efficiency(self) -> float | None:
        """Measured over theory: the share of the datasheet figure reached."""
        return None if self.theory is None else self.value / self.theory
