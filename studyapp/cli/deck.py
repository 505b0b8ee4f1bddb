"""``studyapp deck``: validate, preview, install and list instructor decks."""

from __future__ import annotations

import difflib
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from studyapp.cli import current_settings, echo_json, fail, make_service
from studyapp.deck_ids import shown_deck_id
from studyapp.i18n import t

if TYPE_CHECKING:
    from studyapp.decks import Deck, DeckListing


@click.group()
def deck() -> None:
    """Instructor decks: validate, preview, add, edit, publish, list, enable or disable them."""


@deck.command("validate")
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--units", "list_units", is_flag=True,
              help="List every unit a card's unit: may name (symbol, dimension, other names).")
@click.pass_context
def deck_validate(ctx: click.Context, paths: tuple[str, ...], list_units: bool) -> None:
    """Report every problem in deck files or folders as path:line:col: message."""
    if list_units:
        from studyapp.questions.units.listing import unit_listing

        for line in unit_listing(current_settings(ctx).lang):
            click.echo(line)
        if not paths:
            return
    elif not paths:
        raise click.UsageError("give deck files or folders to validate, or --units")
    # loaded when the command runs, so that --help stays fast
    from studyapp.decks.deck_report import validation_report

    lines, code = validation_report([Path(p) for p in paths], current_settings(ctx).lang)
    for line in lines:
        click.echo(line)
    sys.exit(code)


@deck.command("schema")
def deck_schema() -> None:
    """Print the deck JSON Schema (for editor completion)."""
    # loaded when the command runs, so that --help stays fast
    from studyapp.decks import deck_json_schema

    echo_json(deck_json_schema())


@deck.command("preview")
@click.argument("file", type=click.Path())
@click.option("--card", "card_id", default=None, metavar="ID", help="Only this card.")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Draw seed: the numbers and choice order of a study showing with this seed.")
@click.option("--try", "tries", multiple=True, metavar="CARD=ANSWER",
              help="Grade ANSWER to CARD as study would: the verdict and the slip named "
                   "(a scenario's steps separated by |; repeatable).")
@click.option("--json", "as_json", is_flag=True, help="With --try: print the verdicts as JSON.")
@click.pass_context
def deck_preview(ctx: click.Context, file: str, card_id: str | None, seed: int,
                 tries: tuple[str, ...], as_json: bool) -> None:
    """Show a deck's cards as questions, with answers and explanations.

    With --seed S each card appears as study shows it when it draws seed S
    for that card: the same numbers and the same order of choices. That is the seed
    stored with each answer (`studyapp export` lists it as "seed"), not the
    seed of `studyapp study --seed N`: a session draws a fresh seed from N
    for every card it shows, in the order its queue shows them, and that
    order depends on the learner's progress.
    """
    # loaded when the command runs, so that --help stays fast
    from studyapp.decks import DeckError, load_deck
    from studyapp.study.preview import preview_lines

    lang = current_settings(ctx).lang
    try:
        loaded = load_deck(file)
        if tries:
            _try_cards(loaded, file, tries, seed, as_json, lang)
            return
        lines = preview_lines(loaded, lang, seed, card_id)
    except DeckError as exc:
        for problem in exc.problems:
            click.echo(problem.render(lang))
        sys.exit(1)
    except KeyError:
        fail(_no_card_text(file, card_id or "", [card.id for card in loaded.cards], lang))
    for line in lines:
        click.echo(line)


def _try_cards(loaded: Any, file: str, tries: tuple[str, ...], seed: int, as_json: bool,
               lang: str) -> None:
    """``deck preview --try CARD=ANSWER``: each answer graded as study grades it."""
    from studyapp.cli.generate import tried_lines
    from studyapp.questions.trying import try_answer
    from studyapp.study.session import showing

    results = []
    for pair in tries:
        card_id, sep, answer = pair.partition("=")
        if not sep or not card_id.strip():
            fail(f"--try takes CARD=ANSWER, not {pair!r}", code=2)
        try:
            card = loaded.card(card_id.strip())
        except KeyError:
            fail(_no_card_text(file, card_id.strip(), [c.id for c in loaded.cards], lang))
        question = showing(card, seed, lang)
        results.append((card.id, question, try_answer(question, answer.strip())))
    if as_json:
        echo_json([{"card": card_id, "seed": seed, "try": tried.record()}
                   for card_id, _, tried in results])
        return
    for card_id, question, tried in results:
        click.echo(f"[{card_id}] {question.prompt}")
        for line in tried_lines(tried, lang):
            click.echo(line)
        click.echo("")


@deck.command("add")
@click.argument("file", type=click.Path())
@click.option("--replace", is_flag=True,
              help="Replace a different installed deck with the same id (progress is kept).")
