"""``studyapp stats``, ``export``, ``import`` and ``backup``: one profile's progress."""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Literal

import click

from studyapp.cli import (
    current_settings,
    echo_json,
    fail,
    make_service,
    pct,
)
from studyapp.cli.interrupts import ending_signals_interrupt
from studyapp.config import backup_path
from studyapp.i18n import strings, t
from studyapp.text import visible


def _duration(ms: int) -> str:
    minutes = ms // 60000
    return f"{minutes // 60} h {minutes % 60:02d} min" if minutes >= 60 else f"{minutes} min"


def _comes_back(data: Any, lang: str) -> str:
    """The words home, the progress screen and a session's summary use."""

    from studyapp.study import ComingBack, coming_back_text

    if data.comes_back_next_s is None:
        return "—"
    now = data.generated_at
    coming = ComingBack(data.comes_back_within_hour,
                        now + timedelta(seconds=data.comes_back_next_s), now)
    return coming_back_text(coming, lang) or "—"


CARD_TEXT_WIDTH = 40
"""A weak card's prompt is cut here, so its table fits 80 columns."""


def _print_stats(data: Any, lang: str) -> None:
    """Rich tables for a terminal; every text from decks or posts is escaped."""
    # loaded when the command runs, so that --help stays fast
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from studyapp.progress import AUTHORED, MASTERY_DEFINITION

    label = {k[len("stats."):]: v for k, v in strings(lang).items() if k.startswith("stats.")}
    console = Console(highlight=False)
    retention = (f"{pct(data.retention_30d)} ({label['young']} {pct(data.retention_young)}, "
                 f"{label['mature']} {pct(data.retention_mature)}; "
                 f"{label['desired']} {pct(data.desired_retention)})")

    summary = Table.grid(padding=(0, 2))
    for key, value in [
        ("profile", data.profile), ("reviews", str(data.reviews_total)),
        ("accuracy", pct(data.accuracy)), ("seen", str(data.cards_seen)),
        ("due_today", str(data.due_today)), ("retention", retention),
        ("streak", label["streak_one"] if data.streak_days == 1
         else label["streak_many"].format(n=data.streak_days)),
        ("today", f"{data.reviews_today} · {_duration(data.time_today_ms)}"),
        ("comes_back", _comes_back(data, lang)),
        ("total", _duration(data.time_total_ms)),
    ]:
        summary.add_row(Text(label[key], style="bold"), Text(visible(value)))
    console.print(summary)
    table = Table(title=None, show_edge=False)
    table.add_column(label["post"])
    for key in ("new", "learning", "review", "due", "mastery", "accuracy"):
        table.add_column(label[key], justify="right")
    for p in data.posts:
        table.add_row(Text(visible(p.title)), str(p.new), str(p.learning), str(p.review),
                      str(p.due), pct(p.mastery), pct(p.accuracy))
    console.print(table)
    console.print(Text(t("tui.stats.mastery_means", lang,
                         days=round(MASTERY_DEFINITION["stability_days_at_least"]))))
    if data.families:
        families = Table(title=None, show_edge=False)
        families.add_column(t("tui.stats.col.family", lang))
        for key in ("seen", "mastered", "mastery"):
            families.add_column(t(f"tui.stats.col.{key}", lang), justify="right")
        for f in data.families:
            name = t("tui.stats.family_authored", lang) if f.family == AUTHORED else f.family
            families.add_row(Text(visible(name)), str(f.seen), str(f.mastered), pct(f.mastery))
        console.print(Text(t("tui.stats.families", lang), style="bold"))
        console.print(families)
    _print_misconceptions(console, data, lang)
    _print_exams(console, data, lang)
    own = [d for d in data.decks if d.kind != "post"]  # a post deck is its post's line
    if own:  # mastery per deck too: a course deck's cards may span several posts
        decks = Table(title=None, show_edge=False)
        decks.add_column(label["deck"])
        for key in ("cards", "mastery"):
            decks.add_column(label[key], justify="right")
        for d in own:
            decks.add_row(Text(visible(d.title)), str(d.total), pct(d.mastery))
        console.print(decks)
    from studyapp.progress import calendar_lines, forecast_lines, options_lines

    weekdays = t("tui.stats.weekdays", lang).split(",")
    full_weekdays = t("stats.weekdays_short", lang).split(",")
    months = t("tui.stats.months", lang).split(",")
    if any(n for _, n in data.reviews_per_day):
        console.print(Text(label["calendar"], style="bold"))
        for line in calendar_lines(data.reviews_per_day, weekdays, months):
            console.print(Text(line), soft_wrap=True)
    console.print(Text(label["forecast"], style="bold"))
    for line in forecast_lines(data.due_forecast, full_weekdays):
        console.print(Text(line), soft_wrap=True)
    if data.deck_options:
        console.print(Text(label["deck_options"], style="bold"))
        for line in options_lines(data.deck_options, lang):
            console.print(Text(line), soft_wrap=True)
    for title, cards in (("weakest", data.weakest), ("leeches", data.leeches)):
        console.print(Text(label[title], style="bold"))
        if not cards:
            console.print(Text(label["none"]))
            continue
        cards_table = Table(show_edge=False)
        for key in ("card", "lapses", "accuracy", "stability"):
            cards_table.add_column(label[key], no_wrap=True, overflow="ellipsis",
                                   max_width=CARD_TEXT_WIDTH if key == "card" else None)
        for c in cards:
            stability = "—" if c.stability is None else f"{c.stability:.1f} d"
            shown = " ".join(c.prompt.split()) if c.prompt else f"{c.deck_id}/{c.card_key}"
            cards_table.add_row(Text(visible(shown)), str(c.lapses), pct(c.accuracy),
                                stability)
        console.print(cards_table)


