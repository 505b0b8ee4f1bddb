"""``studyapp class``: an instructor's view of every profile, or of exported files."""

from __future__ import annotations

import csv
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from studyapp.cli import (
    current_settings,
    echo_json,
    fail,
    make_service,
    pct,
)
from studyapp.i18n import t
from studyapp.text import csv_cell, visible

if TYPE_CHECKING:
    from rich.text import Text

ITEM_FIELDS = ["flags", "deck", "card", "post", "prompt", "students", "first_try_accuracy",
               "reviews", "accuracy", "wrong", "wrong_answers", "slips", "reteach", "facility",
               "sd", "discrimination_index", "discriminative_efficiency", "facility_all",
               "discrimination_index_all", "overrides", "carried", "mean_time_s"]


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
    settings = current_settings(ctx)
    lang = settings.lang
    service = make_service(settings)
    try:
        report, posts = class_report_for(service, [Path(f) for f in files], top=top,
                                         only=only, exclude=exclude)
    except ClassFilterError as exc:
        fail(t("class.no_profile", lang, name=repr(exc.name),
               profiles=", ".join(exc.known) or "—"))
    finally:
        service.close()
    for name in report.not_excluded:  # nothing to leave out; a typo shows here
        click.echo("studyapp: " + t("class.not_excluded", lang, name=repr(name)), err=True)
    if as_json:
        echo_json(report.as_json(lang))
        return
    if as_csv:
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
    _print_class(report, list(posts), lang)


def _print_class(report: Any, posts: list[str], lang: str) -> None:
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

    def tr(key: str, **fields: object) -> str:
        return t(f"class.{key}", lang, **fields)

    def heading(key: str) -> Text:
        return _heading(tr(key))

    console = Console(highlight=False)
    students = Table(show_edge=False)
    # a name up to NAME_WIDTH characters stays on one line; a longer one folds
    students.add_column(tr("col.student"), overflow="fold", min_width=min(
        max((len(visible(s.name)) for s in report.students), default=0), NAME_WIDTH))
    for column in ("reviews", "accuracy", "overdue", "cards_seen", "last_active",
                   "study_days"):
        students.add_column(tr(f"col.{column}"), justify="right", no_wrap=True)
    for s in report.students:
        away = "—" if s.away_days is None else tr("days_ago", n=s.away_days)
        students.add_row(Text(visible(s.name) + (" " + tr("absent") if s.absent else "")),
                         str(s.reviews), pct(s.accuracy), str(s.overdue), str(s.cards_seen),
                         away, f"{s.study_days}/7")
    console.print(heading("students"))
    console.print(students)
    # a course-deck class that studies no post: no empty per-post grid, its decks' below
    for block in student_blocks(report.students if posts else [], console.width,
                                max((len(p) for p in posts), default=4), gap=3):
        mastery = Table(show_edge=False)
        mastery.add_column(tr("col.post"), no_wrap=True)
        for s in block:
            mastery.add_column(Text(visible(s.name)[:NAME_WIDTH]), justify="right",
                               no_wrap=True)
        for post in posts:
            mastery.add_row(post, *(pct(dict(s.mastery).get(post, 0.0)) for s in block))
        console.print(heading("mastery_post"))
        console.print(mastery)
    _print_deck_mastery(console, report, tr)
    hardest = Table(show_edge=False)
    hardest.add_column(tr("col.question"), overflow="fold")
    hardest.add_column(tr("col.post"), no_wrap=True)  # a slug, 19 characters at most:
    # the card's id gets the rest of the line, so "decode-bound" is not cut in two
    for column in ("students", "first_try"):
        hardest.add_column(tr(f"col.{column}"), justify="right", no_wrap=True)
    for q in report.hardest:
        hardest.add_row(Text(visible(f"{q.deck_id}/{q.card_key}")), Text(visible(q.post or "—")),
                        str(q.students), pct(q.first_try_accuracy))
    console.print(heading("hardest"))
    console.print(hardest)
    _print_items(console, report, tr)
    _print_misconceptions(console, report, tr, lang)
    overdue = Table(show_edge=False)
    overdue.add_column(tr("col.student"), overflow="fold")
    overdue.add_column(tr("col.overdue_cards"), justify="right", no_wrap=True)
    for s in report.most_overdue:
        overdue.add_row(Text(visible(s.name)), str(s.overdue))
    console.print(heading("most_overdue"))
    if report.most_overdue:
        console.print(overdue)
    else:
        console.print(Text(tr("none_overdue")))


def _print_deck_mastery(console: Any, report: Any, tr: Any) -> None:
    """Mastery per deck (course, installed and published decks), a row per deck."""
    from rich.table import Table
    from rich.text import Text

    from studyapp.classroom import NAME_WIDTH, student_blocks

    deck_ids = list(dict.fromkeys(d for s in report.students for d, _ in s.decks))
    if not deck_ids:
        return
    width = max(len(d) for d in deck_ids)
    for block in student_blocks(report.students, console.width, width, gap=3):
        table = Table(show_edge=False)
        table.add_column(tr("col.deck"), no_wrap=True)
        for s in block:
            table.add_column(Text(visible(s.name)[:NAME_WIDTH]), justify="right", no_wrap=True)
        for deck in deck_ids:
            table.add_row(Text(visible(deck)), *(
                pct(dict(s.decks)[deck]) if deck in dict(s.decks) else "—" for s in block))
        console.print(_heading(tr("mastery_deck")))
        console.print(table)


