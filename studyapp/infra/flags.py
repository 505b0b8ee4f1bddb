"""Inputs the calculator computes but no deployment could run, flagged beside the result.

A context past the one the model was published for, a tensor-parallel group
or a decode split over more GPUs than one scale-up domain holds (the
catalog's systems for that chip), a decode batch whose weights and KV cache do
not fit the GPUs it reads: the arithmetic stays valid and is still printed,
but a learner who typed 327,680,000 for 32,768 should be told. A flag never
turns an input into an error; ``--usable-fraction`` past 1 is refused by its
option's range, as before.

Each flag has a code (the ``warnings`` entries of ``calc --json`` keep it)
and its words in ``content/i18n/flags.<lang>.yaml``. The formulas are not
touched: this module only reads their inputs and reports.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from studyapp.i18n import t
from studyapp.infra.calc import fit_report
from studyapp.numbers import format_count, format_figure

if TYPE_CHECKING:
    from collections.abc import Iterable

    from studyapp.catalog import Catalog
    from studyapp.infra.calc import DeviceInput, ModelInput

PAST_CONTEXT = "past-context"
TP_PAST_SCALE_UP = "tp-past-scale-up"
GPUS_PAST_SCALE_UP = "gpus-past-scale-up"
DOES_NOT_FIT = "does-not-fit"

WORDS = {PAST_CONTEXT: "flags.past_context", TP_PAST_SCALE_UP: "flags.tp_past_scale_up",
         GPUS_PAST_SCALE_UP: "flags.gpus_past_scale_up", DOES_NOT_FIT: "flags.does_not_fit"}
"""The i18n key of each flag's sentence."""


@dataclass(frozen=True)
class Flag:
    """One warning: a code scripts can test, and the figures its sentence names."""

    code: str
    fields: dict[str, Any] = field(default_factory=dict)

    def text(self, lang: str) -> str:

        shown = {name: (format_count(value, lang) if isinstance(value, int)
                        else format_figure(value, lang) if isinstance(value, float) else value)
                 for name, value in self.fields.items()}
        return t(WORDS[self.code], lang, **shown)

    def as_json(self, lang: str) -> dict[str, Any]:
        return {"code": self.code, "message": self.text(lang), **self.fields}


def past_context(model: ModelInput, tokens: int) -> Flag | None:
    """Tokens past the model's published context length (none when it has none)."""
    limit = model.context_length
    if limit is None or tokens <= limit:
        return None
    return Flag(PAST_CONTEXT, {"model": model.label, "limit": limit, "tokens": tokens})


@dataclass(frozen=True)
class ScaleUpDomain:
    """The most GPUs of one chip the catalog's systems join by their scale-up link."""

    system: str
    gpus: int


def scale_up_domain(catalog: Catalog, chip_id: str) -> ScaleUpDomain | None:
    """The largest scale-up domain among the systems built on ``chip_id`` (its NVLink
    domain, else its GPUs); None when no system in the catalog uses the chip."""
    best: ScaleUpDomain | None = None
    for system in catalog.systems:
        if system.accelerator != chip_id:
            continue
        gpus = system.nvlink_domain or system.gpus
        if best is None or gpus > best.gpus:
            best = ScaleUpDomain(system.id, gpus)
    return best


def past_scale_up(code: str, degree: int, chip: str,
                  domain: ScaleUpDomain | None) -> Flag | None:
    """``degree`` GPUs computed as one scale-up group (a TP group: ``TP_PAST_SCALE_UP``;
    a decode's summed bandwidth: ``GPUS_PAST_SCALE_UP``) when the chip's largest system
    links fewer: past it the traffic crosses the network."""
    if domain is None or degree <= domain.gpus:
        return None
    return Flag(code, {"degree": degree, "chip": chip, "system": domain.system,
                       "system_gpus": domain.gpus})


def decode_does_not_fit(model: ModelInput, device: DeviceInput, *, dtype: str,
                        kv_dtype: str | None, batch: int, context: int,
                        gpus: int) -> Flag | None:
    """A decode step computed for weights and a KV cache that the GPUs cannot hold
    (vLLM's default budget, as ``calc fit``); none without a memory figure."""
    if device.memory_bytes is None or model.params is None or (
            model.shape is None and context > 0):
        return None

    report = fit_report(model, device, dtype=dtype, kv_dtype=kv_dtype, context=context,
                        batch=batch, gpus=gpus)
    if report["fits"]:
        return None
    return Flag(DOES_NOT_FIT, {"batch": batch, "context": context, "gpus": gpus,
                               "required_gb": report["required_gb"],
                               "available_gb": report["available_gb"]})


def warnings(flags: Iterable[Flag | None], lang: str) -> list[dict[str, Any]]:
    """The ``warnings`` list of a ``calc --json`` report."""
    return [flag.as_json(lang) for flag in flags if flag is not None]


__all__ = ["DOES_NOT_FIT", "GPUS_PAST_SCALE_UP", "PAST_CONTEXT", "TP_PAST_SCALE_UP", "Flag",
           "ScaleUpDomain", "decode_does_not_fit", "past_context", "past_scale_up",
           "scale_up_domain", "warnings"]
