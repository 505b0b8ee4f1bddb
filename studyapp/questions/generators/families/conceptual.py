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
from studyapp.catalog.models import Accelerator, Model
from studyapp.i18n import t
from studyapp.infra import usable_bytes, weights_bytes
from studyapp.infra.units import GB
from studyapp.questions.generators import Family
from studyapp.questions.generators.drawing import (
    apart,
    draw_until,
    entries,
    shuffled_choices,
    values,
)
from studyapp.questions.generators.families.terms import capacity_gb
from studyapp.questions.generators.wording import join_steps, model_label, num
from studyapp.questions.model import Kind, Question

# --- chip-ranking ---------------------------------------------------------

METRICS = ("memory_gb", "memory_bandwidth_tb_s", "bf16_dense_tflops", "scale_up_gb_s")
METRIC_UNITS = {"memory_gb": "GB", "memory_bandwidth_tb_s": "TB/s",
                "bf16_dense_tflops": "TFLOPS", "scale_up_gb_s": "GB/s"}


def _metric(chip: Accelerator, metric: str) -> float:
    if metric == "memory_gb":  # capacity in its real unit, so GiB and GB compare alike
        return chip.nominal_memory_bytes / 1e9
    value = getattr(chip, metric)
    return float(value) if value is not None else 0.0


def chip_ranking(seed: int, lang: str, options: Mapping[str, Any]) -> Question:
    """The top chip among four on one figure, at least 10% ahead of the runner-up."""
    rng = random.Random(seed)
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
        return (len(scores) >= 2 and scores[-1] > 0 and len({c.name for c in d[0]}) == len(d[0])
                and apart(scores[0], scores[1]))

    (group, metric) = draw_until(rng, draw, clear, "chip-ranking")
    best = max(group, key=lambda c: _metric(c, metric))
    unit = METRIC_UNITS[metric]
    lines = [t("gen.rank.line", lang, gpu=c.name, value=num(_metric(c, metric), lang, 5),
               unit=unit) for c in sorted(group, key=lambda c: -_metric(c, metric))]
    anchor = next((c for c in group if c in anchors), None)
    prefix = t("gen.compare.prefix", lang, gpu=anchor.name) + " " if anchor else ""
    return Question(
        kind=Kind.CHOICE, post="mi350", family="chip-ranking", seed=seed, lang=lang,
        prompt=prefix + t(f"gen.rank.prompt_{metric}", lang),
        explanation=join_steps(*lines, t(f"gen.rank.why_{metric}", lang),
                               t("gen.convention.dense", lang)
                               if metric == "bf16_dense_tflops" else ""),
        answer=best.name, choices=shuffled_choices(rng, best.name, [c.name for c in group]),
        params={"gpus": [c.id for c in group], "metric": metric, "best": best.id},
    )


# --- memory-type ----------------------------------------------------------

MEMORY_TYPES = ("HBM2", "HBM2e", "HBM3", "HBM3e", "GDDR6X", "GDDR7", "LPDDR5X")


