"""``studyapp catalog``: check a catalog file (a learner's own, or an edit of the shipped one)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from studyapp import locations
from studyapp.cli import current_settings, echo_json
from studyapp.i18n import t
from studyapp.numbers import format_figure, format_number
from studyapp.text import one_line

if TYPE_CHECKING:
    from studyapp.catalog import Catalog


@click.group()
def catalog() -> None:
    """The hardware and model catalog: validate a catalog file, show where yours goes."""


def _companions(path: Path) -> list[Path]:
    """The files ``path`` is read with: its sibling for a shipped file, else the shipped two.

    A learner's catalog adds to the shipped one, so its ids must not clash with it and its
    systems may name shipped chips; hardware.yaml and models.yaml are read as a pair.
    """
    from studyapp.catalog.loader import SHIPPED_FILES

    if path.name in SHIPPED_FILES:
        return [path.parent / n for n in SHIPPED_FILES
                if n != path.name and (path.parent / n).exists()]
    return [locations.content_dir() / n for n in SHIPPED_FILES]


@catalog.command("validate")
@click.argument("file", type=click.Path(path_type=Path))
@click.pass_context
def catalog_validate(ctx: click.Context, file: Path) -> None:
    """Report every problem in a catalog file as file:line:col: message (exit 1 if any).

    A catalog file has the shipped files' schema: accelerators, interconnects, systems,
    models (and posts, pools). Save yours as catalog.yaml in the user data folder
    (`studyapp catalog path`) and calc and the question generators use its entries.
    """
    # loaded when the command runs, so that --help stays fast
    from studyapp.catalog.loader import check_files as load_files
    from studyapp.decks.catalog_check import catalog_message, check_files

    lang = current_settings(ctx).lang
    companions = [p for p in _companions(file) if p.resolve() != file.resolve()]
    problems = check_files([*companions, file])
    for problem in problems:
        click.echo(problem.render(lang))
    if problems:
        sys.exit(1)
    loaded, _ = load_files([file])
    data = loaded[0][1]
    click.echo(catalog_message(
        "valid", path=str(file), accelerators=len(data.accelerators),
        interconnects=len(data.interconnects), systems=len(data.systems),
        models=len(data.models), measurements=len(data.measurements)).render(lang))


@catalog.command("path")
def catalog_path() -> None:
    """Print where a learner's own catalog file goes (it need not exist)."""
    from studyapp.catalog import user_catalog_path

    click.echo(str(user_catalog_path()))


@catalog.command("schema")
def catalog_schema() -> None:
    """Print the catalog file's JSON Schema (for editor completion of catalog.yaml)."""
    from studyapp.catalog.models import CatalogFile

    echo_json(CatalogFile.model_json_schema())


KIND_OF_TABLE = {"accelerators": "accelerator", "interconnects": "interconnect",
                 "systems": "system", "models": "model"}


