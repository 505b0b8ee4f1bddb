"""The ``studyapp`` command: parses options, builds settings, runs one thing.

Imports are deferred into each command so that ``studyapp --help`` and the
TUI start quickly and ``--help`` touches no file.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from typing import Any, NoReturn

import click


@dataclass(frozen=True)
class Settings:
    """What every command needs to know about where and who."""

    db_url: str | None
    profile: str
    lang: str


def _settings(ctx: click.Context) -> Settings:
    obj = ctx.find_object(Settings)
    assert obj is not None
    return obj


def fail(message: str, code: int = 1) -> NoReturn:
    """A problem in the user's input: one clear line on stderr, no traceback."""
    click.echo(f"studyapp: {message}", err=True)
    sys.exit(code)


def echo_json(data: Any) -> None:
    click.echo(json.dumps(data, ensure_ascii=False, indent=2))


@click.group(invoke_without_command=True, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--db", "db_url", envvar="STUDYAPP_DB", default=None, metavar="URL",
              help="Database URL (default: SQLite in the user data folder).")
@click.option("--profile", envvar="STUDYAPP_PROFILE", default="default", show_default=True,
              help="Learner profile; profiles in one database never mix.")
@click.option("--lang", type=click.Choice(["es", "en"]), default=None,
              help="Language of posts, questions and interface (default: from the locale).")
@click.version_option(package_name="studyapp")
@click.pass_context
def main(ctx: click.Context, db_url: str | None, profile: str, lang: str | None) -> None:
    """Study the infrastructure behind AI models, with spaced repetition.

    Without a command, opens the terminal app on the home screen.
    """
    if lang is None:
        from studyapp.i18n import default_lang

        lang = default_lang()
    ctx.obj = Settings(db_url=db_url, profile=profile, lang=lang)
    if ctx.invoked_subcommand is None:
        from studyapp.tui.app import run_app

        run_app(ctx.obj)


# --- calc commands (studyapp.infra) ---

# --- study commands ---

# --- deck commands ---

# --- generate commands ---

# --- stats, export, import, class commands ---
