"""Where a study session stands on the question screen, and what its keys may do there.

Plain Python, no Textual: the screen keeps a ``Phase`` and moves it only
through ``move``, so an answer graded twice or a question drawn after the
session ended is an error instead of a screen that quietly shows the wrong
thing. ``allowed`` says which of the screen's actions a key may run in a
given state; the screen's ``check_action`` only gathers that state.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum

from studyapp.questions.model import Kind


class Phase(StrEnum):
    """loading → asking → feedback → asking … → done."""

    LOADING = "loading"
    """The session is being started; nothing to answer yet."""
    ASKING = "asking"
    """A question, or a scenario's step, waits for its answer."""
    FEEDBACK = "feedback"
    """The answer is graded; the ratings (or Continue) are offered."""
    DONE = "done"
    """The session ended: the summary or the home screen comes next."""


MOVES: Mapping[Phase, frozenset[Phase]] = {
    Phase.LOADING: frozenset({Phase.ASKING, Phase.DONE}),
    # asking again: a scenario's next step, or an undo back to the previous question
    Phase.ASKING: frozenset({Phase.ASKING, Phase.FEEDBACK, Phase.DONE}),
    Phase.FEEDBACK: frozenset({Phase.ASKING, Phase.DONE}),
    Phase.DONE: frozenset(),
}
"""The phases each phase may move to."""


class PhaseError(RuntimeError):
    """A move the session cannot make (a bug in the screen, never the learner's doing)."""


def can_move(current: Phase, to: Phase) -> bool:
    return to in MOVES[current]


def move(current: Phase, to: Phase) -> Phase:
    """``to``, when ``current`` may move there; PhaseError otherwise."""
    if not can_move(current, to):
        raise PhaseError(f"the question screen cannot go from {current} to {to}")
    return to


@dataclass(frozen=True)
class KeyState:
    """What decides which keys work: the phase, the card and its outcome."""

    phase: Phase
    kind: Kind | None = None
    """Kind of what is being answered: the question, or the scenario's current step."""
    scenario: bool = False
    """The card is a scenario (asked step by step)."""
    has_card: bool = False
    can_undo: bool = False
    names_image: bool = False
    """The card text on screen names an image (``[image: NAME]``)."""
    graded: bool = False
    """An outcome is on screen."""
    can_overrule: bool = False
    can_another: bool = False
    """A missed method card may be drawn again with fresh numbers (``a``)."""


def allowed(action: str, state: KeyState, parameters: tuple[object, ...] = ()) -> bool:
    """Whether the screen's ``action`` may run now (False also hides its footer key)."""
    asking, feedback = state.phase is Phase.ASKING, state.phase is Phase.FEEDBACK
    if action == "undo":
        return state.can_undo and (asking or feedback)
    if action == "show_post":
        return state.has_card
    if action == "aid":
        return aid(state) is not None
    if action == "overrule":
        return feedback and state.graded and state.can_overrule
    if action == "pick":
        key = str(parameters[0]) if parameters else ""
        if asking:
            return picked(key, state.kind) is not None
        if feedback and key == ANOTHER_KEY:
            return state.graded and state.can_another
        return feedback and state.graded and key.isdigit()  # a rating, or Continue
    return True


CHOICE_LETTERS = "abcdef"
"""Letters that pick a choice (a choice question has at most nine, letters go to f)."""

ANOTHER_KEY = "a"
"""After a miss on a method card: the same family again with fresh numbers (practice)."""


def picked(key: str, kind: Kind | None) -> int | None:
    """The choice an answer key picks on a question of ``kind``; None if it picks none.

    ``key`` is a digit, a letter a–f, or ``yes``/``no`` (y, s, v and n). On a
    true/false question f is False (falso) and 1 is True; on a choice question
    it is the sixth choice.
    """
    if key.isdigit() and kind in (Kind.CHOICE, Kind.TRUEFALSE):
        return int(key) - 1
    if kind is Kind.TRUEFALSE:
        return {"yes": 0, "no": 1, "f": 1}.get(key)
    if kind is Kind.CHOICE and len(key) == 1 and key in CHOICE_LETTERS:
        return CHOICE_LETTERS.index(key)
    return None


def aid(state: KeyState) -> str | None:
    """What ctrl+g shows: a scenario step's ``"method"`` while it is asked, else the card's
    ``"image"`` when the card names one; None when neither."""
    if state.phase is Phase.ASKING and state.has_card and state.scenario:
        return "method"
    if state.names_image:
        return "image"
    return None


__all__ = ["ANOTHER_KEY", "CHOICE_LETTERS", "MOVES", "KeyState", "Phase", "PhaseError", "aid",
           "allowed",
           "can_move", "move", "picked"]
