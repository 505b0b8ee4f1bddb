"""``calc``'s warnings (``studyapp.infra.flags``): lines after the text output, a
``warnings`` list in ``--json``. A flagged input is still computed; nothing here fails."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import click

from studyapp import catalog
from studyapp.cli import current_settings
from studyapp.i18n import t
from studyapp.infra.calc import DeviceInput, ModelInput
from studyapp.infra.flags import (
    GPUS_PAST_SCALE_UP,
    TP_PAST_SCALE_UP,
    Flag,
    decode_does_not_fit,
    past_context,
    past_scale_up,
    scale_up_domain,
    warnings,
)

Printer = Callable[..., None]


def print_flagged(ctx: click.Context, print_report: Printer, report: dict[str, Any],
                  flags: Sequence[Flag | None], as_json: bool, **options: Any) -> None:
    """The report with its ``warnings`` (always there in JSON, empty when none), or the
    text report and one ``warning:`` line per flag after it."""
    lang = current_settings(ctx).lang
    if as_json:
        print_report(ctx, {**report, "warnings": warnings(flags, lang)}, True, **options)
        return
    print_report(ctx, report, False, **options)
    echo_flags(ctx, flags)


def echo_flags(ctx: click.Context, flags: Sequence[Flag | None]) -> None:

    lang = current_settings(ctx).lang
    for flag in flags:
        if flag is not None:
            click.echo(t("flags.warning", lang, text=flag.text(lang)))


def context_flags(model: ModelInput, tokens: int) -> list[Flag | None]:
    return [past_context(model, tokens)]


def decode_flags(kw: dict[str, Any], model: ModelInput, device: DeviceInput) -> list[Flag | None]:
    """A context past the model's, more GPUs than the chip's scale-up domain, and a batch
    whose weights and KV cache the GPUs cannot hold."""
    domain = scale_up_domain(catalog.load_catalog(), kw["gpu_id"]) if kw.get("gpu_id") else None
    return [past_context(model, kw["context"]),
            past_scale_up(GPUS_PAST_SCALE_UP, kw["gpus"], device.label, domain),
            decode_does_not_fit(model, device, dtype=kw["dtype"], kv_dtype=kw["kv_dtype"],
                                batch=kw["batch"], context=kw["context"], gpus=kw["gpus"])]


def tp_flags(kw: dict[str, Any]) -> list[Flag | None]:
    """A tensor-parallel group larger than the chip's scale-up domain (with ``--gpu``)."""
    if not kw.get("gpu_id"):
        return []
    domain = scale_up_domain(catalog.load_catalog(), kw["gpu_id"])
    return [past_scale_up(TP_PAST_SCALE_UP, kw["tp"], kw["gpu_id"], domain)]
