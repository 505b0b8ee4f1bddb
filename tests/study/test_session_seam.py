"""A session reaches its service only through ``SessionHost``, and study has no import circle.

A sitting that answers, rates, undoes, overrules, skips and sums up runs
against a service seen through the protocol alone: reaching for anything
else (a private member, the store) fails the test.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import grimp
from test_service import Clock, right_answer, service, wrong_answer

import studyapp
from studyapp.srs import Rating
from studyapp.study import SessionKind, StudyService, StudySession
from studyapp.study.host import SessionHost

ROOT = str(Path(studyapp.__file__).parent.parent)

PROTOCOL = {name for name in vars(SessionHost) if not name.startswith("_")}


class OnlyTheProtocol:
    """The service as the session may see it: the members ``SessionHost`` names."""

    def __init__(self, service: StudyService) -> None:
        self._service = service
        self.used: set[str] = set()

    def __getattr__(self, name: str) -> Any:
        assert name in PROTOCOL, f"the session reached past SessionHost for {name!r}"
        self.used.add(name)
        return getattr(self._service, name)


def test_the_protocol_names_only_public_service_methods() -> None:
    assert {"now", "card", "record_answer", "undo_answer", "hold_answer"} <= PROTOCOL
    for name in PROTOCOL:
        assert hasattr(StudyService, name), name
    assert SessionHost.record_answer.__annotations__["answer"] == "AnsweredCard"


def test_a_whole_sitting_runs_through_the_protocol(tmp_path: Path) -> None:
    clock = Clock()
    svc = service(tmp_path, clock)
    try:
        queue = svc.session_queue(SessionKind.POST, post="h200")
        host = OnlyTheProtocol(svc)
        session = StudySession(host, SessionKind.POST, queue, limit=6, seed=3,  # type: ignore[arg-type]
                               lang="en")
        first = session.next()
        assert first is not None
        session.skip()  # held nothing yet: back at the end of the queue
        presented = session.next()
        assert presented is not None
        outcome = session.submit(right_answer(presented.question))
        assert outcome.needs_rating and outcome.intervals
        session.rate(Rating.GOOD)
        assert session.undo()  # the rating taken back, the card asked again
        advanced = session.advance()
        assert advanced is not None and advanced.presented is not None
        assert advanced.answered == 0
        response = session.respond(wrong_answer(advanced.presented.question))
        assert response.outcome.recorded and response.can_undo
        assert session.overrule()  # "I was right": Hard, recorded again
        while (p := session.next()) is not None:
            if session.submit(right_answer(p.question)).needs_rating:
                session.rate(Rating.EASY)
        tally = session.tally("en")
        assert tally.answered == session.answered > 1
        assert tally.comes_back and min(tally.comes_back).total_seconds() >= 0
        assert {"record_answer", "undo_answer", "hold_answer", "intervals",
                "card_flags", "due_times", "coming_back"} <= host.used
    finally:
        svc.close()


def _graph() -> grimp.ImportGraph:
    import sys

    if ROOT not in sys.path:
        sys.path.insert(0, ROOT)
    return grimp.build_graph("studyapp", exclude_type_checking_imports=False, cache_dir=None)


def test_study_modules_import_in_one_direction_type_checking_included() -> None:
    graph = _graph()
    study = {m for m in graph.modules if m.startswith("studyapp.study.")}
    for module in study:
        for other in study - {module}:
            assert not (graph.chain_exists(module, other) and graph.chain_exists(other, module)), (
                f"{module} and {other} import each other")
    session_imports = graph.find_modules_directly_imported_by("studyapp.study.session")
    assert not {m for m in session_imports
                if m.startswith("studyapp.store") or m == "studyapp.study.service"}
