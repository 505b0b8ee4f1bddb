"""``studyapp export --format apkg`` and ``studyapp deck from-anki``: Anki decks out and in."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from studyapp.cli import current_settings, fail, make_service, user_error_text, user_errors


def export_apkg(ctx: click.Context, output: str | None, deck_ref: str | None,
                post: str | None, instances: int) -> None:
    """Write the authored cards (one deck, one post, or all) as an Anki package."""
    from studyapp.catalog.posts import POST_SLUGS
    from studyapp.exchange.apkg import select_cards, write_apkg
    from studyapp.i18n import t

    settings = current_settings(ctx)
    if output is None:
        fail("--format apkg writes a file: give -o FILE.apkg", code=2)
    if post is not None and post not in POST_SLUGS:
        fail(f"unknown post {post!r} (posts: {', '.join(POST_SLUGS)})")
    service = make_service(settings)
    try:
        decks = [service.find_deck(deck_ref)] if deck_ref else service.decks
        selection = select_cards(decks, post=post)
        if not selection:
            fail(t("tuning.export.nothing", settings.lang))
        target = Path(output)
        summary = write_apkg(selection, target, settings.lang, instances=instances)
    except user_errors() as exc:
        fail(user_error_text(exc, settings.lang))
    except OSError as exc:
        fail(f"cannot write {output}: {exc.strerror or exc}")
    finally:
        service.close()
    click.echo(t("tuning.export.done", settings.lang, notes=summary.notes,
                 static=summary.static_cards, templates=summary.template_cards,
                 instances=instances, decks=summary.decks, path=target), err=True)
    if summary.skipped:
        click.echo(t("tuning.export.skipped", settings.lang, count=summary.skipped), err=True)


@click.command("from-anki")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False),
              help="Deck YAML to write.")
@click.option("--post", default="intro", show_default=True, metavar="SLUG",
              help="Post the cards belong to (edit per card afterwards).")
@click.option("--id", "deck_id", metavar="ID", help="Deck id (default: from the Anki deck name).")
@click.pass_context
def deck_from_anki(ctx: click.Context, file: str, output: str, post: str,
                   deck_id: str | None) -> None:
    """Turn an Anki .apkg (Basic, reversed, Cloze notes) into a studyapp deck."""
    from studyapp.catalog.posts import POST_SLUGS
    from studyapp.decks.report import validation_report
    from studyapp.exchange.from_anki import AnkiPackageError, convert_package, deck_yaml
    from studyapp.files import write_text_replacing
    from studyapp.i18n import t

    lang = current_settings(ctx).lang
    if post not in POST_SLUGS:
        fail(f"unknown post {post!r} (posts: {', '.join(POST_SLUGS)})")
    try:
        conversion = convert_package(Path(file), language=lang, deck_id=deck_id, post=post)
    except AnkiPackageError as exc:
        fail(str(exc))
    target = Path(output)
    try:
        write_text_replacing(target, deck_yaml(conversion.deck))
    except OSError as exc:
        fail(f"cannot write {output}: {exc.strerror or exc}")
    lines, code = validation_report([target], lang)
    if code:
        for line in lines:
            click.echo(line, err=True)
        sys.exit(code)
    click.echo(t("tuning.from_anki.done", lang, path=target, cards=conversion.cards,
                 notes=conversion.notes))
    if conversion.media_skipped:
        click.echo(t("tuning.from_anki.media", lang, count=conversion.media_skipped))
    if conversion.skipped_notes:
        reasons = ", ".join(f"{n} {why}" for why, n in conversion.skipped_notes.items())
        click.echo(t("tuning.from_anki.skipped", lang,
                     count=sum(conversion.skipped_notes.values()), reasons=reasons))
