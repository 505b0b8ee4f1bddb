"""``studyapp class``: an instructor's view of every profile, or of exported files."""

from __future__ import annotations

import csv
import sys
from pathlib import Path
from typing import Any

import click

from studyapp.cli import (
    current_settings,
    echo_json,
    fail,
    make_service,
    pct,
)

ITEM_FIELDS = ["deck", "card", "post", "prompt", "students", "first_try_accuracy", "reviews",
               "accuracy", "wrong", "wrong_answers", "slips", "reteach"]


@click.group("class")
def class_group() -> None:
    """An instructor's view of a class."""


@class_group.command("report")
@click.argument("files", nargs=-1, type=click.Path(exists=True, dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option("--csv", "as_csv", is_flag=True,
              help="Print CSV: the student × post table, a blank line, then the item table "
                   "(one row per card).")
@click.option("--only", "only", multiple=True, metavar="PROFILE",
              help="Only this student (repeatable).")
@click.option("--exclude", "exclude", multiple=True, metavar="PROFILE",
              help="Leave this profile out, e.g. default or a test profile (repeatable).")
@click.option("--top", type=click.IntRange(min=1), default=20, show_default=True,
              help="How many hardest questions and overdue students to list.")
@click.pass_context
def class_report_cmd(ctx: click.Context, files: tuple[str, ...], as_json: bool, as_csv: bool,
                     only: tuple[str, ...], exclude: tuple[str, ...], top: int) -> None:
    """Every profile of the database (or the exported FILES): mastery, hardest questions."""
    # loaded when the command runs, so that --help stays fast
    from studyapp.classroom import ClassFilterError, class_report_for

    if as_json and as_csv:
        fail("choose one of --json and --csv")
    service = make_service(current_settings(ctx))
    try:
        report, posts = class_report_for(service, [Path(f) for f in files], top=top,
                                         only=only, exclude=exclude)
    except ClassFilterError as exc:
        fail(str(exc))
    finally:
        service.close()
    for name in report.not_excluded:  # nothing to leave out; a typo shows here
        click.echo(f"studyapp: note: no profile named {name!r} to exclude", err=True)
    if as_json:
        echo_json(report.as_json())
        return
    if as_csv:
        from studyapp.text import csv_cell

        rows = [{key: csv_cell(value) for key, value in row.items()} for row in report.csv_rows()]
        writer = csv.DictWriter(sys.stdout, fieldnames=["student", "post", "mastery", "reviews",
                                                        "accuracy", "cards_seen", "overdue",
                                                        "deck"])
        writer.writeheader()
        writer.writerows(rows)
        items = [{key: csv_cell(value) for key, value in row.items()}
                 for row in report.item_rows()]
        sys.stdout.write("\n")
        item_writer = csv.DictWriter(sys.stdout, fieldnames=ITEM_FIELDS)
        item_writer.writeheader()
        item_writer.writerows(items)
        return
    _print_class(report, list(posts))


def _print_class(report: Any, posts: list[str]) -> None:
    """The report as tables that fit the terminal (80 columns and up).

    One line per student for the totals; mastery turned round, a row per post
    and a column per student, in as many blocks as the width needs, so no
    figure or name is cut to "…".
    """
    # loaded when the command runs, so that --help stays fast
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from studyapp.classroom import NAME_WIDTH, student_blocks
    from studyapp.text import visible

    console = Console(highlight=False)
    students = Table(show_edge=False)
    students.add_column("student", overflow="fold")
    for column in ("reviews", "accuracy", "overdue", "cards seen"):
        students.add_column(column, justify="right", no_wrap=True)
    for s in report.students:
        students.add_row(Text(visible(s.name)), str(s.reviews), pct(s.accuracy),
                         str(s.overdue), str(s.cards_seen))
    console.print(Text("\nStudents", style="bold"))
    console.print(students)
    for block in student_blocks(report.students, console.width,
                                max((len(p) for p in posts), default=4), gap=3):
        mastery = Table(show_edge=False)
        mastery.add_column("post", no_wrap=True)
        for s in block:
            mastery.add_column(Text(visible(s.name)[:NAME_WIDTH]), justify="right",
                               no_wrap=True)
        for post in posts:
            mastery.add_row(post, *(pct(dict(s.mastery).get(post, 0.0)) for s in block))
        console.print(Text("\nMastery per post (cards mastered)", style="bold"))
        console.print(mastery)
    _print_deck_mastery(console, report)
    hardest = Table(show_edge=False)
    hardest.add_column("question", overflow="fold")
    hardest.add_column("post", overflow="fold")
    for column in ("students", "first try"):
        hardest.add_column(column, justify="right", no_wrap=True)
    for q in report.hardest:
        hardest.add_row(Text(visible(f"{q.deck_id}/{q.card_key}")), Text(visible(q.post or "—")),
                        str(q.students), pct(q.first_try_accuracy))
    console.print(Text("\nHardest questions (first-try accuracy)", style="bold"))
    console.print(hardest)
    _print_items(console, report)
    overdue = Table(show_edge=False)
    overdue.add_column("student", overflow="fold")
    overdue.add_column("overdue cards", justify="right", no_wrap=True)
    for s in report.most_overdue:
        overdue.add_row(Text(visible(s.name)), str(s.overdue))
    console.print(Text("\nStudents with the most overdue cards", style="bold"))
    if report.most_overdue:
        console.print(overdue)
    else:
        console.print("none: no student has a review card a day or more past due")


def _print_deck_mastery(console: Any, report: Any) -> None:
    """Mastery per deck (course, installed and published decks), a row per deck."""
    from rich.table import Table
    from rich.text import Text

    from studyapp.classroom import NAME_WIDTH, student_blocks
    from studyapp.text import visible

    deck_ids = list(dict.fromkeys(d for s in report.students for d, _ in s.decks))
    if not deck_ids:
        return
    width = max(len(d) for d in deck_ids)
    for block in student_blocks(report.students, console.width, width, gap=3):
        table = Table(show_edge=False)
        table.add_column("deck", no_wrap=True)
        for s in block:
            table.add_column(Text(visible(s.name)[:NAME_WIDTH]), justify="right", no_wrap=True)
        for deck in deck_ids:
            table.add_row(Text(visible(deck)), *(
                pct(dict(s.decks)[deck]) if deck in dict(s.decks) else "—" for s in block))
        console.print(Text("\nMastery per deck (cards mastered)", style="bold"))
        console.print(table)


def _print_items(console: Any, report: Any) -> None:
    """The reteach list (prompt text) and, per card, the common wrong answers and slips."""
    from rich.table import Table
    from rich.text import Text

    from studyapp.text import visible

    console.print(Text("\nReteach (most of the class wrong the first time)", style="bold"))
    if not report.reteach:
        console.print("nothing: every card answered was right the first time for most")
    for item in report.reteach:
        console.print(Text(visible(f"- {item.deck_id}/{item.card_key} "
                                   f"({pct(item.first_try_accuracy)} first try, "
                                   f"{item.students} students): {item.prompt}")))
    table = Table(show_edge=False)
    # a card's id kept on one line where it can be (folding "h200-memory" reads badly)
    longest = max((len(f"{i.deck_id}/{i.card_key}") for i in report.items if i.wrong),
                  default=8)
    table.add_column("question", overflow="fold",
                     min_width=min(longest, 30, max(8, console.width - 50)))
    table.add_column("first try", justify="right", no_wrap=True)
    table.add_column("common wrong answers", overflow="fold")
    table.add_column("slips", overflow="fold")
    for item in report.items:
        if not item.wrong:
            continue
        answers = ", ".join(f"{a} ({pct(item.share(n))})" for a, n in item.answers)
        slips = ", ".join(f"{name} ({pct(item.share(n))})" for name, n in item.slips)
        table.add_row(Text(visible(f"{item.deck_id}/{item.card_key}")),
                      pct(item.first_try_accuracy), Text(visible(answers)), Text(visible(slips)))
    console.print(Text("\nWrong answers per question (share of its wrong answers)",
                       style="bold"))
    console.print(table)
