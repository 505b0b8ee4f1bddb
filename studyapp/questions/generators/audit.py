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
from typing import Any

from studyapp.questions.formatting import format_number
from studyapp.questions.generators import Family, families
from studyapp.questions.generators.drawing import echoes, instance_seed, prompt_numbers
from studyapp.questions.grading import expected_display
from studyapp.questions.model import Kind, Question

GiB = 2**30

DRAWS = 300
"""Draws per family or deck card: enough for shares to within a few percent."""

DISTINCT_WINDOW = 40
MIN_DISTINCT = 10
ON_TOPIC_MIN = 0.95
BALANCE = (0.35, 0.65)
NON_TRIVIAL_MIN = 0.70
NON_TRIVIAL_BAND = (0.5, 2.0)

CHIP_NAMES: dict[str, str] = {
    "a100-80gb": r"A100",
    "h100-sxm": r"H100(?! (PCIe|NVL))",
    "h100-pcie": r"H100 PCIe",
    "h200-sxm": r"H200(?! NVL)",
    "h200-nvl": r"H200 NVL",
    "b200": r"(?<!G)B200",
    "gb200": r"GB200|NVL72",
    "mi300x": r"MI300X?",
    "mi325x": r"MI325X",
    "mi350x": r"MI350X?",
    "mi355x": r"MI355X",
    "tpu-v5e": r"TPU v5e",
    "tpu-v5p": r"TPU v5p",
    "tpu-v6e": r"TPU v6e|Trillium",
    "tpu-v7": r"TPU7x|Ironwood",
    "trainium1": r"Trainium(?!\d)|Trn1",
    "trainium2": r"Trainium2|Trn2|trn2",
    "gaudi2": r"Gaudi 2",
    "gaudi3": r"Gaudi 3",
}
"""How a prompt names each accelerator (also inside system names: HGX H100 names the H100)."""

POST_SUBJECTS: dict[str, frozenset[str]] = {
    "h100": frozenset({"h100-sxm", "h100-pcie"}),
    "h200": frozenset({"h200-sxm", "h200-nvl"}),
    "blackwell": frozenset({"b200", "gb200"}),
    "mi350": frozenset({"mi300x", "mi325x", "mi350x", "mi355x"}),
    "tpu": frozenset({"tpu-v5e", "tpu-v5p", "tpu-v6e", "tpu-v7"}),
    "trainium": frozenset({"trainium1", "trainium2"}),
    "gaudi": frozenset({"gaudi2", "gaudi3"}),
    "hgx": frozenset({"h100-sxm", "h200-sxm", "b200", "gb200"}),
}
"""The hardware each hardware post is about; the other posts are about an idea, not a chip."""

_PATTERNS = {chip: re.compile(rf"\b(?:{rx})\b") for chip, rx in CHIP_NAMES.items()}
_FIRST_NUMBER = re.compile(r"\d[\d,.\u00a0\u202f]*")


def chips_named(text: str) -> set[str]:
    """Accelerator ids a text names."""
    return {chip for chip, rx in _PATTERNS.items() if rx.search(text)}


def on_topic(prompt: str, post: str) -> bool:
    """A question names its post's subject, or names no chip at all."""
    subject = POST_SUBJECTS.get(post)
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
    if "rank" in g:
        return g["layers"] * (g["rank"] + g["rope"]) * g["kv_bytes"]
    return 2 * g["layers"] * g["kv_heads"] * g["head_dim"] * g["kv_bytes"]


def _required(g: Given) -> float:
    return g["params_b"] * 1e9 * g["bytes"] + _kv_per_token(g) * g["context"] * g["batch"]


def _usable(g: Given) -> float:
    return g["memory_gb"] * 1e9 * g.get("usable", 0.9)


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
    "gb-vs-gib": lambda g, q: (g["gb"] * 1e9 / GiB if "gb" in g else g["gib"] * GiB / 1e9),
    "kv-cache-per-token": lambda g, q: _kv_per_token(g) / 1e3,
    "kv-cache-total": lambda g, q: _kv_per_token(g) * g["context"] * g["batch"] / 1e9,
    "fits-on-gpu": lambda g, q: _required(g) / _usable(g),
    "min-gpus": lambda g, q: float(math.ceil(_required(g) / _usable(g))),
    "max-context-that-fits": _max_context,
    "decode-ceiling": lambda g, q: g["bandwidth_tb_s"] * 1e12 / (g["params_b"] * 1e9 * g["bytes"]),
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
                        / _usable(g))) if "memory_gb" in g else g["params_b"] * _zero_bytes(g)),
    "checkpoint-write": lambda g, q: (
        g["params_b"] * 1e9 * g["bytes"] / (1e12 if q.unit == "TB" else 1e9)
        if q.params.get("ask") == "size"
        else _time(g["params_b"] * g["bytes"] / g["write_gb_s"], q)),
    "checkpoint-interval": lambda g, q: math.sqrt(
        2 * g["write_s"] * g["device_hours"] * 3600 / g["count"]) / 60,
    "link-transfer": lambda g, q: _time(g["size_gb"] / _one_way(g), q),
    "bits-vs-bytes": lambda g, q: g["gbit"] / 8 * g.get("count", 1),
    "ring-allreduce": lambda g, q: _time(
        2 * (g["count"] - 1) / g["count"] * g["params_b"] * 2 / _one_way(g), q),
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