def _print_items(console: Any, report: Any, tr: Any) -> None:
    """The reteach list (prompt text) and, per card, the common wrong answers and slips."""
    from rich.table import Table
    from rich.text import Text

    from studyapp.classroom.item_stats import THRESHOLDS

    console.print(_heading(tr("check_key")))
    if not report.check_key:
        console.print(Text(tr("check_key_none")))
    for item in report.check_key:
        d = item.first.discrimination_index if item.first else None
        r = item.first.discrimination_r if item.first else None
        console.print(Text(visible(tr(
            "check_key_line", card=f"{item.deck_id}/{item.card_key}",
            first_try=pct(item.first_try_accuracy), students=item.students,
            discrimination="—" if d is None else f"{d:+.2f}",
            coefficient="—" if r is None else f"{r:+.2f}", overrides=item.overrides,
            prompt=item.prompt))))
    console.print(_heading(tr("reteach")))
    if not report.reteach:
        console.print(Text(tr("reteach_none")))
    for item in report.reteach:
        console.print(Text(visible(tr("reteach_line", card=f"{item.deck_id}/{item.card_key}",
                                      first_try=pct(item.first_try_accuracy),
                                      students=item.students, prompt=item.prompt))))
    table = Table(show_edge=False)
    question_width, answers_width, slips_width = _item_widths(
        console.width, max((len(f"{i.deck_id}/{i.card_key}") for i in report.items if i.wrong),
                           default=8), len(tr("col.first_try")))
    table.add_column(tr("col.question"), overflow="fold", width=question_width)
    table.add_column(tr("col.first_try"), justify="right", no_wrap=True)
    table.add_column(tr("col.wrong_answers"), overflow="fold", width=answers_width)
    table.add_column(tr("col.slips"), overflow="fold", width=slips_width)
    for item in report.items:
        if not item.lists_wrong_answers:
            continue
        answers = ", ".join(f"{a} ({pct(item.share(n))})" for a, n in item.answers)
        slips = ", ".join(f"{name} ({pct(item.share(n))})" for name, n in item.slips)
        flagged = "".join(f"\n[{tr('flag_' + f.replace(' ', '_'))}]" for f in item.flags)
        if item.carried:  # right from the student's own wrong step: no slip, not wrong
            slips += ("\n" if slips else "") + tr("carried_note", n=item.carried)
        table.add_row(Text(visible(f"{item.deck_id}/{item.card_key}") + flagged),
                      pct(item.first_try_accuracy), Text(visible(answers)), Text(visible(slips)))
    console.print(_heading(tr("wrong")))
    console.print(table)
    console.print(Text(tr("thresholds", low=pct(THRESHOLDS["low_facility"]),
                          d=f"{THRESHOLDS['low_discrimination']:.2f}",
                          group=pct(THRESHOLDS["group_share"]),
                          overrides=pct(THRESHOLDS["many_overrides"]),
                          easy=pct(THRESHOLDS["too_easy"]))))


MISCONCEPTIONS_SHOWN = 10


def _print_misconceptions(console: Any, report: Any, tr: Any, lang: str) -> None:
    """The class's most held misconceptions: what to teach the whole class again."""
    from rich.table import Table
    from rich.text import Text

    console.print(_heading(tr("misconceptions")))
    if not report.misconceptions:
        console.print(Text(tr("misconceptions_none")))
        return
    table = Table(show_edge=False)
    table.add_column(tr("col.misconception"), overflow="fold")
    table.add_column(tr("col.students"), justify="right", no_wrap=True)
    table.add_column(tr("col.slips"), justify="right", no_wrap=True)
    for m in report.misconceptions[:MISCONCEPTIONS_SHOWN]:
        table.add_row(Text(visible(m.name(lang))), str(m.students), str(m.slips))
    console.print(table)
    console.print(Text(tr("misconceptions_held")))


def _item_widths(width: int, longest_id: int, first_try: int) -> tuple[int, int, int]:
    """Widths of the question, wrong-answers and slips columns of the item table.

    Set here rather than left to Rich, which crops the last column when a
    column has a minimum width: a card's id stays on one line where the
    terminal allows (folding "h200-memory" reads badly), the rest is shared
    by the answers and the slips.
    """
    overhead = 4 * 2 + 3  # a space each side of four cells, three rules between them
    free = max(width - overhead - first_try, 24)
    question = max(min(longest_id, 30, free - 2 * 12), 8)
    rest = max(free - question, 16)
    answers = rest * 11 // 20
    return question, answers, rest - answers


def _heading(title: str) -> Text:
    """A section's title, bold, after a blank line."""
    from rich.text import Text

    return Text("\n" + title, style="bold")



@class_group.command("regrade")
@click.argument("deck_id", metavar="DECK")
@click.pass_context
def class_regrade_cmd(ctx: click.Context, deck_id: str) -> None:
    """Grade the class's stored answers to DECK again against its current keys."""
    from studyapp.classroom.regrade import regrade_deck
    from studyapp.study.roles import check_report_allowed

    settings = current_settings(ctx)
    lang = settings.lang
    service = make_service(settings)
    try:
        check_report_allowed(service.store)
        deck = next((d for d in service.decks if d.id == deck_id), None)
        if deck is None:
            fail(t("class.regrade_unknown", lang, deck=repr(deck_id),
                   decks=", ".join(sorted(d.id for d in service.decks)) or "—"))
        done = regrade_deck(service.store, deck)
    finally:
        service.close()
    click.echo(t("class.regrade_done", lang, deck=deck_id, checked=done.checked,
                 changed=done.changed, right=done.now_right, wrong=done.now_wrong))


def _role_commands() -> None:
    """``class setup``, ``add-student`` and ``add-instructor`` live in ``class_roles``."""
    from studyapp.cli.class_roles import class_add_instructor, class_add_student, class_setup

    for command in (class_setup, class_add_student, class_add_instructor):
        class_group.add_command(command)


_role_commands()
