"""``studyapp deck list`` says which decks this profile studies (on/off, ``enabled``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from studyapp.cli import main


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "home"
    monkeypatch.setenv("STUDYAPP_HOME", str(folder))
    return folder


def run(*args: str) -> Result:
    result = CliRunner().invoke(main, ["--lang", "en", *args])
    assert result.exit_code == 0, result.output
    return result


def test_deck_list_has_an_on_off_column_that_follows_enable() -> None:
    def mark(deck_id: str) -> str:
        line = next(line for line in run("deck", "list").output.splitlines()
                    if line.startswith(deck_id + " "))
        return line.split()[1]

    assert mark("numeric-drill") == "off" and mark("post-h200") == "on"
    run("deck", "enable", "numeric-drill")
    run("deck", "disable", "post-h200")
    assert mark("numeric-drill") == "on" and mark("post-h200") == "off"


def test_deck_list_json_adds_enabled_and_keeps_every_field() -> None:
    run("deck", "disable", "post-h200")
    data = {d["id"]: d for d in json.loads(run("deck", "list", "--json").output)}
    assert data["post-h200"]["enabled"] is False
    assert data["post-intro"]["enabled"] is True
    assert data["numeric-drill"]["enabled"] is False
    assert set(data["post-intro"]) == {"id", "source", "path", "status", "cards", "title",
                                       "problems", "draw_problems", "enabled"}
