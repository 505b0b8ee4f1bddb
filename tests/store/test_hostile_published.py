"""A published_decks table nobody checked: hostile ids, bad decks and failing cards.

Rows are planted straight into the database, past ``deck publish``, as anyone
with write access to a class database could. Whatever they hold, nothing is
written outside the ``published`` folder, the rest of the class's decks keep
working, and each row or card left out is said in one line.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from studyapp.cli import main
from studyapp.deck_ids import MAX_DECK_ID_LENGTH, is_deck_id
from studyapp.srs import Rating
from studyapp.store import open_store
from studyapp.store.classroom import check_deck_id, publish_version, stored_decks
from studyapp.store.tables import PublishedDeck
from studyapp.study import SessionKind, StudyConfig, StudyService
from studyapp.study.published import published_decks, published_file

NOW = datetime(2026, 3, 2, 12, tzinfo=UTC)


def deck_text(deck_id: str, *cards: str) -> str:
    body = "".join(cards) or GOOD_CARD
    return f"deck: {deck_id}\ntitle: Class\nlanguage: en\npost: intro\ncards:\n{body}"


GOOD_CARD = """\
  - id: fine
    type: truefalse
    prompt: "A fine question."
    answer: true
"""
BAD_CARDS = """\
  - id: power
    type: numeric
    prompt: "What is {10**1000:e}?"
    answer: "ceil(1e308)*ceil(1e308)"
  - id: generous
    type: numeric
    prompt: "Anything?"
    answer: "3"
    tolerance: 1e308%
