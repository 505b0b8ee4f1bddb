"""Published decks keep every version: history, diff, rollback, and no publish undoes another.

A file is taken to be written from the version its machine last published
(``--replaces N`` says another); a publish from a stale file is refused with
what differs. Two publishes at once never get the same number: the database's
primary key (deck, version) lets one win and the other is refused, naming it.
"""

from __future__ import annotations

import re
import threading
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from deck_cache import with_checked_decks
from sqlalchemy import text
from store_answers import course_deck
from test_card_stats import downgrade

from studyapp.classroom import PublishRefused, deck_history, publish_deck_file
from studyapp.cli import main
from studyapp.decks import load_deck
from studyapp.store import HEAD, open_store
from studyapp.store import classroom as db
from studyapp.store.database import current_revision
from studyapp.study import StudyConfig, StudyService

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)

COURSE = course_deck(3)


def _cli(home: Path, url: str, *args: str, lang: str = "en", profile: str = "ana") -> Result:
    return CliRunner().invoke(main, ["--lang", lang, "--profile", profile, *args],
                              env={"STUDYAPP_HOME": str(home), "STUDYAPP_DB": url})


def _file(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_stale_file_is_refused_with_what_differs_and_every_version_is_kept(
        db_url: str, tmp_path: Path) -> None:
    ana, bo = tmp_path / "ana", tmp_path / "bo"
    mine = _file(ana, "course-kv.yaml", COURSE)
    assert "published version 1 (3 cards)" in _cli(ana, db_url, "deck", "publish",
                                                   str(mine)).output
    theirs = _file(bo, "course-kv.yaml", COURSE.replace("KV fact 2 holds.", "Bo's fact two."))
    # bo's machine never published the deck: which version the file came from is unknown
    unknown = _cli(bo, db_url, "deck", "publish", str(theirs), profile="bo")
    assert unknown.exit_code == 1
    assert "is at version 1 (published by ana" in unknown.output
    assert "+    prompt: \"Bo's fact two.\"" in unknown.output
    assert "--replaces 1" in unknown.output
    second = _cli(bo, db_url, "deck", "publish", str(theirs), "--replaces", "1", profile="bo")
    assert second.exit_code == 0, second.output
    assert "published version 2 (3 cards)" in second.output
    assert "version 2 replaces version 1" in second.output
    # ana edits her copy of version 1: publishing it would undo bo's version 2
    mine.write_text(COURSE.replace("KV fact 0 holds.", "Ana's fact zero."), encoding="utf-8")
    stale = _cli(ana, db_url, "deck", "publish", str(mine))
    assert stale.exit_code == 1
    assert ("version 2 (published by bo, 2026" in stale.output
            or "version 2 (published by bo (login " in stale.output)
    assert "is newer than version 1, which your file was written from" in stale.output
    assert "-    prompt: \"Bo's fact two.\"" in stale.output  # what she would undo
    assert "+    prompt: \"Ana's fact zero.\"" in stale.output
    # an older version named on purpose is refused as well
    assert _cli(ana, db_url, "deck", "publish", str(mine), "--replaces", "1").exit_code == 1
    assert "no version 7" in _cli(ana, db_url, "deck", "publish", str(mine), "--replaces",
                                  "7").output
    # she merges bo's change and says so
    mine.write_text(COURSE.replace("KV fact 0 holds.", "Ana's fact zero.")
                    .replace("KV fact 2 holds.", "Bo's fact two."), encoding="utf-8")
    merged = _cli(ana, db_url, "deck", "publish", str(mine), "--replaces", "2")
    assert "published version 3 (3 cards)" in merged.output, merged.output
    # her machine now knows her file is version 3: the next edit needs no option
    mine.write_text(mine.read_text(encoding="utf-8").replace("KV fact 1 holds.", "One."),
                    encoding="utf-8")
    assert "version 4 replaces version 3" in _cli(ana, db_url, "deck", "publish",
                                                  str(mine)).output
    # another file of the deck on her machine is not taken to be version 4
    copy = _file(ana / "elsewhere", "course-kv.yaml", COURSE.replace("KV fact 1", "Copy"))
    other = _cli(ana, db_url, "deck", "publish", str(copy))
    assert other.exit_code == 1 and "this machine has not published it" in other.output
    history = _cli(ana, db_url, "deck", "history", "course-kv")
    assert history.exit_code == 0
    rows = re.findall(r"version (\d+) .* by (\w+).*  (\d+) cards", history.output)
    assert rows == [("1", "ana", "3"), ("2", "bo", "3"),
                                                 ("3", "ana", "3"), ("4", "ana", "3")]
    diff = _cli(ana, db_url, "deck", "diff", "course-kv", "1", "2").output.splitlines()
    assert diff[:2] == ["--- course-kv version 1", "+++ course-kv version 2"]
    assert [line for line in diff if line[:1] in "+-" and line[:3] not in ("---", "+++")] == [
        '-    prompt: "KV fact 2 holds."', "+    prompt: \"Bo's fact two.\""]
    assert "have the same text" in _cli(ana, db_url, "deck", "diff", "course-kv", "2",
                                        "2").output
    missing = _cli(ana, db_url, "deck", "diff", "course-kv", "1", "9")
    assert missing.exit_code == 1 and "'9'" in missing.output and "1, 2, 3, 4" in missing.output


def test_rollback_publishes_an_old_text_as_the_next_version(db_url: str, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    home = tmp_path / "ana"
    source = _file(home, "course-kv.yaml", COURSE)
    _cli(home, db_url, "deck", "publish", str(source))
    source.write_text(COURSE.replace("  - id: fact-2\n    type: truefalse\n"
                                     "    prompt: \"KV fact 2 holds.\"\n    answer: true\n",
                                     ""), encoding="utf-8")
    assert "published version 2 (2 cards)" in _cli(home, db_url, "deck", "publish",
                                                   str(source)).output
    back = _cli(home, db_url, "deck", "rollback", "course-kv", "1", lang="es")
    assert back.exit_code == 0, back.output
    assert ("publicada la versión 3 (3 tarjetas) con el texto de la versión 1; la versión 3 "
            "sustituye a la 2") in back.output
    again = _cli(home, db_url, "deck", "rollback", "course-kv", "1")
    assert "version 3 already has the text of version 1" in again.output
    # the file still holds version 2's text: publishing it now would undo the rollback
    source.write_text(source.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")
    undo = _cli(home, db_url, "deck", "publish", str(source))
    assert undo.exit_code == 1 and "version 3 (published by ana" in undo.output
    monkeypatch.setenv("STUDYAPP_HOME", str(tmp_path / "student"))
    service = StudyService(StudyConfig(db_url=db_url, lang="en", profile="eve"))
    try:
        deck = next(d for d in service.decks if d.id == "course-kv")
        assert [c.id for c in deck.cards] == ["fact-0", "fact-1", "fact-2"]
        assert [v.version for v in deck_history(service, "course-kv")] == [1, 2, 3]
    finally:
        service.close()
    unknown = _cli(home, db_url, "deck", "rollback", "no-such-deck", "1")
    assert unknown.exit_code == 1 and "unknown published deck id 'no-such-deck'" in unknown.output


def test_two_publishes_at_once_never_share_a_number_and_the_loser_is_told(
        db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two instructors, both from version N, publish at the same moment, five times over:
    every round stores exactly one version N+1, with its publisher's text; the other is
    refused naming version N+1, and nothing is lost without a word."""
    first = _file(tmp_path / "a", "course-kv.yaml", COURSE)
    deck = load_deck(first)
    monkeypatch.setenv("STUDYAPP_HOME", str(tmp_path / "home"))
    services = [StudyService(StudyConfig(db_url=db_url, lang="en", clock=lambda: NOW,
                                         profile=name)) for name in ("ana", "bo")]
    try:
        publish_deck_file(services[0], deck, COURSE, by="ana")
        for round_ in range(5):
            base = round_ + 1
            texts = [COURSE.replace("KV fact 0 holds.", f"{name} round {round_}.")
                     for name in ("ana", "bo")]
            barrier = threading.Barrier(2)
            outcome: dict[int, object] = {}

            def publish(i: int, texts: list[str] = texts, base: int = base,
                        barrier: threading.Barrier = barrier,
                        outcome: dict[int, object] = outcome) -> None:
                barrier.wait()
                try:
                    outcome[i] = publish_deck_file(services[i], deck, texts[i],
                                                   by=("ana", "bo")[i], replaces=base).version
                except PublishRefused as exc:
                    outcome[i] = exc
            threads = [threading.Thread(target=publish, args=(i,)) for i in (0, 1)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(60)
            won = [i for i, got in outcome.items() if got == base + 1]
            lost = [got for got in outcome.values() if isinstance(got, PublishRefused)]
            assert len(won) == 1 and len(lost) == 1, outcome
            assert lost[0].latest is not None and lost[0].latest.version == base + 1
            assert f"version {base + 1} (published by {('ana', 'bo')[won[0]]}" in lost[0].render(
                "en")
            stored = db.latest_version(services[0].store, "course-kv")
            assert stored is not None and stored.version == base + 1
            assert stored.content == texts[won[0]]
            studied = {d.deck_id: (d.version, d.content) for d in
                       db.stored_decks(services[0].store)}
            assert studied["course-kv"] == (base + 1, texts[won[0]])
        assert [v.version for v in db.deck_versions(services[0].store, "course-kv")] == [
            1, 2, 3, 4, 5, 6]
    finally:
        for service in services:
            service.close()


def test_the_versions_published_before_are_carried_over(db_url: str, tmp_path: Path) -> None:
    store = open_store(db_url)
    try:
        downgrade(store, "0010_wrong_answers_index")
        with (store.write_engine or store.engine).begin() as conn:
            conn.execute(text("INSERT INTO published_decks (deck_id, version, content, "
                              "published_at) VALUES ('course-kv', 9, :c, :at)"),
                         {"c": COURSE, "at": NOW})
    finally:
        store.close()
    store = open_store(db_url, upgrade=True)  # as db upgrade does: version 9 carried over
    try:
        assert current_revision(store.engine) == HEAD
        carried = db.latest_version(store, "course-kv")
        assert carried is not None and (carried.version, carried.content) == (9, COURSE)
        assert carried.published_by is None
    finally:
        store.close()
    history = _cli(tmp_path / "ana", db_url, "deck", "history", "course-kv")
    assert "version 9" in history.output and "by ?  3 cards" in history.output
    source = _file(tmp_path / "ana", "course-kv.yaml", COURSE.replace("fact 1", "fact one"))
    published = _cli(tmp_path / "ana", db_url, "deck", "publish", str(source), "--replaces",
                     "9")
    assert "version 10 replaces version 9" in published.output, published.output


def test_a_database_made_anew_takes_the_deck_as_new(tmp_path: Path) -> None:
    """The version this machine remembers belongs to a database that is gone: a deck the new
    one has never seen is published as its version 1."""
    database = tmp_path / "class.sqlite3"
    url = f"sqlite:///{database}"
    home = tmp_path / "ana"
    source = _file(home, "course-kv.yaml", COURSE)
    _cli(home, url, "deck", "publish", str(source))
    source.write_text(COURSE.replace("fact 1", "fact one"), encoding="utf-8")
    assert "version 2 replaces version 1" in _cli(home, url, "deck", "publish",
                                                  str(source)).output
    database.unlink()
    again = _cli(home, url, "deck", "publish", str(source))
    assert again.exit_code == 0 and "published version 1 (3 cards)" in again.output


def test_two_machines_publishing_a_new_deck_at_once_get_one_version_1(
        db_url: str, tmp_path: Path) -> None:
    """Two processes, each its own machine's home, publish a deck the database has never
    seen: one stores version 1, the other is refused and told who published it."""
    import os
    import subprocess
    import sys

    runs = []
    for name in ("ana", "bo"):
        source = _file(tmp_path / name, "course-kv.yaml",
                       COURSE.replace("KV fact 0 holds.", f"{name}'s fact."))
        env = {**os.environ, "STUDYAPP_HOME": str(with_checked_decks(tmp_path / name)),
               "STUDYAPP_DB": db_url}
        runs.append(subprocess.Popen(
            [sys.executable, "-m", "studyapp", "--lang", "en", "--profile", name, "deck",
             "publish", str(source)], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            text=True))
    outputs = [run.communicate(timeout=120)[0] for run in runs]
    codes = [run.returncode for run in runs]
    assert sorted(codes) == [0, 1], outputs
    winner = ("ana", "bo")[codes.index(0)]
    assert "published version 1 (3 cards)" in outputs[codes.index(0)]
    assert (f"is at version 1 (published by {winner}" in outputs[codes.index(1)]
            and "nothing was published" in outputs[codes.index(1)])
    store = open_store(db_url)
    try:
        assert [v.version for v in db.deck_versions(store, "course-kv")] == [1]
        stored = db.latest_version(store, "course-kv")
        assert stored is not None and f"{winner}'s fact." in stored.content
    finally:
        store.close()
