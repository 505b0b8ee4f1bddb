"""The options a family takes: what each holds, its default, its allowed values, and checks.

``studyapp generate FAMILY --options`` lists them and ``--option KEY=VALUE`` is
checked here before a draw: an unknown key is refused with a did-you-mean, and
so is a value the option cannot take. An option means the same in every family
that has it (``gpus`` is always accelerator ids), so its kind is kept once, by
name, in :data:`KINDS`; its default is what the family draws from when the
option is not given, read from the family's own draws (so it never drifts from
the code), and a closed option's allowed values are those defaults.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from studyapp.i18n import strings, t
from studyapp.infra import DTYPE_BYTES
from studyapp.questions.generators.drawing import instance_seed, reading_defaults

IDS, WORDS, CLOSED, INTEGERS, NUMBERS, FRACTIONS, OPEN = (
    "ids", "words", "closed", "integers", "numbers", "fractions", "open")


@dataclass(frozen=True)
class OptionKind:
    """What an option's values are: catalog ids of a table, words, or numbers in a range."""

    kind: str
    table: str | None = None
    """The catalog table (``accelerators``, ``models``, ...) of an ``ids`` option."""


KINDS: dict[str, OptionKind] = {
    "models": OptionKind(IDS, "models"), "gpus": OptionKind(IDS, "accelerators"),
    "anchor": OptionKind(IDS, "accelerators"), "systems": OptionKind(IDS, "systems"),
    "links": OptionKind(IDS, "interconnects"), "dtypes": OptionKind(WORDS),
    "precisions": OptionKind(WORDS), "ask": OptionKind(CLOSED), "metrics": OptionKind(CLOSED),
    "scenarios": OptionKind(CLOSED), "quantities": OptionKind(CLOSED),
    "solve_for": OptionKind(CLOSED), "chips": OptionKind(CLOSED),
    "zero_stages": OptionKind(CLOSED), "contexts": OptionKind(INTEGERS),
    "batches": OptionKind(INTEGERS), "users": OptionKind(INTEGERS),
    "prompts": OptionKind(INTEGERS), "gpu_counts": OptionKind(INTEGERS),
    "ports": OptionKind(INTEGERS), "units": OptionKind(INTEGERS),
    "sizes_gib": OptionKind(INTEGERS), "sizes_gb": OptionKind(NUMBERS),
    "tokens": OptionKind(NUMBERS), "write_gb_s": OptionKind(NUMBERS),
    "device_mtbf_hours": OptionKind(NUMBERS), "checkpoint_seconds": OptionKind(NUMBERS),
    "mfus": OptionKind(FRACTIONS), "utilisations": OptionKind(FRACTIONS),
}
"""Every option name a family may declare, and what its values are."""

DENSE_PRECISIONS = ("bf16", "fp8", "fp4")
"""The precisions whose dense peak the catalog gives (``terms.dense_tflops``)."""

DEFAULT_DRAWS = 60
"""Draws read to learn a family's defaults (branches that ask other things included)."""


class OptionFamily(Protocol):
    """What the option checks need of a family (``generators.Family`` has it)."""

    @property
    def name(self) -> str: ...

    @property
    def options(self) -> Mapping[str, str | tuple[str, ...]]: ...

    def generate(self, seed: int, lang: str, options: Mapping[str, Any]) -> Any: ...


@dataclass(frozen=True)
class Words:
    """A UI string's key and its fields (which may be ``Words`` too), for any language.

    ``deck validate`` reports an option a deck cannot use in the reader's
    language, from the same words ``generate --option`` prints.
    """

    key: str
    fields: tuple[tuple[str, object], ...] = ()

    def render(self, lang: str) -> str:
        values = {name: value.render(lang) if isinstance(value, Words) else value
                  for name, value in self.fields}  # fmt: skip
        return t(self.key, lang, **values) if values else t(self.key, lang)


def _words(key: str, /, **fields: object) -> Words:
    return Words(key, tuple(fields.items()))


class OptionError(ValueError):
    """An ``--option`` the family cannot take, worded in the reader's language."""

    def __init__(self, words: Words, lang: str) -> None:
        self.words = words
        super().__init__(words.render(lang))


# --- defaults, read from the family's draws -----------------------------------


def defaults(family: OptionFamily, draws: int = DEFAULT_DRAWS) -> dict[str, list[Any]]:
    """What each option draws from when it is not given, by option name."""
    with reading_defaults() as seen:
        for index in range(draws):
            try:
                family.generate(instance_seed(0, index), "en", {})
            except (LookupError, ValueError, ArithmeticError):
                continue
    return {key: list(seen[key]) for key in family.options if key in seen}


# --- what an option is, in the reader's language -------------------------------


def _kind(name: str) -> OptionKind:
    """An option name outside ``KINDS`` (a family of a plug-in or a test) takes any value."""
    return KINDS.get(name, OptionKind(OPEN))


def _table_ids(table: str) -> list[str]:
    from studyapp.catalog import load_catalog

    return load_catalog().table(table).ids()


