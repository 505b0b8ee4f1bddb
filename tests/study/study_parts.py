"""A study service whose parts are tested one at a time, recording what each reports."""

from __future__ import annotations

from pathlib import Path

from test_service import Clock

from studyapp.srs import Rating
from studyapp.study import StudyConfig, StudyService
from studyapp.study.changes import Changes
from studyapp.study.session import showing
from studyapp.study.views import AnsweredCard

DRILL = """deck: drill
title: Drill
language: en
post: intro
cards:
  - id: stacked
    type: truefalse
    prompt: HBM is stacked DRAM.
    answer: true
    fact: hbm-stack
  - id: stacked-again
    type: truefalse
    prompt: HBM dies are stacked on top of each other.
    answer: true
    fact: hbm-stack
  - id: alone
    type: truefalse
    prompt: NVLink connects GPUs.
    answer: true
"""


class RecordingService(StudyService):
    """The service, keeping every change its parts report, in order."""

    def __init__(self, config: StudyConfig) -> None:
        self.reported: list[Changes] = []
        super().__init__(config)

    def changed(self, changes: Changes) -> None:
        self.reported.append(changes)
        super().changed(changes)


def drill_service(tmp_path: Path, clock: Clock | None = None, text: str = DRILL,
                  profile: str = "ana") -> RecordingService:
    """A service on a fresh SQLite file with the drill deck given as a file."""
    deck = tmp_path / "drill.yaml"
    deck.write_text(text, encoding="utf-8")
    url = f"sqlite:///{tmp_path / 'study.sqlite3'}"
    return RecordingService(StudyConfig(db_url=url, profile=profile, lang="en",
                                        clock=clock or Clock(), extra_decks=(deck,)))


def answer(svc: StudyService, clock: Clock, card_key: str, rating: Rating,
           held_id: int | None = None) -> AnsweredCard:
    """An answer to a drill card (all true-false) as a session hands it over."""
    question = showing(svc.card("drill", card_key), 1, "en")
    right = rating is not Rating.AGAIN
    return AnsweredCard("drill", card_key, question, rating, right, clock(),
                        "y" if right else "n", "true", 1500, {}, "en", held_id=held_id)