EXAMS_SHOWN = 5


def _print_exams(console: Any, data: Any, lang: str) -> None:
    """The last mock exams handed in (``studyapp exam``), newest first."""
    from rich.text import Text

    from studyapp.study.exam_log import exam_fields

    if not data.exams:
        return
    console.print(Text(t("stats.exams", lang), style="bold"))
    for entry in data.exams[:EXAMS_SHOWN]:
        console.print(Text(visible(t("stats.exam_line", lang, **exam_fields(entry, lang)))))


def _print_misconceptions(console: Any, data: Any, lang: str) -> None:
    """The misconceptions the learner holds (and those fading), each with how to drill it."""
    from rich.table import Table
    from rich.text import Text

    from studyapp.questions.misconceptions import misconception_of

    shown = [m for m in data.misconceptions if m.held or m.faded]
    if not shown:
        return
    console.print(Text(t("stats.misconceptions", lang), style="bold"))
    table = Table(show_edge=False)
    for key in ("misconception", "slips", "last_seen", "trend"):
        table.add_column(t(f"stats.misconception.col.{key}", lang))
    for m in shown:
        state = t("stats.misconception.faded" if m.faded else f"stats.trend.{m.trend}", lang)
        last = m.last_seen.astimezone().date().isoformat() if m.last_seen else "—"
        table.add_row(Text(misconception_of(m.key).name(lang)),
                      t("stats.misconception.slips", lang, slips=m.slips, cards=m.slip_cards),
                      last, state)
    console.print(table)
    held = [m for m in shown if m.held]
    if held:
        console.print(Text(t("stats.misconception.drill", lang, key=held[0].key)))


