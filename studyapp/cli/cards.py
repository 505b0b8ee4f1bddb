"""``studyapp cards``: the card browser on the command line.

Search with the same language as the terminal app's browser, print the
matches as a table or JSON, and act on every match at once.
"""

from __future__ import annotations

import sys
from typing import Any

import click

from studyapp.cli import (
    current_settings,
    echo_json,
    fail,
    make_service,
)
from studyapp.i18n import t


class _SearchCommand(click.Command):
    """Search terms may start with ``-`` (``-is:suspended``): only the command's own
    options are read as options, every other word is part of the query."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        own = {name for param in self.params for name in getattr(param, "opts", ())}
        own |= set(ctx.help_option_names)
        options: list[str] = []
        terms: list[str] = []
        words = iter(args)
        for word in words:
            if word == "--":
                terms.extend(words)
                break
            name = word.split("=", 1)[0]
            if name in own:
                options.append(word)
                value = next(words, None) if name == "--flag" and "=" not in word else None
                if value is not None:
                    options.append(value)
            else:
                terms.append(word)
        return super().parse_args(ctx, [*options, "--", *terms])


@click.command("cards", cls=_SearchCommand)
@click.argument("query", nargs=-1)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option("--suspend", "action", flag_value="suspend", help="Suspend every match.")
@click.option("--unsuspend", "action", flag_value="unsuspend", help="Unsuspend every match.")
@click.option("--bury", "action", flag_value="bury", help="Bury every match until the next day.")
@click.option("--unbury", "action", flag_value="unbury", help="Unbury every match.")
@click.option("--reset", "action", flag_value="reset",
              help="Put every match back to new (answers are kept).")
@click.option("--flag", "flag", type=click.IntRange(0, 4), default=None, metavar="N",
              help="Flag every match 1-4 (0 clears).")
@click.pass_context
def cards_cmd(ctx: click.Context, query: tuple[str, ...], as_json: bool, action: str | None,
              flag: int | None) -> None:
    """Find cards: post:SLUG deck:ID family:NAME is:new|learning|review|due|suspended|
    buried|leech|flagged flag:N lapses>N accuracy<N due<Nd and free words
    (space = and, `or`, `-` negates, parentheses group).
    """
    from studyapp.browse import CardBrowser
    from studyapp.cardsearch import QueryError

    settings = current_settings(ctx)
    if action is not None and flag is not None:
        fail(t("browse.cli.one_action", settings.lang), 2)
    text = " ".join(query)
    service = make_service(settings)
    try:
        browser = CardBrowser(service)
        found = browser.search(text)
        if action is not None or flag is not None:
            changed = browser.apply(found, action or "flag", flag or 0)
            click.echo(t("browse.cli.changed_one" if changed == 1 else "browse.cli.changed_many",
                         settings.lang, n=changed, total=len(found)))
            return
    except QueryError as exc:
        click.echo(f"studyapp: {t('browse.cli.bad_query', settings.lang, column=exc.column)}"
                   f" {exc.message}", err=True)
        click.echo("\n".join("  " + line for line in exc.pointer().splitlines()), err=True)
        sys.exit(1)
    finally:
        service.close()
    if as_json:
        echo_json([card.as_json() for card in found])
    else:
        _print_cards(found, settings.lang)


def _print_cards(found: list[Any], lang: str) -> None:
    """Aligned columns for a terminal; the question takes the width that is left.

    Deck text is printed as plain text, never markup.
    """
    from rich.console import Console
    from rich.text import Text


    console = Console(highlight=False)
    if not found:
        console.print(Text(t("browse.cli.none", lang)))
        return
    rows = []
    for card in found:
        marks = "".join((f" ⚑{card.flag}" if card.flag else "",
                         " ⏸" if card.suspended else "", " ⤓" if card.buried else ""))
        due = card.due.astimezone().strftime("%Y-%m-%d") if card.due and card.stage else "—"
        rows.append((f"{card.deck}/{card.card}", card.post,
                     t(f"browse.state.{card.state}", lang) + marks, due, str(card.lapses),
                     "—" if card.accuracy is None else f"{card.accuracy:.0%}",
                     " ".join(card.question.split())))
    keys = ("card", "post", "state", "due", "lapses", "accuracy", "question")
    headers = tuple(t(f"browse.col.{key}", lang) for key in keys)
    caps = (26, 19, 16, 10, 6, 8)
    widths = [min(cap, max(len(h), *(len(r[i]) for r in rows)))
              for i, (h, cap) in enumerate(zip(headers, caps, strict=False))]
    room = max(16, console.width - sum(widths) - 2 * len(widths))

    def cut(text: str, width: int) -> str:
        return text if len(text) <= width else text[:width - 1] + "…"

    def line(cells: tuple[str, ...]) -> str:
        out = []
        for i, width in enumerate(widths):
            cell = cut(cells[i], width)
            out.append(cell.rjust(width) if keys[i] in ("lapses", "accuracy") else
                       cell.ljust(width))
        out.append(cut(cells[-1], room))
        return "  ".join(out).rstrip()

    console.print(Text(line(headers), style="bold"), soft_wrap=True)
    for row in rows:
        console.print(Text(line(row)), soft_wrap=True)
    console.print(Text(t("browse.cli.count_one" if len(found) == 1 else "browse.cli.count_many",
                         lang, n=len(found))))
