"""Plain mode uses the terminal app's words and numbers: choices by the number
listed, "I guessed" for a right answer rated Again."""

from __future__ import annotations

import io
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from studyapp.study import SessionKind, StudyConfig, StudyService

NOW = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)

DECK = """deck: words
title: Words
language: en
post: hbm-kv-cache
cards:
  - id: byte
    type: choice
    prompt: {en: "Which one is a byte?", es: "¿Cuál es un byte?"}
    choices: [8 bits, 4 bits, 16 bits, 2 bits]
    answer: 0
"""


def run(tmp_path: Path, lang: str, lines: str) -> str:
    from studyapp.plain import run_plain

    deck = tmp_path / "words.yaml"
    deck.write_text(DECK, encoding="utf-8")
    url = f"sqlite:///{tmp_path / 'words.sqlite3'}"
    svc = StudyService(StudyConfig(db_url=url, lang=lang, clock=lambda: NOW,
                                   extra_decks=(deck,)))
    session = svc.start(SessionKind.DECK, deck="words", seed=1)
    out = io.StringIO()
    run_plain(session, stdin=io.StringIO(lines), stdout=out)
    svc.close()
    return out.getvalue()


@pytest.mark.parametrize(("lang", "words"), [("en", "Your answer: "), ("es", "Tu respuesta: ")])
def test_the_answer_shown_is_numbered_as_the_choices_are(tmp_path: Path, lang: str,
                                                         words: str) -> None:
    listed = run(tmp_path, lang, "")
    number = {m.group(2): m.group(1) for m in re.finditer(r"^  (\d)\) [a-d]\. (.+)$", listed,
                                                           re.MULTILINE)}
    wrong = next(choice for choice in number if choice != "8 bits")
    (tmp_path / "again").mkdir()
    text = run(tmp_path / "again", lang, f"{number[wrong]}\n")
    line = next(line for line in text.splitlines() if line.startswith(words))
    assert f"{words}{number[wrong]}) {wrong} · " in line
    assert line.endswith(f"{number['8 bits']}) 8 bits")


def test_the_rating_line_says_i_guessed_as_the_terminal_app_does(tmp_path: Path) -> None:
    listed = run(tmp_path, "en", "")
    right = re.search(r"^  (\d)\) [a-d]\. 8 bits$", listed, re.MULTILINE)
    assert right is not None
    (tmp_path / "rate").mkdir()
    text = run(tmp_path / "rate", "en", f"{right.group(1)}\n1\n")
    assert "1=I guessed (" in text and "1=Again" not in text
