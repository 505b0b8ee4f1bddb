"""Quality audit of generated questions: are they on topic, balanced, worth asking, complete?

The same measures back the test-suite gate and ``studyapp generate --audit``,
so an instructor sees exactly what the gate checks. Each family states the
figures its answer depends on in ``params["given"]`` (as shown in the prompt)
and, for yes/no kinds, the deciding quantity over its threshold in
``params["decision_ratio"]``; this module re-computes every answer from the
given figures alone, so a question whose prompt leaves a figure out fails.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from studyapp.questions.formatting import format_number
from studyapp.questions.generators import Family, registered_families
from studyapp.questions.generators.drawing import (
    DrawError,
    echoes,
    instance_seed,
    prompt_numbers,
)
from studyapp.questions.generators.families.measured import pool_size
from studyapp.questions.grading import expected_display
from studyapp.questions.model import Kind, Question

if TYPE_CHECKING:
    from studyapp.catalog import Catalog

GiB = 2**30

DRAWS = 300
"""Draws per family or deck card: enough for shares to within a few percent."""

DISTINCT_WINDOW = 40
MIN_DISTINCT = 10
ON_TOPIC_MIN = 0.95
BALANCE = (0.35, 0.65)
NON_TRIVIAL_MIN = 0.70
NON_TRIVIAL_BAND = (0.5, 2.0)

_FIRST_NUMBER = re.compile(r"\d[\d,.\u00a0\u202f]*")


def _catalog() -> Catalog:
    from studyapp.catalog import load_catalog  # the catalog's own facts (hardware.yaml)

    return load_catalog()


_compiled: list[tuple[Catalog, dict[str, re.Pattern[str]]]] = []


def _patterns(catalog: Catalog) -> dict[str, re.Pattern[str]]:
    """Each chip's compiled pattern, compiled once per loaded catalog."""
    if not _compiled or _compiled[0][0] is not catalog:
        _compiled[:] = [(catalog, {chip: re.compile(rf"\b(?:{rx})\b")
                                   for chip, rx in catalog.chip_patterns().items()})]
    return _compiled[0][1]


def post_subjects() -> Mapping[str, frozenset[str]]:
    """The hardware each hardware post is about (``posts:`` in the catalog); the other
    posts are about an idea, not a chip."""
    return _catalog().post_chips


def chips_named(text: str) -> set[str]:
    """Accelerator ids a text names (each chip's ``name_pattern`` in the catalog; a name
    inside a system's, as HGX H100 names the H100, counts)."""
    return {chip for chip, rx in _patterns(_catalog()).items() if rx.search(text)}


def on_topic(prompt: str, post: str) -> bool:
    """A question names its post's subject, or names no chip at all."""
    subject = post_subjects().get(post)
    if subject is None:
        return True
    named = chips_named(prompt)
    return not named or bool(named & subject)


def _plain(text: str) -> str:
    return text.replace("\u00a0", " ").replace("\u202f", " ")


def _numbers(text: str, lang: str) -> list[float]:
    return prompt_numbers(text, lang)


def states(prompt: str, value: float, lang: str) -> bool:
    """The prompt writes ``value`` (to 3-6 significant figures, or as a percentage)."""
    written = _numbers(prompt, lang)
    candidates = [value, value * 100]
    return any(
        math.isclose(w, c, rel_tol=1e-9) or math.isclose(w, float(f"{c:.{d}g}"), rel_tol=1e-9)
        for w in written for c in candidates for d in range(2, 7)
    )


# ---------------------------------------------------------------- re-computation

Given = Mapping[str, float]
_TIME = {"ms": 1e-3, "s": 1.0, "min": 60.0, "h": 3600.0, "days": 86400.0}


def _time(seconds: float, q: Question) -> float:
    return seconds / _TIME[q.unit or "s"]


def _one_way(g: Given) -> float:
    """GB/s each way from the quoted figure: bits / 8, or a both-ways total / 2."""
    if "gbit" in g:
        return g["gbit"] / 8
    if "bidir_gb_s" in g:
        return g["bidir_gb_s"] / 2
    return g["oneway_gb_s"]


