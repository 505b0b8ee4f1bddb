"""Checkpoint arithmetic: size, write time and how often to write.

A full training checkpoint holds the model state: with mixed-precision Adam
that is about 14 bytes per parameter without gradients (BF16 weights 2 +
FP32 master 4 + Adam m 4 + v 4), 16 with them.
"""

from __future__ import annotations

import math

CHECKPOINT_BYTES_PER_PARAM = 14.0


def checkpoint_bytes(params: float, bytes_per_param: float = CHECKPOINT_BYTES_PER_PARAM) -> float:
    return params * bytes_per_param


def transfer_seconds(size_bytes: float, bandwidth_bytes_s: float) -> float:
    """Time to move ``size_bytes`` at a sustained bandwidth."""
    return size_bytes / bandwidth_bytes_s


def young_daly_interval(checkpoint_seconds: float, mtbf_seconds: float) -> float:
    """Optimal time between checkpoints, sqrt(2·C·MTBF) (Young 1974; Daly 2006)."""
    return math.sqrt(2.0 * checkpoint_seconds * mtbf_seconds)


def checkpoint_overhead(checkpoint_seconds: float, interval_seconds: float,
                        mtbf_seconds: float) -> float:
    """Share of a run's time lost to checkpoints: writing them (C/τ) plus, on average, half
    an interval of work redone after each failure (τ/(2·MTBF)), the waste Young's interval
    minimises; at that interval the two halves are equal."""
    return checkpoint_seconds / interval_seconds + interval_seconds / (2.0 * mtbf_seconds)


def cluster_mtbf_seconds(device_mtbf_seconds: float, devices: int) -> float:
    """Independent failures: a cluster fails ``devices`` times as often."""
    return device_mtbf_seconds / devices
