"""The student's notices of regraded answers: "regraded: your answer was right".

When an instructor fixes a card's key, a regrade changes the verdicts of the
answers already given (``classroom.regrade``); each student whose answer
changed is told once, either way, on the home screen or at the start of their
next session (TUI and plain mode) and in ``stats``. Reading the notices clears
them (``store.regrade.take_notices``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from studyapp.i18n import t
from studyapp.text import visible

if TYPE_CHECKING:
    from studyapp.store.regrade import RegradeNotice
    from studyapp.study.service import StudyService

PROMPT_WIDTH = 60
"""A notice names its question by the start of its prompt (a scenario's would fill lines)."""


def take_regrade_notices(service: StudyService, lang: str) -> list[str]:
    """The lines telling the learner which answers a regrade changed, once: a second call
    returns none. A read-only profile keeps its notices for a session that can clear them."""
    if service.read_only:
        return []
    from studyapp.store.regrade import take_notices  # the database, only when it is read

    # the same answer to the same card, given again while it was being relearnt: one line
    same: dict[tuple[str, str, str, bool], list[RegradeNotice]] = {}
    for notice in take_notices(service.store, service.profile.id):
        same.setdefault((notice.deck_id, notice.card_key, notice.response, notice.right),
                        []).append(notice)
    return [regrade_line(told[0], len(told), _prompt(service, told[0], lang), lang)
            for told in same.values()]


def regrade_line(notice: RegradeNotice, times: int, prompt: str, lang: str) -> str:
    """One notice in the learner's language: the first of ``times`` same answers."""
    key = "study.regraded." + ("right" if notice.right else "wrong") + (
        "" if times == 1 else "_many")
    return t(key, lang, answer=visible(notice.response), prompt=prompt, n=times,
             date=notice.reviewed_at.date().isoformat())


def _prompt(service: StudyService, notice: RegradeNotice, lang: str) -> str:
    """The question's prompt as written, cut; its deck and id when the card is gone."""
    try:
        spec = service.card(notice.deck_id, notice.card_key)
        text = " ".join(visible(spec.text(spec.prompt, lang)).split())
    except Exception:  # a card since removed from its deck: named by its id
        return f"{notice.deck_id}/{notice.card_key}"
    return text if len(text) <= PROMPT_WIDTH else text[:PROMPT_WIDTH - 1] + "…"


__all__ = ["regrade_line", "take_regrade_notices"]