def _kv_per_token(g: Given) -> float:
    if "kv_kb" in g:
        return g["kv_kb"] * 1e3
    if "rank" in g:  # MLA, plus the sparse-attention indexer's key where there is one
        return g["layers"] * ((g["rank"] + g["rope"]) * g["kv_bytes"] + g.get("index_bytes", 0))
    return 2 * g["layers"] * g["kv_heads"] * g["head_dim"] * g["kv_bytes"]


def _kv_tokens(g: Given) -> float:
    """Mean tokens a layer keeps: the context, or less where some layers keep a window."""
    if "window" not in g:
        return g["context"]
    kept = min(g["context"], g["window"])
    return (g["window_layers"] * kept + (g["layers"] - g["window_layers"]) * g["context"]) / (
        g["layers"])


def _required(g: Given) -> float:
    return g["params_b"] * 1e9 * g["bytes"] + _kv_per_token(g) * _kv_tokens(g) * g["batch"]


def _usable(g: Given) -> float:
    """What weights and KV cache get of the stated capacity (10^9-byte GB of the reported
    total): the calculator's budget, total × utilization less the stated runtime."""
    from studyapp.infra import RUNTIME_BYTES, usable_bytes

    return usable_bytes(g["total_gb"] * 1e9, usable_fraction=g.get("usable", 0.9),
                        runtime_bytes=g["runtime_gb"] * 1e9 if "runtime_gb" in g
                        else RUNTIME_BYTES)


def _total(g: Given, q: Question) -> float:
    total = g["count"] * g["per_chip"]
    scale = {"TB": 1e3, "TB/s": 1e3 if q.params.get("per_chip_unit") == "GB/s" else 1.0,
             "PFLOPS": 1e3, "GiB": 1.0, "GB": 1.0, "GB/s": 1.0}
    return total / scale.get(q.unit or "", 1.0)


def _max_context(g: Given, q: Question) -> float:
    free = _usable(g) - g["params_b"] * 1e9 * g["bytes"]
    per = _kv_per_token(g) * (g["batch"] if "batch" in g else g["context"])
    return float(math.floor(free / per))


