"""Authored feedback: a numeric card's slips and a choice card's per-choice feedback."""

from __future__ import annotations

from pathlib import Path

from deck_texts import HEADER, write

from studyapp.decks import load_deck, validate_paths
from studyapp.questions.grading import grade
from studyapp.study.session import showing

DECK = HEADER + """\
  - id: kv-token
    type: numeric
    prompt: "{layers} layers, 8 KV heads of 128, bf16: KV cache per token in KB?"
    params: {layers: [32, 80]}
    answer: "2 * layers * 8 * 128 * 2 / 1e3"
    unit: KB
    slips:
      - name: k-only
        answer: "layers * 8 * 128 * 2 / 1e3"
        message: {en: "You counted K but not V: double it.", es: "Contó K pero no V."}
      - name: one-layer
        answer: "2 * 8 * 128 * 2 / 1e3"
        message: "That is one layer; there are {layers}."
  - id: memory
    type: choice
    prompt: "Which memory does the H200 use?"
    choices: [HBM3, HBM3e, GDDR7]
    answer: HBM3e
    feedback: ["HBM3 is the H100's memory.", null, "GDDR7 is for graphics cards."]
"""


def test_slips_and_choice_feedback_are_shown_and_named(tmp_path: Path) -> None:
    deck = load_deck(write(tmp_path, DECK))
    kv, memory = deck.cards
    question = showing(kv, 3, "en")
    layers = question.params["layers"]
    verdict = grade(question, str(layers * 8 * 128 * 2 / 1e3))
    assert not verdict.correct and verdict.slips == ("k-only",)
    assert "You counted K but not V" in verdict.message
    one = grade(question, str(2 * 8 * 128 * 2 / 1e3))
    assert one.slips == ("one-layer",) and f"there are {layers}." in one.message
    assert grade(question, str(2 * layers * 8 * 128 * 2 / 1e3)).correct
    assert "Contó K pero no V" in grade(showing(kv, 3, "es"),
                                       str(layers * 8 * 128 * 2 / 1e3).replace(".", ",")
                                       ).message
    shown = showing(memory, 5, "en")
    picked = grade(shown, "GDDR7")
    assert not picked.correct and "graphics cards" in picked.message
    assert picked.slips == ("GDDR7",)
    assert grade(shown, "HBM3e").correct


def test_feedback_problems_are_reported_at_their_line(tmp_path: Path) -> None:
    text = DECK.replace("- name: one-layer", "- name: k-only").replace(
        ', null, "GDDR7 is for graphics cards."', "").replace(
        '"2 * 8 * 128 * 2 / 1e3"', '"2 * layer * 8"')
    messages = [p.message for p in validate_paths([write(tmp_path, text)])]
    assert any("slip 'k-only' is listed twice" in m for m in messages), messages
    assert any("feedback lists 1 entries for 3 choices" in m for m in messages), messages
    assert any("unknown name 'layer'" in m for m in messages), messages
