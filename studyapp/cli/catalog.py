"""``studyapp catalog``: check a catalog file (a learner's own, or an edit of the shipped one)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from studyapp.cli import current_settings, echo_json


@click.group()
def catalog() -> None:
    """The hardware and model catalog: validate a catalog file, show where yours goes."""


def _companions(path: Path) -> list[Path]:
    """The files ``path`` is read with: its sibling for a shipped file, else the shipped two.

    A learner's catalog adds to the shipped one, so its ids must not clash with it and its
    systems may name shipped chips; hardware.yaml and models.yaml are read as a pair.
    """
    from studyapp import locations
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
        models=len(data.models)).render(lang))


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
