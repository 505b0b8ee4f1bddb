"""Unit constants the calculator speaks in: SI, as vendors publish.

1 GB = 10^9 bytes (GiB = 2^30 only where asked); a network port's Gb/s are
bits, so 400 Gb/s moves 50 GB/s.
"""

from __future__ import annotations

KB = 1e3
MB = 1e6
GB = 1e9
TB = 1e12
GIB = 2.0**30
TFLOPS = 1e12
BITS_PER_BYTE = 8

DTYPE_BYTES: dict[str, float] = {
    "fp32": 4.0,
    "fp16": 2.0,
    "bf16": 2.0,
    "fp8": 1.0,
    "int8": 1.0,
    "fp4": 0.5,
    "int4": 0.5,
}


class UnknownDtypeError(ValueError):
    """A dtype name the calculator does not know."""


def dtype_bytes(dtype: str) -> float:
    """Bytes per value: fp32 4, fp16/bf16 2, fp8/int8 1, fp4/int4 0.5."""
    try:
        return DTYPE_BYTES[dtype.lower()]
    except KeyError:
        known = ", ".join(DTYPE_BYTES)
        raise UnknownDtypeError(f"unknown dtype {dtype!r} (known: {known})") from None


def gbit_to_bytes_per_s(gbit_s: float) -> float:
    """A port speed in Gb/s (bits) as bytes per second."""
    return gbit_s * 1e9 / BITS_PER_BYTE
