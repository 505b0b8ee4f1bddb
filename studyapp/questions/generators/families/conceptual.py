"""Conceptual families: facts read from the catalog, asked as choices.

Which chip has the most HBM, which memory a chip uses, how each vendor
scales up and what software it is programmed with, and what limits a
workload. Distractors come from the catalog too, so they stay plausible.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from studyapp.catalog import load_catalog
from studyapp.catalog.models import Accelerator, Model, Precision
from studyapp.infra import (
    DEFAULT_USABLE_FRACTION,
    kv_bytes_per_token,
    usable_bytes,
    weights_bytes,
)
from studyapp.infra.compute import ridge_point
from studyapp.infra.shapes import kv_shape
from studyapp.infra.units import GB
from studyapp.questions.generators import FACT, Family
from studyapp.questions.generators.context import DrawContext, GenerateFn, drawn
from studyapp.questions.generators.drawing import (
    DrawError,
    apart,
    draw_until,
    entries,
    factual,
    redraw,
    shuffled_choices,
    values,
)
from studyapp.questions.generators.families.terms import (
    RUNTIME_GB,
    budget_fields,
    capacity_fields,
    capacity_gb,
)
from studyapp.questions.generators.wording import join_steps, model_label
from studyapp.questions.model import Kind, Question

# --- chip-ranking ---------------------------------------------------------

METRICS = ("memory_gb", "memory_bandwidth_tb_s", "bf16_dense_tflops", "scale_up_gb_s")
METRIC_UNITS = {"memory_gb": "GB", "memory_bandwidth_tb_s": "TB/s",
                "bf16_dense_tflops": "TFLOPS", "scale_up_gb_s": "GB/s"}


PLACE_ATTEMPTS = 400
"""Draws tried for a group where the winner's name takes the drawn place by length."""


def _metric(chip: Accelerator, metric: str) -> float:
    if metric == "memory_gb":  # capacity in its real unit, so GiB and GB compare alike
        return chip.nominal_memory_bytes / 1e9
    value = getattr(chip, metric)
    return float(value) if value is not None else 0.0


def choice_label(name: str) -> str:
    """A chip's name as a choice, without its parenthesised aside ("Google TPU7x
    (Ironwood)" is "Google TPU7x"): an aside only the right chip has would point at it."""
    return name.split(" (", 1)[0].strip() or name


def chip_ranking(ctx: DrawContext, options: Mapping[str, Any]) -> Question:
    """The top chip among four on one figure, at least 10% ahead of the runner-up."""
    rng = random.Random(ctx.seed)
    chips = entries(load_catalog().accelerators, options, "gpus")
    metrics = [str(m) for m in values(options, "metrics", METRICS)]
    anchors = [c for c in chips if c.id in (values(options, "anchor", []) or [])]

    def draw(rng: random.Random) -> tuple[list[Accelerator], str]:
        group = rng.sample(chips, min(4, len(chips)))
        if anchors and not any(c in anchors for c in group):
            group[0] = rng.choice([a for a in anchors if a not in group] or anchors)
        return group, rng.choice(metrics)

    def clear(d: tuple[list[Accelerator], str]) -> bool:
        scores = sorted((_metric(c, d[1]) for c in d[0]), reverse=True)
        return (len(scores) >= 2 and scores[-1] > 0
                and all(factual(c, d[1]) for c in d[0])  # a ranking is asked as a fact
                and len({choice_label(c.name) for c in d[0]}) == len(d[0])
                and apart(scores[0], scores[1]))

    # Newer chips carry shorter names ("NVIDIA B300" against "NVIDIA A100 80GB SXM") and
    # usually win: left to chance the shortest name would be right two times in three.
    # Which place the winner's name takes by length is drawn first, and the group is
    # drawn (every chip in it a real, wrong contender) until the winner takes it.
    place = rng.randrange(4)

    def placed(d: tuple[list[Accelerator], str]) -> bool:
        if not clear(d):
            return False
        best = max(d[0], key=lambda c: _metric(c, d[1]))
        size = len(choice_label(best.name))
        return sum(len(choice_label(c.name)) > size for c in d[0]) == place

    (group, metric), ok = redraw(rng, draw, placed, PLACE_ATTEMPTS)
    if not ok:
        (group, metric) = draw_until(rng, draw, clear, "chip-ranking")
    best = max(group, key=lambda c: _metric(c, metric))
    unit = METRIC_UNITS[metric]
    lines = [ctx.t("gen.rank.line", gpu=c.name, value=ctx.num(_metric(c, metric), 5),
                   unit=unit) for c in sorted(group, key=lambda c: -_metric(c, metric))]
    anchor = next((c for c in group if c in anchors), None)
    prefix = ctx.t("gen.compare.prefix", gpu=anchor.name) + " " if anchor else ""
    return ctx.question(
        kind=Kind.CHOICE, prompt=prefix + ctx.t(f"gen.rank.prompt_{metric}"),
        explanation=join_steps(*lines, ctx.t(f"gen.rank.why_{metric}"),
                               ctx.t("gen.convention.dense")
                               if metric == "bf16_dense_tflops" else ""),
        answer=choice_label(best.name),
        choices=shuffled_choices(rng, choice_label(best.name),
                                 [choice_label(c.name) for c in group]),
        params={"gpus": [c.id for c in group], "metric": metric, "best": best.id},
    )