@click.pass_context
def deck_add(ctx: click.Context, file: str, replace: bool) -> None:
    """Validate a deck and install it into your deck folder.

    The file's path is remembered: `deck edit` and the card browser then edit
    this file and refresh the installed copy. An installed copy edited since it
    was added is never replaced silently: without --replace the add is refused;
    with it, the edited copy is first kept in the data folder.
    """
    # loaded when the command runs, so that --help stays fast
    from studyapp.decks import DeckError, load_deck
    from studyapp.decks.provenance import add_deck

    lang = current_settings(ctx).lang
    try:
        added = add_deck(file, replace=replace)
    except DeckError as exc:
        for problem in exc.problems:
            click.echo(problem.render(lang))
        sys.exit(1)
    if added.kept_edit is not None:
        click.echo(t("decks.edit.replaced_edit", lang, path=added.kept_edit))
    deck_added = load_deck(added.target, source="user")
    click.echo(t("decks.installed", lang, deck=deck_added.id,
                 cards=len(deck_added.cards), path=added.target))
    _regrade_added(ctx, deck_added, lang)


def _regrade_added(ctx: click.Context, deck: Deck, lang: str) -> None:
    """A new version of a deck may fix a key: the answers stored for its cards are graded
    again against it (as a publish does) and the changed verdicts counted."""
    from studyapp.classroom import regrade_deck

    service = make_service(current_settings(ctx))
    try:
        done = regrade_deck(service.store, deck)
    finally:
        service.close()
    if done.checked:
        click.echo(t("deck.add.regraded", lang, checked=done.checked, changed=done.changed,
                     right=done.now_right, wrong=done.now_wrong))


@deck.command("edit")
@click.argument("deck_ref", metavar="DECK")
@click.option("--card", "card_id", default=None, metavar="ID",
              help="Open the editor at this card's line.")
@click.pass_context
def deck_edit(ctx: click.Context, deck_ref: str, card_id: str | None) -> None:
    """Edit a deck (an id or a file) in $VISUAL or $EDITOR, called as EDITOR +LINE FILE.

    The editor opens a copy; when it ends the copy is validated. A good copy
    replaces the file; one with problems reopens the editor at the first
    problem's line, the problems written above the deck as "# studyapp:"
    lines (save an empty file, or quit without saving, to give up:
    the file keeps its last good text). An installed deck opens the file it
    was added from, and its installed copy is refreshed; a built-in deck is
    first copied into your deck folder, where the copy overrides it. Progress
    stays with every card whose id is unchanged.
    """
    # loaded when the command runs, so that --help stays fast
    from studyapp.cli import make_service
    from studyapp.decks.editing import edit_until_valid, plan_edit
    from studyapp.decks.problems import Problem

    settings = current_settings(ctx)
    lang = settings.lang
    service = make_service(settings)  # its decks include those published in the database
    try:
        from studyapp.study import deck_kind

        # read first: a file given by path then takes its deck's place in the service
        published = {d.id: d.path for d in service.decks if deck_kind(d) == "published"}
        found = service.find_deck(deck_ref)  # an unknown id: the group's handler words it
    finally:
        service.close()
    line = 1
    if card_id is not None:
        try:
            line = found.card(card_id).line
        except KeyError:
            fail(_no_card_text(found.id, card_id, [card.id for card in found.cards], lang))
    plan = plan_edit(found, line)
    for note in plan.notes:
        click.echo(note.render(lang))

    def show(problems: tuple[Problem, ...], at: int) -> None:
        for problem in problems:
            click.echo(problem.render(lang))
        click.echo(t("decks.edit.reopen", lang, n=len(problems), line=at))

    outcome = edit_until_valid(plan, lambda path, at: _run_editor(path, at, lang), lang=lang,
                               on_problems=show)
    path = str(plan.path)
    if outcome.status == "saved" and outcome.deck is not None:
        click.echo(t("decks.edit.saved", lang, path=path, deck=outcome.deck.id,
                     cards=len(outcome.deck.cards)))
        if plan.installed is not None:
            click.echo(t("decks.edit.refreshed", lang, path=plan.installed))
        stored = published.get(outcome.deck.id)
        if stored is not None and stored.resolve() != plan.path.resolve():
            # the database holds its own version: students study that one until republished
            click.echo(t("decks.edit.republish", lang, deck=outcome.deck.id, path=path))
    elif outcome.status == "unchanged":
        click.echo(t("decks.edit.unchanged", lang, path=path))
    elif outcome.status == "editor_failed":
        from studyapp.decks.editing import editor_name

        fail(t("decks.edit.editor_failed", lang, editor=editor_name(),
               code=outcome.editor_code, path=path))
    else:
        for problem in outcome.problems:
            click.echo(problem.render(lang))
        fail(t("decks.edit.gave_up", lang, path=path, n=len(outcome.problems)))


def _run_editor(path: Path, line: int, lang: str) -> int:
    """The instructor's editor on ``path`` at ``line``, in this terminal."""

    from studyapp.decks.editing import editor_command, editor_name

    try:
        return subprocess.call(editor_command(path, line))
    except OSError as exc:
        fail(t("decks.edit.no_editor", lang, editor=editor_name(), detail=str(exc)))