RECOMPUTE: dict[str, Callable[[Given, Question], float]] = {
    "weights-size": lambda g, q: g["params_b"] * g["bytes"],
    "gb-vs-gib": lambda g, q: (g["gb"] * 1e9 / GiB if "gb" in g
                               else g["mib"] / 1024 if "mib" in g
                               else g["mib_gb"] * 2**20 / 1e9 if "mib_gb" in g
                               else g["gib"] * GiB / 1e9),
    "kv-cache-per-token": lambda g, q: _kv_per_token(g) / 1e3,
    "kv-cache-total": lambda g, q: _kv_per_token(g) * g["context"] * g["batch"] / 1e9,
    "fits-on-gpu": lambda g, q: _required(g) / _usable(g),
    "min-gpus": lambda g, q: float(math.ceil(_required(g) / _usable(g))),
    "max-context-that-fits": _max_context,
    "decode-ceiling": lambda g, q: g["bandwidth_tb_s"] * 1e12
    / (g.get("active_b", g.get("params_b", math.nan)) * 1e9 * g["bytes"]),
    "decode-compare": lambda g, q: g["fast_bw"] / g["slow_bw"],
    "ridge-point": lambda g, q: (min(g["tflops"], g["intensity"] * g["bandwidth_tb_s"])
                                 if "intensity" in g else g["tflops"] / g["bandwidth_tb_s"]),
    "compute-or-memory-bound": lambda g, q: (2 * g["batch"] / g["bytes"])
    / (g["tflops"] / g["bandwidth_tb_s"]),
    "prefill-time": lambda g, q: _time(2 * g["active_b"] * 1e9 * g["tokens"]
                                       / (g["tflops"] * 1e12 * g["utilisation"]), q),
    "training-days": lambda g, q: 6 * g["active_b"] * 1e9 * g["tokens_t"] * 1e12
    / (g["count"] * g["tflops"] * 1e12 * g["mfu"]) / 86400,
    "training-memory": lambda g, q: (
        float(math.ceil(g["params_b"] * 1e9 * (g["w_bytes"] + g["g_bytes"] + g["o_bytes"])
                        / _usable(g))) if "total_gb" in g else g["params_b"] * _zero_bytes(g)),
    "checkpoint-write": lambda g, q: (
        g["params_b"] * 1e9 * g["bytes"] / (1e12 if q.unit == "TB" else 1e9)
        if q.params.get("ask") == "size"
        else _time(g["params_b"] * g["bytes"] / g["write_gb_s"], q)),
    "checkpoint-interval": lambda g, q: math.sqrt(
        2 * g["write_s"] * g["device_hours"] * 3600 / g["count"]) / 60,
    "link-transfer": lambda g, q: _time(g["size_gb"] / _one_way(g), q),
    "bits-vs-bytes": lambda g, q: g["gbit"] / 8 * g.get("count", 1),
    "ring-allreduce": lambda g, q: _ring_allreduce(g, q),
    # two all-reduces per layer, each its latency plus 2(n−1)/n × batch × hidden × 2 B
    "tp-allreduce": lambda g, q: 2 * g["layers"] * (
        g["latency_us"] * 1e-3
        + 2 * (g["tp"] - 1) / g["tp"] * g["batch"] * g["hidden"] * 2 / (g["bus_gb_s"] * 1e6)),
    "gaudi-ethernet": lambda g, q: g["count"] * g["gbit"] / 8 * g.get("chips", 1)
    * (2 if q.params.get("both_ways") else 1),
    "hgx-node-totals": _total,
    "nvl72-rack-totals": _total,
    "trainium-server-totals": _total,
    "tpu-pod": lambda g, q: (float(math.ceil(g["params_b"] * 2e9 / _usable(g)))
                             if "params_b" in g else _total(g, q)),
}
"""Each family's answer from the figures its prompt states (in the answer's unit;
for yes/no kinds the deciding ratio, whose side of 1 is the answer)."""


def _ring_allreduce(g: Given, q: Question) -> float:
    """2(n−1)/n × gradients over what each GPU sends per direction: one link inside a
    scale-up domain, n − 1 links of a full mesh at once, or every card of a node across
    nodes (one ring per card)."""
    n = g["count"] if "count" in g else g["nodes"] * g["node_gpus"]
    links = min(n - 1, g["peers"]) if "peers" in g else g.get("cards", 1)
    return _time(2 * (n - 1) / n * g["params_b"] * 2 / (_one_way(g) * links), q)


def _zero_bytes(g: Given) -> float:
    w, gr, o, n, stage = g["w_bytes"], g["g_bytes"], g["o_bytes"], g["devices"], g["stage"]
    if stage >= 1:
        o /= n
    if stage >= 2:
        gr /= n
    if stage >= 3:
        w /= n
    return w + gr + o


def _chip(q: Question, key: str = "gpu") -> Any:
    from studyapp.catalog import load_catalog

    return load_catalog().accelerators[str(q.params[key])]


def _lowp_right(q: Question) -> bool:
    """The speed-up from the chip's own dense figures, and an answer that says it."""
    from studyapp.questions.generators.families.accelerators import lowp_speedup

    chip = _chip(q)
    expected = lowp_speedup(chip, str(q.params["precision"]))
    if q.params.get("speedup") != expected:
        return False
    has_rate = expected is not None
    says_none = str(q.answer).startswith(("None", "Ninguna"))
    return has_rate != says_none


def _best_right(q: Question, score: Callable[[Any, str], float]) -> bool:
    from studyapp.catalog import load_catalog

    chips = [load_catalog().accelerators[c] for c in q.params["gpus"]]
    best = max(chips, key=lambda c: score(c, str(q.params["metric"])))
    # a choice names the chip without its parenthesised aside ("Google TPU7x")
    return bool(best.id == q.params["best"]
                and q.answer in (best.name, best.name.split(" (", 1)[0].strip()))


