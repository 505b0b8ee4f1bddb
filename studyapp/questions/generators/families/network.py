"""Network families: transfers, ring all-reduce, and bits versus bytes.

NVLink is quoted in bytes and both directions summed; network ports in bits
per direction. Every question here makes the learner convert before dividing.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from studyapp.catalog import load_catalog
from studyapp.catalog.models import Interconnect
from studyapp.infra import ring_allreduce_seconds, transfer_seconds
from studyapp.infra.collectives import network_bus_bandwidth, ring_factor
from studyapp.infra.network import mesh_bandwidth
from studyapp.infra.shapes import one_way_bytes_s
from studyapp.infra.units import GB, gbit_to_bytes_per_s
from studyapp.questions.generators import Family
from studyapp.questions.generators.context import DrawContext, drawn
from studyapp.questions.generators.drawing import entries, values
from studyapp.questions.generators.families.terms import model_phrase
from studyapp.questions.generators.slips import (
    BF16_AS_PARAMS,
    BITS,
    BOTH_WAYS_RATE,
    BOTH_WAYS_TIME,
    ONE_PORT,
    RING_FACTOR,
    RING_HALF,
)
from studyapp.questions.generators.wording import join_steps, label, significant
from studyapp.questions.model import Kind, Question, Slip, Tolerance

SIZES_GB = (1, 2, 5, 10, 16, 40, 100, 140)


PER_LINK_KNOWN = ("nvlink-3", "nvlink-4", "nvlink-5", "infinity-fabric-mi300",
                  "infinity-fabric-mi350")
"""Scale-up links whose bandwidth to one peer is known: NVLink goes through NVSwitch, so
one GPU can send to one peer at its full per-GPU rate; an Infinity Fabric mesh has one
link per peer. A torus (ICI, NeuronLink) splits its total over neighbours the vendors
do not list one by one, so those links stay out of transfer questions."""


def transfer_links(options: Mapping[str, Any]) -> list[Interconnect]:
    return entries(load_catalog().interconnects, options, "links",
                   keep=lambda link: link.kind == "scale-out" or link.id in PER_LINK_KNOWN)


def link_fields(link: Interconnect, ctx: DrawContext) -> dict[str, str]:
    """How a link is quoted, and what it moves each way to one peer."""
    one_way = one_way_bytes_s(link)
    if link.gbit_s:
        quoted = ctx.t("gen.link.quoted_bits", gbit=ctx.num(link.gbit_s))
        step = ctx.t("gen.link.bits_step", gbit=ctx.num(link.gbit_s),
                     gb=ctx.num(one_way / GB, 4))
    elif link.per_peer_gb_s:
        quoted = ctx.t("gen.link.quoted_mesh", gb=ctx.num(link.per_peer_gb_s, 5),
                       peers=ctx.num(link.peers or 0), total=ctx.num(link.bandwidth_gb_s))
        step = ctx.t("gen.link.mesh_step", gb=ctx.num(link.per_peer_gb_s, 5),
                     half=ctx.num(one_way / GB, 4), total=ctx.num(link.bandwidth_gb_s))
    elif link.direction == "bidirectional":
        quoted = ctx.t("gen.link.quoted_bidir", gb=ctx.num(link.bandwidth_gb_s))
        step = ctx.t("gen.link.bidir_step", gb=ctx.num(link.bandwidth_gb_s),
                     half=ctx.num(one_way / GB, 4))
    else:
        quoted = ctx.t("gen.link.quoted_oneway", gb=ctx.num(link.bandwidth_gb_s))
        step = ""
    return {"link": label(link.name), "quoted": quoted, "one_way_gb": ctx.num(one_way / GB, 4),
            "link_step": step}


def link_given(link: Interconnect) -> dict[str, float]:
    """The quoted figure a prompt states, under the name that says how to read it."""
    if link.gbit_s:
        return {"gbit": link.gbit_s}
    if link.per_peer_gb_s:
        return {"bidir_gb_s": link.per_peer_gb_s}
    if link.direction == "bidirectional":
        return {"bidir_gb_s": link.bandwidth_gb_s}
    return {"oneway_gb_s": link.bandwidth_gb_s}


def _time_unit(seconds: float, ctx: DrawContext) -> tuple[float, str, str]:
    if seconds < 1:
        return seconds * 1e3, "ms", ctx.t("gen.word.ms")
    return seconds, "s", ctx.t("gen.word.s")


# --- link-transfer --------------------------------------------------------


def link_transfer(ctx: DrawContext, options: Mapping[str, Any]) -> Question:
    """Size over one-way bandwidth, after turning the quoted figure into bytes each way."""
    rng = random.Random(ctx.seed)
    link = rng.choice(transfer_links(options))
    size = float(rng.choice(values(options, "sizes_gb", SIZES_GB)))
    seconds = transfer_seconds(size * GB, one_way_bytes_s(link))
    value, unit, word = _time_unit(seconds, ctx)
    fields = {**link_fields(link, ctx), "size": ctx.num(size), "unit": unit, "word": word,
              "seconds": ctx.num(seconds, 4), "answer": ctx.shown(value)}
    return ctx.question(
        kind=Kind.NUMERIC, prompt=ctx.t("gen.xfer.prompt", **fields),
        explanation=join_steps(fields["link_step"],
                               ctx.t("gen.xfer.explain_s" if unit == "s" and
                                     fields["seconds"] == fields["answer"]
                                     else "gen.xfer.explain", **fields),
                               ctx.t("gen.xfer.why"), ctx.t("gen.convention.gb")),
        answer=significant(value), unit=unit, tolerance=Tolerance(relative=0.02),
        params={"link": link.id, "size_gb": size, "bandwidth_gb_s": link.bandwidth_gb_s,
                "direction": link.direction, "gbit_s": link.gbit_s,
                "per_peer_gb_s": link.per_peer_gb_s,
                "given": {"size_gb": size, **link_given(link)}},
    )


# --- bits-vs-bytes --------------------------------------------------------


def bits_vs_bytes(ctx: DrawContext, options: Mapping[str, Any]) -> Question:
    """A port in Gb/s moves one eighth of that in GB/s: NDR 400 Gb/s = 50 GB/s."""
    rng = random.Random(ctx.seed)
    ports = entries(load_catalog().interconnects, options, "links",
                    keep=lambda link: link.gbit_s is not None)
    port = rng.choice(ports)
    count = int(rng.choice(values(options, "ports", (1, 1, 2, 4, 8))))
    gbit = port.gbit_s or port.bandwidth_gb_s * 8
    one_way = gbit_to_bytes_per_s(gbit) * count
    fields = {"link": label(port.name), "gbit": ctx.num(gbit), "count": ctx.num(count),
              "per_port": ctx.num(gbit_to_bytes_per_s(gbit) / GB, 4),
              "answer": ctx.shown(one_way / GB)}
    key = "gen.bits.prompt_one" if count == 1 else "gen.bits.prompt_many"
    return ctx.question(
        kind=Kind.NUMERIC, prompt=ctx.t(key, **fields),
        explanation=join_steps(ctx.t("gen.bits.explain", **fields),
                               ctx.t("gen.bits.one", **fields) if count == 1
                               else ctx.t("gen.bits.many", **fields),
                               ctx.t("gen.bits.why")),
        answer=significant(one_way / GB), unit="GB/s", tolerance=Tolerance(relative=0.02),
        params={"link": port.id, "gbit_s": gbit, "ports": count,
                "given": {"gbit": gbit, **({"count": count} if count > 1 else {})}},
    )


# --- ring-allreduce -------------------------------------------------------

GPU_COUNTS = (2, 4, 8, 16, 64, 256)

NODE_GPUS = 8
"""GPUs per node across the network: an HGX or Instinct platform board."""
NODE_COUNTS = (2, 4, 8, 32)
CARDS_PER_NODE = (1, 8, 8)
"""Network cards per node: one per GPU (HGX's 2-8-9-400 design), or a single card, the
case where the network dominates; an ``ports`` option draws others (4 HDR cards...)."""

RING_DOMAIN = {"nvlink-3": 8, "nvlink-4": 8, "nvlink-5": 72,
               "infinity-fabric-mi300": 8, "infinity-fabric-mi350": 8}
"""Most GPUs one scale-up domain joins, where the catalog has no system for the link: 8 on
an HGX A100 board (https://www.nvidia.com/en-us/data-center/hgx/). Otherwise the largest
system of the catalog on that link (``scale_up_domain``): HGX H100 8, GB200 NVL72 72."""

FABRIC_NAMES = {"nvlink": "NVLink", "infinity-fabric": "Infinity Fabric", "tpu-ici": "ICI",
                "neuronlink": "NeuronLink"}
"""The fabric a scale-up link belongs to, by the start of its id."""


ONE_CARD_TIME = Slip("one_port", lambda p: float(p["cards"])
                     if p.get("nodes", 1) > 1 and p["cards"] > 1 else None)
"""Across nodes, one card's bandwidth for the node's: the time comes out cards times longer."""


def scale_up_domain(link: Interconnect) -> int:
    """Most GPUs a ring over ``link`` can join: its largest system in the catalog."""
    sizes = [s.nvlink_domain or s.gpus for s in load_catalog().systems
             if s.interconnect == link.id]
    return max(sizes) if sizes else RING_DOMAIN.get(link.id, NODE_GPUS)


def ring_why(link: Interconnect, ctx: DrawContext, cards: int = 1) -> str:
    """Why the slowest link sets the pace, said of the fabric the collective runs on."""
    if link.kind != "scale-up":
        return ctx.t("gen.ring.why_one_card" if cards == 1 else "gen.ring.why_network")
    fabric = next(name for prefix, name in FABRIC_NAMES.items() if link.id.startswith(prefix))
    if fabric == "NVLink":
        return ctx.t("gen.ring.why_nvlink", domain=ctx.num(scale_up_domain(link)))
    return ctx.t("gen.ring.why_mesh", fabric=fabric, domain=ctx.num(scale_up_domain(link)))


def _ring_shape(link: Interconnect, rng: random.Random,
                options: Mapping[str, Any]) -> tuple[int, int, int]:
    """(GPUs, nodes, cards per node): inside one scale-up domain, or whole nodes."""
    counts = [int(c) for c in values(options, "gpu_counts", GPU_COUNTS)]
    if link.kind == "scale-up":
        domain = scale_up_domain(link)
        within = [c for c in counts if 2 <= c <= domain]
        return rng.choice(within or [min(domain, NODE_GPUS)]), 1, 0
    whole = [c // NODE_GPUS for c in counts if c % NODE_GPUS == 0 and c > NODE_GPUS]
    nodes = rng.choice(whole if "gpu_counts" in options and whole else list(NODE_COUNTS))
    cards = int(rng.choice(values(options, "ports", CARDS_PER_NODE)))
    return nodes * NODE_GPUS, nodes, cards


def ring_allreduce(ctx: DrawContext, options: Mapping[str, Any]) -> Question:
    """BF16 gradients all-reduced, bandwidth term 2(n-1)/n · S / B per direction: a ring
    inside one scale-up domain, a full mesh (n − 1 links at once), or across nodes with one
    ring per network card (a node's cards add up)."""
    rng = random.Random(ctx.seed)
    catalog = load_catalog()
    model = rng.choice(entries(catalog.models, options, "models"))
    links_known = [link for link in transfer_links(options)
                   if link.kind != "scale-up" or link.id in PER_LINK_KNOWN]
    if not links_known:  # a torus (ICI, NeuronLink): its per-neighbour split is not listed
        raise LookupError("ring-allreduce needs NVLink, Infinity Fabric or a network card")
    link = rng.choice(links_known)
    count, nodes, cards = _ring_shape(link, rng, options)
    size = model.params * 2
    mesh = bool(link.per_peer_gb_s and link.peers)
    if mesh:  # each chip reaches every other over its own link: n − 1 of them at once
        links = min(count - 1, link.peers or 1)
        bandwidth = mesh_bandwidth(one_way_bytes_s(link) * (link.peers or 1), link.peers or 1,
                                   count)
    elif nodes > 1:  # one ring per card: the node's cards add up
        links = cards
        bandwidth = network_bus_bandwidth(cards, one_way_bytes_s(link), card_efficiency=1.0)
    else:
        links, bandwidth = 1, one_way_bytes_s(link)
    seconds = ring_allreduce_seconds(size, count, bandwidth)
    value, unit, word = _time_unit(seconds, ctx)
    fields = {**link_fields(link, ctx), "model": model_phrase(model, ctx),
              "params_b": ctx.num(model.params_b, 5), "size_gb": ctx.num(size / GB, 4),
              "count": ctx.num(count), "factor": ctx.num(ring_factor(count), 4),
              "nodes": ctx.num(nodes), "node_gpus": ctx.num(NODE_GPUS),
              "cards": ctx.num(cards), "links": ctx.num(links),
              "half": ctx.num(one_way_bytes_s(link) / GB, 4), "bw": ctx.num(bandwidth / GB, 4),
              "one_way_gb": ctx.num(bandwidth / GB, 4),
              "sent_gb": ctx.num(ring_factor(count) * size / GB, 4),
              "unit": unit, "word": word, "answer": ctx.shown(value)}
    if nodes > 1:
        fields["card_count"] = ctx.t("gen.ring.cards_one" if cards == 1
                                     else "gen.ring.cards_many", **fields)
    prompt = ("gen.ring.prompt_mesh" if mesh else "gen.ring.prompt_nodes" if nodes > 1
              else "gen.ring.prompt")
    step = (ctx.t("gen.ring.mesh_links", **fields) if mesh and links > 1
            else ctx.t("gen.ring.cards_step", **fields) if nodes > 1 and cards > 1 else "")
    if nodes > 1:  # the ring's n: every GPU of every node
        step = join_steps(step, ctx.t("gen.ring.count_step", **fields))
    given: dict[str, float] = {"params_b": model.params_b, **link_given(link)}
    given.update({"nodes": nodes, "node_gpus": NODE_GPUS} if nodes > 1 else {"count": count})
    if nodes > 1 and cards > 1:  # "one card" is written as a word
        given["cards"] = cards
    if mesh:
        given["peers"] = link.peers or 1
    return ctx.question(
        kind=Kind.NUMERIC, prompt=ctx.t(prompt, **fields),
        explanation=join_steps(ctx.t("gen.ring.size", **fields), fields["link_step"], step,
                               ctx.t("gen.ring.explain", **fields),
                               ring_why(link, ctx, cards), ctx.t("gen.convention.gb")),
        answer=significant(value), unit=unit, tolerance=Tolerance(relative=0.02),
        params={"model": model.id, "size_bytes": size, "gpus": count, "link": link.id,
                "bandwidth_bytes_s": bandwidth, "links": links, "nodes": nodes,
                "cards": cards, "algorithm": "mesh" if mesh else "ring", "given": given},
    )


# --- gaudi-ethernet -------------------------------------------------------

GAUDI_PORTS = {"gaudi2": (24, "roce-100g"), "gaudi3": (24, "roce-200g")}
"""On-chip Ethernet ports per chip (Intel Gaudi 2 and Gaudi 3 white papers)."""

HLS_SCALE_UP_PORTS = 21
"""In an 8-card Gaudi server (HLS-2, HLS-3) 21 ports of each chip go to its 7 peers (3
each) and only 3 leave the box for scale-out (Intel Gaudi network configuration,
https://docs.habana.ai/en/latest/Management_and_Monitoring/Network_Configuration/index.html)."""

GAUDI_SERVERS = {"gaudi2": "HLS-Gaudi2", "gaudi3": "HLS-3"}


def gaudi_ethernet(ctx: DrawContext, options: Mapping[str, Any]) -> Question:
    """Gaudi scales with plain RoCE Ethernet on the chip: ports × Gb/s / 8, per chip or box."""
    rng = random.Random(ctx.seed)
    catalog = load_catalog()
    chips = [c for c in entries(catalog.accelerators, options, "gpus",
                                keep=lambda c: c.id in GAUDI_PORTS) if c.id in GAUDI_PORTS]
    chip = rng.choice(chips)
    total, port_id = GAUDI_PORTS[chip.id]
    port = catalog.interconnects[port_id]
    gbit = port.gbit_s or port.bandwidth_gb_s * 8
    variant = rng.choice(["all", "scale-up", "scale-out"])
    count = {"all": total, "scale-up": HLS_SCALE_UP_PORTS,
             "scale-out": total - HLS_SCALE_UP_PORTS}[variant]
    # only a server's scale-out ports add up across its chips: the other 21 of each chip
    # are links inside the box, each shared by two chips
    boxes = (int(rng.choice(values(options, "chips", (1, 1, 8)))) if variant == "scale-out"
             else 1)
    both_ways = rng.random() < 0.4
    one_way = gbit_to_bytes_per_s(gbit) * count * boxes
    answer = one_way * (2 if both_ways else 1)
    fields = {"gpu": chip.name, "server": GAUDI_SERVERS.get(chip.id, "8-card"),
              "total": ctx.num(total), "count": ctx.num(count),
              "gbit": ctx.num(gbit), "tbit": ctx.num(gbit * count / 1e3, 3),
              "chips": ctx.num(boxes),
              "per_port": ctx.num(gbit_to_bytes_per_s(gbit) / GB, 4),
              "per_chip": ctx.num(gbit_to_bytes_per_s(gbit) * count / GB, 4),
              "one_way": ctx.num(one_way / GB, 4), "answer": ctx.shown(answer / GB),
              "direction": ctx.t("gen.gaudi.both_ways" if both_ways else "gen.gaudi.one_way")}
    scope = "_box" if boxes > 1 else ""
    steps = [ctx.t("gen.gaudi.explain", **fields)]
    if boxes > 1:
        steps.append(ctx.t("gen.gaudi.box_step", **fields))
    steps.append(ctx.t("gen.gaudi.both_step" if both_ways else "gen.gaudi.one_step", **fields))
    return ctx.question(
        kind=Kind.NUMERIC,
        prompt=ctx.t(f"gen.gaudi.prompt_{variant.replace('-', '_')}{scope}", **fields),
        explanation=join_steps(*steps, ctx.t("gen.gaudi.why")),
        answer=significant(answer / GB), unit="GB/s", tolerance=Tolerance(relative=0.02),
        params={"gpu": chip.id, "ports": count, "port_gbit_s": gbit, "variant": variant,
                "chips": boxes, "both_ways": both_ways,
                "given": {"count": count, "gbit": gbit, **({"chips": boxes} if boxes > 1 else {})}},
    )


LINK_TRANSFER = Family(
    name="link-transfer", post="nvlink-infiniband", kind=Kind.NUMERIC,
    description={"es": "Tiempo para mover X GB por NVLink, ICI o un puerto InfiniBand/Ethernet",
                 "en": "Time to move X GB over NVLink, ICI or an InfiniBand/Ethernet port"},
    generate=drawn(link_transfer), options={"links": "interconnect ids", "sizes_gb": "sizes in GB"},
    slips=(BITS, BOTH_WAYS_TIME),
)
BITS_VS_BYTES = Family(
    name="bits-vs-bytes", post="nvlink-infiniband", kind=Kind.NUMERIC,
    description={"es": "Gb/s de un puerto a GB/s por sentido (bits frente a bytes)",
                 "en": "A port's Gb/s as GB/s each way (bits versus bytes)"},
    generate=drawn(bits_vs_bytes), options={"links": "port ids", "ports": "port counts"},
    fact="conversion:bits-vs-bytes",  # both directions are one skill
    slips=(BITS, ONE_PORT), conversion=True,
)
RING_ALLREDUCE = Family(
    name="ring-allreduce", post="nvlink-infiniband", kind=Kind.NUMERIC,
    description={"es": "Tiempo de un all-reduce en anillo de los gradientes BF16",
                 "en": "Ring all-reduce time for BF16 gradients"},
    generate=drawn(ring_allreduce),
    options={"models": "model ids", "links": "interconnect ids", "gpu_counts": "GPU counts",
             "ports": "network cards per node (across nodes)"},
    slips=(RING_FACTOR, RING_HALF, BOTH_WAYS_TIME, BF16_AS_PARAMS, ONE_CARD_TIME),
)
GAUDI_ETHERNET = Family(
    name="gaudi-ethernet", post="gaudi", kind=Kind.NUMERIC,
    description={"es": "Ancho de banda de los puertos Ethernet RoCE integrados en Gaudi",
                 "en": "Bandwidth of Gaudi's on-chip RoCE Ethernet ports"},
    generate=drawn(gaudi_ethernet),
    options={"gpus": "gaudi2, gaudi3", "chips": "chips counted (1 or 8)"},
    slips=(BITS, BOTH_WAYS_RATE, ONE_PORT), conversion=True,
)
