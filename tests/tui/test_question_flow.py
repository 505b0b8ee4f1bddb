"""The question screen's phases and keys, without Textual: which moves a session may
make, and which keys work in each state."""

from __future__ import annotations

import itertools

import pytest

from studyapp.questions.model import Kind
from studyapp.tui.screens.question_flow import (
    MOVES,
    KeyState,
    Phase,
    PhaseError,
    aid,
    allowed,
    can_move,
    move,
    picked,
)


def test_a_session_goes_through_its_phases_in_order() -> None:
    phase = Phase.LOADING
    for to in (Phase.ASKING, Phase.ASKING, Phase.FEEDBACK, Phase.ASKING, Phase.FEEDBACK,
               Phase.DONE):
        phase = move(phase, to)
    assert phase is Phase.DONE


@pytest.mark.parametrize(("current", "to"), [
    (Phase.LOADING, Phase.FEEDBACK),  # graded before anything was asked
    (Phase.FEEDBACK, Phase.FEEDBACK),  # one answer graded twice
    (Phase.DONE, Phase.ASKING),  # a question drawn after the session ended
    (Phase.DONE, Phase.DONE),  # ended twice
    (Phase.ASKING, Phase.LOADING),
])
def test_a_move_the_session_cannot_make_is_refused(current: Phase, to: Phase) -> None:
    assert not can_move(current, to)
    with pytest.raises(PhaseError, match=f"from {current} to {to}"):
        move(current, to)


def test_every_phase_but_done_can_end_and_nothing_leaves_done() -> None:
    for phase in Phase:
        assert can_move(phase, Phase.DONE) == (phase is not Phase.DONE)
    assert MOVES[Phase.DONE] == frozenset()
    assert set(MOVES) == set(Phase)


def test_phases_read_as_their_names() -> None:
    """Pilot tests and logs compare the phase with its name."""
    assert Phase.ASKING == "asking" and f"{Phase.FEEDBACK}" == "feedback"


def test_answer_keys_pick_by_the_kind_of_question() -> None:
    """f is False on a true/false question (falso) and the sixth choice on a choice one."""
    assert [picked(k, Kind.CHOICE) for k in ("a", "f", "1", "9", "yes", "no", "g")] == [
        0, 5, 0, 8, None, None, None]
    assert [picked(k, Kind.TRUEFALSE) for k in ("yes", "no", "f", "1", "2", "a")] == [
        0, 1, 1, 0, 1, None]
    assert all(picked(k, Kind.NUMERIC) is None for k in ("a", "1", "yes", "f"))
    assert all(picked(k, None) is None for k in ("a", "1", "yes"))


def test_answer_keys_work_only_where_they_pick_something() -> None:
    choice = KeyState(Phase.ASKING, Kind.CHOICE, has_card=True)
    numeric = KeyState(Phase.ASKING, Kind.NUMERIC, has_card=True)
    truefalse = KeyState(Phase.ASKING, Kind.TRUEFALSE, has_card=True)
    assert allowed("pick", choice, ("c",)) and allowed("pick", choice, ("3",))
    assert not allowed("pick", choice, ("yes",))
    assert not allowed("pick", numeric, ("a",)) and not allowed("pick", numeric, ("1",))
    assert allowed("pick", truefalse, ("no",)) and allowed("pick", truefalse, ("f",))
    assert not allowed("pick", truefalse, ("a",))
    assert not allowed("pick", KeyState(Phase.LOADING), ("1",))


def test_after_an_answer_digits_rate_and_only_a_wrong_verdict_is_overruled() -> None:
    graded = KeyState(Phase.FEEDBACK, Kind.CHOICE, has_card=True, graded=True)
    assert allowed("pick", graded, ("3",)) and not allowed("pick", graded, ("c",))
    assert not allowed("overrule", graded)
    assert allowed("overrule", KeyState(Phase.FEEDBACK, graded=True, can_overrule=True))
    assert not allowed("overrule", KeyState(Phase.ASKING, graded=True, can_overrule=True))
    assert not allowed("pick", KeyState(Phase.FEEDBACK), ("1",))


def test_undo_works_while_asking_or_graded_and_never_while_loading_or_done() -> None:
    for phase in Phase:
        state = KeyState(phase, can_undo=True)
        assert allowed("undo", state) == (phase in (Phase.ASKING, Phase.FEEDBACK))
        assert not allowed("undo", KeyState(phase, can_undo=False))


def test_ctrl_g_is_the_step_method_while_a_scenario_step_is_asked_else_the_image() -> None:
    """One key, two aids: the method wins on a scenario's step (its hint names ctrl+g)."""
    for phase, scenario, image in itertools.product(Phase, (False, True), (False, True)):
        state = KeyState(phase, Kind.NUMERIC, scenario=scenario, has_card=True,
                         names_image=image)
        expected = ("method" if phase is Phase.ASKING and scenario
                    else "image" if image else None)
        assert aid(state) == expected, state
        assert allowed("aid", state) == (expected is not None)


def test_an_action_the_flow_does_not_know_is_left_to_the_screen() -> None:
    assert allowed("escape", KeyState(Phase.LOADING))
    assert allowed("show_post", KeyState(Phase.ASKING, has_card=True))
    assert not allowed("show_post", KeyState(Phase.LOADING))


def test_the_flow_loads_without_textual() -> None:
    """The phases and keys are plain Python: importing them starts no part of Textual."""
    import subprocess
    import sys

    probe = ("import sys, studyapp.tui.screens.question_flow; "
             "print(sorted(m for m in sys.modules if m.split('.')[0] == 'textual'))")
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                            check=True)
    assert result.stdout.strip() == "[]"
