"""``studyapp serve`` refuses bad input in one line, never with a traceback."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from studyapp.cli import main


def serve_cli(tmp_path: Path, *args: str, env: dict[str, str | None] | None = None,
              global_args: tuple[str, ...] = ()) -> Result:
    return CliRunner().invoke(
        main, ["--db", f"sqlite:///{tmp_path / 'db.sqlite3'}", "--lang", "en", *global_args,
               "serve", "--port", "0", *args],
        env={"STUDYAPP_HOME": str(tmp_path / "home"), "STUDYAPP_TOKEN": None,
             "STUDYAPP_DB": None} | (env or {}))


def one_usage_error(result: Result, *words: str) -> None:
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output and "served at" not in result.output
    error = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert len(error) == 1 and all(word in error[0] for word in words), result.output


def test_a_token_on_the_command_line_is_refused_with_where_to_give_it(tmp_path: Path) -> None:
    result = serve_cli(tmp_path, "--token", "a-long-enough-token-for-a-class")
    one_usage_error(result, "visible to every user", "STUDYAPP_TOKEN", "--token-file")
    assert "a-long-enough-token-for-a-class" not in result.output


@pytest.mark.parametrize("token", ["x", "fifteen-chars-x", " "])
def test_a_short_token_is_refused_in_one_line(tmp_path: Path, token: str) -> None:
    result = serve_cli(tmp_path, env={"STUDYAPP_TOKEN": token})
    one_usage_error(result, "STUDYAPP_TOKEN", f"has {len(token.strip())} characters",
                    "at least 16")
    file = tmp_path / "token"
    file.write_text(token + "\n")
    file.chmod(0o600)
    one_usage_error(serve_cli(tmp_path, "--token-file", str(file)), "--token-file",
                    "at least 16")


def test_a_token_file_that_cannot_be_read_is_one_line(tmp_path: Path) -> None:
    missing = serve_cli(tmp_path, "--token-file", str(tmp_path / "absent"))
    assert missing.exit_code == 1
    assert missing.output.startswith("studyapp: cannot read the token file ")
    assert missing.output.count("\n") == 1
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    refused = serve_cli(tmp_path, "--token-file", str(fifo))  # returns, never waits on it
    assert refused.exit_code == 1 and "not a regular file" in refused.output


def test_no_token_is_for_loopback_only_and_never_with_a_token_file(tmp_path: Path) -> None:
    one_usage_error(serve_cli(tmp_path, "--no-token", "--host", "0.0.0.0"),
                    "--no-token", "loopback", "0.0.0.0")
    file = tmp_path / "token"
    file.write_text("a-long-enough-token-for-a-class\n")
    one_usage_error(serve_cli(tmp_path, "--no-token", "--token-file", str(file)),
                    "cannot go together")


@pytest.mark.parametrize("url", [
    "postgresql+psycopg://class:s3cr3t-pw@127.0.0.1:5432/study",
    "postgresql://class:s3cr3t-pw@db.example/study?sslmode=require",
    "postgresql+psycopg://class@db.example/study?password=s3cr3t-pw",
])
def test_a_database_password_on_the_command_line_is_refused(tmp_path: Path, url: str) -> None:
    result = CliRunner().invoke(main, ["--lang", "en", "--db", url, "serve"],
                                env={"STUDYAPP_HOME": str(tmp_path), "STUDYAPP_DB": None})
    one_usage_error(result, "--db", "visible to every user", "STUDYAPP_DB", ".pgpass")
    assert "s3cr3t-pw" not in result.output
    es = CliRunner().invoke(main, ["--lang", "es", "--db", url, "stats"],
                            env={"STUDYAPP_HOME": str(tmp_path), "STUDYAPP_DB": None})
    one_usage_error(es, "--db", "STUDYAPP_DB", ".pgpass")


def test_a_database_url_without_password_or_from_the_environment_is_taken(
        tmp_path: Path) -> None:
    """Only the command line is refused: STUDYAPP_DB (seen by this user alone) may hold it."""
    bad_port = "postgresql://class:s3cr3t-pw@db.example:abc/study"
    from_env = CliRunner().invoke(main, ["--lang", "en", "stats"],
                                  env={"STUDYAPP_HOME": str(tmp_path), "STUDYAPP_DB": bad_port})
    assert from_env.exit_code == 1 and "its port is not a number" in from_env.output
    no_password = CliRunner().invoke(main, ["--lang", "en", "--db",
                                            "postgresql://class@db.example:abc/study", "stats"],
                                     env={"STUDYAPP_HOME": str(tmp_path), "STUDYAPP_DB": None})
    assert no_password.exit_code == 1 and "its port is not a number" in no_password.output


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
