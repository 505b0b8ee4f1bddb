"""Bad URLs, foreign or broken files, locks, read-only databases and missing
terminals: one clear line and the right exit code, never a traceback."""

from __future__ import annotations

import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "store"))
from deck_cache import with_checked_decks  # noqa: E402
from store_answers import write_deck  # noqa: E402


def studyapp(*args: str, home: Path, stdin: str | None = "", timeout: float = 60,
             **env: str) -> subprocess.CompletedProcess[str]:
    exe = Path(sys.executable).with_name("studyapp")
    command = [str(exe)] if exe.exists() else [sys.executable, "-m", "studyapp"]
    environment = dict(os.environ, STUDYAPP_HOME=str(home), PYTHONPATH=str(ROOT))
    environment.pop("STUDYAPP_DB", None)
    environment.update(env)
    return subprocess.run([*command, "--lang", "en", *args], input=stdin, text=True,
                          capture_output=True, timeout=timeout, env=environment)


def one_clear_line(result: subprocess.CompletedProcess[str], code: int = 1) -> str:
    assert result.returncode == code, (result.stdout, result.stderr)
    assert "Traceback" not in result.stdout + result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("studyapp: "), result.stderr
    return lines[0]


@pytest.mark.parametrize("url", [
    "bogus", "bogus://x", "mysql://ana:s3cret-pw@localhost/class", "sqlite://",
    "postgresql+psycopg://ana:s3cret-pw@127.0.0.1:1/class",
])
def test_bad_urls_say_one_line_and_never_the_password(tmp_path: Path, url: str) -> None:
    # from the environment: --db refuses a URL with a password before opening it
    line = one_clear_line(studyapp("stats", home=tmp_path, STUDYAPP_DB=url))
    assert "s3cret-pw" not in line


def test_a_folder_as_database(tmp_path: Path) -> None:
    line = one_clear_line(studyapp("--db", f"sqlite:///{tmp_path}", "stats", home=tmp_path))
    assert "folder" in line


def test_another_applications_sqlite_file_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "notes.sqlite3"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE notes (body TEXT)")
    conn.commit()
    conn.close()
    before = path.read_bytes()
    line = one_clear_line(studyapp("--db", f"sqlite:///{path}", "stats", home=tmp_path))
    assert "not studyapp's" in line and "notes" in line
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.sqlite3"]


def test_a_corrupt_page_is_one_line(tmp_path: Path) -> None:
    home = with_checked_decks(tmp_path / "home")
    studyapp("study", "--plain", "--limit", "15", "--seed", "1", home=home, stdin="1\n" * 40)
    path = home / "data" / "studyapp.sqlite3"
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    conn.close()
    with path.open("r+b") as fh:
        for page in range(2, pages):
            fh.seek(page * 4096)
            fh.write(b"\xff" * 64)
    for command in (["stats"], ["study", "--plain"], ["export"]):
        line = one_clear_line(studyapp(*command, home=home))
        assert "malformed" in line or "not a database" in line, line


