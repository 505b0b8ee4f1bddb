"""``studyapp class setup`` and ``add-student`` / ``add-instructor``: a class's logins.

Run by the database's owner. The server then enforces who reads and writes
what; these commands only create the roles and logins and say what was made.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TypeVar

import click

from studyapp.cli import current_settings, fail
from studyapp.i18n import t

DB_HELP = "Database URL (PostgreSQL); the same as the global --db."


def _url(ctx: click.Context, db_url: str | None) -> str:
    return db_url or current_settings(ctx).url


@click.command("setup")
@click.option("--db", "db_url", default=None, metavar="URL", help=DB_HELP)
@click.pass_context
def class_setup(ctx: click.Context, db_url: str | None) -> None:
    """Make the class's instructor and student roles, with row-level security (owner only).

    Run again at any time: it lays every grant and policy afresh.
    """
    from studyapp.study.roles import set_up  # the store: loaded when the command runs

    lang = current_settings(ctx).lang
    roles = set_up(_url(ctx, db_url))
    click.echo(t("class.setup.done", lang, instructors=roles.instructors,
                 students=roles.students))
    click.echo(t("class.setup.next", lang))


def _add(ctx: click.Context, name: str, profile: str | None, password_stdin: bool,
         db_url: str | None, *, instructor: bool) -> None:
    from studyapp.study.roles import add_member  # the store: loaded when the command runs

    lang = current_settings(ctx).lang
    password: str | None = None
    if password_stdin:
        password = sys.stdin.readline().rstrip("\r\n")
        if not password:
            fail(t("class.login.empty_password", lang))
    made = add_member(_url(ctx, db_url), name, profile, password, instructor=instructor)
    click.echo(t("class.login.made", lang, login=made.login, group=made.group,
                 profile=made.profile))
    if made.generated:
        click.echo(t("class.login.password", lang, password=made.password))
    click.echo(t("class.login.connect", lang, url=made.url, profile=made.profile))


F = TypeVar("F", bound=Callable[..., None])


def _login_options(function: F) -> F:
    """The arguments add-student and add-instructor share."""
    for option in reversed([
        click.argument("name"),
        click.option("--profile", "profile", default=None, metavar="PROFILE",
                     help="The profile this login studies as (default: NAME)."),
        click.option("--password-stdin", is_flag=True,
                     help="Read the password from standard input instead of making one."),
        click.option("--db", "db_url", default=None, metavar="URL", help=DB_HELP),
    ]):
        function = option(function)
    return function


@click.command("add-student")
@_login_options
@click.pass_context
def class_add_student(ctx: click.Context, name: str, profile: str | None, password_stdin: bool,
                      db_url: str | None) -> None:
    """A login for one student, bound to one profile; its password is printed once."""
    _add(ctx, name, profile, password_stdin, db_url, instructor=False)


@click.command("add-instructor")
@_login_options
@click.pass_context
def class_add_instructor(ctx: click.Context, name: str, profile: str | None,
                         password_stdin: bool, db_url: str | None) -> None:
    """A login for an instructor: publishes decks and reads the class report."""
    _add(ctx, name, profile, password_stdin, db_url, instructor=True)


@click.group("db")
def db_group() -> None:
    """The database itself: its schema."""


@db_group.command("upgrade")
@click.option("--no-backup", is_flag=True,
              help="Upgrade without taking a backup first (you took one yourself).")
@click.option("--db", "db_url", default=None, metavar="URL", help=DB_HELP)
@click.pass_context
def db_upgrade(ctx: click.Context, no_backup: bool, db_url: str | None) -> None:
    """Upgrade a shared database's schema, after a backup (owner only).

    On PostgreSQL the backup is a pg_dump of studyapp's schema; a class's
    roles and policies are laid again afterwards.
    """
    from studyapp.study.roles import upgrade  # the store: loaded when the command runs

    lang = current_settings(ctx).lang
    done = upgrade(_url(ctx, db_url), backup=not no_backup)
    if done.before == done.after:
        click.echo(t("db.upgrade.current", lang, revision=done.after))
        return
    if done.backup is not None:
        key = "db.upgrade.backup" if done.dumped else "db.upgrade.copy"
        click.echo(t(key, lang, path=str(done.backup)))
    elif done.before is not None:
        click.echo(t("db.upgrade.no_backup", lang))
    click.echo(t("db.upgrade.done", lang, before=done.before or "—", after=done.after))
    if done.class_roles:
        click.echo(t("db.upgrade.roles", lang))
