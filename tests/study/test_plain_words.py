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


def run(tmp_path: Path, lang: str, lines: str, deck_text: str = DECK) -> str:
    from studyapp.plain import run_plain

    deck = tmp_path / "words.yaml"
    deck.write_text(deck_text, encoding="utf-8")
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
    number = {m.group(2): m.group(1) for m in re.finditer(r"^  (\d)\) (.+)$", listed,
                                                           re.MULTILINE)}
    wrong = next(choice for choice in number if choice != "8 bits")
    (tmp_path / "again").mkdir()
    text = run(tmp_path / "again", lang, f"{number[wrong]}\n")
    line = next(line for line in text.splitlines() if line.startswith(words))
    assert f"{words}{number[wrong]}) {wrong} · " in line
    assert line.endswith(f"{number['8 bits']}) 8 bits")


def test_the_rating_line_says_i_guessed_as_the_terminal_app_does(tmp_path: Path) -> None:
    listed = run(tmp_path, "en", "")
    right = re.search(r"^  (\d)\) 8 bits$", listed, re.MULTILINE)
    assert right is not None
    (tmp_path / "rate").mkdir()
    text = run(tmp_path / "rate", "en", f"{right.group(1)}\n1\n")
    assert "1=I guessed (" in text and "1=Again" not in text


def test_choices_are_numbered_once_and_letters_still_answer(tmp_path: Path) -> None:
    listed = run(tmp_path, "en", "")
    choices = re.findall(r"^  \d\) .+$", listed, re.MULTILINE)
    assert len(choices) == 4
    assert not any(re.match(r"^  \d\) [a-d]\. ", line) for line in choices)
    right = re.search(r"^  (\d)\) 8 bits$", listed, re.MULTILINE)
    assert right is not None
    letter = "abcd"[int(right.group(1)) - 1]
    (tmp_path / "letter").mkdir()
    assert "session: 1 answered, 1 correct" in run(tmp_path / "letter", "en", f"{letter}\n\n")


TRUEFALSE = """deck: words
title: Words
language: en
post: hbm-kv-cache
cards:
  - id: bare
    type: truefalse
    prompt: "A byte is 8 bits."
    answer: true
"""


@pytest.mark.parametrize("answer", ["y", "n"])
def test_a_card_without_explanation_promises_no_worked_solution(tmp_path: Path,
                                                                answer: str) -> None:
    text = run(tmp_path, "en", f"{answer}\n\n", TRUEFALSE)
    assert "Worked solution" not in text
    assert "session: 1 answered" in text


@pytest.mark.parametrize(("lang", "words"), [
    ("en", "before answering the next question"),
    ("es", "antes de responder a la siguiente pregunta"),
])
def test_the_overrule_line_says_it_is_typed_before_answering(lang: str, words: str) -> None:
    from studyapp.i18n import t

    line = t("plain.continue", lang)
    assert "!" in line and words in line


@pytest.mark.parametrize("lang", ["en", "es"])
def test_the_post_summary_reads_as_plain_text(lang: str) -> None:
    from studyapp.plain import post_summary_lines

    lines = post_summary_lines("hgx", lang)
    text = "\n".join(lines)
    assert "**" not in text and "## " not in text and "|---" not in text
    assert not any(line.startswith("#") for line in lines)
    assert any(line.startswith("HGX H100") for line in lines)  # a table row, lined up


def test_markdown_as_text_keeps_words_and_drops_marks() -> None:
    from studyapp.plain import markdown_as_text

    assert markdown_as_text(["## Why memory", "Read **the weights** and *once*, see "
                             "[the post](https://example.com) or `fp8`.", "- 2 * 3 = 6"]) == [
        "Why memory", "Read the weights and once, see the post (https://example.com) or fp8.",
        "- 2 * 3 = 6"]
