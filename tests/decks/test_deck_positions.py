"""Positions found in the node graph when a problem is reported, and the collector pause."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest
from deck_texts import HEADER, VALID_DECK, write

from studyapp.decks import deck_loader, validate_paths


def _messages(tmp_path: Path, text: str) -> list[str]:
    path = write(tmp_path, text)
    return [str(p).removeprefix(f"{path}:") for p in validate_paths([path])]


def test_a_duplicate_key_points_at_the_first_one_read(tmp_path: Path) -> None:
    """A key refused for its tag is not read; the problems under its name stay hidden."""
    text = HEADER + (
        "  - id: a\n"
        "    type: truefalse\n"
        "    !!binary prompt: eA==\n"
        "    prompt: 5\n"
        "    prompt: Twice\n"
        "    answer: true\n"
    )
    assert _messages(tmp_path, text) == [
        "8:5: tag !!binary is not allowed; deck and catalog files hold plain data only "
        "(text, numbers, true/false, lists and mappings)",
        "10:5: duplicate key 'prompt' (first at line 9, column 5)",
    ]


def test_problems_deep_in_a_card_land_on_their_value(tmp_path: Path) -> None:
    text = HEADER + (
        "  - id: a\n"
        "    type: numeric\n"
        "    prompt: '{n}?'\n"
        "    params:\n"
        "      n: {min: 1, max: 4, step: -1}\n"
        "    answer: n\n"
        "  - id: b\n"
        "    type: choice\n"
        "    prompt: Which?\n"
        "    choices: [x, {es: y, en: x}]\n"
        "    answer: 7\n"
    )
    assert _messages(tmp_path, text) == [
        "10:33: step must be greater than 0",
        "15:18: choice 1 repeats choice 0 ('x')",
        "16:13: answer index 7 is out of range: there are 2 choices, numbered 0 to 1",
    ]


def test_an_unknown_key_is_reported_at_the_key(tmp_path: Path) -> None:
    text = HEADER + "  - id: a\n    type: truefalse\n    prompt: P\n    answer: true\n    hint: h\n"
    assert _messages(tmp_path, text) == [
        "10:5: unknown key 'hint' (expected: id, anki, post, fact, tags, prompt, explanation, "
        "params, type, answer)",
    ]


@pytest.mark.parametrize("enabled", [True, False])
def test_the_collector_is_paused_while_a_deck_is_read_and_left_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, enabled: bool
) -> None:
    seen: list[bool] = []
    parse = deck_loader.parse_yaml

    def parse_and_look(text: str) -> object:
        seen.append(gc.isenabled())
        return parse(text)

    monkeypatch.setattr(deck_loader, "parse_yaml", parse_and_look)
    path = write(tmp_path, VALID_DECK)
    was = gc.isenabled()
    (gc.enable if enabled else gc.disable)()
    try:
        assert validate_paths([path]) == []
        assert gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()
    assert seen == [False]