def memory_type(seed: int, lang: str, options: Mapping[str, Any]) -> Question:
    """Which HBM generation a chip carries (chips listed only as "HBM" are skipped)."""
    rng = random.Random(seed)
    chips = entries(load_catalog().accelerators, options, "gpus",
                    keep=lambda c: c.memory_type.upper() != "HBM")
    chip = rng.choice(chips)
    catalog_types = sorted({c.memory_type for c in load_catalog().accelerators
                            if c.memory_type.upper() != "HBM"})
    pool = [m for m in MEMORY_TYPES if m.startswith("HBM")] + catalog_types
    pool = sorted(set(pool), key=pool.index)
    if rng.random() < 0.3:
        pool += [m for m in MEMORY_TYPES if not m.startswith("HBM")]
    fields = {"gpu": chip.name, "memory": chip.memory_type,
              "memory_gb": num(chip.memory_gb, lang, 5),
              "bandwidth": num(chip.memory_bandwidth_tb_s, lang, 4)}
    return Question(
        kind=Kind.CHOICE, post="hbm-kv-cache", family="memory-type", seed=seed, lang=lang,
        prompt=t("gen.memtype.prompt", lang, **fields),
        explanation=join_steps(t("gen.memtype.explain", lang, **fields),
                               t("gen.memtype.why", lang)),
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


def _label(kind: str, vendor: str, lang: str) -> str:
    return t(f"gen.{kind}.{vendor}", lang)


def vendor_fact(kind: str, post: str, family: str, table: Mapping[str, str]) -> Any:
    """A choice among the five vendors' answers, the right one read from the chip's entry."""

    def generate(seed: int, lang: str, options: Mapping[str, Any]) -> Question:
        rng = random.Random(seed)
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
            chip = rng.choice(others_pool)
            prefix = t(f"gen.{kind}.anchor", lang, anchor=anchor.name,
                       answer=_label(kind, anchor.vendor, lang)) + " "
        else:
            chip = rng.choice(anchors or pool)
        correct = _label(kind, chip.vendor, lang)
        others = [_label(kind, vendor, lang) for vendor in table if vendor != chip.vendor]
        fields = {"gpu": chip.name, "vendor": chip.vendor, "listed": getattr(chip, field) or "",
                  "answer": correct}
        return Question(
            kind=Kind.CHOICE, post=post, family=family, seed=seed, lang=lang,
            prompt=prefix + t(f"gen.{kind}.prompt", lang, **fields),
            explanation=join_steps(t(f"gen.{kind}.explain", lang, **fields),
                                   t(f"gen.{kind}.why", lang)),
            answer=correct, choices=shuffled_choices(rng, correct, others),
            params={"gpu": chip.id, "vendor": chip.vendor, field: getattr(chip, field)},
        )

    return generate


# --- dense-vs-sparse ------------------------------------------------------


def dense_vs_sparse(seed: int, lang: str, options: Mapping[str, Any]) -> Question:
    """A datasheet's "with sparsity" headline is twice the dense rate the math really gets."""
    rng = random.Random(seed)
    chips = entries(load_catalog().accelerators, options, "gpus",
                    keep=lambda c: c.vendor in ("nvidia", "amd") and bool(c.sparse_headline_tflops))
    chip = rng.choice([c for c in chips if c.sparse_headline_tflops] or chips)
    headlines = chip.sparse_headline_tflops or {}
    precisions = [p for p in ("bf16", "fp8", "fp4")  # where "with sparsity" is 2x (2:4)
                  if p in headlines and getattr(chip, f"{p}_dense_tflops")
                  and chip.sparsity(p) == 2]
    precision = rng.choice(precisions)
    dense = float(getattr(chip, f"{precision}_dense_tflops"))
    sparse = float(headlines[precision])  # as the vendor prints it
    to_dense = rng.random() < 0.6
    fields = {"gpu": chip.name, "precision": precision.upper(), "sparse": num(sparse, lang, 5),
              "dense": num(dense, lang, 5), "half": num(sparse / 2, lang, 5)}
    right, wrong = (dense, (sparse, sparse * 2, dense / 2)) if to_dense else (
        sparse, (dense, dense / 2, sparse * 2))
    correct = num(right, lang, 5) + " TFLOPS"
    # written like the answer, to as many decimals: a halved "989" shown as "494.5" beside
    # whole vendor figures gives itself away as made up
    decimals = 0 if float(right).is_integer() else len(repr(float(right)).split(".")[1])
    distractors = [num(round(v, decimals), lang, 9) + " TFLOPS" for v in wrong]
    key = "gen.sparse.prompt" if to_dense else "gen.sparse.prompt_headline"
    return Question(
        kind=Kind.CHOICE, post="blackwell", family="dense-vs-sparse", seed=seed, lang=lang,
        prompt=t(key, lang, **fields),
        explanation=join_steps(t("gen.sparse.explain", lang, **fields),
                               t("gen.sparse.why", lang)),
        answer=correct, choices=shuffled_choices(rng, correct, distractors),
        params={"gpu": chip.id, "precision": precision, "dense_tflops": dense,
                "sparse_tflops": sparse, "ask": "dense" if to_dense else "headline"},
    )


# --- bottleneck -----------------------------------------------------------

RESOURCES = ("bandwidth", "compute", "capacity", "network", "storage", "scale_up")
SCENARIOS = ("decode", "prefill", "capacity", "network", "storage", "scale_up")
PREFILL_TOKENS = 8192
LIMITS = {"decode": "bandwidth", "prefill": "compute", "capacity": "capacity",
          "network": "network", "storage": "storage", "scale_up": "scale_up"}
"""The resource that limits each scenario."""


def bottleneck(seed: int, lang: str, options: Mapping[str, Any]) -> Question:
    """Which resource limits a workload: the first question to ask about any setup."""
    rng = random.Random(seed)
    catalog = load_catalog()
    scenario = str(rng.choice(values(options, "scenarios", SCENARIOS)))
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
              "params_b": num(model.params_b, lang, 5),
              "memory_gb": num(chip.memory_gb, lang, 5), "usable_gb": num(usable / GB, lang, 4),
              "total_gb": num(capacity_gb(chip), lang, 6),
              "weights_gb": num(weights / GB, lang, 4),
              "bandwidth": num(chip.memory_bandwidth_tb_s, lang, 4),
              "tokens_s": num(chip.bandwidth_bytes_s / weights, lang, 3),
              "prompt_tokens": num(PREFILL_TOKENS, lang)}
    correct = t(f"gen.neck.res_{LIMITS[scenario]}", lang)
    others = [t(f"gen.neck.res_{r}", lang) for r in RESOURCES]
    return Question(
        kind=Kind.CHOICE, post="intro", family="bottleneck", seed=seed, lang=lang,
        prompt=t(f"gen.neck.prompt_{scenario}", lang, **fields),
        explanation=t(f"gen.neck.explain_{scenario}", lang, **fields),
        answer=correct, choices=shuffled_choices(rng, correct, others),
        params={"scenario": scenario, "gpu": chip.id, "model": model.id},
    )


