"""``studyapp class``: an instructor's view of every profile, or of exported files."""

from __future__ import annotations

import csv
import sys
from pathlib import Path
from typing import Any

import click

from studyapp.cli import current_settings, echo_json, fail, make_service, pct, user_errors


@click.group("class")
def class_group() -> None:
    """An instructor's view of a class."""


@class_group.command("report")
@click.argument("files", nargs=-1, type=click.Path(exists=True, dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option("--csv", "as_csv", is_flag=True, help="Print CSV (student, post, mastery…).")
@click.option("--top", type=click.IntRange(min=1), default=20, show_default=True,
              help="How many hardest questions and overdue students to list.")
@click.pass_context
def class_report_cmd(ctx: click.Context, files: tuple[str, ...], as_json: bool, as_csv: bool,
                     top: int) -> None:
    """Every profile of the database (or the exported FILES): mastery, hardest questions."""
    # loaded when the command runs, so that --help stays fast
    from studyapp.classroom import class_report_for

    if as_json and as_csv:
        fail("choose one of --json and --csv")
    service = make_service(current_settings(ctx))
    try:
        report, posts = class_report_for(service, [Path(f) for f in files], top=top)
    except user_errors() as exc:
        fail(str(exc))
    finally:
        service.close()
    if as_json:
        echo_json(report.as_json())
        return
    if as_csv:
        from studyapp.decks.text import csv_cell

        rows = [{key: csv_cell(value) for key, value in row.items()} for row in report.csv_rows()]
        writer = csv.DictWriter(sys.stdout, fieldnames=["student", "post", "mastery", "reviews",
                                                        "accuracy", "cards_seen", "overdue"])
        writer.writeheader()
        writer.writerows(rows)
        return
    _print_class(report, list(posts))


def _print_class(report: Any, posts: list[str]) -> None:
    # loaded when the command runs, so that --help stays fast
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from studyapp.decks.text import visible

    console = Console(highlight=False)
    table = Table(title="Mastery per student and post", show_edge=False)
    table.add_column("student")
    for column in ("reviews", "accuracy", "overdue"):
        table.add_column(column, justify="right")
    for post in posts:
        table.add_column(post[:8], justify="right")
    for s in report.students:
        mastery = dict(s.mastery)
        table.add_row(Text(visible(s.name)), str(s.reviews), pct(s.accuracy), str(s.overdue),
                      *(pct(mastery.get(post, 0.0)) for post in posts))
    console.print(table)
    hardest = Table(title="Hardest questions (first-try accuracy)", show_edge=False)
    for column in ("question", "post", "students", "first try"):
        hardest.add_column(column)
    for q in report.hardest:
        hardest.add_row(Text(visible(f"{q.deck_id}/{q.card_key}")), Text(visible(q.post)),
                        str(q.students),
                        pct(q.first_try_accuracy))
    console.print(hardest)
    overdue = Table(title="Most overdue cards", show_edge=False)
    overdue.add_column("student")
    overdue.add_column("overdue", justify="right")
    for s in report.most_overdue:
        overdue.add_row(Text(visible(s.name)), str(s.overdue))
    console.print(overdue)