# --- memory-type ----------------------------------------------------------

MEMORY_TYPES = ("HBM2", "HBM2e", "HBM3", "HBM3e", "GDDR6X", "GDDR7", "LPDDR5X")


def memory_type(ctx: DrawContext, options: Mapping[str, Any]) -> Question:
    """Which HBM generation a chip carries (chips listed only as "HBM" are skipped)."""
    rng = random.Random(ctx.seed)
    chips = entries(load_catalog().accelerators, options, "gpus",
                    keep=lambda c: c.memory_type.upper() != "HBM" and factual(c, "memory_type"))
    chip = rng.choice(chips)
    catalog_types = sorted({c.memory_type for c in load_catalog().accelerators
                            if c.memory_type.upper() != "HBM"})
    pool = [m for m in MEMORY_TYPES if m.startswith("HBM")] + catalog_types
    pool = sorted(set(pool), key=pool.index)
    if rng.random() < 0.3:
        pool += [m for m in MEMORY_TYPES if not m.startswith("HBM")]
    fields = {"gpu": chip.name, "memory": chip.memory_type,
              "memory_gb": ctx.num(chip.memory_gb, 5),
              "bandwidth": ctx.num(chip.memory_bandwidth_tb_s, 4)}
    return ctx.question(
        kind=Kind.CHOICE, prompt=ctx.t("gen.memtype.prompt", **fields),
        explanation=join_steps(ctx.t("gen.memtype.explain", **fields),
                               ctx.t("gen.memtype.why")),
        answer=chip.memory_type, choices=shuffled_choices(rng, chip.memory_type, pool),
        params={"gpu": chip.id, "memory_type": chip.memory_type},
    )


# --- scale-up-fabric and software-stack -----------------------------------

FABRICS = {"nvidia": "NVLink", "amd": "Infinity Fabric", "google": "ICI",
           "aws": "NeuronLink", "intel": "RoCE"}
"""Keyword the catalog's ``scale_up`` text carries for each vendor's scale-up link."""

STACKS = {"nvidia": "CUDA", "amd": "ROCm", "google": "XLA", "aws": "Neuron",
          "intel": "Gaudi"}
"""Keyword the catalog's ``software`` text carries for each vendor's stack."""


def _label(kind: str, vendor: str, ctx: DrawContext) -> str:
    return ctx.t(f"gen.{kind}.{vendor}")


def _by_vendor(rng: random.Random, chips: list[Accelerator]) -> Accelerator:
    """A vendor drawn evenly, then one of its chips: drawn chip by chip, NVIDIA's many
    parts would make "CUDA" and "NVLink" the answer most of the time, a cue of its own."""
    vendor = rng.choice(sorted({c.vendor for c in chips}))
    return rng.choice([c for c in chips if c.vendor == vendor])


