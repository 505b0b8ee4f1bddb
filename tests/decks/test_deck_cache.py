"""The deck cache: an unchanged deck is not checked again; anything doubtful is."""

from __future__ import annotations

import os
import pickle
from pathlib import Path

import pytest

import studyapp.decks.cache as cache
from studyapp.decks import discover_decks
from studyapp.decks.cache import HEADER, cache_folder, check_deck_cached
from studyapp.decks.deck_loader import check_deck_file

pytestmark = pytest.mark.cold_deck_cache  # these tests count what is checked and cached

DECK = """deck: cached
title: Cached
language: en
post: h200
cards:
  - {id: tf, type: truefalse, prompt: "The H200 SXM has 141 GB.", answer: true}
  - id: kv
    type: numeric
    prompt: "{gpu.name}: memory in GB?"
    params: {gpu: {from: accelerators, where: {vendor: nvidia}}}
    answer: gpu.memory_gb
    unit: GB
"""


@pytest.fixture
def checks(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The files really checked (not answered from the cache)."""
    done: list[Path] = []

    def counting(path: Path, source: str = "file") -> object:
        done.append(path)
        return check_deck_file(path, source)  # type: ignore[arg-type]

    monkeypatch.setattr(cache, "check_deck_file", counting)
    return done


def entries() -> list[Path]:
    return sorted(cache_folder().glob("*.pickle"))


def test_an_unchanged_deck_comes_from_the_cache(tmp_path: Path, checks: list[Path]) -> None:
    path = tmp_path / "cached.yaml"
    path.write_text(DECK, encoding="utf-8")
    first, problems = check_deck_cached(path, "user")
    again, problems_again = check_deck_cached(path, "user")
    assert checks == [path] and len(entries()) == 1
    assert first is not None and again is not None and problems == problems_again == []
    assert again == first and again is not first
    question = again.cards[1].instantiate(3, "en")
    assert question == first.cards[1].instantiate(3, "en")  # catalog draws survive


def test_a_changed_file_is_checked_again(tmp_path: Path, checks: list[Path]) -> None:
    path = tmp_path / "cached.yaml"
    path.write_text(DECK, encoding="utf-8")
    check_deck_cached(path, "user")
    path.write_text(DECK.replace("answer: true", "answer: maybe"), encoding="utf-8")
    deck, problems = check_deck_cached(path, "user")
    assert checks == [path, path] and deck is None
    assert problems and problems[0].line == 6
    deck, problems = check_deck_cached(path, "user")  # problems are cached too
    assert len(checks) == 2 and deck is None and problems[0].line == 6


def test_another_version_or_a_broken_entry_is_ignored(tmp_path: Path,
                                                      checks: list[Path]) -> None:
    path = tmp_path / "cached.yaml"
    path.write_text(DECK, encoding="utf-8")
    check_deck_cached(path, "user")
    [entry] = entries()
    body = entry.read_bytes()[len(HEADER):]
    entry.write_bytes(b"studyapp-deck-cache 1 0.0.1 (3, 9, 0)\n" + body)
    assert check_deck_cached(path, "user")[0] is not None and len(checks) == 2
    entry.write_bytes(HEADER + b"\x80\x05 not a pickle")
    assert check_deck_cached(path, "user")[0] is not None and len(checks) == 3
    # a well-formed entry naming another file is not taken for this one
    entry.write_bytes(HEADER + pickle.dumps((str(tmp_path / "other.yaml"), None, [])))
    assert check_deck_cached(path, "user")[0] is not None and len(checks) == 4


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX permissions")
def test_an_entry_others_can_write_is_never_unpickled(tmp_path: Path, checks: list[Path],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "cached.yaml"
    path.write_text(DECK, encoding="utf-8")
    check_deck_cached(path, "user")
    [entry] = entries()
    entry.chmod(0o666)

    def never(*_args: object) -> None:
        raise AssertionError("an entry others can write must not be unpickled")

    monkeypatch.setattr(cache.pickle, "load", never)
    assert check_deck_cached(path, "user")[0] is not None and len(checks) == 2


def test_listing_installed_decks_uses_the_cache(checks: list[Path]) -> None:
    first = discover_decks()
    checked = len(checks)
    assert checked == len(first) > 0
    again = discover_decks()
    assert len(checks) == checked
    assert [(x.id, x.ok) for x in again] == [(x.id, x.ok) for x in first]