def _dtypes() -> list[str]:
    return list(DTYPE_BYTES)


def allowed(name: str, default: Sequence[Any],
            declared: str | tuple[str, ...] = "") -> list[Any] | None:
    """The values option ``name`` may take; None for an open range of numbers.

    A family declares a closed option's values (a tuple in ``Family.options``) when its
    draws without options do not read them all; else they are its defaults."""
    kind = _kind(name)
    if isinstance(declared, tuple):
        return list(declared)
    if kind.kind == IDS:
        assert kind.table is not None
        return list(_table_ids(kind.table))
    if kind.kind == WORDS:
        return _dtypes() if name == "dtypes" else list(DENSE_PRECISIONS)
    if kind.kind == CLOSED:
        return list(default)
    return None  # numbers in a range, or an option whose values are its family's business


def shown_value(value: Any) -> str:
    """A value as it is typed after ``--option KEY=``."""
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def describe(family: OptionFamily, name: str, lang: str) -> str:
    """What option ``name`` of ``family`` holds (``gen.opt.<family>.<name>``, else
    ``gen.opt.<name>``)."""
    table = strings(lang)
    for key in (f"gen.opt.{family.name}.{name}", f"gen.opt.{name}"):
        if key in table:
            return t(key, lang)
    declared = family.options.get(name, name)
    return declared if isinstance(declared, str) else ", ".join(declared)


def _type_words(name: str) -> Words:
    kind = _kind(name)
    if kind.kind == IDS:
        return _words("gen.opt.type.ids", table=_words(f"gen.opt.table.{kind.table}"))
    return _words(f"gen.opt.type.{kind.kind}")


def type_text(name: str, lang: str) -> str:
    return _type_words(name).render(lang)


@dataclass(frozen=True)
class OptionInfo:
    """One option of one family, as ``--options`` lists it."""

    name: str
    type: str
    description: str
    default: list[Any]
    allowed: list[Any] | None

    def record(self) -> dict[str, Any]:
        return {"name": self.name, "type": self.type, "description": self.description,
                "default": self.default, "allowed": self.allowed}


def option_infos(family: OptionFamily, lang: str) -> list[OptionInfo]:
    """Every option ``family`` declares, in its declared order."""
    drawn_from = defaults(family)
    return [OptionInfo(name=name, type=type_text(name, lang),
                       description=describe(family, name, lang),
                       default=drawn_from.get(name, []),
                       allowed=allowed(name, drawn_from.get(name, []), family.options[name]))
            for name in family.options]


# --- checking --option pairs ---------------------------------------------------


def _did_you_mean(wanted: str, known: Sequence[str]) -> Words | str:
    close = difflib.get_close_matches(wanted, list(known), n=3, cutoff=0.5)
    return _words("gen.opt.did_you_mean", names=", ".join(close)) if close else ""


def _number(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def _bad_value(family: OptionFamily, name: str, value: Any,
               choices: Sequence[Any] | None) -> Words | None:
    """Why ``value`` does not fit option ``name``; None when it does."""
    kind = _kind(name).kind
    if kind in (INTEGERS, NUMBERS, FRACTIONS):
        number = _number(value)
        fits = number is not None and (
            (kind == INTEGERS and number >= 1 and number == int(number))
            or (kind == NUMBERS and number > 0)
            or (kind == FRACTIONS and 0 < number <= 1))
        if fits:
            return None
        return _words("gen.opt.bad_value", name=name, family=family.name,
                      value=shown_value(value), takes=_type_words(name), hint="")
    if choices is None:
        return None
    known = [shown_value(c) for c in choices]
    if shown_value(value) in known:
        return None
    if kind == IDS:
        return _words("gen.opt.unknown_id", name=name, family=family.name,
                      value=shown_value(value),
                      table=_words(f"gen.opt.table.{_kind(name).table}"),
                      hint=_did_you_mean(str(value), known), see=family.name)
    return _words("gen.opt.bad_value", name=name, family=family.name, value=shown_value(value),
                  takes=", ".join(known), hint=_did_you_mean(str(value), known))


def check_options(family: OptionFamily, options: Mapping[str, Any], lang: str) -> None:
    """Raise :class:`OptionError` for an option key the family lacks or a value it cannot take."""
    declared = list(family.options)
    for name in options:
        if name not in family.options:
            listed: Words | str = ", ".join(declared) if declared else _words("gen.opt.none")
            raise OptionError(_words("gen.opt.unknown_key", name=name, family=family.name,
                                     hint=_did_you_mean(name, declared), options=listed), lang)
    drawn_from: dict[str, list[Any]] | None = None
    for name, given in options.items():
        items = list(given) if isinstance(given, list | tuple) else [given]
        if _kind(name).kind == CLOSED and drawn_from is None:
            drawn_from = defaults(family)
        default = (drawn_from or {}).get(name, [])
        choices = allowed(name, default, family.options[name])
        for value in items:
            problem = _bad_value(family, name, value, choices)
            if problem is not None:
                raise OptionError(problem, lang)
