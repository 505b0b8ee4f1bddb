"""Checks of one deck's fields that stand alone: posts, numbers, units, tolerances, params.

``FieldChecks`` holds the problems found so far and reports each at its
position; ``DeckCheck`` builds on it with the deck and its cards.
"""

from __future__ import annotations

import itertools
import keyword
import math
import random
import re
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from studyapp.catalog.posts import POST_SLUGS
from studyapp.decks.deck_model import (
    DeckSource,
    ParamSpec,
)
from studyapp.decks.formula import (
    MAX_MAGNITUDE,
    RESERVED_NAMES,
    EntryView,
    Value,
)
from studyapp.decks.problems import Problem, ProblemMessage, as_written, problem_message
from studyapp.decks.schema import (
    CatalogDraw,
    RangeParam,
)
from studyapp.decks.schema_errors import suggest
from studyapp.decks.yaml_source import PathKey, SourceMap
from studyapp.questions.model import DEFAULT_TOLERANCE, Tolerance

if TYPE_CHECKING:
    from studyapp.catalog import Catalog

MAX_FORMULA_SAMPLES = 50
MAX_EXHAUSTIVE = 100_000
MAX_FORMULA_CHECKS = 300_000
"""Formula evaluations a deck's check may take (some 3 s): a deck needing more is refused
with the count, before any is made, rather than slowing every command that loads it."""
MAX_RANGE_VALUES = 1_000_000
MAX_RELATIVE_TOLERANCE = 0.5
"""A relative tolerance above 50% would accept an answer half or double the right one."""
_CATALOG_TABLES = ("accelerators", "interconnects", "systems", "models")
_TOLERANCE = re.compile(r"^\s*((?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?)\s*(%|[^\s\d%.].*?)?\s*$")


def _number_beyond(value: object) -> bool:
    """A number a formula would refuse: infinite, NaN or beyond ``MAX_MAGNITUDE``."""
    return (isinstance(value, int | float) and not isinstance(value, bool)
            and not abs(value) <= MAX_MAGNITUDE)


def _range_span(value: RangeParam) -> float:
    """How many steps the range spans, as a float (inf when it cannot be counted)."""
    try:
        return abs((value.max - value.min) / value.step)
    except (OverflowError, ZeroDivisionError):
        return math.inf


