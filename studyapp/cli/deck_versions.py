"""``studyapp deck publish``, ``history``, ``diff`` and ``rollback``: a deck's published versions.

Publishing stores the next version of a deck in the database; every version's
text is kept. A file is taken to be written from the version this machine
last published from it (``--replaces N`` says another): when the
database holds a newer one, the publish is refused with what differs, so a
stale copy never quietly undoes a colleague's version.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from studyapp.cli import current_settings, echo_json, make_service
from studyapp.files import read_regular
from studyapp.i18n import t
from studyapp.text import visible

if TYPE_CHECKING:
    from studyapp.classroom import Publication, PublishRefused

DIFF_SHOWN = 200
"""Lines of a refused publish's diff printed; ``deck diff`` prints any two versions whole."""


@click.command("publish")
@click.argument("file", type=click.Path())
@click.option("--replaces", type=click.IntRange(min=1), default=None, metavar="N",
              help="The published version your file was written from (default: the version "
                   "this machine last published from this file).")
@click.pass_context
def deck_publish(ctx: click.Context, file: str, replaces: int | None) -> None:
    """Validate a deck and store it in the database: every profile there studies it.

    On a shared database (``--db postgresql+psycopg://...``) students need
    no copy of the file; publishing a changed file stores the next version,
    and progress stays with the cards whose ids are unchanged. Every version
    is kept (``deck history``). When the database holds a version newer than
    the one your file was written from, nothing is published and what
    differs is shown: bring in what you keep of it, then publish with
    ``--replaces`` that version.
    """
    # loaded when the command runs, so that --help stays fast
    from studyapp.classroom import PublishRefused, publish_deck_file
    from studyapp.decks.cache import check_deck_cached

    settings = current_settings(ctx)
    path = Path(file)
    deck, problems = check_deck_cached(path)
    if problems or deck is None:
        for problem in problems:
            click.echo(problem.render(settings.lang))
        sys.exit(1)
    from studyapp.decks import MAX_DECK_BYTES

    content = read_regular(path, MAX_DECK_BYTES, what="deck").decode("utf-8-sig")
    service = make_service(settings)
    try:
        done = publish_deck_file(service, deck, content, by=settings.profile,
                                 replaces=replaces)
    except PublishRefused as refused:
        _refused(refused, settings.lang)
    finally:
        service.close()
    _published(deck.id, len(deck.cards), done, settings.lang)


def _refused(refused: PublishRefused, lang: str) -> None:
    """The refusal, what differs, and how to publish anyway; exit 1."""

    click.echo(refused.render(lang), err=True)
    if refused.latest is not None and refused.diff:
        version = refused.latest.version
        click.echo(t("deck.publish.diff_heading", lang, version=version))
        for line in refused.diff[:DIFF_SHOWN]:
            click.echo(line)
        if len(refused.diff) > DIFF_SHOWN:
            click.echo(t("deck.publish.diff_more", lang, n=len(refused.diff) - DIFF_SHOWN))
    if refused.latest is not None and (refused.base or 0) <= refused.latest.version:
        click.echo(t("deck.publish.how", lang, version=refused.latest.version), err=True)
    sys.exit(1)


def _published(deck_id: str, cards: int, done: Publication, lang: str) -> None:
    if not done.changed:
        key = "deck.publish.unchanged"
    elif done.replaced is None:
        key = "deck.publish.first"
    else:
        key = "deck.publish.replaces"
    click.echo(t(key, lang, deck=deck_id, version=done.version, cards=cards,
                 replaced=done.replaced))
    if done.regraded is not None and done.regraded.checked:
        click.echo(t("deck.publish.regraded", lang, checked=done.regraded.checked,
                     changed=done.regraded.changed, right=done.regraded.now_right,
                     wrong=done.regraded.now_wrong))
    _removed(done, lang)


def _removed(done: Publication, lang: str) -> None:
    """The cards a new version drops, and whether anybody had studied them."""

    for card, profiles in done.removed:
        click.echo(t("deck.publish.removed_studied" if profiles else
                     "deck.publish.removed_unstudied", lang, card=visible(card),
                     profiles=profiles))


@click.command("history")
@click.argument("deck_id", metavar="ID")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def deck_history_cmd(ctx: click.Context, deck_id: str, as_json: bool) -> None:
    """Every published version of a deck: when, by whom, how many cards."""
    from studyapp.classroom import deck_history, version_author

    settings = current_settings(ctx)
    service = make_service(settings)
    try:
        versions = deck_history(service, deck_id)
    finally:
        service.close()
    if as_json:
        echo_json([{"version": v.version, "published_at": v.published_at.isoformat(),
                    "profile": v.published_by, "login": v.login, "cards": v.cards}
                   for v in versions])
        return
    click.echo(t("deck.history.heading", settings.lang, deck=deck_id, n=len(versions)))
    for v in versions:
        click.echo(t("deck.history.row", settings.lang, version=v.version,
                     when=f"{v.published_at:%Y-%m-%d %H:%M} UTC",
                     who=version_author(v, settings.lang),
                     cards="?" if v.cards is None else v.cards))


@click.command("diff")
@click.argument("deck_id", metavar="ID")
@click.argument("first", metavar="V1", type=click.IntRange(min=1))
@click.argument("second", metavar="V2", type=click.IntRange(min=1))
@click.pass_context
def deck_diff_cmd(ctx: click.Context, deck_id: str, first: int, second: int) -> None:
    """What changed from version V1 to V2 of a published deck (a unified diff)."""
    from studyapp.classroom import deck_diff, stored_version

    settings = current_settings(ctx)
    service = make_service(settings)
    try:
        old, new = stored_version(service, deck_id, first), stored_version(service, deck_id,
                                                                           second)
    finally:
        service.close()
    lines = deck_diff(old.content, new.content, f"{deck_id} version {first}",
                      f"{deck_id} version {second}")
    if not lines:
        click.echo(t("deck.diff.same", settings.lang, deck=deck_id, first=first,
                     second=second))
    for line in lines:
        click.echo(line)


@click.command("rollback")
@click.argument("deck_id", metavar="ID")
@click.argument("version", metavar="V", type=click.IntRange(min=1))
@click.pass_context
def deck_rollback_cmd(ctx: click.Context, deck_id: str, version: int) -> None:
    """Publish version V's text again, as a new version (the later ones stay in the history)."""
    from studyapp.classroom import PublishRefused, rollback_deck

    settings = current_settings(ctx)
    service = make_service(settings)
    try:
        done, deck = rollback_deck(service, deck_id, version, by=settings.profile)
    except PublishRefused as refused:
        _refused(refused, settings.lang)
    finally:
        service.close()
    if not done.changed:
        click.echo(t("deck.rollback.unchanged", settings.lang, deck=deck_id,
                     version=done.version, old=version))
        return
    click.echo(t("deck.rollback.done", settings.lang, deck=deck_id, version=done.version,
                 cards=len(deck.cards), old=version, replaced=done.replaced))
    _removed(done, settings.lang)


COMMANDS = (deck_publish, deck_history_cmd, deck_diff_cmd, deck_rollback_cmd)