def _rank_score(chip: Any, metric: str) -> float:
    if metric == "memory_gb":
        return float(chip.nominal_memory_bytes)
    return float(getattr(chip, metric) or 0.0)


def _per_watt(chip: Any, metric: str) -> float:
    tdp = chip.tdp_w or math.inf
    return float(chip.bf16_dense_tflops / tdp if metric == "tflops"
                 else chip.memory_bandwidth_tb_s / tdp)


def _sparse_right(q: Question) -> bool:
    """Dense is the catalog's dense figure, the headline the vendor's printed one."""
    chip = _chip(q)
    precision = str(q.params["precision"])
    dense = getattr(chip, f"{precision}_dense_tflops")
    sparse = (chip.sparse_headline_tflops or {}).get(precision)
    want = dense if q.params["ask"] == "dense" else sparse
    written = prompt_numbers(str(q.answer), q.lang)
    return bool(want is not None and written and math.isclose(written[0], want, rel_tol=1e-6))


def _vendor_fact_right(q: Question, field: str, kind: str) -> bool:
    """The answer names the chip's own vendor's link or stack, as its entry lists it."""
    from studyapp.i18n import t
    from studyapp.questions.generators.families.conceptual import FABRICS, STACKS

    chip = _chip(q)
    keyword = (FABRICS if kind == "fabric" else STACKS)[chip.vendor]
    listed = getattr(chip, field) or ""
    return bool(keyword.lower() in listed.lower()
                and q.answer == t(f"gen.{kind}.{chip.vendor}", q.lang))


CHOICE_RECOMPUTE: dict[str, Callable[[Question], bool]] = {
    "scale-up-fabric": lambda q: _vendor_fact_right(q, "scale_up", "fabric"),
    "software-stack": lambda q: _vendor_fact_right(q, "software", "stack"),
    "low-precision-speedup": _lowp_right,
    "chip-ranking": lambda q: _best_right(q, _rank_score),
    "perf-per-watt": lambda q: _best_right(q, _per_watt),
    "memory-type": lambda q: q.answer == _chip(q).memory_type,
    "dense-vs-sparse": _sparse_right,
}
"""Choice families whose answer the audit re-derives from the catalog entries it names."""


YES_WHEN_BELOW = {"fits-on-gpu"}
"""Yes/no families whose answer is yes when the deciding ratio is at most 1."""


# ---------------------------------------------------------------- measuring


@dataclass
class Row:
    """What the audit measured for one family or one deck card."""

    label: str
    family: str
    post: str
    draws: int
    on_topic: float | None = None
    true_share: float | None = None
    non_trivial: float | None = None
    distinct: int = 0
    stated: float | None = None
    recomputed: float | None = None
    shown: float | None = None
    echoes: int = 0
    pool: bool = False
    """A one-chip or one-precision pool: judged on its answers only, not on its spread."""
    refused: int = 0
    """Draws that raised because the pool leaves no sound question (loud, never wrong)."""
    distinct_needed: int = MIN_DISTINCT
    """Distinct questions the spread needs: fewer for a family that asks a short list of
    published measurements, one question each."""
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def as_dict(self) -> dict[str, Any]:
        return {"label": self.label, "family": self.family, "post": self.post,
                "draws": self.draws, "on_topic": self.on_topic, "true_share": self.true_share,
                "non_trivial": self.non_trivial, "distinct_in_40": self.distinct,
                "stated": self.stated, "recomputed": self.recomputed, "shown": self.shown,
                "answer_echoes_prompt": self.echoes, "pool": self.pool,
                "refused": self.refused, "ok": self.ok,
                "problems": list(self.problems)}


def _share(flags: Sequence[bool]) -> float | None:
    return sum(flags) / len(flags) if flags else None


def _shown_value(q: Question) -> str:
    text = _plain(expected_display(q))
    match = _FIRST_NUMBER.search(text)
    return match.group(0).rstrip(".,") if match else text