class FieldChecks:
    """Problems of one parsed file, each reported at its line and column."""

    def __init__(self, path: Path, data: Any, source_map: SourceMap, source: DeckSource) -> None:
        self.path = path
        self.data = data
        self.map = source_map
        self.source = source
        self.problems: list[Problem] = []
        self._catalog: Catalog | None = None
        self._catalog_failed = False
        self._draws: dict[tuple[str, str], list[EntryView]] = {}
        self._params: dict[str, ParamSpec] = {}
        self._unit_errors: dict[str, str | None] = {}

    # reporting
    def at(self, path: PathKey, message: ProblemMessage, *, key: bool = False) -> None:
        if self.map.is_refused(path):
            return
        line, col = self.map.key(path) if key else self.map.value(path)
        self.problems.append(Problem.at(self.path, line, col, message))

    def catalog(self, path: PathKey) -> Catalog | None:
        if self._catalog is None and not self._catalog_failed:
            from studyapp.catalog import CatalogError, load_catalog

            try:
                self._catalog = load_catalog()
            except CatalogError as exc:
                self._catalog_failed = True
                self.at(path, problem_message("catalog_unloadable", detail=str(exc)))
        return self._catalog

    # the deck
    def check_post(self, post: str, path: PathKey) -> None:
        if post not in POST_SLUGS:
            hint = suggest(post, POST_SLUGS)
            self.at(path, problem_message("unknown_post", value=post, hint=hint,
                                          posts=", ".join(POST_SLUGS)))

    def check_number(self, value: float, path: PathKey, *, signed: bool = False) -> None:
        if not math.isfinite(value):
            self.at(path, problem_message("answer_not_finite"))
        elif value < 0 and not signed:
            self.at(path, problem_message("answer_negative"))

    def unit(self, unit: str | None, path: PathKey) -> str | None:
        """The card's unit, checked against the grading unit table."""
        if unit is None:
            return None
        from studyapp.questions.units import UnitError, resolve_unit

        cleaned = unit.strip()
        if cleaned not in self._unit_errors:  # most cards of a deck share a few units
            try:
                resolve_unit(cleaned)
                self._unit_errors[cleaned] = None
            except UnitError as exc:
                self._unit_errors[cleaned] = str(exc)
        error = self._unit_errors[cleaned]
        if error is not None:
            self.at(path, problem_message("bad_unit", detail=as_written(error)))
        return cleaned

    def tolerance(self, value: str | float | None, unit: str | None, path: PathKey) -> Tolerance:
        """``2%`` is relative; ``0.5 KB`` is absolute, converted into the card's unit.

        Either stays in a sane range (``MAX_RELATIVE_TOLERANCE``, ``MAX_MAGNITUDE``):
        a tolerance that accepts every answer is refused, not obeyed.
        """
        found = self._tolerance(value, unit, path)
        if found.relative is not None and not found.relative <= MAX_RELATIVE_TOLERANCE:
            self.at(path, problem_message("tolerance_too_wide", value=str(value),
                                          limit=f"{MAX_RELATIVE_TOLERANCE:.0%}"))
            return DEFAULT_TOLERANCE
        if found.absolute is not None and not found.absolute <= MAX_MAGNITUDE:
            self.at(path, problem_message("tolerance_too_large", value=str(value),
                                          limit=f"{MAX_MAGNITUDE:g}"))
            return DEFAULT_TOLERANCE
        return found

    def _tolerance(self, value: str | float | None, unit: str | None, path: PathKey
                   ) -> Tolerance:
        if value is None:
            return DEFAULT_TOLERANCE
        if isinstance(value, int | float):
            if value != value or value < 0:  # NaN, or below zero
                self.at(path, problem_message("tolerance_negative"))
                return DEFAULT_TOLERANCE
            # a huge integer has no float: past the bound it counts as infinite (refused)
            return Tolerance(relative=None, absolute=float(value) if value <= MAX_MAGNITUDE
                             else math.inf)
        match = _TOLERANCE.match(value)
        if match is None:
            self.at(path, problem_message("bad_tolerance", value=value))
            return DEFAULT_TOLERANCE
        amount, suffix = float(match.group(1)), match.group(2)
        if suffix == "%":
            return Tolerance(relative=amount / 100, absolute=None)
        if suffix is None or suffix == unit:
            return Tolerance(relative=None, absolute=amount)
        if _is_ratio_word(suffix):  # "2 percent", "2 pct", "0.02 ratio"
            self.at(path, problem_message("tolerance_percent_word", value=value,
                                          percent=f"{match.group(1)}%",
                                          example=f"0.5 {unit}" if unit else "0.5"))
            return DEFAULT_TOLERANCE
        if unit is None:
            self.at(path, problem_message("tolerance_unit_alone", unit=suffix))
            return DEFAULT_TOLERANCE
        from studyapp.questions.units import UnitError, convert

        try:
            return Tolerance(relative=None, absolute=convert(amount, suffix, unit))
        except UnitError as exc:
            self.at(path, problem_message("tolerance_unit_mismatch", value=value, unit=unit,
                                          detail=as_written(str(exc))))
            return DEFAULT_TOLERANCE

    # parameters
    def params(self, raw: Mapping[str, Any], path: PathKey) -> dict[str, ParamSpec]:
        specs: dict[str, ParamSpec] = {}
        for name, value in raw.items():
            where: PathKey = (*path, name)
            if not name.isidentifier() or keyword.iskeyword(name) or name.startswith("_"):
                self.at(where, problem_message("param_name", name=name), key=True)
                continue
            if name in RESERVED_NAMES:
                self.at(where, problem_message("param_reserved", name=name), key=True)
                continue
            spec = self.param(value, where)
            if spec is not None:
                specs[name] = spec
        return specs

    def param(self, value: Any, where: PathKey) -> ParamSpec | None:
        """The parameter's spec; equal ones shared within the deck.

        Drill decks repeat the same picks and ranges card after card: one
        object for each (keyed by repr, so 1, 1.0 and True stay apart) is
        less to keep, and a cached deck is read back in half the time.
        """
        spec = self._param(value, where)
        if spec is None or spec.kind == "catalog":  # catalog entries are shared already
            return spec
        return self._params.setdefault(repr(spec), spec)

    def _param(self, value: Any, where: PathKey) -> ParamSpec | None:
        values = value if isinstance(value, list) else [value]
        if any(_number_beyond(v) for v in values):
            self.at(where, problem_message("param_too_large", limit=f"{MAX_MAGNITUDE:g}"))
            return None
        if isinstance(value, list):
            return ParamSpec(kind="pick", values=tuple(value))
        if isinstance(value, RangeParam):
            return self.range_param(value, where)
        if isinstance(value, CatalogDraw):
            return self.catalog_param(value, where)
        return ParamSpec(kind="constant", values=(value,))

    def range_param(self, value: RangeParam, where: PathKey) -> ParamSpec | None:
        numbers = (value.min, value.max, value.step)
        if not all(math.isfinite(n) for n in numbers):
            self.at(where, problem_message("range_not_finite"))
            return None
        if value.step <= 0:
            self.at((*where, "step"), problem_message("range_step"))
            return None
        if value.max < value.min:
            self.at((*where, "max"), problem_message("range_order", max=value.max, min=value.min))
            return None
        if not all(abs(n) <= MAX_MAGNITUDE for n in numbers):
            self.at(where, problem_message("param_too_large", limit=f"{MAX_MAGNITUDE:g}"))
            return None
        if not _range_span(value) <= MAX_RANGE_VALUES:  # before counting: 1/1e-308 is inf
            self.at(where, problem_message("range_too_long", limit=MAX_RANGE_VALUES))
            return None
        spec = ParamSpec(kind="range", start=value.min, stop=value.max, step=value.step,
                         integral=all(isinstance(n, int) for n in numbers))  # fmt: skip
        if spec.range_count > MAX_RANGE_VALUES:
            self.at(where, problem_message("range_too_long", limit=MAX_RANGE_VALUES))
            return None
        return spec

    def catalog_param(self, value: CatalogDraw, where: PathKey) -> ParamSpec | None:
        from studyapp.catalog import Accelerator, Interconnect, Model, System

        models: dict[str, type[BaseModel]] = {
            "accelerators": Accelerator, "interconnects": Interconnect,
            "systems": System, "models": Model,
        }  # fmt: skip
        table_name = value.from_
        if table_name not in models:
            self.at((*where, "from"), problem_message(
                "unknown_table", table=table_name, hint=suggest(table_name, _CATALOG_TABLES),
                tables=", ".join(_CATALOG_TABLES)))
            return None
        fields = list(models[table_name].model_fields)
        bad = False
        for field_name in value.where:
            if field_name not in fields:
                bad = True
                self.at((*where, "where", field_name), problem_message(
                    "unknown_field", table=table_name, field=field_name,
                    hint=suggest(field_name, fields)), key=True)
        catalog = self.catalog((*where, "from"))
        if bad or catalog is None:
            return None
        draw_key = (table_name, repr(sorted(value.where.items())))
        if draw_key not in self._draws and self._unknown_where_values(
                list(catalog.table(table_name)), table_name, value.where, where):
            return None  # a draw with an unknown value is never kept: each card says it
        entries = self._draws.get(draw_key)
        if entries is None:  # the same draw on many cards is looked up once per deck
            entries = self._draws[draw_key] = [
                EntryView(table_name, entry.model_dump(mode="json"))
                for entry in catalog.table(table_name)
                if _matches(entry, value.where)
            ]
        if not entries:
            self.at((*where, "where") if value.where else (*where, "from"),
                    problem_message("no_match", table=table_name, where=str(dict(value.where))))
            return None
        return ParamSpec(kind="catalog", values=tuple(entries))

    def _unknown_where_values(self, table: Sequence[BaseModel], table_name: str,
                              where: Mapping[str, Any], at: PathKey) -> bool:
        """Each ``where`` value no entry has, at its own ``line:col`` with the closest
        values (``id: [h100-sxm, h200]``: "did you mean 'h200-sxm' or 'h200-nvl'?"), even
        when the list's other values match; True if any."""
        found = False
        for field_name, wanted in where.items():
            actual = [getattr(entry, field_name, None) for entry in table]
            options = wanted if isinstance(wanted, list) else [wanted]
            for index, option in enumerate(options):
                if option in actual:
                    continue
                found = True
                known = sorted({str(v) for v in actual if v is not None})
                place: PathKey = (*at, "where", field_name)
                self.at((*place, index) if isinstance(wanted, list) else place,
                        problem_message("no_match_value", table=table_name, field=field_name,
                                        value=str(option), hint=suggest(str(option), known),
                                        known=", ".join(known[:15])))
        return found

    # formulas over sampled parameter values