CHIP_RANKING = Family(
    name="chip-ranking", post="mi350", kind=Kind.CHOICE,
    description={"es": "Qué chip tiene más HBM, ancho de banda, TFLOPS o escalado entre cuatro",
                 "en": "Which of four chips has the most HBM, bandwidth, TFLOPS or scale-up"},
    generate=chip_ranking, options={"gpus": "accelerator ids", "metrics": ", ".join(METRICS),
                                    "anchor": "chip ids one of which every group includes"},
)
MEMORY_TYPE = Family(
    name="memory-type", post="hbm-kv-cache", kind=Kind.CHOICE,
    description={"es": "Qué tipo de memoria lleva un chip", "en": "Which memory type a chip uses"},
    generate=memory_type, options={"gpus": "accelerator ids"},
)
SCALE_UP_FABRIC = Family(
    name="scale-up-fabric", post="trainium", kind=Kind.CHOICE,
    description={"es": "Con qué tecnología escala cada fabricante dentro del nodo o pod",
                 "en": "Which technology each vendor uses to scale up"},
    generate=vendor_fact("fabric", "trainium", "scale-up-fabric", FABRICS),
    options={"gpus": "accelerator ids", "anchor": "the post's chips, stated as the example"},
)
SOFTWARE_STACK = Family(
    name="software-stack", post="tpu", kind=Kind.CHOICE,
    description={"es": "Con qué pila de software se programa cada chip",
                 "en": "Which software stack programs each chip"},
    generate=vendor_fact("stack", "tpu", "software-stack", STACKS),
    options={"gpus": "accelerator ids", "anchor": "the post's chips, stated as the example"},
)
DENSE_VS_SPARSE = Family(
    name="dense-vs-sparse", post="blackwell", kind=Kind.CHOICE,
    description={"es": "Cifra densa a partir de la cifra «con dispersión» de la hoja de datos",
                 "en": "The dense figure behind a datasheet's 'with sparsity' headline"},
    generate=dense_vs_sparse, options={"gpus": "accelerator ids"},
    fact="conversion:dense-vs-sparse",  # both directions are one skill
)
BOTTLENECK = Family(
    name="bottleneck", post="intro", kind=Kind.CHOICE,
    description={"es": "Qué recurso limita una carga: ancho de banda, cálculo, capacidad, red…",
                 "en": "Which resource limits a workload: bandwidth, compute, capacity, network…"},
    generate=bottleneck,
    options={"gpus": "accelerator ids", "scenarios": ", ".join(SCENARIOS)},
)
