"""What an answer's verdict is, kept with its review log (revision 0012).

The class report counts answers by verdict and slip in SQL, so each review log
carries them from the moment it is written (and from an import, and after a
regrade): ``verdict`` ``right`` or ``wrong``; ``slip`` the first named slip of a
wrong answer (``""`` none, ``None`` an older answer stored without its slips,
named by grading it again); ``carried`` how many of a scenario's steps were
right from the learner's own wrong earlier answer (error carried forward), which
name no slip; ``answer`` the choice picked, by its text; ``traps`` the slips a right
answer's question (a scenario's right steps) could have shown (revision 0013).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

RIGHT, WRONG = "right", "wrong"

# keys of a review log's params, as the study loop writes them (studyapp.study.views)
_SLIPS, _PICKED, _PARTS, _TRAPS = "answer_slips", "picked_choice", "parts", "answer_traps"

TRAPS_WIDTH = 400
"""The traps column's width: slip keys are short, a question sets a few."""

SLIP_WIDTH = 200
"""The slip column's width: a longer name is cut (names are a few words)."""


def answer_marks(correct: bool, params: Mapping[str, Any] | None) -> dict[str, Any]:
    """The verdict columns of one review log, from its ``correct`` and its params."""
    params = params if isinstance(params, Mapping) else {}
    steps = [s for s in params.get(_PARTS) or () if isinstance(s, Mapping)]
    carried = sum(1 for s in steps if s.get("carried"))
    picked = params.get(_PICKED)
    marks: dict[str, Any] = {"verdict": RIGHT if correct else WRONG, "carried": carried,
                             "answer": picked if isinstance(picked, str) else None}
    if correct:
        marks["slip"] = ""
    elif steps:  # a scenario: the first slip of a step that went wrong (not carried)
        marks["slip"] = next((f"{s.get('name') or '?'}: {slip}" for s in steps
                              if not s.get("correct") and not s.get("carried")
                              for slip in list(s.get("slips") or ())[:1]), "")
    elif _SLIPS in params:
        slips = params.get(_SLIPS) or ()
        marks["slip"] = str(slips[0]) if isinstance(slips, list) and slips else ""
    else:
        marks["slip"] = None  # stored before slips were noted: named by grading it again
    if isinstance(marks["slip"], str):
        marks["slip"] = marks["slip"][:SLIP_WIDTH]
    traps = params.get(_TRAPS)
    marks["traps"] = (",".join(str(t) for t in traps)[:TRAPS_WIDTH]
                      if isinstance(traps, list) and traps else None)
    return marks


def stored_steps(stored: str | None) -> tuple[Mapping[str, Any], ...]:
    """A scenario's steps from the JSON text of its review log's ``parts`` (read back by
    SQL as text): the dict steps, nothing for text that is not a list of them."""
    if not stored:
        return ()
    try:
        steps = json.loads(stored)
    except ValueError:
        return ()
    return tuple(s for s in steps if isinstance(s, dict)) if isinstance(steps, list) else ()