def _print_card(detail: Any, lang: str) -> None:
    # loaded when the command runs, so that --help stays fast
    from rich.console import Console
    from rich.text import Text

    from studyapp.study.phrases import logged_choice, logged_parts

    console = Console(highlight=False)
    card = detail.card
    console.print(Text(visible(f"{card.deck_id}/{card.card_key} · {card.post} · stage "
                       f"{card.stage} · stability {card.stability or 0:.2f} d · difficulty "
                       f"{card.difficulty or 0:.2f} · due {card.due:%Y-%m-%d %H:%M} UTC · "
                       f"reviews {detail.reviews}, correct {detail.correct}, "
                       f"lapses {card.lapses}")))
    for log in detail.logs:
        mark = "✓" if log.correct else "✗"
        # the draw seed: `deck preview FILE --card CARD --seed N` shows this instance again
        seed = "" if log.seed is None else f"seed {log.seed} "
        console.print(Text(visible(f"{log.reviewed_at:%Y-%m-%d %H:%M} {mark} rating "
                                   f"{log.rating} answer {log.response!r} expected "
                                   f"{logged_choice(log.expected, log.params)!r} {seed}params "
                                   f"{json.dumps(log.params, ensure_ascii=False)}")))
        for line in logged_parts(log.params, lang):
            console.print(Text("    " + visible(line)))


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option("--card", "card_ref", metavar="DECK/CARD",
              help="One card: its state and latest answers with their parameters.")
@click.option("--plot", is_flag=True,
              help="Charts: reviews, retention and mastery over time (with --card: the "
                   "card's forgetting curve).")
@click.option("--plain", is_flag=True, help="The charts' figures as text tables (--plot "
              "without drawing: screen readers, dumb terminals).")
@click.pass_context
def stats(ctx: click.Context, as_json: bool, card_ref: str | None, plot: bool,
          plain: bool) -> None:
    """Progress of one profile: posts, retention, calendar, forecast, weak cards."""
    plot = plot or plain

    settings = current_settings(ctx)
    service = make_service(settings)
    # loaded when the command runs, so that --help stays fast, and once the store is
    # open, so that a bad database URL is told without loading them
    from studyapp.progress import card_drilldown, learner_stats
    from studyapp.progress.series import card_curve, progress_series
    from studyapp.study.regraded import take_regrade_notices

    try:
        if card_ref:
            deck_id, sep, card_key = card_ref.rpartition("/")
            if not sep or not deck_id:
                fail("--card takes DECK/CARD, for example post-h100/h100-hbm")
            detail = card_drilldown(service, deck_id, card_key, last=20)
            if detail is None:
                fail(f"no answers stored for {card_ref} in profile {settings.profile!r}")
            curve = card_curve(service, deck_id, card_key) if plot or as_json else None
            if plot and not as_json and curve is not None:
                from studyapp.cli.stats_plot import print_curve

                print_curve(curve, settings.lang, plain, service.settings.desired_retention)
                return
            if as_json:
                echo_json({"card": {**detail.card.as_json(), "deck": detail.card.deck_id,
                                    "card": detail.card.card_key, "post": detail.card.post},
                           "reviews": detail.reviews, "correct": detail.correct,
                           "last": [{"reviewed_at": log.reviewed_at.isoformat(),
                                     "rating": log.rating, "correct": log.correct,
                                     "duration_ms": log.duration_ms, "seed": log.seed,
                                     "params": log.params, "prompt": log.prompt,
                                     "response": log.response, "expected": log.expected}
                                    for log in detail.logs],
                           **({"curve": curve.as_json()} if curve is not None else {})})
            else:
                _print_card(detail, settings.lang)
            return
        # regraded answers are told once, where they are read: not into JSON or a chart
        regraded = ([] if plot or as_json
                    else take_regrade_notices(service, settings.lang))
        data = None if plot and not as_json else learner_stats(service)
        series = (progress_series(service, posts=None if data is None else
                                  [(p.slug, p.title, p.total) for p in data.posts])
                  if plot or as_json else None)
        desired = service.settings.desired_retention
    finally:
        service.close()
    if as_json and data is not None:
        echo_json({**data.as_json(), **({"series": series.as_json()} if series else {})})
    elif plot and series is not None:
        from studyapp.cli.stats_plot import print_series

        print_series(series, settings.lang, plain, desired)
    elif data is not None:
        for line in regraded:
            click.echo(line)
        _print_stats(data, settings.lang)


