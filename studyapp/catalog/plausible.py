"""Figures no real part has: a catalog entry out of every chip's range is a typo.

Each range is wide enough for every part shipped or announced by late 2026 and
narrow enough that a unit slip falls outside it: a bandwidth in GB/s written in
the TB/s field (Trainium3's 4.9 TB/s as 4,900), a link in TB/s written in the
GB/s field (2.56 instead of 2,560). Where the figure ×1000 or ÷1000 would be in
range, the finding names that slip. Also: a "with sparsity" headline is never
below its dense figure, and a narrower precision is never slower than a wider one.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from studyapp.catalog.models import CatalogFile

# Bounds per field: (lowest, highest, unit). The largest parts of 2026 for scale:
# memory 288 GB (B300, MI355X), HBM bandwidth 8 TB/s (B300, MI355X; Rubin about
# 20 TB/s announced), dense FP4 15 PF (B300) to 50 PF (Rubin, announced), scale-up
# 3.6 TB/s per GPU (NVLink 6), TDP 1,400 W (B300 in third-party figures).
ACCELERATOR_RANGES: dict[str, tuple[float, float, str]] = {
    "memory_gb": (8, 1024, "GB"),
    "memory_bandwidth_tb_s": (0.2, 40, "TB/s"),
    "bf16_dense_tflops": (20, 20_000, "TFLOPS"),
    "fp8_dense_tflops": (20, 40_000, "TFLOPS"),
    "fp4_dense_tflops": (20, 100_000, "TFLOPS"),
    "tdp_w": (50, 3_000, "W"),
    "scale_up_gb_s": (16, 20_000, "GB/s"),
    "driver_memory_mib": (8_192, 1_048_576, "MiB"),
}
INTERCONNECT_RANGES: dict[str, tuple[float, float, str]] = {
    "bandwidth_gb_s": (1, 20_000, "GB/s"),
    "per_peer_gb_s": (1, 20_000, "GB/s"),
    "gbit_s": (1, 3_200, "Gb/s"),  # a port: 100 GbE to 1.6 Tb/s today, 3.2 Tb/s announced
}
DRIVER_SHARE = (0.85, 1.05)
"""A driver total is this share of the vendor's figure, read in GiB or in GB: it keeps a
little back (H100 79.6 of 80 GiB), never reports a tenth of it (a MiB/GB slip)."""
MODEL_RANGES: dict[str, tuple[float, float, str]] = {
    "params_b": (0.01, 20_000, "B"),
    "layers": (1, 1_000, ""),
    "head_dim": (16, 1_024, ""),
    "context_length": (512, 100_000_000, "tokens"),
}
PRECISIONS = ("bf16", "fp8", "fp4")


@dataclass(frozen=True)
class Implausible:
    """One figure out of range: where in the file's data, the English words, and the
    key and fields of ``catalog.problem.<key>`` for the reader's language."""

    loc: tuple[str | int, ...]
    message: str
    key: str
    fields: tuple[tuple[str, str], ...]


def _slip(value: float, low: float, high: float) -> str:
    """``÷1000`` or ``×1000`` when that would bring ``value`` in range, else empty."""
    if low <= value / 1000 <= high:
        return f"{value / 1000:g}"
    if low <= value * 1000 <= high:
        return f"{value * 1000:g}"
    return ""


def plausibility(data: CatalogFile) -> list[Implausible]:
    """Every figure out of range, every sparse headline under its dense figure and every
    narrower precision slower than a wider one, placed at the field that holds it."""
    findings: list[Implausible] = []

    def check(table: str, i: int, entry: object,
              ranges: dict[str, tuple[float, float, str]]) -> None:
        for field, (low, high, unit) in ranges.items():
            value = getattr(entry, field, None)
            if value is None or low <= value <= high:
                continue
            slip = _slip(float(value), low, high)
            key = "implausible_slip" if slip else "implausible"
            text = (f"{field} {value:g} {unit} is outside what any real part has "
                    f"({low:g} to {high:g} {unit})".replace("  ", " "))
            if slip:
                text += f"; {slip} if the figure was written in the wrong thousand"
            findings.append(Implausible((table, i, field), text, key, (
                ("field", field), ("value", f"{value:g}"), ("low", f"{low:g}"),
                ("high", f"{high:g}"), ("unit", unit), ("slip", slip))))

    for i, chip in enumerate(data.accelerators):
        check("accelerators", i, chip, ACCELERATOR_RANGES)
        if chip.driver_memory_mib is not None:
            driver = chip.driver_memory_mib * 2**20
            low, high = DRIVER_SHARE
            if not any(low <= driver / (chip.memory_gb * unit) <= high for unit in (1e9, 2**30)):
                findings.append(Implausible(
                    ("accelerators", i, "driver_memory_mib"),
                    f"driver_memory_mib {chip.driver_memory_mib} MiB ({driver / 1e9:.4g} GB) is"
                    f" not the {chip.memory_gb:g} GB the vendor prints, in GB or in GiB",
                    "driver_total", (("mib", str(chip.driver_memory_mib)),
                                     ("gb", f"{driver / 1e9:.4g}"),
                                     ("memory_gb", f"{chip.memory_gb:g}"))))
        for precision, printed in (chip.sparse_headline_tflops or {}).items():
            dense = getattr(chip, f"{precision}_dense_tflops")
            if dense is not None and printed < dense:
                findings.append(Implausible(
                    ("accelerators", i, "sparse_headline_tflops", precision),
                    f"{precision} with sparsity {printed:g} is below dense {dense:g}",
                    "sparse_below_dense", (("precision", precision),
                                           ("sparse", f"{printed:g}"),
                                           ("dense", f"{dense:g}"))))
        rates = [(p, getattr(chip, f"{p}_dense_tflops")) for p in PRECISIONS]
        given = [(p, r) for p, r in rates if r is not None]
        for (wide, wide_rate), (narrow, narrow_rate) in itertools.pairwise(given):
            if narrow_rate < wide_rate:
                findings.append(Implausible(
                    ("accelerators", i, f"{narrow}_dense_tflops"),
                    f"{narrow} dense {narrow_rate:g} is below {wide} dense {wide_rate:g}",
                    "precision_order", (("narrow", narrow), ("narrow_rate", f"{narrow_rate:g}"),
                                        ("wide", wide), ("wide_rate", f"{wide_rate:g}"))))
    for i, link in enumerate(data.interconnects):
        check("interconnects", i, link, INTERCONNECT_RANGES)
    for i, model in enumerate(data.models):
        check("models", i, model, MODEL_RANGES)
    return findings