@catalog.command("list")
@click.option("--kind", type=click.Choice(list(KIND_OF_TABLE.values())), default=None,
              help="Only entries of this kind.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def catalog_list(ctx: click.Context, kind: str | None, as_json: bool) -> None:
    """List the catalog's ids by kind (the shipped catalog and your catalog.yaml)."""
    from studyapp.catalog import load_catalog

    shown = load_catalog()
    tables = {name: getattr(shown, name) for name, k in KIND_OF_TABLE.items()
              if kind in (None, k)}
    if as_json:
        echo_json({name: [{"id": e.id, "name": e.name} for e in table]
                   for name, table in tables.items()})
        return
    lang = current_settings(ctx).lang
    for name, table in tables.items():
        click.echo(t("catalog.list.heading", lang, kind=t(f"catalog.kind.{KIND_OF_TABLE[name]}",
                                                             lang), count=len(table)))
        width = max((len(e.id) for e in table), default=0)
        for entry in table:
            click.echo(f"  {entry.id:<{width}}  {one_line(entry.name)}")


@catalog.command("show")
@click.argument("entry_id", metavar="ID")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def catalog_show(ctx: click.Context, entry_id: str, as_json: bool) -> None:
    """Show one entry's figures with their sources, and how its memory is read."""
    from studyapp.catalog import load_catalog
    from studyapp.catalog.errors import UnknownIdError

    shown = load_catalog()
    found = [(kind, getattr(shown, name)[entry_id]) for name, kind in KIND_OF_TABLE.items()
             if entry_id in getattr(shown, name)]
    if not found:
        known = [i for name in KIND_OF_TABLE for i in getattr(shown, name).ids()]
        raise UnknownIdError("catalog entry", entry_id, known)
    kind, entry = found[0]
    figures = entry.model_dump(mode="json", exclude={"id", "name", "sources", "note", "status"},
                               exclude_none=True)
    status = {key: entry.figure_status(key) for key, value in figures.items()
              if _is_figure(value)}
    memory = _memory_reading(entry)
    measured = _measurements(shown, entry.id)
    if as_json:
        echo_json({"id": entry.id, "kind": kind, "name": entry.name, "figures": figures,
                   "status": status, **({"memory": memory} if memory else {}),
                   "note": entry.note, "sources": [str(url) for url in entry.sources],
                   "measurements": measured})
        return
    _print_entry(current_settings(ctx).lang, kind, entry.name, entry.id, figures, status,
                 memory, entry.note, [str(url) for url in entry.sources])
    _print_measurements(current_settings(ctx).lang, measured)


def _memory_reading(entry: object) -> dict[str, object] | None:
    """How a chip's capacity is read: the figure every fit uses, in bytes and its basis."""
    from studyapp.catalog.models import Accelerator
    from studyapp.cli.calc_inputs import memory_basis

    if not isinstance(entry, Accelerator):
        return None
    return {"bytes": entry.memory_bytes, "gb": entry.memory_bytes / 1e9,
            "basis": memory_basis(entry),
            "driver_mib": entry.driver_memory_mib}


def _print_entry(lang: str, kind: str, name: str, entry_id: str, figures: dict[str, object],
                 status: dict[str, str], memory: dict[str, object] | None, note: str | None,
                 sources: list[str]) -> None:
    """An entry as a reader scans it: name, figures one a line with their status (published,
    measured, announced, estimated), memory basis, note, sources."""

    click.echo(f"{one_line(name)} ({t(f'catalog.kind.{kind}', lang)} {entry_id})")
    width = max((len(key) for key in figures), default=0)
    for key, value in figures.items():
        shown = (", ".join(f"{k}: {_plain(v)}" for k, v in value.items())
                 if isinstance(value, dict) else
                 ", ".join(map(_plain, value)) if isinstance(value, list) else _plain(value))
        label = f"  ({t(f'catalog.status.{status[key]}', lang)})" if key in status else ""
        click.echo(f"  {key:<{width}}  {one_line(shown)}{label}")
    if memory is not None:
        gb = memory["gb"]
        assert isinstance(gb, float)
        click.echo(t(f"catalog.show.memory.{memory['basis']}", lang,  # 288.4, not 288
                     gb=format_number(gb, lang, 4), mib=memory["driver_mib"]))
    if note:
        click.echo(t("catalog.show.note", lang, note=one_line(note)))
    click.echo(t("catalog.show.sources", lang))
    for url in sources:
        click.echo(f"  {one_line(url)}")


def _is_figure(value: object) -> bool:
    """A number, or numbers by precision: what has a status (published, measured...)."""
    if isinstance(value, dict):
        return bool(value) and all(_is_figure(v) for v in value.values())
    return isinstance(value, int | float) and not isinstance(value, bool)


def _measurements(shown: Catalog, entry_id: str) -> list[dict[str, object]]:
    """The published measurements of a chip or system, each beside the datasheet figure
    it is read against (``efficiency``: measured ÷ theory)."""
    return [{"id": m.id, "name": m.name, "kind": m.kind, "value": m.value, "unit": m.unit,
             "theory": m.theory, "efficiency": m.efficiency, "chips": m.chips,
             "nodes": m.nodes, "setup": dict(m.setup), "date": m.date.isoformat(),
             "gap": m.gap, "stated_by": m.stated_by,
             "sources": [str(url) for url in m.sources]}
            for m in shown.measured(entry_id)]


def _print_measurements(lang: str, measured: list[dict[str, object]]) -> None:
    """One line a measurement: value, share of the datasheet, setup, date and source."""

    if not measured:
        return
    click.echo(t("catalog.show.measurements", lang))
    for m in measured:
        value, theory, efficiency = m["value"], m["theory"], m["efficiency"]
        assert isinstance(value, float)
        share = ""
        if isinstance(theory, float) and isinstance(efficiency, float):
            share = t("catalog.show.measured.share", lang,
                      pct=format_figure(efficiency * 100, lang),
                      theory=format_figure(theory, lang), unit=m["unit"])
        setup = m["setup"]
        assert isinstance(setup, dict) and isinstance(m["sources"], list)
        scale = (t("catalog.show.measured.chip", lang) if m["chips"] == 1 else
                 t("catalog.show.measured.chips", lang, chips=m["chips"]))
        if m["nodes"] != 1:
            scale += t("catalog.show.measured.nodes", lang, nodes=m["nodes"])
        details = ", ".join([scale, *(f"{k}={_plain(v)}" for k, v in list(setup.items())[:4])])
        click.echo(t("catalog.show.measured", lang, value=format_figure(value, lang),
                     unit=m["unit"], share=share, kind=m["kind"], setup=one_line(details),
                     date=m["date"], source=one_line(str(m["sources"][0]))))


def _plain(value: object) -> str:
    """A figure as the catalog file holds it: 288, not 288.0; 3.35 as it is."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)