def vendor_fact(kind: str, table: Mapping[str, str]) -> GenerateFn:
    """A choice among the five vendors' answers, the right one read from the chip's entry."""

    def generate(ctx: DrawContext, options: Mapping[str, Any]) -> Question:
        rng = random.Random(ctx.seed)
        field = "scale_up" if kind == "fabric" else "software"

        def matches(chip: Accelerator) -> bool:
            text = getattr(chip, field) or ""
            return chip.vendor in table and table[chip.vendor].lower() in text.lower()

        catalog = load_catalog()
        anchor_ids = [str(a) for a in (values(options, "anchor", []) or [])]
        anchors = [catalog.accelerators[a] for a in anchor_ids if matches(catalog.accelerators[a])]
        pool = entries(catalog.accelerators, {k: v for k, v in options.items() if k != "anchor"},
                       "gpus", keep=matches)
        prefix = ""
        if anchors and rng.random() < 0.75:
            # the post's own chip sets the scene; the question asks about another vendor's
            anchor = rng.choice(anchors)
            others_pool = [c for c in pool if c.vendor != anchor.vendor] or pool
            chip = _by_vendor(rng, others_pool)
            prefix = ctx.t(f"gen.{kind}.anchor", anchor=anchor.name,
                           answer=_label(kind, anchor.vendor, ctx)) + " "
        else:
            chip = _by_vendor(rng, anchors or pool)
        correct = _label(kind, chip.vendor, ctx)
        others = [_label(kind, vendor, ctx) for vendor in table if vendor != chip.vendor]
        fields = {"gpu": chip.name, "vendor": chip.vendor, "listed": getattr(chip, field) or "",
                  "answer": correct}
        return ctx.question(
            kind=Kind.CHOICE, prompt=prefix + ctx.t(f"gen.{kind}.prompt", **fields),
            explanation=join_steps(ctx.t(f"gen.{kind}.explain", **fields),
                                   ctx.t(f"gen.{kind}.why")),
            answer=correct, choices=shuffled_choices(rng, correct, others),
            params={"gpu": chip.id, "vendor": chip.vendor, field: getattr(chip, field)},
        )

    return drawn(generate)


# --- dense-vs-sparse ------------------------------------------------------


def dense_vs_sparse(ctx: DrawContext, options: Mapping[str, Any]) -> Question:
    """Which figure of a datasheet line is the dense one, when the line prints its
    Tensor Core rates "with sparsity" (2:4 structured sparsity doubles them) in a footnote.

    The line lists every precision the chip has; the choices are the dense figure
    asked for and wrong figures from the same line (the headline, other precisions'
    figures) or from a halving done twice or undone, as many below it as above it
    on average, so the right figure's place (and its length) tells nothing.
    """
    rng = random.Random(ctx.seed)
    chips = entries(load_catalog().accelerators, options, "gpus",
                    keep=lambda c: c.vendor in ("nvidia", "amd") and bool(c.sparse_headline_tflops))

    def askable(chip: Accelerator) -> list[Precision]:
        """Precisions whose "with sparsity" is 2x (2:4) and whose figures are facts."""
        headlines = chip.sparse_headline_tflops or {}
        order: tuple[Precision, ...] = ("bf16", "fp8", "fp4")
        return [p for p in order
                if p in headlines and getattr(chip, f"{p}_dense_tflops")
                and chip.sparsity(p) == 2
                and factual(chip, f"{p}_dense_tflops", "sparse_headline_tflops")]

    pool = [c for c in chips if askable(c)]
    if not pool:
        raise DrawError("dense-vs-sparse: no chip among these has published dense and"
                        " sparse figures to ask")
    chip = rng.choice(pool)
    headlines = chip.sparse_headline_tflops or {}
    precisions = askable(chip)
    precision = rng.choice(precisions)
    dense = float(getattr(chip, f"{precision}_dense_tflops"))
    sparse = float(headlines[precision])  # as the vendor prints it
    line = ctx.t("gen.sparse.line_sep").join(
        ctx.t("gen.sparse.line_item", precision=p.upper(),
              value=ctx.num(float(headlines[p]), 5)) for p in precisions)
    fields = {"gpu": chip.name, "precision": precision.upper(), "sparse": ctx.num(sparse, 5),
              "dense": ctx.num(dense, 5), "half": ctx.num(sparse / 2, 5), "line": line}
    figures = {float(getattr(chip, f"{p}_dense_tflops")) for p in precisions}
    figures |= {float(headlines[p]) for p in precisions}
    others = sorted(figures - {dense, sparse})
    rng.shuffle(others)
    # Above the dense figure: the headline itself, other precisions' larger figures, the
    # headline doubled again. Below: the halving done twice (on this figure or another),
    # other precisions' smaller figures. How many wrong figures sit below is drawn
    # uniformly, so the right one is the smallest, largest or in between alike.
    above = [sparse, *(v for v in others if v > dense), sparse * 2, sparse * 4]
    below = [*(v for v in others if v < dense), dense / 2, *(v / 2 for v in others if v < dense),
             dense / 4]
    correct = ctx.num(dense, 5) + " TFLOPS"
    # halves written like the catalog's figures, to as many decimals as the answer
    decimals = 0 if dense.is_integer() else len(repr(dense).split(".")[1])

    def shown(value: float) -> str:
        return ctx.num(value if value in figures else round(value, decimals), 9) + " TFLOPS"

    def fresh(values: list[float], seen: set[str]) -> list[str]:
        texts: list[str] = []
        for value in values:
            text = shown(value)
            if text.casefold() not in seen:
                seen.add(text.casefold())
                texts.append(text)
        return texts

    seen = {correct.casefold()}
    lower, higher = fresh(below, seen), fresh(above, seen)
    under = rng.randint(0, 3)
    picked = lower[:under] + higher[: 3 - under]
    picked += [t for t in lower[under:] + higher[3 - under:] if t not in picked][: 3 - len(picked)]
    choices = [correct, *picked]
    rng.shuffle(choices)
    return ctx.question(
        kind=Kind.CHOICE, prompt=ctx.t("gen.sparse.prompt_line", **fields),
        explanation=join_steps(ctx.t("gen.sparse.explain", **fields),
                               ctx.t("gen.sparse.why")),
        answer=correct, choices=tuple(choices),
        params={"gpu": chip.id, "precision": precision, "dense_tflops": dense,
                "sparse_tflops": sparse, "ask": "dense", "given": {"sparse_tflops": sparse}},
    )


