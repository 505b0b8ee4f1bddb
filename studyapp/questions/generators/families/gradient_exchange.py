"""The gradient all-reduce of scenario-allreduce: inside a node, then across nodes.

Both steps are NCCL's α–β time from ``studyapp.infra.collectives``: a call's latency plus
2(n−1)/n × size over the bus bandwidth. Across nodes NCCL opens one ring per network
card, so a node's cards add up; every ring still crosses the scale-up link, so the
slower of the two sets the pace. With one card per GPU (HGX) the network costs little
more than NVLink; with one card per node it dominates.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from studyapp.catalog.models import Interconnect, System
from studyapp.infra import per_direction, weights_bytes
from studyapp.infra.collectives import (
    CARD_BUS_EFFICIENCY,
    SCALE_OUT_LATENCY_S,
    SCALE_UP_LATENCY_S,
    allreduce_time,
    bus_bandwidth,
    network_bus_bandwidth,
    scale_up_efficiency,
)
from studyapp.infra.units import GB
from studyapp.questions.generators.families.memory import WEIGHTS_SIZE
from studyapp.questions.generators.families.scenario_kit import GRADIENT_DTYPE, like
from studyapp.questions.model import Slip
from studyapp.questions.scenario import NO_FAMILY, Step


def node_bus(e: Mapping[str, Any]) -> float:
    """Bus bandwidth inside one node: the scale-up link's rate each way × NCCL's share."""
    return float(e["nvlink_bw"] * e["nvlink_eff"])


def network_bus(e: Mapping[str, Any], cards: int | None = None,
                card_bw: float | None = None) -> float:
    """What the node's cards move together: one ring per card."""
    return network_bus_bandwidth(cards or e["cards"], card_bw or e["card_bw"])


def across_bus(e: Mapping[str, Any], cards: int | None = None,
               card_bw: float | None = None) -> float:
    """Bus bandwidth across nodes: the slower of the cards together and the scale-up link."""
    return bus_bandwidth(e["nvlink_bw"], nodes=e["nodes"], cards=cards or e["cards"],
                         card_one_way=card_bw or e["card_bw"], scale_up_eff=e["nvlink_eff"])


def inside_ms(e: Mapping[str, Any], bandwidth: float | None = None) -> float:
    return allreduce_time(e["grads"] * GB, e["node_gpus"],
                          bandwidth or node_bus(e)).seconds * 1e3


def across_ms(e: Mapping[str, Any], cards: int | None = None,
              card_bw: float | None = None) -> float:
    return allreduce_time(e["grads"] * GB, e["all_gpus"], across_bus(e, cards, card_bw),
                          nodes=e["nodes"]).seconds * 1e3


def _pace(e: Mapping[str, Any]) -> str:
    """The link with the smaller bus bandwidth across nodes (NVLink when they tie)."""
    words: tuple[str, str] = e["link_words"]
    return words[1] if network_bus(e) < node_bus(e) else words[0]


ONE_CARD = Slip("one_port", lambda e: (across_ms(e, cards=1) / e["ib"]
                                       if e["cards"] > 1 else None))
"""One card's bandwidth for the node's, forgetting NCCL's ring per card."""
BITS_CARD = Slip("bits", lambda e: across_ms(e, card_bw=e["card_bw"] * 8) / e["ib"])
"""The card's Gb/s read as GB/s."""

ALLREDUCE_STEPS = (
    # the gradients' size is the weights-size card's computation: it names the same slips
    like(WEIGHTS_SIZE, Step("grads", lambda e: weights_bytes(e["params"], e["dtype"]) / GB,
                            "GB")),
    Step("nvlink", inside_ms, "ms", uses=("grads",),
         slips=(Slip("per_direction", lambda e: inside_ms(e, 2 * node_bus(e)) / e["nvlink"]),),
         exercises="ring-allreduce"),
    Step("ib", across_ms, "ms", uses=("grads",), slips=(ONE_CARD, BITS_CARD),
         exercises="ring-allreduce"),
    Step("ratio", lambda e: e["ib"] / e["nvlink"], "x", uses=("nvlink", "ib"),
         exercises=NO_FAMILY),
    Step("dominates", _pace, exercises=NO_FAMILY),
)


def shared_params(system: System, link: Interconnect, card: Interconnect, cards: int,
                  nodes: int, params: float, link_words: tuple[str, str]) -> dict[str, Any]:
    """The figures the steps compute from (bandwidths in bytes/s each way)."""
    return {"params": params, "dtype": GRADIENT_DTYPE,
            "node_gpus": system.gpus, "all_gpus": system.gpus * nodes,
            "nodes": nodes, "cards": cards,
            "nvlink_bw": per_direction(link.bandwidth_gb_s, link.direction) * GB,
            "nvlink_eff": scale_up_efficiency(link.id),
            "card_bw": (card.gbit_s or card.bandwidth_gb_s * 8) * GB / 8,
            "link_words": link_words}


def exchange_fields(e: Mapping[str, Any]) -> dict[str, float]:
    """The intermediate figures the worked steps show, in GB/s and µs."""
    return {"nvlink_bus": node_bus(e) / GB, "net_bus": network_bus(e) / GB,
            "bus": across_bus(e) / GB, "eff": e["nvlink_eff"],
            "card_eff": CARD_BUS_EFFICIENCY, "card_gb_s": e["card_bw"] / GB,
            "lat_in": SCALE_UP_LATENCY_S * 1e6, "lat_out": SCALE_OUT_LATENCY_S * 1e6,
            "network_bound": float(network_bus(e) < node_bus(e)),
            "one_card_ratio": across_ms(e, cards=1) / inside_ms(e)}
