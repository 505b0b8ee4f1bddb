"""``studyapp export --format apkg`` and ``studyapp deck from-anki``: Anki decks out and in."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from studyapp.cli import current_settings, fail, make_service
from studyapp.cli.interrupts import ending_signals_interrupt
from studyapp.deck_ids import is_deck_id, shown_deck_id
from studyapp.files import write_text_replacing
from studyapp.i18n import t
from studyapp.text import one_line


def export_apkg(ctx: click.Context, output: str | None, deck_ref: str | None,
                post: str | None, instances: int, with_history: bool = False) -> None:
    """Write the authored cards (one deck, one post, or all) as an Anki package, with the
    profile's study of them when ``with_history``."""
    from studyapp.anki.apkg import Progress, select_cards, write_apkg
    from studyapp.catalog.posts import POST_SLUGS

    settings = current_settings(ctx)
    if output is None:
        fail("--format apkg writes a file: give -o FILE.apkg", code=2)
    if post is not None and post not in POST_SLUGS:
        fail(f"unknown post {post!r} (posts: {', '.join(POST_SLUGS)})")
    service = make_service(settings)
    try:
        # without --deck, the decks this profile studies: a disabled deck is left out
        decks = ([service.find_deck(deck_ref)] if deck_ref
                 else [d for d in service.decks if service.deck_enabled(d)])
        selection = select_cards(decks, post=post)
        if not selection:
            fail(t("tuning.export.nothing", settings.lang))
        target = Path(output)
        progress = (Progress.of_profile(service.store, service.profile.id)
                    if with_history else None)
        with ending_signals_interrupt():  # each deck's options as the profile holds them
            summary = write_apkg(selection, target, settings.lang, instances=instances,
                                 settings=service.settings, progress=progress,
                                 now=service.now())
    except OSError as exc:
        fail(f"cannot write {output}: {exc.strerror or exc}")
    finally:
        service.close()
    click.echo(t("tuning.export.done", settings.lang, notes=summary.notes,
                 static=summary.static_cards, templates=summary.template_cards,
                 instances=instances, decks=summary.decks, path=target), err=True)
    if with_history:
        click.echo(t("anki.export.history", settings.lang, cards=summary.history[0],
                     reviews=summary.history[1]), err=True)
    if summary.skipped:
        click.echo(t("tuning.export.skipped", settings.lang, count=summary.skipped), err=True)
    if summary.repeated:
        click.echo(t("anki.export.repeated", settings.lang, count=summary.repeated), err=True)
    click.echo(t("anki.export.stale", settings.lang, stamp=summary.stamp), err=True)


@click.command("from-anki")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option("-o", "--output", type=click.Path(),
              help="Deck YAML to write; a folder when the package holds several decks.")
@click.option("--post", default="intro", show_default=True, metavar="SLUG",
              help="Post the cards belong to (edit per card afterwards).")
@click.option("--id", "deck_id", metavar="ID", help="Deck id (default: from the Anki deck name).")
@click.option("--map", "field_map", multiple=True, metavar="'NOTE:FIELD=ROLE,...'",
              help="Field roles of one note type (prompt, answer, explanation, source, "
                   "ignore); repeatable.")
@click.option("--merge", is_flag=True, help="One deck for all Anki decks and subdecks.")
@click.option("--dry-run", is_flag=True, help="Print the field roles and sample cards only.")
@click.option("--with-history", is_flag=True,
              help="Also import Anki's review log and memory states into this profile.")
@click.pass_context
def deck_from_anki(ctx: click.Context, file: str, output: str | None, post: str,
                   deck_id: str | None, field_map: tuple[str, ...], merge: bool,
                   dry_run: bool, with_history: bool) -> None:
    """Turn an Anki .apkg into studyapp decks, each field by its role."""
    from studyapp.anki.from_anki import (
        AnkiPackageError,
        convert_package,
        dry_run_lines,
        parse_field_map,
    )
    from studyapp.catalog.posts import POST_SLUGS

    lang = current_settings(ctx).lang
    if post not in POST_SLUGS:
        fail(f"unknown post {post!r} (posts: {', '.join(POST_SLUGS)})")
    if output is None and not dry_run:
        fail("give -o DECK.yaml (or --dry-run to see the mapping first)", code=2)
    if deck_id is not None and not is_deck_id(deck_id):
        fail(f"--id {shown_deck_id(deck_id)}: {t('decks.problem.deck_id_pattern', lang)}",
             code=2)
    try:
        conversion = convert_package(Path(file), language=lang, deck_id=deck_id, post=post,
                                     merge=merge, field_map=parse_field_map(field_map),
                                     posts=POST_SLUGS)
    except AnkiPackageError as exc:
        fail(str(exc))
    if dry_run:
        for line in dry_run_lines(conversion, lang=lang):
            click.echo(line)
        _report_left_out(conversion, lang)
        return
    assert output is not None
    _write_decks(conversion, Path(output), lang)
    if with_history:
        _import_history(ctx, conversion)