def test_an_unusable_home_is_one_line(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    one_clear_line(studyapp("stats", home=blocker / "home"))


def test_the_terminal_app_without_a_terminal_points_to_plain_mode(tmp_path: Path) -> None:
    for args in ([], ["study"]):
        line = one_clear_line(studyapp(*args, home=tmp_path, timeout=30), code=2)
        assert "study --plain" in line


def test_plain_mode_writes_what_an_ascii_output_can_carry(tmp_path: Path) -> None:
    result = studyapp("--lang", "es", "study", "--plain", "--post", "intro", "--limit", "3",
                      "--seed", "1", home=with_checked_decks(tmp_path), stdin="1\n" * 10,
                      PYTHONIOENCODING="ascii")
    assert result.returncode == 0, result.stderr
    assert re.search(r"^sesi.n: 3 respondidas", result.stdout, re.M), result.stdout[-300:]


def test_end_of_input_at_the_rating_records_good(tmp_path: Path) -> None:
    deck = write_deck(tmp_path)
    home = with_checked_decks(tmp_path / "home")
    result = studyapp("study", "--plain", "--deck", str(deck), home=home, stdin="y\n")
    assert result.returncode == 0, result.stderr
    assert "End of input: rated Good" in result.stdout
    assert "session: 1 answered, 1 correct" in result.stdout
    stats = studyapp("stats", "--json", home=home)
    assert '"reviews_total": 1' in stats.stdout


def test_a_writer_waits_for_another_and_says_so(tmp_path: Path) -> None:
    """The lock is held until the writer says it waits, then let go: no race with start-up."""
    home = with_checked_decks(tmp_path / "home")
    deck = write_deck(tmp_path)
    assert studyapp("stats", home=home).returncode == 0  # the database exists
    holder = sqlite3.connect(home / "data" / "studyapp.sqlite3", isolation_level=None,
                             check_same_thread=False)
    holder.execute("BEGIN IMMEDIATE")
    exe = Path(sys.executable).with_name("studyapp")
    command = [str(exe)] if exe.exists() else [sys.executable, "-m", "studyapp"]
    environment = dict(os.environ, STUDYAPP_HOME=str(home), PYTHONPATH=str(ROOT))
    environment.pop("STUDYAPP_DB", None)
    writer = subprocess.Popen([*command, "--lang", "en", "study", "--plain", "--deck",
                               str(deck), "--limit", "2"], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env=environment)
    assert writer.stdin is not None and writer.stderr is not None
    writer.stdin.write("n\nn\n")
    writer.stdin.flush()
    said = writer.stderr.readline()  # blocks until the writer meets the held lock
    holder.execute("COMMIT")
    holder.close()
    out, err = writer.communicate(timeout=120)
    assert writer.returncode == 0, err
    assert "another studyapp is writing, waiting..." in said
    assert "Traceback" not in said + err
    assert "session: 2 answered" in out


def test_a_failed_backup_leaves_the_previous_copy_whole(tmp_path: Path) -> None:
    from studyapp.store.backup import backup_sqlite

    target = tmp_path / "copy.sqlite3"
    target.write_bytes(b"previous copy")
    broken = tmp_path / "broken.sqlite3"
    broken.write_bytes(b"SQLite format 3\x00" + b"\xff" * 5000)
    with pytest.raises(sqlite3.DatabaseError):
        backup_sqlite(broken, target)
    assert target.read_bytes() == b"previous copy"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["broken.sqlite3", "copy.sqlite3"]


def test_a_read_only_database_reads_and_studies_as_practice(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Permissions are faked (tests may run as root, who may write anywhere)."""
    from click.testing import CliRunner

    from studyapp.cli import main

    home = with_checked_decks(tmp_path / "home")
    deck = write_deck(tmp_path)
    studyapp("study", "--plain", "--deck", str(deck), "--limit", "2", home=home,
             stdin="n\nn\n")
    path = home / "data" / "studyapp.sqlite3"
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda p, mode, **kw: False if mode & os.W_OK and
                        Path(p) in (path, path.parent) else real_access(p, mode, **kw))
    monkeypatch.setenv("STUDYAPP_HOME", str(home))
    before = path.read_bytes()
    runner = CliRunner()
    stats = runner.invoke(main, ["--lang", "en", "stats", "--json"])
    assert stats.exit_code == 0, stats.output
    assert '"reviews_total": 2' in stats.output
    study = runner.invoke(main, ["--lang", "en", "study", "--plain", "--deck", str(deck),
                                 "--limit", "2"], input="n\nn\n")
    assert study.exit_code == 0, study.output
    first_question = study.output.index("[1/")
    notice = study.output.index("Answers will not be recorded")
    assert notice < first_question and "read-only" in study.output[notice:first_question]
    assert path.read_bytes() == before
    assert '"reviews_total": 2' in runner.invoke(main, ["stats", "--json"]).output