# --- bottleneck -----------------------------------------------------------

RESOURCES = ("bandwidth", "compute", "capacity", "network", "storage", "scale_up")
BOTTLENECK_SCENARIOS = ("decode", "prefill", "capacity", "network", "storage", "scale_up")
PREFILL_TOKENS = 8192
LIMITS = {"decode": "bandwidth", "prefill": "compute", "capacity": "capacity",
          "network": "network", "storage": "storage", "scale_up": "scale_up"}
"""The resource that limits each scenario."""


BOUND_BATCHES = (1, 4, 16, 64, 256, 1024)
BOUND_CONTEXTS = (512, 2048, 8192, 32768)
BINDS = ("capacity", "bandwidth", "compute")
"""What a drawn serving setup can run into first, each drawn as often."""


def bottleneck(ctx: DrawContext, options: Mapping[str, Any]) -> Question:
    """Which limit binds, worked out from a setup's numbers (a model, a batch, a context,
    a chip); the fixed scenarios of earlier decks when a card names ``scenarios``."""
    if values(options, "scenarios", []):
        return bottleneck_scenario(ctx, options)
    return bottleneck_from_numbers(ctx, options)


def bottleneck_from_numbers(ctx: DrawContext, options: Mapping[str, Any]) -> Question:
    """Serving: does weights + KV cache fit, and if so is a pass's arithmetic intensity
    (FLOPs per byte read) below the chip's ridge point (bandwidth) or above it (compute)?"""
    rng = random.Random(ctx.seed)
    catalog = load_catalog()
    chips = entries(catalog.accelerators, options, "gpus",
                    keep=lambda c: bool(c.bf16_dense_tflops and c.memory_bandwidth_tb_s))
    models = [m for m in catalog.models if m.active_params_b is None]
    target = rng.choice(BINDS)

    def draw(r: random.Random) -> dict[str, Any]:
        chip, model = r.choice(chips), r.choice(models)
        phase = r.choice(("decode", "prefill"))
        batch = r.choice(BOUND_BATCHES if phase == "decode" else BOUND_BATCHES[:4])
        context = r.choice([c for c in BOUND_CONTEXTS if c <= model.context_length]
                           or BOUND_CONTEXTS[:1])
        weights = weights_bytes(model.params, "bf16")
        per_token = kv_bytes_per_token(kv_shape(model), "bf16")
        kv = per_token * context * batch
        usable = usable_bytes(chip.memory_bytes)
        tokens = batch if phase == "decode" else batch * context
        intensity = 2 * model.params * tokens / (weights + kv)
        ridge = ridge_point(chip.bf16_dense_tflops * 1e12, chip.bandwidth_bytes_s)
        binds = ("capacity" if weights + kv > usable
                 else "compute" if intensity > ridge else "bandwidth")
        return {"chip": chip, "model": model, "phase": phase, "batch": batch,
                "context": context, "weights": weights, "per_token": per_token, "kv": kv,
                "usable": usable, "tokens": tokens, "intensity": intensity, "ridge": ridge,
                "binds": binds}

    def clear(d: dict[str, Any]) -> bool:
        """The drawn limit is the target, and not a close call."""
        if d["binds"] != target:
            return False
        need = d["weights"] + d["kv"]
        if not apart(need, d["usable"], 0.15):
            return False
        return d["binds"] == "capacity" or apart(d["intensity"], d["ridge"], 0.5)

    d = draw_until(rng, draw, clear, "bottleneck")
    chip, model = d["chip"], d["model"]
    fields = {"gpu": chip.name, "model": model_label(model.name),
              "params_b": ctx.num(model.params_b, 5), "batch": ctx.num(d["batch"]),
              "context": ctx.num(d["context"]), "kv_kb": ctx.num(d["per_token"] / 1e3, 4),
              "memory_gb": ctx.num(chip.memory_gb, 5),
              "bandwidth": ctx.num(chip.memory_bandwidth_tb_s, 4),
              "tflops": ctx.num(chip.bf16_dense_tflops, 5),
              "weights_gb": ctx.num(d["weights"] / GB, 4), "kv_gb": ctx.num(d["kv"] / GB, 4),
              "need_gb": ctx.num((d["weights"] + d["kv"]) / GB, 4),
              "usable_gb": ctx.num(d["usable"] / GB, 4), "tokens": ctx.num(d["tokens"]),
              **capacity_fields(chip, ctx),
              "intensity": ctx.num(d["intensity"], 3), "ridge": ctx.num(d["ridge"], 3)}
    binds = d["binds"]
    one = "_one" if d["batch"] == 1 else ""  # "one sequence", never "1 sequences"
    steps = [ctx.t("gen.neck.n_memory", **fields)]
    if binds == "capacity":
        steps.append(ctx.t("gen.neck.n_too_big", **fields))
    else:
        steps += [ctx.t("gen.neck.n_fits", **fields),
                  ctx.t(f"gen.neck.n_intensity_{d['phase']}"
                        f"{one if d['phase'] == 'decode' else ''}", **fields),
                  ctx.t(f"gen.neck.n_{binds}", **fields)]
    correct = ctx.t(f"gen.neck.res_{binds}")
    # the fourth is a limit a one-chip serving pass never meets, a different one each time
    beyond = rng.choice(("network", "storage", "scale_up"))
    others = [ctx.t(f"gen.neck.res_{r}") for r in (*BINDS, beyond)]
    return ctx.question(
        kind=Kind.CHOICE, prompt=ctx.t(f"gen.neck.n_prompt_{d['phase']}{one}", **fields),
        explanation=join_steps(*steps),
        answer=correct, choices=shuffled_choices(rng, correct, others),
        params={"scenario": f"serve-{d['phase']}", "gpu": chip.id, "model": model.id,
                "batch": d["batch"], "context": d["context"], "binds": binds,
                "given": {"params_b": model.params_b, "total_gb": capacity_gb(chip),
                          "usable": DEFAULT_USABLE_FRACTION, "runtime_gb": RUNTIME_GB,
                          "kv_kb": d["per_token"] / 1e3, "context": d["context"],
                          "batch": d["batch"], "bandwidth_tb_s": chip.memory_bandwidth_tb_s,
                          "tflops": chip.bf16_dense_tflops}},
    )