def _is_ratio_word(suffix: str) -> bool:
    """Whether a tolerance's suffix names a ratio (``percent``, ``pct``, ``x``)."""
    from studyapp.questions.units import RATIO, UnitError, resolve_unit

    try:
        return resolve_unit(suffix).dimension == RATIO
    except UnitError:
        return False


def _matches(entry: BaseModel, where: Mapping[str, Any]) -> bool:
    for field_name, wanted in where.items():
        actual = getattr(entry, field_name, None)
        options = wanted if isinstance(wanted, list) else [wanted]
        if actual not in options:
            return False
    return True


def sample_combinations(
    params: Mapping[str, ParamSpec], limit: int = MAX_FORMULA_SAMPLES
) -> list[dict[str, Value]]:
    """Up to ``limit`` parameter combinations covering every value at least once.

    All combinations when there are few; otherwise combination ``i`` takes
    each parameter's ``i``-th value while it has one, then random values
    (fixed seed, so validation is repeatable).
    """
    if not params:  # a card without parameters: its formulas once, with no names
        return [{}]
    rng = random.Random(0)
    candidates = {name: spec.candidates(limit, rng) for name, spec in params.items()}
    if math.prod(len(c) for c in candidates.values()) <= limit:
        return [dict(zip(candidates, combo, strict=True))
                for combo in itertools.product(*candidates.values())]  # fmt: skip
    return [
        {name: values[i] if i < len(values) else rng.choice(values)
         for name, values in candidates.items()}
        for i in range(limit)
    ]  # fmt: skip


