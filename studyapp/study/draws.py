"""Which numbers a card shows: facts converge, methods vary.

A generated card that tests a method (a KV cache, a ring all-reduce) draws new
numbers at every showing, so the learner practises the computation, not one
answer. A card that tests a fact (which memory a chip uses) keeps the chip it
is being learnt on while it is in learning or relearning (a lapse puts it
there): asking about eight chips in nine showings teaches none of them. Its
family says which (``Family.teaches``). A scenario step missed brings its
one-step family's cards forward in the sitting (``bring_forward``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from studyapp.catalog.errors import UnknownIdError
from studyapp.questions.generators import FACT, get_family
from studyapp.study.views import LEARNING_STAGES

if TYPE_CHECKING:
    from studyapp.decks import CardSpec
    from studyapp.srs.queue import QueueItem
    from studyapp.study.host import SessionHost


def tests_a_fact(spec: CardSpec) -> bool:
    """A generated card whose family tests a fact (``teaches="fact"``)."""
    if spec.type != "generated" or not spec.generator:
        return False
    try:
        return get_family(spec.generator).teaches == FACT
    except UnknownIdError:
        return False


def kept_seed(item: QueueItem, spec: CardSpec, shown: Mapping[tuple[str, str], int],
              host: SessionHost) -> int | None:
    """The seed to show a fact card with again (its last showing's, this sitting's first),
    or None when the card draws fresh numbers: a method, or a fact not being (re)learnt."""
    if item.stage not in LEARNING_STAGES or not tests_a_fact(spec):
        return None
    if item.key in shown:
        return shown[item.key]
    return host.last_seed(item.deck_id, item.card_key)


def bring_forward(main: list[QueueItem], families: Sequence[str]) -> list[QueueItem]:
    """The main queue with the cards of ``families`` first (in their order): a scenario step
    missed brings its one-step family's cards sooner in the same sitting."""
    wanted = set(families)
    ahead = [item for item in main if item.template in wanted]
    return [*ahead, *(item for item in main if item.template not in wanted)]


__all__ = ["bring_forward", "kept_seed", "tests_a_fact"]
