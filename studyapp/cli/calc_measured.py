"""``calc … --efficiency measured`` and the measured figure printed beside the theory.

The matching itself is pure (``studyapp.infra.measured``); this module reads the options,
refuses in one line what cannot be done, and prints the measurement in the user's
language.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import click

from studyapp import catalog
from studyapp.cli import current_settings, fail
from studyapp.i18n import t
from studyapp.infra.measured import CalcSetup, matching, measured_entry, setup_words
from studyapp.infra.measured_text import measured_lines

if TYPE_CHECKING:  # the schema needs pydantic, which --help never loads
    from studyapp.catalog.measurements import Measurement

F = TypeVar("F", bound=Callable[..., Any])


def measured_options(efficiency: bool = True) -> Callable[[F], F]:
    """--measurement ID and, where a default efficiency exists, --efficiency measured."""
    opts = [
        click.option("--measurement", "measurement_id", metavar="ID",
                     help="Which matching measurement to set beside the theory (default: "
                          "the best match; `studyapp catalog show CHIP` lists them)."),
    ]
    if efficiency:
        opts.insert(0, click.option(
            "--efficiency", type=click.Choice(["default", "measured"]), default="default",
            show_default=True,
            help="measured: the share of the datasheet figure a published measurement of "
                 "this setup reached, instead of the default efficiency."))

    def decorate(f: F) -> F:
        for opt in reversed(opts):
            f = opt(f)
        return f

    return decorate


def t_calc(ctx: click.Context, key: str, **fields: object) -> str:

    return t(key, current_settings(ctx).lang, **fields)


def chosen_measurement(ctx: click.Context, kw: dict[str, Any],
                       setup: CalcSetup) -> Measurement | None:
    """The measurement to set beside this calculation, or None.

    ``--measurement ID`` that does not match the setup, and ``--efficiency measured``
    with no match or a match without an efficiency, each end in one line."""
    found = matching(catalog.load_catalog().measurements, setup)
    wanted = kw.get("measurement_id")
    if wanted:
        named = [m for m in found if m.id == wanted]
        if not named:
            fail(t_calc(ctx, "calc.measured.not_this_setup", id=wanted, setup=setup_words(setup)))
        found = named
    chosen = found[0] if found else None
    if kw.get("efficiency") == "measured":
        if chosen is None:
            fail(t_calc(ctx, "calc.measured.none", setup=setup_words(setup)))
        if chosen.theory is None:
            fail(t_calc(ctx, "calc.measured.no_theory", id=chosen.id))
    return chosen


def measured_efficiency(kw: dict[str, Any], chosen: Measurement | None) -> float | None:
    """The share of its datasheet figure the chosen run reached, when asked for."""
    if kw.get("efficiency") != "measured" or chosen is None or chosen.theory is None:
        return None
    return chosen.value / chosen.theory


def explicit(ctx: click.Context, name: str) -> bool:
    """Whether the user typed option ``name`` (not its default)."""
    source = ctx.get_parameter_source(name)
    return source is not None and source.name == "COMMANDLINE"


def with_measured(report: dict[str, Any], chosen: Measurement | None,
                  efficiency: float | None) -> dict[str, Any]:
    """The report with ``measured`` (null when none matches) and, when the measured
    efficiency was used, ``efficiency_from`` (the measurement's id)."""
    out = {**report, "measured": measured_entry(chosen, report) if chosen else None}
    if efficiency is not None and chosen is not None:
        out["efficiency_from"] = chosen.id
    return out


def print_measured(ctx: click.Context, report: dict[str, Any]) -> None:
    """The measured figure, its source and the efficiency it implies, under the theory."""
    entry = report.get("measured")
    if not entry:
        return
    for line in measured_lines(entry, current_settings(ctx).lang,
                               used=bool(report.get("efficiency_from"))):
        click.echo(line)