def _zero_bytes(g: Given) -> float:
    w, gr, o, n, stage = g["w_bytes"], g["g_bytes"], g["o_bytes"], g["devices"], g["stage"]
    if stage >= 1:
        o /= n
    if stage >= 2:
        gr /= n
    if stage >= 3:
        w /= n
    return w + gr + o


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
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def as_dict(self) -> dict[str, Any]:
        return {"label": self.label, "family": self.family, "post": self.post,
                "draws": self.draws, "on_topic": self.on_topic, "true_share": self.true_share,
                "non_trivial": self.non_trivial, "distinct_in_40": self.distinct,
                "stated": self.stated, "recomputed": self.recomputed, "shown": self.shown,
                "answer_echoes_prompt": self.echoes, "ok": self.ok,
                "problems": list(self.problems)}


def _share(flags: Sequence[bool]) -> float | None:
    return sum(flags) / len(flags) if flags else None


def _shown_value(q: Question) -> str:
    text = _plain(expected_display(q))
    match = _FIRST_NUMBER.search(text)
    return match.group(0).rstrip(".,") if match else text


def measure(label: str, family: Family, options: Mapping[str, Any], post: str | None,
            draws: int = DRAWS, lang: str = "en", seed: int = 2024) -> Row:
    """Draw ``draws`` instances and measure them.

    ``post`` is the post deck's post: its cards must stay on topic. A family on
    its own (``post`` None) keeps the open pools drill decks use, so its
    on-topic share is reported against the family's post but not judged.
    """
    judge_topic = post is not None
    post = post or family.post
    questions = [family.generate(instance_seed(seed, i), lang, options) for i in range(draws)]
    row = Row(label=label, family=family.name, post=post, draws=draws)
    row.on_topic = _share([on_topic(q.prompt, post) for q in questions])
    row.distinct = len({(q.prompt, tuple(sorted(q.choices)))
                        for q in questions[:DISTINCT_WINDOW]})
    recompute = RECOMPUTE.get(family.name)
    stated, recomputed, shown, decisive, truth = [], [], [], [], []
    for q in questions:
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
    if (judge_topic and row.on_topic is not None and row.post in POST_SUBJECTS
            and row.on_topic < ON_TOPIC_MIN):
        p.append(f"on-topic {row.on_topic:.0%} < {ON_TOPIC_MIN:.0%}")
    if row.true_share is not None and not BALANCE[0] <= row.true_share <= BALANCE[1]:
        p.append(f"true in {row.true_share:.0%} of draws")
    if row.non_trivial is not None and row.non_trivial < NON_TRIVIAL_MIN:
        p.append(f"non-trivial {row.non_trivial:.0%} < {NON_TRIVIAL_MIN:.0%}")
    if row.distinct < MIN_DISTINCT:
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


def family_targets(names: Iterable[str] | None = None) -> list[Target]:
    table = families()
    return [Target(name, table[name], {}, None) for name in (names or table)]


def audit(targets: Iterable[Target], draws: int = DRAWS) -> list[Row]:
    return [measure(t.label, t.family, t.options, t.post, draws) for t in targets]


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
        lines.append(f"{r.label:<{width}}  {r.post:<19} {_pct(r.on_topic):>5} "
                     f"{_pct(r.true_share):>5} {_pct(r.non_trivial):>5} {r.distinct:>4} "
                     f"{_pct(r.stated):>6} {_pct(r.recomputed):>6} {_pct(r.shown):>5} "
                     f"{r.echoes:>4}  {verdict}")
    return lines


__all__ = ["DRAWS", "POST_SUBJECTS", "RECOMPUTE", "Row", "Target", "audit", "chips_named",
           "family_targets", "format_number", "measure", "on_topic",
           "table_lines"]
