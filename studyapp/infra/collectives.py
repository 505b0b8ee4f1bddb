"""Collectives as NCCL runs them: bus bandwidth per node, and an α–β time.

Every collective here costs ``calls × latency + bytes / bandwidth`` (the α–β
model): a fixed latency each call, whatever its size, plus the ring's bytes
at the bus bandwidth NCCL reaches. The bandwidth is a link's line rate times
the efficiency nccl-tests measure; the latency is a published small-message
time. Across nodes NCCL opens one ring per network card, so a node with
eight cards moves eight cards' worth, and one card per node is the case where
the network dominates.
"""

from __future__ import annotations

from dataclasses import dataclass

SCALE_UP_BUS_EFFICIENCY = 370 / 450
"""NCCL's ring all-reduce bus bandwidth over NVLink: ~370 GB/s of H100's 450 GB/s each way
(about 20 % protocol overhead, NVIDIA's NCCL maintainers,
https://github.com/NVIDIA/nccl-tests/issues/212); A800 gets ~160 of its 200 GB/s
(https://github.com/NVIDIA/nccl/issues/412). NVLink SHARP (NVLS) on 8 H100 reaches ~480 GB/s
of bus bandwidth for an all-reduce alone (https://github.com/NVIDIA/nccl-tests/issues/290),
8 B200 830 GB/s or more of NVLink 5's 900 (https://github.com/NVIDIA/nccl/issues/1807); the
ring share is the one every collective reaches, so the model leaves NVLS out."""

CARD_BUS_EFFICIENCY = 47 / 50
"""Bus bandwidth per network card: 46–48 GB/s per NDR 400 Gb/s card (50 GB/s)
(https://github.com/NVIDIA/nccl-tests/issues/290); 24 GB/s per 200 Gb/s card
(https://github.com/NVIDIA/nccl-tests/issues/119)."""

SCALE_UP_LATENCY_S = 10.1e-6
"""One small all-reduce inside an 8-GPU H100 node: 0.0101 ms for 512 bytes at TP 8 (vLLM's
custom all-reduce; SGLang's own 0.0059 ms, both 0.006–0.012 ms up to 32 KB),
https://github.com/sgl-project/sglang/pull/2904. AMD measures the same range for a 2 KB
all-reduce at TP 4 (7.18 µs, https://github.com/sgl-project/sglang/pull/6619), so the figure
stands for any scale-up link the catalog has no measurement of."""

SCALE_OUT_LATENCY_S = 47e-6
"""One small all-reduce across two 8-GPU nodes on NDR InfiniBand (ConnectX-7, NCCL 2.21):
46–48 µs from 4 to 512 bytes in nccl-tests, https://github.com/NVIDIA/nccl/issues/1244."""

NVLINK_PREFIX = "nvlink"


def scale_up_efficiency(link_id: str | None) -> float:
    """The measured share of line rate NCCL reaches on a scale-up link (by id or name); 1
    (line rate) for fabrics without a published bus bandwidth in the catalog."""
    named = (link_id or "").lower()
    return SCALE_UP_BUS_EFFICIENCY if named.startswith(NVLINK_PREFIX) else 1.0


def ring_factor(devices: int) -> float:
    """Share of the data each device sends in a ring all-reduce: 2(n − 1)/n."""
    return bus_factor("all-reduce", devices)


BUS_FACTORS = {"all-reduce": 2.0, "reduce-scatter": 1.0, "all-gather": 1.0, "all-to-all": 1.0}
"""busbw = algbw × factor × (n − 1)/n for these; broadcast and reduce send the data once
(factor 1 whatever n): nccl-tests' definitions,
https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md."""
ROOTED = ("broadcast", "reduce")


def bus_factor(kind: str, devices: int) -> float:
    """How many times its size each device moves in collective ``kind`` over ``devices``."""
    if devices < 2:
        return 0.0
    if kind in ROOTED:
        return 1.0
    return BUS_FACTORS[kind] * (devices - 1) / devices


def network_bus_bandwidth(cards: int, card_one_way: float,
                          card_efficiency: float = CARD_BUS_EFFICIENCY) -> float:
    """What a node's cards move for one all-reduce: one ring per card, so they add up."""
    return cards * card_one_way * card_efficiency


def bus_bandwidth(scale_up_one_way: float, *, nodes: int = 1, cards: int = 0,
                  card_one_way: float = 0.0, scale_up_eff: float = 1.0,
                  card_efficiency: float = CARD_BUS_EFFICIENCY) -> float:
    """Bus bandwidth of an all-reduce over ``nodes`` nodes (bytes/s per GPU, nccl-tests' busbw).

    Inside one node the scale-up link sets it. Across nodes every ring also crosses the
    scale-up link, so the slower of the two: the node's cards together, or the scale-up link.
    """
    inside = scale_up_one_way * scale_up_eff
    if nodes <= 1:
        return inside
    if cards < 1:
        raise ValueError("an all-reduce across nodes needs at least one network card per node")
    return min(inside, network_bus_bandwidth(cards, card_one_way, card_efficiency))


@dataclass(frozen=True)
class CollectiveTime:
    """``calls`` collectives of ``size_bytes`` each over ``devices``: α–β terms."""

    calls: int
    size_bytes: float
    devices: int
    bus_bytes_s: float
    latency_s: float
    kind: str = "all-reduce"

    @property
    def latency_seconds(self) -> float:
        return self.calls * self.latency_s if self.devices > 1 else 0.0

    @property
    def bandwidth_seconds(self) -> float:
        return (self.calls * bus_factor(self.kind, self.devices) * self.size_bytes
                / self.bus_bytes_s)

    @property
    def seconds(self) -> float:
        return self.latency_seconds + self.bandwidth_seconds

    @property
    def dominant(self) -> str:
        """Which term is larger: small messages are latency, large ones bandwidth."""
        return "latency" if self.latency_seconds > self.bandwidth_seconds else "bandwidth"


def collective_time(kind: str, size_bytes: float, devices: int, bus_bytes_s: float, *,
                    nodes: int = 1, calls: int = 1,
                    latency_s: float | None = None) -> CollectiveTime:
    """Any collective, α–β: ``calls`` × latency + calls × factor × size / bus bandwidth. The
    latency is the published small-message time inside a node or across nodes by default;
    the all-reduce measurements stand in for the other collectives."""
    if latency_s is None:
        latency_s = SCALE_UP_LATENCY_S if nodes <= 1 else SCALE_OUT_LATENCY_S
    return CollectiveTime(calls=calls, size_bytes=size_bytes, devices=devices,
                          bus_bytes_s=bus_bytes_s, latency_s=latency_s, kind=kind)


def allreduce_time(size_bytes: float, devices: int, bus_bytes_s: float, *, nodes: int = 1,
                   calls: int = 1, latency_s: float | None = None) -> CollectiveTime:
    """All-reduce time, α–β (``collective_time`` of an all-reduce)."""
    return collective_time("all-reduce", size_bytes, devices, bus_bytes_s, nodes=nodes,
                           calls=calls, latency_s=latency_s)