def bottleneck_scenario(ctx: DrawContext, options: Mapping[str, Any]) -> Question:
    """Which resource limits a workload: one of six worded scenarios."""
    rng = random.Random(ctx.seed)
    catalog = load_catalog()
    scenario = str(rng.choice(values(options, "scenarios", BOTTLENECK_SCENARIOS)))
    dense = [m for m in catalog.models if m.active_params_b is None]

    def fitting(chip: Accelerator) -> list[Model]:
        """On one chip the model must fit, or "memory capacity" would be right too;
        a prefill prompt must also be within the model's context window."""
        return [m for m in dense
                if weights_bytes(m.params, "bf16") <= usable_bytes(chip.memory_bytes)
                and (scenario != "prefill" or m.context_length >= PREFILL_TOKENS)]

    chips = entries(catalog.accelerators, options, "gpus")
    if scenario in ("decode", "prefill"):
        chips = [c for c in chips if fitting(c)] or chips
    chip = rng.choice(chips)
    usable = usable_bytes(chip.memory_bytes)
    model = rng.choice(fitting(chip) or dense or list(catalog.models))
    if scenario == "capacity":
        bigger = [m for m in catalog.models if weights_bytes(m.params, "bf16") > 1.2 * usable]
        model = rng.choice(bigger) if bigger else model
    weights = weights_bytes(model.params, "bf16")
    fields = {"gpu": chip.name, "model": model_label(model.name),
              "params_b": ctx.num(model.params_b, 5),
              "memory_gb": ctx.num(chip.memory_gb, 5), "usable_gb": ctx.num(usable / GB, 4),
              "total_gb": ctx.num(capacity_gb(chip), 6), **budget_fields(ctx),
              "weights_gb": ctx.num(weights / GB, 4),
              "bandwidth": ctx.num(chip.memory_bandwidth_tb_s, 4),
              "tokens_s": ctx.num(chip.bandwidth_bytes_s / weights, 3),
              "prompt_tokens": ctx.num(PREFILL_TOKENS)}
    correct = ctx.t(f"gen.neck.res_{LIMITS[scenario]}")
    others = [ctx.t(f"gen.neck.res_{r}") for r in RESOURCES]
    return ctx.question(
        kind=Kind.CHOICE, prompt=ctx.t(f"gen.neck.prompt_{scenario}", **fields),
        explanation=ctx.t(f"gen.neck.explain_{scenario}", **fields),
        answer=correct, choices=shuffled_choices(rng, correct, others),
        params={"scenario": scenario, "gpu": chip.id, "model": model.id},
    )