def measure(label: str, family: Family, options: Mapping[str, Any], post: str | None,
            draws: int = DRAWS, lang: str = "en", seed: int = 2024,
            pool: bool = False) -> Row:
    """Draw ``draws`` instances and measure them.

    ``post`` is the post deck's post: its cards must stay on topic. A family on
    its own (``post`` None) keeps the open pools drill decks use, so its
    on-topic share is reported against the family's post but not judged.
    """
    judge_topic = post is not None
    post = post or family.post
    questions: list[Question] = []
    refused = 0
    for i in range(draws):
        try:
            questions.append(family.generate(instance_seed(seed, i), lang, options))
        except (DrawError, LookupError, ValueError):  # DrawError is a ValueError
            if not pool:
                raise
            refused += 1  # loud: no question at all rather than a wrong one
    row = Row(label=label, family=family.name, post=post, draws=draws, pool=pool,
              refused=refused,
              distinct_needed=min(MIN_DISTINCT,
                                  pool_size(family.name, options) or MIN_DISTINCT))
    if not questions:
        return row
    row.on_topic = _share([on_topic(q.prompt, post) for q in questions])
    row.distinct = len({(q.prompt, tuple(sorted(q.choices)))
                        for q in questions[:DISTINCT_WINDOW]})
    recompute = RECOMPUTE.get(family.name)
    choice_check = CHOICE_RECOMPUTE.get(family.name)
    stated, recomputed, shown, decisive, truth = [], [], [], [], []
    for q in questions:
        if choice_check is not None and q.kind is Kind.CHOICE:
            try:
                recomputed.append(choice_check(q))
            except (KeyError, LookupError, TypeError, ValueError):
                recomputed.append(False)
        given: Mapping[str, float] = q.params.get("given") or {}
        if recompute is not None:
            stated.append(bool(given) and all(states(q.prompt, v, lang) for v in given.values()))
            try:
                value = recompute(given, q)
            except (KeyError, ZeroDivisionError):
                value = math.nan
            if math.isnan(value):
                recomputed.append(False)
            elif q.kind is Kind.NUMERIC:
                tol = q.tolerance.relative if q.tolerance and q.tolerance.relative else 0.0
                absolute = q.tolerance.absolute if q.tolerance else None
                ok = (abs(value - float(q.answer)) <= (absolute or 0) + 1e-9 if absolute is not None
                      else math.isclose(value, float(q.answer), rel_tol=max(tol, 1e-6)))
                recomputed.append(ok)
            else:
                yes = value <= 1 if family.name in YES_WHEN_BELOW else value >= 1
                recomputed.append(yes == bool(q.answer))
        if q.kind is Kind.NUMERIC:
            value_text = _shown_value(q)
            shown.append(value_text in _plain(q.explanation))
            if lang == "en" and echoes(q):  # judged on the English text, as drawing does
                row.echoes += 1
        if q.kind is Kind.TRUEFALSE:
            truth.append(bool(q.answer))
            ratio = q.params.get("decision_ratio")
            low, high = NON_TRIVIAL_BAND
            decisive.append(isinstance(ratio, int | float) and low <= ratio <= high)
    row.stated = _share(stated)
    row.recomputed = _share(recomputed)
    row.shown = _share(shown)
    row.true_share = _share(truth)
    row.non_trivial = _share(decisive)
    _judge(row, judge_topic)
    return row


