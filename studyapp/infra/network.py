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


def mesh_bandwidth(total_one_way: float, peers: int, devices: int) -> float:
    """One-way bandwidth a collective over ``devices`` chips of a full mesh can use.

    Each chip's total is split over links to ``peers`` others; a group of n chips runs over
    min(n − 1, peers) of them at once (RCCL opens a ring per link), never all of them
    for two chips."""
    return total_one_way * min(max(devices - 1, 1), peers) / peers


TP_ALLREDUCES_PER_LAYER = 2
"""Megatron-style tensor parallelism: one all-reduce after attention and one after the MLP
in every layer's forward pass (Shoeybi et al., 2019, https://arxiv.org/abs/1909.08053)."""


def tp_allreduce_bytes(batch: int, hidden_size: int, bytes_per_value: float) -> float:
    """One decode all-reduce: each sequence's new token's activation, batch × hidden × bytes."""
    return batch * hidden_size * bytes_per_value


def tp_decode_seconds(layers: int, hidden_size: int, batch: int, bytes_per_value: float,
                      devices: int, bandwidth_bytes_s: float) -> float:
    """All-reduce time of one decode step: 2 per layer, ring, bandwidth term only."""
    size = tp_allreduce_bytes(batch, hidden_size, bytes_per_value)
    return (TP_ALLREDUCES_PER_LAYER * layers
            * ring_allreduce_seconds(size, devices, bandwidth_bytes_s))