CHIP_RANKING = Family(
    name="chip-ranking", post="mi350", kind=Kind.CHOICE,
    teaches=FACT,  # a fact about a chip: kept while it is learnt
    description={"es": "Qué chip tiene más HBM, ancho de banda, TFLOPS o escalado entre cuatro",
                 "en": "Which of four chips has the most HBM, bandwidth, TFLOPS or scale-up"},
    generate=drawn(chip_ranking), options={"gpus": "accelerator ids", "metrics": METRICS,
                                           "anchor": "chip ids one of which every group includes"},
)
MEMORY_TYPE = Family(
    name="memory-type", post="hbm-kv-cache", kind=Kind.CHOICE,
    teaches=FACT,  # a fact about a chip: kept while it is learnt
    description={"es": "Qué tipo de memoria lleva un chip", "en": "Which memory type a chip uses"},
    generate=drawn(memory_type), options={"gpus": "accelerator ids"},
)
SCALE_UP_FABRIC = Family(
    name="scale-up-fabric", post="trainium", kind=Kind.CHOICE,
    teaches=FACT,  # a fact about a chip: kept while it is learnt
    description={"es": "Con qué tecnología escala cada fabricante dentro del nodo o pod",
                 "en": "Which technology each vendor uses to scale up"},
    generate=vendor_fact("fabric", FABRICS),
    options={"gpus": "accelerator ids", "anchor": "the post's chips, stated as the example"},
)
SOFTWARE_STACK = Family(
    name="software-stack", post="tpu", kind=Kind.CHOICE,
    teaches=FACT,  # a fact about a chip: kept while it is learnt
    description={"es": "Con qué pila de software se programa cada chip",
                 "en": "Which software stack programs each chip"},
    generate=vendor_fact("stack", STACKS),
    options={"gpus": "accelerator ids", "anchor": "the post's chips, stated as the example"},
)
DENSE_VS_SPARSE = Family(
    name="dense-vs-sparse", post="blackwell", kind=Kind.CHOICE,
    teaches=FACT,  # a fact about a chip: kept while it is learnt
    description={"es": "Cifra densa a partir de la cifra «con dispersión» de la hoja de datos",
                 "en": "The dense figure behind a datasheet's 'with sparsity' headline"},
    generate=drawn(dense_vs_sparse), options={"gpus": "accelerator ids"},
    fact="conversion:dense-vs-sparse",  # both directions are one skill
)
BOTTLENECK = Family(
    name="bottleneck", post="intro", kind=Kind.CHOICE,
    description={"es": "Qué recurso limita una carga: ancho de banda, cálculo, capacidad, red…",
                 "en": "Which resource limits a workload: bandwidth, compute, capacity, network…"},
    generate=drawn(bottleneck),
    options={"gpus": "accelerator ids", "scenarios": BOTTLENECK_SCENARIOS},
)
