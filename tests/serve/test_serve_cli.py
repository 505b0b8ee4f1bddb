"""``studyapp serve`` refuses bad input in one line, never with a traceback."""

from __future__ import annotations

import socket
from pathlib import Path

from click.testing import CliRunner

from studyapp.cli import main


def test_an_empty_token_is_a_usage_error() -> None:
    result = CliRunner().invoke(main, ["--lang", "en", "serve", "--token", " "])
    assert result.exit_code == 2
    assert "--token must not be empty" in result.output
    assert "Traceback" not in result.output


def test_a_port_in_use_is_said_plainly(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = CliRunner().invoke(main, ["--db", f"sqlite:///{tmp_path / 'db.sqlite3'}",
                                           "--lang", "en", "serve", "--port", str(port)])
    assert result.exit_code == 1
    assert f"studyapp: cannot serve on 127.0.0.1:{port}: " in result.output
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)


def test_a_database_that_cannot_be_used_stops_before_serving(tmp_path: Path) -> None:
    not_a_database = tmp_path / "notes.txt"
    not_a_database.write_text("these are not study records\n" * 100)
    result = CliRunner().invoke(main, ["--db", f"sqlite:///{not_a_database}", "--lang", "en",
                                       "serve", "--port", "0"])
    assert result.exit_code == 1
    assert result.output.startswith("studyapp: ")
    assert "served at" not in result.output
