"""Finding, listing and installing decks; the package stays free of UI and storage."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from deck_texts import VALID_DECK, write

from studyapp import locations
from studyapp.decks import DeckError, discover_decks, find_deck, install_deck


@pytest.fixture
def home(_isolated_home: Path) -> Path:
    """The test's own user folder (tests/conftest.py), its cache holding the built-in decks
    already checked as checking them gives: the tests are about listing and installing."""
    return _isolated_home


def test_builtin_examples_are_discovered(home: Path) -> None:
    listings = discover_decks()
    examples = {x.id: x for x in listings if x.path.parent.name == "examples"}
    assert {"serving-llms-course", "numeric-drill"} <= set(examples)
    assert all(x.source == "builtin" for x in examples.values())
    for listing in listings:
        assert listing.ok == (listing.deck is not None)
        assert listing.ok or listing.problems


def test_install_replaces_by_deck_id_and_lists_as_user(home: Path, tmp_path: Path) -> None:
    first = install_deck(write(tmp_path, VALID_DECK, "a.yaml"))
    assert install_deck(write(tmp_path, VALID_DECK, "same.yaml")) == first  # same deck: fine
    other = write(tmp_path, VALID_DECK.replace("KV cache drill", "v2"), "b.yaml")
    with pytest.raises(DeckError, match=r"already installed in .*kv-cache-drill\.yaml.*--replace"):
        install_deck(other)  # a different deck with that id is never replaced silently
    again = install_deck(other, replace=True)
    assert first == again == locations.user_decks_dir() / "kv-cache-drill.yaml"
    assert [p.name for p in locations.user_decks_dir().iterdir()] == ["kv-cache-drill.yaml"]
    user = [x for x in discover_decks() if x.source == "user"]
    assert [(x.id, x.ok) for x in user] == [("kv-cache-drill", True)]
    assert user[0].deck is not None and user[0].deck.title["en"] == "v2"
    assert find_deck("kv-cache-drill").source == "user"


def test_install_refuses_broken_deck_and_builtin_id(home: Path, tmp_path: Path) -> None:
    with pytest.raises(DeckError):
        install_deck(write(tmp_path, "deck: [", "broken.yaml"))
    clash = VALID_DECK.replace("deck: kv-cache-drill", "deck: numeric-drill")
    with pytest.raises(DeckError, match="taken by the built-in deck"):
        install_deck(write(tmp_path, clash, "clash.yaml"))
    assert not locations.user_decks_dir().exists()


def test_broken_and_duplicate_user_decks_are_listed_not_raised(home: Path) -> None:
    folder = locations.user_decks_dir()
    folder.mkdir(parents=True)
    write(folder, "cards: {", "broken.yaml")
    write(folder, VALID_DECK, "one.yaml")
    write(folder, VALID_DECK, "two.yaml")
    user = {x.path.name: x for x in discover_decks() if x.source == "user"}
    assert not user["broken.yaml"].ok and user["broken.yaml"].id == "broken"
    assert user["one.yaml"].ok
    assert not user["two.yaml"].ok
    assert "already used by" in user["two.yaml"].problems[0].message


def test_find_deck_by_path_or_unknown_id(home: Path, tmp_path: Path) -> None:
    assert find_deck(str(write(tmp_path, VALID_DECK))).id == "kv-cache-drill"
    with pytest.raises(DeckError, match="no deck with id"):
        find_deck("no-such-deck")


def test_decks_package_imports_no_ui_or_storage() -> None:
    code = (
        "import sys, studyapp.decks, studyapp.decks.deck_report; "
        "bad = [m for m in sys.modules if m.split('.')[0] in ('textual', 'sqlalchemy')]; "
        "print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