"""


def hostile_ids(tmp_path: Path) -> list[str]:
    return ["../../../x", str(tmp_path / "abs"), "../catalog", "a/b", "", "a" * 200,
            "ñandú", "Kv_Cache", "..", ".hidden", "x\x1b]52;c;aGk=\x07", "a\nb"]


def plant(url: str, rows: dict[str, str]) -> None:
    """Rows written into published_decks directly, as a hostile client could."""
    store = open_store(url)
    try:
        with store.transaction() as session:
            for deck_id, content in rows.items():
                session.add(PublishedDeck(deck_id=deck_id, version=1, content=content,
                                          published_at=NOW))
    finally:
        store.close()


def run(home: Path, url: str, *args: str, input: str | None = None) -> Result:
    env = {"STUDYAPP_HOME": str(home), "STUDYAPP_DB": url}
    return CliRunner().invoke(main, ["--lang", "en", *args], env=env, input=input)


def yaml_files(root: Path) -> set[Path]:
    return {p for p in root.rglob("*.yaml") if p.is_file()}


@pytest.mark.parametrize("deck_id", ["kv-cache-drill", "post-h200", "a", "0", "a" * 100,
                                     "serving-llms-course", "anki-deck-2"])
def test_the_ids_decks_use_are_slugs(deck_id: str) -> None:
    assert is_deck_id(deck_id)


@pytest.mark.parametrize("deck_id", ["", "-a", "A", "a_b", "a.b", "a/b", "../x", "/tmp/x",
                                     "a" * (MAX_DECK_ID_LENGTH + 1), "ñ", "a\n", "a b", "١٢"])
def test_anything_else_is_not(deck_id: str) -> None:
    assert not is_deck_id(deck_id)
    with pytest.raises(ValueError, match="not a deck id"):
        check_deck_id(deck_id)


def test_the_store_refuses_to_publish_a_hostile_id(db_url: str) -> None:
    store = open_store(db_url)
    try:
        with pytest.raises(ValueError, match="not a deck id"):
            publish_version(store, "../../../x", deck_text("x"), NOW, base=None, by=None,
                            cards=1)
        assert stored_decks(store) == []
    finally:
        store.close()


def test_a_file_with_a_hostile_deck_id_is_not_published(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'class.sqlite3'}"
    source = tmp_path / "evil.yaml"
    source.write_text(deck_text("../catalog"), encoding="utf-8")
    result = run(tmp_path / "home", url, "deck", "publish", str(source))
    assert result.exit_code == 1
    assert f"{source}:1:7: a deck id is a slug" in result.output
    store = open_store(url)
    try:
        assert stored_decks(store) == []
    finally:
        store.close()


def test_hostile_ids_write_nothing_and_every_command_still_works(
        db_url: str, tmp_path: Path) -> None:
    home = tmp_path / "home"
    published = home / "data" / "published"
    hostile = hostile_ids(tmp_path)
    plant(db_url, {**{deck_id: deck_text("fine-deck") for deck_id in hostile},
                   "fine-deck": deck_text("fine-deck")})
    before = yaml_files(tmp_path)
    for args, stdin in [(("stats",), None), (("deck", "list"), None),
                        (("study", "--plain", "--deck", "fine-deck"), "y\n\n"),
                        (("class", "report"), None), (("stats",), None)]:
        result = run(home, db_url, *args, input=stdin)
        assert result.exit_code == 0, (args, result.output)
        assert "Traceback" not in result.output
        # one line per hostile row, each saying it was skipped and nothing written
        said = [line for line in result.output.splitlines() if "is not a deck id" in line]
        assert len(said) == len(hostile), result.output
        assert all("skipped, nothing written" in line and "\x1b" not in line for line in said)
    assert yaml_files(tmp_path) - before == {published / "fine-deck.yaml"}
    assert sorted(p.name for p in published.iterdir()) == ["fine-deck.yaml"]
    assert not (tmp_path / "x.yaml").exists() and not (tmp_path / "abs.yaml").exists()
    assert not (home / "data" / "catalog.yaml").exists()
    listed = run(home, db_url, "deck", "list")
    assert "fine-deck" in listed.output and "published" in listed.output
    studied = run(home, db_url, "study", "--plain", "--deck", "fine-deck", input="y\n\n")
    assert "A fine question." in studied.output or "nothing to study" in studied.output.lower()


def test_a_deck_too_large_to_read_is_not_written(db_url: str, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("STUDYAPP_HOME", str(tmp_path / "home"))
    huge = deck_text("huge") + "# " + "x" * 5_000_000 + "\n"
    plant(db_url, {"huge": huge, "kv-class": deck_text("kv-class")})
    store = open_store(db_url)
    try:
        assert [d.id for d in published_decks(store, "en")] == ["kv-class"]
    finally:
        store.close()
    assert not (tmp_path / "home" / "data" / "published" / "huge.yaml").exists()
    assert "the published deck huge does not load here and is skipped: file is 50" in (
        capsys.readouterr().err)


def test_a_row_naming_another_deck_is_skipped(db_url: str, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    plant(db_url, {"innocent": deck_text("post-h200")})
    store = open_store(db_url)
    try:
        assert published_decks(store, "en") == []
    finally:
        store.close()
    assert "the published deck innocent holds a deck named 'post-h200': skipped" in (
        capsys.readouterr().err)


def test_a_bad_card_is_skipped_and_the_rest_of_its_deck_studied(
        db_url: str, tmp_path: Path) -> None:
    home = tmp_path / "home"
    plant(db_url, {"half-bad": deck_text("half-bad", GOOD_CARD, BAD_CARDS),
                   "all-bad": deck_text("all-bad", BAD_CARDS),
                   "kv-class": deck_text("kv-class")})
    for args, stdin in [(("stats",), None), (("deck", "list"), None),
                        (("class", "report"), None),
                        (("study", "--plain", "--deck", "half-bad"), "y\n\n")]:
        result = run(home, db_url, *args, input=stdin)
        assert result.exit_code == 0, (args, result.output)
        out = result.output
        assert "Traceback" not in out
        assert "card 'power' of deck half-bad fails and is skipped: " in out
        assert "half-bad.yaml:13:13: a number (1e+308) is too large" in out
        assert "card 'generous' of deck half-bad fails and is skipped: " in out
        assert "a relative tolerance is at most 50%" in out
        assert "the published deck all-bad does not load here and is skipped" in out
    listed = run(home, db_url, "deck", "list", "--json")
    cards = {d["id"]: d.get("cards") for d in _json_tail(listed.output)}
    assert cards["half-bad"] == 1 and cards["kv-class"] == 1 and "all-bad" not in cards
    studied = run(home, db_url, "study", "--plain", "--deck", "half-bad", input="y\n\n")
    assert "A fine question." in studied.output


def _json_tail(output: str) -> list[dict[str, object]]:
    """The JSON array a command printed after its notices."""
    import json

    return list(json.loads(output[output.index("\n["):] if not output.startswith("[")
                           else output))


def test_a_card_failing_at_study_time_is_skipped_once(
        db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A draw that fails although the deck was checked (a value validation never met)
    skips that card, says so once, and the sitting goes on with the others."""
    monkeypatch.setenv("STUDYAPP_HOME", str(tmp_path / "home"))
    second = GOOD_CARD.replace("id: fine", "id: also-fine").replace("A fine", "Another fine")
    plant(db_url, {"drill": deck_text("drill", GOOD_CARD, second)})
    svc = StudyService(StudyConfig(db_url=db_url, lang="en", clock=lambda: NOW))
    try:
        deck = next(d for d in svc.decks if d.id == "drill")
        # what a deck checked by an older studyapp could hold: a card whose draw fails
        failing = replace(deck.cards[0], type="numeric", answer="10**1000")
        svc.decks = [d for d in svc.decks if d.id != "drill"] + [
            replace(deck, cards=(failing, deck.cards[1]))]
        session = svc.start(SessionKind.DECK, deck="drill", seed=1)
        shown = []
        while (presented := session.next()) is not None:
            shown.append(presented.card_key)
            if session.submit("y").needs_rating:
                session.rate(Rating.GOOD)
        again = svc.start(SessionKind.DECK, deck="drill", seed=2)
        while (presented := again.next()) is not None:
            shown.append(presented.card_key)
            again.skip()
            break
    finally:
        svc.close()
    assert "fine" not in shown and shown[0] == "also-fine"
    err = capsys.readouterr().err
    notices = [line for line in err.splitlines() if "fails and is skipped" in line]
    assert notices == [notices[0]] and "card 'fine' of deck 'drill'" in notices[0]
    assert "too large" in notices[0]


