"""Every command writes what the output encoding can carry, as plain mode does.

Under an ASCII or Latin-1 terminal a Spanish accent, an arrow or a box
character must not stop ``stats``, ``cards`` or a CSV export to stdout.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from deck_cache import with_checked_decks


def run(home: Path, encoding: str, *args: str,
        stdin: str = "") -> subprocess.CompletedProcess[bytes]:
    env = os.environ | {"STUDYAPP_HOME": str(home), "PYTHONIOENCODING": encoding}
    env.pop("STUDYAPP_DB", None)
    return subprocess.run([sys.executable, "-m", "studyapp", "--lang", "es", *args],
                          input=stdin.encode(), capture_output=True, env=env, timeout=120,
                          check=False)


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory, _checked_builtin_decks: Path) -> Path:
    # the built-in decks already checked, as every test's own folder has them
    folder = with_checked_decks(tmp_path_factory.mktemp("home"), _checked_builtin_decks)
    done = run(folder, "utf-8", "study", "--post", "h200", "--plain", "--limit", "2",
               stdin="1\n\n2\n\n")
    assert done.returncode == 0, done.stderr
    return folder


@pytest.fixture(scope="module")
def utf8_lines(home: Path) -> dict[tuple[str, ...], int]:
    """Lines each command writes under UTF-8, run once per command for both encodings."""
    return {}


@pytest.mark.slow
@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
@pytest.mark.parametrize("args", [("stats",), ("cards", "post:h200"),
                                  ("export", "--format", "csv"), ("class", "report")])
def test_commands_finish_under_a_narrow_output_encoding(
        home: Path, utf8_lines: dict[tuple[str, ...], int], encoding: str,
        args: tuple[str, ...]) -> None:
    done = run(home, encoding, *args)
    assert done.returncode == 0, done.stderr.decode(encoding, "replace")
    assert b"Traceback" not in done.stderr
    text = done.stdout.decode(encoding)  # every byte is in the terminal's encoding
    if args not in utf8_lines:
        utf8_lines[args] = len(run(home, "utf-8", *args).stdout.decode("utf-8").splitlines())
    assert len(text.splitlines()) == utf8_lines[args]  # nothing cut short