def _no_card_text(deck_name: str, card_id: str, known: list[str], lang: str) -> str:
    """"deck D has no card C", with the closest card ids as a did-you-mean."""

    from studyapp.decks.problems import problem_message

    close = difflib.get_close_matches(card_id, known, n=3, cutoff=0.6)
    hint = problem_message("did_you_mean", names=", ".join(repr(c) for c in close))
    return t("decks.no_card", lang, deck=deck_name, card=card_id) + (
        hint.render(lang) if close else "")


@deck.command("unpublish")
@click.argument("deck_id", metavar="ID")
@click.pass_context
def deck_unpublish(ctx: click.Context, deck_id: str) -> None:
    """Remove a deck published in the database; students' progress on it is kept.

    Every profile there stops studying it (a deck file of the same id, where
    one is installed, is studied again); publishing it again brings its cards
    back with their history.
    """
    # loaded when the command runs, so that --help stays fast
    from studyapp.classroom import NotPublishedError, unpublish_deck
    from studyapp.cli import make_service

    settings = current_settings(ctx)
    service = make_service(settings)
    try:
        done = unpublish_deck(service, deck_id)
    except NotPublishedError as exc:
        published = ", ".join(shown_deck_id(d) for d in exc.published)
        fail(t("deck.unpublish.unknown", settings.lang, deck=shown_deck_id(deck_id),
               published=published or t("deck.unpublish.none", settings.lang)))
    finally:
        service.close()
    click.echo(t("deck.unpublish.done", settings.lang, deck=shown_deck_id(done.deck_id),
                 version=done.version, profiles=done.profiles))


@deck.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def deck_list(ctx: click.Context, as_json: bool) -> None:
    """All decks (built-in and installed) with card counts and status."""
    # loaded when the command runs, so that --help stays fast
    from studyapp.decks import discover_decks
    from studyapp.decks.deck_report import draw_problem_lines, listing_json, listing_lines

    settings = current_settings(ctx)
    listings, enabled = _listings_on(ctx, discover_decks())
    if as_json:  # every field as before, plus whether this profile studies the deck
        echo_json([{**entry, "enabled": on}
                   for entry, on in zip(listing_json(listings), enabled, strict=True)])
        return
    lines = listing_lines(listings, settings.lang)
    if len(lines) != len(listings):  # "no decks found"
        for line in lines:
            click.echo(line)
        return

    id_width = max(len(listing.id) for listing in listings)
    marks = ["—" if on is None else t("deck.list.on" if on else "deck.list.off", settings.lang)
             for on in enabled]
    mark_width = max(len(mark) for mark in marks)
    for listing, line, mark in zip(listings, lines, marks, strict=True):  # on/off after the id
        click.echo(f"{line[:id_width]}  {mark.ljust(mark_width)}{line[id_width:]}")
        for skipped in draw_problem_lines(listing.id, settings.lang):
            click.echo(skipped)


def _listings_on(ctx: click.Context, listings: list[DeckListing]
                 ) -> tuple[list[DeckListing], list[bool | None]]:
    """The listings, then the decks published in this database (``deck publish``: what
    every profile there studies, though no file of them is installed here), and whether
    this profile studies each (None for a deck that does not load)."""
    from studyapp.cli import make_service
    from studyapp.decks import DeckListing
    from studyapp.study import deck_kind

    service = make_service(current_settings(ctx))
    try:
        listings = listings + [DeckListing(deck.path, "published", deck)
                               for deck in service.decks if deck_kind(deck) == "published"]
        return listings, [None if listing.deck is None else service.deck_enabled(listing.deck)
                          for listing in listings]
    finally:
        service.close()


def _switch_deck(ctx: click.Context, deck_id: str, enabled: bool) -> None:
    from studyapp.cli import make_service

    settings = current_settings(ctx)
    service = make_service(settings)
    try:
        info = service.set_deck_enabled(deck_id, enabled)
    finally:
        service.close()
    key = "deck.enabled" if info.enabled else "deck.disabled"
    click.echo(t(key, settings.lang, deck=info.deck_id, profile=settings.profile))


@deck.command("enable")
@click.argument("deck_id")
@click.pass_context
def deck_enable(ctx: click.Context, deck_id: str) -> None:
    """Study this deck in this profile's sessions (example decks start disabled)."""
    _switch_deck(ctx, deck_id, True)


@deck.command("disable")
@click.argument("deck_id")
@click.pass_context
def deck_disable(ctx: click.Context, deck_id: str) -> None:
    """Leave this deck out of this profile's sessions (its progress is kept)."""
    _switch_deck(ctx, deck_id, False)


def _from_anki() -> None:
    """``deck from-anki`` lives with the other Anki command (cli/anki.py)."""
    from studyapp.cli.anki import deck_from_anki

    deck.add_command(deck_from_anki)


_from_anki()


def _versions() -> None:
    """``deck publish``, ``history``, ``diff`` and ``rollback`` live in cli/deck_versions.py."""
    from studyapp.cli.deck_versions import COMMANDS

    for command in COMMANDS:
        deck.add_command(command)


_versions()