def all_values(spec: ParamSpec) -> list[Value]:
    """Every value a parameter can draw."""
    if spec.kind == "range":
        return [spec.range_value(k) for k in range(spec.range_count)]
    return list(spec.values)


def space_size(params: Mapping[str, ParamSpec]) -> int:
    """How many parameter combinations there are."""
    return math.prod(spec.range_count if spec.kind == "range" else len(spec.values)
                     for spec in params.values())  # fmt: skip


def check_combinations(params: Mapping[str, ParamSpec]) -> Iterator[dict[str, Value]]:
    """The combinations a formula over ``params`` is checked with.

    Every combination when there are at most ``MAX_EXHAUSTIVE`` of them.
    Beyond that: every combination of the parameters' ends (min and max of
    a range, first and last of a pick), then each parameter over all its
    values with the others at their ends, so a zero of a denominator along any one parameter is
    met, then ``MAX_FORMULA_SAMPLES`` random combinations (fixed seed).
    """
    if not params:
        yield {}
        return
    names = list(params)
    if space_size(params) <= MAX_EXHAUSTIVE:
        values = [all_values(params[n]) for n in names]
        for combo in itertools.product(*values):
            yield dict(zip(names, combo, strict=True))
        return
    ends = {n: _ends(params[n]) for n in names}
    if math.prod(len(e) for e in ends.values()) <= MAX_EXHAUSTIVE:
        for combo in itertools.product(*ends.values()):
            yield dict(zip(names, combo, strict=True))
    for name in names:
        spec = params[name]
        sweep = all_values(spec)  # ranges are at most MAX_RANGE_VALUES long
        for side in (0, -1) if len(sweep) <= MAX_EXHAUSTIVE else (0,):
            base = {n: ends[n][side] for n in names}
            for value in sweep:
                yield {**base, name: value}
    rng = random.Random(0)
    for _ in range(MAX_FORMULA_SAMPLES):
        yield {n: params[n].draw(rng) for n in names}


def combination_count(params: Mapping[str, ParamSpec]) -> int:
    """How many combinations ``check_combinations(params)`` yields, counted without them."""
    if not params:
        return 1
    if space_size(params) <= MAX_EXHAUSTIVE:
        return space_size(params)
    sizes = [spec.range_count if spec.kind == "range" else len(spec.values)
             for spec in params.values()]
    ends = math.prod(min(size, 2) for size in sizes)
    sweeps = sum(size * (2 if size <= MAX_EXHAUSTIVE else 1) for size in sizes)
    return (ends if ends <= MAX_EXHAUSTIVE else 0) + sweeps + MAX_FORMULA_SAMPLES


def _ends(spec: ParamSpec) -> list[Value]:
    if spec.kind == "range":
        last = spec.range_count - 1
        ends: list[Value] = [spec.range_value(0)]
        return [*ends, spec.range_value(last)] if last else ends
    return list(spec.values[:1]) + (list(spec.values[-1:]) if len(spec.values) > 1 else [])


# --- files -----------------------------------------------------------------------
