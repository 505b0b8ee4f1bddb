"""A published deck is checked once per text: when published, then read from the deck cache.

A deck whose formula checks would take more than a few seconds is refused,
with how many evaluations it would need, before any is made: published, it
would otherwise slow every command of every student.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from click.testing import CliRunner

import studyapp.decks.cache as cache
from studyapp.cli import main
from studyapp.decks.deck_loader import check_deck_file
from studyapp.decks.deck_model import ParamSpec
from studyapp.decks.field_checks import (
    MAX_FORMULA_CHECKS,
    check_combinations,
    combination_count,
)
from studyapp.study import StudyConfig, StudyService

DECK = """\
deck: course-kv
title: KV course
language: en
post: hbm-kv-cache
cards:
  - id: kv
    type: numeric
    prompt: "{layers} layers, {heads} KV heads: KB per token in bf16?"
    params: {layers: [32, 80], heads: {min: 4, max: 16, step: 4}}
    answer: 2 * layers * heads * 128 * 2 / 1e3
    unit: KB
    explanation: "2 × {layers} × {heads} × 128 × 2 B = {answer} KB"
"""

SLOW = """\
deck: slow
title: Slow
language: en
post: hbm-kv-cache
cards:
  - id: a
    type: numeric
    prompt: "{a} and {b}?"
    params: {a: {min: 1, max: 200000}, b: {min: 1, max: 200000}}
    answer: a + b
"""


@pytest.fixture
def checks(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The course deck's files really checked (not answered from the cache)."""
    done: list[Path] = []

    def counting(path: Path, source: str = "file") -> object:
        if path.name == "course-kv.yaml":  # the built-in decks are cached per user as well
            done.append(path)
        return check_deck_file(path, source)  # type: ignore[arg-type]

    monkeypatch.setattr(cache, "check_deck_file", counting)
    return done


def _decks(url: str, home: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    monkeypatch.setenv("STUDYAPP_HOME", str(home))
    service = StudyService(StudyConfig(db_url=url, lang="en", profile="eve"))
    try:
        deck = next(d for d in service.decks if d.id == "course-kv")
        assert deck.path == home / "data" / "published" / "course-kv.yaml"
        assert {card.path for card in deck.cards} == {deck.path}
        assert deck.source == "user"
        return [card.id for card in deck.cards]
    finally:
        service.close()


def test_a_published_deck_is_checked_when_published_and_then_read_from_the_cache(
        db_url: str, tmp_path: Path, checks: list[Path],
        monkeypatch: pytest.MonkeyPatch) -> None:
    teacher, student = tmp_path / "teacher", tmp_path / "student"
    source = tmp_path / "course-kv.yaml"
    source.write_text(DECK, encoding="utf-8")
    published = CliRunner().invoke(main, ["--profile", "teacher", "deck", "publish",
                                          str(source)],
                                   env={"STUDYAPP_HOME": str(teacher), "STUDYAPP_DB": db_url})
    assert published.exit_code == 0, published.output
    assert checks == [source]  # the file, once, when published
    assert _decks(db_url, teacher, monkeypatch) == ["kv"]
    assert checks == [source]  # the publishing machine does not check it again
    assert _decks(db_url, student, monkeypatch) == ["kv"]
    copy = student / "data" / "published" / "course-kv.yaml"
    assert checks == [source, copy]  # another machine checks it the first time
    assert _decks(db_url, student, monkeypatch) == ["kv"]
    assert checks == [source, copy]  # and never again while the text is the same


@pytest.mark.parametrize("params", [
    {"n": ParamSpec("range", start=1, stop=50)},
    {"a": ParamSpec("range", start=0, stop=400, step=1),
     "b": ParamSpec("range", start=0, stop=400, step=1)},
    {"a": ParamSpec("range", start=1, stop=200_000),
     "p": ParamSpec("pick", values=(1, 2, 3)), "c": ParamSpec("constant", values=(7,))},
    {"a": ParamSpec("range", start=1, stop=120_000), "b": ParamSpec("range", start=0, stop=1)},
    {},
])
def test_the_count_is_the_number_of_combinations_checked(params: dict[str, ParamSpec]) -> None:
    assert combination_count(params) == sum(1 for _ in check_combinations(params))


def test_a_deck_needing_too_many_evaluations_is_refused_with_the_count(
        db_url: str, tmp_path: Path) -> None:
    slow = tmp_path / "slow.yaml"
    slow.write_text(SLOW, encoding="utf-8")
    env = {"STUDYAPP_HOME": str(tmp_path / "home"), "STUDYAPP_DB": db_url}
    start = time.perf_counter()
    refused = CliRunner().invoke(main, ["deck", "publish", str(slow)], env=env)
    elapsed = time.perf_counter() - start
    assert refused.exit_code == 1
    # answer and prompt, each over 2 ends squared, 200,000 values of each parameter, 50 draws
    needed = 2 * (4 + 2 * 200_000 + 50)
    assert (f"{slow}:9:13: checking this card's formulas takes {needed} evaluations, the "
            f"deck's {needed} so far, more than the {MAX_FORMULA_CHECKS}") in refused.output
    assert elapsed < 10  # counted, not evaluated: checking all of them takes longer alone
    history = CliRunner().invoke(main, ["deck", "history", "slow"], env=env)
    assert history.exit_code == 1 and "unknown published deck id 'slow'" in history.output
    spanish = CliRunner().invoke(main, ["--lang", "es", "deck", "validate", str(slow)], env=env)
    assert f"exige {needed} evaluaciones" in spanish.output
    # the same card with fewer values is accepted
    fewer = tmp_path / "fewer.yaml"
    fewer.write_text(SLOW.replace("slow", "fewer").replace("max: 200000", "max: 20000"),
                     encoding="utf-8")
    accepted = CliRunner().invoke(main, ["deck", "publish", str(fewer)], env=env)
    assert accepted.exit_code == 0 and "published version 1 (1 cards)" in accepted.output
