"""The ``studyapp`` command: parses options, builds settings, runs one thing.

Each command group lives in its own module of this package (``calc``,
``study``, ``progress`` for stats/export/import/backup, ``deck``,
``classroom`` for ``class``, ``generate``, ``tuning`` for optimize/plan,
``anki`` for ``export --format apkg`` and ``deck from-anki``, ``serve`` for the app in a
browser). A module is imported only when its command runs (or when the top-level
``--help`` lists every command), so ``studyapp`` opening the terminal app loads none
of them.

Adding a command group:

1. Write ``studyapp/cli/<group>.py`` with a ``@click.group()`` or
   ``@click.command()`` and its subcommands; take what every command shares
   from here: ``current_settings(ctx)``, ``make_service(settings)``,
   ``fail(message)``, ``echo_json(data)``. Let a user's error
   (``user_errors()``: the store, a deck, the catalog) propagate: the group
   words it once, in the reader's language, and exits 1. Catch only what
   this command words its own way, and re-raise a ``user_errors()`` one that
   a broad clause (``except ValueError``) would otherwise take.
2. Add one line to ``COMMANDS`` below: the command's name and
   ``"module:attribute"``.
3. Keep the module under 300 lines: a second group gets a second module.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn
from urllib.parse import parse_qsl, urlsplit

import click
from click.core import ParameterSource

from studyapp.config import Settings, resolve_settings
from studyapp.files import FileRefused
from studyapp.i18n import t
from studyapp.text import tolerate_encodings

if TYPE_CHECKING:
    from studyapp.study import StudyService

COMMANDS: dict[str, str] = {
    "backup": "progress:backup_cmd",
    "calc": "calc:calc",
    "catalog": "catalog:catalog",
    "cards": "cards:cards_cmd",
    "class": "classroom:class_group",
    "db": "class_roles:db_group",
    "deck": "deck:deck",
    "exam": "exam:exam_cmd",
    "export": "progress:export_cmd",
    "generate": "generate:generate",
    "import": "progress:import_cmd",
    "optimize": "tuning:optimize_cmd",
    "plan": "tuning:plan_cmd",
    "serve": "serve:serve_cmd",
    "stats": "progress:stats",
    "study": "study:study",
}
"""Command name → ``module:attribute`` in this package, imported when first needed."""


def current_settings(ctx: click.Context) -> Settings:
    """The settings ``main`` resolved from the global options and the environment."""
    obj = ctx.find_object(Settings)
    assert obj is not None
    return obj


def fail(message: str, code: int = 1) -> NoReturn:
    """A problem in the user's input: one clear line on stderr, no traceback."""
    click.echo(f"studyapp: {message}", err=True)
    sys.exit(code)


def echo_json(data: Any) -> None:
    """JSON as the standard reads it: a result that is not finite is an error, never ``NaN``."""
    try:
        text = json.dumps(data, ensure_ascii=False, indent=2, allow_nan=False)
    except ValueError:
        fail("a result is not a finite number: an input is past what can be computed")
    click.echo(text)


def pct(value: float | None) -> str:
    """A share as a whole percentage, or a dash when there is nothing to measure."""
    return "—" if value is None else f"{value * 100:.0f}%"


def make_service(settings: Settings, extra_decks: tuple[str, ...] = ()) -> StudyService:
    """The study service for these settings (the same one the terminal app builds)."""
    # loaded when the command runs, so that --help stays fast
    from studyapp.study import StudyConfig, StudyService

    return StudyService(StudyConfig(db_url=settings.db_url, profile=settings.profile,
                                    lang=settings.lang,
                                    extra_decks=tuple(Path(p) for p in extra_decks)))


USER_ERRORS: tuple[tuple[str, str], ...] = (
    ("studyapp.store.reconnect", "StoreError"),
    ("studyapp.catalog.errors", "UnknownIdError"),
    ("studyapp.decks.problems", "DeckError"),
    ("studyapp.catalog.loader", "CatalogError"),
    ("studyapp.catalog.hf_config", "HFConfigError"),
)
"""Module and name of each exception that is the user's input, besides ``FileRefused``."""

DATABASE_MODULES = ("studyapp.store", "sqlite3", "psycopg")
"""Where a database failure can come from: none loaded, none was met."""


def user_errors() -> tuple[type[Exception], ...]:
    """Exceptions that are the user's input, reported in one line.

    Only those whose module is loaded: an exception of a class never imported cannot
    have been raised, and importing the store and the decks to learn that cost a
    failed ``calc`` half a second.
    """
    return (FileRefused, *(getattr(sys.modules[module], name)
                           for module, name in USER_ERRORS if module in sys.modules))


def user_error_text(exc: Exception, lang: str) -> str:
    """One of ``user_errors()`` in words; a deck's or catalog's problems in the reader's
    language, a catalog's at file:line:col."""
    loader = sys.modules.get("studyapp.catalog.loader")  # a CatalogError has loaded it
    if loader is not None and isinstance(exc, loader.CatalogError):
        from studyapp.decks.catalog_check import catalog_error_text

        return catalog_error_text(exc, lang)
    render = getattr(exc, "render", None)
    return render(lang) if callable(render) else str(exc)