def test_the_published_file_stays_in_its_folder_and_replaces_a_planted_link(
        tmp_path: Path) -> None:
    folder = tmp_path / "published"
    victim = tmp_path / "victim.yaml"
    victim.write_text("mine", encoding="utf-8")
    folder.mkdir()
    (folder / "kv.yaml").symlink_to(victim)
    path = published_file(folder, "kv", deck_text("kv"))
    assert path == folder / "kv.yaml" and not path.is_symlink()
    assert victim.read_text(encoding="utf-8") == "mine"
    assert path.read_text(encoding="utf-8") == deck_text("kv")
    for deck_id in ("../x", "/tmp/x", "a/b", ""):
        with pytest.raises(ValueError):
            published_file(folder, deck_id, "text")
    assert sorted(p.name for p in folder.iterdir()) == ["kv.yaml"]


def test_a_data_folder_reached_through_a_link_still_holds_published_decks(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The file keeps the data folder's own name, so the deck is still told as published."""
    (tmp_path / "real-home").mkdir()
    (tmp_path / "home").symlink_to(tmp_path / "real-home")
    monkeypatch.setenv("STUDYAPP_HOME", str(tmp_path / "home"))
    url = f"sqlite:///{tmp_path / 'class.sqlite3'}"
    plant(url, {"kv-class": deck_text("kv-class")})
    from studyapp.study import deck_kind

    store = open_store(url)
    try:
        [deck] = published_decks(store, "en")
    finally:
        store.close()
    assert deck_kind(deck) == "published"
    assert (tmp_path / "real-home" / "data" / "published" / "kv-class.yaml").is_file()


def test_unpublish_removes_the_deck_and_keeps_the_history(db_url: str, tmp_path: Path) -> None:
    home = tmp_path / "home"
    source = tmp_path / "kv-class.yaml"
    source.write_text(deck_text("kv-class"), encoding="utf-8")
    assert run(home, db_url, "deck", "publish", str(source)).exit_code == 0
    source.unlink()
    studied = run(home, db_url, "--profile", "ana", "study", "--plain", "--deck", "kv-class",
                  input="y\n\n")
    assert "A fine question." in studied.output, studied.output
    done = run(home, db_url, "deck", "unpublish", "kv-class")
    assert done.exit_code == 0, done.output
    assert done.output.strip() == (
        "deck 'kv-class': version 1 unpublished from this database; nobody there studies it "
        "now. The progress of 1 profile(s) on its cards is kept and counts again if it is "
        "published once more.")
    assert "kv-class" not in run(home, db_url, "deck", "list").output
    store = open_store(db_url)
    try:
        assert stored_decks(store) == []
        from studyapp.store.classroom import profiles_studying

        assert profiles_studying(store, "kv-class") == 1  # ana's history is still there
    finally:
        store.close()
    again = run(home, db_url, "deck", "unpublish", "kv-class")
    assert again.exit_code == 1
    assert again.output.strip() == ("studyapp: no deck 'kv-class' is published in this "
                                    "database (published: none)")


def test_unpublish_removes_a_hostile_row_and_names_the_others(db_url: str,
                                                              tmp_path: Path) -> None:
    home = tmp_path / "home"
    plant(db_url, {"../catalog": deck_text("x"), "kv-class": deck_text("kv-class")})
    done = run(home, db_url, "deck", "unpublish", "../catalog")
    assert done.exit_code == 0 and "deck '../catalog': version 1 unpublished" in done.output
    assert "is not a deck id" not in run(home, db_url, "stats").output
    unknown = run(home, db_url, "--lang", "es", "deck", "unpublish", "kv")
    assert unknown.exit_code == 1
    assert "no hay ningún mazo 'kv' publicado en esta base de datos (publicados: 'kv-class')" \
        in unknown.output
