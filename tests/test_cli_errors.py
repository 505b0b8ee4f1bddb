"""A user's error is worded once, by the ``studyapp`` group: every command that
meets one ends with the same single line and exit 1, in the reader's language."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from deck_cache import with_checked_decks

from studyapp.cli import main


def folder_as_database(tmp_path: Path) -> str:
    """A folder where the database file should be: a StoreError once a command opens it."""
    folder = tmp_path / "not-a-file"
    folder.mkdir(exist_ok=True)
    return f"sqlite:///{folder}"


def run(tmp_path: Path, *args: str, lang: str = "en") -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["--lang", lang, "--db", folder_as_database(tmp_path), *args],
                                env={"STUDYAPP_HOME": str(tmp_path / "home"),
                                     "STUDYAPP_DB": None})
    assert result.exception is None or isinstance(result.exception, SystemExit), \
        result.exception
    return result.exit_code, result.stdout, result.stderr


def export_file(tmp_path: Path) -> str:
    path = tmp_path / "progress.json"
    path.write_text(json.dumps({"format": "studyapp-progress", "version": 1, "records": []}))
    return str(path)


@pytest.mark.parametrize("args", [
    ["stats"],
    ["export"],
    ["export", "-o", "{tmp}/out.json"],
    ["export", "--format", "apkg", "-o", "{tmp}/out.apkg"],
    ["import", "{export}"],
    ["backup", "-o", "{tmp}/copy.sqlite3"],
    ["cards", "is:due"],
    ["class", "report"],
    ["optimize"],
    ["optimize", "--undo"],
    ["plan", "--exam", "2030-01-15"],
    ["study", "--plain"],
    ["study", "--new-order", "random"],
    ["study", "--more-new", "5"],
    ["serve", "--port", "0"],
], ids=" ".join)
def test_a_store_error_is_one_line_from_every_command(tmp_path: Path, args: list[str]) -> None:
    args = [a.format(tmp=tmp_path, export=export_file(tmp_path) if "{export}" in a else "")
            for a in args]
    code, out, err = run(tmp_path, *args)
    assert code == 1, (out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("studyapp: ") and "folder" in lines[0], err
    assert "Traceback" not in out + err


def test_a_deck_error_in_optimize_is_worded_as_a_deck_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A deck's problem is a ValueError too; it is worded as a deck's problem, not as a
    history the optimizer refused."""
    import studyapp.tuning
    from studyapp.decks.problems import DeckError

    def broken(*_args: object, **_kw: object) -> None:
        raise DeckError([])

    monkeypatch.setattr(studyapp.tuning, "optimize_profile", broken)
    result = CliRunner().invoke(main, ["--lang", "en", "optimize"],
                                env={"STUDYAPP_HOME": str(tmp_path), "STUDYAPP_DB": None})
    assert result.exit_code == 1
    assert result.stderr == "studyapp: invalid deck\n"

    def refused(*_args: object, **_kw: object) -> None:
        raise ValueError("too few reviews")

    monkeypatch.setattr(studyapp.tuning, "optimize_profile", refused)
    result = CliRunner().invoke(main, ["--lang", "en", "optimize"],
                                env={"STUDYAPP_HOME": str(tmp_path), "STUDYAPP_DB": None})
    assert result.exit_code == 1
    assert "too few reviews" in result.stderr and "invalid deck" not in result.stderr


@pytest.mark.parametrize("args", [["deck", "list"], ["catalog", "schema"]])
def test_output_piped_into_a_reader_that_stops_ends_quietly(
        tmp_path: Path, args: list[str]) -> None:
    """``studyapp deck list | head -1``: the reader closes the pipe; no "Broken pipe"."""
    import subprocess
    import sys

    env = {**__import__("os").environ, "STUDYAPP_HOME": str(with_checked_decks(tmp_path / "home"))}
    proc = subprocess.Popen([sys.executable, "-m", "studyapp", "--lang", "en", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # closed before the command writes its first line
    stderr = proc.stderr.read().decode()
    proc.wait(timeout=60)
    assert stderr == "", stderr
    assert proc.returncode == 1


LOADS_OF_A_FAILED_CALC = """\
import sys
from studyapp.cli import main
for args in (["calc", "--help"], ["stats", "--help"],
             ["--lang", "en", "calc", "kv", "--model", "no-such-model", "--tokens", "8192"]):
    try:
        main(args)
    except SystemExit as ended:
        print("exit", ended.code)
print("loaded", sorted(m for m in ("sqlalchemy", "studyapp.store", "studyapp.decks",
                                   "studyapp.study") if m in sys.modules))
"""


def test_help_and_a_calculators_error_load_neither_the_store_nor_the_decks(
        tmp_path: Path) -> None:
    """A command's ``--help`` (click ends it with ``Exit``) and a user's error met by the
    calculator are worded without importing the store, the decks or the study service,
    which took a second of CPU before the first line."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "STUDYAPP_HOME": str(tmp_path / "home")}
    done = subprocess.run([sys.executable, "-c", LOADS_OF_A_FAILED_CALC], env=env,
                          capture_output=True, text=True, timeout=60, check=False)
    lines = done.stdout.splitlines()
    assert [line for line in lines if line.startswith("exit ")] == ["exit 0", "exit 0",
                                                                   "exit 1"], done.stderr
    assert "no-such-model" in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert lines[-1] == "loaded []", lines[-1]
