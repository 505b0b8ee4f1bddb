"""``class regrade``: a deck's stored answers graded again against its current keys.

A fixed key (a new published version, or ``deck add`` of an edited file)
changes what was right: the class report's statistics, reteach and check-the-key
lists, and each student's history then read the regraded verdicts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from studyapp.store import Store
from studyapp.store.regrade import NewVerdict, answers_of_deck, write_verdicts

if TYPE_CHECKING:
    from studyapp.decks import Deck

REGRADED_TYPES = ("numeric", "choice", "truefalse", "text")
"""Cards whose stored answer is graded again (a scenario's steps, a generated card's
family and a self-graded card are not keyed in the deck)."""


@dataclass(frozen=True)
class Regrade:
    """What a regrade found: answers checked, and verdicts that changed each way."""

    checked: int
    now_right: int
    now_wrong: int

    @property
    def changed(self) -> int:
        return self.now_right + self.now_wrong


def regrade_deck(store: Store, deck: Deck) -> Regrade:
    """Grade every stored answer to ``deck``'s keyed cards again, as it was shown (its
    seed and language), and write the verdicts that changed."""
    from studyapp.questions.grading import grade
    from studyapp.study.showing import showing

    specs = {spec.id: spec for spec in deck.cards if spec.type in REGRADED_TYPES}
    if not specs:
        return Regrade(0, 0, 0)
    changes = []
    checked = 0
    for answer in answers_of_deck(store, deck.id, sorted(specs)):
        spec = specs[answer.card_key]
        if answer.seed is None and spec.type == "choice":
            continue  # the order its choices were shown in is unknown
        try:
            verdict = grade(showing(spec, answer.seed or 0, answer.lang or spec.language),
                            answer.response)
        except Exception:  # an answer the card can no longer read: its verdict stays
            continue
        if verdict.correct is None:
            continue
        checked += 1
        if bool(verdict.correct) != answer.right:
            changes.append(NewVerdict(answer, bool(verdict.correct),
                                      verdict.slips[0] if verdict.slips else ""))
    written = write_verdicts(store, changes)
    right = sum(1 for c in written if c.right)
    return Regrade(checked, right, len(written) - right)
