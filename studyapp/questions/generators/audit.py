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
from bisect import bisect_left
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from studyapp.catalog.loader import one_catalog
from studyapp.questions.formatting import format_number
from studyapp.questions.generators import Family, registered_families
from studyapp.questions.generators.drawing import (
    DrawError,
    echoing_parts,
    instance_seed,
    prompt_numbers,
)
from studyapp.questions.generators.families.measured import pool_size
from studyapp.questions.generators.recompute import (
    CHOICE_RECOMPUTE,
    RECOMPUTE,
    YES_WHEN_BELOW,
)
from studyapp.questions.grading import expected_display
from studyapp.questions.model import Kind, Question

if TYPE_CHECKING:
    from studyapp.catalog import Catalog



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


_compiled: list[tuple[Catalog, dict[str, re.Pattern[str]], dict[str, frozenset[str]]]] = []
_NAMED_KEPT = 4096
"""Texts whose named chips are kept: an audit asks again for every repeated prompt."""


def _patterns(catalog: Catalog) -> tuple[dict[str, re.Pattern[str]], dict[str, frozenset[str]]]:
    """Each chip's compiled pattern, compiled once per loaded catalog, and the chips
    recent texts named under that catalog."""
    if not _compiled or _compiled[0][0] is not catalog:
        _compiled[:] = [(catalog, {chip: re.compile(rf"\b(?:{rx})\b")
                                   for chip, rx in catalog.chip_patterns().items()}, {})]
    return _compiled[0][1], _compiled[0][2]


def post_subjects() -> Mapping[str, frozenset[str]]:
    """The hardware each hardware post is about (``posts:`` in the catalog); the other
    posts are about an idea, not a chip."""
    return _catalog().post_chips


def chips_named(text: str) -> set[str]:
    """Accelerator ids a text names (each chip's ``name_pattern`` in the catalog; a name
    inside a system's, as HGX H100 names the H100, counts)."""
    patterns, named = _patterns(_catalog())
    found = named.get(text)
    if found is None:
        if len(named) >= _NAMED_KEPT:
            named.clear()
        found = named[text] = frozenset(chip for chip, rx in patterns.items()
                                        if rx.search(text))
    return set(found)


def on_topic(prompt: str, post: str) -> bool:
    """A question names its post's subject, or names no chip at all."""
    subject = post_subjects().get(post)
    if subject is None:
        return True
    named = chips_named(prompt)
    return not named or bool(named & subject)


def _plain(text: str) -> str:
    return text.replace("\u00a0", " ").replace("\u202f", " ")


_REL = 1e-9
"""How close a written number must be to a figure to state it (``math.isclose``)."""


@lru_cache(maxsize=4096)
def _written(text: str, lang: str) -> tuple[float, ...]:
    """The numbers a text writes, sorted: read once per text, however many figures it states."""
    return tuple(sorted(prompt_numbers(text, lang)))


def _writes(written: Sequence[float], figure: float) -> bool:
    """Some number in sorted ``written`` is ``math.isclose`` to ``figure``.

    Only the numbers within ``2 * _REL * |figure|`` can be close to it, so a bisection
    finds them instead of comparing every number a long prompt writes."""
    if not math.isfinite(figure):
        return any(math.isclose(w, figure, rel_tol=_REL) for w in written)
    reach = 2 * _REL * abs(figure)
    start = bisect_left(written, figure - reach)
    for w in written[start:]:
        if w > figure + reach:
            return False
        if math.isclose(w, figure, rel_tol=_REL):
            return True
    return False


def states(prompt: str, value: float, lang: str) -> bool:
    """The prompt writes ``value`` (to 3-6 significant figures, or as a percentage)."""
    written = _written(prompt, lang)
    return any(_writes(written, figure)
               for c in (value, value * 100)
               for figure in (c, *(float(f"{c:.{d}g}") for d in range(2, 7))))


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
    """Draws whose numeric answer (a scenario's: any step's) is a number the card writes
    before asking it: a failure, typing the prompt back would score."""
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
    on-topic share is reported against the family's post but not judged. The whole
    measure reads one catalog (``one_catalog``), as each draw does.
    """
    with one_catalog():
        return _measure(label, family, options, post, draws, lang, seed, pool)


def _measure(label: str, family: Family, options: Mapping[str, Any], post: str | None,
             draws: int, lang: str, seed: int, pool: bool) -> Row:
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
    recompute = RECOMPUTE.get(family.name) or family.recompute
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
            before = "\n".join([*q.given, q.prompt])  # the Given block is stated too
            stated.append(bool(given) and all(states(before, v, lang) for v in given.values()))
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
        if lang == "en" and echoing_parts(q):  # judged on the English text, as drawing does
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
    if row.echoes:
        p.append(f"answer equals a number its card writes before asking in {row.echoes} draws")
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
