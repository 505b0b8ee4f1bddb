"""The one service the UIs talk to: study, review and progress.

The TUI and the plain-text loop both drive a ``StudySession`` from here, so
scheduling, grading and storage behave the same everywhere. Nothing here
imports Textual; storage goes through ``studyapp.store``, loaded on first use.

``model`` holds the values the faces receive, ``cards`` the studied card set,
``service`` the ``StudyService``, ``session`` one sitting, ``host`` what a
sitting needs of its service (``SessionHost``: the session never imports the
service or the store), ``text`` the words every face shows alike. A face sends
one intent per call (``service.deck_rows``, ``session.respond``…) and renders
what comes back.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from studyapp.study.curriculum import CurriculumCard, deck_kind, deck_on_by_default
from studyapp.study.host import SessionHost
from studyapp.study.phrases import (
    coming_back_text,
    describe_failure,
    numbered_choice,
    slips_text,
    wait_text,
)
from studyapp.study.regraded import take_regrade_notices
from studyapp.study.service import StudyService
from studyapp.study.session import StudySession, shuffle_choices
from studyapp.study.views import (
    ANSWER_SLIPS,
    LEARNING_STAGES,
    PICKED_CHOICE,
    SCENARIO_OUTCOME,
    SCENARIO_PARTS,
    SHOWN_CHOICES,
    SOON,
    Advance,
    AnsweredCard,
    ComingBack,
    CourseProgress,
    CourseView,
    DeckChoiceInfo,
    DeckRow,
    NoSuchItem,
    Outcome,
    Overview,
    PostCard,
    PostCards,
    PostOffer,
    PostProgress,
    Presented,
    ProgressView,
    Response,
    SessionKind,
    SessionMix,
    SessionTally,
    StudyConfig,
    utc_now,
)

if TYPE_CHECKING:
    from studyapp.store import StoreError as StoreError

__all__ = [
    "ANSWER_SLIPS",
    "LEARNING_STAGES",
    "PICKED_CHOICE",
    "SCENARIO_OUTCOME",
    "SCENARIO_PARTS",
    "SHOWN_CHOICES",
    "SOON",
    "Advance",
    "AnsweredCard",
    "ComingBack",
    "CourseProgress",
    "CourseView",
    "CurriculumCard",
    "DeckChoiceInfo",
    "DeckRow",
    "NoSuchItem",
    "Outcome",
    "Overview",
    "PostCard",
    "PostCards",
    "PostOffer",
    "PostProgress",
    "Presented",
    "ProgressView",
    "Response",
    "SessionHost",
    "SessionKind",
    "SessionMix",
    "SessionTally",
    "StoreError",
    "StudyConfig",
    "StudyService",
    "StudySession",
    "coming_back_text",
    "deck_kind",
    "deck_on_by_default",
    "describe_failure",
    "numbered_choice",
    "shuffle_choices",
    "slips_text",
    "take_regrade_notices",
    "utc_now",
    "wait_text",
]


def __getattr__(name: str) -> Any:
    """``StoreError`` for the faces, loaded with the store only when asked (PEP 562):
    ``import studyapp.study`` must not load SQLAlchemy."""
    if name == "StoreError":
        from studyapp.store import StoreError

        return StoreError
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
