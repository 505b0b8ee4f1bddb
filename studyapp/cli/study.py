"""``studyapp study``: a session in the terminal app, or line by line with ``--plain``."""

from __future__ import annotations

import sys
from typing import Any

import click

from studyapp.cli import current_settings, make_service
from studyapp.i18n import t
from studyapp.srs.queue import NEW_CARD_ORDERS
from studyapp.text import tolerate_encodings, visible


@click.command()
@click.option("--post", metavar="SLUG", help="Study one post (its summary first, the first time).")
@click.option("--deck", metavar="ID|PATH", help="Study one deck, by id or YAML file.")
@click.option("--limit", type=click.IntRange(min=1), help="Stop after N answers.")
@click.option("--seed", type=int, help="Seed for generated questions (repeatable sessions).")
@click.option("--plain", is_flag=True, help="Line-by-line loop on stdin/stdout.")
@click.option("--practice", is_flag=True, help="Practise without changing the schedule.")
@click.option("--misconception", metavar="NAME",
              help="Drill the cards that set one misconception's trap (practice): "
                   "k_only, bits_as_bytes, decimal_for_binary, ring_factor... (see stats).")
@click.option("--more-new", type=click.IntRange(min=1), metavar="N",
              help="Study N more new cards today than the daily limit allows.")
@click.option("--new-order", type=click.Choice(NEW_CARD_ORDERS), metavar="ORDER",
              help="How new cards are gathered from now on (saved in the profile): "
                   "mixed (default), authored-first, generated-first, random.")
@click.pass_context
def study(ctx: click.Context, post: str | None, deck: str | None, limit: int | None,
          seed: int | None, plain: bool, practice: bool, misconception: str | None,
          more_new: int | None, new_order: str | None) -> None:
    """Study: a post, a deck, everything due, or a drill on one misconception."""
    settings = current_settings(ctx)
    if misconception is not None:
        _check_misconception(misconception)
    if new_order is not None:
        _save_new_order(settings, new_order)
    if more_new is not None:
        _raise_new_limit(settings, more_new)
    if not plain:
        _check_request(settings, post, deck)  # one line now, not a traceback in the app
        from studyapp.tui.app import run_app  # Textual only when the app opens

        run_app(settings, study={"post": post, "deck": deck, "limit": limit, "seed": seed,
                                 "practice": practice, "misconception": misconception})
        return
    # loaded when the command runs, so that --help stays fast
    from studyapp.plain import course_summary_lines, post_summary_lines, run_plain
    from studyapp.study import SessionKind, take_regrade_notices

    tolerate_encodings()

    kind = (SessionKind.PRACTICE if practice else SessionKind.DECK if deck
            else SessionKind.POST if post else SessionKind.DUE)
    service = make_service(settings)
    try:
        if post is not None and kind is SessionKind.POST and not service.has_read(post):
            click.echo("\n".join(post_summary_lines(post, settings.lang)))
            service.read_post(post)
        if deck is not None and kind is SessionKind.DECK:
            deck = service.find_deck(deck).id  # a file's path: its deck's id
            if service.summary_first(deck):
                click.echo("\n".join(course_summary_lines(service.course_view(deck))))
                service.read_course(deck)
        session = (service.drill(misconception, seed=seed) if misconception is not None
                   else service.start(kind, post=post, deck=deck, limit=limit, seed=seed))
        for prompt in service.recovered:
            click.echo(t("plain.recovered", settings.lang, prompt=visible(prompt)))
        for line in take_regrade_notices(service, settings.lang):
            click.echo(line)
        code = run_plain(session)
    except KeyboardInterrupt:
        code = 130
    finally:
        service.close()
    sys.exit(code)


def _check_misconception(name: str) -> None:
    """An unknown misconception is a usage error naming the known ones."""
    from studyapp.questions.misconceptions import MISCONCEPTIONS, misconception

    if misconception(name) is None:
        known = ", ".join(m.key for m in MISCONCEPTIONS)
        raise click.BadParameter(f"unknown misconception {name!r}; one of: {known}",
                                 param_hint="--misconception")


def _save_new_order(settings: Any, order: str) -> None:
    """The profile's new-card order, as the settings screen sets it."""
    service = make_service(settings)
    try:
        service.update_settings(new_card_order=order)
    finally:
        service.close()


def _check_request(settings: Any, post: str | None, deck: str | None) -> None:
    """An unknown post or deck is refused before the terminal app opens."""
    if post is not None:
        from studyapp.catalog.errors import UnknownIdError
        from studyapp.catalog.posts import POST_SLUGS

        if post not in POST_SLUGS:
            raise UnknownIdError("post", post, list(POST_SLUGS))
    if deck is not None:
        service = make_service(settings)
        try:
            service.find_deck(deck)
        finally:
            service.close()


def _raise_new_limit(settings: Any, count: int) -> None:
    """Anki's custom study, as the app's m key: today's new-card limit goes up by ``count``."""
    service = make_service(settings)
    try:
        service.study_more_new(count)
    finally:
        service.close()