def _one_line(exc: Exception, lang: str = "en") -> str | None:
    """A failure the user can act on, as one line; None for a bug (which keeps its traceback).

    Bad database URLs and files are ``StoreError``s already; this catches what
    can go wrong later: a corrupt page met by a query, a server gone, a folder
    that cannot be written.
    """
    if isinstance(exc, user_errors()):
        return user_error_text(exc, lang)
    if any(module in sys.modules for module in DATABASE_MODULES):
        # the service stays out of --help and the app's start; a failed command has it loaded
        from studyapp.study import describe_failure

        described = describe_failure(exc, lang)
        if described is not None:
            return described
    if isinstance(exc, OSError):
        where = f"{exc.filename}: " if exc.filename else ""
        return f"{where}{exc.strerror or exc}"
    return None


MAX_PROFILE_NAME = 64
"""A profile name fits a report's column and a file name; longer ones are refused."""


def _profile_name(value: str) -> str:
    """A profile name a report can show: 1 to 64 printable characters, not only spaces."""
    name = value.strip()
    if not name:
        raise click.BadParameter("a profile name cannot be empty", param_hint="--profile")
    if len(name) > MAX_PROFILE_NAME:
        raise click.BadParameter(f"a profile name has at most {MAX_PROFILE_NAME} characters "
                                 f"(this one has {len(name)})", param_hint="--profile")
    if not name.isprintable():
        raise click.BadParameter("a profile name cannot hold control characters",
                                 param_hint="--profile")
    return name


def _carries_password(url: str) -> bool:
    """Does a database URL hold a password (``user:pw@`` or ``?password=``)?"""
    try:
        parts = urlsplit(url)
        return bool(parts.password) or any(
            key.lower() == "password" for key, _ in parse_qsl(parts.query))
    except ValueError:  # not a URL at all: the store words that when it opens it
        return "@" in url and ":" in url.rpartition("@")[0].partition("://")[2]


class LazyGroup(click.Group):
    """A group whose subcommands come from ``COMMANDS``, imported on first use.

    Whatever a command meets in the user's files or database ends as one line
    and exit 1, never a traceback.
    """

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (click.ClickException, click.exceptions.Exit, click.Abort):
            # a usage error, ``--help`` or ``ctx.exit()``: click's own, and no failure to word
            raise
        except BrokenPipeError:
            # the reader went away (``studyapp deck list | head``): nothing more to say, and
            # Python must not complain when it flushes stdout at exit (its documented way)
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            sys.exit(1)
        except Exception as exc:
            settings = ctx.find_object(Settings)
            message = _one_line(exc, settings.lang if settings is not None else "en")
            if message is None:
                raise
            fail(message)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.commands, *COMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in COMMANDS:
            module_name, _, attribute = COMMANDS[cmd_name].partition(":")
            module = importlib.import_module(f"{__name__}.{module_name}")
            command = getattr(module, attribute)
            assert isinstance(command, click.Command)
            from studyapp.cli.bounds import guard_numbers

            self.add_command(guard_numbers(command), cmd_name)
        return self.commands.get(cmd_name)


@click.group(cls=LazyGroup, invoke_without_command=True,
             context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--db", "db_url", envvar="STUDYAPP_DB", default=None, metavar="URL",
              help="Database URL (default: SQLite in the user data folder). A password "
                   "goes in STUDYAPP_DB or ~/.pgpass, never here.")
@click.option("--profile", envvar="STUDYAPP_PROFILE", default="default", show_default=True,
              callback=lambda ctx, param, value: _profile_name(value),
              help="Learner profile; profiles in one database never mix.")
@click.option("--lang", type=click.Choice(["es", "en"]), default=None,
              help="Language of posts, questions and interface (default: from the locale).")
@click.version_option(package_name="studyapp")
@click.pass_context
def main(ctx: click.Context, db_url: str | None, profile: str, lang: str | None) -> None:
    """Study the infrastructure behind AI models, with spaced repetition.

    Without a command, opens the terminal app on the home screen.
    """
    ctx.obj = resolve_settings(db_url, profile, lang)
    if (db_url is not None and _carries_password(db_url)
            and ctx.get_parameter_source("db_url") is ParameterSource.COMMANDLINE):
        # a command line is visible to every user of the machine (ps, /proc/<pid>/cmdline)

        raise click.BadParameter(t("cli.db_password", ctx.obj.lang), param_hint="--db")
    if ctx.invoked_subcommand is not None:
        tolerate_encodings()  # a command's output never stops at a character the terminal lacks
    else:
        from studyapp.tui.app import run_app  # Textual only when the app opens

        run_app(ctx.obj)


__all__ = [
    "COMMANDS",
    "Settings",
    "current_settings",
    "echo_json",
    "fail",
    "main",
    "make_service",
    "pct",
    "user_error_text",
    "user_errors",
]
