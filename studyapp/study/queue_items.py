"""Building a queue fast: queue items from stored rows."""

from __future__ import annotations

from typing import TYPE_CHECKING

from studyapp.srs.queue import QueueItem
from studyapp.srs.scheduler import CardStage
from studyapp.study.curriculum import CurriculumCard

if TYPE_CHECKING:
    from studyapp.store.progress import CardRow, QueueRow

STAGES = {int(stage): stage for stage in CardStage}
"""Stored stage numbers as stages, without an enum call per queued card."""


def queue_item(card: CurriculumCard, row: CardRow | QueueRow | None,
               retrievability: float) -> QueueItem:
    """A card as the queue holds it (new when nothing is stored)."""
    if row is None:
        return QueueItem(card.deck.id, card.spec.id, card.spec.post, card.template,
                         CardStage.NEW, None, 0.0, card.order, card.fact, card.generated)
    return QueueItem(card.deck.id, card.spec.id, card.spec.post, card.template,
                     STAGES[row.stage], row.due, retrievability, card.order, card.fact,
                     card.generated)
