"""``study --plain`` at today's new-card limit names the ways on: ``--more-new N``
(the app's m key) and ``--practice``."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from studyapp.cli import main
from studyapp.study import StudyConfig, StudyService


def no_new_cards_today(url: str) -> None:
    service = StudyService(StudyConfig(db_url=url))
    try:
        service.update_settings(new_per_day=0)
    finally:
        service.close()


@pytest.mark.parametrize(("lang", "words"), [("en", "more new cards today"),
                                             ("es", "tarjetas nuevas más hoy")])
def test_the_limit_message_names_more_new_and_practice(tmp_path: Path, lang: str,
                                                       words: str) -> None:
    url = f"sqlite:///{tmp_path / 'limit.sqlite3'}"
    no_new_cards_today(url)
    env = {"STUDYAPP_HOME": str(tmp_path / "home")}
    result = CliRunner().invoke(main, ["--db", url, "--lang", lang, "study", "--deck",
                                       "post-h200", "--plain"], input="", env=env)
    assert result.exit_code == 0, result.output
    assert words in result.output
    assert "--more-new 10" in result.output and "--practice" in result.output


def test_more_new_studies_new_cards_past_the_limit(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'limit.sqlite3'}"
    no_new_cards_today(url)
    env = {"STUDYAPP_HOME": str(tmp_path / "home")}
    result = CliRunner().invoke(main, ["--db", url, "--lang", "en", "study", "--deck",
                                       "post-h200", "--plain", "--more-new", "2"],
                                input="", env=env)
    assert result.exit_code == 0, result.output
    assert "[1/2]" in result.output
    assert "--more-new" not in result.output
