"""``studyapp serve``: the terminal app in a browser, one app process per tab."""

from __future__ import annotations

import click

from studyapp.cli import current_settings, fail, make_service


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on; anything but loopback needs a token.")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True,
              help="Port to listen on (0: any free port).")
@click.option("--token", default=None, metavar="T",
              help="Access token (default off loopback: a random one, printed in the link).")
@click.option("--max-sessions", type=click.IntRange(1, 1000), default=None, metavar="N",
              help="Browser tabs open at once (default: from this machine's memory, "
                   "about 100 MB a tab).")
@click.pass_context
def serve_cmd(ctx: click.Context, host: str, port: int, token: str | None,
              max_sessions: int | None) -> None:
    """The app in a browser: each tab runs its own app on this database and profile.

    For a trusted network only: whoever has the link studies as this profile.
    """
    from studyapp.i18n import t

    settings = current_settings(ctx)
    lang = settings.lang
    if token is not None and not token.strip():
        raise click.BadParameter(t("serve.empty_token", lang), param_hint="--token")
    service = make_service(settings)
    try:  # open (and migrate) the database once, before any tab does
        _ = service.profile
    finally:
        service.close()

    from studyapp.tui.serve import door_token, serve, share_url

    door = door_token(host, token)

    def announce(bound_port: int) -> None:
        click.echo(t("serve.listening", lang, url=share_url(host, bound_port, door)))
        if door:
            click.echo(t("serve.token_note", lang))
        click.echo(t("serve.trusted_network", lang, profile=settings.profile))
        click.echo(t("serve.quit_hint", lang))

    try:
        serve(settings, host=host, port=port, token=door, on_ready=announce,
              max_sessions=max_sessions)
    except OSError as exc:
        fail(t("serve.cannot_listen", lang, host=host, port=port,
               reason=exc.strerror or str(exc)))
    click.echo(t("serve.stopped", lang))
