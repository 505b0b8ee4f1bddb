"""The card search language: a table of queries and the cards they find, and
bad queries with the column and message a user sees."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from studyapp.cardsearch import CardFacts, QueryError, SearchContext, fold, parse_query

NOW = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
CONTEXT = SearchContext(now=NOW, day_end=datetime(2026, 3, 3, 3, 0, tzinfo=UTC),
                        posts=("h100", "h200", "hbm-kv-cache"),
                        decks=("post-h200", "post-h100", "kv-drill"),
                        families=("fits-on-gpu", "kv-per-token"))

BASE = CardFacts(deck="post-h200", card="x", post="h200", family=None, stage=0, due=None,
                 reps=0, lapses=0, accuracy=None, flag=0, suspended=False, buried=False,
                 leech=False, text="")

CARDS = {
    # never answered: no stored row at all
    "fresh": replace(BASE, card="fresh", text=fold("¿Qué memoria usa la H200?")),
    "learning": replace(BASE, card="learning", stage=1, due=NOW + timedelta(minutes=10),
                        reps=1, accuracy=0.0, text=fold("Ancho de banda de la H200")),
    "review-due": replace(BASE, card="review-due", deck="post-h100", post="h100", stage=2,
                          due=NOW - timedelta(days=1), reps=6, lapses=3, accuracy=0.5,
                          leech=True, text=fold("TFLOPS BF16 de la H100")),
    "review-later": replace(BASE, card="review-later", deck="post-h100", post="h100",
                            stage=2, due=NOW + timedelta(days=2), reps=4, lapses=0,
                            accuracy=1.0, flag=2, text=fold("NVLink de la H100")),
    "relearning": replace(BASE, card="relearning", deck="kv-drill", post="hbm-kv-cache",
                          family="kv-per-token", stage=3, due=NOW + timedelta(days=9),
                          reps=8, lapses=1, accuracy=0.75, suspended=True,
                          text=fold("KV cache por token: {layers} capas")),
    "buried": replace(BASE, card="buried", family="fits-on-gpu", stage=2,
                      due=NOW - timedelta(hours=1), reps=2, accuracy=0.5, buried=True,
                      flag=1, text=fold("¿Cabe un modelo de 70B en una H200?")),
}


def found(query: str) -> list[str]:
    search = parse_query(query, CONTEXT)
    return [name for name, card in CARDS.items() if search.matches(card)]


@pytest.mark.parametrize(("query", "expected"), [
    ("", list(CARDS)),
    ("post:h200", ["fresh", "learning", "buried"]),
    ("POST:H200", ["fresh", "learning", "buried"]),
    ("post:h?00", ["fresh", "learning", "review-due", "review-later", "buried"]),
    ("deck:kv-drill", ["relearning"]),
    ("family:fits-on-gpu", ["buried"]),
    ("card:review-*", ["review-due", "review-later"]),
    ("is:new", ["fresh"]),
    ("is:learning", ["learning", "relearning"]),
    ("is:review", ["review-due", "review-later", "buried"]),
    # due today: not suspended, not buried; learning due in 10 min counts
    ("is:due", ["learning", "review-due"]),
    ("is:suspended", ["relearning"]),
    ("is:buried", ["buried"]),
    ("is:leech", ["review-due"]),
    ("is:flagged", ["review-later", "buried"]),
    ("flag:2", ["review-later"]),
    ("flag:0", ["fresh", "learning", "review-due", "relearning"]),
    ("lapses>2", ["review-due"]),
    ("lapses>=1", ["review-due", "relearning"]),
    ("lapses=0", ["fresh", "learning", "review-later", "buried"]),
    ("reps<2", ["fresh", "learning"]),
    # accuracy in percent; cards never answered have none
    ("accuracy<60", ["learning", "review-due", "buried"]),
    ("accuracy>=75", ["review-later", "relearning"]),
    # due<Nd: within today and the next N-1 study days; new cards are never due
    ("due<1d", ["learning", "review-due", "buried"]),
    ("due<3d", ["learning", "review-due", "review-later", "buried"]),
    ("due>3d", ["relearning"]),
    # free words: accents and case ignored, every word must appear
    ("memoria", ["fresh"]),
    ("MEMÓRIA h200", ["fresh"]),
    ("h100", ["review-due", "review-later"]),
    ('"kv cache por"', ["relearning"]),
    ("cabe 70b", ["buried"]),
    # combinations
    ("post:h100 -is:leech", ["review-later"]),
    ("post:h100 and lapses>0", ["review-due"]),
    ("is:suspended or is:buried", ["relearning", "buried"]),
    ("is:new or is:leech or flag:2", ["fresh", "review-due", "review-later"]),
    ("post:h200 (is:new or is:buried)", ["fresh", "buried"]),
    ("-(post:h200 or post:h100)", ["relearning"]),
    ("-post:h200 -post:h100", ["relearning"]),
    ("(post:h100 or post:h200) is:review -flag:1", ["review-due", "review-later"]),
])
def test_queries_find_the_expected_cards(query: str, expected: list[str]) -> None:
    assert found(query) == expected


@pytest.mark.parametrize(("query", "column", "message"), [
    ("post:h200 pots:x", 11, "unknown field 'pots'"),
    ("post:h300", 6, "no post 'h300'"),
    ("post:h20", 6, "did you mean h200"),
    ("deck:nope", 6, "no deck 'nope'"),
    ("family:fits", 8, "did you mean fits-on-gpu"),
    ("is:dead", 4, "unknown state 'is:dead'"),
    ("flag:7", 6, "flags are 0 (none) to 4"),
    ("lapses>two", 8, "write a number, like lapses>2"),
    ("accuracy<high", 10, "write a number, like accuracy<60"),
    ("due<soon", 5, "write a number of days"),
    ("post:", 6, "'post:' needs a value"),
    ("(post:h200 or is:new", 1, "this '(' is never closed"),
    ("post:h200)", 10, "this ')' has no '(' to close"),
    ("post:h200 or", 13, "a term is missing at the end"),
    ("or is:new", 1, "a term is missing before 'or'"),
    ('"open quote', 1, "this quote is never closed"),
    ("is:new and", 11, "'and' needs a term after it"),
    ("()", 2, "a term is missing before ')'"),
])
def test_bad_queries_say_where(query: str, column: int, message: str) -> None:
    with pytest.raises(QueryError) as caught:
        parse_query(query, CONTEXT)
    error = caught.value
    assert message in error.message
    assert error.column == column
    query_line, caret_line = error.pointer().splitlines()
    assert query_line == query
    assert caret_line == " " * (column - 1) + "^"


def test_fold_drops_accents_case_and_extra_spaces() -> None:
    assert fold("  ¿Qué   MEMORIA  usa? ") == "¿que memoria usa?"
    assert fold("Ñandú") == "nandu"
