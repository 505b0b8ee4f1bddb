"""Decks of self-graded (recall) cards shared by the app and browser tests.

A module at the top of ``tests`` (as ``backends`` and ``zones``), so tests in any folder
import it by name.
"""

from __future__ import annotations

from pathlib import Path

RECALL_DECK = """deck: recall-keys
title: Recall keys
language: en
post: intro
cards:
  - id: axes
    type: recall
    prompt: "Name the three axes of parallelism."
    answer: "data, tensor and pipeline"
    explanation: "Batch, matrices, layers."
"""
"""One recall card, answered "data, tensor and pipeline", with a short explanation."""

PICTURES_DECK = """deck: pictures
title: Pictures
language: en
post: intro
cards:
  - id: which-gpu
    type: recall
    prompt: "Which GPU is this? [image: h100.png]"
    answer: "H100"
"""
"""One recall card naming the image ``h100.png`` of the deck's media folder."""

PNG = (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00"
       b"\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\xdac(\xdb\xc9\xf0\x1f\x00\x05\x07\x02/O\x04?\x80"
       b"\x00\x00\x00\x00IEND\xaeB`\x82")
"""A whole 1×1 PNG image."""


def write_recall_deck(folder: Path, text: str = RECALL_DECK) -> Path:
    """``recall.yaml`` in ``folder``."""
    deck = folder / "recall.yaml"
    deck.write_text(text, encoding="utf-8")
    return deck


def write_pictures_deck(folder: Path) -> Path:
    """``pictures.yaml`` in ``folder``, with ``h100.png`` in its media folder."""
    deck = folder / "pictures.yaml"
    deck.write_text(PICTURES_DECK, encoding="utf-8")
    (folder / "pictures.media").mkdir()
    (folder / "pictures.media" / "h100.png").write_bytes(PNG)
    return deck