@click.command("export")
@click.option("--format", "fmt", type=click.Choice(["csv", "json", "apkg"]), default="json",
              show_default=True, help="File format; apkg: the cards as an Anki deck.")
@click.option("-o", "--output", type=click.Path(dir_okay=False, writable=True),
              help="File to write (default: standard output).")
@click.option("--deck", "deck_ref", metavar="ID|PATH", help="apkg: only this deck.")
@click.option("--post", metavar="SLUG", help="apkg: only this post's cards.")
@click.option("--instances", type=click.IntRange(min=1, max=10), default=5, show_default=True,
              help="apkg: draws of each generated or template card (one note holds them, "
                   "at most 10).")
@click.option("--with-history", is_flag=True,
              help="apkg: also this profile's review log, memory states and due dates.")
@click.pass_context
def export_cmd(ctx: click.Context, fmt: str, output: str | None, deck_ref: str | None,
               post: str | None, instances: int, with_history: bool) -> None:
    """Write a profile's progress as CSV or JSON, or the cards as an Anki package (apkg)."""
    if fmt == "apkg":
        from studyapp.cli.anki import export_apkg  # genanki: only for this format

        export_apkg(ctx, output, deck_ref, post, instances, with_history)
        return
    if deck_ref or post or with_history:
        fail("--deck, --post and --with-history are for --format apkg", code=2)
    # loaded when the command runs, so that --help stays fast
    from studyapp.progress import export_file, export_progress

    settings = current_settings(ctx)
    service = make_service(settings)
    file_format: Literal["csv", "json"] = "json" if fmt == "json" else "csv"
    try:
        if output is None:
            export_progress(service, sys.stdout, file_format)
            return
        target = Path(output)
        with ending_signals_interrupt():
            count = export_file(service, target, file_format)
        click.echo(f"exported {count} records of profile {service.profile.name!r} to {target}",
                   err=True)
    except OSError as exc:
        fail(f"cannot write {output}: {exc.strerror or exc}")
    finally:
        service.close()


@click.command("import")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.pass_context
def import_cmd(ctx: click.Context, file: str) -> None:
    """Merge an export, or an Anki package with its review history, into this profile;
    importing a file twice changes nothing."""
    # loaded when the command runs, so that --help stays fast
    from studyapp.progress import import_file, is_package

    if is_package(Path(file)):  # .apkg / .colpkg: decks, review log and memory states
        from studyapp.cli.anki import import_anki

        import_anki(ctx, Path(file))
        return
    settings = current_settings(ctx)
    service = make_service(settings)
    try:
        result = import_file(service, Path(file))
    finally:
        service.close()
    click.echo(f"imported into profile {settings.profile!r}: {result.reviews_added} reviews "
               f"added, {result.reviews_skipped} already there; {result.cards_added} cards "
               f"added, {result.cards_updated} updated"
               + (f"; {result.cards_replayed} cards rescheduled from their merged answers"
                  if result.cards_replayed else ""))


@click.command("backup")
@click.option("-o", "--output", type=click.Path(dir_okay=False),
              help="Backup file (default: backups/ in the user data folder).")
@click.pass_context
def backup_cmd(ctx: click.Context, output: str | None) -> None:
    """A consistent copy of the SQLite database, safe while studying goes on."""
    # loaded when the command runs, so that --help stays fast
    from studyapp.progress import BackupError, backup_database

    service = make_service(current_settings(ctx))
    try:
        target = Path(output) if output else backup_path(datetime.now(UTC))
        with ending_signals_interrupt():
            backup_database(service, target)
    except BackupError as exc:
        fail(str(exc))
    finally:
        service.close()
    click.echo(str(target))