def import_anki(ctx: click.Context, path: Path) -> None:
    """``studyapp import FILE.apkg``: install its decks and bring its history along."""
    from studyapp.anki.anki_history import install_conversion, installed_cards
    from studyapp.anki.from_anki import (
        AnkiPackageError,
        apply_kept,
        convert_package,
        copy_sounds,
        plan_import,
    )
    from studyapp.catalog.posts import POST_SLUGS
    from studyapp.decks import DeckError

    lang = current_settings(ctx).lang
    try:  # notes studyapp exported from decks here bring their answers back to those decks
        conversion = convert_package(path, language=lang, posts=POST_SLUGS,
                                     installed=installed_cards())
        # a deck installed from an earlier package of the same collection is updated in place
        plan = plan_import(conversion)
        for deck_id, other in plan.clashes:
            fail(t("anki.import.clash", lang, id=deck_id, other=other, file=path))
        apply_kept(conversion, plan)
        installed = install_conversion(conversion, replace=bool(plan.updates))
    except AnkiPackageError as exc:
        fail(str(exc))
    except DeckError as exc:
        for problem in exc.problems:
            click.echo(problem.render(lang), err=True)
        sys.exit(1)
    except OSError as exc:
        fail(f"cannot install the decks of {path}: {exc.strerror or exc}")
    for deck_id, cards, target in installed:
        try:  # the sounds its cards name go beside the installed deck
            copy_sounds(conversion, deck_id, target.with_name(f"{target.stem}.audio"))
        except OSError as exc:
            fail(f"cannot install the decks of {path}: {exc.strerror or exc}")
        update = plan.updates.get(deck_id)
        if update is None:
            click.echo(t("decks.installed", lang, deck=deck_id, cards=cards, path=target))
        else:
            click.echo(t("anki.import.updated", lang, deck=deck_id, notes=update.notes_updated,
                         added=update.cards_added, kept=len(update.kept)))
            if update.tags:  # Anki tags a leech by itself: a change of tags alone is named
                shown = ", ".join(one_line(c.shown()) for c in update.tags[:5])
                click.echo(t("anki.import.tags", lang, deck=deck_id, count=update.notes_tagged,
                             cards=shown + (", …" if len(update.tags) > 5 else "")))
    _report_left_out(conversion, lang)
    if conversion.returning:
        click.echo(t("anki.history.returning", lang, count=len(conversion.returning)))
    _import_history(ctx, conversion)


def _import_history(ctx: click.Context, conversion: Any) -> None:
    from studyapp.anki.anki_presets import import_into_profile

    settings = current_settings(ctx)
    service = make_service(settings)
    try:
        lines, result = import_into_profile(service, conversion)
        for line in lines:
            click.echo(line)
    finally:
        service.close()
    click.echo(t("anki.history.done", settings.lang, profile=settings.profile,
                 cards=result.cards_added + result.cards_updated,
                 reviews=result.reviews_added, known=result.reviews_skipped))
    if result.cards_replayed:
        click.echo(t("anki.history.replayed", settings.lang, count=result.cards_replayed))


def _write_decks(conversion: Any, output: Path, lang: str) -> None:
    from studyapp.anki.from_anki import copy_images, copy_sounds, deck_yaml
    from studyapp.decks.deck_loader import MAX_DECK_BYTES
    from studyapp.decks.deck_report import validation_report

    several = len(conversion.decks) > 1
    if several and output.suffix.lower() in (".yaml", ".yml"):
        output = output.with_suffix("")
    targets = [output / f"{deck['deck']}.yaml" if several else output
               for deck in conversion.decks]
    texts = [deck_yaml(deck) for deck in conversion.decks]
    for deck, text in zip(conversion.decks, texts, strict=True):
        size = len(text.encode("utf-8"))
        if size > MAX_DECK_BYTES:  # refused before any deck is written, not half-way
            fail(f"the deck {deck['deck']} would be {size / 1e6:.1f} MB; studyapp reads decks "
                 f"up to {MAX_DECK_BYTES / 1e6:.0f} MB: split the Anki deck into subdecks "
                 f"(one studyapp deck each) and convert again")
    for deck, target, text in zip(conversion.decks, targets, texts, strict=True):
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            with ending_signals_interrupt():
                write_text_replacing(target, text)  # O_EXCL: no symlink followed
                copied, missing = copy_images(conversion, deck["deck"],
                                              target.with_name(f"{target.stem}.media"))
                sounds, _ = copy_sounds(conversion, deck["deck"],
                                        target.with_name(f"{target.stem}.audio"))
        except OSError as exc:
            fail(f"cannot write {target}: {exc.strerror or exc}")
        if copied:
            click.echo(t("anki.from.images", lang, count=copied,
                         folder=target.with_name(f"{target.stem}.media")))
        if missing:
            click.echo(t("anki.from.images_missing", lang, count=len(missing),
                         names=", ".join(missing[:5])))
        if sounds:
            click.echo(t("anki.from.sounds", lang, count=sounds,
                         folder=target.with_name(f"{target.stem}.audio")))
    lines, code = validation_report(targets, lang)
    if code:
        for line in lines:
            click.echo(line, err=True)
        sys.exit(code)
    if several:
        for deck, target in zip(conversion.decks, targets, strict=True):
            click.echo(t("anki.from.deck_done", lang, path=target, cards=len(deck["cards"])))
        click.echo(t("anki.from.total", lang, decks=len(targets), cards=conversion.cards,
                     notes=conversion.notes))
    else:
        click.echo(t("anki.from.done", lang, path=targets[0], cards=conversion.cards,
                     notes=conversion.notes))
    _report_left_out(conversion, lang)


def _report_left_out(conversion: Any, lang: str) -> None:
    if conversion.media_skipped:
        click.echo(t("anki.from.media", lang, count=conversion.media_skipped))
    for name, why in conversion.refused_images:  # not raster images: a browser runs them
        click.echo(t("anki.from.image_refused", lang, name=one_line(name), why=why.render(lang)),
                   err=True)
    if conversion.unsupported:
        kinds = ", ".join(f"{n} {name}" for name, n in conversion.unsupported.items())
        click.echo(t("anki.from.unsupported", lang, count=sum(conversion.unsupported.values()),
                     kinds=kinds))
    if conversion.skipped_notes:
        reasons = ", ".join(f"{n} {why}" for why, n in conversion.skipped_notes.items())
        click.echo(t("anki.from.skipped", lang,
                     count=sum(conversion.skipped_notes.values()), reasons=reasons))
