"""``studyapp generate --audit``: the quality-gate table, for the built-ins or a deck."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import click

from studyapp import locations
from studyapp.cli import echo_json, fail
from studyapp.i18n import t


def run_audit(family: str | None, deck_paths: tuple[str, ...], options: Mapping[str, Any],
              as_json: bool, lang: str) -> None:
    """Audit FAMILY, the generated cards of ``deck_paths``, or every family and post deck.

    Exits 1 when a row fails, so an instructor can run it in CI on their own decks."""
    from studyapp.decks import DeckError
    from studyapp.decks.generated import deck_targets
    from studyapp.questions.generators import registered_families
    from studyapp.questions.generators.audit import (
        Target,
        audit,
        family_targets,
        pool_targets,
        table_lines,
    )
    from studyapp.questions.generators.options import OptionError, check_options

    table = registered_families()
    targets: list[Target]
    try:
        if deck_paths:
            targets = deck_targets(Path(p) for p in deck_paths)
        elif family:
            if family not in table:
                fail(f"unknown generator family {family!r} (see: studyapp generate --list)")
            try:
                check_options(table[family], options, lang)
            except OptionError as exc:
                fail(str(exc), code=2)
            targets = [Target(family, table[family], dict(options), None)]
            if not options:
                targets += pool_targets([family])
        else:
            posts = sorted((locations.builtin_decks_dir() / "posts").glob("*.yaml"))
            targets = family_targets() + deck_targets(posts) + pool_targets()
        rows = audit(targets)
    except DeckError as exc:
        fail(exc.render(lang))
    except (LookupError, ValueError, OSError) as exc:
        fail(str(exc))
    if as_json:
        echo_json([row.as_dict() for row in rows])
    else:
        click.echo(t("cli.audit.title", lang, draws=rows[0].draws if rows else 0))
        for line in table_lines(rows):
            click.echo(line)
        failed = sum(not row.ok for row in rows)
        click.echo(t("cli.audit.summary", lang, total=len(rows), failed=failed))
    if any(not row.ok for row in rows):
        click.get_current_context().exit(1)
