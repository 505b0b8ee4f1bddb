"""Answers graded but not yet recorded, kept in the database until they are.

A right answer waits for the learner's rating; a scenario with a wrong step
waits for its last step. Either is held here the moment it is graded (the
scenario's copy replaced at each step); the transaction that records it
removes it (``Answer.held_id``). Whatever an app that is gone still holds
(it was killed, the machine lost power) is recorded, as the rating Enter
would have given or as the scenario's Again, the next time the profile is
opened or its progress read (``studyapp.study.held``), so an answer given is
never lost.
"""

from __future__ import annotations

import os
import socket
from dataclasses import asdict, fields
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import delete, select

from studyapp.store.database import Store
from studyapp.store.models import HeldAnswer
from studyapp.store.progress import Answer

_KEPT = tuple(f.name for f in fields(Answer) if f.name not in ("state", "held_id"))
ABANDONED_ELSEWHERE = timedelta(hours=24)
"""A held answer of another machine's app is taken as abandoned after this long."""


def _stat(pid: int) -> list[str]:
    """The fields of ``/proc/<pid>/stat`` after the command name (Linux), or none."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return []


def _started(pid: int) -> str:
    """When process ``pid`` started (Linux), so a reused pid is not taken for the holder."""
    fields = _stat(pid)
    return fields[19] if len(fields) > 19 else ""


def this_process() -> dict[str, Any]:
    """Who holds an answer: this machine, this process and when it started."""
    return {"host": socket.gethostname(), "pid": os.getpid(), "started": _started(os.getpid())}


def holder_alive(holder: dict[str, Any], held_at: datetime, now: datetime) -> bool:
    """Is the app that held an answer still running (and may still rate it)?"""
    if holder.get("host") != socket.gethostname():
        return now - held_at < ABANDONED_ELSEWHERE
    pid = holder.get("pid")
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # it exists, under another user
    fields = _stat(pid)
    if fields[:1] == ["Z"]:  # killed, not yet reaped by its parent (a server's tab)
        return False
    return _started(pid) == str(holder.get("started", ""))


def _as_json(answer: Answer) -> dict[str, Any]:
    data = {key: value for key, value in asdict(answer).items() if key in _KEPT}
    data["reviewed_at"] = answer.reviewed_at.isoformat()
    if data.get("params") is not None:
        data["params"] = dict(data["params"])
    return data


def _from_json(data: dict[str, Any], held_id: int) -> Answer:
    values: dict[str, Any] = {key: data[key] for key in _KEPT if key in data}
    values["reviewed_at"] = datetime.fromisoformat(str(data["reviewed_at"]))
    return Answer(**values, state=None, held_id=held_id)


def hold_answer(store: Store, profile_id: int, answer: Answer, now: datetime) -> int:
    """Keep a right answer until its rating is recorded; the held row's id."""
    with store.transaction() as session:
        row = HeldAnswer(profile_id=profile_id,
                         answer={**_as_json(answer), "holder": this_process()}, held_at=now)
        session.add(row)
        session.flush()
        return row.id


def release_answer(store: Store, held_id: int) -> None:
    """Forget a held answer that will not be recorded (a practice answer, a skipped card)."""
    with store.transaction() as session:
        session.execute(delete(HeldAnswer).where(HeldAnswer.id == held_id))


def holding_profiles(store: Store) -> set[int]:
    """The profiles with held answers (live or abandoned): the few a report looks at."""
    with store.sessions() as session:
        return set(session.execute(select(HeldAnswer.profile_id).distinct()).scalars())


def abandoned_answers(store: Store, profile_id: int, now: datetime) -> list[Answer]:
    """Held answers whose app is gone, oldest first, each knowing its held row.

    Another tab or process of the same profile may be holding an answer it is
    about to rate: those are left alone.
    """
    with store.sessions() as session:
        rows = session.execute(select(HeldAnswer.id, HeldAnswer.answer, HeldAnswer.held_at)
                               .where(HeldAnswer.profile_id == profile_id)
                               .order_by(HeldAnswer.held_at, HeldAnswer.id)).all()
    return [_from_json(dict(data), held_id) for held_id, data, held_at in rows
            if not holder_alive(dict(data).get("holder") or {}, held_at, now)]


__all__ = ["abandoned_answers", "hold_answer", "holding_profiles", "release_answer",
           "this_process"]
