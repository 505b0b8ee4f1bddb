"""``studyapp serve``: the terminal app in a browser, one app process per tab."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import click

from studyapp.cli import current_settings, fail, make_service
from studyapp.i18n import t

MAX_TOKEN_FILE_BYTES = 4096
"""A token file is a line; more is not a token file."""


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on.")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True,
              help="Port to listen on (0: any free port).")
@click.option("--token-file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              metavar="PATH",
              help="Read the access token (16 characters or more) from this file; or set "
                   "STUDYAPP_TOKEN. Default: a random one, printed in the link.")
@click.option("--no-token", is_flag=True,
              help="No token on a loopback address: every user of this machine may open "
                   "the app.")
@click.option("--token", "token_argument", default=None, hidden=True, expose_value=True)
@click.option("--max-sessions", type=click.IntRange(1, 1000), default=None, metavar="N",
              help="Browser tabs open at once (default: from this machine's memory, "
                   "about 100 MB a tab).")
@click.pass_context
def serve_cmd(ctx: click.Context, host: str, port: int, token_file: Path | None,
              no_token: bool, token_argument: str | None, max_sessions: int | None) -> None:
    """The app in a browser: each tab runs its own app on this database and profile.

    Every request needs the token, on loopback too: whoever has the link studies
    as this profile.
    """
    from studyapp.tui.serve_door import TOKEN_ENV, door_token, is_loopback

    settings = current_settings(ctx)
    lang = settings.lang
    if token_argument is not None:  # on the command line, `ps` shows it to every local user
        raise click.BadParameter(t("serve.token_on_command_line", lang, env=TOKEN_ENV),
                                 param_hint="--token")
    if no_token and token_file is not None:
        raise click.BadParameter(t("serve.no_token_and_token_file", lang),
                                 param_hint="--no-token")
    if no_token and not is_loopback(host):
        raise click.BadParameter(t("serve.no_token_off_loopback", lang, host=host),
                                 param_hint="--no-token")
    given = None if no_token else _given_token(token_file, lang)
    try:
        door = door_token(given, no_token=no_token)
    except ValueError as exc:
        source = "--token-file" if token_file is not None else TOKEN_ENV
        if str(exc).startswith("short:"):
            message = t("serve.short_token", lang, source=source,
                        n=int(str(exc).partition(":")[2]))
        else:
            message = t("serve.unprintable_token", lang, source=source)
        raise click.BadParameter(message, param_hint=source) from None
    service = make_service(settings)
    try:  # open (and migrate) the database once, before any tab does
        _ = service.profile
    finally:
        service.close()

    from studyapp.tui.serve import serve, share_url

    def announce(bound_port: int) -> None:
        click.echo(t("serve.listening", lang, url=share_url(host, bound_port, door)))
        if door:
            click.echo(t("serve.token_note", lang))
        else:
            click.echo(t("serve.no_token_warning", lang, profile=settings.profile), err=True)
        click.echo(t("serve.trusted_network", lang, profile=settings.profile))
        click.echo(t("serve.quit_hint", lang))

    try:
        serve(settings, host=host, port=port, token=door, on_ready=announce,
              max_sessions=max_sessions)
    except OSError as exc:
        fail(t("serve.cannot_listen", lang, host=host, port=port,
               reason=exc.strerror or str(exc)))
    click.echo(t("serve.stopped", lang))


def _given_token(token_file: Path | None, lang: str) -> str | None:
    """The owner's token: the file's first line, else ``STUDYAPP_TOKEN``, else none."""
    from studyapp.tui.serve_door import TOKEN_ENV

    if token_file is None:
        value = os.environ.get(TOKEN_ENV, "")
        return value.strip() if value else None
    try:  # non-blocking: a FIFO given as the file is refused, not waited on
        descriptor = os.open(token_file, os.O_RDONLY | os.O_NONBLOCK)
        with os.fdopen(descriptor, "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                fail(t("serve.token_file_unreadable", lang, path=token_file,
                       reason=t("serve.not_a_file", lang)))
            data = handle.read(MAX_TOKEN_FILE_BYTES + 1)
            shared = os.fstat(handle.fileno()).st_mode & (stat.S_IRGRP | stat.S_IROTH)
    except OSError as exc:
        fail(t("serve.token_file_unreadable", lang, path=token_file,
               reason=exc.strerror or str(exc)))
    if len(data) > MAX_TOKEN_FILE_BYTES:
        fail(t("serve.token_file_too_long", lang, path=token_file, n=MAX_TOKEN_FILE_BYTES))
    try:
        lines = data.decode("utf-8").splitlines()
    except UnicodeDecodeError:
        fail(t("serve.token_file_unreadable", lang, path=token_file,
               reason=t("serve.not_utf8", lang)))
    if shared:
        click.echo(t("serve.token_file_shared", lang, path=token_file), err=True)
    return lines[0].strip() if lines else ""
