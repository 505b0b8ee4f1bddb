"""Network arithmetic: transfers and collectives.

Bandwidths here are per direction, in bytes/s. Vendors quote NVLink as a
bidirectional total per GPU (900 GB/s on Hopper = 450 GB/s each way) and
network ports in bits (NDR 400 Gb/s = 50 GB/s each way).
"""

from __future__ import annotations


def per_direction(bandwidth: float, direction: str) -> float:
    """A link's one-way bandwidth from its published figure."""
    return bandwidth / 2 if direction == "bidirectional" else bandwidth


def ring_allreduce_seconds(size_bytes: float, devices: int, bandwidth_bytes_s: float) -> float:
    """Bandwidth term of a ring all-reduce: 2(n-1)/n · S / B (latency ignored)."""
    if devices < 2:
        return 0.0
    return 2.0 * (devices - 1) / devices * size_bytes / bandwidth_bytes_s