def _judge(row: Row, judge_topic: bool) -> None:
    p = row.problems
    if row.pool:  # a narrow pool: only whether its answers are right and stated
        if row.stated is not None and row.stated < 1:
            p.append(f"figures stated in {row.stated:.0%} of prompts")
        if row.recomputed is not None and row.recomputed < 1:
            p.append(f"answer re-computed from the prompt in {row.recomputed:.0%}")
        return
    if (judge_topic and row.on_topic is not None and row.post in post_subjects()
            and row.on_topic < ON_TOPIC_MIN):
        p.append(f"on-topic {row.on_topic:.0%} < {ON_TOPIC_MIN:.0%}")
    if row.true_share is not None and not BALANCE[0] <= row.true_share <= BALANCE[1]:
        p.append(f"true in {row.true_share:.0%} of draws")
    if row.non_trivial is not None and row.non_trivial < NON_TRIVIAL_MIN:
        p.append(f"non-trivial {row.non_trivial:.0%} < {NON_TRIVIAL_MIN:.0%}")
    if row.distinct < row.distinct_needed:
        p.append(f"{row.distinct} distinct questions in {DISTINCT_WINDOW} draws")
    if row.stated is not None and row.stated < 1:
        p.append(f"figures stated in {row.stated:.0%} of prompts")
    if row.recomputed is not None and row.recomputed < 1:
        p.append(f"answer re-computed from the prompt in {row.recomputed:.0%}")
    if row.shown is not None and row.shown < 1:
        p.append(f"shown answer in the explanation in {row.shown:.0%}")
    if row.echoes:
        p.append(f"answer equals a prompt number in {row.echoes} draws")


# ---------------------------------------------------------------- targets


@dataclass(frozen=True)
class Target:
    """One thing to audit: a family with its default pools, or a deck's generated card."""

    label: str
    family: Family
    options: Mapping[str, Any]
    post: str | None
    pool: bool = False
    """A one-chip or one-precision pool (fewer draws, judged on its answers)."""


def family_targets(names: Iterable[str] | None = None) -> list[Target]:
    table = registered_families()
    return [Target(name, table[name], {}, None) for name in (names or table)]


POOL_DRAWS = 25
POOL_PRECISIONS = ("bf16", "fp8", "fp4")


def pool_targets(names: Iterable[str] | None = None) -> list[Target]:
    """Every family with a chip pool, on each chip alone; with a precision pool, on each
    precision alone: narrow pools are where a family runs out of sound draws."""
    from studyapp.catalog import load_catalog

    table = registered_families()
    chips = load_catalog().accelerators.ids()
    out: list[Target] = []
    for name in names or table:
        family = table[name]
        if "gpus" in family.options:
            out += [Target(f"{name} gpus={chip}", family, {"gpus": [chip]}, None, pool=True)
                    for chip in chips]
        for key in ("precisions", "dtypes"):
            if key in family.options:
                out += [Target(f"{name} {key}={p}", family, {key: [p]}, None, pool=True)
                        for p in POOL_PRECISIONS]
    return out


def audit(targets: Iterable[Target], draws: int = DRAWS) -> list[Row]:
    return [measure(t.label, t.family, t.options, t.post, POOL_DRAWS if t.pool else draws,
                    pool=t.pool) for t in targets]


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:.0f}%"


def table_lines(rows: Sequence[Row]) -> list[str]:
    """The audit as a plain-text table, one line per family or card."""
    width = max([len(r.label) for r in rows] + [5])
    head = (f"{'label':<{width}}  {'post':<19} {'topic':>5} {'true':>5} {'decis':>5} "
            f"{'dist':>4} {'stated':>6} {'recomp':>6} {'shown':>5} {'echo':>4}  verdict")
    lines = [head]
    for r in rows:
        verdict = "ok" if r.ok else "; ".join(r.problems)
        if r.refused:
            verdict += f" ({r.refused} of {r.draws} draws refused: no sound question)"
        lines.append(f"{r.label:<{width}}  {r.post:<19} {_pct(r.on_topic):>5} "
                     f"{_pct(r.true_share):>5} {_pct(r.non_trivial):>5} {r.distinct:>4} "
                     f"{_pct(r.stated):>6} {_pct(r.recomputed):>6} {_pct(r.shown):>5} "
                     f"{r.echoes:>4}  {verdict}")
    return lines


__all__ = ["CHOICE_RECOMPUTE", "DRAWS", "RECOMPUTE", "Row", "Target", "audit",
           "chips_named", "family_targets", "format_number", "measure", "on_topic",
           "pool_targets", "post_subjects", "table_lines"]
