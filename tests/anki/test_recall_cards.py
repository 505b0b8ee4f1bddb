"""Self-graded (recall) cards: the answer is shown, the learner rates Again/Hard/Good/Easy."""

from __future__ import annotations

import io
from datetime import UTC, datetime
from pathlib import Path

from studyapp.questions.model import Kind
from studyapp.study import SessionKind, StudyConfig, StudyService

NOW = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)

DECK = """deck: recall-demo
title: Recall demo
language: en
post: intro
cards:
  - id: axes
    type: recall
    prompt: "Name the three axes of parallelism."
    answer: "data, tensor and pipeline parallelism"
    explanation: "Each splits a different thing: the batch, the layers' matrices, the layers."
"""


def service(tmp_path: Path, lang: str = "en") -> StudyService:
    deck = tmp_path / "recall.yaml"
    deck.write_text(DECK, encoding="utf-8")
    url = f"sqlite:///{tmp_path / 'recall.sqlite3'}"
    return StudyService(StudyConfig(db_url=url, lang=lang, clock=lambda: NOW,
                                    extra_decks=(deck,)))


def run(tmp_path: Path, lines: str, lang: str = "en") -> tuple[str, list[int]]:
    from sqlalchemy import text

    from studyapp.plain import run_plain

    svc = service(tmp_path, lang)
    session = svc.start(SessionKind.DECK, deck="recall-demo", seed=1)
    out = io.StringIO()
    run_plain(session, stdin=io.StringIO(lines), stdout=out)
    with svc.store.engine.connect() as conn:
        ratings = [r[0] for r in conn.execute(text("SELECT rating FROM review_logs ORDER BY id"))]
    svc.close()
    return out.getvalue(), ratings


def test_a_recall_card_loads_as_a_self_graded_question(tmp_path: Path) -> None:
    from studyapp.decks import load_deck

    (tmp_path / "recall.yaml").write_text(DECK, encoding="utf-8")
    question = load_deck(tmp_path / "recall.yaml").cards[0].instantiate(0, "en")
    assert question.kind is Kind.RECALL and question.accept == ()
    assert question.answer == "data, tensor and pipeline parallelism"


def test_plain_mode_shows_the_answer_then_reads_a_rating(tmp_path: Path) -> None:
    out, ratings = run(tmp_path, "\n1\n")
    assert "recall" in out.splitlines()[1]  # the heading names the kind
    assert "Recall the answer, then press Enter to see it." in out
    assert "Answer: data, tensor and pipeline parallelism" in out
    assert "Worked solution:" in out and "the batch" in out
    rate_line = next(line for line in out.splitlines() if line.startswith("How well"))
    assert "1=Again" in rate_line and "4=Easy" in rate_line and "guessed" not in rate_line
    assert ratings == [1]
    assert "session: 1 answered, 0 correct" in out  # Again on a recall card is a lapse


def test_plain_mode_enter_twice_rates_good_and_counts_it_right(tmp_path: Path) -> None:
    out, ratings = run(tmp_path, "anything typed\n\n")
    assert ratings == [3]
    assert "session: 1 answered, 1 correct" in out
    assert "Your answer:" not in out


def test_plain_mode_in_spanish(tmp_path: Path) -> None:
    out, ratings = run(tmp_path, "\n4\n", lang="es")
    assert "Respuesta: data, tensor and pipeline parallelism" in out
    assert "1=Otra vez" in out
    assert ratings == [4]
